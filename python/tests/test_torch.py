"""libfeed.torch: tensors without a copy (skipped when torch is not installed)."""
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import libfeed  # noqa: E402
import libfeed.torch as lt  # noqa: E402

from conftest import BATCH, PYTHON_DIR, SEED, SIDE, check_after_close, run_after_close  # noqa: E402


def loader(dataset, **kw):
    args = dict(batch_size=BATCH, size=SIDE, resize_shorter=64, seed=SEED, workers=2)
    args.update(kw)
    return lt.Loader(dataset, **args)


def test_tensors_equal_the_numpy_loader(dataset):
    with loader(dataset, epochs=1, dtype=torch.float32) as T, \
            libfeed.Loader(dataset, batch_size=BATCH, size=SIDE, resize_shorter=64, seed=SEED,
                           epochs=1, dtype="float32") as N:
        for (ti, tl), (ni, nl) in zip(T, N):
            assert isinstance(ti, torch.Tensor) and ti.dtype == torch.float32
            assert ti.shape == (len(nl), 3, SIDE, SIDE) and ti.device.type == "cpu"
            assert tl.dtype == torch.int64
            assert np.array_equal(ti.numpy(), ni) and np.array_equal(tl.numpy(), nl)


def test_tensors_view_the_ring_and_pin_it(dataset):
    with loader(dataset, prefetch=2, shuffle=False, output="array") as T, \
            libfeed.Loader(dataset, batch_size=BATCH, size=SIDE, resize_shorter=64, seed=SEED,
                           prefetch=2, shuffle=False, output="array") as N:
        it, ref = iter(T), iter(N)
        a, _ = next(it)
        next(ref)  # batch 0 of the reference, to compare batch 1 below
        b, _ = next(it)
        assert a.data_ptr() != b.data_ptr()
        with pytest.raises(libfeed.FeedBusyError):
            next(it)  # both tensors alive: both slots are out
        b_copy = b.clone()
        del a  # its deleter gives slot 0 back
        c, _ = next(it)
        assert c.data_ptr() != b.data_ptr()
        assert torch.equal(b, b_copy)  # b's slot was not reused while b lived
        assert torch.equal(b_copy, torch.from_numpy(np.asarray(next(ref).images)))


def test_bfloat16_and_int32_labels(dataset):
    with loader(dataset, dtype=torch.bfloat16, labels_dtype=None) as T:
        images, labels = next(iter(T))
        assert images.dtype == torch.bfloat16 and labels.dtype == torch.int32


def test_last_tensor_outlives_close(dataset):
    # with lt.Loader(...) as ld: for images, labels in ld: ... then images.mean():
    # the tensor pins its batch, past close() too.
    check_after_close("torch", *run_after_close(dataset, "torch"))


def test_dlpack_tensors_freed_while_an_exception_is_raised(dataset):
    # list() failing half-way frees the tensors it collected from C while the
    # exception is pending, and torch calls their DLPack deleters then. A
    # deleter written in Python lost the exception (SystemError: "returned
    # NULL without setting an exception", torch 2.x) or hung (torch 1.13);
    # libfeed's are C and only queue. In a child, so that a hang is a failure.
    code = r"""
import sys, torch, libfeed
from libfeed import _dlpack
L = libfeed.Loader(sys.argv[1], batch_size=4, workers=1, prefetch=3, size=32, resize_shorter=40,
                   epochs=1, shuffle=False, output="array")
it = iter(L)
def gen():
    for _ in range(2):
        yield torch.from_dlpack(next(it).images)
    raise KeyError("mine")
try:
    list(gen())
except KeyError as e:
    print("caught", e.args[0])
print("live", _dlpack.live_count())
print("rest", sum(1 for _ in it) + 2 == len(L))
"""
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, "-c", code, dataset], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["caught", "mine", "live", "0", "rest", "True"], r.stdout + r.stderr


def test_device_cuda_is_the_current_device(dataset, monkeypatch):
    """device="cuda" means torch's current device (each DDP rank's own), not cuda:0.
    No GPU here: the error names the device libfeed was asked for."""
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 2)
    for device in ("cuda", torch.device("cuda")):
        with pytest.raises(libfeed.FeedError) as e:
            loader(dataset, device=device)
        assert "device=cuda:2:" in str(e.value), str(e.value)
    with pytest.raises(libfeed.FeedError) as e:  # an explicit index is kept
        loader(dataset, device=torch.device("cuda", 1))
    assert "device=cuda:1:" in str(e.value), str(e.value)
