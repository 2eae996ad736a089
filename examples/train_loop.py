#!/usr/bin/env python3
"""train_loop.py - the skeleton of a training loop fed by libfeed, in Python.

    python3 examples/train_loop.py DATA_DIR [key=value,...] [--torch]

The Python twin of examples/train_loop.c, with the same defaults
(batch_size=64, workers=2, augment=train, epochs=2, host memory); the
key=value list overrides them. Prints images/s per epoch. With
TRAIN_LOOP_PRINT_BATCHES=1 it also prints the C example's checksum of every
batch and the final checksum line, so the two can be compared (the checksum
is plain Python: keep such runs small).

--torch trains a tiny convolutional model with libfeed.torch (on the GPU when
there is one: device=auto, float32 CHW batches converted on the device).
"""
import argparse
import os
import sys
import time

try:
    import libfeed
except ImportError:  # running from a source checkout: use its python/ package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import libfeed

import numpy as np

FNV_OFFSET, FNV_PRIME, MASK = 0xcbf29ce484222325, 0x100000001b3, (1 << 64) - 1


def batch_checksum(images, labels):
    """train_step() of train_loop.c: FNV-1a over the bytes, then each label."""
    h = FNV_OFFSET
    for b in np.ascontiguousarray(images).tobytes():
        h = ((h ^ b) * FNV_PRIME) & MASK
    for lab in np.asarray(labels).astype(np.int64):
        h = ((h ^ (int(lab) & MASK)) * FNV_PRIME) & MASK
    return h


def numpy_step(images, labels):
    """Stands in for the model: touches every byte of the batch."""
    return float(np.asarray(images, dtype=np.float32).mean())


def make_torch_step(loader):
    import torch

    device = torch.device("cpu" if loader.device == "cpu" else loader.device)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
        torch.nn.Linear(16, max(loader.num_classes, 1))).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def step(images, labels):
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss  # no .item(): never make the host wait for the GPU

    return step


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", help="ImageFolder root")
    ap.add_argument("options", nargs="?", default="", help="key=value,... (include/feed.h)")
    ap.add_argument("--torch", action="store_true", help="train a tiny model with libfeed.torch")
    args = ap.parse_args()
    print_batches = bool(os.environ.get("TRAIN_LOOP_PRINT_BATCHES"))

    defaults = dict(batch_size=64, workers=2, augment="train", epochs=2, device="cpu")
    if args.torch:
        import libfeed.torch as lt

        defaults.update(device="auto", dtype="float32")
        Loader = lt.Loader
    else:
        Loader = libfeed.Loader
    try:
        loader = Loader(args.data, options=args.options, **defaults)
    except libfeed.FeedError as e:
        print(f"libfeed: {e}", file=sys.stderr)
        return 2 if isinstance(e, ValueError) else 1

    with loader:
        print(f"libfeed {libfeed.library_version}: {loader.samples_per_epoch} samples/epoch, "
              f"{len(loader)} batches/epoch, {loader.num_classes} classes, device {loader.device}")
        step = make_torch_step(loader) if args.torch else numpy_step
        total, epoch = 0, loader.position()[0]
        while True:
            loader.set_epoch(epoch)  # as with DistributedSampler; free when in order
            images_seen, t0 = 0, time.perf_counter()
            for batch in loader:
                images, labels = batch
                step(images, labels)
                if print_batches:
                    if args.torch:
                        images, labels = images.cpu().numpy(), labels.cpu().numpy()
                    h = batch_checksum(images, labels)
                    total ^= (h + batch.index) & MASK
                    print(f"batch {batch.epoch}.{batch.index} {h:016x}")
                images_seen += len(labels)
            if images_seen == 0:  # epochs=N reached (END_OF_DATA)
                break
            t = time.perf_counter() - t0
            print(f"epoch done: {images_seen} images in {t:.2f} s = {images_seen / t:.1f} images/s")
            epoch += 1
        s = loader.stats()
        head = f"checksum {total:016x}; " if print_batches else ""
        print(f"{head}delivered {s['samples_delivered']}, bad {s['samples_bad']}, restarts "
              f"{s['worker_restarts']}, reader {s['reader']}, backend {s['backend']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
