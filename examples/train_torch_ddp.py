#!/usr/bin/env python3
"""Data-parallel training fed by libfeed: one process per GPU, under torchrun.

    torchrun --nproc_per_node=8 examples/train_torch_ddp.py /data/imagenet/train
    torchrun --nproc_per_node=2 examples/train_torch_ddp.py DATA --device cpu   # no GPU

Each rank reads its own share of every epoch (rank/world_size="auto": the
process group's), batches arrive on the rank's GPU (device="cuda:local")
already normalized to bfloat16 CHW, and a checkpoint holds the loader's
position, so --resume continues with exactly the batches that were next.
The position is a sample position in the epoch's order, so a job that comes
back with another number of GPUs (or another --batch) resumes too: the rest
of the epoch is split among the new ranks, nothing delivered twice or skipped
(feed_loader_seek_samples in feed.h). --stop-at N saves a checkpoint after N
steps and stops, as a preempted job would.
The model is a small CNN: the point is the input pipeline. Any launcher that
sets RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT works (torchrun, srun + env).
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import libfeed.torch as lt  # noqa: E402


def model(num_classes):
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=2, padding=1, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU(inplace=True))
    return nn.Sequential(block(3, 32), block(32, 64), block(64, 128), block(128, 256),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, num_classes))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", help="ImageFolder root")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64, help="per rank")
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--max-steps", type=int, default=0, help="per epoch (0: all)")
    ap.add_argument("--checkpoint", help="save here after each epoch")
    ap.add_argument("--resume", help="checkpoint to continue from")
    ap.add_argument("--stop-at", type=int, default=0,
                    help="save --checkpoint after this many steps of this run and stop")
    ap.add_argument("--step-log", help="each rank writes a line per step to STEP_LOG.rankN: epoch, "
                    "batch, sample ids, loss (JSON)")
    args = ap.parse_args()

    cuda = args.device == "cuda"
    dist.init_process_group("nccl" if cuda else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    if cuda:
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)) % torch.cuda.device_count())

    loader = lt.Loader(args.data, batch_size=args.batch, size=args.size, augment="train",
                       workers=args.workers, seed=0, rank="auto", world_size="auto",
                       dtype=torch.bfloat16 if cuda else torch.float32,
                       device="cuda:local" if cuda else "cpu")
    dev = torch.device("cuda", torch.cuda.current_device()) if cuda else torch.device("cpu")
    torch.manual_seed(0)  # the same initial model in every run (DDP copies rank 0's anyway)
    net = model(loader.num_classes).to(dev)
    ddp = nn.parallel.DistributedDataParallel(net, device_ids=[dev.index] if cuda else None)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    first_epoch, resumed = 0, False
    if args.resume:
        ck = torch.load(args.resume, map_location=dev)
        net.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        saved = ck["loader"]
        # A sample position ("consumed") is the same on every saved rank and
        # valid at any world size: rank 0's serves all; an older one is per rank.
        state = saved[0] if "consumed" in saved[0] else saved[rank]
        loader.load_state_dict(state)
        first_epoch, resumed = state["epoch"], True
        if rank == 0 and len(saved) != world:
            print(f"resumed from {len(saved)} ranks on {world}: the rest of epoch {first_epoch} "
                  f"(from sample {state['consumed']} of {state['dataset_size']}) is split "
                  f"among {world}", flush=True)

    def save_checkpoint():
        states = [None] * world
        dist.all_gather_object(states, loader.state_dict())
        # Ranks train in step, so they are all at one sample position.
        assert len({(s["epoch"], s.get("consumed")) for s in states}) == 1, states
        if rank == 0:
            torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "loader": states},
                       args.checkpoint)

    log = open(f"{args.step_log}.rank{rank}", "a") if args.step_log else None
    steps = 0

    for epoch in range(first_epoch, args.epochs):
        if not (resumed and epoch == first_epoch):  # a resumed epoch goes on where it stopped
            loader.set_epoch(epoch)
        seen = torch.zeros(2, dtype=torch.float64, device=dev)  # images, loss sum
        t0 = time.perf_counter()
        stopped = False
        for step, batch in enumerate(loader):
            images, labels = batch
            with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=cuda):
                loss = nn.functional.cross_entropy(ddp(images.float() if not cuda else images),
                                                   labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()  # DDP all-reduces the gradients here
            opt.step()
            seen[0] += len(labels)
            seen[1] += loss.detach().double() * len(labels)
            if log:
                log.write(json.dumps({"epoch": batch.epoch, "batch": batch.index, "rank": rank,
                                      "world": world, "ids": [int(i) for i in batch.sample_ids],
                                      "loss": loss.item()}) + "\n")
            steps += 1
            if args.stop_at and steps >= args.stop_at:
                stopped = True
                break
            if args.max_steps and step + 1 >= args.max_steps:
                break
        if stopped:  # preempted: checkpoint where we are, and go
            if args.checkpoint:
                save_checkpoint()
            if rank == 0:
                print(f"stopped after {steps} steps in epoch {epoch}", flush=True)
            break
        dist.all_reduce(seen)
        dt = time.perf_counter() - t0
        st = loader.stats()
        if rank == 0:
            print(f"epoch {epoch}: {int(seen[0])} images on {world} ranks, loss "
                  f"{seen[1].item() / max(1, seen[0].item()):.3f}, {seen[0].item() / dt:.0f} images/s, "
                  f"loader: backend {st['backend']} launcher {st['launcher'] or 'process group'} "
                  f"readahead {st['readahead']}", flush=True)
        if args.checkpoint:
            save_checkpoint()
    if log:
        log.close()
    loader.close()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
