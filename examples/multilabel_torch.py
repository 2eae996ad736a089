#!/usr/bin/env python3
"""multilabel_torch.py - multi-label training with libfeed.torch: each image
may carry several classes, delivered as multi-hot float32 targets
(N x num_classes) that BCEWithLogitsLoss takes as they are.

    python3 examples/multilabel_torch.py [DATA_DIR] [--steps N] [--classes K]

Without DATA_DIR it makes a small dataset with feed-mkdata --multi-label
(its files.txt: "class_000/img_000000.jpg 0 4 3", the class first, then up
to two others) in a temporary folder. multi_label=True reads such lines;
batch.label_lists has each sample's labels as a list too.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import libfeed.torch
except ImportError:  # running from a source checkout: use its python/ package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import libfeed.torch

import torch


def make_data(out, classes):
    exe = shutil.which("feed-mkdata") or shutil.which("libfeed-mkdata")
    build = os.environ.get("LIBFEED_BUILD_DIR")
    if build:
        exe = os.path.join(build, "bin", "feed-mkdata")
    subprocess.run([exe, "--out", out, "--count", str(8 * classes), "--seed", "1", "--classes",
                    str(classes), "--multi-label", "3", "--quiet"], check=True)
    return os.path.join(out, "files.txt")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="?", help="a file list of 'path label label ...' lines")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--classes", type=int, default=6)
    a = ap.parse_args()
    tmp = None
    source = a.data
    if source is None:
        tmp = tempfile.mkdtemp(prefix="multilabel-")
        source = make_data(os.path.join(tmp, "data"), a.classes)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, stride=2), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(), torch.nn.Linear(8, a.classes))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    losses = []
    try:
        with libfeed.torch.Loader(source, multi_label=True, num_classes=a.classes, batch_size=8,
                                  size=32, workers=2, augment="train", dtype=torch.float32,
                                  layout="chw", device="cpu", seed=0) as loader:
            while len(losses) < a.steps:
                for images, targets in loader:  # one epoch
                    # targets: float32 (8, classes), 1.0 at each of a sample's labels
                    loss = loss_fn(model(images), targets)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    losses.append(loss.item())
                    print(f"step {len(losses) - 1}: loss {loss.item():.4f}, labels a sample "
                          f"{[int(n) for n in targets.sum(1).tolist()]}")
                    if len(losses) == a.steps:
                        break
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(losses)} steps, loss {losses[0]:.4f} -> {losses[-1]:.4f}")


if __name__ == "__main__":
    main()
