"""libfeed.keras.Dataset: Keras 3's model.fit() trains on libfeed batches
(jax backend; skipped where Keras 3 cannot be imported)."""
import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
try:
    import keras
except Exception as e:  # not installed, or no backend it can load
    pytest.skip(f"Keras 3 cannot be imported here ({type(e).__name__}: {e}); "
                "scripts/test-python installs keras and jax[cpu]", allow_module_level=True)
if not keras.__version__.startswith("3."):
    pytest.skip(f"Keras {keras.__version__} is not Keras 3", allow_module_level=True)

import libfeed  # noqa: E402
import libfeed.keras as lk  # noqa: E402

from conftest import NCLASS, NIMG, SEED  # noqa: E402

SIZE, BATCH = 32, 8


class Recording(lk.Dataset):
    """Records the sample ids of every batch Keras asked for."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.seen = []

    def __getitem__(self, index):
        images, labels = super().__getitem__(index)
        b = self.last_batch
        assert isinstance(images, np.ndarray) and images.flags.owndata  # a fresh array
        assert images.shape == (len(labels), SIZE, SIZE, 3) and images.dtype == np.float32
        self.seen.append((b.epoch, b.index, b.sample_ids.tolist(), labels.tolist()))
        return images, labels


def tiny_model():
    keras.utils.set_random_seed(0)
    m = keras.Sequential([
        keras.Input((SIZE, SIZE, 3)),
        keras.layers.Conv2D(4, 3, strides=2, activation="relu"),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(NCLASS),
    ])
    m.compile(optimizer="sgd",
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
    return m


def without_build_peek(seen):
    """fit() takes one batch to build the model, then starts again: the
    Dataset gives that batch again as the first of the epoch."""
    assert seen[0] == seen[1] and seen[0][:2] == (0, 0)
    return seen[1:]


def per_epoch(seen):
    out = {}
    for epoch, _, ids, _ in seen:
        out.setdefault(epoch, []).extend(ids)
    return out


def test_fit_trains_with_validation(dataset, index):
    args = dict(size=SIZE, resize_shorter=40, seed=SEED, workers=2)
    with Recording(dataset, batch_size=BATCH, augment="train", **args) as train, \
            Recording(dataset, batch_size=BATCH, augment="val", shuffle=False, **args) as val:
        assert len(train) == -(-NIMG // BATCH) and train.num_batches == len(train)
        hist = tiny_model().fit(train, validation_data=val, epochs=2, verbose=0)
        assert len(hist.history["loss"]) == 2 and len(hist.history["val_loss"]) == 2
        assert all(np.isfinite(hist.history["loss"] + hist.history["val_loss"]))
        # Every sample once per epoch, in both; the labels Keras got are the
        # folders' (conftest's index: the ImageFolder order).
        train.seen = without_build_peek(train.seen)
        for ds in (train, val):
            epochs = per_epoch(ds.seen)
            assert sorted(epochs) == [0, 1]
            for ids in epochs.values():
                assert sorted(ids) == list(range(NIMG))
            for _, _, ids, labels in ds.seen:
                assert labels == [index[i][1] for i in ids]
        # A new order each training epoch (libfeed's shuffle, seed and epoch).
        tr = per_epoch(train.seen)
        assert tr[0] != tr[1]
        st = train.stats()
        assert st["samples_delivered"] == 2 * NIMG and st.bad_samples == 0


def test_steps_per_epoch_continues_the_stream(dataset):
    # As Keras does with any PyDataset: fit(steps_per_epoch=k) takes the
    # next k batches each epoch, not the first k again.
    with Recording(dataset, batch_size=BATCH, size=SIZE, resize_shorter=40, seed=SEED,
                   workers=2) as train:
        tiny_model().fit(train, epochs=3, steps_per_epoch=2, verbose=0)
        seen = without_build_peek(train.seen)
        assert [(e, i) for e, i, _, _ in seen] == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]


def test_keras_arguments_map_to_libfeed(dataset):
    with lk.Dataset(dataset, batch_size=4, size=SIZE, workers=3, use_multiprocessing=True,
                    max_queue_size=5) as ds:
        assert ds.workers == 1 and not ds.use_multiprocessing  # Keras asks from one thread
        st = ds.stats()
        assert st["workers"] == 3 and st["ring_slots"] == 5


def test_targets_and_multi_hot_for_keras_losses(dataset, index, tmp_path):
    """y= picks what fit() trains on: per-sample vectors (mean_squared_error),
    multi-hot rows with multi_label (binary_crossentropy), or both outputs
    of a two-headed model; each checked against the arrays the test wrote."""
    want = np.stack([np.arange(NIMG, dtype=np.float32) / NIMG, np.ones(NIMG, np.float32)], axis=1)
    args = dict(size=SIZE, resize_shorter=40, seed=SEED, workers=2, batch_size=BATCH, epochs=2)
    with lk.Dataset(dataset, targets=want, **args) as ds:
        x, y = ds[0]
        ids = ds.last_batch.sample_ids
        np.testing.assert_array_equal(y, want[ids])  # y="auto": the targets when given
        keras.utils.set_random_seed(0)
        m = keras.Sequential([keras.Input((SIZE, SIZE, 3)), keras.layers.GlobalAveragePooling2D(),
                              keras.layers.Dense(2)])
        m.compile(optimizer="sgd", loss="mean_squared_error")
        hist = m.fit(ds, epochs=1, verbose=0)
        assert np.isfinite(hist.history["loss"][0])
    with lk.Dataset(dataset, targets=want, y="both", **args) as ds:
        x, y = ds[0]
        ids = ds.last_batch.sample_ids
        assert set(y) == {"labels", "targets"}
        np.testing.assert_array_equal(y["targets"], want[ids])
        assert y["labels"].tolist() == [index[int(i)][1] for i in ids]
    with lk.Dataset(dataset, y="targets", **args) as ds:
        with pytest.raises(ValueError, match="needs targets="):
            ds[0]
    # multi_label over a one-label folder: the rows are one-hot float32, for binary_crossentropy
    lines = tmp_path / "multi.txt"
    lines.write_text("".join(f"{os.path.join(dataset, index[i][0])} {index[i][1]} {(index[i][1] + 1) % NCLASS}\n"
                             for i in range(NIMG)))
    with lk.Dataset(str(lines), multi_label=True, **args) as ds:
        x, y = ds[0]
        ids = ds.last_batch.sample_ids
        assert y.dtype == np.float32 and y.shape == (len(ids), NCLASS)
        for r, i in zip(y, ids):
            row = np.zeros(NCLASS, np.float32)
            row[[index[int(i)][1], (index[int(i)][1] + 1) % NCLASS]] = 1
            np.testing.assert_array_equal(r, row)
        keras.utils.set_random_seed(0)
        m = keras.Sequential([keras.Input((SIZE, SIZE, 3)), keras.layers.GlobalAveragePooling2D(),
                              keras.layers.Dense(NCLASS)])
        m.compile(optimizer="sgd", loss=keras.losses.BinaryCrossentropy(from_logits=True))
        assert np.isfinite(m.fit(ds, epochs=1, verbose=0).history["loss"][0])
