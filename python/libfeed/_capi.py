"""ctypes declarations of include/feed.h, and finding libfeed.so.

Everything the binding knows about the C library is in this file: the
function prototypes, the structs (mirrored field by field from the header),
the version it was written for, and where to look for the shared library.

Options never go through the feed_options layout: they are set as text with
feed_options_set(), into a buffer much larger than the struct, so a newer
library with a longer feed_options still works. The FeedOptions mirror below
is used only to read a few values back (state_dict); tests check its size
against the size feed_options_init() reports.
"""
import ctypes
import ctypes.util
import glob
import os
import sys

# The C library version this binding was written for (FEED_VERSION_NUMBER of
# include/feed.h). Same major (and, while major is 0, same minor) is required.
VERSION_MAJOR = 0
VERSION_MINOR = 2
VERSION_PATCH = 0
VERSION_NUMBER = VERSION_MAJOR * 10000 + VERSION_MINOR * 100 + VERSION_PATCH

FEED_PATH_MAX = 4096
# Bad-sample reports the library keeps (FEED_BAD_KEEP): the most recent ones.
BAD_KEEP = 1024

# Buffers handed to C are this much larger than our mirrors, so a library
# whose structs grew (same major version) never writes past them.
_SLACK = 4096
# feed_options is ~12 KiB today; 64 KiB leaves room for any growth.
OPTIONS_BUFFER_SIZE = 65536

DTYPE_UINT8, DTYPE_FLOAT32, DTYPE_FLOAT16, DTYPE_BFLOAT16 = 0, 1, 2, 3
LAYOUT_HWC, LAYOUT_CHW = 0, 1
SAMPLE_REPLACED, SAMPLE_FLIPPED = 1, 2

u32, u64, i32, f32 = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int32, ctypes.c_float


class FeedOptions(ctypes.Structure):
    """Mirror of feed_options (include/feed.h), field by field."""

    _fields_ = [
        ("struct_size", u32),
        ("version", u32),
        ("source", ctypes.c_char * FEED_PATH_MAX),
        ("file_list", ctypes.c_char * FEED_PATH_MAX),
        ("batch_size", u32),
        ("shuffle", u32),
        ("drop_last", u32),
        ("seed", u64),
        ("epochs", u32),
        ("start_epoch", u32),
        ("rank", u32),
        ("world_size", u32),
        ("workers", u32),
        ("prefetch", u32),
        ("height", u32),
        ("width", u32),
        ("augment", u32),
        ("resize_shorter", u32),
        ("scale_min", f32),
        ("scale_max", f32),
        ("ratio_min", f32),
        ("ratio_max", f32),
        ("flip_p", f32),
        ("rotate_deg", f32),
        ("fill", u32),
        ("brightness", f32),
        ("contrast", f32),
        ("saturation", f32),
        ("hue", f32),
        ("grayscale_p", f32),
        ("exif", u32),
        ("roi_decode", u32),
        ("dtype", u32),
        ("layout", u32),
        ("mean", f32 * 3),
        ("std", f32 * 3),
        ("device", ctypes.c_char * 32),
        ("device_prefetch", u32),
        ("sync", u32),
        ("bad_policy", u32),
        ("max_retries", u32),
        ("sample_timeout_ms", u32),
        ("max_pixels", u64),
        ("max_file_bytes", u64),
        ("reader", u32),
        ("worker_path", ctypes.c_char * FEED_PATH_MAX),
        ("readahead", u32),
        ("max_bad_fraction", f32),
        ("report_bad", u32),
        ("bad_log", ctypes.c_char * FEED_PATH_MAX),
        ("sandbox", u32),
        ("pad_sandbox", u32),
        ("max_worker_memory", u64),
        # since 0.2.0
        ("labels", ctypes.c_char * FEED_PATH_MAX),
        ("scan_cache", u32),
        ("pad_scan_cache", u32),
        ("scan_cache_path", ctypes.c_char * FEED_PATH_MAX),
        ("jpeg_entropy", u32),
        ("pad_jpeg_entropy", u32),
        # since 0.2.0: training recipes
        ("interpolation", u32),
        ("auto_augment", u32),
        ("aa_num_ops", u32),
        ("aa_num_bins", u32),
        ("aa_magnitude", f32),
        ("aa_mstd", f32),
        ("aa_inc", u32),
        ("aa_interpolation", u32),
        ("aa_fill", u32),
        ("erase_p", f32),
        ("erase_scale_min", f32),
        ("erase_scale_max", f32),
        ("erase_ratio_min", f32),
        ("erase_ratio_max", f32),
        ("erase_value", f32 * 3),
        ("erase_random", u32),
        ("mixup_alpha", f32),
        ("cutmix_alpha", f32),
        ("mix_p", f32),
        ("mix_switch_p", f32),
        ("mix_mode", u32),
        ("label_smoothing", f32),
        ("num_classes", u32),
        ("repeats", u32),
        ("multi_label", u32),
        ("allow_empty_classes", u32),
        ("targets", ctypes.c_char * FEED_PATH_MAX),
        ("target_columns", ctypes.c_char * 1024),
        ("target_member", ctypes.c_char * 64),
        ("meta_members", ctypes.c_char * 128),
        ("meta_max_bytes", u32),
        ("meta_missing", u32),
        # since 0.2.0: remote shards
        ("cache_dir", ctypes.c_char * FEED_PATH_MAX),
        ("cache_size", u64),
        ("fetch_retries", u32),
        ("fetch_timeout_ms", u32),
        ("fetch_parallel", u32),
        ("fetch_ahead", u32),
        ("shuffle_window", u32),
        ("fetch_ranges", u32),
    ]


# feed_batch.target_dtype
TARGET_NONE, TARGET_FLOAT32, TARGET_INT64 = 0, 1, 2


class FeedBatch(ctypes.Structure):
    """Mirror of feed_batch."""

    _fields_ = [
        ("struct_size", u32),
        ("count", u32),
        ("epoch", u64),
        ("index", u64),
        ("height", u32),
        ("width", u32),
        ("channels", u32),
        ("dtype", u32),
        ("layout", u32),
        ("device", i32),
        ("data", ctypes.c_void_p),
        ("sample_bytes", u64),
        ("labels", ctypes.POINTER(i32)),
        ("labels_device", ctypes.c_void_p),
        ("sample_ids", ctypes.POINTER(u64)),
        ("flags", ctypes.POINTER(ctypes.c_uint8)),
        ("bad", u32),
        ("reserved0", u32),
        ("ready_event", ctypes.c_void_p),
        ("handle", u64),
        ("soft_labels", ctypes.POINTER(ctypes.c_float)),
        ("soft_labels_device", ctypes.c_void_p),
        ("num_classes", u32),
        ("reserved1", u32),
        ("label_offsets", ctypes.POINTER(u32)),
        ("label_list", ctypes.POINTER(i32)),
        ("targets", ctypes.c_void_p),
        ("targets_device", ctypes.c_void_p),
        ("target_dim", u32),
        ("target_dtype", u32),
        ("meta", ctypes.c_void_p),
        ("meta_offsets", ctypes.POINTER(u64)),
        ("meta_lengths", ctypes.POINTER(u32)),
        ("meta_members", u32),
        ("reserved2", u32),
    ]


class FeedBadSample(ctypes.Structure):
    """Mirror of feed_bad_sample."""

    _fields_ = [
        ("struct_size", u32),
        ("reserved0", u32),
        ("sample_id", u64),
        ("epoch", u64),
        ("batch", u64),
        ("status", i32),
        ("sys_errno", i32),
        ("path", ctypes.c_char * FEED_PATH_MAX),
        ("message", ctypes.c_char * 256),
    ]


class FeedTraceEvent(ctypes.Structure):
    """Mirror of feed_trace_event."""

    _fields_ = [
        ("start_ns", u64),
        ("sample_id", u64),
        ("epoch", u64),
        ("batch", u64),
        ("wait_ns", u32),
        ("read_ns", u32),
        ("decode_ns", u32),
        ("augment_ns", u32),
        ("convert_ns", u32),
        ("worker", u32),
        ("flags", u32),
        ("reserved", u32),
    ]


class FeedStats(ctypes.Structure):
    """Mirror of feed_stats."""

    _fields_ = [
        ("struct_size", u32),
        ("workers", u32),
        ("batches_delivered", u64),
        ("samples_delivered", u64),
        ("samples_bad", u64),
        ("worker_restarts", u64),
        ("worker_hangs", u64),
        ("samples_redone", u64),
        ("read_ns", u64),
        ("decode_ns", u64),
        ("augment_ns", u64),
        ("convert_ns", u64),
        ("read_bytes", u64),
        ("next_wait_ns", u64),
        ("copy_ns", u64),
        ("h2d_bytes", u64),
        ("ring_slots", u32),
        ("ring_ready", u32),
        ("backend", ctypes.c_char * 16),
        ("reader", ctypes.c_char * 16),
        ("pinned", ctypes.c_char * 16),
        ("rank", u32),
        ("world_size", u32),
        ("launcher", ctypes.c_char * 16),
        ("readahead_files", u64),
        ("readahead", ctypes.c_char * 16),
        # since 0.2.0
        ("jpeg_entropy", ctypes.c_char * 16),
        ("jpeg_entropy_reason", ctypes.c_char * 32),
    ]


def new_struct(cls, set_size=None):
    """An instance of a mirror struct backed by a buffer _SLACK bytes larger
    than the mirror; struct_size (if the struct has one) set to set_size or
    to the buffer's size."""
    size = ctypes.sizeof(cls) + _SLACK
    buf = ctypes.create_string_buffer(size)
    obj = cls.from_buffer(buf)
    obj._buf = buf  # keep the storage alive with the view
    if "struct_size" in dict(cls._fields_):
        obj.struct_size = set_size if set_size is not None else size
    return obj


class LibraryNotFound(ImportError):
    pass


def _is_sanitized(path):
    """A sanitizer build cannot be loaded into an ordinary Python (ASan aborts
    the process, uncatchably): recognise one from its dynamic dependencies."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    return any(s in data for s in (b"libasan.so", b"libtsan.so", b"__asan_init", b"__tsan_init"))


# dlopen() names for the system's copy (soname = major version), which the
# dynamic loader looks up in LD_LIBRARY_PATH, /etc/ld.so.cache and /usr/lib.
SYSTEM_NAMES = (f"libfeed.so.{VERSION_MAJOR}", "libfeed.so")


def _places():
    """Every place looked at, in order: (path or name to load, or None where
    nothing was there; what the place is; a note when nothing was there)."""
    out = []
    env = os.environ.get("LIBFEED_LIBRARY")
    if env:
        if os.path.isdir(env):
            env = os.path.join(env, "libfeed.so")
        out.append((env, "$LIBFEED_LIBRARY=" + env, None))
        return out  # an explicit choice is not second-guessed
    out.append((None, "$LIBFEED_LIBRARY", "not set"))
    here = os.path.dirname(os.path.abspath(__file__))
    # The copy `pip install .` builds into the package (libfeed/_lib). The
    # package's search path, not only this file's folder: an editable install
    # (pip install -e .) runs these files from the checkout while the built
    # library is in site-packages/libfeed/_lib.
    pkg = sys.modules.get(__package__ or "libfeed")
    dirs = [here] + [os.path.abspath(d) for d in getattr(pkg, "__path__", ())
                     if os.path.abspath(d) != here]
    bundle = []
    for d in dirs:
        bundle += sorted(glob.glob(os.path.join(d, "_lib", "libfeed.so*")))
    for p in bundle:
        out.append((p, f"{p} (package data)", None))
    if not bundle:
        out.append((None, os.path.join(here, "_lib", "libfeed.so") +
                    " (built into the package by `pip install .`)", "none"))
    # The build tree: python/libfeed -> python -> repository root -> build*/lib.
    d = here
    for _ in range(4):
        d = os.path.dirname(d)
        pattern = os.path.join(d, "build*", "lib", "libfeed.so")
        found = glob.glob(pattern)
        # build/ first (what scripts/test builds), then the newest other build.
        found.sort(key=lambda p: (os.path.basename(os.path.dirname(os.path.dirname(p))) != "build",
                                  -os.path.getmtime(p)))
        usable = [p for p in found if not _is_sanitized(p)]
        for p in usable:
            out.append((p, f"{p} (build tree)", None))
        if not usable:
            note = "none" if not found else "only sanitizer builds: " + ", ".join(found)
            out.append((None, pattern, note))
    name = ctypes.util.find_library("feed")
    if name:
        out.append((name, f"{name} (system, ctypes.util.find_library('feed'))", None))
    else:
        out.append((None, "ctypes.util.find_library('feed') (ldconfig cache, LD_LIBRARY_PATH)",
                    "not found"))
    ld_path = os.environ.get("LD_LIBRARY_PATH")
    where = f"LD_LIBRARY_PATH={ld_path}" if ld_path else "LD_LIBRARY_PATH not set"
    for n in SYSTEM_NAMES:
        if n != name:
            out.append((n, f"{n} (the dynamic loader's search: {where}, ld.so.cache, /usr/lib)",
                        None))
    return out


def candidates():
    """Where to look for libfeed.so, in order: (path, how it was found)."""
    return [(path, how) for path, how, _ in _places() if path is not None]


def load():
    """Loads the first libfeed that exists and opens; returns (CDLL, path)."""
    tried = []
    places = _places()
    for path, how, note in places:
        if path is None:
            tried.append(f"{how}: {note}")
            continue
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{how}: does not exist")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{how}: {e}")
    if os.environ.get("LIBFEED_LIBRARY"):
        tried.append("(LIBFEED_LIBRARY is set, so nothing else was tried)")
    raise LibraryNotFound(
        "libfeed: cannot load libfeed.so, the C library this package binds. Tried, in order:\n  " +
        "\n  ".join(tried) + "\n"
        "Fix: install the package from libfeed's source tree with `pip install .` (it builds "
        "libfeed.so and feed-worker into the package), or build it (cmake -S . -B build && "
        "cmake --build build) and set LIBFEED_LIBRARY=/path/to/libfeed.so (build/lib/libfeed.so; "
        "FEED_WORKER=/path/to/build/bin/feed-worker if the worker is not found)")


def declare(lib):
    """Sets argtypes/restype of every function the binding calls."""
    vp, cp, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t

    def fn(name, restype, *argtypes):
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = list(argtypes)

    fn("feed_version", u32)
    fn("feed_version_string", cp)
    fn("feed_strerror", cp, ctypes.c_int)
    fn("feed_status_name", cp, ctypes.c_int)
    fn("feed_options_init", ctypes.c_int, vp, sz)
    fn("feed_options_set", ctypes.c_int, vp, cp, cp, cp, sz)
    fn("feed_options_parse", ctypes.c_int, vp, cp, cp, sz)
    fn("feed_loader_create", ctypes.c_int, ctypes.POINTER(vp), vp, cp, sz)
    fn("feed_loader_destroy", None, vp)
    fn("feed_loader_next", ctypes.c_int, vp, vp, ctypes.c_int64)
    fn("feed_batch_release", ctypes.c_int, vp, vp, vp)
    fn("feed_batch_wait", ctypes.c_int, vp, vp, vp)
    fn("feed_loader_samples_per_epoch", u64, vp)
    fn("feed_loader_batches_per_epoch", u64, vp)
    fn("feed_loader_num_classes", u32, vp)
    fn("feed_loader_class_name", cp, vp, u32)
    fn("feed_loader_skipped_files", u64, vp, ctypes.POINTER(cp))
    fn("feed_loader_shard_problems", u64, vp, ctypes.POINTER(cp))
    fn("feed_loader_num_samples", u64, vp)
    fn("feed_loader_sample_info", ctypes.c_int, vp, u64, cp, sz, ctypes.POINTER(ctypes.c_int32))
    fn("feed_loader_sample_range", ctypes.c_int, vp, u64, cp, sz, ctypes.POINTER(u64), ctypes.POINTER(u64))
    fn("feed_loader_position", ctypes.c_int, vp, ctypes.POINTER(u64), ctypes.POINTER(u64))
    fn("feed_loader_seek", ctypes.c_int, vp, u64, u64)
    fn("feed_loader_position_samples", ctypes.c_int, vp, ctypes.POINTER(u64), ctypes.POINTER(u64))
    fn("feed_loader_seek_samples", ctypes.c_int, vp, u64, u64)
    fn("feed_loader_dataset_size", u64, vp)
    fn("feed_loader_last_error", cp, vp)
    fn("feed_loader_bad_count", u64, vp)
    fn("feed_loader_bad_count_epoch", u64, vp, u64)
    fn("feed_loader_bad_sample", ctypes.c_int, vp, u64, vp)
    fn("feed_loader_stats", ctypes.c_int, vp, vp)
    fn("feed_loader_trace_read", u64, vp, vp, u64, ctypes.POINTER(u64))
    fn("feed_dlpack_ctx_new", vp, u64)
    fn("feed_dlpack_ctx_free", None, vp)
    fn("feed_dlpack_collect", sz, ctypes.POINTER(u64), sz)
    fn("feed_dlpack_set_notify", None, vp, vp)
    fn("feed_dlpack_set_capsule_api", None, vp, vp)
    return lib


def check_version(lib, path):
    v = lib.feed_version()
    major, minor = v // 10000, v // 100 % 100
    if major != VERSION_MAJOR or (VERSION_MAJOR == 0 and minor != VERSION_MINOR):
        raise ImportError(
            f"libfeed: {path} is version {lib.feed_version_string().decode()} but this binding was "
            f"written for {VERSION_MAJOR}.{VERSION_MINOR}.x; use the matching Python package "
            "(or set LIBFEED_LIBRARY to a matching build)")
    return v


lib, library_path = load()
declare(lib)
version = check_version(lib, library_path)


def options_struct_size():
    """sizeof(feed_options) as the loaded library knows it: feed_options_init
    writes struct_size = min(given, its own sizeof)."""
    buf = ctypes.create_string_buffer(OPTIONS_BUFFER_SIZE)
    st = lib.feed_options_init(buf, OPTIONS_BUFFER_SIZE)
    if st != 0:
        raise ImportError(f"libfeed: feed_options_init failed with status {st}")
    return ctypes.c_uint32.from_buffer(buf).value


# If the mirror disagrees with the library, never read fields through it.
options_mirror_ok = options_struct_size() == ctypes.sizeof(FeedOptions)
