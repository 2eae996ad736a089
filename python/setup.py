"""Pure Python: nothing is compiled. With LIBFEED_BUNDLE=<cmake build dir>,
libfeed.so and feed-worker from that build are copied into the package
(libfeed/_lib/), so the installed package needs no LIBFEED_LIBRARY:

    LIBFEED_BUNDLE=$PWD/build pip install ./python

Without it the package finds the library at run time ($LIBFEED_LIBRARY, a
build tree it sits in, or the system's library path)."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPy(build_py):
    def run(self):
        super().run()
        build = os.environ.get("LIBFEED_BUNDLE")
        dest = os.path.join(self.build_lib, "libfeed", "_lib")
        shutil.rmtree(dest, ignore_errors=True)  # never ship a bundle left by an earlier build
        if not build:
            return
        os.makedirs(dest)
        lib = os.path.join(build, "lib", "libfeed.so")
        worker = os.path.join(build, "bin", "feed-worker")
        for src in (lib, worker):
            if not os.path.exists(src):
                raise SystemExit(f"LIBFEED_BUNDLE={build}: {src} is missing (build libfeed first)")
        # Real files, not the soname symlinks; libfeed finds feed-worker next to itself.
        shutil.copyfile(os.path.realpath(lib), os.path.join(dest, "libfeed.so"))
        shutil.copy2(os.path.realpath(worker), os.path.join(dest, "feed-worker"))
        os.chmod(os.path.join(dest, "feed-worker"), 0o755)


setup(cmdclass={"build_py": BuildPy})
