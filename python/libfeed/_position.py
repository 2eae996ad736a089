"""A Loader's position in its stream of batches: where the next batch is,
seeking, set_epoch, and state_dict / load_state_dict to resume a run.
"""
import ctypes

from . import _capi
from ._errors import FeedBusyError, Status, make_error

_lib = _capi.lib


class Position:
    """The Loader's position and resume (a part of Loader: it uses the
    loader's _lock, _handle(), _error(), _drop_current(), _drain_pending(),
    _settle_undelivered(), _undelivered,
    _busy_message(), _option(), stats() and dataset_size)."""

    def position(self):
        """(epoch, batch) of the next batch the loader will deliver."""
        with self._lock:
            self._handle()
            self._settle_undelivered()
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
            self._handle()
            self._settle_undelivered()
            e, c = ctypes.c_uint64(), ctypes.c_uint64()
            st = _lib.feed_loader_position_samples(self._handle(), ctypes.byref(e), ctypes.byref(c))
            if st:
                raise self._error(st)
            return int(e.value), int(c.value)

    def _seek(self, epoch, batch, samples=False):
        with self._lock:
            h = self._handle()
            self._undelivered = None  # its held is the current batch, dropped here
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

    _ORDER_KEYS = ("seed", "batch_size", "shuffle", "drop_last", "rank", "world_size", "repeats",
                   "shuffle_window")
    # What a sample position cannot be carried across: the order itself (of
    # dataset_size * repeats positions).
    _SAME_ORDER_KEYS = ("seed", "shuffle", "dataset_size", "repeats", "shuffle_window")

    def state_dict(self):
        """The position to resume from, plus what must match to resume exactly.
        "consumed" (with "epoch") is the position in the epoch's order, valid at
        any world size and batch size; "batch" is the batch index in the epoch,
        valid at the same world size and batch size only."""
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

        A state with "consumed" resumes at that sample
        position of the epoch's order, with this loader's world size, rank,
        batch size and drop_last, which may differ from the saved run's: the
        rest of the epoch is split among the new ranks, nothing delivered twice
        or skipped within it but for the padding (see feed_loader_seek_samples).
        With the same world and batch size it is bitwise the saved run's next
        batches. Every rank of the new run may load any rank's state of the
        saved one (all ranks are at the same position when they train in step).
        strict: refuse a state whose order differs (seed, shuffle, dataset
        size, repeats, shuffle_window): FeedInvalidError naming them.

        A state without "consumed" resumes at (epoch, batch) and, with
        strict, needs the same seed, batch size, shuffle, shuffle_window, drop_last, ranks and
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
