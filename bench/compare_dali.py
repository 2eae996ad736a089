#!/usr/bin/env python3
"""compare_dali.py - libfeed next to NVIDIA DALI's CPU-only pipeline.

Runs the same files, batch size and transforms, with DALI threads = libfeed
workers, and the same output (normalized float32 CHW on the host), through

  * DALI (the PyPI wheel, device_id=None: no GPU, no driver), with
      train: readers.file + decoders.image_random_crop(area 0.08..1, ratio 3/4..4/3)
             + resize(224, 224) + crop_mirror_normalize(mirror=random.coin_flip())
      val:   readers.file + decoders.image + resize(resize_shorter=256)
             + crop_mirror_normalize(crop=224)
  * libfeed (build/bin/feedbench --loader feed --dtype float32: the same
    transforms in worker processes)

alternately in one run (ABBA order over --rounds rounds, as compare_torch.py
does), and prints images/s of each (medians over the rounds), the ratio of
each round, and CPU ms per image (user+sys of the process, its threads and
its reaped children over one whole epoch, set-up included, interpreter start
and imports excluded). Both sides exclude the first --warmup batches.

DALI is installed into a virtual environment this script makes once and
reuses (--venv, default ~/.cache/libfeed/venv-dali): pip install
nvidia-dali-cuda120 (--dali-package to change). Where it cannot be installed
or cannot run without a GPU, the script says why and exits 0 (skip), writing
{"skipped": true, "reason": ...} to --json.

  bench/compare_dali.py --data data/gen2000 --batch 64 --workers 2 \\
      --json bench/results/MACHINE/compare_dali.json
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

from benchcommon import MEAN, STD, cpu_model, loadavg, write_json  # noqa: E402 (bench/ is on sys.path)


def cpu_now():
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def dali_run(data, mode, batch, threads, nbatches, warmup, seed):
    """In the venv's interpreter: time nbatches batches (0: one whole epoch)
    after warmup. Prints one JSON line."""
    import nvidia.dali as dali
    import nvidia.dali.fn as fn
    import nvidia.dali.types as types
    from nvidia.dali import pipeline_def

    mean = [m * 255 for m in MEAN]
    std = [s * 255 for s in STD]
    c0 = cpu_now()  # the pipeline's build and threads count, the imports do not

    @pipeline_def(batch_size=batch, num_threads=threads, device_id=None, seed=seed, exec_dynamic=True)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=data, random_shuffle=True, name="Reader")
        if mode == "train":
            img = fn.decoders.image_random_crop(jpegs, device="cpu", output_type=types.RGB,
                                                random_area=[0.08, 1.0], random_aspect_ratio=[3 / 4, 4 / 3])
            img = fn.resize(img, resize_x=224, resize_y=224)
            img = fn.crop_mirror_normalize(img, dtype=types.FLOAT, output_layout="CHW", mean=mean, std=std,
                                           mirror=fn.random.coin_flip())
        else:
            img = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
            img = fn.resize(img, resize_shorter=256)
            img = fn.crop_mirror_normalize(img, dtype=types.FLOAT, output_layout="CHW", crop=(224, 224),
                                           mean=mean, std=std)
        return img, labels

    p = pipe()
    p.build()
    epoch = p.epoch_size("Reader")
    if nbatches == 0:
        nbatches = -(-epoch // batch)
    t0 = None
    n = total = 0
    out = None
    for done in range(1, nbatches + 1):
        out = p.run()
        k = len(out[0])
        total += k
        if done == warmup:
            t0 = time.perf_counter()
        elif done > warmup:
            n += k
    t1 = time.perf_counter()
    x = out[0].as_array()
    assert x.dtype.name == "float32" and tuple(x.shape[1:]) == (3, 224, 224), (x.dtype, x.shape)
    del p, out
    cpu = cpu_now() - c0
    print(json.dumps({"images_per_sec": n / (t1 - t0) if t0 else 0.0, "images": total, "cpu_s": cpu,
                      "dali_version": dali.__version__, "epoch_size": epoch}))


def default_venv():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "libfeed", "venv-dali")


def venv_python(venv):
    return os.path.join(venv, "bin", "python")


def dali_probe(py):
    """(version, None) if DALI imports and runs a CPU-only pipeline under py, else (None, why)."""
    code = ("import numpy, nvidia.dali as d, nvidia.dali.fn as fn\n"
            "from nvidia.dali import pipeline_def\n"
            "@pipeline_def(batch_size=1, num_threads=1, device_id=None, exec_dynamic=True)\n"
            "def p():\n    return fn.random.uniform(shape=[2])\n"
            "q = p(); q.build(); q.run(); print(d.__version__)\n")
    try:
        r = subprocess.run([py, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
    return r.stdout.strip().splitlines()[-1], None


def ensure_dali(args):
    """(python, version, None) or (None, None, reason)."""
    py = venv_python(args.venv)
    if os.access(py, os.X_OK):
        ver, why = dali_probe(py)
        if ver:
            return py, ver, None
        if args.no_install:
            return None, None, "DALI in %s does not run: %s" % (args.venv, why)
    elif args.no_install:
        return None, None, "no virtual environment at %s (--no-install)" % args.venv
    print("compare_dali: installing %s into %s (once)" % (args.dali_package, args.venv), flush=True)
    try:
        if not os.access(py, os.X_OK):
            subprocess.run([sys.executable, "-m", "venv", args.venv], check=True, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        subprocess.run([py, "-m", "pip", "install", "-q", args.dali_package, "numpy"], check=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", None) or str(e)
        return None, None, "cannot install %s into %s: %s" % (args.dali_package, args.venv,
                                                             err.strip().splitlines()[-1] if err.strip() else e)
    ver, why = dali_probe(py)
    if not ver:
        return None, None, "%s installed but DALI does not run CPU-only here: %s" % (args.dali_package, why)
    return py, ver, None


def dali_side(args, py, mode, nbatches):
    cmd = [py, os.path.abspath(__file__), "--_dali-run", mode, "--data", args.data, "--batch", str(args.batch),
           "--workers", str(args.workers), "--warmup", str(args.warmup), "--seed", str(args.seed),
           "--_nbatches", str(nbatches)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit("compare_dali: the DALI run failed (%d):\n%s" % (r.returncode, r.stderr))
    d = json.loads(r.stdout.strip().splitlines()[-1])
    return d["images_per_sec"], d["images"], d["cpu_s"]


def feed_side(args, mode, nbatches):
    """feedbench as a subprocess; nbatches 0: one whole epoch."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "fb.json")
        cmd = [args.feedbench, "--data", args.data, "--loader", "feed", "--batch", str(args.batch),
               "--workers", str(args.workers), "--augment", mode, "--dtype", "float32",
               "--warmup", str(args.warmup), "--seed", str(args.seed), "--quiet", "--no-progress", "--json", out]
        cmd += ["--batches", str(nbatches)] if nbatches else ["--epochs", "1"]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise SystemExit("compare_dali: feedbench failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr))
        with open(out) as f:
            d = json.load(f)
    return d["images_per_sec"], d["samples_delivered"], d["cpu_s"]


def skip(args, msg):
    print("compare_dali: SKIP: " + msg)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"skipped": True, "reason": msg}, f, indent=2)
            f.write("\n")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "data", "gen2000"))
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2,
                    help="libfeed worker processes and DALI threads")
    ap.add_argument("--images", type=int, default=512, help="images timed per measurement (after warm-up)")
    ap.add_argument("--warmup", type=int, default=4, help="batches not timed, on both sides")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds per mode")
    ap.add_argument("--cpu-rounds", type=int, default=1,
                    help="whole-epoch runs per side and mode for the CPU cost per image (0: skip)")
    ap.add_argument("--modes", default="train,val")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--feedbench", default=os.environ.get("FEEDBENCH", os.path.join(ROOT, "build", "bin", "feedbench")))
    ap.add_argument("--venv", default=default_venv(), help="virtual environment with DALI (made if missing)")
    ap.add_argument("--dali-package", default="nvidia-dali-cuda120")
    ap.add_argument("--no-install", action="store_true", help="use --venv as it is; skip if DALI is not there")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--_dali-run", dest="dali_run", help=argparse.SUPPRESS)
    ap.add_argument("--_nbatches", dest="nbatches", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.dali_run:
        dali_run(args.data, args.dali_run, args.batch, args.workers, args.nbatches, args.warmup, args.seed)
        return 0
    if not os.access(args.feedbench, os.X_OK):
        raise SystemExit("compare_dali: %s not found: build first (cmake --build build) or pass --feedbench"
                         % args.feedbench)
    if not os.path.isdir(args.data):
        raise SystemExit("compare_dali: --data %s is not a directory (make one: build/bin/feed-mkdata "
                         "--out data/gen2000 --count 2000 --seed 1)" % args.data)
    py, ver, why = ensure_dali(args)
    if not py:
        return skip(args, why)

    nbatches = args.warmup + max(1, -(-args.images // args.batch))
    modes = args.modes.split(",")
    res = {
        "data": args.data, "batch": args.batch, "workers": args.workers, "dali_threads": args.workers,
        "warmup_batches": args.warmup, "measured_batches": nbatches - args.warmup, "rounds": args.rounds,
        "nproc": os.cpu_count(), "cpu": cpu_model(), "dali_package": args.dali_package, "dali_version": ver,
        "dali_mode": "CPU only (device_id=None, exec_dynamic=True)", "feedbench": args.feedbench,
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
    }
    print("compare_dali: %s, batch %d, %d libfeed workers / DALI threads, %d timed batches after %d warm-up, "
          "%d rounds; %s x%d; DALI %s (%s, CPU only)" % (args.data, args.batch, args.workers, nbatches - args.warmup,
                                                         args.warmup, args.rounds, cpu_model(), os.cpu_count(), ver,
                                                         args.dali_package), flush=True)

    def measure(side, mode, nb):
        return feed_side(args, mode, nb) if side == "feed" else dali_side(args, py, mode, nb)

    for mode in modes:
        got = {"feed": [], "dali": []}
        loads = []
        for r in range(args.rounds):
            for side in ["feed", "dali"] if r % 2 == 0 else ["dali", "feed"]:
                loads.append(round(loadavg(), 2))
                got[side].append(measure(side, mode, nbatches)[0])
            print("  %-5s round %d: libfeed %7.1f img/s   DALI %7.1f img/s   ratio %5.2fx" % (
                mode, r + 1, got["feed"][-1], got["dali"][-1], got["feed"][-1] / got["dali"][-1]), flush=True)
        f, d = statistics.median(got["feed"]), statistics.median(got["dali"])
        res["feed_%s_img_s" % mode] = round(f, 2)
        res["dali_%s_img_s" % mode] = round(d, 2)
        res["ratio_%s" % mode] = round(f / d, 3)
        res["ratio_%s_rounds" % mode] = [round(a / b, 3) for a, b in zip(got["feed"], got["dali"])]
        res["rounds_%s" % mode] = {k: [round(x, 2) for x in v] for k, v in got.items()}
        res["rounds_%s" % mode]["loadavg_1m"] = loads

    if args.cpu_rounds > 0:
        print("\nCPU cost per image: one whole epoch per side, user+sys of the process, its threads and workers")
    for mode in modes if args.cpu_rounds > 0 else []:
        fc, dc = [], []
        for r in range(args.cpu_rounds):
            _, n, cpu = measure("feed", mode, 0)
            fc.append(cpu * 1e3 / n)
            _, n, cpu = measure("dali", mode, 0)
            dc.append(cpu * 1e3 / n)
        f, d = statistics.median(fc), statistics.median(dc)
        res["feed_%s_cpu_ms_per_img" % mode] = round(f, 3)
        res["dali_%s_cpu_ms_per_img" % mode] = round(d, 3)
        res["cpu_ratio_%s" % mode] = round(d / f, 3)
        print("  %-5s libfeed %.2f CPU-ms/image   DALI %.2f CPU-ms/image   DALI/libfeed %.2fx" % (mode, f, d, d / f),
              flush=True)

    print()
    print("images/s: medians over %d rounds; ratio = libfeed / DALI" % args.rounds)
    print("%-6s %14s %12s %8s %18s %14s %12s %10s" % ("mode", "libfeed img/s", "DALI img/s", "ratio", "ratio per round",
                                                      "libfeed CPU ms", "DALI CPU ms", "CPU ratio"))
    for mode in modes:
        rr = res["ratio_%s_rounds" % mode]
        c = res.get("cpu_ratio_%s" % mode)
        print("%-6s %14.1f %12.1f %7.2fx %18s %14s %12s %10s" % (
            mode, res["feed_%s_img_s" % mode], res["dali_%s_img_s" % mode], res["ratio_%s" % mode],
            "%.2f-%.2fx" % (min(rr), max(rr)),
            "%.2f" % res["feed_%s_cpu_ms_per_img" % mode] if c else "-",
            "%.2f" % res["dali_%s_cpu_ms_per_img" % mode] if c else "-", "%.2fx" % c if c else "-"))
    write_json(args.json, res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
