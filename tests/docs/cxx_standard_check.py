"""Each public C++ header, included below C++20, stops with one error, the
#error that names the C header; at C++20 it compiles.

Usage: cxx_standard_check.py --cxx CXX --include DIR
"""

import argparse
import glob
import os
import subprocess
import sys

# Public headers that need nothing of C++20 (the executor hook) or are the
# check itself; every other one must stop below C++20.
ANY_STANDARD = {"executor", "cxx20"}


def compile_header(cxx, include, header, std):
    proc = subprocess.run([cxx, f"-std={std}", "-fsyntax-only", "-I", include, "-x", "c++", "-"],
                          input=f"#include <exactsample/{header}.hpp>\n", capture_output=True, text=True)
    return proc.returncode, proc.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--include", required=True)
    args = parser.parse_args()
    headers = sorted(os.path.basename(h)[:-4] for h in glob.glob(os.path.join(args.include, "exactsample", "*.hpp")))
    headers = [h for h in headers if h not in ANY_STANDARD]
    failures = []
    if len(headers) < 6:
        failures.append(f"only {headers} found under {args.include}")
    for header in headers:
        for std in ("c++17", "c++14"):
            rc, err = compile_header(args.cxx, args.include, header, std)
            errors = [line for line in err.splitlines() if "error" in line and ": " in line
                      and not line.startswith(" ")]
            if rc == 0 or len(errors) != 1 or "#error" not in errors[0] or "<exactsample.h>" not in errors[0]:
                failures.append(f"{header}.hpp at {std}: expected one #error naming <exactsample.h>, got "
                                f"exit {rc}:\n{err}")
        rc, err = compile_header(args.cxx, args.include, header, "c++20")
        if rc != 0:
            failures.append(f"{header}.hpp at c++20: does not compile:\n{err}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(headers)} headers ({', '.join(headers)}), {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
