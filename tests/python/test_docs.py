"""The Python examples of the README and of docs/ run as written (from the
repository root), with the package this suite imports."""

import glob
import os
import re
import subprocess
import sys

import pytest

import exactsample as xs
from conftest import ROOT


def python_examples():
    pages = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    found = []
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        for i, code in enumerate(re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)):
            found.append(pytest.param(code, id=f"{os.path.relpath(page, ROOT)}:{i + 1}"))
    return found


def test_examples_found():
    # The README's example and the two of docs/python.md at least.
    assert len(python_examples()) >= 3


@pytest.mark.parametrize("code", python_examples())
def test_doc_example_runs(code):
    # The package this test imported, wherever the working directory is.
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(xs.__file__)))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
