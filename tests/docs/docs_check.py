"""The README's and docs/'s code runs as written.

- Every ```c and ```cpp block is compiled against the library and run: a
  whole program (one with `int main`) as it is, a fragment inside a harness
  that declares the names fragments use (a row of logits, a prompt, a seed,
  a model, a host thread pool). It must exit 0.
- Every line of every ```sh block is run by CI: it appears, word for word,
  as a whole line of .ci/run, .ci/cross or .ci/docs, except the few LONG ones named below
  with what runs in their place.
- ```python blocks are run by tests/python/test_docs.py; ```text and
  ```json blocks are synopses, formats and outputs, not commands.

Usage: docs_check.py --cc CC --cxx CXX --include DIR --lib LIBEXACTSAMPLE.so
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CI_SCRIPTS = [".ci/run", ".ci/cross", ".ci/docs"]

# Commands too long for CI, each with what CI runs instead.
LONG = {
    "build/exactsample_bench":
        "CI runs the one-vocabulary and the kernel commands below it",
    "bash cmake/install_deps.sh && bash cmake/install_cross_deps.sh ARCH && cmake -S . -B build-ARCH "
    "-G Ninja --toolchain cmake/toolchains/ARCH.cmake -DEXACTSAMPLE_BUILD_BENCH=OFF -DEXACTSAMPLE_WERROR=ON "
    "&& cmake --build build-ARCH -j2":
        ".ci/cross makes the same builds for each ARCH (with the test programs it runs)",
    "EXACTSAMPLE_TEST_SHARE=16 ctest --test-dir build-ARCH -j2 --output-on-failure":
        ".ci/cross runs the kernel, parity and 16-bit test programs of each ARCH under qemu",
}

C_HARNESS = r"""#include <exactsample.h>
#include <stdint.h>
#include <stdio.h>
static const uint64_t seed = 42;
static float logits[64];
static const size_t vocab = 64;
static const int32_t prompt[] = {1, 2, 3};
static const size_t prompt_len = 3;
static int32_t generated[1];
static const size_t generated_len = 0;
static int pool_storage;
static void* my_pool = &pool_storage;
static exactsample_sampler* sampler;
/* A host pool that never runs the tasks: the library must not need it. */
static void my_pool_post(void* user, void (*task)(void*), void* arg) { (void)user; (void)task; (void)arg; }
@TOP@
int main(void) {
  for (size_t i = 0; i < vocab; ++i) logits[i] = (float)(i % 7);
  if (exactsample_sampler_create(EXACTSAMPLE_ENGINE_FAST, &sampler) != EXACTSAMPLE_OK) return 1;
  (void)seed, (void)prompt, (void)prompt_len, (void)generated, (void)generated_len, (void)my_pool, (void)my_pool_post;
  {
@BODY@
  }
  return 0;
}
"""

CXX_HARNESS = r"""#include <cstdint>
#include <iostream>
#include <span>
#include <vector>
#include <exactsample/exactsample.hpp>
static const uint64_t seed = 42;
static std::vector<float> logits(64, 0.5f);
static std::vector<int32_t> prompt_ids{1, 2, 3};
static std::vector<int32_t> generated;
struct Model {
  std::vector<float> row = std::vector<float>(64, 0.25f);
  std::span<const float> next_logits() { row[generated.size() % 64] += 1.0f; return row; }
} model;
@TOP@
int main() {
@BODY@
  return 0;
}
"""


def doc_files():
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))


def blocks(path):
    """(language, text) of each fenced block; indented fences too."""
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"^( *)```(\w*)\n(.*?)^\1```$", text, re.S | re.M):
        indent = len(m.group(1))
        body = "\n".join(line[indent:] for line in m.group(3).split("\n"))
        yield m.group(2), body


def commands(sh):
    """The block's commands: continuation lines joined, comments dropped, spaces normalised."""
    joined = re.sub(r"\\\n\s*", " ", sh)
    out = []
    for line in joined.split("\n"):
        line = " ".join(re.sub(r"\s{2,}# .*$", "", line).split())
        if line:
            out.append(line)
    return out


def ci_lines():
    """Every line of the CI scripts, continuations joined, spaces normalised."""
    lines = set()
    for name in CI_SCRIPTS:
        with open(os.path.join(ROOT, name), encoding="utf-8") as f:
            lines.update(commands(f.read()))
    return lines


def split_fragment(code):
    top, body = [], []
    depth = 0
    for line in code.split("\n"):
        # Preprocessor lines and whole definitions (static functions) go above main.
        if depth == 0 and (line.startswith("#") or line.startswith("static ")):
            top.append(line)
            depth += line.count("{") - line.count("}")
        elif depth > 0:
            top.append(line)
            depth += line.count("{") - line.count("}")
        else:
            body.append(line)
    return "\n".join(top), "\n".join(body)


def compile_and_run(args, lang, code, where, tmp):
    whole = "int main" in code
    if not whole:
        top, body = split_fragment(code)
        code = (C_HARNESS if lang == "c" else CXX_HARNESS).replace("@TOP@", top).replace("@BODY@", body)
    src = os.path.join(tmp, "example." + ("c" if lang == "c" else "cpp"))
    exe = os.path.join(tmp, "example")
    with open(src, "w") as f:
        f.write(code)
    if lang == "c":
        cmd = [args.cc, "-std=c99", "-Wall", "-Wextra", "-Werror"]
    else:
        cmd = [args.cxx, "-std=c++20", "-Wall", "-Wextra", "-Werror"]
    cmd += ["-I", args.include, src, args.lib, "-Wl,-rpath," + os.path.dirname(args.lib), "-lm", "-o", exe]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return f"{where}: does not compile:\n{proc.stderr}\n{code}"
    proc = subprocess.run([exe], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        return f"{where}: exits {proc.returncode}:\n{proc.stdout}{proc.stderr}"
    print(f"{where}: ran ({'program' if whole else 'fragment'}), {len(proc.stdout.splitlines())} lines")
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cc", required=True)
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--include", required=True)
    parser.add_argument("--lib", required=True)
    parser.add_argument("--cli")  # the script tests' common argument; unused
    args = parser.parse_args()

    ci = ci_lines()
    failures, counts = [], {"c": 0, "sh": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for path in doc_files():
            name = os.path.relpath(path, ROOT)
            for i, (lang, code) in enumerate(blocks(path)):
                where = f"{name} block {i + 1} ({lang})"
                if lang in ("c", "cpp"):
                    counts["c"] += 1
                    err = compile_and_run(args, lang, code, where, tmp)
                    if err:
                        failures.append(err)
                elif lang == "sh":
                    for command in commands(code):
                        counts["sh"] += 1
                        if command in LONG:
                            print(f"{where}: not run by CI ({LONG[command]}): {command}")
                        elif command not in ci:
                            failures.append(f"{where}: no CI script runs: {command}")
                elif lang not in ("python", "text", "json"):
                    failures.append(f"{where}: unknown block language {lang!r}")
    print(f"{counts['c']} C and C++ blocks built and run, {counts['sh']} commands looked up in CI")
    if counts["c"] == 0 or counts["sh"] == 0:
        failures.append("no blocks found: the parser is broken")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
