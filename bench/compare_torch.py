#!/usr/bin/env python3
"""compare_torch.py - libfeed next to torch.utils.data.DataLoader + torchvision.

Runs the same dataset, batch size, worker count and transforms through

  * torch.utils.data.DataLoader(torchvision.datasets.ImageFolder(...)), with
      train: RandomResizedCrop(224) + RandomHorizontalFlip() + ToTensor() + Normalize(ImageNet)
      val:   Resize(256) + CenterCrop(224) + ToTensor() + Normalize(ImageNet)
  * libfeed.torch.DataLoader(root, the same DataLoader arguments, augment=train|val):
    the same transforms, normalized float32 CHW torch tensors on the host, in
    worker processes - what a PyTorch user gets after switching
  * libfeed's C library alone (build/bin/feedbench --loader feed --dtype float32),
    the "C" column: the binding must stay within noise of it
  * and, unless --no-sync, libfeed's pipeline in the training thread
    (feedbench --loader sync: the naive loop, for the "vs sync" ratio)

With --modes recipe, both sides run torchvision's ResNet-50 reference recipe
(RandomResizedCrop 176, flip, TrivialAugmentWide (bilinear), PILToTensor, ToDtype,
Normalize, RandomErasing 0.1, then MixUp 0.2 or CutMix 1.0 per batch), the same
torchvision.transforms.v2 objects on both sides (libfeed.torch.DataLoader takes them
as they are); this needs torchvision >= 0.16 (PyPI's: scripts/torch-venv).

alternately in one run (ABBA order over --rounds rounds, so drift in the
machine's load hits both sides alike), and prints images/s of each and the
ratios (medians over the rounds). Both sides exclude the first --warmup
batches (worker start-up, first reads) and then time --images images.

Without a usable Python binding (or with --no-binding) the libfeed side is
feedbench's (see the README, "Compared with PyTorch's DataLoader").

Without torch/torchvision it prints why and exits 0 (skip). Debian:
  apt-get install python3-torch python3-torchvision ; then run with /usr/bin/python3

  /usr/bin/python3 bench/compare_torch.py --data data/gen2000 --batch 64 --workers 2 \\
      --json bench/results/MACHINE/compare_torch.json
"""
import argparse
import gc
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


# --modes recipe: torchvision's ResNet-50 reference recipe (references/classification:
# presets.ClassificationPresetTrain with --train-crop-size 176 --auto-augment ta_wide
# --random-erase 0.1, and train.py's --mixup-alpha 0.2 --cutmix-alpha 1.0), the same
# objects on both sides: torch's DataLoader runs them, libfeed.torch.DataLoader translates them.
RECIPE_SIZE = 176
# feedbench's (C) options for the same recipe, for the "C" column
RECIPE_OPTS = ("height=176,width=176,auto_augment=trivialaugment,aa_interpolation=bilinear,erase_p=0.1,"
               "mixup_alpha=0.2,cutmix_alpha=1.0,mix_switch_p=0.5")


def recipe(num_classes):
    """(transform, batch mix) of the reference recipe, torchvision.transforms.v2."""
    import torch
    from torchvision.transforms import v2

    tf = v2.Compose([v2.RandomResizedCrop(RECIPE_SIZE, antialias=True), v2.RandomHorizontalFlip(0.5),
                     v2.TrivialAugmentWide(interpolation=v2.InterpolationMode.BILINEAR), v2.PILToTensor(),
                     v2.ToDtype(torch.float, scale=True), v2.Normalize(MEAN, STD), v2.RandomErasing(0.1)])
    mix = v2.RandomChoice([v2.MixUp(alpha=0.2, num_classes=num_classes),
                           v2.CutMix(alpha=1.0, num_classes=num_classes)])
    return tf, mix


def out_size(mode):
    return RECIPE_SIZE if mode == "recipe" else 224


def torch_run(data, mode, batch, workers, nbatches, warmup, seed):
    """In a child process: time nbatches batches (0: one whole epoch) after warmup.
    Prints one JSON line: images/s over the timed window and images delivered."""
    import torch
    import torchvision
    import torchvision.transforms as T
    from torch.utils.data import DataLoader, default_collate

    norm = T.Normalize(MEAN, STD)
    collate = None
    if mode == "recipe":
        classes = torchvision.datasets.ImageFolder(data).classes
        tf, mix = recipe(len(classes))

        def collate(samples):  # train.py's collate_fn: the batch mix after default_collate
            return mix(*default_collate(samples))
    elif mode == "train":
        tf = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), norm])
    else:
        tf = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), norm])
    ds = torchvision.datasets.ImageFolder(data, transform=tf)
    g = torch.Generator()
    g.manual_seed(seed)
    dl = DataLoader(ds, batch_size=batch, shuffle=True, num_workers=workers, drop_last=False, generator=g,
                    pin_memory=False, collate_fn=collate)
    if nbatches == 0:
        nbatches = len(dl)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    c0 = r0.ru_utime + r0.ru_stime  # imports and set-up are not the loader's cost
    t0 = None
    n = total = done = 0
    x = None
    # The same window as feedbench: the clock starts when the warm-up
    # batches have been received, and counts the batches after them.
    while done < nbatches:
        for x, _ in dl:
            done += 1
            total += x.shape[0]
            if done == warmup:
                t0 = time.perf_counter()
            elif done > warmup:
                n += x.shape[0]
            if done == nbatches:
                break
    t1 = time.perf_counter()
    assert x.dtype == torch.float32 and tuple(x.shape[1:]) == (3, out_size(mode), out_size(mode))
    del dl, x
    gc.collect()  # the iterator shuts its workers down and joins them (reaped: RUSAGE_CHILDREN)
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    rc = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r1.ru_utime + r1.ru_stime + rc.ru_utime + rc.ru_stime - c0
    print(json.dumps({"images_per_sec": n / (t1 - t0) if t0 else 0.0, "images": total, "cpu_s": cpu}))


def libfeed_run(data, mode, batch, workers, nbatches, warmup, seed):
    """In a child process: libfeed as a PyTorch user gets it after switching,
    libfeed.torch.DataLoader with torch_run's DataLoader arguments (float32
    CHW torch tensors, normalised), timed exactly as torch_run times the
    DataLoader."""
    import torch
    from libfeed.torch import DataLoader

    r0 = resource.getrusage(resource.RUSAGE_SELF)
    c0 = r0.ru_utime + r0.ru_stime
    g = torch.Generator()
    g.manual_seed(seed)
    if mode == "recipe":  # torch_run's objects, taken as they are
        import torchvision
        classes = torchvision.datasets.ImageFolder(data).classes
        tf, mix = recipe(len(classes))
        ld = DataLoader(torchvision.datasets.ImageFolder(data, transform=tf), batch_size=batch, shuffle=True,
                        num_workers=workers, drop_last=False, generator=g, pin_memory=False, mix=mix)
    else:  # torch_run's DataLoader line, with the transform as augment=.
        ld = DataLoader(data, batch_size=batch, shuffle=True, num_workers=workers, drop_last=False, generator=g,
                        pin_memory=False, augment=mode)
    if nbatches == 0:
        nbatches = len(ld)
    t0 = None
    n = total = done = 0
    x = None
    while done < nbatches:
        for x, _ in ld:  # one epoch per for, as DataLoader
            done += 1
            total += x.shape[0]
            if done == warmup:
                t0 = time.perf_counter()
            elif done > warmup:
                n += x.shape[0]
            if done == nbatches:
                break
    t1 = time.perf_counter()
    assert x.dtype == torch.float32 and tuple(x.shape[1:]) == (3, out_size(mode), out_size(mode))
    del x
    ld.close()  # workers stopped and reaped: their CPU time is in RUSAGE_CHILDREN
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    rc = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r1.ru_utime + r1.ru_stime + rc.ru_utime + rc.ru_stime - c0
    print(json.dumps({"images_per_sec": n / (t1 - t0) if t0 else 0.0, "images": total, "cpu_s": cpu}))


def binding_env(args):
    """Environment for a child that imports the binding from this source tree,
    with the libfeed.so built next to --feedbench."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.feedbench))), "lib", "libfeed.so")
    if os.path.exists(lib) and "LIBFEED_LIBRARY" not in env:
        env["LIBFEED_LIBRARY"] = lib
    return env


def binding_usable(args):
    r = subprocess.run([sys.executable, "-c", "from libfeed.torch import DataLoader; import libfeed; "
                        "print(libfeed.library_path)"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=binding_env(args))
    return (r.stdout.strip(), None) if r.returncode == 0 else (None, (r.stderr.strip().splitlines() or ["?"])[-1])


def binding_side(args, mode, nbatches):
    cmd = [sys.executable, os.path.abspath(__file__), "--_libfeed-run", mode, "--data", args.data,
           "--batch", str(args.batch), "--workers", str(args.workers), "--warmup", str(args.warmup),
           "--seed", str(args.seed), "--_nbatches", str(nbatches)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=binding_env(args))
    if r.returncode != 0:
        raise SystemExit("compare_torch: the libfeed (Python) run failed (%d):\n%s" % (r.returncode, r.stderr))
    d = json.loads(r.stdout.strip().splitlines()[-1])
    return d["images_per_sec"], d["images"], d["cpu_s"]


def torch_side(args, mode, nbatches):
    """The torch DataLoader in a child process (a fresh interpreter each time,
    as feedbench is a fresh process). Returns (images/s, images, CPU s)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--_torch-run", mode, "--data", args.data,
           "--batch", str(args.batch), "--workers", str(args.workers), "--warmup", str(args.warmup),
           "--seed", str(args.seed), "--_nbatches", str(nbatches)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit("compare_torch: the torch run failed (%d):\n%s" % (r.returncode, r.stderr))
    d = json.loads(r.stdout.strip().splitlines()[-1])
    return d["images_per_sec"], d["images"], d["cpu_s"]


def feed_side(args, mode, nbatches, loader):
    """feedbench as a subprocess; nbatches 0: one whole epoch."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "fb.json")
        cmd = [args.feedbench, "--data", args.data, "--loader", loader, "--batch", str(args.batch),
               "--workers", str(args.workers), "--augment", "train" if mode == "recipe" else mode,
               "--dtype", "float32"] + (["--opts", RECIPE_OPTS] if mode == "recipe" else []) + [
               "--warmup", str(args.warmup), "--seed", str(args.seed), "--quiet", "--no-progress", "--json", out]
        cmd += ["--batches", str(nbatches)] if nbatches else ["--epochs", "1"]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise SystemExit("compare_torch: feedbench failed (%d): %s\n%s" % (r.returncode, " ".join(cmd),
                                                                               r.stderr))
        with open(out) as f:
            d = json.load(f)
    return d["images_per_sec"], d["samples_delivered"], d["cpu_s"], d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "data", "gen2000"))
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--images", type=int, default=512, help="images timed per measurement (after warm-up)")
    ap.add_argument("--warmup", type=int, default=4,
                    help="batches not timed, on both sides (default 4: worker start-up and the first pass "
                         "over libfeed's 4 ring slots)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds per mode")
    ap.add_argument("--cpu-rounds", type=int, default=1,
                    help="whole-epoch runs per side and mode for the CPU cost per image (0: skip)")
    ap.add_argument("--modes", default="train,val", help="train, val, recipe (comma-separated)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-sync", action="store_true", help="skip the feedbench --loader sync column")
    ap.add_argument("--feedbench", default=os.environ.get("FEEDBENCH", os.path.join(ROOT, "build", "bin", "feedbench")))
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--no-binding", action="store_true",
                    help="measure libfeed through feedbench (C) only, not the Python binding")
    ap.add_argument("--_torch-run", dest="torch_run", help=argparse.SUPPRESS)
    ap.add_argument("--_libfeed-run", dest="libfeed_run", help=argparse.SUPPRESS)
    ap.add_argument("--_nbatches", dest="nbatches", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.torch_run:
        torch_run(args.data, args.torch_run, args.batch, args.workers, args.nbatches, args.warmup, args.seed)
        return 0
    if args.libfeed_run:
        libfeed_run(args.data, args.libfeed_run, args.batch, args.workers, args.nbatches, args.warmup, args.seed)
        return 0
    try:
        import torch
        import torchvision
    except ImportError as e:
        msg = ("compare_torch: SKIP: torch/torchvision cannot be imported by %s (%s). "
               "Install them (Debian: apt-get install python3-torch python3-torchvision) and run "
               "this script with that Python (/usr/bin/python3)." % (sys.executable, e))
        print(msg)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"skipped": True, "reason": msg}, f, indent=2)
        return 0
    if not os.access(args.feedbench, os.X_OK):
        raise SystemExit("compare_torch: %s not found: build first (cmake --build build) or pass --feedbench"
                         % args.feedbench)
    if not os.path.isdir(args.data):
        raise SystemExit("compare_torch: --data %s is not a directory (make one: build/bin/feed-mkdata "
                         "--out data/gen2000 --count 2000 --seed 1)" % args.data)

    nbatches = args.warmup + max(1, -(-args.images // args.batch))
    modes = args.modes.split(",")
    libpath, why = (None, "--no-binding") if args.no_binding else binding_usable(args)
    res = {
        "data": args.data, "batch": args.batch, "workers": args.workers, "warmup_batches": args.warmup,
        "measured_batches": nbatches - args.warmup, "rounds": args.rounds, "nproc": os.cpu_count(),
        "cpu": cpu_model(), "torch_version": torch.__version__, "torchvision_version": torchvision.__version__,
        "python": sys.executable, "feedbench": args.feedbench,
        "libfeed_side": ("libfeed.torch.DataLoader (%s), float32" % libpath if libpath else
                         "feedbench subprocess (--loader feed --dtype float32): the Python binding is not "
                         "usable (%s)" % why),
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
    }
    print("compare_torch: %s, batch %d, workers %d, %d timed batches after %d warm-up, %d rounds; %s x%d"
          % (args.data, args.batch, args.workers, nbatches - args.warmup, args.warmup, args.rounds,
             cpu_model(), os.cpu_count()))
    print("torch %s, torchvision %s; libfeed: %s; libfeed (C): %s"
          % (torch.__version__, torchvision.__version__, res["libfeed_side"], args.feedbench))

    # sides: feed = libfeed as the headline number (binding if usable, else
    # feedbench), feedc = feedbench in C (if feed is the binding), torch, sync.
    def measure(side, mode, nb):
        """(images/s, images, CPU s) of one run; nb 0 = one whole epoch."""
        if side == "feed" and libpath:
            return binding_side(args, mode, nb)
        if side in ("feed", "feedc"):
            v, n, cpu, fd = feed_side(args, mode, nb, "feed")
            res["reader"], res["backend"] = fd.get("reader"), fd.get("backend")
            return v, n, cpu
        if side == "sync":
            return feed_side(args, mode, nb, "sync")[:3]
        return torch_side(args, mode, nb)

    for mode in modes:
        # the sync loop (feedbench --loader sync) has no batch mix: no column for the recipe
        extra = (["feedc"] if libpath else []) + ([] if args.no_sync or mode == "recipe" else ["sync"])
        got = {k: [] for k in ["feed", "torch"] + extra}
        loads = []
        for r in range(args.rounds):
            # ABBA: libfeed and torch take turns going first
            for side in (["feed", "torch"] if r % 2 == 0 else ["torch", "feed"]) + extra:
                loads.append(round(loadavg(), 2))
                got[side].append(measure(side, mode, nbatches)[0])
            line = "  %-5s round %d: libfeed %7.1f img/s   torch %7.1f img/s   ratio %5.2fx" % (
                mode, r + 1, got["feed"][-1], got["torch"][-1], got["feed"][-1] / got["torch"][-1])
            if "feedc" in got:
                line += "   | C %7.1f" % got["feedc"][-1]
            if "sync" in got:
                line += "   sync %6.1f (libfeed/sync %.2fx)" % (got["sync"][-1], got["feed"][-1] / got["sync"][-1])
            print(line, flush=True)
        feed, tch = got["feed"], got["torch"]
        f, t = statistics.median(feed), statistics.median(tch)
        res["feed_%s_img_s" % mode] = round(f, 2)
        res["torch_%s_img_s" % mode] = round(t, 2)
        res["ratio_%s" % mode] = round(f / t, 3)
        # per-round ratios (each pair ran back to back) and the best of each side
        res["ratio_%s_rounds" % mode] = [round(a / b, 3) for a, b in zip(feed, tch)]
        res["feed_%s_img_s_best" % mode] = round(max(feed), 2)
        res["torch_%s_img_s_best" % mode] = round(max(tch), 2)
        res["ratio_%s_best" % mode] = round(max(feed) / max(tch), 3)
        res["rounds_%s" % mode] = {k: [round(x, 2) for x in v] for k, v in got.items()}
        res["rounds_%s" % mode]["loadavg_1m"] = loads
        if "feedc" in got:
            res["feedc_%s_img_s" % mode] = round(statistics.median(got["feedc"]), 2)
        if "sync" in got:
            sy = statistics.median(got["sync"])
            res["sync_%s_img_s" % mode] = round(sy, 2)
            res["ratio_sync_%s" % mode] = round(f / sy, 3)

    # CPU cost per image: user+sys CPU time of the run (the process and every
    # worker it reaped; for Python without the interpreter's start-up) over
    # the images it delivered, one whole epoch each (so no prefetched batch
    # is thrown away). Other processes on the machine barely change it,
    # unlike images/s.
    if args.cpu_rounds > 0:
        print("\nCPU cost per image: one whole epoch per side, user+sys of the process and its workers")
    for mode in modes if args.cpu_rounds > 0 else []:
        fc, tc, cc = [], [], []
        for r in range(args.cpu_rounds):
            _, n, cpu = measure("feed", mode, 0)
            fc.append(cpu * 1e3 / n)
            _, n, cpu = measure("torch", mode, 0)
            tc.append(cpu * 1e3 / n)
            if libpath:  # the C library alone: what the binding adds per image
                _, n, cpu = measure("feedc", mode, 0)
                cc.append(cpu * 1e3 / n)
        f, t = statistics.median(fc), statistics.median(tc)
        res["feed_%s_cpu_ms_per_img" % mode] = round(f, 3)
        res["torch_%s_cpu_ms_per_img" % mode] = round(t, 3)
        res["cpu_ratio_%s" % mode] = round(t / f, 3)
        line = "  %-5s libfeed %.2f CPU-ms/image   torch %.2f CPU-ms/image   torch/libfeed %.2fx" % (
            mode, f, t, t / f)
        if cc:
            c = statistics.median(cc)
            res["feedc_%s_cpu_ms_per_img" % mode] = round(c, 3)
            line += "   | C %.2f CPU-ms/image" % c
        print(line, flush=True)

    print()
    print("images/s: medians over %d rounds (best of each side in brackets)" % args.rounds)
    print("%-6s %20s %20s %16s %10s %11s %8s %10s" % ("mode", "libfeed img/s", "torch img/s", "ratio",
                                                      "C img/s", "sync img/s", "vs sync", "CPU ratio"))
    for mode in modes:
        sy = res.get("sync_%s_img_s" % mode)
        c = res.get("cpu_ratio_%s" % mode)
        fcv = res.get("feedc_%s_img_s" % mode)
        print("%-6s %10.1f [%7.1f] %10.1f [%7.1f] %6.2fx [%5.2fx] %10s %11s %8s %10s" % (
            mode, res["feed_%s_img_s" % mode], res["feed_%s_img_s_best" % mode], res["torch_%s_img_s" % mode],
            res["torch_%s_img_s_best" % mode], res["ratio_%s" % mode], res["ratio_%s_best" % mode],
            "%.1f" % fcv if fcv else "-", "%.1f" % sy if sy else "-",
            "%.2fx" % res["ratio_sync_%s" % mode] if sy else "-", "%.2fx" % c if c else "-"))
    print("libfeed: %s" % res["libfeed_side"])
    write_json(args.json, res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
