"""libfeed.Stats: what loader.stats() returns.

A dict (feed_stats field by field, so st["samples_delivered"]
works) that also reads as attributes and adds the three numbers a
training loop wants at a glance, computed from the counters and the time since
the first batch was asked for:

    images_per_sec   samples delivered / seconds since the first batch was asked for
    busy_fraction    share of that time the consumer spent outside next():
                     1.0 = the loop never waited for data
    bad_samples      bad samples met so far (samples_bad)

print(loader.stats()) gives them on one line, then the rest.
"""

_NS = 1e-9


class Stats(dict):
    """feed_stats as a dict, plus images_per_sec, busy_fraction, bad_samples
    and elapsed_s; keys read as attributes too (stats.busy_fraction)."""

    def __init__(self, fields, elapsed_ns):
        super().__init__(fields)
        elapsed = max(int(elapsed_ns or 0), 0)
        self["elapsed_s"] = elapsed * _NS
        self["images_per_sec"] = self["samples_delivered"] / (elapsed * _NS) if elapsed else 0.0
        # next_wait_ns counts only the consumer's waits, which all fall in
        # the window (it starts when the first batch is asked for).
        wait = min(self["next_wait_ns"], elapsed)
        self["busy_fraction"] = 1.0 - wait / elapsed if elapsed else 0.0
        self["bad_samples"] = self["samples_bad"]

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"libfeed.Stats has no {name!r}") from None

    def summary(self):
        """One line: rate, busy fraction, bad samples, workers, backend."""
        return (f"{self['samples_delivered']} images in {self['batches_delivered']} batches, "
                f"{self['elapsed_s']:.2f} s: {self['images_per_sec']:.1f} images/s, "
                f"consumer busy {100 * self['busy_fraction']:.1f}%, "
                f"bad samples {self['bad_samples']}, workers {self['workers']} "
                f"(restarts {self['worker_restarts']}), backend {self['backend']}, "
                f"reader {self['reader']}, ring {self['ring_ready']}/{self['ring_slots']} ready")

    def __str__(self):
        head = ("images_per_sec", "busy_fraction", "bad_samples", "elapsed_s")
        rest = "\n".join(f"  {k:<18} {v:.4g}" if isinstance(v, float) else f"  {k:<18} {v}"
                         for k, v in self.items() if k not in head)
        return f"libfeed.Stats: {self.summary()}\n{rest}"

    def __repr__(self):
        return f"libfeed.Stats({self.summary()})"
