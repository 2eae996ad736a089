#!/usr/bin/env python3
"""keep_cost.py - what a numpy batch that keeps its ring slot costs the usual loop.

libfeed.Loader's host images are numpy views of the ring slot whose base
holds a pin on the batch (libfeed._held._HostPin), so a kept array never
changes and the slot goes back when the last view is freed. The plain view
(numpy.asarray of a libfeed.Array, output="array") holds nothing: valid
until the next batch. This runs the usual loop

    for images, labels in loader:
        images.sum()          # the step: reads every byte

over the same data with each, in turn within each round (the order rotating,
so drift in the machine's load hits each alike), and prints images/s per
mode (medians over the rounds) and pinned / plain. It also times making one
batch's numpy view and giving it back, alone, on a batch held for it (a
microbenchmark: the per-batch cost itself, without the workers' noise).

  python3 bench/keep_cost.py --batches 200 --rounds 11 \\
      --json bench/results/vm-2vcpu/keep_cost.json

(--data DIR: an ImageFolder; default 512 images feed-mkdata makes, seed 3.)
"""
import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
from benchcommon import cpu_model, loadavg, write_json  # noqa: E402

import numpy as np  # noqa: E402

import libfeed  # noqa: E402
from libfeed._held import _HostPin  # noqa: E402

MODES = ("pinned", "plain")


def loader(args, mode):
    kw = dict(batch_size=args.batch, size=args.size, workers=args.workers, prefetch=args.prefetch,
              augment="val", shuffle=True, seed=1)
    if mode == "plain":
        kw["output"] = "array"
    return libfeed.Loader(args.data, **kw)


def loop(args, mode):
    with loader(args, mode) as L:
        it = iter(L)
        for _ in range(args.warmup):
            next(it)
        n = 0
        t0 = time.perf_counter()
        while n < args.batches:
            try:
                b = next(it)
            except StopIteration:
                it = iter(L)
                continue
            images = b[0] if mode == "pinned" else np.asarray(b[0])
            images.sum()
            n += 1
        dt = time.perf_counter() - t0
        del b, images
    return n * args.batch / dt


def micro(args):
    """Seconds to make a batch's numpy view and drop it: pinned, plain."""
    with loader(args, "plain") as L:
        arr = next(iter(L))[0]
        out = {}
        for mode in MODES:
            best = float("inf")
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(args.micro):
                    a = np.asarray(_HostPin(arr)) if mode == "pinned" else np.asarray(arr)
                    del a  # pinned: the pin goes back (Loader._unpin under its lock)
                best = min(best, (time.perf_counter() - t0) / args.micro)
            out[mode] = best
        del arr
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="")
    ap.add_argument("--mkdata", default=os.path.join(os.path.dirname(HERE), "build", "bin", "feed-mkdata"))
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--prefetch", type=int, default=4)
    ap.add_argument("--batches", type=int, default=150)
    ap.add_argument("--warmup", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--micro", type=int, default=20000)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="libfeed-keep-") as tmp:
        if not args.data:
            args.data = os.path.join(tmp, "data")
            subprocess.run([args.mkdata, "--out", args.data, "--count", "512", "--seed", "3", "--classes", "8",
                            "--quiet"], check=True)
        measure(args)


def measure(args):
    rates = {m: [] for m in MODES}
    for r in range(args.rounds):
        order = MODES if r % 2 == 0 else MODES[::-1]
        for m in order:
            gc.collect()
            rates[m].append(loop(args, m))
    med = {m: statistics.median(v) for m, v in rates.items()}
    us = {m: v * 1e6 for m, v in micro(args).items()}
    ratio = med["pinned"] / med["plain"]
    print(f"{'mode':8} {'images/s (median)':>18} {'view+drop us':>13}")
    for m in MODES:
        print(f"{m:8} {med[m]:18.1f} {us[m]:13.2f}")
    print(f"pinned / plain images/s: {ratio:.3f}; the pin costs {us['pinned'] - us['plain']:.2f} us a batch "
          f"({args.batch} images of {args.size}x{args.size})")
    write_json(args.json, {
        "config": {k: v for k, v in vars(args).items() if k not in ("data", "mkdata")}, "images_per_sec": rates, "median_images_per_sec": med,
        "ratio_pinned_over_plain": ratio, "view_and_drop_us": us,
        "pin_us_per_batch": us["pinned"] - us["plain"], "cpu": cpu_model(), "loadavg_1m": loadavg(),
    })


if __name__ == "__main__":
    main()
