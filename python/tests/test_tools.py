"""libfeed-mkdata and libfeed-bench, the commands the wheel installs
(libfeed/_tools.py): run through libfeed._tools.mkdata and .bench, the
functions their console scripts call, they run feed-mkdata and feedbench with
their arguments and exit status.
"""
import json
import os
import subprocess
import sys

import pytest

from conftest import PYTHON_DIR, build_path, mkdata

# What pip's console script for libfeed-mkdata does.
COMMAND = "import sys; from libfeed._tools import mkdata; sys.exit(mkdata())"


def libfeed_mkdata(*args):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    return subprocess.run([sys.executable, "-c", COMMAND, *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=300)


def test_finds_the_build_trees_feed_mkdata():
    from libfeed import _tools

    assert os.path.samefile(_tools.mkdata_path(), build_path("bin", "feed-mkdata"))


@pytest.mark.parametrize("count, classes", [(12, 3), (7, 1)])
def test_makes_the_images_asked_for(tmp_path, count, classes):
    out = tmp_path / "ds"
    r = libfeed_mkdata("--out", out, "--count", count, "--seed", 1, "--classes", classes)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"feed-mkdata: {count} images in {classes} classes"), r.stdout
    images = sorted(str(p.relative_to(out)) for p in out.rglob("*.jpg"))
    assert len(images) == count
    listed = (out / "files.txt").read_text().splitlines()
    assert sorted(line.split()[0] for line in listed) == images
    assert len({p.split("/")[0] for p in images}) == classes


def test_same_bytes_as_feed_mkdata(tmp_path):
    # The command is feed-mkdata itself: the same arguments, the same files.
    r = libfeed_mkdata("--out", tmp_path / "a", "--count", 6, "--seed", 5, "--classes", 2,
                       "--quiet")
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr
    mkdata(tmp_path / "b", 6, 5, 2)
    for root, _, files in os.walk(tmp_path / "b"):
        for f in files:
            mine = os.path.join(tmp_path / "a", os.path.relpath(os.path.join(root, f),
                                                                tmp_path / "b"))
            with open(mine, "rb") as x, open(os.path.join(root, f), "rb") as y:
                assert x.read() == y.read(), f


def test_usage_errors_keep_feed_mkdatas_exit_status(tmp_path):
    r = libfeed_mkdata("--out", tmp_path / "ds", "--count", 3)
    assert r.returncode == 2
    assert "--seed S is required" in r.stderr and "usage: feed-mkdata" in r.stderr
    assert not (tmp_path / "ds").exists()
    r = libfeed_mkdata("--help")
    assert r.returncode == 0 and "--shard-size" in r.stdout


# What pip's console script for libfeed-bench does.
BENCH = "import sys; from libfeed._tools import bench; sys.exit(bench())"


def test_libfeed_bench_runs_the_build_trees_feedbench(dataset, tmp_path):
    from libfeed import _tools

    assert os.path.samefile(_tools.program_path("feedbench"), build_path("bin", "feedbench"))
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    out = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, "-c", BENCH, "--data", dataset, "--batch", "5",
                        "--batches", "4", "--warmup", "1", "--quiet", "--json", str(out)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    report = json.loads(out.read_text())
    assert (report["tool"], report["batches"], report["measured_images"]) == ("feedbench", 4, 15)
    r = subprocess.run([sys.executable, "-c", BENCH, "--no-such-flag"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "usage: feedbench" in r.stdout + r.stderr
