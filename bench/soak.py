#!/usr/bin/env python3
"""soak.py - does anything grow over a long run with faults? A benchmark, not
a test: it takes minutes and reports numbers.

Runs libfeed.Loader for --epochs epochs (default 50) over a generated
dataset of which --bad (default 5%) of the files are broken (cut short,
emptied, random bytes, in turn), SIGKILLing one worker every --kill-every
batches (default 5; the pool replaces it and its samples are done again).
After each epoch it records, for the trainer's process and for every worker
alive then: RSS and PSS (/proc/PID/smaps_rollup), open fds, mappings
(/proc/PID/maps lines), and for the lot: the trainer's memfds (fds on
/memfd:...), the workers' memfds, and the entries of /dev/shm. Kills take
the newest worker, so one (the elder) lives the whole run. Every measure
must be flat after epoch 2: no value over epochs 3..N above its value at
epoch 2 (RSS and PSS: plus --slack-kib, default 1024, for the allocator's
noise; counts: exactly), but for the trainer's bad-sample record, which
grows by design until it keeps its last 1024 reports (allowed for, and said).
Prints a table for people, and JSON (--json) with every epoch's row and the
verdict; exits 1 if something grew.

  python3 bench/soak.py --json bench/results/vm-2vcpu/soak.json
"""
import argparse
import gc
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
from benchcommon import cpu_model, loadavg, write_json  # noqa: E402

import libfeed  # noqa: E402


def children(pid):
    out = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return sorted(set(out))


def rollup(pid):
    """(RSS, PSS) in KiB from smaps_rollup."""
    rss = pss = 0
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    return rss, pss


DATA = None  # the dataset's folder: its files open in the trainer are the read-ahead's, in flight


def fds(pid):
    """(open fds, of them memfds): files of the dataset not counted (the
    read-ahead thread opens and closes them all the time)."""
    n = memfd = 0
    d = f"/proc/{pid}/fd"
    for name in os.listdir(d):
        try:
            target = os.readlink(os.path.join(d, name))
        except OSError:
            continue
        if DATA and target.startswith(DATA + "/"):
            continue
        n += 1
        memfd += target.startswith("/memfd:")
    return n, memfd


def maps(pid):
    with open(f"/proc/{pid}/maps") as f:
        return sum(1 for _ in f)


def measure(me):
    row = {}
    rss, pss = rollup(me)
    nfd, memfd = fds(me)
    row.update(parent_rss_kib=rss, parent_pss_kib=pss, parent_fds=nfd, parent_memfds=memfd,
               parent_maps=maps(me))
    ws = children(me)
    per = []
    for w in ws:
        try:
            r, p = rollup(w)
            n, m = fds(w)
            per.append({"pid": w, "rss_kib": r, "pss_kib": p, "fds": n, "memfds": m, "maps": maps(w)})
        except OSError:
            pass  # it was being replaced
    row["workers"] = per
    row["nworkers"] = len(per)
    for k in ("rss_kib", "pss_kib", "fds", "memfds", "maps"):
        row["workers_" + k] = sum(x[k] for x in per)
        row["worker_max_" + k] = max((x[k] for x in per), default=0)
    try:
        row["dev_shm"] = len(os.listdir("/dev/shm"))
    except OSError:
        row["dev_shm"] = -1
    return row


def break_files(data, share):
    """Breaks every (1/share)th image of data (sorted), three ways in turn."""
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(data) for f in fs if f.endswith(".jpg"))
    step = max(1, round(1 / share))
    broken = files[::step]
    for k, path in enumerate(broken):
        with open(path, "r+b") as f:
            if k % 3 == 0:
                f.truncate(os.path.getsize(path) // 3)
            elif k % 3 == 1:
                f.truncate(0)
            else:
                f.write(os.urandom(os.path.getsize(path)))
    return len(broken), len(files)


# What must be flat after epoch 2: the trainer's process, the worker that
# lives the whole run (the elder: the kills take the newest), the workers'
# count, /dev/shm. The replaced workers' own sizes vary with the images they
# happened to decode; their fds, memfds and mappings must not grow either.
CHECKS = ["parent_rss_kib", "parent_pss_kib", "parent_fds", "parent_memfds", "parent_maps", "nworkers",
          "elder_rss_kib", "elder_pss_kib", "elder_fds", "elder_memfds", "elder_maps",
          "worker_max_fds", "worker_max_memfds", "worker_max_maps", "dev_shm"]
# The bad-sample record keeps the last FEED_BAD_KEEP reports, sizeof(feed_bad_sample)
# (include/feed.h) each: the trainer's memory grows with it until it is full,
# by design; the check allows that much (and the one mapping glibc gives the
# block once it is past its mmap threshold).
FEED_BAD_KEEP = 1024
BAD_SAMPLE_BYTES = 4 + 4 + 8 + 8 + 8 + 4 + 4 + 4096 + 256


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="", help="an ImageFolder to copy (default: feed-mkdata makes one)")
    ap.add_argument("--images", type=int, default=480)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--bad", type=float, default=0.05)
    ap.add_argument("--kill-every", type=int, default=5)
    ap.add_argument("--slack-kib", type=int, default=1024)
    ap.add_argument("--mkdata", default=os.path.join(ROOT, "build", "bin", "feed-mkdata"))
    ap.add_argument("--json", default="")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="libfeed-soak-")
    try:
        data = os.path.join(tmp, "data")
        global DATA
        DATA = os.path.realpath(data)
        if args.data:
            shutil.copytree(args.data, data)
        else:
            subprocess.run([args.mkdata, "--out", data, "--count", str(args.images), "--seed", "5",
                            "--classes", "8", "--quiet"], check=True)
        nbad, nfiles = break_files(data, args.bad)
        me = os.getpid()
        rows, kills, seen = [], 0, 0
        t0 = time.monotonic()
        with libfeed.Loader(data, batch_size=args.batch, workers=args.workers, size=args.size,
                            augment="train", seed=3, report_bad=False, max_bad_fraction=1.0) as L:
            elder = None
            for epoch in range(args.epochs):
                last = len(L) - args.kill_every  # none in the epoch's last batches: replaced workers settle
                for k, (images, labels) in enumerate(L):
                    seen += len(labels)
                    if (k + 1) % args.kill_every == 0 and k < last:
                        ws = [w for w in children(me) if w != elder]
                        if ws:  # the newest: one worker (the elder) lives the whole run
                            os.kill(max(ws), signal.SIGKILL)
                            kills += 1
                del images, labels
                gc.collect()
                row = measure(me)
                if elder is None and row["workers"]:
                    elder = min(w["pid"] for w in row["workers"])
                mine = [w for w in row["workers"] if w["pid"] == elder]
                for k in ("rss_kib", "pss_kib", "fds", "memfds", "maps"):
                    row["elder_" + k] = mine[0][k] if mine else -1
                row["bad_reports_kept"] = min(L.bad_count(), FEED_BAD_KEEP)
                s = L.stats()
                row.update(epoch=epoch + 1, samples=seen, kills=kills, worker_restarts=s["worker_restarts"],
                           samples_bad=s["samples_bad"], seconds=round(time.monotonic() - t0, 2))
                rows.append(row)
                print(f"epoch {epoch + 1:3d}  parent rss {row['parent_rss_kib']:7d} pss {row['parent_pss_kib']:7d} "
                      f"fds {row['parent_fds']:3d} memfd {row['parent_memfds']:2d} maps {row['parent_maps']:4d} | "
                      f"elder rss {row['elder_rss_kib']:6d} fds {row['elder_fds']:2d} maps {row['elder_maps']:3d}, "
                      f"{row['nworkers']} workers fds<= {row['worker_max_fds']:2d} maps<= {row['worker_max_maps']:3d} | shm {row['dev_shm']:3d} | restarts {s['worker_restarts']:4d} "
                      f"bad {s['samples_bad']:5d}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    base = rows[1] if len(rows) > 1 else rows[0]
    grew, strict = {}, {}
    for k in CHECKS:
        slack = args.slack_kib if k.endswith("_kib") else 0
        for r in rows[2:]:
            record = r["bad_reports_kept"] - base["bad_reports_kept"]
            allow = (record * BAD_SAMPLE_BYTES // 1024 if k.startswith("parent_") and k.endswith("_kib")
                     else 1 if k == "parent_maps" and record > 0 else 0)
            if r[k] > base[k] + slack and k not in strict:
                strict[k] = {"epoch2": base[k], "epoch": r["epoch"], "value": r[k]}
            if r[k] > base[k] + slack + allow and k not in grew:
                grew[k] = {"epoch2": base[k], "epoch": r["epoch"], "value": r[k], "record_allowance": allow}
    verdict = "flat" if not grew else "grew"
    print(f"{len(rows)} epochs, {seen} samples, {kills} workers killed, {nbad} of {nfiles} files broken: "
          f"{verdict}" + ("" if not grew else f": {grew}"))
    for k, v in strict.items():
        if k not in grew:
            print(f"  {k}: {v['epoch2']} at epoch 2, {v['value']} at epoch {v['epoch']}: the bad-sample record "
                  f"({rows[-1]['bad_reports_kept']} reports kept at the end, {FEED_BAD_KEEP} at most)")
    write_json(args.json, {
        "config": vars(args), "broken_files": nbad, "files": nfiles, "samples": seen, "kills": kills,
        "epochs": rows, "checks": CHECKS, "grew": grew, "grew_before_the_record_allowance": strict,
        "verdict": verdict,
        "cpu": cpu_model(), "loadavg_1m": loadavg(),
    })
    return 0 if not grew else 1


if __name__ == "__main__":
    sys.exit(main())
