#!/usr/bin/env python3
"""Remote tar shards against the same shards on local disk: feedbench over
DIR/shards.txt, then over the same shards from a local HTTP server with a
bandwidth cap and a latency per request (python/tests/remote_server.py), once
with an empty cache_dir (every shard downloaded at create) and once with the
cache kept (HEAD requests only), side by side, for --rounds rounds.

    bench/remotebench.py [--shards DIR] [--count 1000] [--shard-size 100]
        [--rate-mbs 100] [--latency-ms 20] [--rounds 2] [--batch 64]
        [--workers 2] [--augment val] [--json out.json]

Without --shards the shards are made with feed-mkdata (--count, --shard-size,
seed 1). Prints a table: images/s of each run (feedbench's steady state after
create), create time (the process's wall time less feedbench's measured loop:
the download, the index, the workers' start) and, for the cold run, the
bytes downloaded over the download time, against the cap. Writes JSON.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
from benchcommon import write_json  # noqa: E402
from remote_server import Server  # noqa: E402


def feedbench(exe, data, args, opts, out):
    cmd = [exe, "--data", data, "--batch", str(args.batch), "--workers", str(args.workers), "--epochs",
           str(args.epochs), "--augment", args.augment, "--no-progress", "--quiet", "--json", out]
    if opts:
        cmd += ["--opts", opts]
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    total = time.monotonic() - t0
    with open(out) as f:
        j = json.load(f)
    return {"images_per_sec": j["images_per_sec"], "loop_s": j["wall_s"], "process_s": round(total, 3),
            "create_s": round(total - j["wall_s"], 3)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shards", help="folder of tar shards with shards.txt (feed-mkdata --format tar)")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--shard-size", type=int, default=100)
    ap.add_argument("--rate-mbs", type=float, default=100.0, help="bandwidth cap, MB/s (10^6 bytes)")
    ap.add_argument("--latency-ms", type=float, default=20.0, help="added to every request")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--augment", default="val")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--json")
    args = ap.parse_args()
    exe = os.path.join(args.build, "bin", "feedbench")
    tmp = tempfile.mkdtemp(prefix="remotebench-")
    try:
        shards = args.shards
        if not shards:
            shards = os.path.join(tmp, "shards")
            subprocess.run([os.path.join(args.build, "bin", "feed-mkdata"), "--out", shards, "--count",
                            str(args.count), "--seed", "1", "--format", "tar", "--shard-size",
                            str(args.shard_size), "--quiet"], check=True)
        names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(shards, "*.tar")))
        nbytes = sum(os.path.getsize(os.path.join(shards, n)) for n in names)
        rate = int(args.rate_mbs * 1e6)
        srv = Server(shards, rate=rate, latency=args.latency_ms / 1000)
        urls = os.path.join(tmp, "urls.txt")
        with open(urls, "w") as f:
            f.writelines(f"{srv.url}/{n}\n" for n in names)
        out = os.path.join(tmp, "r.json")
        rounds = []
        try:
            for r in range(args.rounds):
                cache = os.path.join(tmp, f"cache{r}")
                row = {"local": feedbench(exe, os.path.join(shards, "shards.txt"), args, "", out)}
                n0 = len(srv.requests("GET"))
                row["remote_cold"] = feedbench(exe, urls, args, f"cache_dir={cache}", out)
                row["remote_cold"]["gets"] = len(srv.requests("GET")) - n0
                n0 = len(srv.requests("GET"))
                row["remote_cached"] = feedbench(exe, urls, args, f"cache_dir={cache}", out)
                row["remote_cached"]["gets"] = len(srv.requests("GET")) - n0
                rounds.append(row)
        finally:
            srv.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    kinds = ["local", "remote_cold", "remote_cached"]
    med = {k: {m: statistics.median(r[k][m] for r in rounds) for m in ("images_per_sec", "create_s")} for k in kinds}
    extra_s = med["remote_cold"]["create_s"] - med["local"]["create_s"]
    print(f"{len(names)} shards, {nbytes / 1e6:.1f} MB, served at {args.rate_mbs:g} MB/s with {args.latency_ms:g} ms "
          f"a request; batch {args.batch}, {args.workers} workers, {args.epochs} epochs, augment={args.augment}; "
          f"median of {args.rounds} rounds")
    print(f"{'run':<15} {'images/s':>9} {'vs local':>9} {'create s':>9} {'GETs':>5}")
    for k in kinds:
        gets = statistics.median(r[k].get("gets", 0) for r in rounds)
        print(f"{k:<15} {med[k]['images_per_sec']:>9.1f} {med[k]['images_per_sec'] / med['local']['images_per_sec']:>9.3f} "
              f"{med[k]['create_s']:>9.2f} {gets:>5g}")
    print(f"cold create - local create: {extra_s:.2f} s for {nbytes / 1e6:.1f} MB "
          f"({nbytes / 1e6 / extra_s if extra_s > 0 else float('inf'):.1f} MB/s; the cap {args.rate_mbs:g} MB/s "
          f"gives {nbytes / rate:.2f} s, the latency {len(names) * 2 * args.latency_ms / 1000:.2f} s: a HEAD and a "
          f"GET a shard, one shard at a time)")
    write_json(args.json, {"shards": len(names), "bytes": nbytes, "rate_mbs": args.rate_mbs,
                           "latency_ms": args.latency_ms, "batch": args.batch, "workers": args.workers,
                           "epochs": args.epochs, "augment": args.augment, "rounds": rounds, "median": med,
                           "cold_extra_create_s": round(extra_s, 3)})


if __name__ == "__main__":
    main()
