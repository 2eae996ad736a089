#!/usr/bin/env python3
"""A stand-in for feed-fetch --mode stream (src/remote/fetch.h) without a
network, for the C tests of fetch_ahead (test_fetch_ahead.c), which run
under the sanitizers too: http://fake/NAME is FAKE_FETCH_ROOT/NAME; a get
copies it into the cache (a temporary name, then renamed). Each get answers
after a delay of its own (0..30 ms, from the shard's name and how many gets
came before), so answers come out of order and batches wait for their
shards. A name in FAKE_FETCH_FAIL (comma-separated) answers its get with a
404 error. Requests and answers are logged to FAKE_FETCH_LOG (one line each).

Before each copy it evicts every shard of the cache that no held list names
(cache/.inuse/*.list, read under cache/.inuse/.lock as feed-fetch reads them,
as feed-fetch with a cache too small for more would):
a batch bound before its shards were held, or a shard let go too early,
makes a worker read a missing file."""
import fcntl
import os
import shutil
import sys
import threading
import time
import zlib

args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
cache, root = args["--cache"], os.environ["FAKE_FETCH_ROOT"]
fail = set(filter(None, os.environ.get("FAKE_FETCH_FAIL", "").split(",")))
log = open(os.environ["FAKE_FETCH_LOG"], "a") if os.environ.get("FAKE_FETCH_LOG") else None
out = threading.Lock()
gets = 0


def say(line):
    with out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
        if log:
            log.write("< " + line + "\n")
            log.flush()


def evict(keep):
    held = {keep}
    inuse = os.path.join(cache, ".inuse")
    os.makedirs(inuse, exist_ok=True)
    with open(os.path.join(inuse, ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        evict_locked(inuse, held)


def evict_locked(inuse, held):
    for f in os.listdir(inuse):
        if not f.endswith(".list"):
            continue
        try:
            with open(os.path.join(inuse, f)) as lst:
                held |= {u.strip().rsplit("/", 1)[1] for u in lst if u.strip()}
        except FileNotFoundError:
            pass
    for f in os.listdir(cache):
        if f.endswith(".tar") and f not in held:
            os.remove(os.path.join(cache, f))


def get(rid, name, n):
    time.sleep((zlib.crc32(f"{name}{n}".encode()) % 31) / 1000.0)
    with out:
        evict(name)
    if name in fail:
        say(f"err\t{rid}\tdataset\thttp://fake/{name}: HTTP 404 (not found)")
        return
    dst = os.path.join(cache, name)
    tmp = f"{dst}.part.{os.getpid()}.{n}"
    shutil.copyfile(os.path.join(root, name), tmp)
    os.rename(tmp, dst)
    say(f"ok\t{rid}\t{dst}\t{os.path.getsize(dst)}\t1")


for line in sys.stdin:
    verb, rid, url = line.rstrip("\n").split("\t")[:3]  # a get: then the version
    if log:
        with out:
            log.write("> " + line)
            log.flush()
    name = url.rsplit("/", 1)[1]
    if verb == "head":
        say(f"ver\t{rid}\t{os.path.join(cache, name)}\t{os.path.getsize(os.path.join(root, name))}\t0\t-\t-")
    else:
        gets += 1
        threading.Thread(target=get, args=(rid, name, gets), daemon=True).start()
# stdin closed: the loader is gone; the answers still under way do not matter
