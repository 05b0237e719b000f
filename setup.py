"""Builds the extension gpuplan._core with the project's CMake (target gpuplan_python) for the Python that
runs pip, then packages it with python/gpuplan/*.py. Metadata: pyproject.toml. Build folder: build-python/."""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(ROOT, "build-python")  # beside build/, so ccache's base_dir paths match the main build's
os.makedirs(BUILD, exist_ok=True)  # also holds setuptools' build and egg-info folders


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        configure = ["cmake", "-S", ROOT, "-B", BUILD, "-DCMAKE_BUILD_TYPE=Release", "-DGPUPLAN_BUILD_TESTS=OFF",
                     "-DGPUPLAN_BUILD_BENCH=OFF", "-DGPUPLAN_BUILD_PROBE=OFF", "-DGPUPLAN_BUILD_PYTHON=ON",
                     "-DPython3_EXECUTABLE=" + sys.executable]
        configure += shlex.split(os.environ.get("GPUPLAN_CMAKE_ARGS", ""))  # e.g. -DPython3_EXECUTABLE=...
        if shutil.which("ninja") and not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
            configure += ["-G", "Ninja"]
        subprocess.check_call(configure)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        subprocess.check_call(["cmake", "--build", BUILD, "--target", "gpuplan_python", "--parallel", jobs])
        built = glob.glob(os.path.join(BUILD, "python", "gpuplan", "_core*.so"))
        if len(built) != 1:
            raise RuntimeError("expected one gpuplan/_core*.so in " + BUILD + "/python, found " + str(built))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    packages=["gpuplan"],
    package_dir={"gpuplan": "python/gpuplan"},
    ext_modules=[Extension("gpuplan._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": os.path.join("build-python", "setuptools")}, "egg_info": {"egg_base": "build-python"}},
    zip_safe=False,
)
