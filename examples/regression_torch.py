#!/usr/bin/env python3
"""regression_torch.py - a per-sample target vector with libfeed.torch: each
image comes with a row of targets.npy (here its mean R, G, B, which
feed-mkdata --targets writes), as batch.targets, for MSELoss.

    python3 examples/regression_torch.py [DATA_DIR] [--steps N]

DATA_DIR holds images and targets.npy (N x K, row i for sample i in the
dataset's order); without it a small dataset is made with feed-mkdata
--targets in a temporary folder. A .csv file list with a header works the
same with target_columns="r:g:b" instead of targets=.
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


def make_data(out):
    exe = shutil.which("feed-mkdata") or shutil.which("libfeed-mkdata")
    build = os.environ.get("LIBFEED_BUILD_DIR")
    if build:
        exe = os.path.join(build, "bin", "feed-mkdata")
    subprocess.run([exe, "--out", out, "--count", "48", "--seed", "1", "--classes", "4", "--targets",
                    "--quiet"], check=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="?", help="an image folder with targets.npy in it")
    ap.add_argument("--steps", type=int, default=8)
    a = ap.parse_args()
    tmp = None
    data = a.data
    if data is None:
        tmp = tempfile.mkdtemp(prefix="regression-")
        data = make_data(os.path.join(tmp, "data"))
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, stride=2), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(), torch.nn.Linear(8, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    loss_fn = torch.nn.MSELoss()
    losses = []
    try:
        with libfeed.torch.Loader(data, targets=os.path.join(data, "targets.npy"), batch_size=8, size=32,
                                  workers=2, augment="val", dtype=torch.float32, layout="chw", device="cpu",
                                  seed=0) as loader:
            while len(losses) < a.steps:
                for batch in loader:  # one epoch
                    images, targets = batch[0], batch.targets  # targets: float32 (8, 3)
                    loss = loss_fn(model(images), targets)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    losses.append(loss.item())
                    print(f"step {len(losses) - 1}: loss {loss.item():.5f}, first target "
                          f"{[round(v, 3) for v in targets[0].tolist()]}")
                    if len(losses) == a.steps:
                        break
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(losses)} steps, loss {losses[0]:.5f} -> {losses[-1]:.5f}")


if __name__ == "__main__":
    main()
