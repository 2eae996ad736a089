"""What keeps libfeed's memory alive for the Python objects that view it.

_Native is the C loader (feed_loader *): destroyed when the last reference
goes. _Held is one C batch the Python side holds, with its pins (the
loader's current batch, each live DLPack export, each live host numpy array
or tensor through its _HostPin); the batch goes back to C
when the last pin goes (Loader._unpin). Every array, capsule and tensor made
from a batch holds its _Held, which holds the _Native: no view ever reads
unmapped memory, even after close().
"""
import ctypes
import functools
import sys
import weakref

from . import _capi

_lib = _capi.lib


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


class _HostPin:
    """A host batch's memory for numpy, holding one pin on the batch until it
    is freed: the base of the numpy arrays libfeed.Loader hands out (and of
    the tensors libfeed.torch makes with torch.from_numpy, which keeps the
    array for as long as the tensor's storage lives). A kept array so keeps
    its batch, as a kept tensor does: its values never change under it, and
    keeping more batches than the ring has slots makes next() raise
    FeedBusyError instead. In the usual loop the array is dropped when the
    loop's variable takes the next batch, and __del__ gives the pin back.

    Not DLPack on the host: a numpy view with this holder as its base gives
    the tensor, numpy.asarray of it and the batch one lifetime, and __del__
    runs from the interpreter's own deallocation, which keeps a pending
    exception aside. (CUDA tensors use DLPack, whose deleters are C: see
    _dlpack.py.)"""

    __slots__ = ("__array_interface__", "_done")

    def __init__(self, arr):
        self._done = None
        self.__array_interface__ = arr.__array_interface__
        self._done = arr._owner.pin(None)

    def __del__(self):
        done, self._done = self._done, None
        if done is not None and not sys.is_finalizing():
            done()
