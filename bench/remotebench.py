#!/usr/bin/env python3
"""Remote tar shards against the same shards on local disk: feedbench over
DIR/shards.txt, then over the same shards from a local HTTP server with a
bandwidth cap (all connections together) and a latency per request
(python/tests/remote_server.py), once with an empty cache_dir (every shard
downloaded at create) and once with the cache kept (HEAD requests only), for
each cap of --rate-mbs, with a local run before and after each remote one,
for --rounds rounds.

    bench/remotebench.py [--shards DIR] [--count 2000] [--shard-size 100]
        [--rate-mbs 400,40] [--latency-ms 20] [--rounds 4] [--batch 64]
        [--workers 2] [--epochs 3] [--augment val] [--json out.json]
        [--stream [--fetch-ahead 8] [--shuffle-window 2] [--cache-frac 0.5] [--step-ms 40]]
        [--ranks 2 (with --stream's options)]

--stream measures fetch_ahead instead (stream_main below): the shards fetched
while the loader runs, through a cache smaller than the source.
--ranks W measures one rank of W under --stream's conditions (ranks_main below):
fetch_ranges=whole against fetch_ranges=ranges, and the bytes each fetched.

Without --shards the shards are made with feed-mkdata (--count, --shard-size,
seed 1). Prints a table: images/s of each run (feedbench's measured loop, after
create and its warm-up batches) and over the mean of the local runs around it,
startup (the process's wall time less that
loop: create with its downloads, the warm-up batches, the exit), the GETs the
server saw, and for each cold run the startup over the local one's against
what the cap alone gives. Writes JSON.
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
    if getattr(args, "step_ms", 0):
        cmd += ["--step-ms", str(args.step_ms)]
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    total = time.monotonic() - t0
    with open(out) as f:
        j = json.load(f)
    return {"images_per_sec": j["images_per_sec"], "loop_s": j["wall_s"], "process_s": round(total, 3),
            "create_s": round(total - j["wall_s"], 3), "next_wait_fraction": j["next_wait_fraction"],
            "busy_fraction": j["busy_fraction"],
            "samples": j["samples_per_epoch"]}


def beside_local(row, res, exe, local, args, opts, out):
    """A local run after the remote run res, appended to row["local"]; res's
    images/s over the mean of the local runs just before and after it (a load
    that drifts falls on both sides)."""
    row["local"].append(feedbench(exe, local, args, opts, out))
    around = (row["local"][-2]["images_per_sec"] + row["local"][-1]["images_per_sec"]) / 2
    res["vs_local"] = round(res["images_per_sec"] / around, 4)
    return res


def make_shards(args, tmp):
    if args.shards:
        return args.shards
    shards = os.path.join(tmp, "shards")
    subprocess.run([os.path.join(args.build, "bin", "feed-mkdata"), "--out", shards, "--count", str(args.count),
                    "--seed", "1", "--format", "tar", "--shard-size", str(args.shard_size), "--quiet"], check=True)
    return shards


def stream_main(args):
    """--stream: shards fetched along the schedule (fetch_ahead) through a cache of
    --cache-frac of the source, in the shard-window order, against the same order
    from local disk. The index is built and saved by a first run (its start-up is
    reported: one pass over every shard); the measured runs start from the saved
    index, so their loops stream the shards epoch after epoch."""
    exe = os.path.join(args.build, "bin", "feedbench")
    tmp = tempfile.mkdtemp(prefix="remotebench-")
    order = f"shuffle_window={args.shuffle_window}"
    try:
        shards = make_shards(args, tmp)
        names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(shards, "*.tar")))
        sizes = [os.path.getsize(os.path.join(shards, n)) for n in names]
        nbytes = sum(sizes)
        room = max(int(nbytes * args.cache_frac), 3 * max(sizes))
        rates = [float(r) for r in args.rate_mbs.split(",")]
        out = os.path.join(tmp, "r.json")
        local = os.path.join(shards, "shards.txt")
        rounds, first = [], {}
        servers = {rate: Server(shards, rate=int(rate * 1e6), latency=args.latency_ms / 1000) for rate in rates}
        try:
            for rate, srv in servers.items():
                urls = os.path.join(tmp, f"urls-{rate:g}.txt")
                with open(urls, "w") as f:
                    f.writelines(f"{srv.url}/{n}\n" for n in names)
                cache = os.path.join(tmp, f"cache-{rate:g}")
                opts = f"{order},cache_dir={cache},cache_size={room},fetch_ahead={args.fetch_ahead}"
                n0 = len(srv.requests("GET"))
                first[rate] = feedbench(exe, urls, argparse.Namespace(**{**vars(args), "epochs": 1}), opts, out)
                first[rate]["gets"] = len(srv.requests("GET")) - n0
            for r in range(args.rounds):
                row = {"local": [feedbench(exe, local, args, order, out)]}
                for rate, srv in servers.items():
                    urls = os.path.join(tmp, f"urls-{rate:g}.txt")
                    cache = os.path.join(tmp, f"cache-{rate:g}")
                    opts = f"{order},cache_dir={cache},cache_size={room},fetch_ahead={args.fetch_ahead}"
                    n0 = len(srv.requests("GET"))
                    res = feedbench(exe, urls, args, opts, out)
                    res["gets"] = len(srv.requests("GET")) - n0
                    row[f"{rate:g}MB/s stream"] = beside_local(row, res, exe, local, args, order, out)
                rounds.append(row)
        finally:
            for srv in servers.values():
                srv.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    kinds = [k for k in rounds[0] if k != "local"]
    locals_ = [x for r in rounds for x in r["local"]]
    per_image = nbytes / locals_[0]["samples"]
    med = {"local": {"images_per_sec": statistics.median(x["images_per_sec"] for x in locals_), "vs_local": 1.0,
                     "busy_fraction": statistics.median(x["busy_fraction"] for x in locals_)}}
    for k in kinds:
        med[k] = {m: statistics.median(r[k][m] for r in rounds)
                  for m in ("images_per_sec", "create_s", "vs_local", "next_wait_fraction", "busy_fraction", "gets")}
    print(f"{len(names)} shards, {nbytes / 1e6:.1f} MB, cache_size {room / 1e6:.1f} MB; {args.latency_ms:g} ms a "
          f"request; {order}, fetch_ahead={args.fetch_ahead}; batch {args.batch}, {args.workers} workers, "
          f"{args.epochs} epochs, augment={args.augment}, a {args.step_ms:g} ms step a batch "
          f"({args.batch * 1000 / args.step_ms:.0f} images/s at most); medians of {args.rounds} rounds")
    print(f"{'run':<18} {'images/s':>9} {'vs local':>17} {'busy':>5} {'GETs':>5}  where the time goes")
    print(f"{'local':<18} {med['local']['images_per_sec']:>9.1f} {'1':>17} {med['local']['busy_fraction']:>5.2f}")
    for k in kinds:
        rate = float(k.split("MB/s")[0])
        ratios = [r[k]["vs_local"] for r in rounds]
        # the bytes the GETs brought per image delivered (shards still cached from the epoch
        # before are not fetched again), at the cap
        fetched = med[k]["gets"] * nbytes / len(names) / (args.epochs * locals_[0]["samples"])
        ceiling = rate * 1e6 / fetched if fetched else float("inf")  # nothing fetched: all cached
        where = (f"{fetched / 1e3:.0f} KB fetched an image ({per_image / 1e3:.0f} KB each): the cap alone allows "
                 f"{ceiling:.0f} images/s; the step waited for data {100 * med[k]['next_wait_fraction']:.0f}%")
        vs = f"{med[k]['vs_local']:.3f} ({min(ratios):.2f}-{max(ratios):.2f})"
        print(f"{k:<18} {med[k]['images_per_sec']:>9.1f} {vs:>17} {med[k]['busy_fraction']:>5.2f} "
              f"{med[k]['gets']:>5g}  {where}")
    for rate, f0 in first.items():
        print(f"first run at {rate:g} MB/s (index scan, one pass over every shard): start-up {f0['create_s']:.2f} s, "
              f"{f0['gets']} GETs")
    write_json(args.json, {"mode": "stream", "shards": len(names), "bytes": nbytes, "cache_size": room,
                           "rates_mbs": rates, "latency_ms": args.latency_ms, "shuffle_window": args.shuffle_window,
                           "fetch_ahead": args.fetch_ahead, "batch": args.batch, "workers": args.workers,
                           "epochs": args.epochs, "augment": args.augment, "step_ms": args.step_ms,
                           "fetch_parallel": 8, "first": first,
                           "rounds": rounds, "median": med})


def served_bytes(srv, sizes, since):
    """The body bytes of the GETs srv answered from entry since of its log (a
    range's own length, else the whole file)."""
    total = 0
    for method, path, rng in srv.log[since:]:
        if method != "GET":
            continue
        if rng and rng.startswith("bytes="):
            a, _, b = rng[6:].partition("-")
            total += int(b) - int(a) + 1
        else:
            total += sizes[path.lstrip("/")]
    return total


def ranks_main(args):
    """--ranks W: rank 0 of W under --stream's conditions (saved index, a cache of
    --cache-frac of the source, the shard-window order, a model step a batch),
    with fetch_ranges=whole (the shards its batches read, whole) and
    fetch_ranges=ranges (only its samples' members), each between two local runs
    of rank 0 of W over the same shards; the bytes the server sent per image
    delivered."""
    exe = os.path.join(args.build, "bin", "feedbench")
    tmp = tempfile.mkdtemp(prefix="remotebench-")
    order = f"shuffle_window={args.shuffle_window},rank=0,world_size={args.ranks}"
    kinds = ("whole", "ranges")
    try:
        shards = make_shards(args, tmp)
        names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(shards, "*.tar")))
        sizes = {n: os.path.getsize(os.path.join(shards, n)) for n in names}
        nbytes = sum(sizes.values())
        room = max(int(nbytes * args.cache_frac), 3 * max(sizes.values()))
        rates = [float(r) for r in args.rate_mbs.split(",")]
        out = os.path.join(tmp, "r.json")
        local = os.path.join(shards, "shards.txt")
        rounds = []
        servers = {rate: Server(shards, rate=int(rate * 1e6), latency=args.latency_ms / 1000) for rate in rates}
        try:
            def opts(rate, kind):
                return (f"{order},cache_dir={os.path.join(tmp, f'cache-{rate:g}-{kind}')},cache_size={room},"
                        f"fetch_ahead={args.fetch_ahead},fetch_ranges={kind},fetch_parallel={args.fetch_parallel}")
            for rate, srv in servers.items():  # the index, scanned once and saved
                with open(os.path.join(tmp, f"urls-{rate:g}.txt"), "w") as f:
                    f.writelines(f"{srv.url}/{n}\n" for n in names)
                for kind in kinds:
                    feedbench(exe, os.path.join(tmp, f"urls-{rate:g}.txt"),
                              argparse.Namespace(**{**vars(args), "epochs": 1}), opts(rate, kind), out)
            for r in range(args.rounds):
                row = {"local": [feedbench(exe, local, args, order, out)]}
                for rate, srv in servers.items():
                    for kind in kinds:
                        n0 = len(srv.log)
                        res = feedbench(exe, os.path.join(tmp, f"urls-{rate:g}.txt"), args, opts(rate, kind), out)
                        res["bytes"] = served_bytes(srv, sizes, n0)
                        res["gets"] = sum(1 for m, _, _ in srv.log[n0:] if m == "GET")
                        row[f"{rate:g}MB/s {kind}"] = beside_local(row, res, exe, local, args, order, out)
                rounds.append(row)
        finally:
            for srv in servers.values():
                srv.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    locals_ = [x for r in rounds for x in r["local"]]
    delivered = args.epochs * locals_[0]["samples"]  # this rank's images in the measured runs
    med = {"local": {"images_per_sec": statistics.median(x["images_per_sec"] for x in locals_), "vs_local": 1.0}}
    for k in (k for k in rounds[0] if k != "local"):
        med[k] = {m: statistics.median(r[k][m] for r in rounds)
                  for m in ("images_per_sec", "vs_local", "next_wait_fraction", "bytes", "gets")}
        med[k]["bytes_per_image"] = round(med[k]["bytes"] / delivered)
    print(f"rank 0 of {args.ranks}: {len(names)} shards, {nbytes / 1e6:.1f} MB, cache_size {room / 1e6:.1f} MB; "
          f"{args.latency_ms:g} ms a request; shuffle_window={args.shuffle_window}, fetch_ahead={args.fetch_ahead}, "
          f"fetch_parallel={args.fetch_parallel}; "
          f"batch {args.batch}, {args.workers} workers, {args.epochs} epochs, a {args.step_ms:g} ms step a batch; "
          f"medians of {args.rounds} rounds")
    print(f"{'run':<18} {'images/s':>9} {'vs local':>9} {'KB/image':>9} {'GETs':>6} {'waited':>7}")
    print(f"{'local':<18} {med['local']['images_per_sec']:>9.1f} {'1':>9}")
    for k in med:
        if k != "local":
            m = med[k]
            print(f"{k:<18} {m['images_per_sec']:>9.1f} {m['vs_local']:>9.3f} {m['bytes_per_image'] / 1e3:>9.1f} "
                  f"{m['gets']:>6g} {100 * m['next_wait_fraction']:>6.0f}%")
    write_json(args.json, {"mode": "ranks", "ranks": args.ranks, "rank": 0, "shards": len(names), "bytes": nbytes,
                           "image_bytes": round(nbytes / (locals_[0]["samples"] * args.ranks)),
                           "cache_size": room, "rates_mbs": rates, "latency_ms": args.latency_ms,
                           "shuffle_window": args.shuffle_window, "fetch_ahead": args.fetch_ahead,
                           "fetch_parallel": args.fetch_parallel, "batch": args.batch, "workers": args.workers,
                           "epochs": args.epochs, "augment": args.augment, "step_ms": args.step_ms,
                           "rounds": rounds, "median": med})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shards", help="folder of tar shards with shards.txt (feed-mkdata --format tar)")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--shard-size", type=int, default=100)
    ap.add_argument("--rate-mbs", default="400,40", help="bandwidth caps, MB/s (10^6 bytes), comma-separated")
    ap.add_argument("--latency-ms", type=float, default=20.0, help="added to every request")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--augment", default="val")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--json")
    ap.add_argument("--stream", action="store_true",
                    help="fetch while the loader runs (fetch_ahead) through a cache smaller than the source")
    ap.add_argument("--fetch-ahead", type=int, default=8, help="--stream: fetch_ahead (batches)")
    ap.add_argument("--shuffle-window", type=int, default=2, help="--stream: shuffle_window (shards), local runs too")
    ap.add_argument("--cache-frac", type=float, default=0.5, help="--stream: cache_size over the source's bytes")
    ap.add_argument("--step-ms", type=float, default=0.0,
                    help="a simulated model step a batch (feedbench --step-ms; --stream: default 40)")
    ap.add_argument("--fetch-parallel", type=int, default=8, help="--ranks: fetch_parallel (requests at once)")
    ap.add_argument("--ranks", type=int, default=0,
                    help="rank 0 of this many, fetch_ranges=whole against ranges (--stream's conditions)")
    args = ap.parse_args()
    if args.ranks:
        if not args.step_ms:
            args.step_ms = 40.0
        return ranks_main(args)
    if args.stream:
        if not args.step_ms:
            args.step_ms = 40.0
        return stream_main(args)
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
        rates = [float(r) for r in args.rate_mbs.split(",")]
        out = os.path.join(tmp, "r.json")
        rounds = []
        local = os.path.join(shards, "shards.txt")
        for r in range(args.rounds):
            # a local run before and after each remote one: each remote run is compared with
            # the mean of its two neighbours, so a load that drifts falls on both sides
            row = {"local": [feedbench(exe, local, args, "", out)]}
            for rate in rates:
                srv = Server(shards, rate=int(rate * 1e6), latency=args.latency_ms / 1000)
                try:
                    urls = os.path.join(tmp, "urls.txt")
                    with open(urls, "w") as f:
                        f.writelines(f"{srv.url}/{n}\n" for n in names)
                    cache = os.path.join(tmp, f"cache-{r}-{rate:g}")
                    for kind in ("cold", "cached"):
                        n0 = len(srv.requests("GET"))
                        res = feedbench(exe, urls, args, f"cache_dir={cache}", out)
                        res["gets"] = len(srv.requests("GET")) - n0
                        row[f"{rate:g}MB/s {kind}"] = beside_local(row, res, exe, local, args, "", out)
                finally:
                    srv.close()
            rounds.append(row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    kinds = [k for k in rounds[0] if k != "local"]
    locals_ = [x for r in rounds for x in r["local"]]
    med = {"local": {"images_per_sec": statistics.median(x["images_per_sec"] for x in locals_),
                     "create_s": statistics.median(x["create_s"] for x in locals_), "vs_local": 1.0}}
    for k in kinds:
        med[k] = {m: statistics.median(r[k][m] for r in rounds) for m in ("images_per_sec", "create_s", "vs_local")}
    print(f"{len(names)} shards, {nbytes / 1e6:.1f} MB; {args.latency_ms:g} ms a request; batch {args.batch}, "
          f"{args.workers} workers, {args.epochs} epochs, augment={args.augment}; medians of {args.rounds} rounds "
          f"(vs local: each run over the mean of the local runs just before and after it)")
    print(f"{'run':<20} {'images/s':>9} {'vs local':>17} {'startup s':>9} {'GETs':>5}  where the time goes")
    for k in ["local"] + kinds:
        gets = statistics.median(r[k].get("gets", 0) for r in rounds) if k != "local" else 0
        ratios = [r[k]["vs_local"] for r in rounds] if k != "local" else [1.0]
        where = ""
        if k.endswith("cold"):
            rate = float(k.split("MB/s")[0])
            extra = med[k]["create_s"] - med["local"]["create_s"]
            where = (f"startup +{extra:.2f} s over local: {nbytes / 1e6:.1f} MB at the {rate:g} MB/s cap "
                     f"alone is {nbytes / rate / 1e6:.2f} s")
        vs = f"{med[k]['vs_local']:.3f} ({min(ratios):.2f}-{max(ratios):.2f})"
        print(f"{k:<20} {med[k]['images_per_sec']:>9.1f} {vs:>17} {med[k]['create_s']:>9.2f} {gets:>5g}  {where}")
    write_json(args.json, {"shards": len(names), "bytes": nbytes, "rates_mbs": rates, "latency_ms": args.latency_ms,
                           "batch": args.batch, "workers": args.workers, "epochs": args.epochs,
                           "augment": args.augment, "fetch_parallel": 8, "rounds": rounds, "median": med})


if __name__ == "__main__":
    main()
