#!/usr/bin/env python3
"""A torchvision model trained from a folder through libfeed.torch.DataLoader.

    python examples/train_torchvision.py /data/imagenet/train --steps 100
    python examples/train_torchvision.py DATA --steps 4 --size 64 --batch 8   # a few CPU steps

The same loop as with torch.utils.data.DataLoader(ImageFolder(root, transform=...)):
only the loader line differs (the transform is augment="train", done in C by
libfeed's workers). Prints one line per step and, at the end, a JSON line:
steps, images seen, first and last loss, how far the weights moved, and the
loader's stats (images/s, busy fraction, bad samples).
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import libfeed.torch  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", help="ImageFolder root")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--model", default="resnet18", help="a torchvision.models constructor")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args()
    torch.manual_seed(0)

    # Was: DataLoader(ImageFolder(args.data, transform=T.Compose([T.RandomResizedCrop(size),
    #      T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(mean, std)])),
    #      batch_size=..., shuffle=True, num_workers=..., pin_memory=True, drop_last=True)
    loader = libfeed.torch.DataLoader(args.data, batch_size=args.batch, shuffle=True,
                                      num_workers=args.workers, drop_last=True,
                                      pin_memory=args.device.startswith("cuda"),
                                      augment="train", size=args.size)
    model = getattr(torchvision.models, args.model)(num_classes=loader.num_classes).to(args.device)
    before = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    model.train()
    step, seen, losses = 0, 0, []
    while step < args.steps:
        for images, labels in loader:  # one epoch
            images = images.to(args.device, non_blocking=True)
            labels = labels.to(args.device, non_blocking=True)
            loss = F.cross_entropy(model(images), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step, seen = step + 1, seen + len(labels)
            losses.append(loss.item())
            print(f"step {step} loss {losses[-1]:.4f}", flush=True)
            if step == args.steps:
                break
        del images, labels  # a batch's tensors hold its ring slot; the next epoch wants it back
    moved = sum((p.detach() - b).norm().item() ** 2
                for p, b in zip(model.parameters(), before)) ** 0.5
    st = loader.stats()
    print(st.summary(), file=sys.stderr)
    print(json.dumps({"steps": step, "images": seen, "first_loss": losses[0],
                      "last_loss": losses[-1], "weights_moved": moved,
                      "images_per_sec": st.images_per_sec, "busy_fraction": st.busy_fraction,
                      "bad_samples": st.bad_samples}))
    loader.close()


if __name__ == "__main__":
    main()
