"""libfeed.Loader: a PyTorch-DataLoader-like iterator over libfeed batches.

The Loader is put together from one part per concern, each in its own module:
  _options.py    the keywords, checked and set as feed_options (__init__)
  _iteration.py  iterating: batches out of C (Batch) and back to it
  _position.py   where the next batch is: seek, set_epoch, state_dict
  _dataset.py    what the dataset holds: sizes, classes, samples
  _reports.py    stats(), the workers' trace events, bad samples (BadSample)
  _held.py       what keeps the C loader and a batch's memory alive
This file holds the class itself (its options, creation, close and handle)
and Front, what the framework front ends over a Loader share.
"""
import collections
import ctypes
import os
import threading

import numpy as np

from . import _capi
from ._dataset import DatasetInfo
from ._errors import Status, make_error
from ._held import _Native
from ._iteration import Batch, Iteration
from ._options import ERRLEN, _number, _stream_value, keyword_items, options_buffer
from ._position import Position
from ._reports import BadSample, Reports

# What else libfeed.loader offers, from the modules the Loader is made of.
from ._array import DTYPES, INT32, Array  # noqa: F401,E402
from ._errors import FeedBusyError, FeedTimeoutError  # noqa: F401,E402
from ._iteration import POLL_MS  # noqa: F401,E402
from ._stats import Stats  # noqa: F401,E402

_lib = _capi.lib


def _meta_decode(how):
    """meta_decode as {member: mode} ({None: mode} for every member)."""
    modes = ("bytes", "str", "json")
    if isinstance(how, str):
        if how not in modes:
            raise ValueError(f"libfeed: meta_decode={how!r}: expected 'bytes', 'str', 'json' or a dict of them")
        return {None: how}
    if isinstance(how, dict) and all(isinstance(v, str) and v in modes for v in how.values()):
        return dict(how)
    raise ValueError(f"libfeed: meta_decode={how!r}: expected 'bytes', 'str', 'json' or a dict of them")


class Loader(Iteration, Position, DatasetInfo, Reports):
    """Batches of decoded, augmented images from worker processes, like a
    PyTorch DataLoader over an ImageFolder.

        with libfeed.Loader("/data/train", batch_size=256, workers=8,
                            augment="train", seed=1) as loader:
            for epoch in range(90):
                loader.set_epoch(epoch)
                for images, labels in loader:     # one epoch
                    ...

    The source is an ImageFolder root, a "path label" file list, or
    WebDataset tar shards: "/data/train-{000000..001023}.tar", a glob, one
    .tar, or a text file of .tar paths (KEY.jpg/.png/.webp + KEY.cls members);
    shards may be URLs: "https://host/train-{000000..000999}.tar",
    "s3://bucket/prefix/*.tar" or a text file of URLs, downloaded whole into
    cache_dir before the first batch (docs/datasets.md, remote shards).

    Every option of include/feed.h can be given by its key: source,
    file_list, batch_size (32), shuffle (True), shuffle_window (0; K > 0 with
    tar shards: shards shuffled, then samples within windows of K shards),
    drop_last (False), seed (0),
    epochs (0 = unlimited), start_epoch (0), rank (0; "auto": from the
    launcher, torchrun/MPI/Slurm), world_size (1; or "auto"),
    workers (2), prefetch (4 ring slots), height/width (224; or size=N or
    (H, W)), augment ("val"), resize_shorter, scale_min/max, ratio_min/max,
    flip_p, rotate_deg, fill, brightness, contrast, saturation, hue,
    grayscale_p, exif, roi_decode, dtype ("uint8"), layout ("hwc" for uint8,
    "chw" otherwise), mean, std, device ("host"; "cuda", "cuda:N" or
    "auto" for device batches), device_prefetch, sync,
    bad_policy ("replace"), max_retries, sample_timeout_ms, max_pixels,
    max_file_bytes, reader, worker_path, readahead, max_bad_fraction (0.05:
    iteration raises FeedDatasetError when more than this share of the last
    1000 samples were bad, or the first 16 all were; 1 = no budget),
    report_bad (True: a line per bad sample on stderr, rate-limited),
    bad_log (a file that gets every bad sample), sandbox (True),
    max_worker_memory ("auto"; bytes, 0 = no cap), labels (a .npy source's labels
    .npy), scan_cache (False), scan_cache_path, cache_dir, cache_size (0 =
    no limit), fetch_retries (4), fetch_timeout_ms (30000), fetch_parallel (8),
    fetch_ahead (0: every shard cached at create; N: fetched while it runs), fetch_ranges
    ("whole"; "ranges": only this rank's samples' bytes, by ranged GETs).
    Unset options keep libfeed's defaults (in brackets). options= takes more as "key=value,..." or a dict.
    Numbers are checked before anything starts: an integer option refuses a
    bool, a fraction or a negative value, a float option a bool (TypeError
    or ValueError naming the option); text is left to libfeed's parser.

    augment may be "none" | "val" | "train" or a dict of custom parameters:
    {"mode": "train", "scale": (0.25, 1), "ratio": (0.75, 1.33),
    "flip_p": 0.5, "rotate_deg": 10, "brightness": 0.4, ...}.

    Python-only arguments:
      copy     False (default): host images are numpy views of the shared
               ring slot (no copy), each keeping its batch, as a tensor does:
               a kept array never changes, and its slot goes back to the
               workers when the last view of it is freed (in a `for` loop,
               when the loop variable takes the next batch). Keeping more
               batches than prefetch - 1 makes iterating raise FeedBusyError:
               copy what you keep. True: fresh arrays; the slot is given back
               at once.
      output   "numpy" (default on the host) or "array": libfeed.Array
               objects (DLPack / __array_interface__). Device batches are
               always libfeed.Array (DLPack, __cuda_array_interface__).
      timeout  seconds one batch may take before FeedTimeoutError (None: no limit).
      stream   CUDA stream (int, torch/cupy stream) that device batches are
               made ready on; default the legacy default stream.
      meta_decode  with meta_members (["json", "txt"] or "json:txt"): how
               Batch.meta gives each member: "bytes" (default), "str" (UTF-8)
               or "json" (parsed), or a dict {member: one of those}.

    Iterating gives one epoch (a Batch, which unpacks as (images, labels));
    the next `for` continues with the next epoch while the workers keep
    filling the ring. len(loader) is the number of batches per epoch.
    Ctrl-C (KeyboardInterrupt) leaves the loader usable, like any other
    exception, wherever it lands: the next `for` goes on with the epoch from
    the batch after the last one the loop received (a batch being waited for
    is neither lost nor delivered twice). close() (or `with`) stops the workers.
    """

    def __init__(self, source=None, batch_size=None, *, shuffle=None, seed=None, workers=None,
                 augment=None, size=None, dtype=None, layout=None, device=None, rank=None,
                 world_size=None, drop_last=None, prefetch=None, epochs=None, copy=False,
                 output="numpy", timeout=None, stream=None, options=None, meta_decode="bytes", **kwargs):
        self._h = None
        self._native = None
        self._lock = threading.RLock()
        self._t_first = None  # when the first batch was asked for (stats())
        self._in_call = False
        self._current = None
        self._made = None         # (held, Batch) on its way out of next()
        self._undelivered = None  # what a Ctrl-C stopped on its way out: next() gives it first
        self._pending = collections.deque()
        self._targets = None  # loader.dataset.targets, once read (_dataset.py)
        if output not in ("numpy", "array"):
            raise ValueError(f"libfeed: output={output!r}: expected 'numpy' or 'array'")
        self._copy = bool(copy)
        self._output = output
        if timeout is not None:
            timeout = _number("timeout", timeout)
            if timeout < 0:
                raise ValueError(f"libfeed: timeout={timeout}: must not be negative")
        self._timeout = timeout
        self._stream = _stream_value(stream)
        self._meta_exts = []
        self._meta_decode = _meta_decode(meta_decode)

        # targets= an array: written to a temporary .npy that create reads
        # whole and that is removed right after it.
        targets_file = None
        if kwargs.get("targets") is not None and not isinstance(kwargs["targets"], (str, bytes, os.PathLike)):
            targets_file = _targets_file(kwargs["targets"])
            kwargs = dict(kwargs, targets=targets_file)
        try:
            self._create(source, batch_size, shuffle, seed, workers, augment, size, dtype, layout, device,
                         rank, world_size, drop_last, prefetch, epochs, options, kwargs)
        finally:
            if targets_file:
                os.unlink(targets_file)

    def _create(self, source, batch_size, shuffle, seed, workers, augment, size, dtype, layout, device,
                rank, world_size, drop_last, prefetch, epochs, options, kwargs):
        items = keyword_items(
            source=source, batch_size=batch_size, shuffle=shuffle, seed=seed, workers=workers,
            augment=augment, size=size, dtype=dtype, layout=layout, device=device, rank=rank,
            world_size=world_size, drop_last=drop_last, prefetch=prefetch, epochs=epochs,
            options=options, kwargs=kwargs)
        self._settings = dict(items)
        self._soft_asked = _soft_labels_asked(self._settings)
        self._opts = opts = options_buffer(items)
        err = ctypes.create_string_buffer(ERRLEN)
        handle = ctypes.c_void_p()
        st = _lib.feed_loader_create(ctypes.byref(handle), opts, err, ERRLEN)
        if st:
            msg = err.value.decode(errors="replace")
            path = self._settings.get("source") if st == Status.E_DATASET else None
            raise make_error(st, msg, path=path)
        self._h = handle.value
        self._native = _Native(self._h)
        if _capi.options_mirror_ok:  # the members' names, as create took them
            names = _capi.FeedOptions.from_buffer(opts).meta_members.decode()
            self._meta_exts = [e for e in names.split(":") if e]
            if isinstance(self._meta_decode.get(None), str):
                self._meta_decode = {e: self._meta_decode[None] for e in self._meta_exts}
        self._owner_thread = threading.get_ident()
        stats = self.stats()
        self._device = "cpu" if stats["backend"] == "host" else stats["backend"]
        if self._copy and self._device != "cpu":
            self.close()
            raise make_error(Status.E_INVALID,
                             "copy=True needs host output (device=cpu); on the GPU copy the tensor")

    # -- life ------------------------------------------------------------------------
    def close(self):
        """Ends the loader: no more batches (next() and iterating raise
        ValueError). Safe to call twice; `with` calls it at the end.

        It stops and reaps the workers and frees the shared memory at once
        when no array, DLPack capsule or tensor still views batch memory.
        Otherwise that is deferred until the last such view is freed (as when
        a loader is garbage-collected): the batch's arrays stay readable, and
        the batch current at close() keeps its values. Drop (or copy) the
        arrays you keep to release the workers and memory sooner."""
        with self._lock:
            if self._h is None:
                return
            self._current = None
            self._made = self._undelivered = None
            self._pending.clear()
            self._h = None
            native, self._native = self._native, None
        del native  # feed_loader_destroy() now, unless a view still holds it

    @property
    def closed(self):
        return self._h is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        if self._h is None:
            return "libfeed.Loader(closed)"
        return (f"libfeed.Loader(source={self._settings.get('source')!r}, "
                f"batches_per_epoch={len(self)}, device={self._device})")

    def _handle(self):
        if self._h is None:
            raise ValueError("libfeed: the loader is closed (close() or the end of its `with`); "
                             "make a new Loader to read more")
        return self._h

    def _error(self, st, message=None):
        if message is None:
            message = _lib.feed_loader_last_error(self._h).decode(errors="replace") \
                if self._h else ""
        return make_error(st, message or _lib.feed_strerror(st).decode())

    # -- options -----------------------------------------------------------------------
    @property
    def device(self):
        """"cpu" or "cuda:N": where batches are delivered."""
        return self._device

    @property
    def batch_size(self):
        return self._option("batch_size")

    def _batch_targets(self, batch):
        """What a front end gives as the batch's targets: the soft labels when
        label smoothing or mixing is on, else the class labels. A library
        that parses those options but delivers no soft labels (older than
        the recipes) is an error here, not a silent fall back to class labels."""
        if batch.soft_labels is not None:
            return batch.soft_labels
        if self._soft_asked:
            raise make_error(Status.E_UNSUPPORTED,
                             f"{self._soft_asked} is set, but this libfeed library "
                             f"({_lib.feed_version_string().decode()}) delivered no soft labels: "
                             "it accepts the option and does not implement it")
        return batch[1]

    def _option(self, name):
        if not _capi.options_mirror_ok:
            raise RuntimeError("libfeed: the feed_options mirror does not match this library")
        v = getattr(_capi.FeedOptions.from_buffer(self._opts), name)
        return v.decode() if isinstance(v, bytes) else v


def _soft_labels_asked(settings):
    """The option (text) that asks for soft labels (feed.h: label smoothing,
    MixUp, CutMix or multi_label's multi-hot rows), or "" when none does."""
    for key in ("label_smoothing", "mixup_alpha", "cutmix_alpha"):
        try:
            if float(settings.get(key, 0)) > 0:
                return f"{key}={settings[key]}"
        except ValueError:
            pass  # the C parser refused it at create already
    if str(settings.get("multi_label", "")).lower() in ("1", "true"):
        return f"multi_label={settings['multi_label']}"
    return ""


class Front:
    """What a framework's front end over a Loader (libfeed.torch.DataLoader,
    libfeed.keras.Dataset) does alike: self.loader is the libfeed.Loader."""

    def stats(self):
        """libfeed.Stats: images/s, busy fraction, bad samples, counters."""
        return self.loader.stats()

    def close(self):
        """Stops the workers and frees the ring (also at garbage collection)."""
        self.loader.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _targets_file(value):
    """An array-like of per-sample targets (N, K) or (N,) as a temporary .npy
    (float32/float64/int32/int64 as they are; bool and other integers as
    int64, other floats as float32): its path."""
    import tempfile
    a = np.asarray(value)
    if a.dtype.kind == "f" and a.dtype.itemsize not in (4, 8):
        a = a.astype(np.float32)
    elif a.dtype.kind in "biu" and a.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        a = a.astype(np.int64)
    elif a.dtype.kind not in "fiub":
        raise TypeError(f"libfeed: targets of dtype {a.dtype}: expected numbers (float or int)")
    fd, path = tempfile.mkstemp(prefix="libfeed-targets-", suffix=".npy")
    with os.fdopen(fd, "wb") as f:
        np.save(f, np.ascontiguousarray(a))
    return path
