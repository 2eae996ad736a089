"""Keeping a batch: the numpy arrays libfeed.Loader hands out view the ring
slot, and each keeps its batch as a libfeed.torch tensor does. A kept array
never changes under its holder; keeping more batches than the ring can spare
makes next() raise FeedBusyError naming what to do, in both front ends; the
usual loop (the loop variable takes the next batch) needs nothing."""
import gc

import numpy as np
import pytest

import libfeed

from conftest import BATCH, SIDE


def test_kept_array_never_changes_and_keeping_too_many_raises(make_loader):
    # prefetch=4: batch 4 needs batch 0's slot.
    L = make_loader(prefetch=4, shuffle=False, epochs=1)
    it = iter(L)
    first = next(it)
    images, snap = first.images, first.images.copy()
    for want in (1, 2, 3):
        assert next(it).index == want  # each dropped as the next comes
    with pytest.raises(libfeed.FeedBusyError, match="numpy arrays"):
        next(it)  # a plain view would have had batch 4's pixels written under it
    assert np.array_equal(images, snap)
    del first, images
    gc.collect()
    b = next(it)  # given back: the epoch goes on, nothing lost
    assert b.index == 4


def test_a_view_of_a_view_keeps_the_batch(make_loader):
    L = make_loader(prefetch=2, shuffle=False, epochs=1)
    it = iter(L)
    crop = next(it).images[1:3, 4:10]  # the batch itself is gone, the slice is not
    snap = crop.copy()
    assert next(it).index == 1
    with pytest.raises(libfeed.FeedBusyError):
        next(it)
    assert np.array_equal(crop, snap)
    del crop
    assert next(it).index == 2


def test_usual_loop_needs_nothing_even_with_the_smallest_ring(make_loader):
    L = make_loader(prefetch=2, shuffle=False)
    for epoch in range(2):
        seen = 0
        for images, labels in L:
            seen += len(labels)
            assert images.base is not None  # a view of the slot, not a copy
        assert seen == L.samples_per_epoch
    with pytest.raises(libfeed.FeedBusyError):
        L.set_epoch(0)  # a seek needs every batch back: the loop's variables hold the last
    del images, labels
    L.set_epoch(0)
    assert L.position() == (0, 0)


def test_copy_true_arrays_are_the_callers(make_loader):
    L = make_loader(prefetch=2, shuffle=False, epochs=1, copy=True)
    kept = [b.images for b in L]  # every batch, none held
    ref = make_loader(prefetch=2, shuffle=False, epochs=1)
    for k, b in zip(kept, ref):
        assert np.array_equal(k, b.images)


def test_torch_front_end_agrees(dataset):
    """The same keeping in both front ends: the kept images unchanged, the
    same error at the same batch, and the same recovery once dropped."""
    pytest.importorskip("torch")
    import libfeed.torch as lt

    errors = []
    for Loader in (libfeed.Loader, lt.Loader):
        with Loader(dataset, batch_size=BATCH, size=SIDE, resize_shorter=64, workers=2, prefetch=2,
                    shuffle=False, epochs=1) as L:
            it = iter(L)
            kept = next(it)[0]
            snap = np.asarray(kept).copy()
            assert next(it).index == 1
            with pytest.raises(libfeed.FeedBusyError) as e:
                next(it)
            assert np.array_equal(np.asarray(kept), snap)
            errors.append(type(e.value))
            del kept
            gc.collect()
            assert next(it).index == 2
    assert errors[0] is errors[1]
