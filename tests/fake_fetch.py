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
makes a worker read a missing file.

A range request (fetch_ranges) writes the bytes into NAME.ranges (a file of
the shard's size, sparse) after checking that they are a chain of whole tar
members, as feed-fetch checks a download (a range that is not one is an
error the loader reports); unheld .ranges files are evicted as shards are:
a batch bound before its samples' ranges arrived reads zeros."""
import fcntl
import os
import tarfile
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
                held |= {u.strip().rsplit("/", 1)[1] for u in lst if u.strip()}  # "FORM<TAB>URL" too
        except FileNotFoundError:
            pass
    for f in os.listdir(cache):
        if f.endswith(".tar") and f not in held:
            os.remove(os.path.join(cache, f))
        if f.endswith(".ranges") and f[:-len(".ranges")] + ".tar" not in held:
            os.remove(os.path.join(cache, f))


def chain(data):
    """The fault in data as a chain of whole tar members, or None."""
    at = 0
    while at < len(data):
        try:
            info = tarfile.TarInfo.frombuf(data[at:at + 512], "utf-8", "surrogateescape")
        except tarfile.TarError as e:
            return f"no tar header at +{at}: {e}"
        at += 512 + (info.size + 511) // 512 * 512
    return None if at == len(data) else f"the last member ends at +{at}, past {len(data)}"


def get_range(rid, name, off, length, n):
    time.sleep((zlib.crc32(f"{name}{n}".encode()) % 31) / 1000.0)
    with out:
        evict(name)
    src = os.path.join(root, name)
    with open(src, "rb") as f:
        f.seek(off)
        data = f.read(length)
    why = chain(data)
    if why:
        say(f"err\t{rid}\tio\thttp://fake/{name}: corrupt download: bytes {off}+{length}: {why}")
        return
    dst = os.path.join(cache, name[:-len(".tar")] + ".ranges")
    fd = os.open(dst, os.O_RDWR | os.O_CREAT, 0o644)
    if os.fstat(fd).st_size < os.path.getsize(src):
        os.ftruncate(fd, os.path.getsize(src))
    os.pwrite(fd, data, off)
    os.close(fd)
    say(f"ok\t{rid}\t{dst}\t{os.path.getsize(src)}\t1")


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
    if verb == "range":
        off, length = (int(v) for v in line.rstrip("\n").split("\t")[-2:])
        gets += 1
        threading.Thread(target=get_range, args=(rid, name, off, length, gets), daemon=True).start()
    elif verb == "head":
        say(f"ver\t{rid}\t{os.path.join(cache, name)}\t{os.path.getsize(os.path.join(root, name))}\t0\t-\t-")
    else:
        gets += 1
        threading.Thread(target=get, args=(rid, name, gets), daemon=True).start()
# stdin closed: the loader is gone; the answers still under way do not matter
