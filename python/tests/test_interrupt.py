"""Ctrl-C (KeyboardInterrupt) leaves the loader usable, like any exception:
wherever it lands, the next `for` goes on with the epoch, and every sample
of it is delivered exactly once across the interrupted loop and the next."""
import os
import signal
import threading
import time

import pytest

from conftest import child_pids
from test_lifecycle import blocked_in_futex


@pytest.fixture
def sigint():
    """Python's own Ctrl-C handler (even if our parent ignores SIGINT)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def meta(b):
    """The batch without its arrays: a kept Batch keeps its ring slot."""
    return b.replace(images=None, soft_labels=None)


def check_epoch(L, got, epoch):
    ids = sorted(int(i) for b in got for i in b.sample_ids)
    assert ids == list(range(L.dataset_size)), ids  # each sample once
    assert all(b.epoch == epoch for b in got)
    assert [b.index for b in got] == list(range(len(L)))  # each batch once, in order


def interrupt_when_waiting(L, main):
    """A thread that sends SIGINT to the main thread once it waits inside
    feed_loader_next() (its workers are stopped: no batch can come)."""
    def run():
        deadline = time.monotonic() + 60
        while not (L._in_call and blocked_in_futex(os.getpid())):
            if time.monotonic() > deadline:
                return
            time.sleep(0.005)  # polling a condition, not synchronising by sleep
        signal.pthread_kill(main, signal.SIGINT)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def loop_until_interrupted_while_waiting(L):
    """Iterates L until a SIGINT lands while next() waits: after the first
    batch the workers are stopped (so next() must wait) and a thread sends the
    interrupt once the main thread sleeps in it; then the workers go on.
    Returns the batches the loop got and the workers' pids."""
    got, stopped, t = [], [], None
    try:
        with pytest.raises(KeyboardInterrupt):
            for b in L:
                got.append(meta(b))
                if not stopped:  # workers make no progress: next() will wait
                    stopped = child_pids()
                    assert stopped
                    for p in stopped:
                        os.kill(p, signal.SIGSTOP)
                    t = interrupt_when_waiting(L, threading.main_thread().ident)
    finally:
        for p in stopped:
            os.kill(p, signal.SIGCONT)
    t.join()
    return got, stopped


@pytest.mark.parametrize("copy", [False, True])
def test_ctrl_c_while_waiting_keeps_the_loader(make_loader, sigint, copy):
    L = make_loader(workers=2, prefetch=2, sample_timeout_ms=0, copy=copy)
    got, stopped = loop_until_interrupted_while_waiting(L)
    assert not L.closed
    assert 0 < len(got) < len(L)  # it was interrupted mid-epoch
    got += [meta(b) for b in L]  # the same epoch, from the batch that was being waited for
    check_epoch(L, got, 0)
    assert [len(b.labels) for b in L]  # and the next epoch after it
    assert child_pids() == sorted(stopped)  # the same workers


@pytest.mark.parametrize("at", [0, 2])
def test_ctrl_c_in_the_loop_body_keeps_the_loader(make_loader, sigint, at):
    L = make_loader(workers=2)
    got = []
    with pytest.raises(KeyboardInterrupt):
        for b in L:
            got.append(meta(b))
            if b.index == at:
                signal.raise_signal(signal.SIGINT)  # the batch was delivered
    assert not L.closed and len(got) == at + 1
    del b
    got += [meta(b) for b in L]
    check_epoch(L, got, 0)


def test_ctrl_c_while_waiting_then_position_and_seek(make_loader, sigint):
    """position() after an interrupted wait names the batch that was being
    waited for; state_dict() resumes there."""
    L = make_loader(workers=2, prefetch=2, sample_timeout_ms=0)
    got, _ = loop_until_interrupted_while_waiting(L)
    assert L.position() == (0, len(got))
    got += [meta(b) for b in L]
    check_epoch(L, got, 0)


@pytest.mark.parametrize("copy", [False, True])
def test_ctrl_c_after_the_batch_left_c_keeps_it(make_loader, monkeypatch, copy):
    """A KeyboardInterrupt that lands after feed_loader_next() delivered the
    batch but before next() returned it (here: raised from _make_batch):
    the next `for` starts with that batch."""
    L = make_loader(workers=2, copy=copy)
    it = iter(L)
    got = [meta(next(it))]
    real = type(L)._make_batch
    calls = []

    def interrupted(self, held):
        calls.append(held.cbatch.index)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(self, held)

    monkeypatch.setattr(type(L), "_make_batch", interrupted)
    with pytest.raises(KeyboardInterrupt):
        next(it)
    monkeypatch.setattr(type(L), "_make_batch", real)
    assert L.position() == (0, 1)  # the batch that did not reach the caller is next
    got += [meta(b) for b in L]
    check_epoch(L, got, 0)
