"""What the script tests share: the --cli argument CTest passes, and a
temporary folder per test case."""

import argparse
import os
import sys
import tempfile
import unittest


class TempDirTest(unittest.TestCase):
    """A test case with its own temporary folder, removed afterwards."""

    prefix = "exactsample_"

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix=self.prefix)
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)


def emulated():
    """True when the program runs under an emulator (a cross build's ctest
    sets EXACTSAMPLE_TEST_EMULATOR)."""
    return bool(os.environ.get("EXACTSAMPLE_TEST_EMULATOR"))


def main(module):
    """Reads --cli into module.CLI, then runs the module's test cases."""
    ap = argparse.ArgumentParser(description=module.__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True, help="the exactsample program")
    args, rest = ap.parse_known_args()
    module.CLI = os.path.abspath(args.cli)
    unittest.main(module=module, argv=[sys.argv[0], *rest], verbosity=2)
