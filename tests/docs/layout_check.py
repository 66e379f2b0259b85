#!/usr/bin/env python3
"""Checks docs/layout.md against the tracked tree (git ls-files):

- every folder that holds a tracked file is the first cell of a row;
- every tracked file of lib/ is named: by its path, or by its name in the
  row of its folder;
- every path the page names exists, and so does every file name a folder's
  row names (in that folder or below it).

Exits 0 when all hold, 1 listing what does not, 2 on bad usage or when the
tree is not a git checkout.

    python3 tests/docs/layout_check.py [--root DIR]
"""
import os
import re
import sys

from tree import main, tracked
CODE = re.compile(r"`([^`]+)`")
# A file name: a stem and an extension of the kinds the tree holds.
FILE_NAME = re.compile(r"^[\w.+-]+\.(cc|hpp|h|c|cpp|py|md|txt|cmake|sh|json|inc|toml|map|in)$")


def rows(page_text):
    """(first cell's code spans, second cell's code spans) of each table row."""
    for line in page_text.splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2:
            continue
        yield CODE.findall(cells[0]), CODE.findall(" | ".join(cells[1:]))


def problems(root):
    with open(os.path.join(root, "docs", "layout.md"), encoding="utf-8") as f:
        page_text = f.read()
    files = tracked(root)
    folders = {os.path.dirname(f) for f in files} - {""}
    found = []
    named_folders = set()
    named_files = set()
    for first, rest in rows(page_text):
        for span in first:
            if span == ".":
                named_folders.add("")
            elif span.endswith("/"):
                named_folders.add(span.rstrip("/"))
            else:
                named_files.add(span)
        for span in first + rest:
            path = span.rstrip("/")
            if "/" in path and re.fullmatch(r"[\w./+-]+", path) and "*" not in path \
                    and "<" not in path and not path.startswith((".", "/")) or path == ".ci":
                if not os.path.exists(os.path.join(root, path)):
                    found.append(f"the page names {span}, which does not exist")
        folder_spans = [s.rstrip("/") for s in first if s.endswith("/")] + (["" ] if "." in first else [])
        for folder in folder_spans:
            below = [f for f in files if f.startswith(folder + "/" if folder else "")]
            for span in rest:
                if "/" in span or not FILE_NAME.match(span):
                    continue
                if folder == "" and span in {os.path.basename(f) for f in files if "/" not in f}:
                    named_files.add(span)
                    continue
                hits = [f for f in below if os.path.basename(f) == span]
                if not hits:
                    found.append(f"the row of {folder or '.'}/ names {span}, which is not in it")
                named_files.update(hits)
    for folder in sorted(folders - named_folders):
        found.append(f"folder {folder}/ is not the first cell of a row")
    for f in sorted(files):
        if f.startswith("lib/") and f not in named_files:
            found.append(f"{f} is not named")
    return found


if __name__ == "__main__":
    sys.exit(main(__doc__, "layout_check", "problem(s)", problems))
