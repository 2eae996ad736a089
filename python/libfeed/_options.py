"""Loader keywords as libfeed options: each keyword checked against its
option's type and turned into the text feed_options_set() parses
(src/loader/options.c), in the order given; then the feed_options buffer.

Numbers are checked here, before anything starts, so that True is not taken
as 1 nor 2.5 as 2 and the error names the option; text is left to the C
parser. Options never go through the feed_options layout (see _capi.py).
"""
import ctypes
import math
import numbers
import operator
import os

import numpy as np

from . import _capi
from ._errors import Status, make_error

_lib = _capi.lib
ERRLEN = 4096

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
     "resize_shorter", "device_prefetch", "max_retries", "sample_timeout_ms", "readahead",
     "aa_num_ops", "aa_num_bins", "num_classes", "repeats", "shuffle_window", "fetch_retries",
     "fetch_timeout_ms", "fetch_parallel", "fetch_ahead"),
    _U32_MAX)
_INTEGERS.update(dict.fromkeys(("seed", "max_pixels", "max_file_bytes", "cache_size"), _U64_MAX))
_INTEGERS.update(dict.fromkeys(("rank", "world_size"), _U32_MAX - 1))  # or "auto"
_INTEGERS["max_worker_memory"] = _U64_MAX - 1  # or "auto" (stored as 2^64 - 1); 0 = no cap
_FLOATS = {"scale_min", "scale_max", "ratio_min", "ratio_max", "flip_p", "rotate_deg",
           "brightness", "contrast", "saturation", "hue", "grayscale_p", "max_bad_fraction",
           "aa_magnitude", "aa_mstd", "erase_p", "erase_scale_min", "erase_scale_max",
           "erase_ratio_min", "erase_ratio_max", "mixup_alpha", "cutmix_alpha", "mix_p",
           "mix_switch_p", "label_smoothing"}
_FLAGS = {"shuffle", "drop_last", "exif", "roi_decode", "sync", "report_bad", "scan_cache",
          "aa_inc", "erase_random", "multi_label", "allow_empty_classes"}
_TRIPLES = {"mean", "std", "erase_value"}
_COLOURS = {"fill", "aa_fill"}  # 0xRRGGBB, or (r, g, b)


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
    if key in _COLOURS:
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


def keyword_items(*, source, batch_size, shuffle, seed, workers, augment, size, dtype, layout,
                  device, rank, world_size, drop_last, prefetch, epochs, options, kwargs):
    """Loader's keywords as [(key, text)], in the order they are set: the
    named ones, then options= ("key=value,..." or a dict), then the rest."""
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
    return items


def options_buffer(items):
    """A feed_options buffer with libfeed's defaults and items set in order;
    FeedError (the C parser's message) for the first one it refuses."""
    opts = ctypes.create_string_buffer(_capi.OPTIONS_BUFFER_SIZE)
    if _lib.feed_options_init(opts, _capi.OPTIONS_BUFFER_SIZE) != 0:
        raise make_error(Status.E_INTERNAL, "feed_options_init failed")
    err = ctypes.create_string_buffer(ERRLEN)
    for k, v in items:
        st = _lib.feed_options_set(opts, k.encode(), os.fsencode(v), err, ERRLEN)
        if st:
            raise make_error(st, err.value.decode(errors="replace"))
    return opts
