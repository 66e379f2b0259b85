#!/usr/bin/env python3
"""docs/llama-cpp.md's lines are ten_lines.c's, which llama_loop_test
compiles (C99) and runs: the page's first block after "## The ten lines",
then the first after "## Keeping a llama-server user's order", equal the
lines between ten_lines.c's first and second pair of markers, spaces at the
ends aside. Exits 0 when they match, 1 when not, 2 when one is not found."""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = os.path.join(HERE, "..", "..", "..", "docs", "llama-cpp.md")
SOURCE = os.path.join(HERE, "ten_lines.c")


def lines(text):
    return [line.strip() for line in text.strip("\n").split("\n")]


HEADINGS = ["The ten lines", "Keeping a llama-server user's order"]


def main():
    page = open(PAGE, encoding="utf-8").read()
    source = open(SOURCE, encoding="utf-8").read()
    codes = re.findall(r"/\* docs: begin \*/\n(.*?)^\s*/\* docs: end \*/", source, re.S | re.M)
    if len(codes) != len(HEADINGS):
        print(f"docs_lines_check.py: ten_lines.c has {len(codes)} marked blocks, "
              f"expected {len(HEADINGS)}")
        return 2
    for heading, code in zip(HEADINGS, codes):
        block = re.search(r"^## " + re.escape(heading) + r"\n.*?^```\w*\n(.*?)^```$", page,
                          re.S | re.M)
        if block is None:
            print(f"docs_lines_check.py: the page has no block under '## {heading}'")
            return 2
        if lines(block.group(1)) != lines(code):
            print(f"docs/llama-cpp.md's lines under '## {heading}' differ from ten_lines.c's:")
            print(block.group(1))
            print(code)
            return 1
        print(f"docs/llama-cpp.md's {len(lines(code))} lines under '## {heading}' are ten_lines.c's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
