"""What a Loader reports: its counters (stats()), the workers' per-sample
trace events, and the bad samples it met.
"""
import collections
import ctypes
import time

from . import _capi
from ._stats import Stats

_lib = _capi.lib


class BadSample(collections.namedtuple(
        "BadSample", "sample_id epoch batch status name errno path message")):
    """A bad-sample report (feed_bad_sample)."""


BadSample.__module__ = "libfeed.loader"  # where users import it from (and pickles find it)


class Reports:
    """The Loader's reports (a part of Loader: it uses the loader's _lock,
    _t_first, _handle() and _error())."""

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
