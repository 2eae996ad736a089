"""multi_label=1 in Python: Batch.soft_labels are the multi-hot float32 rows
of each sample's labels, Batch.label_lists the labels themselves, both
checked against the test's own reading of the files.txt that
feed-mkdata --multi-label wrote; libfeed.torch gives the rows as float32
targets that BCEWithLogitsLoss takes; examples/multilabel_torch.py trains.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import libfeed

from conftest import BUILD, REPO, SEED, SIDE, build_path

NIMG, NCLASS, MAXL = 36, 6, 4


@pytest.fixture(scope="module")
def multi_list(tmp_path_factory):
    out = tmp_path_factory.mktemp("multi") / "ds"
    subprocess.run([build_path("bin", "feed-mkdata"), "--out", str(out), "--count", str(NIMG),
                    "--seed", "5", "--classes", str(NCLASS), "--multi-label", str(MAXL), "--quiet"],
                   check=True)
    path = os.path.join(out, "files.txt")
    # the oracle: sample id i is line i, its labels the words after the path
    with open(path) as f:
        want = [[int(w) for w in line.split()[1:]] for line in f if line.strip()]
    assert len(want) == NIMG
    assert max(len(w) for w in want) > 1  # the dataset is multi-label indeed
    assert min(len(w) for w in want) >= 1 and all(len(set(w)) == len(w) for w in want)
    return path, want


def test_multi_hot_rows_and_lists(multi_list):
    path, want = multi_list
    seen = []
    with libfeed.Loader(path, multi_label=True, batch_size=7, size=SIDE, resize_shorter=40,
                        seed=SEED, workers=2, epochs=1) as L:
        for b in L:
            soft = b.soft_labels
            assert isinstance(soft, np.ndarray) and soft.dtype == np.float32
            assert soft.shape == (len(b.sample_ids), NCLASS)
            offsets, labels = b.label_lists
            assert offsets.dtype == np.uint32 and labels.dtype == np.int32
            for i, sid in enumerate(b.sample_ids):
                w = want[int(sid)]
                row = np.zeros(NCLASS, np.float32)
                row[w] = 1.0
                np.testing.assert_array_equal(soft[i], row)
                assert labels[offsets[i]:offsets[i + 1]].tolist() == w
                assert int(b.labels[i]) == w[0]  # labels: the first label of each sample
                seen.append(int(sid))
    assert sorted(seen) == list(range(NIMG))


def test_without_multi_label_the_list_is_refused(multi_list):
    path, want = multi_list
    line = next(i for i, w in enumerate(want) if len(w) > 1) + 1
    with pytest.raises(libfeed.FeedDatasetError) as e:
        libfeed.Loader(path, batch_size=4, size=SIDE, workers=1)
    assert f"files.txt:{line}: {len(want[line - 1])} labels on one line" in str(e.value)
    assert "multi_label=1" in str(e.value)


def test_torch_targets_for_bce(multi_list):
    torch = pytest.importorskip("torch")
    import libfeed.torch
    path, want = multi_list
    with libfeed.torch.Loader(path, multi_label=True, batch_size=6, size=SIDE, seed=SEED,
                              workers=2, dtype=torch.float32, layout="chw", device="cpu",
                              epochs=1) as L:
        images, targets = next(iter(L))
        assert targets.dtype == torch.float32 and targets.shape == (6, NCLASS)
        logits = torch.zeros(6, NCLASS, requires_grad=True)
        loss = torch.nn.BCEWithLogitsLoss()(logits, targets)
        loss.backward()
        # zero logits: every term is log 2, whatever the targets
        assert abs(loss.item() - float(np.log(2))) < 1e-6
        # the gradient is (sigmoid(0) - target) / (N * C): it says which are on
        on = (logits.grad < 0).numpy()
        assert on.sum(1).tolist() == targets.sum(1).int().tolist()
        assert targets.sum().item() > 6  # several labels on some sample of the batch


def test_example_trains(tmp_path):
    pytest.importorskip("torch")
    env = dict(os.environ, LIBFEED_BUILD_DIR=BUILD,
               PYTHONPATH=os.path.join(REPO, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, os.path.join(REPO, "examples", "multilabel_torch.py"),
                        "--steps", "3"], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "3 steps, loss" in r.stdout


def test_tar_shards_multi_label(tmp_path):
    import tarfile
    out = tmp_path / "shards"
    subprocess.run([build_path("bin", "feed-mkdata"), "--out", str(out), "--count", "20", "--seed", "9",
                    "--classes", "5", "--multi-label", "3", "--format", "tar", "--shard-size", "8",
                    "--quiet"], check=True)
    want = []  # the oracle: each .cls member as Python's tarfile reads it, in shard order
    for name in sorted(os.listdir(out)):
        if name.endswith(".tar"):
            with tarfile.open(out / name) as t:
                want += [[int(w) for w in t.extractfile(m).read().split()]
                         for m in t.getmembers() if m.name.endswith(".cls")]
    assert len(want) == 20 and max(len(w) for w in want) > 1
    seen = 0
    with libfeed.Loader(str(out / "shards.txt"), multi_label=True, batch_size=6, size=SIDE,
                        seed=SEED, workers=2, epochs=1) as L:
        for b in L:
            offsets, labels = b.label_lists
            for i, sid in enumerate(b.sample_ids):
                assert labels[offsets[i]:offsets[i + 1]].tolist() == want[int(sid)]
                assert sorted(np.flatnonzero(b.soft_labels[i]).tolist()) == sorted(want[int(sid)])
                seen += 1
    assert seen == 20
