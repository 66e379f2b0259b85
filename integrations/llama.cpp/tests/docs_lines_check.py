#!/usr/bin/env python3
"""docs/llama-cpp.md's ten lines are ten_lines.c's, which llama_loop_test
compiles (C99) and runs: the page's first block after "## The ten lines"
equals the lines between ten_lines.c's markers, spaces at the ends aside.
Exits 0 when they match, 1 when not, 2 when either is not found."""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = os.path.join(HERE, "..", "..", "..", "docs", "llama-cpp.md")
SOURCE = os.path.join(HERE, "ten_lines.c")


def lines(text):
    return [line.strip() for line in text.strip("\n").split("\n")]


def main():
    page = open(PAGE, encoding="utf-8").read()
    source = open(SOURCE, encoding="utf-8").read()
    block = re.search(r"^## The ten lines\n.*?^```\w*\n(.*?)^```$", page, re.S | re.M)
    code = re.search(r"/\* docs: begin \*/\n(.*?)^\s*/\* docs: end \*/", source, re.S | re.M)
    if block is None or code is None:
        print("docs_lines_check.py: the page's block or the source's markers are missing")
        return 2
    if lines(block.group(1)) != lines(code.group(1)):
        print("docs/llama-cpp.md's ten lines differ from ten_lines.c's:")
        print(block.group(1))
        print(code.group(1))
        return 1
    print(f"docs/llama-cpp.md's {len(lines(code.group(1)))} lines are ten_lines.c's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
