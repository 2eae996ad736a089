"""libfeed.keras: a Keras 3 PyDataset over libfeed, for model.fit().

    import libfeed.keras
    train = libfeed.keras.Dataset("/data/train", batch_size=64, augment="train", workers=8)
    val = libfeed.keras.Dataset("/data/val", batch_size=64, augment="val", shuffle=False)
    model.fit(train, validation_data=val, epochs=2)

Keras 2's fit(workers=8, use_multiprocessing=True, max_queue_size=10) (Keras 3:
PyDataset(workers=, use_multiprocessing=, max_queue_size=)) becomes
Dataset(workers=8, prefetch=10): workers are always processes (feed-worker,
decoding in C), prefetch the batches ready ahead; use_multiprocessing is
accepted and has nothing left to switch.

Batches are (images, labels) numpy arrays: images float32, normalised with
mean/std (ImageNet's by default), channels last (or first, following
keras.config.image_data_format()), labels int32 class indices (for
sparse_categorical_crossentropy); with label_smoothing=, mixup_alpha= or
cutmix_alpha=, float32 soft labels of shape (N, num_classes) instead (for
categorical_crossentropy); with multi_label=True the multi-hot float32 rows
(for binary_crossentropy); with targets= or target_columns= (per-sample
vectors) the (N, K) targets (for mean_squared_error and the like). y= picks
one: "auto" (that order), "labels" (soft or class labels even with targets),
"targets", or "both" (a dict {"labels": ..., "targets": ...} for a model
with two outputs of those names). Each batch is a fresh array (copy=True):
Keras and its backends may keep a reference to it past the next batch.

Keras asks for batches by index, and with fit(shuffle=True) (the default) in
a shuffled index order. libfeed already shuffles the samples (shuffle=,
seed=, a new order each epoch), so the index is not used to choose the batch:
each call gives the next batch of the epoch, every sample once per epoch.
For that, Keras must ask from one thread: the PyDataset is made with
workers=1, use_multiprocessing=False (Keras's own pool would only add
threads over libfeed's processes).
"""
import keras as _keras

from . import loader as _loader


class Dataset(_keras.utils.PyDataset, _loader.Front):
    """A Keras 3 PyDataset of libfeed batches.

    source, batch_size (32), augment ("val"), shuffle (True), seed, size
    (224), dtype ("float32"), mean, std and every libfeed.Loader option;
    workers: libfeed's worker processes; max_queue_size: alias of prefetch
    (ring slots, batches decoded ahead); use_multiprocessing: accepted (the
    workers are processes anyway).
    """

    def __init__(self, source, batch_size=32, *, workers=None, use_multiprocessing=None,
                 max_queue_size=None, dtype="float32", layout=None, y="auto", **options):
        super().__init__(workers=1, use_multiprocessing=False)
        if y not in ("auto", "labels", "targets", "both"):
            raise ValueError(f"libfeed.keras.Dataset: y={y!r}: expected 'auto', 'labels', 'targets' or 'both'")
        self._y = y
        if layout is None:
            layout = "chw" if _keras.config.image_data_format() == "channels_first" else "hwc"
        if max_queue_size is not None:
            options.setdefault("prefetch", max_queue_size)
        self.loader = _loader.Loader(source, batch_size, workers=workers, dtype=dtype,
                                     layout=layout, copy=True, **options)
        self._it = None
        self._given = 0  # batches taken from the loader
        self._replay = None  # a batch to give again first (see on_epoch_end)
        self._first_end = True
        self.last_batch = None  # the libfeed.Batch last given (sample_ids, flags, epoch)

    @property
    def num_batches(self):
        return len(self.loader)

    def __len__(self):
        return len(self.loader)

    def __getitem__(self, index):
        n = len(self.loader)
        if not 0 <= int(index) < n:
            raise IndexError(f"libfeed.keras.Dataset: batch {index} of {n}")
        batch, self._replay = self._replay, None
        for _ in range(2):
            if batch is not None:
                break
            if self._it is None:
                self._it = iter(self.loader)
            batch = next(self._it, None)
            if batch is None:
                self._it = None  # the epoch ended: the next iterator is the next epoch
            else:
                self._given += 1
        if batch is None:
            raise IndexError("libfeed.keras.Dataset: the loader is exhausted (epochs=)")
        self.last_batch = batch
        # float32 soft labels (N x num_classes, for categorical_crossentropy)
        # with label_smoothing= / mixup_alpha= / cutmix_alpha= / multi_label=;
        # else class indices; the per-sample vectors when asked (y=)
        labels = self.loader._batch_targets(batch)
        vectors = batch.targets
        if self._y in ("targets", "both") and vectors is None:
            raise ValueError(f"libfeed.keras.Dataset: y={self._y!r} needs targets= or target_columns=")
        if self._y == "both":
            return batch[0], {"labels": labels, "targets": vectors}
        if self._y == "targets" or (self._y == "auto" and vectors is not None):
            return batch[0], vectors
        return batch[0], labels

    def on_epoch_end(self):
        # Keras's epochs follow the stream: a pass of len() batches is one
        # libfeed epoch, and with fit(steps_per_epoch=k) the next Keras epoch
        # continues where the last stopped, as Keras does with a PyDataset.
        # The one exception: before training, fit() takes one batch to build
        # the model and starts again from the first; that batch is given
        # again, so that no sample of the first epoch is skipped.
        if self._first_end:
            self._first_end = False
            if self._given == 1:
                self._replay = self.last_batch

    # libfeed's
    def state_dict(self):
        return self.loader.state_dict()

    def load_state_dict(self, state, strict=True):
        self.loader.load_state_dict(state, strict=strict)
        self._it = None
        self._served = int(state.get("batch", 0))
