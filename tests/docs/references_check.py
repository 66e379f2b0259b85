#!/usr/bin/env python3
"""Every path a tracked text file names (`lib/...`, `tests/...`, `simd/...`,
`docs/...` and the other top folders) exists: as a file or folder from the
repository root or from a folder above the naming file, or as a file's name
without its extension (a kernel family such as simd/exp_sum, a program such
as tools/trigram_rows). Left out: the historical notebook (bench/archive/),
which speaks of the tree as it was, and this check and its test, which
name paths that do not exist on purpose.

Exits 0 when every reference resolves, 1 listing those that do not, 2 when
the tree is not a git checkout.

    python3 tests/docs/references_check.py [--root DIR]
"""
import os
import re
import sys

from tree import main, tracked
TOP = r"(?:lib|tests|simd|scalar_ref|tools|bench|python|docs|integrations|examples|cmake|\.ci)"
REFERENCE = re.compile(r"(?<![\w/.$-])(" + TOP + r"/[\w./+-]*\w)")
# Paths of an installed tree or a build folder, and placeholders, not of
# this one.
NOT_OURS = re.compile(
    r"^lib/(pkgconfig|python|libllama|libggml|cmake)|^(docs/x\.md|examples/x\.c)$|ARCH|"
    r"^tests/python/test_$")
LEFT_OUT = ("bench/archive/", "tests/data/", "tests/docs/references_check.py",
            "tests/docs/tree_checks_test.py")


def resolves(root, names, stems, naming_file, ref):
    folder = os.path.dirname(naming_file)
    while True:
        path = os.path.normpath(os.path.join(folder, ref))
        if path in names or path in stems:
            return True
        if not folder:
            return False
        folder = os.path.dirname(folder)


def problems(root):
    files = tracked(root)
    names = set(files)
    for f in files:
        d = os.path.dirname(f)
        while d:
            names.add(d)
            d = os.path.dirname(d)
    stems = {os.path.splitext(f)[0] for f in files} | {f.split(".")[0] for f in files}
    found = []
    for f in files:
        if f.startswith(LEFT_OUT):
            continue
        try:
            with open(os.path.join(root, f), encoding="utf-8") as handle:
                text = handle.read()
        except (UnicodeDecodeError, OSError):
            continue
        for line_no, line in enumerate(text.splitlines(), 1):
            for m in REFERENCE.finditer(line):
                ref = m.group(1).rstrip(".").rstrip("/")
                if NOT_OURS.search(ref) or resolves(root, names, stems, f, ref):
                    continue
                found.append(f"{f}:{line_no}: {ref} does not exist")
    return found


if __name__ == "__main__":
    sys.exit(main(__doc__, "references_check", "stale reference(s)", problems))
