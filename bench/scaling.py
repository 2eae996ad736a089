#!/usr/bin/env python3
"""scaling.py - libfeed's cost curve: images/s for workers = 1..cores x batch sizes.

  bench/scaling.py --data data/gen2000 [--workers 1,2] [--batches 32,64,128]
                   [--images 640] [--augment train] [--dtype uint8] [--json FILE]

Runs build/bin/feedbench (--loader feed, no model step) for every (workers,
batch) pair and prints images/s and images/s per worker, plus the sync loop
(the pipeline in the training thread, one core) as the per-core reference:
"per worker / sync" near 1.0 means a worker process costs no more than doing
the work in-line, and the workers scale.

Each configuration times --images images after --warmup batches; --repeat
runs each point that many times (interleaved, the best counts: the machine
may be shared). Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchcommon import provenance  # noqa: E402 (bench/ is on sys.path)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(args, loader, workers, batch):
    nb = args.warmup + max(1, -(-args.images // batch))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "fb.json")
        cmd = [args.feedbench, "--data", args.data, "--loader", loader, "--workers", str(workers),
               "--batch", str(batch), "--batches", str(nb), "--warmup", str(args.warmup),
               "--augment", args.augment, "--dtype", args.dtype, "--quiet", "--no-progress", "--json", out]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit("scaling: feedbench failed: %s\n%s" % (" ".join(cmd), r.stderr))
        with open(out) as f:
            return json.load(f)


def main():
    ncpu = os.cpu_count() or 1
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "data", "gen2000"))
    ap.add_argument("--workers", default=",".join(str(w) for w in range(1, ncpu + 1)))
    ap.add_argument("--batches", default="32,64,128", help="batch sizes")
    ap.add_argument("--images", type=int, default=640, help="images timed per point")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--augment", default="train")
    ap.add_argument("--dtype", default="uint8")
    ap.add_argument("--no-sync", action="store_true")
    ap.add_argument("--feedbench", default=os.environ.get("FEEDBENCH", os.path.join(ROOT, "build", "bin", "feedbench")))
    ap.add_argument("--json")
    args = ap.parse_args()
    workers = [int(x) for x in args.workers.split(",")]
    batches = [int(x) for x in args.batches.split(",")]
    if not os.access(args.feedbench, os.X_OK):
        sys.exit("scaling: %s not found: build first or pass --feedbench" % args.feedbench)

    best = {}
    for rep in range(args.repeat):
        for b in batches:
            points = [("sync", 1)] if not args.no_sync else []
            points += [("feed", w) for w in workers]
            for loader, w in points:
                d = run(args, loader, w, b)
                key = (loader, w, b)
                if key not in best or d["images_per_sec"] > best[key]["images_per_sec"]:
                    best[key] = d
                print("  %s workers=%d batch=%d: %.1f images/s" % (loader, w, b, d["images_per_sec"]),
                      file=sys.stderr, flush=True)

    print("\nfeedbench scaling: %s, augment=%s, dtype=%s, %d images timed per point, %d CPUs"
          % (args.data, args.augment, args.dtype, args.images, ncpu))
    print("%-8s %7s %6s %12s %14s %10s %10s %9s" % ("loader", "workers", "batch", "images/s", "per worker",
                                                     "vs sync", "us/img*", "wait p99"))
    rows = []
    for b in batches:
        sync = best.get(("sync", 1, b))
        keys = ([("sync", 1, b)] if sync else []) + [("feed", w, b) for w in workers]
        for key in keys:
            d = best[key]
            loader, w, _ = key
            ips = d["images_per_sec"]
            per = ips / w
            st = d["stage_us_per_sample"]
            work = st["read"] + st["decode"] + st["augment"] + st["convert"]
            vs = ips / sync["images_per_sec"] if sync else 0
            print("%-8s %7s %6d %12.1f %14.1f %9.2fx %10.0f %8.2fms" % (
                loader, w if loader == "feed" else "-", b, ips, per, vs, work, d["next_wait_ms_p99"]))
            rows.append({"loader": loader, "workers": w if loader == "feed" else 0, "batch": b,
                         "images_per_sec": ips, "images_per_sec_per_worker": round(per, 3),
                         "vs_sync": round(vs, 3), "work_us_per_image": round(work, 1),
                         "next_wait_ms_p99": d["next_wait_ms_p99"], "reader": d["reader"]})
    print("* us/img: read+decode+augment+convert time per image, summed over workers (wall time in the"
          " stage, so it grows when workers share cores)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"data": args.data, "augment": args.augment, "dtype": args.dtype, "images": args.images,
                       "nproc": ncpu, "repeat": args.repeat, "rows": rows, "provenance": provenance()}, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
