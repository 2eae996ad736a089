"""DLPack capsules built with ctypes (no compiler).

make_capsule() wraps a pointer, shape and dtype in a DLManagedTensor (legacy,
capsule name "dltensor") or DLManagedTensorVersioned (DLPack 1.0, capsule name
"dltensor_versioned"). The consumer (torch.from_dlpack, numpy.from_dlpack,
cupy, jax) calls the deleter when it no longer needs the memory; an unconsumed
capsule calls it when it is garbage-collected. The deleter calls on_free(),
which libfeed uses to give the batch back.

The structs follow dlpack.h (https://github.com/dmlc/dlpack), ABI v1.0.
"""
import ctypes
import sys
import threading

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
# Called from the capsule destructor with a capsule being freed: raw
# pointers only, never a py_object (that would touch its reference count).
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

# Live managed tensors: address -> (struct, shape array, on_free). Holding the
# struct here keeps its memory valid until the deleter runs.
_live = {}
_live_lock = threading.Lock()


def _delete(addr):
    with _live_lock:
        entry = _live.pop(addr, None)
    if entry is not None and entry[2] is not None and not sys.is_finalizing():
        entry[2]()


@_Deleter
def _deleter(addr):
    try:
        _delete(addr)
    except Exception:  # never let an exception cross into C
        pass


_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_CapsuleDestructor
def _capsule_destructor(cap):
    # Still named "dltensor[_versioned]": nobody consumed it, so we own it.
    try:
        for name in (_NAME, _NAME_V):
            if _api.PyCapsule_IsValid(cap, ctypes.addressof(name)):
                _delete(_api.PyCapsule_GetPointer(cap, ctypes.addressof(name)))
                return
    except Exception:
        pass


# The callbacks must exist for as long as any capsule or tensor might call
# them, including during interpreter shutdown: never free them.
_api.Py_IncRef.argtypes = [ctypes.py_object]
_api.Py_IncRef(_deleter)
_api.Py_IncRef(_capsule_destructor)
_DESTRUCTOR_ADDR = ctypes.cast(_capsule_destructor, ctypes.c_void_p).value


def live_count():
    """Managed tensors not yet deleted (for tests)."""
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
    m.manager_ctx = None
    m.deleter = _deleter
    addr = ctypes.addressof(m)
    with _live_lock:
        _live[addr] = (m, shape_arr, on_free)
    try:
        return _api.PyCapsule_New(addr, ctypes.addressof(_NAME_V if versioned else _NAME),
                                  _DESTRUCTOR_ADDR)
    except BaseException:
        with _live_lock:
            _live.pop(addr, None)
        raise
