"""libfeed.Loader: a PyTorch-DataLoader-like iterator over libfeed batches."""
import collections
import collections.abc
import ctypes
import functools
import math
import numbers
import operator
import os
import threading
import time
import weakref

import numpy as np

from . import _capi, _dlpack
from ._array import DTYPES, INT32, Array
from ._errors import FeedBusyError, FeedTimeoutError, Status, make_error
from ._stats import Stats

_lib = _capi.lib
_ERRLEN = 4096

# How long one feed_loader_next() call may block. Python runs signal handlers
# (Ctrl-C) only between C calls, so waits are cut into slices this long.
POLL_MS = 100

_EOE = object()
_EOD = object()

# Keyword -> option key, where the Python name differs.
_ALIASES = {"num_workers": "workers", "rotate": "rotate_deg"}
# DataLoader arguments with no direct equivalent, and what to do instead.
_DATALOADER_ONLY = {
    "pin_memory": "libfeed's ring is shared memory, pinned once with CUDA; "
                  "use device='cuda' to get batches on the GPU",
    "persistent_workers": "libfeed's workers always persist across epochs",
    "prefetch_factor": "use prefetch= (ring slots in batches, all workers together)",
    "sampler": "use shuffle=, seed=, rank=, world_size=, drop_last=",
    "batch_sampler": "use batch_size= and drop_last=",
    "collate_fn": "batches are always (images, labels) arrays",
    "worker_init_fn": "workers are processes running feed-worker, not Python",
    "multiprocessing_context": "workers are spawned with posix_spawn, never fork",
    "generator": "use seed=",
}


# The numeric options, by the type feed_options_set() parses (src/loader/options.c),
# each with the largest value it takes. Checked here, so that True is not
# taken as 1 nor 2.5 as 2, and the error names the option.
_U32_MAX, _U64_MAX = (1 << 32) - 1, (1 << 64) - 1
_INTEGERS = dict.fromkeys(
    ("batch_size", "epochs", "start_epoch", "workers", "prefetch", "height", "width",
     "resize_shorter", "device_prefetch", "max_retries", "sample_timeout_ms", "readahead"),
    _U32_MAX)
_INTEGERS.update(dict.fromkeys(("seed", "max_pixels", "max_file_bytes"), _U64_MAX))
_INTEGERS.update(dict.fromkeys(("rank", "world_size"), _U32_MAX - 1))  # or "auto"
_INTEGERS["max_worker_memory"] = _U64_MAX - 1  # or "auto" (stored as 2^64 - 1); 0 = no cap
_FLOATS = {"scale_min", "scale_max", "ratio_min", "ratio_max", "flip_p", "rotate_deg",
           "brightness", "contrast", "saturation", "hue", "grayscale_p", "max_bad_fraction"}
_FLAGS = {"shuffle", "drop_last", "exif", "roi_decode", "sync", "report_bad", "scan_cache"}
_TRIPLES = {"mean", "std"}


def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


def _integer(name, value, top=_U64_MAX):
    """value as an int in 0..top, or TypeError / ValueError naming `name`."""
    if _is_bool(value):
        raise TypeError(f"libfeed: {name}={value!r}: expected an integer, not a bool")
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or not float(value).is_integer():
            raise ValueError(f"libfeed: {name}={value!r}: expected a whole number")
        value = int(value)
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"libfeed: {name}={value!r}: expected an integer, "
                        f"not {type(value).__name__}") from None
    if value < 0:
        raise ValueError(f"libfeed: {name}={value}: must not be negative")
    if value > top:
        raise ValueError(f"libfeed: {name}={value}: must be at most {top}")
    return value


def _number(name, value):
    """value as a finite float, or TypeError / ValueError naming `name`."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"libfeed: {name}={value!r}: expected a number, "
                        f"not {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"libfeed: {name}={value!r}: expected a finite number")
    return value


def _pair(name, value):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ValueError(f"libfeed: {name}={value!r}: expected (min, max)")
    return value[0], value[1]


def _checked(key, value):
    """A keyword's value checked against the option's type (strings are the
    C parser's to check); returns what to pass on."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return value
    if key in _INTEGERS:
        return _integer(key, value, _INTEGERS[key])
    if key in _FLOATS:
        return _number(key, value)
    if key in _FLAGS:
        if _is_bool(value):
            return bool(value)
        if isinstance(value, numbers.Integral) and value in (0, 1):
            return bool(value)
        if isinstance(value, numbers.Integral):
            raise ValueError(f"libfeed: {key}={value!r}: expected True/False (or 0/1)")
        raise TypeError(f"libfeed: {key}={value!r}: expected True/False, "
                        f"not {type(value).__name__}")
    if key in _TRIPLES:
        if isinstance(value, (list, tuple, np.ndarray)) and len(value) == 3:
            return tuple(_number(key, v) for v in value)
        raise ValueError(f"libfeed: {key}={value!r}: expected three numbers (r, g, b)")
    if key == "fill":
        if isinstance(value, (list, tuple)) and len(value) == 3:
            r, g, b = (_integer(key, v, 255) for v in value)
            return f"{(r << 16) | (g << 8) | b:06x}"
        return f"{_integer(key, value, 0xFFFFFF):06x}"  # parsed as hex RRGGBB
    return value


def _text(value):
    """A Python value as the text feed_options_set() parses."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return ":".join(_text(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, bytes):
        return value.decode()
    return str(value)


def _dtype_word(dtype):
    if dtype is None:
        return None
    if isinstance(dtype, str):
        return dtype.replace("torch.", "")
    s = str(dtype)
    if s.startswith("torch."):  # torch.float32, torch.bfloat16, ...
        return s[len("torch."):]
    try:
        return np.dtype(dtype).name
    except TypeError:
        return s


def _device_word(device):
    if device is None:
        return None
    if isinstance(device, int):
        return f"cuda:{device}"
    s = str(device)  # torch.device("cuda", 1) -> "cuda:1"
    return "host" if s == "cpu" else s


def _stream_value(stream):
    """A cudaStream_t as an int from an int, a torch.cuda.Stream
    (.cuda_stream), a cupy Stream (.ptr) or None (the legacy default stream)."""
    if stream is None:
        return None
    if _is_bool(stream):
        raise TypeError(f"libfeed: stream={stream!r}: expected a CUDA stream or its handle")
    for attr in ("cuda_stream", "ptr"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr)) or None
    return int(stream) or None


def _destroy(handle):
    _lib.feed_loader_destroy(handle)


class _Native:
    """The C loader (feed_loader *). feed_loader_destroy() runs when the last
    reference to this goes: the Loader's (dropped by close()) and every
    _Held's, which each array, DLPack capsule and tensor viewing batch memory
    holds. So nothing a live view reads is unmapped (no SIGSEGV after close)."""

    __slots__ = ("h", "__weakref__")

    def __init__(self, h):
        self.h = h
        weakref.finalize(self, _destroy, h)  # also at exit, for what is still alive then


class _Held:
    """A C batch the Python side holds. pins: 1 while it is the loader's
    current batch, +1 per live DLPack export; given back to C at 0.
    It refers to its loader weakly (the loader refers to its current batch);
    the arrays made from it hold the loader strongly instead. It holds the
    C loader (_Native) strongly: its memory stays mapped while it lives."""

    __slots__ = ("_loader", "native", "cbatch", "pins", "released", "stream", "__weakref__")

    def __init__(self, loader, cbatch):
        self._loader = weakref.ref(loader)
        self.native = loader._native
        self.cbatch = cbatch
        self.pins = 1
        self.released = False
        self.stream = None

    @property
    def loader(self):
        return self._loader()

    def check_alive(self):
        """The loader, if this batch's memory is still this batch's. After
        close() it is (nothing is given back or reused any more)."""
        L = self._loader()
        if self.released or L is None:
            raise BufferError(
                "libfeed: this batch was given back to the loader (it moved to the next batch); "
                "copy arrays you want to keep")
        return L

    def pin(self, stream=None):
        """Adds a DLPack export; returns the function its deleter calls."""
        L = self.check_alive()
        with L._lock:
            self.check_alive()
            self.pins += 1
            if stream is not None:
                self.stream = stream
        return functools.partial(L._export_done, self)  # holds the loader until then

    def wait(self, stream):
        """Makes CUDA stream wait for this batch (feed_batch_wait)."""
        L = self.check_alive()
        with L._lock:
            self.check_alive()
            st = _lib.feed_batch_wait(self.native.h, ctypes.byref(self.cbatch), stream)
            if st:
                raise L._error(st)


class Batch(tuple):
    """One batch: a 2-tuple (images, labels), so `for images, labels in
    loader` works, plus what libfeed knows about it:

    epoch, index    position of the batch (index within the epoch)
    sample_ids      numpy uint64: dataset index of each sample (after replacement)
    flags           numpy uint8: libfeed.SAMPLE_REPLACED | SAMPLE_FLIPPED per sample
    bad             samples replaced in this batch (bad_policy=replace)
    """

    def __new__(cls, images, labels, epoch, index, sample_ids, flags, bad):
        self = super().__new__(cls, (images, labels))
        self.epoch, self.index, self.sample_ids, self.flags, self.bad = (
            epoch, index, sample_ids, flags, bad)
        return self

    @property
    def images(self):
        return self[0]

    @property
    def labels(self):
        return self[1]

    def __repr__(self):
        return (f"libfeed.Batch(epoch={self.epoch}, index={self.index}, count={len(self[1])}, "
                f"images={getattr(self[0], 'shape', None)})")


class BadSample(collections.namedtuple(
        "BadSample", "sample_id epoch batch status name errno path message")):
    """A bad-sample report (feed_bad_sample)."""


class _EpochIterator:
    """Yields the batches from the loader's position to the end of its epoch."""

    def __init__(self, loader):
        self._loader = loader
        self._started = False
        self._done = False

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        r = self._loader._fetch(skip_pending_eoe=not self._started)
        if r is _EOE or r is _EOD:
            self._done = True
            raise StopIteration
        self._started = True
        return r


# feed_loader_sample_info's largest path (feed.h), NUL included.
_SAMPLE_PATH_MAX = 2 * _capi.FEED_PATH_MAX + 32


class _Samples(collections.abc.Sequence):
    """Loader.samples: (path, label) by sample id, from the C index."""

    __slots__ = ("_loader",)

    def __init__(self, loader):
        self._loader = loader

    def __len__(self):
        return int(_lib.feed_loader_num_samples(self._loader._handle()))

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(n))]
        i = operator.index(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"libfeed: sample {i} is out of range (0..{n - 1})")
        buf = ctypes.create_string_buffer(_SAMPLE_PATH_MAX)
        label = ctypes.c_int32()
        st = _lib.feed_loader_sample_info(self._loader._handle(), i, buf, len(buf), ctypes.byref(label))
        if st:
            raise self._loader._error(st)
        return (os.fsdecode(buf.value), int(label.value))

    def __repr__(self):
        return f"<libfeed samples: {len(self)}>"


class Loader:
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
    .tar, or a text file of .tar paths (KEY.jpg/.png/.webp + KEY.cls members).

    Every option of include/feed.h can be given by its key: source,
    file_list, batch_size (32), shuffle (True), drop_last (False), seed (0),
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
    .npy), scan_cache (False), scan_cache_path. Unset options keep libfeed's
    defaults (in brackets). options= takes more as "key=value,..." or a dict.
    Numbers are checked before anything starts: an integer option refuses a
    bool, a fraction or a negative value, a float option a bool (TypeError
    or ValueError naming the option); text is left to libfeed's parser.

    augment may be "none" | "val" | "train" or a dict of custom parameters:
    {"mode": "train", "scale": (0.25, 1), "ratio": (0.75, 1.33),
    "flip_p": 0.5, "rotate_deg": 10, "brightness": 0.4, ...}.

    Python-only arguments:
      copy     False (default): host images are numpy views of the shared
               ring slot, valid until the next batch is requested (copy what
               you keep), or for the batch current at close(), for as long as
               they live. True: fresh arrays; the slot is given back at once.
      output   "numpy" (default on the host) or "array": libfeed.Array
               objects (DLPack / __array_interface__). Device batches are
               always libfeed.Array (DLPack, __cuda_array_interface__).
      timeout  seconds one batch may take before FeedTimeoutError (None: no limit).
      stream   CUDA stream (int, torch/cupy stream) that device batches are
               made ready on; default the legacy default stream.

    Iterating gives one epoch (a Batch, which unpacks as (images, labels));
    the next `for` continues with the next epoch while the workers keep
    filling the ring. len(loader) is the number of batches per epoch.
    Ctrl-C while waiting for a batch closes the loader (see close(): the
    workers are stopped and reaped then, or once the last array viewing a
    batch is freed) before KeyboardInterrupt propagates.
    """

    def __init__(self, source=None, batch_size=None, *, shuffle=None, seed=None, workers=None,
                 augment=None, size=None, dtype=None, layout=None, device=None, rank=None,
                 world_size=None, drop_last=None, prefetch=None, epochs=None, copy=False,
                 output="numpy", timeout=None, stream=None, options=None, **kwargs):
        self._h = None
        self._native = None
        self._lock = threading.RLock()
        self._t_first = None  # when the first batch was asked for (stats())
        self._in_call = False
        self._current = None
        self._pending = collections.deque()
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

        items = []  # (key, text) in the order they are set
        def put(key, value):
            if value is None:
                return
            value = _checked(key, value)
            items.append((key, value if isinstance(value, str) else _text(value)))

        put("source", source)
        put("batch_size", batch_size)
        put("shuffle", shuffle)
        put("seed", seed)
        put("workers", workers)
        if size is not None:
            if isinstance(size, (list, tuple)) and len(size) == 2:
                h, w = size
            elif isinstance(size, (list, tuple, str, bytes)):
                raise TypeError(f"libfeed: size={size!r}: expected an integer or (height, width)")
            else:
                h = w = size
            put("height", _integer("size", h, _U32_MAX))
            put("width", _integer("size", w, _U32_MAX))
        if isinstance(augment, dict):
            aug = dict(augment)
            put("augment", aug.pop("mode", aug.pop("kind", "train")))
            for k, v in aug.items():
                if k in ("scale", "ratio"):
                    lo, hi = _pair(k, v)
                    put(k + "_min", lo)
                    put(k + "_max", hi)
                else:
                    put(_ALIASES.get(k, k), v)
        else:
            put("augment", augment)
        put("dtype", _dtype_word(dtype))
        if layout is not None:
            put("layout", {"nhwc": "hwc", "nchw": "chw"}.get(str(layout).lower(), layout))
        put("device", _device_word(device))
        put("rank", rank)
        put("world_size", world_size)
        put("drop_last", drop_last)
        put("prefetch", prefetch)
        put("epochs", epochs)
        if isinstance(options, str):
            for item in options.split(","):
                if item.strip():
                    k, sep, v = item.strip().partition("=")
                    if not sep:
                        raise make_error(Status.E_INVALID, f"options: '{item}' is not key=value")
                    items.append((k.strip(), v))
        elif options:
            for k, v in dict(options).items():
                put(k, v)
        for k, v in kwargs.items():
            if k in _DATALOADER_ONLY:
                raise TypeError(f"libfeed.Loader has no {k}= ({_DATALOADER_ONLY[k]})")
            put(_ALIASES.get(k, k), v)
        self._settings = dict(items)

        opts = ctypes.create_string_buffer(_capi.OPTIONS_BUFFER_SIZE)
        if _lib.feed_options_init(opts, _capi.OPTIONS_BUFFER_SIZE) != 0:
            raise make_error(Status.E_INTERNAL, "feed_options_init failed")
        err = ctypes.create_string_buffer(_ERRLEN)
        for k, v in items:
            st = _lib.feed_options_set(opts, k.encode(), os.fsencode(v), err, _ERRLEN)
            if st:
                raise make_error(st, err.value.decode(errors="replace"))
        self._opts = opts
        handle = ctypes.c_void_p()
        st = _lib.feed_loader_create(ctypes.byref(handle), opts, err, _ERRLEN)
        if st:
            msg = err.value.decode(errors="replace")
            path = self._settings.get("source") if st == Status.E_DATASET else None
            raise make_error(st, msg, path=path)
        self._h = handle.value
        self._native = _Native(self._h)
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

    # -- sizes ---------------------------------------------------------------------------
    def __len__(self):
        return int(_lib.feed_loader_batches_per_epoch(self._handle()))

    @property
    def samples_per_epoch(self):
        return int(_lib.feed_loader_samples_per_epoch(self._handle()))

    @property
    def num_classes(self):
        return int(_lib.feed_loader_num_classes(self._handle()))

    @property
    def classes(self):
        """Class names (ImageFolder folder names), or None for a file list or tar shards."""
        h = self._handle()
        out = []
        for i in range(_lib.feed_loader_num_classes(h)):
            n = _lib.feed_loader_class_name(h, i)
            if n is None:
                return None
            out.append(n.decode(errors="surrogateescape"))
        return out

    @property
    def skipped_files(self):
        """Files in the ImageFolder's class folders left out for their extension
        (not .jpg/.jpeg/.jpe/.png/.webp): their count. Create also says so on
        stderr (unless report_bad=0); skipped_examples names the first few."""
        return int(_lib.feed_loader_skipped_files(self._handle(), None))

    @property
    def skipped_examples(self):
        """The first few skipped files (paths relative to the root), a list."""
        first = ctypes.c_char_p()
        _lib.feed_loader_skipped_files(self._handle(), ctypes.byref(first))
        text = (first.value or b"").decode(errors="surrogateescape")
        return text.split(", ") if text else []

    @property
    def shard_problems(self):
        """Tar shard members left out because they could not be indexed (a
        bad header, a sample without a label, ...): their count (0 for other
        sources). Create reports each on stderr; shard_problem_first is the
        first report."""
        return int(_lib.feed_loader_shard_problems(self._handle(), None))

    @property
    def shard_problem_first(self):
        """The first left-out member's report ("SHARD: member 'NAME' at
        offset N: what"), or "" when there was none."""
        first = ctypes.c_char_p()
        _lib.feed_loader_shard_problems(self._handle(), ctypes.byref(first))
        return (first.value or b"").decode(errors="surrogateescape")

    @property
    def class_to_idx(self):
        """{class name: label}, as torchvision's ImageFolder.class_to_idx; {} for a
        file list or an array, which have labels but no names."""
        return {c: i for i, c in enumerate(self.classes or ())}

    @property
    def samples(self):
        """(path, label) of every sample id, as ImageFolder.samples: a read-only
        sequence read from the C index on demand (feed_loader_sample_info), so
        it costs nothing until used. Paths are absolute; a .npy source's are
        "ARRAY.npy[i]"."""
        self._handle()
        return _Samples(self)

    @property
    def device(self):
        """"cpu" or "cuda:N": where batches are delivered."""
        return self._device

    @property
    def batch_size(self):
        return self._option("batch_size")

    def _option(self, name):
        if not _capi.options_mirror_ok:
            raise RuntimeError("libfeed: the feed_options mirror does not match this library")
        v = getattr(_capi.FeedOptions.from_buffer(self._opts), name)
        return v.decode() if isinstance(v, bytes) else v

    # -- iteration --------------------------------------------------------------------
    def __iter__(self):
        self._handle()
        if self._t_first is None:
            self._t_first = time.monotonic_ns()
        return _EpochIterator(self)

    def _fetch(self, skip_pending_eoe):
        """The next batch, or _EOE / _EOD."""
        try:
            return self._fetch_inner(skip_pending_eoe)
        except KeyboardInterrupt:
            # Ctrl-C: stop the workers now rather than at garbage collection.
            self.close()
            raise

    def _fetch_inner(self, skip_pending_eoe):
        _dlpack.collect()  # tensors freed since (their deleters only queue)
        with self._lock:
            self._handle()
            self._owner_thread = threading.get_ident()
            self._drop_current()
            self._drain_pending()
        deadline = None if self._timeout is None else time.monotonic() + self._timeout
        cb = _capi.new_struct(_capi.FeedBatch)
        while True:
            with self._lock:
                h = self._handle()
                self._in_call = True
                try:
                    st = _lib.feed_loader_next(h, ctypes.byref(cb), POLL_MS)
                finally:
                    self._in_call = False
                if st == Status.OK:
                    held = _Held(self, cb)
                    self._current = held
                    return self._make_batch(held)
                if st == Status.END_OF_EPOCH:
                    if skip_pending_eoe:
                        # The end of the previous epoch, which a `for` that
                        # stopped on its last batch never saw.
                        skip_pending_eoe = False
                        continue
                    return _EOE
                if st == Status.END_OF_DATA:
                    return _EOD
                if cb.bad and not cb.handle:
                    # bad_policy=fail: the batch has bad samples and st is its
                    # first one's status (FEED_E_DECODE, _IO for a file gone,
                    # _WORKER for a quarantined sample, whatever a worker
                    # said); the next call delivers it with them replaced.
                    # Checked before the statuses waited on below.
                    raise self._decode_error(st, cb)
                if st == Status.E_INTERRUPTED:
                    # A signal handler ran (Python's raise here, e.g. Ctrl-C,
                    # at the next bytecode); otherwise wait on.
                    continue
                if st == Status.E_TIMEOUT:
                    _dlpack.collect()  # to _pending: this thread holds the lock
                    self._drain_pending()
                    if deadline is not None and time.monotonic() >= deadline:
                        raise FeedTimeoutError(st, None, f"no batch within {self._timeout} s")
                    continue
                if st == Status.E_BUSY:
                    _dlpack.collect()
                    if self._drain_pending():
                        continue
                    raise FeedBusyError(st, None, self._busy_message())
                if st in (Status.E_DECODE, Status.E_TOO_LARGE):
                    raise self._decode_error(st, cb)
                raise self._error(st)

    def _busy_message(self):
        return (_lib.feed_loader_last_error(self._h).decode(errors="replace") +
                "; tensors made with DLPack (torch.from_dlpack, libfeed.torch) keep their batch "
                "until they are freed: drop them or .clone() what you keep, or raise prefetch")

    def _decode_error(self, st, cb):
        """The error of a batch with bad samples (bad_policy=fail), whatever
        its status: .path, .sample_id (the first bad sample's), .epoch,
        .batch and .bad_samples (every report of the batch); an OSError's
        (FeedIOError's) .errno is the sample's."""
        msg = _lib.feed_loader_last_error(self._h).decode(errors="replace")
        reports = [r for r in self.bad_samples() if r.epoch == cb.epoch and r.batch == cb.index]
        e = make_error(st, msg, path=reports[0].path if reports else None)
        e.bad_samples = tuple(reports)
        e.epoch, e.batch = int(cb.epoch), int(cb.index)
        e.sample_id = reports[0].sample_id if reports else None
        if reports and reports[0].errno and isinstance(e, OSError) and e.errno is None:
            e.errno = reports[0].errno
        return e

    def _make_batch(self, held):
        b = held.cbatch
        n = b.count
        c, hh, ww = b.channels, b.height, b.width
        shape = (n, hh, ww, c) if b.layout == _capi.LAYOUT_HWC else (n, c, hh, ww)
        kind = DTYPES[b.dtype]
        ids = np.ctypeslib.as_array(b.sample_ids, (n,)).copy()
        flags = np.ctypeslib.as_array(b.flags, (n,)).copy()
        labels_host = np.ctypeslib.as_array(b.labels, (n,)).copy()
        if b.device < 0:
            arr = Array(b.data, shape, kind, -1, held)
            if self._copy:
                images = arr.numpy(copy=True)
                self._unpin(held)
                self._current = None
            elif self._output == "array":
                images = arr
            else:
                images = arr.numpy()
            labels = labels_host
        else:
            # Make the consumer's stream wait (on the device) for the copy.
            st = _lib.feed_batch_wait(self._h, ctypes.byref(b), self._stream)
            if st:
                raise self._error(st)
            held.stream = self._stream
            images = Array(b.data, shape, kind, b.device, held, self._stream)
            labels = (Array(b.labels_device, (n,), INT32, b.device, held, self._stream)
                      if b.labels_device else labels_host)
        return Batch(images, labels, int(b.epoch), int(b.index), ids, flags, int(b.bad))

    # -- giving batches back ------------------------------------------------------------
    def _unpin(self, held):
        """self._lock held, on the loader's thread."""
        held.pins -= 1
        if held.pins == 0 and not held.released:
            held.released = True
            if self._h is not None:
                st = _lib.feed_batch_release(self._h, ctypes.byref(held.cbatch), held.stream)
                if st:
                    raise self._error(st)

    def _drop_current(self):
        cur, self._current = self._current, None
        if cur is not None:
            self._unpin(cur)

    def _drain_pending(self):
        """Gives back batches whose DLPack exports were freed; True if any."""
        did = False
        while self._pending:
            self._unpin(self._pending.popleft())
            did = True
        return did

    def _export_done(self, held):
        # The C API is single-threaded: release here only on the loader's own
        # thread when it is not inside a call; otherwise the next call does it.
        # Nor inside one of this loader's own methods (collect() runs as a
        # pending call at any bytecode boundary, maybe half-way through _unpin).
        if self._h is None:
            return
        if (threading.get_ident() == self._owner_thread and not self._lock._is_owned() and
                self._lock.acquire(blocking=False)):
            try:
                if not self._in_call and self._h is not None:
                    self._drain_pending()
                    self._unpin(held)
                    return
            finally:
                self._lock.release()
        self._pending.append(held)

    # -- position -------------------------------------------------------------------------
    def position(self):
        """(epoch, batch) of the next batch the loader will deliver."""
        with self._lock:
            e, b = ctypes.c_uint64(), ctypes.c_uint64()
            st = _lib.feed_loader_position(self._handle(), ctypes.byref(e), ctypes.byref(b))
            if st:
                raise self._error(st)
            return int(e.value), int(b.value)

    def position_samples(self):
        """(epoch, consumed) of the next batch: the samples of the epoch's order
        all ranks together took before it. Unlike position() it does not
        depend on the world size or the batch size (feed_loader_position_samples)."""
        with self._lock:
            e, c = ctypes.c_uint64(), ctypes.c_uint64()
            st = _lib.feed_loader_position_samples(self._handle(), ctypes.byref(e), ctypes.byref(c))
            if st:
                raise self._error(st)
            return int(e.value), int(c.value)

    @property
    def dataset_size(self):
        """Samples in the dataset (all ranks together)."""
        return int(_lib.feed_loader_dataset_size(self._handle()))

    def _seek(self, epoch, batch, samples=False):
        with self._lock:
            h = self._handle()
            self._drop_current()
            self._drain_pending()
            seek = _lib.feed_loader_seek_samples if samples else _lib.feed_loader_seek
            st = seek(h, int(epoch), int(batch))
            if st == Status.E_BUSY:
                raise FeedBusyError(st, None, self._busy_message())
            if st:
                raise self._error(st)

    def seek_samples(self, epoch, consumed):
        """Goes on from sample position `consumed` of epoch `epoch`'s order,
        split among this loader's ranks (feed_loader_seek_samples: the rest of
        the epoch, whatever the world size or batch size that saved it)."""
        self._seek(epoch, consumed, samples=True)

    def set_epoch(self, epoch):
        """Makes the next `for` deliver epoch `epoch` from its first batch
        (DistributedSampler.set_epoch). When the loader is already there
        (epochs iterated in order) it keeps what the ring has prefetched."""
        if self.position_samples() == (int(epoch), 0):
            return
        self._seek(epoch, 0)

    _ORDER_KEYS = ("seed", "batch_size", "shuffle", "drop_last", "rank", "world_size")
    # What a sample position cannot be carried across: the order itself.
    _SAME_ORDER_KEYS = ("seed", "shuffle", "dataset_size")

    def state_dict(self):
        """The position to resume from, plus what must match to resume exactly.
        "consumed" (with "epoch") is the position in the epoch's order, valid at
        any world size and batch size; "batch" is the old (epoch, batch) one."""
        with self._lock:  # one position: no next() of another thread between the two
            e, b = self.position()
            _, c = self.position_samples()
        d = {"epoch": e, "batch": b, "consumed": c, "dataset_size": self.dataset_size,
             "samples_per_epoch": self.samples_per_epoch, "batches_per_epoch": len(self),
             "libfeed_version": _capi.version}
        if _capi.options_mirror_ok:
            for k in self._ORDER_KEYS:
                d[k] = int(self._option(k))
        st = self.stats()  # the share in use (rank/world_size may have been "auto")
        d["rank"], d["world_size"] = st["rank"], st["world_size"]
        return d

    def load_state_dict(self, state, strict=True):
        """Resumes where state was taken.

        A state with "consumed" (libfeed 0.2 on) resumes at that sample
        position of the epoch's order, with this loader's world size, rank,
        batch size and drop_last, which may differ from the saved run's: the
        rest of the epoch is split among the new ranks, nothing delivered twice
        or skipped within it but for the padding (see feed_loader_seek_samples).
        With the same world and batch size it is bitwise the saved run's next
        batches. Every rank of the new run may load any rank's state of the
        saved one (all ranks are at the same position when they train in step).
        strict: refuse a state whose order differs (seed, shuffle, dataset
        size): FeedInvalidError naming them.

        An older state (no "consumed") resumes at (epoch, batch) and, with
        strict, needs the same seed, batch size, shuffle, drop_last, ranks and
        epoch length."""
        if "consumed" in state:
            if strict:
                mine = self.state_dict()
                diff = [k for k in self._SAME_ORDER_KEYS
                        if k in state and k in mine and int(state[k]) != mine[k]]
                if diff:
                    raise make_error(Status.E_INVALID, "load_state_dict: the saved run's sample "
                                     "order differs from this loader's in " + ", ".join(
                                         f"{k} (saved {state[k]}, here {mine[k]})" for k in diff)
                                     + ": its position cannot be resumed here")
            self._seek(int(state["epoch"]), int(state["consumed"]), samples=True)
            return
        if strict:
            mine = self.state_dict()
            diff = [k for k in self._ORDER_KEYS + ("samples_per_epoch", "batches_per_epoch")
                    if k in state and k in mine and int(state[k]) != mine[k]]
            if diff:
                raise make_error(Status.E_INVALID, "load_state_dict: this loader differs from the "
                                 "saved one in " + ", ".join(
                                     f"{k} ({mine[k]} != {state[k]})" for k in diff))
        self._seek(int(state["epoch"]), int(state["batch"]))

    # -- reports ----------------------------------------------------------------------------
    def stats(self):
        """feed_stats as a libfeed.Stats: a dict of the counters (stage times
        in ns, backend, reader...) plus images_per_sec, busy_fraction (share
        of the time since the first batch was asked for that the consumer
        spent outside next()), bad_samples and elapsed_s; print() shows them."""
        with self._lock:
            s = _capi.new_struct(_capi.FeedStats)
            st = _lib.feed_loader_stats(self._handle(), ctypes.byref(s))
            if st:
                raise self._error(st)
            out = {}
            for name, _ in _capi.FeedStats._fields_:
                if name == "struct_size":
                    continue
                v = getattr(s, name)
                out[name] = v.decode(errors="replace") if isinstance(v, bytes) else int(v)
            t0 = self._t_first
            return Stats(out, 0 if t0 is None else time.monotonic_ns() - t0)

    def trace_events(self, max_events=65536):
        """Per-sample worker events not read before (feed_loader_trace_read):
        a list of dicts with start_ns (CLOCK_MONOTONIC, like
        time.clock_gettime_ns(time.CLOCK_MONOTONIC)), sample_id, epoch, batch,
        worker, flags and the stage times wait_ns, read_ns, decode_ns,
        augment_ns, convert_ns. Each worker keeps the last 2048 events: call
        at least that often (per worker) to see them all."""
        with self._lock:
            buf = (_capi.FeedTraceEvent * max_events)()
            lost = ctypes.c_uint64(0)
            n = _lib.feed_loader_trace_read(self._handle(), buf, max_events, ctypes.byref(lost))
            self.trace_events_lost = getattr(self, "trace_events_lost", 0) + int(lost.value)
            names = [f for f, _ in _capi.FeedTraceEvent._fields_ if f != "reserved"]
            return [{f: int(getattr(buf[i], f)) for f in names} for i in range(n)]

    def bad_count(self, epoch=None):
        """Bad-sample reports made so far (one per sample and epoch), or those
        of one epoch (kept for the last 1024 epochs)."""
        with self._lock:
            h = self._handle()
            if epoch is None:
                return int(_lib.feed_loader_bad_count(h))
            return int(_lib.feed_loader_bad_count_epoch(h, int(epoch)))

    def bad_samples(self):
        """The bad samples met so far (deduplicated per epoch), oldest first:
        the most recent 1024 (bad_count() says how many there were in all;
        bad_log= writes every one to a file)."""
        with self._lock:
            h = self._handle()
            out = []
            n = _lib.feed_loader_bad_count(h)
            for i in range(max(0, n - _capi.BAD_KEEP), n):
                r = _capi.new_struct(_capi.FeedBadSample)
                if _lib.feed_loader_bad_sample(h, i, ctypes.byref(r)):
                    break
                out.append(BadSample(int(r.sample_id), int(r.epoch), int(r.batch), int(r.status),
                                     _lib.feed_status_name(r.status).decode(), int(r.sys_errno),
                                     r.path.decode(errors="surrogateescape"),
                                     r.message.decode(errors="replace")))
            return out


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
