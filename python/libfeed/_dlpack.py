"""DLPack capsules built with ctypes (no compiler).

make_capsule() wraps a pointer, shape and dtype in a DLManagedTensor (legacy,
capsule name "dltensor") or DLManagedTensorVersioned (DLPack 1.0, capsule name
"dltensor_versioned"). The consumer (torch.from_dlpack, numpy.from_dlpack,
cupy, jax) calls the deleter when it no longer needs the memory; an unconsumed
capsule calls it when it is garbage-collected. Then on_free() is called,
which libfeed uses to give the batch back.

The deleter and the capsule destructor are libfeed.so's (feed_dlpack_*), not
Python: a consumer calls them from C on any thread, and also while an
exception is being raised (torch, when list() fails half-way through tensors
it collected), when a ctypes callback would lose that exception. They only
queue the tensor's key and ask, through Py_AddPendingCall, for collect() to
run at the main thread's next bytecode boundary; every loader call collects
too (a main thread blocked in C collects once it returns).

The structs follow dlpack.h (https://github.com/dmlc/dlpack), ABI v1.0.
"""
import atexit
import ctypes
import sys
import threading

from . import _capi

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST = 1, 2, 3
KDL_INT, KDL_UINT, KDL_FLOAT, KDL_BFLOAT = 0, 1, 2, 4
DLPACK_MAJOR, DLPACK_MINOR = 1, 0
FLAG_READ_ONLY = 1


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", _Deleter),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# Capsule names must outlive every capsule: module-level buffers.
_NAME = ctypes.create_string_buffer(b"dltensor")
_NAME_V = ctypes.create_string_buffer(b"dltensor_versioned")

# Our own handle on the C API (not ctypes.pythonapi, whose shared function
# objects other libraries may give other argtypes).
_api = ctypes.PyDLL(None)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
# Raw pointers only (libfeed.so's capsule destructor calls these with a
# capsule being freed; tests read capsules with them).
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

_lib = _capi.lib
_addr = ctypes.c_void_p


def _fn_addr(f):
    return ctypes.cast(f, _addr).value


_DELETER = _Deleter(_fn_addr(_lib.feed_dlpack_deleter))
_DELETER_V = _Deleter(_fn_addr(_lib.feed_dlpack_deleter_versioned))
_DESTRUCTOR_ADDR = _fn_addr(_lib.feed_dlpack_capsule_destructor)

# Live managed tensors: key (the struct's address) -> (struct, shape array,
# on_free). Holding the struct here keeps its memory valid until the
# deleter has run and collect() has seen it. Reentrant: collect() may run as
# a pending call while the main thread is inside a `with _live_lock`.
_live = {}
_live_lock = threading.RLock()


def collect():
    """Calls on_free() of every tensor whose deleter ran since the last
    collect (on the calling thread). Safe to call at any time."""
    keys = (ctypes.c_uint64 * 64)()
    while True:
        n = _lib.feed_dlpack_collect(keys, 64)
        for i in range(n):
            with _live_lock:
                entry = _live.pop(keys[i], None)
            if entry is not None and entry[2] is not None and not sys.is_finalizing():
                try:
                    entry[2]()
                except Exception:  # a pending call must not raise into unrelated code
                    pass
        if n < 64:
            return


_Pending = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


@_Pending
def _collect_pending(arg):
    # Py_AddPendingCall runs this on the main thread at a bytecode boundary,
    # with no exception pending: a ctypes callback may run here.
    try:
        collect()
    except Exception:
        pass
    return 0


def _no_notify():
    # At exit: after this, deleters only queue (no pending call into an
    # interpreter that is going away).
    _lib.feed_dlpack_set_notify(None, None)


# The callback must exist for as long as a deleter may schedule it: never freed.
_api.Py_IncRef.argtypes = [ctypes.py_object]
_api.Py_IncRef(_collect_pending)
_lib.feed_dlpack_set_capsule_api(_fn_addr(_api.PyCapsule_IsValid), _fn_addr(_api.PyCapsule_GetPointer))
_lib.feed_dlpack_set_notify(_fn_addr(_api.Py_AddPendingCall), _fn_addr(_collect_pending))
atexit.register(_no_notify)


def live_count():
    """Managed tensors not yet deleted (for tests)."""
    collect()
    with _live_lock:
        return len(_live)


def make_capsule(ptr, shape, type_code, bits, device_type, device_id, on_free, versioned=False,
                 read_only=False):
    """A PyCapsule holding a DLPack tensor of C-contiguous `shape` at ptr.
    on_free() is called exactly once, when the consumer (or the unconsumed
    capsule) lets go."""
    ndim = len(shape)
    shape_arr = (ctypes.c_int64 * max(ndim, 1))(*shape)
    if versioned:
        m = DLManagedTensorVersioned()
        m.version.major, m.version.minor = DLPACK_MAJOR, DLPACK_MINOR
        m.flags = FLAG_READ_ONLY if read_only else 0
    else:
        m = DLManagedTensor()
    t = m.dl_tensor
    t.data = ptr
    t.device.device_type = device_type
    t.device.device_id = device_id
    t.ndim = ndim
    t.dtype.code, t.dtype.bits, t.dtype.lanes = type_code, bits, 1
    t.shape = shape_arr
    t.strides = None  # compact row-major
    t.byte_offset = 0
    addr = ctypes.addressof(m)
    ctx = _lib.feed_dlpack_ctx_new(addr)
    if not ctx:
        raise MemoryError("libfeed: out of memory for a DLPack export")
    m.manager_ctx = ctx
    m.deleter = _DELETER_V if versioned else _DELETER
    with _live_lock:
        _live[addr] = (m, shape_arr, on_free)
    try:
        return _api.PyCapsule_New(addr, ctypes.addressof(_NAME_V if versioned else _NAME),
                                  _DESTRUCTOR_ADDR)
    except BaseException:
        with _live_lock:
            _live.pop(addr, None)
        _lib.feed_dlpack_ctx_free(ctx)
        raise
