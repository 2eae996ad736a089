"""targets= in Python: each sample's row of a per-sample array (regression
values, embeddings) comes with the batch as Batch.targets, from a .npy path
or an array given directly; libfeed.torch gives a float32 tensor that
MSELoss takes. The expected rows are the test's own array indexed by the
delivered sample ids.
"""
import subprocess

import numpy as np
import pytest

import libfeed

from conftest import SEED, SIDE, build_path

N = 48


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("targets") / "ds"
    subprocess.run([build_path("bin", "feed-mkdata"), "--out", str(out), "--count", str(N), "--seed", "3",
                    "--classes", "4", "--quiet"], check=True)
    return str(out)


def _rows(dataset, targets, **kw):
    got = {}
    with libfeed.Loader(dataset, targets=targets, batch_size=7, size=SIDE, resize_shorter=40, seed=SEED,
                        workers=2, epochs=1, augment="train", **kw) as L:
        for b in L:
            assert b.targets is not None and b.targets.shape[0] == len(b.sample_ids)
            for i, sid in enumerate(b.sample_ids):
                got[int(sid)] = np.array(b.targets[i])
    assert sorted(got) == list(range(N))
    return got


def test_rows_from_a_file_and_from_an_array(dataset, tmp_path):
    want = np.stack([np.arange(N, dtype=np.float32) * 0.5, -np.arange(N, dtype=np.float32),
                     np.full(N, 7.25, np.float32)], axis=1)
    path = tmp_path / "t.npy"
    np.save(path, want)
    for source in (str(path), want, want.astype(np.float64)):
        got = _rows(dataset, source)
        for sid, row in got.items():
            assert row.dtype == np.float32 and row.shape == (3,)
            np.testing.assert_array_equal(row, want[sid])


def test_int64_and_one_column(dataset):
    ints = (np.arange(N, dtype=np.int64) * 3_000_000_000) - 5
    for sid, row in _rows(dataset, ints).items():
        assert row.dtype == np.int64 and row.shape == (1,)
        assert int(row[0]) == int(ints[sid])
    small = np.arange(N, dtype=np.uint8)  # other integers: int64
    for sid, row in _rows(dataset, small).items():
        assert row.dtype == np.int64 and int(row[0]) == sid


def test_wrong_rows_are_refused_naming_the_file(dataset, tmp_path):
    path = tmp_path / "short.npy"
    np.save(path, np.zeros((N - 1, 2), np.float32))
    with pytest.raises(libfeed.FeedError) as e:
        libfeed.Loader(dataset, targets=str(path), batch_size=8, size=SIDE)
    assert str(path) in str(e.value) and f"{N - 1} rows of targets for {N} samples" in str(e.value)
    with pytest.raises(TypeError, match="targets of dtype"):
        libfeed.Loader(dataset, targets=np.array(["a"] * N), batch_size=8, size=SIDE)


def test_torch_gives_float_tensors_for_mse(dataset):
    torch = pytest.importorskip("torch", reason="torch is not installed in this interpreter")
    import libfeed.torch as lt
    want = np.linspace(-1, 1, N * 2, dtype=np.float32).reshape(N, 2)
    with lt.Loader(dataset, targets=want, batch_size=8, size=SIDE, workers=1, epochs=1, dtype="float32") as L:
        for b in L:
            images, labels = b
            assert isinstance(b.targets, torch.Tensor) and b.targets.dtype == torch.float32
            assert b.targets.shape == (images.shape[0], 2)
            ids = torch.as_tensor(b.sample_ids.astype(np.int64))
            assert torch.equal(b.targets, torch.as_tensor(want)[ids])
            loss = torch.nn.functional.mse_loss(b.targets, torch.zeros_like(b.targets))
            assert torch.isfinite(loss)


def test_csv_with_a_header_and_target_columns(dataset, tmp_path):
    """A list as pandas writes it (DataFrame.to_csv(index=False)): the path and
    label columns found by name, target_columns' values as the targets."""
    import csv
    import os
    with libfeed.Loader(dataset, batch_size=8, size=SIDE, workers=1, epochs=1) as L:
        paths = [L.dataset.samples[i][0] for i in range(N)]
        classes = [L.dataset.samples[i][1] for i in range(N)]
    want = np.stack([np.arange(N) * 0.125, np.arange(N) * -3.0], axis=1).astype(np.float32)
    path = tmp_path / "train.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["filename", "label", "score", "note", "offset"])
        for i in range(N):
            w.writerow([os.path.abspath(paths[i]), classes[i], repr(float(want[i, 0])), "a, b", repr(float(want[i, 1]))])
    seen = 0
    with libfeed.Loader(str(path), target_columns="score:offset", batch_size=8, size=SIDE, workers=2,
                        epochs=1) as L:
        for b in L:
            for i, sid in enumerate(b.sample_ids):
                np.testing.assert_array_equal(b.targets[i], want[sid])
                assert int(b.labels[i]) == classes[sid]
                seen += 1
    assert seen == N


def test_regression_example_learns(tmp_path):
    """examples/regression_torch.py on feed-mkdata --targets data (each image's
    mean colour): the loss falls."""
    pytest.importorskip("torch", reason="torch is not installed in this interpreter")
    import os
    import sys
    from conftest import BUILD, REPO
    env = dict(os.environ, LIBFEED_BUILD_DIR=BUILD,
               PYTHONPATH=os.path.join(REPO, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, os.path.join(REPO, "examples", "regression_torch.py"), "--steps", "8"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    first, last = (float(x) for x in r.stdout.strip().splitlines()[-1].split("loss ")[1].split(" -> "))
    assert last < first / 2, r.stdout
