#!/usr/bin/env python3
"""npybench.py - the same images as JPEG files and as a pre-decoded .npy array,
through libfeed side by side: what not decoding saves per sample.

  bench/npybench.py [--count 1024] [--size 224] [--workers 2] [--batch 64]
                    [--epochs 3] [--repeat 3] [--json FILE] [--keep DIR]

Writes --count synthetic JPEGs (feed-mkdata, ImageNet-like sizes), decodes them
once with libfeed (augment=val to size x size) into images.npy + labels.npy,
then runs build/bin/feedbench (no model step, warm page cache) on:

  jpeg val      the JPEG folder, decode + resize + centre crop (the usual path)
  npy none      the array at its own size: each sample's bytes read straight
                into the ring slot (what the copier is fed when decoding is free)
  npy val       the array, resized and cropped (resize_shorter = size + size/7)
  npy train     the array with RandomResizedCrop + flip

Configurations run interleaved, --repeat times each; the best run counts (the
machine may be shared). Prints a table (images/s, worker us per sample, ratio
to jpeg val) and, with --json, the same as JSON. Needs numpy and the Python
binding (python/libfeed) for the one decode.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
from benchcommon import provenance  # noqa: E402 (bench/ is on sys.path)


def feedbench(args, data, augment, opts):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "fb.json")
        cmd = [args.feedbench, "--data", data, "--workers", str(args.workers), "--batch", str(args.batch),
               "--epochs", str(args.epochs), "--augment", augment, "--opts", opts, "--quiet",
               "--no-progress", "--json", out]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit("npybench: feedbench failed: %s\n%s" % (" ".join(cmd), r.stderr))
        with open(out) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1024)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--keep", help="make the data here and keep it (default: a temporary folder)")
    ap.add_argument("--json")
    args = ap.parse_args()
    args.feedbench = os.path.join(args.build, "bin", "feedbench")
    os.environ.setdefault("LIBFEED_LIBRARY", os.path.join(args.build, "lib", "libfeed.so"))
    os.environ.setdefault("FEED_WORKER", os.path.join(args.build, "bin", "feed-worker"))
    import numpy as np
    import libfeed

    work = args.keep or tempfile.mkdtemp(prefix="npybench-")
    try:
        jpg = os.path.join(work, "jpg")
        subprocess.run([os.path.join(args.build, "bin", "feed-mkdata"), "--out", jpg, "--count", str(args.count),
                        "--seed", "1", "--classes", "8", "--quiet"], check=True)
        s = args.size
        shorter = s + s // 7
        with libfeed.Loader(jpg, batch_size=64, size=s, augment="val", resize_shorter=shorter, shuffle=False,
                            workers=args.workers, copy=True, epochs=1) as L:
            images, labels = zip(*((b.images, b.labels) for b in L))
        npy, lab = os.path.join(work, "images.npy"), os.path.join(work, "labels.npy")
        np.save(npy, np.concatenate(images))
        np.save(lab, np.concatenate(labels).astype(np.int64))
        common = f"height={s},width={s},resize_shorter={shorter}"
        configs = [("jpeg val", jpg, "val", common),
                   ("npy none", npy, "none", f"{common},labels={lab}"),
                   ("npy val", npy, "val", f"{common},labels={lab}"),
                   ("npy train", npy, "train", f"{common},labels={lab}")]
        best = {}
        for _ in range(args.repeat):
            for name, data, aug, opts in configs:
                r = feedbench(args, data, aug, opts)
                if name not in best or r["images_per_sec"] > best[name]["images_per_sec"]:
                    best[name] = r
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    base = best["jpeg val"]["images_per_sec"]
    rows = []
    print(f"{args.count} images {args.size}x{args.size}, {args.workers} workers, batch {args.batch}, "
          f"{args.epochs} epochs, best of {args.repeat}")
    print(f"{'source':<12}{'images/s':>12}{'worker us/sample':>18}{'vs jpeg val':>13}")
    for name, _, aug, _ in configs:
        r = best[name]
        st = r["stage_us_per_sample"]
        us = sum(st.get(k, 0.0) for k in ("read", "decode", "augment", "convert"))
        rows.append({"source": name, "augment": aug, "images_per_sec": r["images_per_sec"],
                     "worker_us_per_sample": us, "stage_us_per_sample": st,
                     "ratio_to_jpeg_val": r["images_per_sec"] / base})
        print(f"{name:<12}{r['images_per_sec']:>12.1f}{us:>18.1f}{r['images_per_sec'] / base:>12.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tool": "npybench", "count": args.count, "size": args.size, "workers": args.workers,
                       "batch": args.batch, "epochs": args.epochs, "repeat": args.repeat,
                       "nproc": os.cpu_count(), "rows": rows, "provenance": provenance()}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
