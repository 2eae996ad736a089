"""Soft labels (feed_batch.soft_labels: label smoothing, MixUp/CutMix) in
Python: Batch.soft_labels, and the targets libfeed.torch and libfeed.keras
give (named test_torchvision_* so that scripts/test-python also runs it with
the Pythons that have torch).

Two kinds of test. The plumbing ones hand the Python side a feed_batch
filled here, as the C library fills it, and check what comes out: they
need nothing from C. test_label_smoothing_from_the_library asks the
library itself; with a library that parses label_smoothing but does not
implement it yet (soft_labels NULL), it checks that the front ends say so
and then skips, saying why.
"""
import ctypes

import numpy as np
import pytest

import libfeed
from libfeed import _capi
from libfeed._iteration import Iteration

from conftest import BATCH, NCLASS, SIDE, SEED


class _StandInHeld:
    """What the arrays of a batch need of the held batch (_held._Held)."""

    def __init__(self, loader, cbatch):
        self.loader, self.cbatch, self.stream = loader, cbatch, None

    def check_alive(self):
        return self.loader

    def pin(self, stream=None):
        return lambda: None


def c_batch(n=3, classes=4, h=2, w=2):
    """A host feed_batch over numpy buffers, as feed_loader_next() fills one
    with soft labels on; returns (cbatch, buffers)."""
    rng = np.random.default_rng(7)
    buf = {
        "images": rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8),
        "labels": rng.integers(0, classes, n).astype(np.int32),
        "ids": np.arange(n, dtype=np.uint64),
        "flags": np.zeros(n, np.uint8),
        "soft": rng.random((n, classes), dtype=np.float32),
    }
    b = _capi.new_struct(_capi.FeedBatch)
    b.count, b.height, b.width, b.channels = n, h, w, 3
    b.dtype, b.layout, b.device = _capi.DTYPE_UINT8, _capi.LAYOUT_HWC, -1
    b.data = buf["images"].ctypes.data
    b.sample_bytes = h * w * 3
    b.labels = buf["labels"].ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    b.sample_ids = buf["ids"].ctypes.data_as(ctypes.POINTER(ctypes.c_uint64))
    b.flags = buf["flags"].ctypes.data_as(ctypes.POINTER(ctypes.c_uint8))
    b.soft_labels = buf["soft"].ctypes.data_as(ctypes.POINTER(ctypes.c_float))
    b.num_classes = classes
    b.handle = 1
    return b, buf


def stand_in(cls, **attrs):
    obj = object.__new__(cls)
    obj._copy, obj._output, obj._stream, obj._h = False, "numpy", None, None
    obj._soft_asked = ""
    obj.__dict__.update(attrs)
    return obj


@pytest.mark.parametrize("copy", [False, True])
def test_batch_soft_labels_view_the_c_rows(copy):
    cb, buf = c_batch()
    L = stand_in(Iteration, _copy=copy)
    b = Iteration._make_batch(L, _StandInHeld(L, cb))
    assert b.soft_labels.dtype == np.float32 and b.soft_labels.shape == buf["soft"].shape
    assert np.array_equal(b.soft_labels, buf["soft"])
    assert np.array_equal(b[1], buf["labels"]) and b.class_labels is b[1]
    # copy=False: a view of the slot, like the images; copy=True: the caller's own
    assert np.shares_memory(b.soft_labels, buf["soft"]) is not copy


def test_no_soft_labels_without_them():
    cb, buf = c_batch()
    cb.soft_labels = None
    cb.num_classes = 0
    L = stand_in(Iteration)
    b = Iteration._make_batch(L, _StandInHeld(L, cb))
    assert b.soft_labels is None and np.array_equal(b.labels, buf["labels"])


def test_torch_targets_are_the_soft_labels():
    torch = pytest.importorskip("torch")
    import libfeed.torch as lt

    cb, buf = c_batch()
    L = stand_in(lt.Loader, _output="array", _labels_dtype=torch.int64,
                 _soft_asked="label_smoothing=0.1")
    images, targets = b = lt.Loader._make_batch(L, _StandInHeld(L, cb))
    assert targets.dtype == torch.float32 and tuple(targets.shape) == buf["soft"].shape
    assert torch.equal(targets, torch.from_numpy(buf["soft"])) and b.soft_labels is targets
    assert b.class_labels.dtype == torch.int64
    assert torch.equal(b.class_labels, torch.from_numpy(buf["labels"]).long())
    # without soft labels in the C batch, asked for: an error, not class labels
    cb.soft_labels = None
    with pytest.raises(libfeed.FeedUnsupportedError, match="label_smoothing=0.1"):
        lt.Loader._make_batch(L, _StandInHeld(L, cb))
    L._soft_asked = ""
    _, labels = lt.Loader._make_batch(L, _StandInHeld(L, cb))
    assert labels.dtype == torch.int64


def test_label_smoothing_from_the_library(dataset):
    """label_smoothing=0.1: each row is (1 - e) one-hot + e / C. Needs the
    C side of the recipes (feed_batch.soft_labels filled)."""
    eps = 0.1
    with libfeed.Loader(dataset, batch_size=BATCH, size=SIDE, seed=SEED, workers=2,
                        label_smoothing=eps) as L:
        b = next(iter(L))
        if b.soft_labels is None:
            # The front ends must not hand out class labels in their place.
            import libfeed.loader as ll

            with pytest.raises(libfeed.FeedUnsupportedError, match=f"label_smoothing={eps}"):
                ll.Loader._batch_targets(L, b)
            pytest.skip("this libfeed library parses label_smoothing but fills no "
                        "feed_batch.soft_labels (the recipes' C side is not in this build)")
        soft, labels = b.soft_labels, b.labels
        C = L.num_classes
        assert C == NCLASS
        assert soft.dtype == np.float32 and soft.shape == (len(labels), C)
        assert np.allclose(soft.sum(axis=1), 1.0, atol=1e-6)
        assert np.array_equal(soft.argmax(axis=1), labels)
        want = np.full((len(labels), C), eps / C, np.float32)
        want[np.arange(len(labels)), labels] = 1 - eps + eps / C
        assert np.allclose(soft, want, atol=1e-7)


def test_keras_labels_are_the_soft_labels(dataset):
    """libfeed.keras.Dataset with label_smoothing: float32 (N, C) labels for
    categorical_crossentropy. Needs the recipes' C side; with a library that
    fills no soft labels it must raise, not give the class indices."""
    import os

    os.environ.setdefault("KERAS_BACKEND", "jax")
    try:
        import keras
    except Exception as e:  # not installed, or no backend it can load
        pytest.skip(f"Keras 3 cannot be imported here ({type(e).__name__}: {e})")
    if not keras.__version__.startswith("3."):
        pytest.skip(f"Keras {keras.__version__} is not Keras 3")
    import libfeed.keras as lk

    with lk.Dataset(dataset, batch_size=BATCH, size=SIDE, seed=SEED, workers=2,
                    label_smoothing=0.1) as ds:
        try:
            x, y = ds[0]
        except libfeed.FeedUnsupportedError as e:
            assert "label_smoothing=0.1" in str(e)
            pytest.skip("this libfeed library fills no feed_batch.soft_labels (the recipes' "
                        "C side is not in this build)")
        b = ds.last_batch
        assert y.dtype == np.float32 and y.shape == (len(x), NCLASS)
        assert np.array_equal(y, b.soft_labels) and np.array_equal(y.argmax(1), b.class_labels)
