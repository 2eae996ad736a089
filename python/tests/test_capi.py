"""The ctypes layer: library discovery, version check, struct mirrors, status list."""
import ctypes
import os
import shutil
import subprocess
import sys

import pytest

import libfeed
from libfeed import _capi

from conftest import BUILD, PYTHON_DIR, REPO


def test_loads_the_build_under_test():
    assert os.path.realpath(libfeed.library_path) == os.path.realpath(
        os.environ["LIBFEED_LIBRARY"])
    v = _capi.lib.feed_version()
    assert v // 10000 == _capi.VERSION_MAJOR and v // 100 % 100 == _capi.VERSION_MINOR
    assert libfeed.library_version == f"{v // 10000}.{v // 100 % 100}.{v % 100}"


def test_version_check_refuses_another_major():
    class Fake:
        def feed_version(self):
            return (_capi.VERSION_MAJOR + 1) * 10000

        def feed_version_string(self):
            return b"9.9.9"

    with pytest.raises(ImportError, match="9.9.9"):
        _capi.check_version(Fake(), "/x/libfeed.so")

    class Minor(Fake):
        def feed_version(self):
            return _capi.VERSION_NUMBER + 100  # same major, next minor

    if _capi.VERSION_MAJOR == 0:  # 0.x: minors may break the ABI
        with pytest.raises(ImportError):
            _capi.check_version(Minor(), "/x/libfeed.so")
    patch = type("P", (Fake,), {"feed_version": lambda self: _capi.VERSION_NUMBER + 1})
    assert _capi.check_version(patch(), "/x") == _capi.VERSION_NUMBER + 1


def test_options_mirror_size_matches_library():
    # feed_options_init writes struct_size = min(given, sizeof(feed_options)).
    assert _capi.options_struct_size() == ctypes.sizeof(_capi.FeedOptions)
    assert _capi.options_mirror_ok


def test_options_mirror_fields_read_back():
    buf = ctypes.create_string_buffer(_capi.OPTIONS_BUFFER_SIZE)
    assert _capi.lib.feed_options_init(buf, len(buf)) == 0
    err = ctypes.create_string_buffer(256)
    for k, v in [("batch_size", "77"), ("seed", "123456789012"), ("world_size", "3"),
                 ("worker_path", "/w"), ("reader", "pread"), ("max_file_bytes", "4242"),
                 ("std", "0.5:0.25:0.125"), ("device", "host")]:
        assert _capi.lib.feed_options_set(buf, k.encode(), v.encode(), err, 256) == 0, err.value
    o = _capi.FeedOptions.from_buffer(buf)
    assert (o.batch_size, o.seed, o.world_size) == (77, 123456789012, 3)
    assert o.worker_path == b"/w" and o.device == b"host" and o.reader == 2
    assert o.max_file_bytes == 4242 and list(o.std) == [0.5, 0.25, 0.125]
    assert o.shuffle == 1 and o.workers == 2  # defaults untouched


def test_batch_mirror_size_is_exact(make_loader):
    # feed_loader_next rejects a struct_size below the 0.1.0 layout (up to
    # handle), fills a 0.1.0-sized batch only up to handle, and the whole mirror.
    L = make_loader(workers=1)
    v010 = _capi.FeedBatch.handle.offset + 8
    small = _capi.new_struct(_capi.FeedBatch, set_size=v010 - 1)
    assert _capi.lib.feed_loader_next(L._h, ctypes.byref(small), 0) == libfeed.Status.E_INVALID
    old = _capi.new_struct(_capi.FeedBatch, set_size=v010)
    old.num_classes = 0xABCD  # past the old layout: must stay as it was
    assert _capi.lib.feed_loader_next(L._h, ctypes.byref(old), 60000) == libfeed.Status.OK
    assert old.count == 8 and old.num_classes == 0xABCD and old.struct_size == v010
    assert _capi.lib.feed_batch_release(L._h, ctypes.byref(old), None) == 0
    size = ctypes.sizeof(_capi.FeedBatch)
    exact = _capi.new_struct(_capi.FeedBatch, set_size=size)
    exact.num_classes = 0xABCD
    st = _capi.lib.feed_loader_next(L._h, ctypes.byref(exact), 60000)
    assert st == libfeed.Status.OK
    assert exact.count == 8 and exact.height == 48 and exact.channels == 3 and exact.device == -1
    assert exact.sample_bytes == 48 * 48 * 3
    assert exact.num_classes == 0 and not exact.soft_labels  # no mixing, no smoothing asked
    assert _capi.lib.feed_batch_release(L._h, ctypes.byref(exact), None) == 0


def test_stats_mirror_size(make_loader):
    L = make_loader(workers=1)
    s = _capi.new_struct(_capi.FeedStats)  # struct_size = a larger buffer
    assert _capi.lib.feed_loader_stats(L._h, ctypes.byref(s)) == 0
    assert s.struct_size == ctypes.sizeof(_capi.FeedStats)  # C writes its sizeof
    assert s.workers == 1 and s.backend == b"host"
    # An older caller's smaller struct is filled up to its size (and says so);
    # smaller than the 0.1.0 layout (up to launcher) is refused.
    v010 = _capi.FeedStats.readahead_files.offset
    old = _capi.new_struct(_capi.FeedStats, set_size=v010)
    old.readahead_files = 12345  # past the old struct: not written
    assert _capi.lib.feed_loader_stats(L._h, ctypes.byref(old)) == 0
    assert old.struct_size == v010 and old.workers == 1 and old.readahead_files == 12345
    small = _capi.new_struct(_capi.FeedStats, set_size=v010 - 1)
    assert _capi.lib.feed_loader_stats(L._h, ctypes.byref(small)) == libfeed.Status.E_INVALID


def test_status_list_matches_library():
    for s in libfeed.Status:
        assert _capi.lib.feed_status_name(int(s)).decode() == s.c_name
        assert _capi.lib.feed_strerror(int(s)).decode() != "unknown status"
    n = max(libfeed.Status) + 1
    assert _capi.lib.feed_status_name(n) == b"FEED_UNKNOWN"  # no code the binding lacks


def _run_python(code, env_extra=None, drop=(), cwd="/"):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PYTHONPATH"] = PYTHON_DIR
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120)


FIX = ("cmake -S . -B build && cmake --build build", "LIBFEED_LIBRARY=/path/to/libfeed.so",
       "`pip install .`")


def test_discovery_env_override_missing_file():
    r = _run_python("import libfeed", {"LIBFEED_LIBRARY": "/nonexistent/libfeed.so",
                                       "LD_LIBRARY_PATH": "/nonexistent/lib"})
    assert r.returncode != 0
    assert "LibraryNotFound" in r.stderr and "/nonexistent/libfeed.so" in r.stderr
    assert issubclass(_capi.LibraryNotFound, ImportError)
    assert "$LIBFEED_LIBRARY=/nonexistent/libfeed.so: does not exist" in r.stderr
    assert "nothing else was tried" in r.stderr  # an explicit choice is not second-guessed
    for fix in FIX:
        assert fix in r.stderr, fix


def test_library_not_found_names_every_place_tried(tmp_path):
    # The package's files alone (no libfeed/_lib), away from a build tree.
    site = tmp_path / "site"
    shutil.copytree(os.path.join(PYTHON_DIR, "libfeed"), site / "libfeed",
                    ignore=shutil.ignore_patterns("__pycache__", "_lib"))
    r = _run_python("import libfeed", {"PYTHONPATH": str(site),
                                       "LD_LIBRARY_PATH": "/nonexistent/lib"},
                    drop=("LIBFEED_LIBRARY",), cwd=str(tmp_path))
    if r.returncode == 0:
        pytest.skip("a libfeed is installed where the dynamic loader finds it")
    err = r.stderr
    assert "LibraryNotFound" in err and "no candidate found" not in err
    assert "$LIBFEED_LIBRARY: not set" in err
    assert os.path.join(str(site), "libfeed", "_lib", "libfeed.so") in err  # the bundle
    assert "built into the package by `pip install .`" in err
    d = str(site / "libfeed")
    for _ in range(4):  # the build trees the package could sit in
        d = os.path.dirname(d)
        assert os.path.join(d, "build*", "lib", "libfeed.so") + ": none" in err, d
    assert "find_library('feed')" in err
    assert "libfeed.so.0" in err and "LD_LIBRARY_PATH=/nonexistent/lib" in err  # system names
    for fix in FIX:
        assert fix in err, fix


def test_discovery_finds_the_build_tree():
    if not os.path.exists(os.path.join(REPO, "build", "lib", "libfeed.so")) and \
            os.path.dirname(BUILD) != REPO:
        pytest.skip("no build*/lib/libfeed.so inside the repository")
    r = _run_python("import libfeed; print(libfeed.library_path)", drop=("LIBFEED_LIBRARY",))
    assert r.returncode == 0, r.stderr
    path = r.stdout.strip()
    assert path.startswith(REPO + os.sep) and path.endswith("/lib/libfeed.so")
    assert not _capi._is_sanitized(path)
