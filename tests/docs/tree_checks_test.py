#!/usr/bin/env python3
"""tests/docs/layout_check.py and tests/docs/references_check.py on small
trees of their own, each exit of each (0 when all holds; 1 naming each
folder, lib/ file, stale name or stale reference found; 2 outside a git
checkout), then both on this checkout.

    python3 tests/docs/tree_checks_test.py [--cli PATH (unused)]
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "layout_check.py")
REFERENCES = os.path.join(HERE, "references_check.py")

PAGE = """# Layout

| path | what it holds |
|---|---|
| `.` | the README (`README.md`) |
| `lib/` | nothing but its rooms |
| `lib/engine/` | `steps.hpp`, `draw.cc` |
| `docs/` | the pages |
"""


def run(root, check=CHECK):
    return subprocess.run([sys.executable, check, "--root", root], capture_output=True, text=True)


class LayoutCheckTest(unittest.TestCase):
    def tree(self, page, files):
        root = tempfile.mkdtemp()
        for f in files:
            os.makedirs(os.path.join(root, os.path.dirname(f)), exist_ok=True)
            with open(os.path.join(root, f), "w", encoding="utf-8") as out:
                out.write("x\n")
        os.makedirs(os.path.join(root, "docs"), exist_ok=True)
        with open(os.path.join(root, "docs", "layout.md"), "w", encoding="utf-8") as out:
            out.write(page)
        subprocess.run(["git", "init", "-q", root], check=True)
        subprocess.run(["git", "-C", root, "add", "-A"], check=True)
        return root

    def test_a_page_that_names_everything_passes(self):
        proc = run(self.tree(PAGE, ["README.md", "lib/engine/steps.hpp", "lib/engine/draw.cc"]))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("0 problem(s)", proc.stdout)

    def test_a_missing_folder_a_missing_file_and_a_stale_name_fail(self):
        root = self.tree(PAGE, ["README.md", "lib/engine/steps.hpp", "lib/engine/top_k.cc",
                                "lib/threads/batch.cc"])
        proc = run(root)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("folder lib/threads/ is not the first cell of a row", proc.stdout)
        self.assertIn("lib/engine/top_k.cc is not named", proc.stdout)
        self.assertIn("lib/threads/batch.cc is not named", proc.stdout)
        self.assertIn("the row of lib/engine/ names draw.cc, which is not in it", proc.stdout)
        self.assertIn("4 problem(s)", proc.stdout)

    def test_a_named_path_that_does_not_exist_fails(self):
        page = PAGE + "| `tools/gone.py` | a tool |\n"
        proc = run(self.tree(page, ["README.md", "lib/engine/steps.hpp", "lib/engine/draw.cc"]))
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("the page names tools/gone.py, which does not exist", proc.stdout)

    def test_outside_a_checkout_exits_2(self):
        root = tempfile.mkdtemp()
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "docs", "layout.md"), "w", encoding="utf-8") as out:
            out.write(PAGE)
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(root))
        proc = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True,
                              text=True, env=env)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("layout_check:", proc.stderr)

    def test_references_that_resolve_pass(self):
        files = {"README.md": "see lib/engine/steps.hpp, simd/max (a family), engine/draw.cc\n",
                 "lib/engine/steps.hpp": "x\n", "simd/max.hpp": "x\n", "lib/engine/draw.cc": "x\n",
                 "bench/archive/old.md": "lib/gone.cc was here\n"}
        proc = run(self.files(files), REFERENCES)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("0 stale reference(s)", proc.stdout)

    def test_a_stale_reference_fails_naming_file_and_line(self):
        files = {"README.md": "first\nsee lib/top_k.cc and tests/gone_test.py\n",
                 "lib/engine/top_k.cc": "x\n"}
        proc = run(self.files(files), REFERENCES)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("README.md:2: lib/top_k.cc does not exist", proc.stdout)
        self.assertIn("README.md:2: tests/gone_test.py does not exist", proc.stdout)
        self.assertIn("2 stale reference(s)", proc.stdout)

    def test_references_outside_a_checkout_exit_2(self):
        root = tempfile.mkdtemp()
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(root))
        proc = subprocess.run([sys.executable, REFERENCES, "--root", root], capture_output=True,
                              text=True, env=env)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("references_check:", proc.stderr)

    def files(self, contents):
        root = tempfile.mkdtemp()
        for f, text in contents.items():
            os.makedirs(os.path.join(root, os.path.dirname(f)), exist_ok=True)
            with open(os.path.join(root, f), "w", encoding="utf-8") as out:
                out.write(text)
        subprocess.run(["git", "init", "-q", root], check=True)
        subprocess.run(["git", "-C", root, "add", "-A"], check=True)
        return root

    def test_this_checkout(self):
        for check in (CHECK, REFERENCES):
            proc = run(os.path.dirname(os.path.dirname(HERE)), check)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)


if __name__ == "__main__":
    if "--cli" in sys.argv:
        i = sys.argv.index("--cli")
        del sys.argv[i:i + 2]
    unittest.main(verbosity=2)
