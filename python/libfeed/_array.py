"""libfeed.Array: a zero-copy view of batch memory, host or device.

On the host it converts to numpy without a copy (__array_interface__,
numpy.asarray); on a GPU it exposes __cuda_array_interface__ (v3). Both
export DLPack (__dlpack__, __dlpack_device__) for torch.from_dlpack,
numpy.from_dlpack, cupy.from_dlpack and jax.dlpack.from_dlpack.

A DLPack export keeps the batch from being given back to libfeed until the
consumer's tensor is freed (the DLPack deleter), so a tensor made with
from_dlpack never sees its memory reused. So does a host array from
Array.numpy() (the default host output): its batch is given back when the
last view of it is freed. A plain numpy.asarray(array) is not tracked: it is
valid until the loader moves to the next batch. See Loader.

Every view (numpy array, capsule, tensor) keeps the C loader's memory mapped
while it lives: Loader.close() (or the end of `with`) destroys the loader
only once the last view is freed, so no view ever reads unmapped memory.
"""
import numpy as np

from . import _capi, _dlpack
from ._held import _HostPin

try:  # bfloat16 as a numpy dtype, if the small ml_dtypes package is there
    import ml_dtypes as _ml_dtypes

    _BF16 = np.dtype(_ml_dtypes.bfloat16)
except Exception:  # pragma: no cover - optional
    _BF16 = None

# libfeed dtype -> (name, numpy dtype of the raw bits, array-interface typestr,
#                   DLPack (type code, bits))
DTYPES = {
    _capi.DTYPE_UINT8: ("uint8", np.dtype(np.uint8), "|u1", (_dlpack.KDL_UINT, 8)),
    _capi.DTYPE_FLOAT32: ("float32", np.dtype(np.float32), "<f4", (_dlpack.KDL_FLOAT, 32)),
    _capi.DTYPE_FLOAT16: ("float16", np.dtype(np.float16), "<f2", (_dlpack.KDL_FLOAT, 16)),
    # numpy has no bfloat16: the host view holds the raw bits as uint16
    # (viewed as ml_dtypes.bfloat16 when that is installed); DLPack says bfloat16.
    _capi.DTYPE_BFLOAT16: ("bfloat16", np.dtype(np.uint16), "<u2", (_dlpack.KDL_BFLOAT, 16)),
}
INT32 = ("int32", np.dtype(np.int32), "<i4", (_dlpack.KDL_INT, 32))
INT64 = ("int64", np.dtype(np.int64), "<i8", (_dlpack.KDL_INT, 64))


def _stream_handle(stream):
    """A DLPack / CUDA Array Interface stream number -> cudaStream_t value.
    None and 1 are the legacy default stream (NULL; 0x1 is cudaStreamLegacy,
    also valid), 2 the per-thread default stream (cudaStreamPerThread = 0x2)."""
    if stream is None or stream == 1 or stream == 0:
        return None
    return int(stream)


class Array:
    """A C-contiguous array in libfeed batch memory (see module doc).

    Attributes: shape, dtype (numpy dtype of the elements; raw uint16 bits for
    bfloat16), dtype_name ("uint8", "float32", "float16", "bfloat16", "int32"),
    device ("cpu" or "cuda:N"), ptr (the address), nbytes.
    """

    __slots__ = ("ptr", "shape", "dtype", "dtype_name", "_typestr", "_dl", "_device_id",
                 "_owner", "_loader", "_stream", "__weakref__")

    def __init__(self, ptr, shape, kind, device_id, owner, stream=None):
        self.ptr = int(ptr or 0)
        self.shape = tuple(int(s) for s in shape)
        self.dtype_name, self.dtype, self._typestr, self._dl = kind
        self._device_id = int(device_id)  # -1: host
        self._owner = owner  # _Held: pins the batch while DLPack exports live
        self._loader = owner.loader  # keeps the loader (and its memory) alive
        self._stream = stream  # the consumer stream the batch was made to wait for

    # -- description ---------------------------------------------------------
    @property
    def device(self):
        return "cpu" if self._device_id < 0 else f"cuda:{self._device_id}"

    @property
    def is_cuda(self):
        return self._device_id >= 0

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return f"libfeed.Array(shape={self.shape}, dtype={self.dtype_name}, device={self.device})"

    # -- numpy (host only) ------------------------------------------------------
    @property
    def __array_interface__(self):
        if self._device_id >= 0:
            raise AttributeError("a CUDA libfeed.Array has no __array_interface__ (use DLPack)")
        self._owner.check_alive()
        return {"shape": self.shape, "typestr": self._typestr, "data": (self.ptr, False),
                "strides": None, "version": 3}

    def numpy(self, copy=False):
        """The host array as numpy (bfloat16 as ml_dtypes.bfloat16 if
        installed, else its uint16 bits): a view that keeps its batch from
        being given back while it (or any view of it) lives, as a tensor
        does, unless copy=True (a fresh array). numpy.asarray(array) is a
        plain view instead: valid until the loader moves to the next batch."""
        if self._device_id >= 0:
            raise TypeError("libfeed.Array on CUDA: use torch.from_dlpack / cupy.from_dlpack")
        a = np.asarray(self) if copy else np.asarray(_HostPin(self))
        if self.dtype_name == "bfloat16" and _BF16 is not None:
            a = a.view(_BF16)
        return a.copy() if copy else a

    # -- CUDA Array Interface v3 (device only) -------------------------------------
    @property
    def __cuda_array_interface__(self):
        if self._device_id < 0:
            raise AttributeError("a host libfeed.Array has no __cuda_array_interface__")
        self._owner.check_alive()
        # The batch was made ready on self._stream (feed_batch_wait at delivery):
        # a consumer on another stream synchronises with that one (CAI v3).
        s = self._stream
        return {"shape": self.shape, "typestr": self._typestr, "data": (self.ptr, False),
                "strides": None, "version": 3, "stream": 1 if not s else int(s)}

    # -- DLPack -----------------------------------------------------------------------
    def __dlpack_device__(self):
        if self._device_id < 0:
            return (_dlpack.KDL_CPU, 0)
        return (_dlpack.KDL_CUDA, self._device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Exports a DLPack capsule (zero-copy). For CUDA memory, `stream` is
        the consumer's stream (None or 1: legacy default, 2: per-thread
        default, -1: no synchronisation): it is made to wait for the batch.
        The batch stays with the caller until the consumer frees the tensor."""
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"libfeed.Array is on {self.device}; cannot export to {dl_device}")
        if copy:
            if self._device_id >= 0:
                raise BufferError("libfeed.Array: copy=True is not supported for CUDA memory")
            a = np.array(self.numpy(), copy=True)
            return a.__dlpack__(max_version=max_version) if max_version else a.__dlpack__()
        versioned = max_version is not None and tuple(max_version)[0] >= _dlpack.DLPACK_MAJOR
        owner = self._owner
        if self._device_id >= 0 and stream != -1:
            owner.wait(_stream_handle(stream))
        on_free = owner.pin(None if self._device_id < 0 or stream == -1 else _stream_handle(stream))
        try:
            code, bits = self._dl
            return _dlpack.make_capsule(
                self.ptr, self.shape, code, bits,
                _dlpack.KDL_CPU if self._device_id < 0 else _dlpack.KDL_CUDA,
                max(self._device_id, 0), on_free, versioned=versioned)
        except BaseException:
            on_free()
            raise
