"""Iterating a Loader: batches out of C and back.

A `for` over a Loader is an _EpochIterator: each step asks the C loader for
its next batch (feed_loader_next, in POLL_MS slices so that Ctrl-C is seen),
wraps it as a Batch of arrays viewing the ring slot, and gives the previous
batch back. A batch goes back to C when its last pin goes (_Held: the
loader's current batch, each live DLPack export), on the loader's own thread.
"""
import ctypes
import json
import threading
import time

import numpy as np

from . import _capi, _dlpack
from ._array import DTYPES, INT32, INT64, Array

_FLOAT32 = DTYPES[_capi.DTYPE_FLOAT32]
from ._errors import FeedBusyError, FeedTimeoutError, Status, make_error
from ._held import _Held

_lib = _capi.lib

# How long one feed_loader_next() call may block. Python runs signal handlers
# (Ctrl-C) only between C calls, so waits are cut into slices this long.
POLL_MS = 100

_EOE = object()
_EOD = object()


class Batch(tuple):
    """One batch: a 2-tuple (images, labels), so `for images, labels in
    loader` works, plus what libfeed knows about it:

    epoch, index    position of the batch (index within the epoch)
    sample_ids      numpy uint64: dataset index of each sample (after replacement)
    flags           numpy uint8: libfeed.SAMPLE_REPLACED | SAMPLE_FLIPPED per sample
    bad             samples replaced in this batch (bad_policy=replace)
    soft_labels     float32 count x num_classes, one row per sample, the targets
                    after label smoothing and MixUp/CutMix (a view like the
                    images: host numpy, or libfeed.Array on a device), or None
                    when neither is on. libfeed.torch and libfeed.keras give
                    them as the batch's labels (the second item) when present
    class_labels    the class index of each sample (what labels is without
                    soft labels; with MixUp, the sample's own class, not its
                    partner's; with multi_label, its first label)
    label_lists     multi_label=1: (offsets, labels), numpy uint32 count + 1 and
                    int32: sample i's labels are labels[offsets[i]:offsets[i + 1]]
                    (soft_labels holds them as multi-hot rows); else None
    targets         targets=: each sample's row of the targets array, count x K
                    float32 or int64 (a view like the images: host numpy, or
                    libfeed.Array on a device); else None
    meta            meta_members=: {member: [one value a sample]}, e.g.
                    meta["json"][i], the member's bytes as the shard holds them
                    (a replaced sample's are its substitute's), or str or parsed
                    JSON as meta_decode asks; else None
    """

    def __new__(cls, images, labels, epoch, index, sample_ids, flags, bad, soft_labels=None,
                class_labels=None, label_lists=None, targets=None, meta=None):
        self = super().__new__(cls, (images, labels))
        self.epoch, self.index, self.sample_ids, self.flags, self.bad = (
            epoch, index, sample_ids, flags, bad)
        self.soft_labels = soft_labels
        self.class_labels = labels if class_labels is None else class_labels
        self.label_lists = label_lists
        self.targets = targets
        self.meta = meta
        return self

    def replace(self, **changes):
        """A Batch with these fields changed (images=, labels=, soft_labels=, ...)."""
        now = {"images": self[0], "labels": self[1], "epoch": self.epoch, "index": self.index,
               "sample_ids": self.sample_ids, "flags": self.flags, "bad": self.bad,
               "soft_labels": self.soft_labels, "class_labels": self.class_labels,
               "label_lists": self.label_lists, "targets": self.targets, "meta": self.meta}
        unknown = set(changes) - set(now)
        if unknown:
            raise TypeError(f"Batch.replace: no field {sorted(unknown)}")
        now.update(changes)
        return Batch(**now)

    @property
    def images(self):
        return self[0]

    @property
    def labels(self):
        return self[1]

    def __repr__(self):
        return (f"libfeed.Batch(epoch={self.epoch}, index={self.index}, count={len(self[1])}, "
                f"images={getattr(self[0], 'shape', None)})")


Batch.__module__ = "libfeed.loader"  # where users import it from (and pickles find it)


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


class Iteration:
    """The Loader's iteration and batch hand-back (a part of Loader: it uses
    the loader's _h, _lock, _current, _made, _undelivered, _pending, _in_call, _owner_thread,
    _t_first, _timeout, _stream, _copy, _output, _handle() and _error())."""

    def __iter__(self):
        self._handle()
        if self._t_first is None:
            self._t_first = time.monotonic_ns()
        return _EpochIterator(self)

    def _fetch(self, skip_pending_eoe):
        """The next batch, or _EOE / _EOD."""
        cb = _capi.new_struct(_capi.FeedBatch)  # handle stays 0 until C delivers into it
        try:
            r = self._fetch_inner(skip_pending_eoe, cb)
        except KeyboardInterrupt:
            # Ctrl-C leaves the loader as any exception does. Python raises it
            # at the next bytecode, which may be after C delivered the batch:
            # keep that one for the next call, so it is neither lost nor
            # delivered twice.
            self._keep_undelivered(cb)
            raise
        finally:
            self._made = None
        return r

    def _keep_undelivered(self, cb):
        """Keeps what the interrupted _fetch_inner got from C, if anything."""
        with self._lock:
            made, self._made = self._made, None
            if self._h is None:
                return
            if made is not None:
                self._undelivered = made
            elif self._current is not None and self._current.cbatch is cb:
                self._undelivered = (self._current, None)
            elif cb.handle:  # out of C, not yet wrapped
                self._current = _Held(self, cb)
                self._undelivered = (self._current, None)

    def _settle_undelivered(self):
        """Gives back a batch kept by _keep_undelivered and moves the C
        loader back to it, so that its position is the caller's (self._lock
        held)."""
        kept, self._undelivered = self._undelivered, None
        if kept is None:
            return
        held = kept[0]
        e, b = int(held.cbatch.epoch), int(held.cbatch.index)
        if self._current is held:
            self._drop_current()
        self._drain_pending()
        st = _lib.feed_loader_seek(self._h, e, b)
        if st == Status.E_BUSY:
            raise FeedBusyError(st, None, self._busy_message())
        if st:
            raise self._error(st)

    def _deliver(self, held, batch=None):
        """held as a Batch; with copy=True its slot goes back at once."""
        if batch is None:
            batch = self._make_batch(held)
        self._made = (held, batch)  # from here on, a Ctrl-C keeps the Batch
        if self._copy and self._current is held:
            self._drop_current()
        return batch

    def _fetch_inner(self, skip_pending_eoe, cb):
        _dlpack.collect()  # tensors freed since (their deleters only queue)
        with self._lock:
            self._handle()
            self._owner_thread = threading.get_ident()
            if self._undelivered is not None:  # a Ctrl-C's: it comes first
                kept, self._undelivered = self._undelivered, None
                return self._deliver(*kept)
            self._drop_current()
            self._drain_pending()
        deadline = None if self._timeout is None else time.monotonic() + self._timeout
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
                    return self._deliver(held)
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
                "; a batch's numpy arrays (and views of them) and tensors (libfeed.torch, "
                "torch.from_dlpack) keep it until they are freed: drop them or copy what you "
                "keep (.copy(), .clone(), Loader(copy=True)), or raise prefetch")

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
        # Soft labels: from a library that has them (feed_batch since 0.2.0) and
        # only when label smoothing or mixing is on.
        soft_ptr = ctypes.cast(b.soft_labels, ctypes.c_void_p).value
        classes = int(b.num_classes)
        soft = None
        tg_ptr = ctypes.cast(b.targets, ctypes.c_void_p).value
        tg_shape = (n, int(b.target_dim))
        tg_kind = _FLOAT32 if b.target_dtype == _capi.TARGET_FLOAT32 else INT64
        tg = None
        if b.device < 0:
            arr = Array(b.data, shape, kind, -1, held)
            if soft_ptr and classes:
                soft = Array(soft_ptr, (n, classes), _FLOAT32, -1, held)
            if tg_ptr and b.target_dim:
                tg = Array(tg_ptr, tg_shape, tg_kind, -1, held)
            if self._copy:
                images = arr.numpy(copy=True)  # _deliver gives the slot back
                soft = None if soft is None else soft.numpy(copy=True)
                tg = None if tg is None else tg.numpy(copy=True)
            elif self._output == "array":
                images = arr
            else:
                images = arr.numpy()
                soft = None if soft is None else soft.numpy()
                tg = None if tg is None else tg.numpy()
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
            if b.soft_labels_device and classes:
                soft = Array(b.soft_labels_device, (n, classes), _FLOAT32, b.device, held,
                             self._stream)
            elif soft_ptr and classes:  # host soft labels of a device batch: a copy, as labels
                soft = Array(soft_ptr, (n, classes), _FLOAT32, -1, held).numpy(copy=True)
            if b.targets_device and b.target_dim:
                tg = Array(b.targets_device, tg_shape, tg_kind, b.device, held, self._stream)
            elif tg_ptr and b.target_dim:
                tg = Array(tg_ptr, tg_shape, tg_kind, -1, held).numpy(copy=True)
        lists = None
        if ctypes.cast(b.label_offsets, ctypes.c_void_p).value:  # multi_label=1: copies, small
            offsets = np.ctypeslib.as_array(b.label_offsets, (n + 1,)).copy()
            lists = (offsets, np.ctypeslib.as_array(b.label_list, (max(int(offsets[-1]), 1),))
                     [:int(offsets[-1])].copy())
        meta = self._meta_values(b, ids) if b.meta_members and b.meta else None
        return Batch(images, labels, int(b.epoch), int(b.index), ids, flags, int(b.bad),
                     soft_labels=soft, label_lists=lists, targets=tg, meta=meta)

    def _meta_values(self, b, ids):
        """The batch's metadata members, copied out of its memory and decoded
        as meta_decode asks: {member: [value of sample 0, 1, ...]}."""
        n, m = int(b.count), int(b.meta_members)
        offs = np.ctypeslib.as_array(b.meta_offsets, (n * m,))
        lens = np.ctypeslib.as_array(b.meta_lengths, (n * m,))
        base = b.meta
        out = {}
        for j, ext in enumerate(self._meta_exts[:m]):
            how = self._meta_decode.get(ext, "bytes")
            vals = []
            for i in range(n):
                raw = ctypes.string_at(base + int(offs[i * m + j]), int(lens[i * m + j]))
                if how == "bytes":
                    vals.append(raw)
                    continue
                try:
                    text = raw.decode()
                    vals.append(json.loads(text) if how == "json" else text)
                except ValueError as e:  # UnicodeDecodeError and JSONDecodeError both are
                    raise ValueError(f"libfeed: the .{ext} member of {self.samples[int(ids[i])][0]} is not "
                                     f"{'JSON' if how == 'json' else 'UTF-8 text'} (meta_decode): {e}") from None
            out[ext] = vals
        return out

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
