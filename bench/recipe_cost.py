#!/usr/bin/env python3
"""recipe_cost.py - what RandomErasing and MixUp/CutMix cost a batch, measured.

Runs feedbench (the C library, no Python) on the same data with augment=train
and float32 output, one configuration after another in each round (the order
rotating, so drift in the machine's load hits each alike):

  plain     augment=train
  erase     + erase_p=0.25 (constant value, torchvision's default)
  erase_px  + erase_p=0.25, erase_random=1 (timm's re_mode='pixel')
  mix       + mixup_alpha=0.2, cutmix_alpha=1.0, label_smoothing=0.1 (per batch, in the
              loader's thread, before next() returns)

and, asked for with --configs, the targets beyond one label (over the same
images, listed in the dataset's files.txt):

  targets   + targets= a .npy of N x 16 float32 made for the run (each batch
              carries its rows)
  multi     the images as a file list with 3 labels a line, multi_label=1
              (multi-hot float32 rows of the dataset's classes)

and, over WebDataset shards feed-mkdata --format tar --meta --targets makes
for the run (as many images as the data, 250 a shard), compared with each
other (--configs shards,meta):

  shards    the shards, one label a sample
  meta      + targets= their targets.npy (N x 3 float32) and
              meta_members=json:txt (each sample's KEY.json record and
              KEY.txt caption, 80-220 bytes each, read by the workers)

and prints, per configuration, images/s and CPU time per image (user + sys of
feedbench and its workers) as medians over the rounds, and each over plain's:
the cost as a share of the batch time. JSON with --json.

  python3 bench/recipe_cost.py --data data/gen2000 --batches 40 --rounds 5 \\
      --json bench/results/vm-2vcpu/recipe_cost.json
  python3 bench/recipe_cost.py --data data/gen2000 --configs plain,targets,multi \\
      --json bench/results/vm-2vcpu/targets_cost.json
  python3 bench/recipe_cost.py --data data/gen2000 --configs shards,meta \\
      --json bench/results/vm-2vcpu/meta_cost.json
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchcommon import cpu_model, loadavg, write_json  # noqa: E402

ROOT = os.path.dirname(HERE)
CONFIGS = [
    ("plain", ""),
    ("erase", "erase_p=0.25"),
    ("erase_px", "erase_p=0.25,erase_random=1"),
    ("mix", "mixup_alpha=0.2,cutmix_alpha=1.0,label_smoothing=0.1"),
    ("targets", "targets={tmp}/targets.npy"),
    ("multi", "multi_label=1"),
    ("shards", ""),
    ("meta", "targets={tmp}/shards/targets.npy,meta_members=json:txt"),
]


def make_inputs(data, tmp):
    """targets.npy (N x 16 float32) and multi.txt (each line of files.txt with
    two more labels) for the targets and multi configurations."""
    import numpy as np
    with open(os.path.join(data, "files.txt")) as f:
        lines = [ln.split() for ln in f if ln.strip()]
    classes = max(int(w[1]) for w in lines) + 1
    rng = np.random.default_rng(0)
    np.save(os.path.join(tmp, "targets.npy"), rng.standard_normal((len(lines), 16), dtype=np.float32))
    with open(os.path.join(tmp, "multi.txt"), "w") as f:
        for path, label in lines:
            c = int(label)
            f.write("%s %d %d %d\n" % (os.path.join(os.path.abspath(data), path), c, (c + 1) % classes,
                                       (c + 2) % classes))


def make_shards(args, tmp):
    """The shard set of the shards and meta configurations: as many images as
    the data's files.txt lists."""
    with open(os.path.join(args.data, "files.txt")) as f:
        n = sum(1 for ln in f if ln.strip())
    mk = os.path.join(os.path.dirname(args.feedbench), "feed-mkdata")
    subprocess.run([mk, "--out", os.path.join(tmp, "shards"), "--count", str(n), "--seed", "1", "--format", "tar",
                    "--shard-size", "250", "--meta", "--targets", "--quiet"], check=True)


def run(args, name, opts):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "fb.json")
        data = {"multi": os.path.join(args.tmp, "multi.txt"), "shards": os.path.join(args.tmp, "shards", "shards.txt"),
                "meta": os.path.join(args.tmp, "shards", "shards.txt")}.get(name, args.data)
        opts = opts.replace("{tmp}", args.tmp)
        cmd = [args.feedbench, "--data", data, "--batch", str(args.batch), "--workers", str(args.workers),
               "--augment", "train", "--dtype", "float32", "--batches", str(args.batches), "--warmup", "4",
               "--quiet", "--no-progress", "--json", out]
        if opts:
            cmd += ["--opts", opts]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise SystemExit("recipe_cost: %s failed:\n%s" % (" ".join(cmd), r.stderr))
        with open(out) as f:
            d = json.load(f)
    return d["images_per_sec"], d["cpu_s"] * 1e3 / d["samples_delivered"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "data", "gen2000"))
    ap.add_argument("--feedbench", default=os.path.join(ROOT, "build", "bin", "feedbench"))
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batches", type=int, default=40, help="batches per run (4 more of warm-up)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--configs", default="plain,erase,erase_px,mix",
                    help="which, by name (plain or shards first: the others are compared with it): " +
                    ",".join(n for n, _ in CONFIGS))
    ap.add_argument("--json")
    args = ap.parse_args()
    names = args.configs.split(",")
    known = dict(CONFIGS)
    if names[0] not in ("plain", "shards") or any(n not in known for n in names):
        ap.error("--configs: plain or shards first, then any of " + ",".join(known))
    configs = [(n, known[n]) for n in names]
    with tempfile.TemporaryDirectory() as tmp:
        args.tmp = tmp
        if "targets" in names or "multi" in names:
            make_inputs(args.data, tmp)
        if "shards" in names or "meta" in names:
            make_shards(args, tmp)
        return measure(args, configs)


def measure(args, CONFIGS):
    got = {name: {"img_s": [], "cpu_ms": []} for name, _ in CONFIGS}
    loads = []
    for r in range(args.rounds):
        order = CONFIGS[r % len(CONFIGS):] + CONFIGS[:r % len(CONFIGS)]
        for name, opts in order:
            loads.append(round(loadavg(), 2))
            v, c = run(args, name, opts)
            got[name]["img_s"].append(round(v, 2))
            got[name]["cpu_ms"].append(round(c, 4))
        print("round %d: " % (r + 1) + "  ".join("%s %.0f img/s" % (n, got[n]["img_s"][-1]) for n, _ in CONFIGS),
              flush=True)
    res = {"data": args.data, "batch": args.batch, "workers": args.workers, "batches": args.batches,
           "rounds": args.rounds, "dtype": "float32", "augment": "train", "cpu": cpu_model(),
           "nproc": os.cpu_count(), "loadavg_1m": loads, "configs": {}}
    base = CONFIGS[0][0]
    res["base"] = base
    p_img = statistics.median(got[base]["img_s"])
    p_cpu = statistics.median(got[base]["cpu_ms"])
    print("\n%-9s %10s %14s %16s %18s" % ("config", "images/s", "CPU ms/image", "time vs " + base, "CPU vs " + base))
    for name, opts in CONFIGS:
        v, c = statistics.median(got[name]["img_s"]), statistics.median(got[name]["cpu_ms"])
        res["configs"][name] = {"opts": opts, "img_s": round(v, 2), "cpu_ms_per_img": round(c, 4),
                                "time_over_plain": round(p_img / v, 4), "cpu_over_plain": round(c / p_cpu, 4),
                                "rounds": got[name]}
        print("%-9s %10.1f %14.3f %15.3fx %17.3fx" % (name, v, c, p_img / v, c / p_cpu))
    write_json(args.json, res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
