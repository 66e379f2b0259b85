"""The README's Python examples run as written (from the repository root)."""

import os
import re
import subprocess
import sys

import pytest

import exactsample as xs
from conftest import ROOT


def python_section_examples():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("\n## Python\n"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


@pytest.mark.parametrize("code", python_section_examples(), ids=["example", "audit"])
def test_readme_example_runs(code):
    # The package this test imported, wherever the working directory is.
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(xs.__file__)))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
