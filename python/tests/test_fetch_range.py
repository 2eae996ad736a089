"""feed-fetch's stream request "range" (src/remote/fetch.h): whole tar members
of one version of a shard, fetched with a ranged GET from the local HTTP server
of remote_server.py (or copied from the cached .tar) into the version's sparse
.ranges file. feed-fetch is run by itself, its requests and answers over pipes;
every byte written is compared with the shard's, every byte not asked for must
still be a hole (zeros)."""
import fcntl
import io
import os
import queue
import subprocess
import tarfile
import threading
import time

import pytest

from conftest import build_path
from remote_server import Server

FETCH = build_path("bin", "feed-fetch")
pytestmark = pytest.mark.skipif(not os.access(FETCH, os.X_OK),
                                reason="no feed-fetch in this build (libcurl not found)")

SIZES = {"a.tar": [100, 1000, 0, 5000, 513, 20000, 7, 4096, 30000],
         "b.tar": [3000, 40000, 12, 9000]}


def round512(n):
    return (n + 511) // 512 * 512


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """Two tar shards of members of known sizes, each member's bytes its own."""
    d = tmp_path_factory.mktemp("range_shards")
    for name, sizes in SIZES.items():
        with tarfile.open(d / name, "w", format=tarfile.USTAR_FORMAT) as t:
            for i, n in enumerate(sizes):
                ti = tarfile.TarInfo(f"{name[0]}{i:03d}.bin")
                ti.size = n
                t.addfile(ti, io.BytesIO(bytes((i * 7 + k) % 251 + 1 for k in range(n))))
    return d


def members(path):
    """(header offset, end) of each member: the chains a range may ask for."""
    with tarfile.open(path) as t:
        return [(m.offset, m.offset_data + round512(m.size)) for m in t.getmembers()]


@pytest.fixture
def server(shards):
    s = Server(shards)
    yield s
    s.close()


class Fetch:
    """feed-fetch --mode stream over pipes: ask() sends a request line and
    returns its answer's fields (answers may come in any order: by ID)."""

    def __init__(self, cache, *args):
        self.p = subprocess.Popen([FETCH, "--mode", "stream", "--cache", str(cache), *map(str, args)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.n, self.answers, self.err = 0, {}, []
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.err.extend(self.p.stderr), daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\n").split("\t"))

    def send(self, kind, *fields):
        self.n += 1
        self.p.stdin.write("\t".join([kind, str(self.n), *map(str, fields)]) + "\n")
        self.p.stdin.flush()
        return str(self.n)

    def wait(self, rid):
        while rid not in self.answers:
            a = self.lines.get(timeout=60)
            self.answers[a[1]] = a
        return self.answers.pop(rid)

    def ask(self, kind, *fields):
        return self.wait(self.send(kind, *fields))

    def head(self, url):
        a = self.ask("head", url)
        assert a[0] == "ver", a
        return a[2:]  # PATH SIZE CACHED ETAG LAST-MODIFIED

    def range(self, url, ver, off, length):
        path, size, _, etag, lm = ver
        return self.ask("range", url, size, etag, lm, off, length)

    def close(self):
        self.p.stdin.close()
        assert self.p.wait(timeout=60) == 0
        return "".join(self.err)


@pytest.fixture
def cache(tmp_path):
    d = tmp_path / "cache"
    d.mkdir()
    return d


def ranged_gets(server, name, n):
    """The first n GETs of name that sent a body: (Range, bytes sent). The
    server notes one after its last byte, as the client may be reading it."""
    deadline = time.monotonic() + 10
    while True:
        got = [(r, k) for m, p, r, k in server.sent if m == "GET" and p == "/" + name]
        if len(got) >= n or time.monotonic() > deadline:
            return got
        time.sleep(0.01)


def test_member_chains_land_in_a_sparse_ranges_file(shards, server, cache):
    data = (shards / "a.tar").read_bytes()
    mem = members(shards / "a.tar")
    url = server.url + "/a.tar"
    f = Fetch(cache, "--retries", "1")
    ver = f.head(url)
    assert int(ver[1]) == len(data)
    # one member, three members, the last member: each [OFF, END)
    chains = [mem[1], (mem[3][0], mem[5][1]), mem[-1]]
    rpath = ver[0][:-len(".tar")] + ".ranges"
    ids = [f.send("range", url, ver[1], ver[3], ver[4], off, end - off) for off, end in chains]
    for rid in ids:  # all at once: answers in any order, each its own ID
        a = f.wait(rid)
        assert a == ["ok", rid, rpath, str(len(data)), "1"]
    f.close()
    got = open(rpath, "rb").read()
    assert len(got) == len(data) == os.path.getsize(rpath)
    asked = bytearray(len(data))
    for off, end in chains:
        assert got[off:end] == data[off:end]
        asked[off:end] = b"\1" * (end - off)
    # the rest was not fetched: still zeros, where the shard has bytes
    outside = bytes(g for g, a in zip(got, asked) if not a)
    assert outside == bytes(len(outside))
    assert sum(1 for d, a in zip(data, asked) if not a and d) > 1000  # there were bytes to miss
    assert not os.path.exists(ver[0])  # no whole .tar
    # one ranged GET a request, each served exactly its bytes
    want = sorted((f"bytes={off}-{end - 1}", end - off) for off, end in chains)
    assert sorted(ranged_gets(server, "a.tar", len(chains))) == want


def test_one_connection_serves_a_threads_requests(shards, server, cache):
    """Each request on the connection of the one before (a handle kept a
    thread): many small ranged GETs pay one connect, not one each."""
    url = server.url + "/a.tar"
    f = Fetch(cache, "--parallel", "1")
    ver = f.head(url)
    for off, end in members(shards / "a.tar")[:6]:
        assert f.range(url, ver, off, end - off)[0] == "ok"
    f.close()
    assert len(server.peers) == 7 and len(set(server.peers)) == 1, server.peers


def test_two_processes_write_ranges_of_one_file_at_once(shards, server, cache):
    """Two feed-fetch processes (two ranks), every member between them, the
    answers slowed so that their writes overlap: every member's bytes land,
    none is lost to the other's creating or extending the file."""
    data = (shards / "a.tar").read_bytes()
    mem = members(shards / "a.tar")
    url = server.url + "/a.tar"
    server.latency = 0.05
    f = [Fetch(cache, "--parallel", 4), Fetch(cache, "--parallel", 4)]
    ver = f[0].head(url)
    ids = [(f[i % 2], f[i % 2].send("range", url, ver[1], ver[3], ver[4], off, end - off))
           for i, (off, end) in enumerate(mem)]
    for p, rid in ids:
        a = p.wait(rid)
        assert a[0] == "ok", a
    for p in f:
        p.close()
    got = open(a[2], "rb").read()
    assert len(got) == len(data)
    last = mem[-1][1]
    assert got[:last] == data[:last] and not any(got[last:])


def test_a_range_that_is_not_a_member_chain_is_a_corrupt_download(shards, server, cache):
    mem = members(shards / "a.tar")
    url = server.url + "/a.tar"
    f = Fetch(cache, "--retries", "1")
    ver = f.head(url)
    off, end = mem[3]  # 5000 bytes; the next member 513
    for o, n in [(off + 1, end - off), (off, end - off - 512), (off, end - off + 512)]:
        a = f.ask("range", url, ver[1], ver[3], ver[4], o, n)
        assert a[0] == "err" and a[2] == "io", a
        assert f"{url}: corrupt download" in a[3] and a[3].endswith("(tried 2 times)"), a
    err = f.close()
    assert "try 1 of 2 failed" in err
    assert len([1 for m, *_ in server.log if m == "GET"]) == 6  # each tried twice
    rpath = ver[0][:-len(".tar")] + ".ranges"
    assert not os.path.exists(rpath) or not any(open(rpath, "rb").read())


def test_bad_requests_are_errors(shards, server, cache):
    url = server.url + "/a.tar"
    f = Fetch(cache, "--retries", "0")
    ver = f.head(url)
    size = int(ver[1])
    for off, n in [(size - 512, 1024), (0, 0)]:
        a = f.ask("range", url, ver[1], ver[3], ver[4], off, n)
        assert a[0] == "err" and "not inside" in a[3], a
    # a .ranges file longer than the shard is not this version's
    rpath = ver[0][:-len(".tar")] + ".ranges"
    with open(rpath, "wb") as out:
        out.truncate(size + 1)
    off, end = members(shards / "a.tar")[0]
    a = f.ask("range", url, ver[1], ver[3], ver[4], off, end - off)
    assert a[0] == "err" and a[2] == "io" and "longer than" in a[3], a
    assert os.path.getsize(rpath) == size + 1  # not cut
    f.close()


def test_a_server_that_ignores_range_is_an_error(shards, server, cache):
    server.ranges = False
    url = server.url + "/a.tar"
    f = Fetch(cache, "--retries", "1")
    ver = f.head(url)
    off, end = members(shards / "a.tar")[2]
    a = f.ask("range", url, ver[1], ver[3], ver[4], off, end - off)
    assert a[:3] == ["err", a[1], "dataset"]
    assert a[3] == f"{url}: the server ignores Range requests (HTTP 200 to a ranged GET); set fetch_ranges=whole"
    f.close()
    assert len([1 for m, *_ in server.log if m == "GET"]) == 1  # final: not tried again
    assert not os.path.exists(ver[0][:-len(".tar")] + ".ranges")


def test_a_changed_etag_is_an_error(shards, server, cache):
    url = server.url + "/a.tar"
    server.inject("/a.tar", "etag")  # the HEAD answered, then the object replaced
    f = Fetch(cache, "--retries", "1")
    ver = f.head(url)
    off, end = members(shards / "a.tar")[1]
    a = f.ask("range", url, ver[1], ver[3], ver[4], off, end - off)
    assert a[0] == "err" and a[2] == "dataset", a
    assert a[3].startswith(f"{url} changed while it was read: its ETag was {ver[3]}"), a
    f.close()


def test_a_changed_last_modified_is_an_error_without_etag(shards, server, cache):
    url = server.url + "/b.tar"
    f = Fetch(cache, "--retries", "1")
    ver = f.head(url)
    off, end = members(shards / "b.tar")[1]
    ver[3] = "-"  # a server without ETags: the Last-Modified decides
    a = f.range(url, ver, off, end - off)
    assert a[0] == "ok", a
    t = os.path.getmtime(shards / "b.tar")
    os.utime(shards / "b.tar", (t + 100, t + 100))
    try:
        a = f.range(url, ver, off, end - off)
    finally:
        os.utime(shards / "b.tar", (t, t))
    assert a[0] == "err" and a[2] == "dataset", a
    assert f"{url} changed while it was read: Last-Modified was {ver[4]}, now" in a[3]
    f.close()


def test_a_whole_get_without_etag_compares_last_modified(shards, server, cache):
    """The stream's get of a version without an ETag (a server that sends none):
    the GET's Last-Modified must be the version's, else an error naming the URL;
    the same version is fetched whole when it is."""
    url = server.url + "/a.tar"
    f = Fetch(cache, "--retries", "1")
    path, size, _, _, lm = f.head(url)
    t = os.path.getmtime(shards / "a.tar")
    os.utime(shards / "a.tar", (t + 100, t + 100))
    try:
        a = f.ask("get", url, size, "-", lm)
    finally:
        os.utime(shards / "a.tar", (t, t))
    assert a[0] == "err" and a[2] == "dataset", a
    assert f"{url} changed while it was read: Last-Modified was {lm}, now" in a[3]
    a = f.ask("get", url, size, "-", lm)
    assert a[0] == "ok" and a[3] == size, a
    with open(a[2], "rb") as got, open(shards / "a.tar", "rb") as want:
        assert got.read() == want.read()
    f.close()


@pytest.mark.parametrize("fault", ["corrupt_range", "short", "503", "reset"])
def test_a_bad_answer_is_retried(shards, server, cache, fault):
    data = (shards / "b.tar").read_bytes()
    mem = members(shards / "b.tar")
    url = server.url + "/b.tar"
    f = Fetch(cache, "--retries", "1")
    ver = f.head(url)
    server.inject("/b.tar", fault)
    off, end = mem[1][0], mem[2][1]
    a = f.range(url, ver, off, end - off)
    assert a[0] == "ok" and a[4] == "1", a
    assert open(a[2], "rb").read()[off:end] == data[off:end]
    err = f.close()
    assert f"{url}: " in err and "try 1 of 2 failed" in err
    assert len([1 for m, *_ in server.log if m == "GET"]) == 2


def test_from_the_cached_tar_without_the_network(shards, server, cache):
    data = (shards / "a.tar").read_bytes()
    mem = members(shards / "a.tar")
    url = server.url + "/a.tar"
    f = Fetch(cache, "--retries", "1")
    g = f.ask("get", url)
    assert g[0] == "ok" and g[4] == "1", g
    ver = f.head(url)
    assert ver[0] == g[2] and ver[2] == "1"
    n_log = len(server.log)
    off, end = mem[4][0], mem[7][1]
    a = f.range(url, ver, off, end - off)
    assert a == ["ok", a[1], g[2][:-len(".tar")] + ".ranges", str(len(data)), "0"]
    assert open(a[2], "rb").read()[off:end] == data[off:end]
    a = f.range(url, ver, off + 512, end - off - 512)  # not a chain: checked on the cached bytes too
    assert a[0] == "err" and "not whole tar members" in a[3], a
    f.close()
    assert len(server.log) == n_log  # no request at all


def inuse_list(cache, urls):
    """A held list (remote.h): the URLs in cache/.inuse/<pid>-<n>.list under a shared flock."""
    os.makedirs(cache / ".inuse", exist_ok=True)
    path = cache / ".inuse" / f"{os.getpid()}-7.list"
    path.write_text("".join(u + "\n" for u in urls))
    fd = os.open(path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def test_cache_size_evicts_an_unheld_ranges_file_never_a_held_one(shards, server, cache):
    a_mem, b_mem = members(shards / "a.tar"), members(shards / "b.tar")
    ua, ub = server.url + "/a.tar", server.url + "/b.tar"
    # b's range first; then a's, in a cache that cannot hold both
    f = Fetch(cache, "--retries", "0")
    vb = f.head(ub)
    boff, bend = b_mem[1]
    rb = f.range(ub, vb, boff, bend - boff)
    assert rb[0] == "ok", rb
    b_bytes = os.stat(rb[2]).st_blocks * 512
    assert bend - boff <= b_bytes < int(vb[1])  # counted by its blocks, not its size
    f.close()
    aoff, aend = a_mem[5]
    limit = (aend - aoff) + b_bytes - 1

    fd = inuse_list(cache, [ub])  # b held by a running loader
    try:
        f = Fetch(cache, "--retries", "0", "--cache-size", limit)
        va = f.head(ua)
        ra = f.range(ua, va, aoff, aend - aoff)
        assert ra[0] == "err" and ra[2] == "resource" and "raise cache_size" in ra[3], ra
        assert "evicted" not in f.close()
        assert os.path.exists(rb[2])
    finally:
        os.close(fd)  # the loader gone: its list too, and b may go

    # a .ranges file counts for its blocks: b's and a's range fit exactly, nothing evicted
    f = Fetch(cache, "--retries", "0", "--cache-size", limit + 1)
    ra = f.range(ua, va, aoff, aend - aoff)
    assert ra[0] == "ok", ra
    assert "evicted" not in f.close()
    assert os.path.exists(rb[2])
    assert open(ra[2], "rb").read()[aoff:aend] == (shards / "a.tar").read_bytes()[aoff:aend]

    # another range of a, where only a's blocks and it fit: b (unheld now) goes
    a_bytes = os.stat(ra[2]).st_blocks * 512
    off, end = a_mem[1]
    f = Fetch(cache, "--retries", "0", "--cache-size", a_bytes + end - off)
    r2 = f.range(ua, va, off, end - off)
    assert r2[0] == "ok" and r2[2] == ra[2], r2
    err = f.close()
    assert f"evicted {rb[2]}" in err
    assert not os.path.exists(rb[2])
    data = (shards / "a.tar").read_bytes()
    got = open(ra[2], "rb").read()
    assert got[aoff:aend] == data[aoff:aend] and got[off:end] == data[off:end]

    # a's own .ranges is never evicted for its next range (it is the file written into): no room then
    off, end = a_mem[3]
    f = Fetch(cache, "--retries", "0", "--cache-size", end - off + 1)
    r3 = f.range(ua, va, off, end - off)
    assert r3[0] == "err" and "raise cache_size" in r3[3], r3
    assert "evicted" not in f.close()
    assert open(ra[2], "rb").read() == got
