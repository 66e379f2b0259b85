#!/usr/bin/env python3
"""Regenerates glibc's exp table from its definition and checks that the
committed scalar_ref/twins/exp_glibc_table.inc is exactly that output (CTest passes --cli PATH,
unused here)."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TWINS = ROOT / "scalar_ref" / "twins"
sys.path.insert(0, str(TWINS))

import gen_exp_glibc_table  # noqa: E402


def main() -> int:
    committed = (TWINS / "exp_glibc_table.inc").read_text()
    regenerated = gen_exp_glibc_table.render()
    if committed != regenerated:
        print("exp_glibc_table.inc differs from gen_exp_glibc_table.py output")
        return 1
    # Spot checks against words of glibc's e_exp_data.c (k = 1, 64, 127).
    words = [int(w, 16) for w in re.findall(r"0x([0-9a-f]{16})ULL", regenerated)]
    expected = {
        2: 0x3C9B3B4F1A88BF6E, 3: 0x3FEFF63DA9FB3335,
        128: 0xBC93B3EFBF5E2228, 129: 0x3FEEA09E667F3BCD,
        254: 0x3C5305C14160CC89, 255: 0x3FEFF3C22B8F71F1,
    }
    if len(words) != 256 or any(words[i] != w for i, w in expected.items()):
        print("table words differ from glibc's")
        return 1
    print("exp table OK: 256 words")
    return 0


if __name__ == "__main__":
    sys.exit(main())
