#!/usr/bin/env python3
"""Read-ahead on a cold page cache: feedbench with readahead=0 (off) and
readahead=N, side by side, the dataset evicted from the page cache before
every cold run (posix_fadvise DONTNEED on each file: no root needed; it only
works where the file system honours it, which the script checks), then the
same pair warm (to show what read-ahead costs when the data is cached).

    bench/coldcache.py --data data/gen2000 [--rounds 3] [--batch 64]
        [--workers 2] [--augment val] [--readahead 4] [--json out.json]

Prints a table (images/s and read time per sample of each run, the on/off
ratio per round, the median) and writes JSON.

    bench/coldcache.py --data data/gen2000 --shards data/gen2000-tar [...]

compares instead the same images as loose files (--data) and as tar shards
(--shards DIR: DIR/shards.txt and DIR/*.tar, from feed-mkdata --format tar
with the same --count/--seed/--classes), both with readahead=N, cold and
warm, ABBA; the ratio is shards/loose.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchcommon import provenance  # noqa: E402 (bench/ is on sys.path)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def files_of(data):
    out = []
    for dp, _, fn in os.walk(data):
        out += [os.path.join(dp, f) for f in fn if f.lower().endswith((".jpg", ".jpeg"))]
    return sorted(out)


def evict(files):
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def cached_fraction(files, sample=64):
    """Share of the first `sample` files' pages in the page cache (mincore)."""
    import ctypes
    import mmap

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    tot = inn = 0
    for f in files[:sample]:
        size = os.path.getsize(f)
        if not size:
            continue
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        vec = ctypes.create_string_buffer(pages)
        fd = os.open(f, os.O_RDONLY)
        try:
            p = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
            if p is None or p == ctypes.c_void_p(-1).value:
                continue
            libc.mincore(p, size, vec)
            libc.munmap(p, size)
        finally:
            os.close(fd)
        tot += pages
        inn += sum(b & 1 for b in vec.raw)
    return inn / tot if tot else 0.0


def run(feedbench, args, readahead, out, data=None):
    cmd = [feedbench, "--data", data or args.data, "--batch", str(args.batch), "--workers",
           str(args.workers), "--epochs", "1", "--augment", args.augment, "--no-progress",
           "--quiet", "--opts", f"readahead={readahead}", "--json", out]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        j = json.load(f)
    return {"images_per_sec": j["images_per_sec"], "read_us": j["stage_us_per_sample"]["read"],
            "readahead": j.get("readahead"), "readahead_files": j.get("readahead_files")}


def summarize(rows, what, tail=""):
    """Median, least and most ratio of the rounds, cold and warm; printed."""
    summary = {}
    for cache in ("cold", "warm"):
        rs = [x["ratio"] for x in rows if x["cache"] == cache]
        summary[cache] = {"median_ratio": statistics.median(rs), "min": min(rs), "max": max(rs)}
        print(f"{cache}: median {what} {summary[cache]['median_ratio']:.3f} "
              f"(rounds {min(rs):.3f}-{max(rs):.3f}){tail}")
    return summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=4, help="pairs; the order alternates (ABBA)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--augment", default="val")
    ap.add_argument("--readahead", type=int, default=4)
    ap.add_argument("--shards", help="folder of tar shards of the same images (shards.txt)")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.shards:
        return main_shards(args)
    feedbench = os.path.join(args.build, "bin", "feedbench")
    files = files_of(args.data)
    if not files:
        sys.exit(f"coldcache: no JPEG files under {args.data}")
    evict(files)
    frac = cached_fraction(files)
    if frac > 0.05:
        sys.exit(f"coldcache: {frac:.0%} of the data stays cached after DONTNEED "
                 "(tmpfs?): cannot measure cold reads here")

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for cache in ("cold", "warm"):
            for r in range(args.rounds):
                pair = {}
                order = (0, args.readahead) if r % 2 == 0 else (args.readahead, 0)  # ABBA
                for ra in order:
                    if cache == "cold":
                        evict(files)
                    pair[ra] = run(feedbench, args, ra, os.path.join(tmp, "r.json"))
                ratio = pair[args.readahead]["images_per_sec"] / pair[0]["images_per_sec"]
                rows.append({"cache": cache, "round": r + 1, "off": pair[0],
                             "on": pair[args.readahead], "ratio": ratio})

    print(f"read-ahead: {args.data} ({len(files)} files), batch {args.batch}, "
          f"{args.workers} workers, augment {args.augment}, readahead={args.readahead} vs 0")
    print(f"{'cache':6} {'round':>5} {'off img/s':>10} {'off read us':>12} {'on img/s':>10} "
          f"{'on read us':>11} {'on/off':>7}")
    for x in rows:
        print(f"{x['cache']:6} {x['round']:5d} {x['off']['images_per_sec']:10.0f} "
              f"{x['off']['read_us']:12.1f} {x['on']['images_per_sec']:10.0f} "
              f"{x['on']['read_us']:11.1f} {x['ratio']:7.3f}")
    summary = summarize(rows, "on/off", f", mode {rows[0]['on']['readahead']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"data": args.data, "files": len(files), "batch": args.batch,
                       "workers": args.workers, "augment": args.augment,
                       "readahead": args.readahead, "rounds": rows, "summary": summary,
                       "provenance": provenance()}, f, indent=1)


def main_shards(args):
    """Loose files vs tar shards of the same images, read-ahead on in both."""
    feedbench = os.path.join(args.build, "bin", "feedbench")
    loose = files_of(args.data)
    tars = sorted(os.path.join(args.shards, f) for f in os.listdir(args.shards) if f.endswith(".tar"))
    source = os.path.join(args.shards, "shards.txt")
    if not loose or not tars or not os.path.exists(source):
        sys.exit(f"coldcache: need JPEGs under {args.data} and shards.txt + *.tar in {args.shards}")
    evict(loose + tars)
    for what, fs in (("loose files", loose), ("shards", tars)):
        frac = cached_fraction(fs)
        if frac > 0.05:
            sys.exit(f"coldcache: {frac:.0%} of the {what} stay cached after DONTNEED (tmpfs?): "
                     "cannot measure cold reads here")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for cache in ("cold", "warm"):
            for r in range(args.rounds):
                pair = {}
                order = ("loose", "shards") if r % 2 == 0 else ("shards", "loose")  # ABBA
                for kind in order:
                    if cache == "cold":
                        evict(loose + tars)
                    pair[kind] = run(feedbench, args, args.readahead, os.path.join(tmp, "r.json"),
                                     data=args.data if kind == "loose" else source)
                ratio = pair["shards"]["images_per_sec"] / pair["loose"]["images_per_sec"]
                rows.append({"cache": cache, "round": r + 1, "loose": pair["loose"],
                             "shards": pair["shards"], "ratio": ratio})
    print(f"shards vs loose files: {args.data} ({len(loose)} files) vs {source} ({len(tars)} "
          f"shards), batch {args.batch}, {args.workers} workers, augment {args.augment}, "
          f"readahead={args.readahead}")
    print(f"{'cache':6} {'round':>5} {'loose img/s':>11} {'loose read us':>13} {'shard img/s':>11} "
          f"{'shard read us':>13} {'shard/loose':>11}")
    for x in rows:
        print(f"{x['cache']:6} {x['round']:5d} {x['loose']['images_per_sec']:11.0f} "
              f"{x['loose']['read_us']:13.1f} {x['shards']['images_per_sec']:11.0f} "
              f"{x['shards']['read_us']:13.1f} {x['ratio']:11.3f}")
    summary = summarize(rows, "shards/loose")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"data": args.data, "shards": source, "files": len(loose),
                       "shard_files": len(tars), "batch": args.batch, "workers": args.workers,
                       "augment": args.augment, "readahead": args.readahead, "rounds": rows,
                       "summary": summary, "provenance": provenance()}, f, indent=1)


if __name__ == "__main__":
    main()
