"""DLPack and array interfaces: zero-copy round trips through numpy on the
host, batch pinning by live exports, and the CUDA-side protocol checked with
a stand-in batch (no GPU needed)."""
import ctypes
import gc

import numpy as np
import pytest

import libfeed
from libfeed import _array, _capi, _dlpack

from conftest import BATCH, SIDE


def test_numpy_from_dlpack_is_zero_copy(make_loader):
    L = make_loader(output="array")
    images, labels = next(iter(L))
    assert images.__dlpack_device__() == (_dlpack.KDL_CPU, 0)
    assert not hasattr(images, "__cuda_array_interface__")
    a = np.from_dlpack(images)
    assert a.shape == (BATCH, SIDE, SIDE, 3) and a.dtype == np.uint8
    assert a.ctypes.data == images.ptr  # the slot itself
    v = np.asarray(images)
    assert v.ctypes.data == images.ptr
    v[0, 0, 0, 0] ^= 0xFF  # same memory seen through both
    assert a[0, 0, 0, 0] == v[0, 0, 0, 0]
    assert isinstance(labels, np.ndarray) and labels.dtype == np.int32  # labels: a small copy


class LegacyOnly:
    """A consumer-side view of a producer that predates DLPack 1.0 keywords."""

    def __init__(self, arr):
        self.arr = arr

    def __dlpack__(self, stream=None):
        return self.arr.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


def test_both_capsule_kinds(make_loader):
    L = make_loader(output="array", dtype="float32")
    images = next(iter(L)).images
    assert images.shape == (BATCH, 3, SIDE, SIDE)
    base = np.asarray(images)
    for producer in (images, LegacyOnly(images)):
        a = np.from_dlpack(producer)
        assert a.dtype == np.float32 and a.ctypes.data == images.ptr
        assert np.array_equal(a, base)
    cap = images.__dlpack__()
    assert "dltensor" in repr(cap) and "versioned" not in repr(cap)
    capv = images.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(capv)
    del a, cap, capv
    gc.collect()
    assert _dlpack.live_count() == 0  # unconsumed capsules ran their deleters


def test_exports_pin_their_batch(make_loader):
    # prefetch=2: at most 2 batches out. Exports keep theirs out until freed.
    L = make_loader(output="array", prefetch=2, shuffle=False)
    it = iter(L)
    kept = [np.from_dlpack(next(it).images)]
    first = kept[0].copy()
    kept.append(np.from_dlpack(next(it).images))
    with pytest.raises(libfeed.FeedBusyError, match="from_dlpack"):
        next(it)
    assert np.array_equal(kept[0], first)  # never reused under the export
    del kept[0]  # the deleter gives batch 0 back
    b = next(it)
    assert b.index == 2
    kept.clear()
    assert [x.index for x in it] == list(range(3, len(L)))


def test_copy_and_device_requests(make_loader):
    L = make_loader(output="array")
    images = next(iter(L)).images
    c = np.from_dlpack(images, copy=True)
    assert c.ctypes.data != images.ptr and np.array_equal(c, np.asarray(images))
    with pytest.raises(BufferError):
        images.__dlpack__(dl_device=(_dlpack.KDL_CUDA, 0))
    assert images.numpy(copy=True).flags.owndata


def test_bfloat16_exports_as_bfloat16(make_loader):
    L = make_loader(output="array", dtype="bfloat16")
    images = next(iter(L)).images
    assert images.dtype_name == "bfloat16" and images.dtype == np.uint16  # raw bits on the host
    cap = images.__dlpack__()
    api = _dlpack._api
    ptr = api.PyCapsule_GetPointer(ctypes.c_void_p(id(cap)), ctypes.addressof(_dlpack._NAME))
    m = _dlpack.DLManagedTensor.from_address(ptr)
    t = m.dl_tensor
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (_dlpack.KDL_BFLOAT, 16, 1)
    assert [t.shape[i] for i in range(t.ndim)] == [BATCH, 3, SIDE, SIDE]
    assert t.data == images.ptr and not t.strides
    del cap, m, t
    assert _dlpack.live_count() == 0


class FakeOwner:
    """Stands in for a held CUDA batch: records what the Array asks of it."""

    def __init__(self):
        self.waits, self.pins, self.freed = [], [], 0
        self.loader = None

    def check_alive(self):
        pass

    def wait(self, stream):
        self.waits.append(stream)

    def pin(self, stream=None):
        self.pins.append(stream)

        def on_free():
            self.freed += 1
        return on_free


def test_cuda_array_protocols_with_a_stand_in():
    owner = FakeOwner()
    arr = _array.Array(0xDEAD0000, (4, 3, 8, 8), _array.DTYPES[_capi.DTYPE_FLOAT32],
                       1, owner, stream=0x1234)  # on cuda:1
    assert arr.device == "cuda:1" and arr.is_cuda and arr.nbytes == 4 * 3 * 8 * 8 * 4
    assert arr.__dlpack_device__() == (_dlpack.KDL_CUDA, 1)
    cai = arr.__cuda_array_interface__
    assert cai == {"shape": (4, 3, 8, 8), "typestr": "<f4", "data": (0xDEAD0000, False),
                   "strides": None, "version": 3, "stream": 0x1234}
    assert not hasattr(arr, "__array_interface__")
    with pytest.raises(TypeError):
        arr.numpy()
    # DLPack stream numbers: None/1 legacy default (NULL), 2 per-thread, -1 none.
    for stream, handle in [(None, None), (1, None), (2, 2), (0xBEEF, 0xBEEF)]:
        cap = arr.__dlpack__(stream=stream)
        assert owner.waits[-1] == handle and owner.pins[-1] == handle
        del cap
    n = len(owner.waits)
    cap = arr.__dlpack__(stream=-1)
    assert len(owner.waits) == n and owner.pins[-1] is None  # no synchronisation asked
    del cap
    # the deleters ran (C, queued); collected at the main thread's next check, or here
    assert _dlpack.live_count() == 0 and owner.freed == 5
    with pytest.raises(BufferError):
        arr.__dlpack__(copy=True)
    default = _array.Array(0x1000, (2,), _array.INT32, 0, FakeOwner())
    assert default.__cuda_array_interface__["stream"] == 1  # legacy default stream
