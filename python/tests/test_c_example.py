"""The binding delivers exactly what C delivers: per-batch checksums of the
numpy arrays equal those printed by examples/train_loop.c for the same
options, and examples/train_loop.py runs and agrees too."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import libfeed

from conftest import MASK, PYTHON_DIR, REPO, build_path, train_step_hash

# train_loop.c's defaults are batch_size=64, workers=2, augment=train,
# epochs=2, device=host; this list overrides some of them in both runs.
OPTS = "batch_size=16,height=32,width=32,seed=7,workers=3"
BATCH_LINE = re.compile(r"^batch (\d+)\.(\d+) ([0-9a-f]{16})$", re.M)
CHECKSUM_LINE = re.compile(r"^checksum ([0-9a-f]{16});", re.M)


def run_c_example(dataset, opts):
    exe = build_path("bin", "train_loop")
    if not os.access(exe, os.X_OK):
        pytest.skip(f"{exe} was not built")
    env = dict(os.environ, TRAIN_LOOP_PRINT_BATCHES="1")
    r = subprocess.run([exe, dataset, opts], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def parse(out):
    batches = {(int(e), int(i)): int(h, 16) for e, i, h in BATCH_LINE.findall(out)}
    m = CHECKSUM_LINE.search(out)
    return batches, (int(m.group(1), 16) if m else None)


@pytest.mark.parametrize("extra", ["", ",augment=val,dtype=float32,rotate_deg=10"])
def test_numpy_output_equals_c_example(dataset, extra):
    opts = OPTS + extra
    c_batches, c_sum = parse(run_c_example(dataset, opts))
    assert len(c_batches) == 2 * 3  # 45 images / 16 = 3 batches, 2 epochs

    py, total = {}, 0
    with libfeed.Loader(dataset, batch_size=64, workers=2, augment="train", epochs=2,
                        device="cpu", options=opts) as L:
        for _ in range(2):
            for b in L:
                images, labels = b
                assert isinstance(images, np.ndarray)
                h = train_step_hash(images, labels)
                py[(b.epoch, b.index)] = h
                total ^= (h + b.index) & MASK
        assert list(L) == []  # epochs=2
    assert py == c_batches
    assert total == c_sum


def test_python_example_runs_and_agrees(dataset):
    c_out = run_c_example(dataset, OPTS)
    env = dict(os.environ, TRAIN_LOOP_PRINT_BATCHES="1", PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, os.path.join(REPO, "examples", "train_loop.py"), dataset,
                        OPTS], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert parse(r.stdout) == parse(c_out)
    assert len(re.findall(r"^epoch done: 45 images in .* images/s$", r.stdout, re.M)) == 2
    assert "delivered 90, bad 0" in r.stdout
