"""pip install ./python works: a pure-Python package, optionally bundling
libfeed.so and feed-worker (LIBFEED_BUNDLE), importable away from the tree."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD, PYTHON_DIR


def pip_install(target, env_extra=None):
    """pip install a copy of python/ (the build leaves files beside the source)."""
    for mod in ("setuptools", "wheel"):  # --no-build-isolation uses the local ones
        try:
            __import__(mod)
        except ImportError:
            pytest.skip(f"{mod} is not installed (scripts/test-python installs it)")
    src = target.parent / "src"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", ".pytest_cache", "tests", "_lib"))
    env = dict(os.environ, **(env_extra or {}))
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                        "--no-build-isolation", "--no-index", "--target", str(target),
                        str(src)], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def run_installed(target, dataset, code, env_extra=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("LIBFEED_LIBRARY", "FEED_WORKER", "PYTHONPATH")}
    env["PYTHONPATH"] = str(target)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", code, dataset], env=env, cwd="/",
                          capture_output=True, text=True, timeout=300)


CODE = """
import sys, libfeed
with libfeed.Loader(sys.argv[1], batch_size=4, size=32, resize_shorter=40) as L:
    images, labels = next(iter(L))
    print(libfeed.library_path, images.shape)
"""


def test_bundled_install_needs_no_environment(tmp_path, dataset):
    target = tmp_path / "site"
    pip_install(target, {"LIBFEED_BUNDLE": BUILD})
    lib = target / "libfeed" / "_lib" / "libfeed.so"
    assert lib.is_file() and os.access(target / "libfeed" / "_lib" / "feed-worker", os.X_OK)
    r = run_installed(target, dataset, CODE)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == str(lib)  # the bundled copy, found as package data
    assert "(4, 32, 32, 3)" in r.stdout  # and its feed-worker, found next to it


def test_plain_install_uses_libfeed_library(tmp_path, dataset):
    target = tmp_path / "site"
    pip_install(target)
    assert not (target / "libfeed" / "_lib").exists()
    r = run_installed(target, dataset, CODE,
                      {"LIBFEED_LIBRARY": os.path.join(BUILD, "lib", "libfeed.so"),
                       "FEED_WORKER": os.path.join(BUILD, "bin", "feed-worker")})
    assert r.returncode == 0, r.stderr
    assert "(4, 32, 32, 3)" in r.stdout
