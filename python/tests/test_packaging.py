"""The Python package as a user gets it: `pip wheel .` builds libfeed.so,
feed-worker, feed-fetch (where libcurl is found), feed-mkdata and feedbench
with CMake (pyproject.toml, scikit-build-core) into the wheel; installed into
a fresh virtual environment, its libfeed-mkdata command makes a dataset,
libfeed-bench measures it, and it iterates datasets from a directory outside
the checkout, and the same shards from a local HTTP server, with no
PYTHONPATH and no LIBFEED_* variable. scripts/test-wheel checks the repaired wheel
(scripts/wheel) the same way where the system's codec libraries are hidden.

The wheel is built once per session, into $LIBFEED_BUILD_DIR/wheel (its CMake
build in $LIBFEED_BUILD_DIR/wheel-build, so a second run rebuilds only what
changed). Skipped without scikit-build-core (scripts/test-python installs it).
"""
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import BUILD, REPO, build_path
from remote_server import Server

CLEAN_ENV = {k: v for k, v in os.environ.items()
             if not k.startswith(("LIBFEED_", "FEED_")) and k not in ("PYTHONPATH", "PYTHONHOME")}

CODE = """
import os, sys, libfeed
assert os.path.realpath(libfeed.__file__).startswith(sys.prefix), libfeed.__file__
with libfeed.Loader(sys.argv[1], batch_size=4, size=32, resize_shorter=40, epochs=1) as L:
    n = sum(len(labels) for _, labels in L)
    assert libfeed.__version__ == libfeed.library_version, libfeed.__version__
    print(libfeed.library_path, libfeed.library_version, n, L.stats()["backend"])
"""

# The same shards from disk and by URL (the package's feed-fetch): every
# sample, equal pixels and labels.
URL_CODE = """
import os, sys, numpy as np, libfeed
def load(source, **kw):
    with libfeed.Loader(source, batch_size=5, size=40, workers=2, augment="val", shuffle=False,
                        epochs=1, **kw) as L:
        b = [(np.array(x[0]), np.array(x[1]), np.array(x.sample_ids)) for x in L]
    return [np.concatenate(c) for c in zip(*b)]
ref, got = load(sys.argv[1]), load(sys.argv[2], cache_dir=os.path.abspath("url-cache"))
assert sorted(got[2]) == list(range(len(ref[2]))), got[2]
assert (got[0] == ref[0]).all() and (got[1] == ref[1]).all()
print(len(got[2]))
"""

# The wheel's feed-fetch exists where this build has one (libcurl found).
HAVE_FETCH = os.access(build_path("bin", "feed-fetch"), os.X_OK)

CUDA_CODE = """
import sys, libfeed
try:
    with libfeed.Loader(sys.argv[1], batch_size=4, size=32, device="cuda") as L:
        print(L.device)
except libfeed.FeedError as e:
    print(type(e).__name__, e)
"""


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, **kw)
    assert r.returncode == 0, " ".join(map(str, cmd)) + "\n" + r.stdout[-4000:] + r.stderr[-4000:]
    return r


def make_venv(path):
    """A fresh virtual environment that sees this Python's packages (numpy,
    scikit-build-core: nothing to download); its python."""
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(path)],
                       env=CLEAN_ENV, capture_output=True, text=True, timeout=300)
    if r.returncode != 0 and "ensurepip" in r.stdout + r.stderr:
        pytest.skip(f"{sys.executable} cannot make a virtual environment (Debian: python3-venv)")
    assert r.returncode == 0, r.stdout + r.stderr
    return str(path / "bin" / "python")


@pytest.fixture(scope="session")
def wheel():
    pytest.importorskip("scikit_build_core", reason="scripts/test-python installs scikit-build-core")
    out = os.path.join(BUILD, "wheel")
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        os.unlink(os.path.join(out, f))
    # --no-build-isolation: the scikit-build-core installed here, no download.
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", out,
         "-C", "build-dir=" + os.path.join(BUILD, "wheel-build"), REPO], env=CLEAN_ENV)
    (name,) = os.listdir(out)
    return os.path.join(out, name)


def header_version():
    v = {}
    with open(os.path.join(REPO, "include", "feed.h")) as f:
        for line in f:
            for part in ("MAJOR", "MINOR", "PATCH"):
                if line.startswith(f"#define FEED_VERSION_{part} "):
                    v[part] = line.split()[2]
    return f"{v['MAJOR']}.{v['MINOR']}.{v['PATCH']}"


def test_wheel_carries_library_worker_and_metadata(wheel):
    version = header_version()
    assert os.path.basename(wheel) == f"libfeed-{version}-py3-none-linux_{os.uname().machine}.whl"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert {"libfeed/_lib/libfeed.so", "libfeed/_lib/feed-worker", "libfeed/__init__.py",
                "libfeed/torch.py", "libfeed/keras.py", "libfeed/_torch_dataloader.py",
                "libfeed/_lib/feed-mkdata", "libfeed/_lib/feedbench", "libfeed/_tools.py"} <= names
        # Nothing else from the build: no tests, programs, headers, static library.
        assert not [n for n in names if not n.startswith(("libfeed/", f"libfeed-{version}."))]
        progs = ["feed-fetch"] * HAVE_FETCH + ["feed-mkdata", "feed-worker", "feedbench"]
        assert sorted(n for n in names if n.startswith("libfeed/_lib/")) == \
            [f"libfeed/_lib/{p}" for p in progs + ["libfeed.so"]]  # one copy, no soname links
        for exe in progs:
            mode = z.getinfo(f"libfeed/_lib/{exe}").external_attr >> 16
            assert mode & 0o111 == 0o111, exe  # the programs keep their run bit
        # the licences of what it carries: its own, libjpeg-turbo's, and the
        # libraries scripts/wheel bundles (as Debian ships them)
        lic = f"libfeed-{version}.dist-info/licenses/"
        for f in ("LICENSE", "third_party/libjpeg-turbo/LICENSE.md", "third_party/licenses/libspng0.copyright",
                  "third_party/licenses/libwebp7.copyright", "third_party/licenses/liburing2.copyright",
                  "third_party/licenses/libseccomp2.copyright", "third_party/licenses/libcurl4.copyright",
                  "third_party/licenses/libssl3.copyright"):
            assert lic + f in names, f
        meta = z.read(f"libfeed-{version}.dist-info/METADATA").decode()
        entry_points = z.read(f"libfeed-{version}.dist-info/entry_points.txt").decode()
    # pip makes the commands bin/libfeed-mkdata and bin/libfeed-bench from this.
    assert entry_points.startswith("[console_scripts]\n"), entry_points
    for line in ("libfeed-mkdata = libfeed._tools:mkdata", "libfeed-bench = libfeed._tools:bench"):
        assert line in entry_points.splitlines(), entry_points
    for line in ("Name: libfeed", f"Version: {version}", "License-Expression: MIT",
                 "Requires-Python: >=3.8", "Requires-Dist: numpy>=1.22",
                 "Provides-Extra: torch", 'Requires-Dist: torch>=1.10; extra == "torch"'):
        assert line in meta.splitlines(), line


def test_runpath_is_origin(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp_path)
    for f in ("libfeed.so", "feed-worker") + ("feed-fetch",) * HAVE_FETCH:
        r = run(["readelf", "-d", str(tmp_path / "libfeed" / "_lib" / f)])
        assert "[$ORIGIN]" in r.stdout, r.stdout
        assert "libcudart" not in r.stdout  # static: loads without a driver or a GPU


def test_wheel_in_fresh_venv_iterates_from_outside(wheel, tmp_path, dataset):
    venv = tmp_path / "venv"
    py = make_venv(venv)  # numpy from this Python; the package itself only in the venv
    run([py, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel], env=CLEAN_ENV)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    r = run([py, "-c", CODE, dataset], env=CLEAN_ENV, cwd=str(outside))
    path, version, n, backend = r.stdout.split()
    assert path == str(venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" /
                       "site-packages" / "libfeed" / "_lib" / "libfeed.so")
    assert version == header_version() and int(n) == 45
    assert backend == "host" or backend.startswith("cuda:")
    # The command the wheel installs makes a dataset (as the README shows),
    # which the package then reads: every image it was asked for.
    made = outside / "made"
    r = run([str(venv / "bin" / "libfeed-mkdata"), "--out", str(made), "--count", "20",
             "--seed", "1"], env=CLEAN_ENV, cwd=str(outside))
    assert r.stdout.startswith("feed-mkdata: 20 images in 10 classes"), r.stdout
    assert len(list(made.rglob("*.jpg"))) == 20
    r = run([py, "-c", CODE, str(made)], env=CLEAN_ENV, cwd=str(outside))
    assert int(r.stdout.split()[2]) == 20
    # libfeed-bench (feedbench) measures it: every batch it was asked for.
    r = run([str(venv / "bin" / "libfeed-bench"), "--data", str(made), "--batch", "4",
             "--batches", "3", "--warmup", "0", "--json", str(outside / "bench.json")],
            env=CLEAN_ENV, cwd=str(outside))
    with open(outside / "bench.json") as f:
        report = json.load(f)
    assert (report["tool"], report["measured_images"], report["samples_bad"]) == \
        ("feedbench", 12, 0), report
    # Shards by URL: the package's feed-fetch downloads them from a local
    # HTTP server; the loader delivers what it delivers from the files.
    if HAVE_FETCH:
        run([str(venv / "bin" / "libfeed-mkdata"), "--out", str(outside / "shards"), "--count", "23",
             "--seed", "2", "--format", "tar", "--shard-size", "8", "--quiet"], env=CLEAN_ENV, cwd=str(outside))
        server = Server(outside / "shards")
        try:
            pattern = "/shard-{000000..000002}.tar"
            r = run([py, "-c", URL_CODE, str(outside / "shards") + pattern, server.url + pattern],
                    env=CLEAN_ENV, cwd=str(outside))
            gets = sorted(p for _, p, _ in server.requests("GET"))
        finally:
            server.close()
        assert int(r.stdout) == 23
        assert gets == [f"/shard-{i:06d}.tar" for i in range(3)]  # each downloaded once
    # With the CUDA toolkit at build time the backend is in the wheel: a
    # cuda request reaches it (no driver here: it says so), rather than
    # "built without CUDA".
    if shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc"):
        r = run([py, "-c", CUDA_CODE, dataset], env=CLEAN_ENV, cwd=str(outside))
        assert "built without CUDA" not in r.stdout, r.stdout
        assert r.stdout.startswith(("cuda:", "FeedDeviceError")), r.stdout


def test_editable_install(wheel, tmp_path, dataset):
    # pip install -e .: the Python files run from the checkout, the library
    # and worker that CMake built are found through the package's path.
    venv = tmp_path / "venv"
    py = make_venv(venv)
    run([py, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "-e", REPO,
         "-C", "build-dir=" + os.path.join(BUILD, "wheel-build")], env=CLEAN_ENV)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    code = CODE.replace("assert os.path.realpath(libfeed.__file__).startswith(sys.prefix), "
                        "libfeed.__file__", "print(libfeed.__file__)")
    r = run([py, "-c", code, dataset], env=CLEAN_ENV, cwd=str(outside))
    src, path, version, n, _ = r.stdout.split()
    assert src == os.path.join(REPO, "python", "libfeed", "__init__.py")
    assert path.startswith(str(venv)) and path.endswith("/libfeed/_lib/libfeed.so")
    assert version == header_version() and int(n) == 45
    # The command runs the feed-mkdata built beside that library.
    r = run([str(venv / "bin" / "libfeed-mkdata"), "--out", str(outside / "made"), "--count", "10",
             "--seed", "1", "--quiet"], env=CLEAN_ENV, cwd=str(outside))
    assert len(list((outside / "made").rglob("*.jpg"))) == 10
