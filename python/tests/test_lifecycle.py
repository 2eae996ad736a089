"""close(), garbage collection and Ctrl-C release everything: workers
stopped and reaped, shared memory unmapped and closed."""
import gc
import os
import platform
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import libfeed

from conftest import PYTHON_DIR, check_after_close, child_pids, libfeed_fds, run_after_close


def dev_shm():
    try:
        return sorted(os.listdir("/dev/shm"))
    except OSError:
        return []


def test_close_with_batches_held(make_loader):
    shm = dev_shm()
    assert child_pids() == [] and libfeed_fds() == 0
    L = make_loader(workers=3, output="array")
    workers = child_pids()
    assert len(workers) == 3 and libfeed_fds() >= 2  # arena + index
    it = iter(L)
    b = next(it)
    exported = np.from_dlpack(b.images)  # a DLPack export still alive
    before = exported.copy()
    L.close()
    assert L.closed
    with pytest.raises(ValueError, match="closed"):
        next(it)
    # The export (and the Array) still view the batch: its memory stays, and
    # so do the workers, until they go.
    assert child_pids() == workers and libfeed_fds() >= 2
    assert np.array_equal(exported, before) and np.array_equal(np.asarray(b.images), before)
    del exported  # its deleter runs after close: nothing to give back, no crash
    assert child_pids() == workers  # b.images still views the batch
    del b
    # The last view is gone: destroyed now, by reference counting alone.
    assert child_pids() == [] and libfeed_fds() == 0 and dev_shm() == shm
    for p in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(p, 0)  # reaped, not zombies
    gc.collect()


def test_close_without_views_releases_at_once(make_loader):
    L = make_loader(workers=3)
    for images, labels in L:
        pass
    del images, labels
    assert len(child_pids()) == 3
    L.close()
    assert child_pids() == [] and libfeed_fds() == 0


def test_context_manager(make_loader):
    with make_loader() as L:
        assert len(child_pids()) == 2
        next(iter(L))
    assert L.closed and child_pids() == [] and libfeed_fds() == 0


def test_garbage_collection_releases_everything(dataset):
    L = libfeed.Loader(dataset, batch_size=8, size=48, resize_shorter=64)
    for images, labels in L:
        break
    assert len(child_pids()) == 2
    del L
    # The arrays of the current batch view loader memory: they keep it alive.
    assert len(child_pids()) == 2
    assert images.sum() > 0
    del images, labels
    # No cycle: reference counting alone frees it, no gc.collect() needed.
    assert child_pids() == [] and libfeed_fds() == 0


def test_abandoned_iterators_and_loaders(dataset):
    for _ in range(3):
        L = libfeed.Loader(dataset, batch_size=8, size=48, resize_shorter=64, workers=2)
        it = iter(L)
        next(it)
        next(it)
    del L, it
    gc.collect()
    assert child_pids() == [] and libfeed_fds() == 0


CHILD = textwrap.dedent("""
    import os, signal, sys
    import libfeed

    # Python's own Ctrl-C handler even if our parent ignores SIGINT (CI jobs).
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def children():
        out = []
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    f = open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(f[1]) == os.getpid() and f[0] != "Z":
                    out.append(int(d))
        return out

    L = libfeed.Loader(sys.argv[1], batch_size=4, size=32, resize_shorter=40, workers=2,
                       prefetch=2, sample_timeout_ms=0)
    it = iter(L)
    batch = next(it)
    pids = children()
    for p in pids:  # workers make no progress: next() will block
        os.kill(p, signal.SIGSTOP)
    try:
        print("READY", *pids, flush=True)
        while True:
            for batch in L:
                pass
    except KeyboardInterrupt:
        closed = L.closed
        batch = None  # the last batch's arrays keep the loader's memory (and workers)
        print("INTERRUPTED closed=%s children=%s" % (closed, children()), flush=True)
        raise
""")


def blocked_in_futex(pid):
    """True when the main thread of pid sleeps in futex(2): libfeed's wait."""
    nr = {"x86_64": "202", "aarch64": "98"}.get(platform.machine())  # SYS_futex
    try:
        with open(f"/proc/{pid}/syscall") as f:
            first = f.read().split()[0]  # the syscall number, or "running"
        if nr and first.isdigit():
            return first == nr
    except (OSError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/wchan") as f:
            return "futex" in f.read()
    except OSError:
        return False


def interrupt_while_waiting(code, dataset, tmp_path):
    """Runs code (a child printing "READY <its workers>" before it waits in
    next() with them stopped), Ctrl-C's it there: (stdout, stderr, workers, returncode)."""
    script = tmp_path / "child.py"
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    p = subprocess.Popen([sys.executable, str(script), dataset], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = p.stdout.readline().split()
        assert line and line[0] == "READY", p.stderr.read()
        workers = [int(x) for x in line[1:]]
        assert len(workers) == 2
        # Interrupt it while it waits in next() (its workers are stopped: it
        # gets there after at most the batches already in the ring).
        deadline = time.monotonic() + 60
        while not blocked_in_futex(p.pid):
            assert time.monotonic() < deadline and p.poll() is None, "never blocked"
            time.sleep(0.01)  # polling a condition, not synchronising by sleep
        os.kill(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return out, err, workers, p.returncode


def test_ctrl_c_while_waiting_stops_cleanly(dataset, tmp_path):
    out, err, workers, rc = interrupt_while_waiting(CHILD, dataset, tmp_path)
    # The loader stays open (test_interrupt.py: it goes on); the process's
    # exit kills and reaps the workers.
    assert "INTERRUPTED closed=False" in out, (out, err)
    assert "KeyboardInterrupt" in err
    assert "_fetch_inner" in err  # it was waiting inside Loader's next()
    assert rc == -signal.SIGINT  # Python's exit for an uncaught Ctrl-C
    for w in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(w, 0)


# Ctrl-C in a plain loop, then close(): the loop's variables still view the
# last batch, so the workers and memory go when they do, not before.
PLAIN_LOOP = CHILD[:CHILD.index("it = iter(L)")] + textwrap.dedent("""
    images, labels = next(iter(L))
    pids = children()
    for p in pids:  # workers make no progress: next() will block
        os.kill(p, signal.SIGSTOP)
    try:
        print("READY", *pids, flush=True)
        while True:
            for images, labels in L:
                pass
    except KeyboardInterrupt:
        closed = L.closed
        L.close()
        alive = sorted(children()) == sorted(pids)
        print("INTERRUPTED closed=%s children=%s" % (closed, alive))
        print("VIEWS", int(images.sum()) > 0, len(labels))  # still readable
        del images, labels
        print("DROPPED children=%s" % children(), flush=True)
        raise
""")


def test_ctrl_c_in_a_plain_loop_waits_for_the_loop_variables(dataset, tmp_path):
    out, err, workers, rc = interrupt_while_waiting(PLAIN_LOOP, dataset, tmp_path)
    assert "INTERRUPTED closed=False children=True" in out, (out, err)  # workers still there
    assert "VIEWS True 4" in out and "DROPPED children=[]" in out, (out, err)
    assert "_fetch_inner" in err and rc == -signal.SIGINT
    for w in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(w, 0)


@pytest.mark.parametrize("kind", ["numpy-epoch", "numpy-break", "array"])
def test_last_batch_outlives_close(dataset, kind):
    # `with Loader(...) as ld: for images, labels in ld: ...` then images.mean():
    # close() must leave the memory to the arrays still viewing it.
    check_after_close(kind, *run_after_close(dataset, kind))


def test_signal_handler_that_returns_does_not_stop_iteration(make_loader):
    """Python installs handlers without SA_RESTART, so a signal interrupts the
    wait in feed_loader_next() (FEED_E_INTERRUPTED); a handler that returns
    (here a 1 ms SIGALRM) must not end the epoch: the loader waits on."""
    ticks = []
    old = signal.signal(signal.SIGALRM, lambda sig, frame: ticks.append(sig))
    try:
        L = make_loader(workers=1, epochs=1)
        signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
        n = sum(len(labels) for _, labels in L)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert n == L.samples_per_epoch
    assert ticks
