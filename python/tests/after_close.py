"""Child process of the after-close tests (test_lifecycle, test_torch): keeps
the last batch of a loader past close(), reads it, drops it, and prints what
it saw as one JSON line. A separate process, so that a segfault is seen as a
return code (-11) instead of a crashed pytest.

    python after_close.py DATASET KIND

KIND: numpy-epoch  one whole epoch (epochs=1), then close: the reported case
      numpy-break  break out of an endless loader, then close
      array        output="array", break, close, then numpy.asarray(the Array)
      torch        libfeed.torch, one whole epoch of an endless loader, close
"""
import json
import os
import sys

import numpy as np

import libfeed


def children():
    """Live (not zombie) child processes of this process."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid() and fields[0] != "Z":
                out.append(int(d))
    return sorted(out)


def memfds():
    """Open fds that are libfeed's shared memory."""
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            n += "libfeed" in os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass
    return n


def error_of(f):
    try:
        f()
    except Exception as e:  # the test checks which
        return f"{type(e).__name__}: {e}"
    return None


def main(source, kind):
    args = dict(batch_size=8, size=32, resize_shorter=40, workers=2, seed=5)
    if kind == "torch":
        import torch
        import libfeed.torch as lt

        make, copy, equal = lt.Loader, torch.clone, torch.equal
        mean = lambda t: float(t.float().mean())  # noqa: E731
    else:
        make, copy, equal = libfeed.Loader, np.array, np.array_equal
        mean = lambda a: float(np.asarray(a).mean())  # noqa: E731
    if kind == "numpy-epoch":
        args["epochs"] = 1
    if kind == "array":
        args["output"] = "array"
    rep = {}
    with make(source, **args) as ld:
        it = iter(ld)
        for images, labels in it:
            if kind in ("numpy-break", "array"):
                break  # the batch stays the loader's current one
        workers = children()
        ref = copy(images)  # taken before close
        if kind == "array":
            ref = np.array(ref)
    rep["closed"] = ld.closed
    rep["workers"] = len(workers)
    # The retained batch keeps the loader's memory: close() did not destroy it yet.
    rep["workers_after_close"] = children() == workers
    rep["memfds_after_close"] = memfds()
    got = np.asarray(images) if kind == "array" else images
    rep["mean_ok"] = mean(got) == mean(ref)
    rep["equal"] = bool(equal(got, ref))
    broke = kind in ("numpy-break", "array")  # else `it` finished its epoch: StopIteration
    rep["next_error"] = error_of(lambda: next(it)) if broke else None
    rep["iter_error"] = error_of(lambda: iter(ld))
    rep["for_error"] = error_of(lambda: [None for _ in ld])
    del images, labels, got, it
    # The last view is gone: the loader is destroyed now (ld itself still lives).
    rep["children_after_del"] = children()
    rep["memfds_after_del"] = memfds()
    reaped = True
    for p in workers:
        try:
            os.kill(p, 0)
            reaped = False
        except ProcessLookupError:
            pass
    rep["reaped"] = reaped
    print(json.dumps(rep), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
