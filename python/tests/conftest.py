"""Shared fixtures: the build to test, a generated dataset, helpers.

The build is $LIBFEED_BUILD_DIR, else the repository's build/. Its
lib/libfeed.so and bin/feed-worker are what the tests load (LIBFEED_LIBRARY
and FEED_WORKER are set here, before libfeed is imported, unless the caller
set them).
"""
import gc
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(PYTHON_DIR)
BUILD = os.path.abspath(os.environ.get("LIBFEED_BUILD_DIR") or os.path.join(REPO, "build"))

os.environ.setdefault("LIBFEED_LIBRARY", os.path.join(BUILD, "lib", "libfeed.so"))
os.environ.setdefault("FEED_WORKER", os.path.join(BUILD, "bin", "feed-worker"))
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

# The generated dataset: 45 images in 5 classes (9 each).
NIMG, NCLASS, BATCH, SIDE = 45, 5, 8, 48
SEED = 1234


def build_path(*parts):
    return os.path.join(BUILD, *parts)


def mkdata(out, count, seed, classes):
    exe = build_path("bin", "feed-mkdata")
    if not os.access(exe, os.X_OK):
        pytest.exit(f"{exe} is missing: build libfeed first (or set LIBFEED_BUILD_DIR)", 1)
    subprocess.run([exe, "--out", str(out), "--count", str(count), "--seed", str(seed),
                    "--classes", str(classes), "--quiet"], check=True)
    return str(out)


@pytest.fixture(scope="session")
def dataset(tmp_path_factory):
    return mkdata(tmp_path_factory.mktemp("data") / "ds", NIMG, 11, NCLASS)


@pytest.fixture(scope="session")
def index(dataset):
    """[(relative path, label)] in libfeed's (and torchvision's) order: class
    folders sorted, files sorted within each."""
    out = []
    classes = sorted(d for d in os.listdir(dataset) if os.path.isdir(os.path.join(dataset, d)))
    for label, c in enumerate(classes):
        for f in sorted(os.listdir(os.path.join(dataset, c))):
            out.append((f"{c}/{f}", label))
    return out


@pytest.fixture
def make_loader(dataset):
    """libfeed.Loader over the dataset with small images; closed afterwards."""
    import libfeed

    made = []

    def make(source=None, **kw):
        args = dict(batch_size=BATCH, size=SIDE, resize_shorter=64, seed=SEED, workers=2)
        args.update(kw)
        L = libfeed.Loader(source or dataset, **args)
        made.append(L)
        return L

    yield make
    for L in made:
        L.close()
    # A closed loader is destroyed when the last array viewing its batches
    # goes; arrays caught in a reference cycle (a pytest.raises traceback
    # holding the test's frame) go at garbage collection.
    gc.collect()


def child_pids(pid=None):
    """Processes whose parent is pid (default: this process), from /proc."""
    pid = os.getpid() if pid is None else pid
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(d))
    return sorted(out)


def libfeed_fds():
    """This process's open fds that are libfeed's shared memory (memfds)."""
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            n += "libfeed" in os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass
    return n


FNV_OFFSET, FNV_PRIME, MASK = 0xcbf29ce484222325, 0x100000001b3, (1 << 64) - 1


def train_step_hash(images, labels):
    """examples/train_loop.c's train_step(): FNV-1a over the data bytes, then
    over each label as a uint64 value."""
    import numpy as np

    h = FNV_OFFSET
    for b in np.ascontiguousarray(images).tobytes():
        h = ((h ^ b) * FNV_PRIME) & MASK
    for lab in np.asarray(labels, dtype=np.int64):
        h = ((h ^ (int(lab) & MASK)) * FNV_PRIME) & MASK
    return h


def run_after_close(dataset, kind):
    """Runs tests/after_close.py KIND in a fresh interpreter (this one's, with
    this environment); returns (return code, its JSON report or None, stderr)."""
    import json

    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, os.path.join(HERE, "after_close.py"), dataset, kind],
                       env=env, capture_output=True, text=True, timeout=120)
    lines = r.stdout.strip().splitlines()
    return r.returncode, (json.loads(lines[-1]) if r.returncode == 0 and lines else None), r.stderr


def check_after_close(kind, rc, rep, err):
    """What after_close.py KIND must report."""
    assert rc == 0, f"child exited {rc} (-11: SIGSEGV)\n{err}"
    assert rep["closed"] and rep["workers"] == 2
    # close() left the memory (and so the workers) to the batch still viewed...
    assert rep["workers_after_close"] and rep["memfds_after_close"] >= 2
    assert rep["equal"] and rep["mean_ok"]  # ...which reads as it did before close
    # Asking the closed loader for more is a clear error (next() on an
    # iterator that finished its epoch is StopIteration, as before close).
    broke = kind in ("numpy-break", "array")
    for k in ("iter_error", "for_error") + (("next_error",) if broke else ()):
        assert (rep[k] or "").startswith("ValueError: ") and "closed" in rep[k], (k, rep[k])
    # ...until the last view went: then everything is released.
    assert rep["children_after_del"] == [] and rep["memfds_after_del"] == 0 and rep["reaped"]
