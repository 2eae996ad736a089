"""Iteration over a generated dataset: epochs, coverage, labels, shapes,
dtypes and layouts, reproducibility, positions and resume."""
import hashlib

import numpy as np
import pytest

import libfeed

from conftest import BATCH, NCLASS, NIMG, SIDE

NB = (NIMG + BATCH - 1) // BATCH  # 6 batches, the last of 5


def digest(batch):
    images, labels = batch
    h = hashlib.sha256(np.ascontiguousarray(images).tobytes())
    h.update(np.asarray(labels).tobytes())
    h.update(batch.sample_ids.tobytes())
    return h.hexdigest()


def test_epochs_exact_once_with_labels(make_loader, index):
    L = make_loader(epochs=3, augment="train")
    assert len(L) == NB and L.samples_per_epoch == NIMG and L.num_classes == NCLASS
    assert L.classes == [f"class_{i:03d}" for i in range(NCLASS)]
    assert L.device == "cpu"
    orders = []
    for e in range(3):
        seen = np.zeros(NIMG, dtype=int)
        nb = 0
        for batch in L:
            images, labels = batch
            assert isinstance(batch, tuple) and len(batch) == 2
            assert (batch.epoch, batch.index) == (e, nb)
            n = BATCH if nb < NB - 1 else NIMG % BATCH
            assert isinstance(images, np.ndarray) and images.shape == (n, SIDE, SIDE, 3)
            assert images.dtype == np.uint8 and images.flags.c_contiguous
            assert labels.dtype == np.int32 and labels.shape == (n,)
            for sid, lab in zip(batch.sample_ids, labels):
                seen[sid] += 1
                assert lab == index[sid][1]  # the label of the file's class folder
            assert batch.bad == 0 and not (batch.flags & libfeed.SAMPLE_REPLACED).any()
            assert images.std() > 1  # real pixels, not an empty buffer
            nb += 1
        assert nb == NB
        assert (seen == 1).all()  # every sample exactly once per epoch
        orders.append(tuple(batch.sample_ids))
    assert len(set(orders)) == 3  # shuffled differently each epoch
    assert list(L) == []  # epochs=3: END_OF_DATA, and it stays there
    assert list(L) == []
    s = L.stats()
    assert s["samples_delivered"] == 3 * NIMG and s["batches_delivered"] == 3 * NB
    assert s["backend"] == "host" and s["worker_restarts"] == 0 and s["decode_ns"] > 0


def test_unshuffled_order_is_the_index_order(make_loader, index):
    L = make_loader(shuffle=False, epochs=1)
    ids = np.concatenate([b.sample_ids for b in L])
    assert list(ids) == list(range(NIMG))


def test_drop_last(make_loader):
    L = make_loader(drop_last=True, epochs=1)
    assert len(L) == NIMG // BATCH and L.samples_per_epoch == NIMG // BATCH * BATCH
    sizes = [len(labels) for _, labels in L]
    assert sizes == [BATCH] * (NIMG // BATCH)


def test_ranks_split_the_epoch(make_loader):
    ids = []
    for rank in range(2):
        L = make_loader(rank=rank, world_size=2, epochs=1, seed=5)
        ids.append(np.concatenate([b.sample_ids for b in L]))
        assert len(ids[-1]) == L.samples_per_epoch
        L.close()
    assert len(ids[0]) == len(ids[1])  # ranks stay in step
    assert set(ids[0]) | set(ids[1]) == set(range(NIMG))
    overlap = set(ids[0]) & set(ids[1])
    assert len(overlap) <= 1  # 45 over 2 ranks: at most one padded repeat


def test_reproducible_with_a_seed(make_loader):
    def run(**kw):
        L = make_loader(augment="train", epochs=2, **kw)
        out = [digest(b) for _ in range(2) for b in L]
        L.close()
        return out

    a = run(seed=7, workers=1)
    b = run(seed=7, workers=3, prefetch=2)
    c = run(seed=8, workers=2)
    assert a == b  # bitwise, whatever the worker count
    assert a != c and len(set(a) & set(c)) == 0


def _first(L):
    return next(iter(L))


def test_dtypes_and_layouts_agree_with_uint8(make_loader):
    mean = np.array([0.485, 0.456, 0.406], dtype=np.float32)
    std = np.array([0.229, 0.224, 0.225], dtype=np.float32)
    common = dict(augment="train", shuffle=False, epochs=1, seed=3)
    u8 = _first(make_loader(**common))
    ref = (u8.images.astype(np.float32) / 255 - mean) / std  # N H W C

    f32 = _first(make_loader(dtype="float32", **common))
    assert f32.images.dtype == np.float32 and f32.images.shape == (BATCH, 3, SIDE, SIDE)  # CHW
    np.testing.assert_allclose(f32.images.transpose(0, 2, 3, 1), ref, atol=1e-5)
    assert (f32.labels == u8.labels).all() and (f32.sample_ids == u8.sample_ids).all()

    f16 = _first(make_loader(dtype=np.float16, layout="nhwc", **common))
    assert f16.images.dtype == np.float16 and f16.images.shape == (BATCH, SIDE, SIDE, 3)
    np.testing.assert_allclose(f16.images.astype(np.float32), ref, atol=2e-2, rtol=1e-3)

    bf = _first(make_loader(dtype="bfloat16", **common))
    bits = np.asarray(bf.images).view(np.uint16)
    assert bits.shape == (BATCH, 3, SIDE, SIDE)
    as_f32 = (bits.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_allclose(as_f32.transpose(0, 2, 3, 1), ref, atol=3e-2, rtol=1e-2)


def test_mean_std_and_rectangular_size(make_loader):
    common = dict(augment="val", shuffle=False, epochs=1, size=(40, 56), resize_shorter=64)
    u8 = _first(make_loader(**common))
    assert u8.images.shape == (BATCH, 40, 56, 3)
    f = _first(make_loader(dtype="float32", layout="hwc", mean=(0, 0, 0), std=(1, 1, 1),
                           **common))
    assert f.images.shape == (BATCH, 40, 56, 3)
    np.testing.assert_allclose(f.images, u8.images / np.float32(255), atol=1e-6)
    g = _first(make_loader(dtype="float32", layout="hwc", mean=(0.5, 0.5, 0.5),
                           std=(0.5, 0.25, 0.125), **common))
    np.testing.assert_allclose(g.images, (u8.images / np.float32(255) - 0.5) /
                               np.array([0.5, 0.25, 0.125], dtype=np.float32), atol=1e-5)


def test_copy_true_gives_independent_arrays(make_loader):
    L = make_loader(copy=True, prefetch=2, epochs=1, shuffle=False)
    kept = list(L)  # more batches than ring slots, all kept: slots go back at once
    assert len(kept) == NB
    assert all(b.images.flags.owndata for b in kept)
    again = make_loader(prefetch=2, epochs=1, shuffle=False)
    for k, b in zip(kept, again):
        assert digest(k) == digest(b)  # unchanged while the ring was reused


def test_views_keep_the_loader_alive_and_track_position(make_loader):
    L = make_loader(output="array", prefetch=2)
    it = iter(L)
    first = next(it)
    arr = first.images
    assert isinstance(arr, libfeed.Array) and arr.shape == (BATCH, SIDE, SIDE, 3)
    view = np.asarray(arr)
    assert view.ctypes.data == arr.ptr  # zero-copy
    next(it)
    with pytest.raises(BufferError, match="given back"):
        np.asarray(arr)  # the slot went back to the workers


def test_break_then_continue_then_set_epoch(make_loader):
    L = make_loader(augment="train", seed=9)
    full = [digest(b) for b in L]  # epoch 0
    full1 = [digest(b) for b in L]  # epoch 1
    assert L.position() == (2, 0)

    M = make_loader(augment="train", seed=9)
    got = []
    for b in M:
        got.append(digest(b))
        if b.index == 2:
            break
    assert M.position() == (0, 3)
    del b  # a kept batch keeps its ring slot
    got += [digest(b) for b in M]  # a new `for` continues the same epoch
    assert got == full
    # Stop right after the last batch, before END_OF_EPOCH was seen: the
    # next `for` is still a whole epoch 1.
    for b in M:
        if b.index == NB - 1:
            break
    assert M.position() == (2, 0)
    del b
    M.set_epoch(1)
    assert [digest(b) for b in M] == full1
    M.set_epoch(0)  # jump back
    assert M.position() == (0, 0)
    assert [digest(b) for b in M] == full
    M.set_epoch(1)  # already there: no seek, still the full epoch
    assert [digest(b) for b in M] == full1


def test_state_dict_resume_is_exact(make_loader):
    L = make_loader(augment="train", epochs=2, seed=21)
    saved, tail = None, []
    for e in range(2):
        for b in L:
            if saved is not None:
                tail.append(digest(b))
            if (b.epoch, b.index) == (1, 1):
                saved = L.state_dict()
    assert saved["epoch"] == 1 and saved["batch"] == 2
    assert saved["seed"] == 21 and saved["batch_size"] == BATCH and saved["world_size"] == 1

    M = make_loader(augment="train", epochs=2, seed=21, workers=3)
    _first(M)  # it has started elsewhere; resuming seeks
    M.load_state_dict(saved)
    assert M.position() == (1, 2)
    assert [digest(b) for b in M] == tail

    other = make_loader(augment="train", epochs=2, seed=22)
    with pytest.raises(libfeed.FeedInvalidError, match="seed"):
        other.load_state_dict(saved)
    other.load_state_dict(saved, strict=False)
    assert other.position() == (1, 2)


def test_augment_dict_and_aliases(make_loader):
    L = make_loader(augment={"mode": "train", "scale": (0.5, 1.0), "flip_p": 1.0},
                    num_workers=1, epochs=1)
    flags = np.concatenate([b.flags for b in L])
    assert (flags & libfeed.SAMPLE_FLIPPED).all()
    assert L.stats()["workers"] == 1
    L2 = make_loader(augment={"mode": "train", "flip_p": 0.0}, epochs=1)
    assert not (np.concatenate([b.flags for b in L2]) & libfeed.SAMPLE_FLIPPED).any()
    opt = make_loader(options="flip_p=1,augment=train", epochs=1)
    assert (next(iter(opt)).flags & libfeed.SAMPLE_FLIPPED).all()
    for fill in (0xFF8000, (255, 128, 0), "ff8000"):  # hex RRGGBB, however given
        rot = make_loader(augment={"mode": "train", "rotate": 45, "scale": (1.0, 1.0)},
                          fill=fill, epochs=1)
        assert rot._option("fill") == 0xFF8000 and rot._option("rotate_deg") == 45
        rot.close()


def test_dataloader_only_arguments_are_explained(dataset):
    with pytest.raises(TypeError, match="persist"):
        libfeed.Loader(dataset, persistent_workers=True)
    with pytest.raises(TypeError, match="prefetch="):
        libfeed.Loader(dataset, prefetch_factor=2)


def test_trace_events(make_loader):
    """One worker event per sample of the epoch, naming a delivered sample
    and its batch, with stage times inside the run's wall time."""
    import time
    t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    with make_loader(epochs=1) as ld:
        where = {}
        for batch in ld:
            for sid in batch.sample_ids:
                where[int(sid)] = batch.index
        t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        ev = ld.trace_events()
        assert sorted(e["sample_id"] for e in ev) == sorted(where)
        for e in ev:
            assert e["epoch"] == 0 and e["batch"] == where[e["sample_id"]]
            assert e["worker"] in (0, 1) and e["decode_ns"] > 0
            assert t0 < e["start_ns"] < t1
        assert ld.trace_events() == []


def test_reader_uring_falls_back_to_pread(make_loader, monkeypatch):
    # reader="uring" is a wish, as auto is: where io_uring cannot be used (here
    # FEED_FORCE_PREAD=1, which the workers inherit) the workers read with
    # pread, without an error; stats()["reader"] says which one ran.
    U = make_loader(reader="uring", epochs=1)
    assert next(iter(U)).index == 0
    assert U.stats()["reader"] in ("io_uring", "pread")  # which one, this machine decides
    monkeypatch.setenv("FEED_FORCE_PREAD", "1")
    L = make_loader(reader="uring", epochs=1)
    assert next(iter(L)).index == 0
    assert L.stats()["reader"] == "pread"
