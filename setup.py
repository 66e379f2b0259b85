"""The Python package's extension, built by this project's CMake build.

build_ext configures the library alone (no tests, no benchmarks) in
Release, builds the module's target, exactsample_python, and copies the
module into the wheel. CMake's own flags stay: Highway's dispatch over
every target (never -march=native) and the strict floating-point flags of
cmake/StrictFloatingPoint.cmake. EXACTSAMPLE_CMAKE_ARGS adds arguments to
the configure step (a compiler launcher, say).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(ROOT, "lib", "include", "exactsample", "version.h"), encoding="utf-8") as f:
        text = f.read()
    return ".".join(re.search(rf"#define EXACTSAMPLE_VERSION_{part} (\d+)", text).group(1)
                    for part in ("MAJOR", "MINOR", "PATCH"))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        for var in ("CFLAGS", "CXXFLAGS"):
            if "-march=native" in os.environ.get(var, ""):
                sys.exit(f"{var} has -march=native, which would leave Highway one target "
                         "instead of dispatching at run time: unset it")
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                     "-DEXACTSAMPLE_BUILD_TESTS=OFF", "-DEXACTSAMPLE_BUILD_BENCH=OFF",
                     f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("EXACTSAMPLE_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", build_dir, "--target", "exactsample_python",
                        "-j", str(os.cpu_count() or 2)], check=True)
        built = os.path.join(build_dir, "python", "exactsample", os.path.basename(self.get_ext_fullpath(ext.name)))
        if not os.path.exists(built):
            sys.exit(f"CMake did not build {built}: is pybind11-dev, python3-dev and numpy "
                     f"there for {sys.executable}?")
        os.makedirs(os.path.dirname(self.get_ext_fullpath(ext.name)), exist_ok=True)
        shutil.copyfile(built, self.get_ext_fullpath(ext.name))


setup(
    version=version(),
    ext_modules=[Extension("exactsample._exactsample", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # Not build/: that is where the README's CMake build lives.
    options={"build": {"build_base": "build-python"}},
)
