"""Batches on a real GPU, used by PyTorch, CuPy and JAX in one process.

Skipped unless torch sees a CUDA device and libfeed was built with its CUDA
backend (scripts/gpu-check.sh runs these on a GPU machine). The host loader
with the same options is the reference: the device conversion must give the
same bits (src/device/cuda/convert.cu and src/pixels/convert.c share their arithmetic).
"""
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device visible to torch", allow_module_level=True)

import libfeed  # noqa: E402
import libfeed.torch as lt  # noqa: E402

from conftest import BATCH, SEED, SIDE  # noqa: E402

COMMON = dict(batch_size=BATCH, size=SIDE, resize_shorter=64, seed=SEED, workers=2, epochs=1,
              augment="train")


@pytest.fixture(scope="module", autouse=True)
def cuda_backend(dataset):
    try:
        with libfeed.Loader(dataset, device="cuda", **COMMON) as L:
            if L.device != "cuda:0":
                pytest.skip(f"libfeed delivers to {L.device}, not cuda:0")
    except libfeed.FeedError as e:  # built without CUDA, or no usable device
        pytest.skip(f"libfeed's CUDA backend is not usable here: {e}")


def host_batches(dataset, dtype, **kw):
    """The reference: the same batches converted on the CPU, as torch tensors."""
    out = []
    with lt.Loader(dataset, device="cpu", dtype=dtype, **dict(COMMON, **kw)) as H:
        for images, labels in H:
            out.append((images.clone(), labels.clone()))
    return out


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.float16, torch.bfloat16])
def test_device_batches_equal_the_host_conversion(dataset, dtype):
    ref = host_batches(dataset, dtype)
    n = 0
    with lt.Loader(dataset, device="cuda", dtype=dtype, **COMMON) as G:
        assert G.device == "cuda:0" and G.stats()["backend"] == "cuda:0"
        for (images, labels), (want, want_labels) in zip(G, ref, strict=True):
            assert images.is_cuda and images.device.index == 0 and images.dtype == dtype
            assert labels.is_cuda and labels.dtype == torch.int64
            assert images.shape == want.shape
            assert torch.equal(images.cpu(), want)  # bitwise, NaN-free
            assert torch.equal(labels.cpu(), want_labels)
            n += len(labels)
        assert n == G.samples_per_epoch
        st = G.stats()
        assert st["samples_delivered"] == n and st["h2d_bytes"] > 0
        print(f"pinned={st['pinned']} copy_ns={st['copy_ns']}")


def test_side_stream_and_late_release(dataset):
    """The consumer works on a stream of its own and lets go of each batch
    while a slow kernel on that stream still reads it: the device buffer must
    not be refilled before that kernel is done (release records an event on
    the consumer's stream)."""
    ref = host_batches(dataset, torch.float32)
    s = torch.cuda.Stream()
    copies = []
    with torch.cuda.stream(s), \
            lt.Loader(dataset, device="cuda", dtype=torch.float32, device_prefetch=2,
                      stream=s, **COMMON) as G:
        for images, labels in G:
            torch.cuda._sleep(2_000_000)  # ~1 ms of GPU time before the read below
            copies.append((images.clone(), labels.clone()))
            del images, labels  # released now, with the clone still queued
    s.synchronize()
    assert len(copies) == len(ref)
    for (images, labels), (want, want_labels) in zip(copies, ref):
        assert torch.equal(images.cpu(), want)
        assert torch.equal(labels.cpu(), want_labels)


def test_cupy_sees_the_same_memory(dataset):
    cupy = pytest.importorskip("cupy")
    ref = host_batches(dataset, torch.float16)
    with libfeed.Loader(dataset, device="cuda", dtype="float16", **COMMON) as G:
        for (images, labels), (want, want_labels) in zip(G, ref, strict=True):
            a = cupy.asarray(images)  # __cuda_array_interface__, no copy
            assert a.data.ptr == images.ptr and a.dtype == np.float16
            assert np.array_equal(cupy.asnumpy(a), want.numpy())
            d = cupy.from_dlpack(labels)
            assert np.array_equal(cupy.asnumpy(d), want_labels.numpy().astype(np.int32))
            del a, d


def test_jax_imports_by_dlpack(dataset):
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave torch its memory
    jax = pytest.importorskip("jax")
    import jax.dlpack  # noqa: F401

    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("jax sees no GPU")
    ref = host_batches(dataset, torch.float32)
    with libfeed.Loader(dataset, device="cuda", dtype="float32", **COMMON) as G:
        for (images, labels), (want, _) in zip(G, ref, strict=True):
            x = jax.dlpack.from_dlpack(images)
            assert x.shape == tuple(want.shape)
            assert np.array_equal(np.asarray(x), want.numpy())
            del x


def test_npy_source_on_the_device(tmp_path):
    """A .npy source through the copier: augment='none' at the array's size,
    uint8 HWC on the device equals the array byte for byte."""
    images = np.random.default_rng(7).integers(0, 256, size=(20, 16, 24, 3), dtype=np.uint8)
    np.save(tmp_path / "images.npy", images)
    np.save(tmp_path / "labels.npy", np.arange(20, dtype=np.int64) % 3)
    seen = 0
    with lt.Loader(str(tmp_path / "images.npy"), labels=str(tmp_path / "labels.npy"), device="cuda",
                   size=(16, 24), augment="none", batch_size=8, workers=2, epochs=1) as G:
        for b in G:
            ids = b.sample_ids
            assert torch.equal(b.images.cpu(), torch.from_numpy(images[ids]))
            assert torch.equal(b.labels.cpu(), torch.from_numpy(ids.astype(np.int64) % 3))
            seen += len(ids)
    assert seen == 20
