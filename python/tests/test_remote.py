"""Tar shards by URL: a local HTTP server (remote_server.py: Range, ETag,
If-Match, faults) and a local S3-compatible server (moto), both on 127.0.0.1,
started here. Every remote load is compared with the same shards read from
disk: pixels, labels and sample ids, every sample once. Faults are injected
per request, so no test waits on a clock to pass."""
import os
import shutil
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import NIMG, build_path
from remote_server import Server
from test_tar import all_batches, samples, write_tarfile

import libfeed

pytestmark = pytest.mark.skipif(not os.access(build_path("bin", "feed-fetch"), os.X_OK),
                                reason="no feed-fetch in this build (libcurl not found)")

NSHARDS = 3


@pytest.fixture(scope="module")
def shards(tmp_path_factory, dataset, index):
    """NSHARDS shards of the dataset in a folder: s-0.tar .. s-2.tar."""
    d = tmp_path_factory.mktemp("shards")
    items = samples(dataset, index)
    per = (len(items) + NSHARDS - 1) // NSHARDS
    for s in range(NSHARDS):
        write_tarfile(d / f"s-{s}.tar", items[s * per:(s + 1) * per])
    return d


@pytest.fixture
def server(shards):
    s = Server(shards)
    yield s
    s.close()


@pytest.fixture
def cache(tmp_path):
    return str(tmp_path / "cache")


def held_lists(cache):
    """The held lists in cache/.inuse (its .lock is not one)."""
    return [f for f in os.listdir(os.path.join(cache, ".inuse")) if f.endswith(".list")]


def load(make_loader, source, **kw):
    """Every batch of one epoch in order; the loader closed (its shards no longer held)."""
    kw = {"shuffle": False, **kw}
    L = make_loader(source, epochs=1, augment="val", **kw)
    out = all_batches(L)
    L.close()
    return out


def assert_same(got, ref):
    gi, gl, gids = got
    ri, rl, _ = ref
    assert sorted(gids) == list(range(NIMG))  # every sample, once
    assert (gl == rl).all()
    assert (gi == ri).all()


def test_http_pattern_same_as_disk(make_loader, shards, server, cache):
    ref = load(make_loader, str(shards / "s-{0..2}.tar"))
    got = load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache)
    assert_same(got, ref)
    gets = sorted(p for m, p, _ in server.requests("GET"))
    assert gets == [f"/s-{i}.tar" for i in range(NSHARDS)]  # each shard downloaded once


def test_url_list_file(make_loader, shards, server, cache, tmp_path):
    lst = tmp_path / "shards.txt"
    lst.write_text("# the shards\n" + "".join(f"{server.url}/s-{i}.tar\n" for i in range(NSHARDS)))
    assert_same(load(make_loader, str(lst), cache_dir=cache), load(make_loader, str(shards / "s-{0..2}.tar")))


def test_second_create_uses_the_cache(make_loader, shards, server, cache):
    load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache)
    n_get = len(server.requests("GET"))
    got = load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache)
    assert len(server.requests("GET")) == n_get  # HEADs only: nothing downloaded again
    assert_same(got, load(make_loader, str(shards / "s-{0..2}.tar")))
    # the object changed on the server (a new ETag): downloaded again
    server.etag_salt["/s-1.tar"] = 7
    load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache)
    assert [p for _, p, _ in server.requests("GET")[n_get:]] == ["/s-1.tar"]


@pytest.mark.parametrize("code", ["404", "403"])
def test_missing_or_forbidden_fails_create_naming_the_shard(make_loader, server, cache, code):
    server.inject("/s-1.tar", code, code)  # a refused HEAD is followed by a GET of byte 0
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader(server.url + "/s-{0..2}.tar", cache_dir=cache)
    assert f"{server.url}/s-1.tar" in str(e.value) and f"HTTP {code}" in str(e.value)


@pytest.mark.parametrize("status,ranges", [(403, True), (405, True), (405, False)])
def test_a_server_that_refuses_head(make_loader, shards, server, cache, status, ranges):
    """HEAD refused (presigned URLs are signed for GET only): the size and ETag
    come from a GET of byte 0 (or, where Range is ignored, the whole answer's
    Content-Length, the transfer cut short), then the download as ever."""
    server.head_status, server.ranges = status, ranges
    got = load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache)
    assert_same(got, load(make_loader, str(shards / "s-{0..2}.tar")))
    probes = sorted(p for m, p, r in server.requests("GET") if r == "bytes=0-0")
    assert probes == [f"/s-{i}.tar" for i in range(NSHARDS)]
    server.inject("/s-1.tar", None, "404")  # refused HEAD, then the probe: missing
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader(server.url + "/s-{0..2}.tar", cache_dir=str(cache) + "-2")
    assert f"{server.url}/s-1.tar: HTTP 404" in str(e.value)


def test_missing_shard_404(make_loader, server, cache):
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader(server.url + "/s-{0..3}.tar", cache_dir=cache)
    assert f"{server.url}/s-3.tar" in str(e.value) and "not found" in str(e.value)


@pytest.mark.parametrize("faults", [("503", "503"), ("reset",), ("500",)], ids=["503x2", "reset", "500"])
def test_transient_failures_are_retried_and_reported(make_loader, shards, server, cache, capfd, faults):
    server.inject("/s-2.tar", *faults)
    got = load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_retries=3)
    assert_same(got, load(make_loader, str(shards / "s-{0..2}.tar")))
    err = capfd.readouterr().err
    assert err.count(f"{server.url}/s-2.tar") == len(faults) and "try 1 of 4 failed" in err


@pytest.mark.parametrize("fault,words", [("truncate", "bytes remaining"), ("short", "truncated download"),
                                         ("corrupt", "corrupt download: tar header checksum wrong")])
def test_bad_download_is_detected_and_fetched_again(make_loader, shards, server, cache, capfd, fault, words):
    server.inject("/s-0.tar", "ok", fault)  # the HEAD passes, the GET is bad
    server.faults["/s-0.tar"][0] = None
    got = load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache)
    assert_same(got, load(make_loader, str(shards / "s-{0..2}.tar")))
    err = capfd.readouterr().err
    assert f"{server.url}/s-0.tar: " in err and words in err
    assert [p for _, p, _ in server.requests("GET")].count("/s-0.tar") == 2


def test_stall_times_out_and_is_retried(make_loader, shards, server, cache, capfd):
    server.inject("/s-1.tar", None, "stall")
    got = load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_timeout_ms=1000)
    assert_same(got, load(make_loader, str(shards / "s-{0..2}.tar")))
    assert f"{server.url}/s-1.tar" in capfd.readouterr().err


def test_feed_fetch_runs_confined(make_loader, shards, server, cache):
    """While it waits on a stalled answer, feed-fetch (the loader's child) has
    no_new_privs and a seccomp filter; the workers never have a socket."""
    import threading

    server.inject("/s-0.tar", "stall")
    out = {}
    t = threading.Thread(target=lambda: out.update(r=load(make_loader, server.url + "/s-0.tar", cache_dir=cache)))
    t.start()
    assert server.stalled.wait(60)
    status = None
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/stat") as f:
                st = f.read()
            if "(feed-fetch)" in st and int(st.rsplit(")", 1)[1].split()[1]) == os.getpid():
                with open(f"/proc/{pid}/status") as f:
                    status = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        except (OSError, ValueError):
            pass
    server.unstall.set()
    t.join()
    assert status is not None, "no feed-fetch child seen while the request stalled"
    assert status["NoNewPrivs"].strip() == "1" and status["Seccomp"].strip() == "2"
    ref = load(make_loader, str(shards / "s-0.tar"))  # the stalled try failed, the next one loaded
    assert list(out["r"][2]) == list(ref[2]) and (out["r"][0] == ref[0]).all() and (out["r"][1] == ref[1]).all()


def test_ctrl_c_stops_the_download(make_loader, server, cache):
    """SIGINT while create waits on a stalled download: create ends (the
    helper killed, no other request made), nothing half-written is kept."""
    import signal
    import threading

    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    server.inject("/s-0.tar", None, "stall")  # its HEAD answers, its GET stalls
    main = threading.get_ident()

    def interrupt():
        if server.stalled.wait(60):
            signal.pthread_kill(main, signal.SIGINT)

    t = threading.Thread(target=interrupt, daemon=True)
    t.start()
    try:
        with pytest.raises((KeyboardInterrupt, libfeed.FeedInterruptedError)):
            make_loader(server.url + "/s-0.tar", cache_dir=cache, fetch_retries=3)
    finally:
        signal.signal(signal.SIGINT, old)
        server.unstall.set()
        t.join()
    assert [p for _, p, _ in server.requests("GET")] == ["/s-0.tar"]  # no retry: the helper is gone
    assert not [f for f in os.listdir(cache) if f.endswith(".tar")]
    assert not held_lists(cache)
    assert [f for f in os.listdir(cache) if ".tar.part." in f]  # the killed download's
    load(make_loader, server.url + "/s-0.tar", cache_dir=cache)  # the next run removes it
    assert not [f for f in os.listdir(cache) if ".tar.part." in f]


def test_retries_used_up_is_an_error(make_loader, server, cache):
    server.inject("/s-1.tar", "503", "503", "503")
    with pytest.raises(libfeed.FeedIOError) as e:
        make_loader(server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_retries=2)
    assert f"{server.url}/s-1.tar" in str(e.value) and "tried 3 times" in str(e.value)


def test_changed_etag_while_read_names_the_shard(make_loader, server, cache):
    server.inject("/s-2.tar", "etag")  # replaced between its HEAD and its GET
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader(server.url + "/s-{0..2}.tar", cache_dir=cache)
    assert f"{server.url}/s-2.tar changed while it was read" in str(e.value)
    assert not [f for f in os.listdir(cache) if ".part" in f]  # nothing half-written left


def test_cache_size_too_small_is_an_error(make_loader, shards, server, cache):
    total = sum(os.path.getsize(shards / f"s-{i}.tar") for i in range(NSHARDS))
    with pytest.raises(libfeed.FeedResourceError) as e:
        make_loader(server.url + "/s-{0..2}.tar", cache_dir=cache, cache_size=total - 1)
    msg = str(e.value)  # downloads run in parallel: whichever shard found no room is named
    assert "cache_size" in msg and any(f"{server.url}/s-{i}.tar" in msg for i in range(NSHARDS))


def test_lru_eviction_keeps_this_loaders_shards(make_loader, shards, server, cache):
    sizes = [os.path.getsize(shards / f"s-{i}.tar") for i in range(NSHARDS)]
    load(make_loader, server.url + "/s-0.tar", cache_dir=cache)
    load(make_loader, server.url + "/s-1.tar", cache_dir=cache)
    load(make_loader, server.url + "/s-0.tar", cache_dir=cache)  # s-0 used last: s-1 is the oldest
    n_get = len(server.requests("GET"))
    # room for two shards: s-2 needs s-1's place
    make_loader(server.url + "/s-2.tar", cache_dir=cache, cache_size=sizes[0] + max(sizes[1:]))
    tars = {f for f in os.listdir(cache) if f.endswith(".tar")}
    assert len(tars) == 2
    load(make_loader, server.url + "/s-0.tar", cache_dir=cache)  # still cached: no GET
    assert [p for _, p, _ in server.requests("GET")[n_get:]] == ["/s-2.tar"]


def test_glob_over_http_is_refused(make_loader, server, cache):
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader(server.url + "/s-*.tar", cache_dir=cache)
    assert "only s3:// has" in str(e.value)


# ---- S3: moto's server -------------------------------------------------------------


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def moto_server():
    pytest.importorskip("moto.server", reason="moto[server] is not installed (pip install 'moto[server]')")
    boto3 = pytest.importorskip("boto3")
    from moto.server import ThreadedMotoServer

    port = free_port()
    srv = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    srv.start()
    url = f"http://127.0.0.1:{port}"
    s3 = boto3.client("s3", endpoint_url=url, region_name="us-east-1", aws_access_key_id="testing",
                      aws_secret_access_key="testing")
    yield url, s3
    srv.stop()


@pytest.fixture
def s3env(moto_server, monkeypatch):
    url, s3 = moto_server
    monkeypatch.setenv("AWS_ENDPOINT_URL", url)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    return s3


def put_shards(s3, shards, bucket, prefix):
    s3.create_bucket(Bucket=bucket)
    for i in range(NSHARDS):
        s3.upload_file(str(shards / f"s-{i}.tar"), bucket, f"{prefix}/s-{i}.tar")
    s3.put_object(Bucket=bucket, Key=f"{prefix}/notes.txt", Body=b"not a shard")


def test_s3_pattern_and_listing_same_as_disk(make_loader, shards, s3env, cache):
    put_shards(s3env, shards, "feed-a", "train")
    ref = load(make_loader, str(shards / "s-{0..2}.tar"))
    assert_same(load(make_loader, "s3://feed-a/train/s-{0..2}.tar", cache_dir=cache), ref)
    assert_same(load(make_loader, "s3://feed-a/train/*.tar", cache_dir=cache), ref)


def test_s3_missing_object_names_it(make_loader, shards, s3env, cache):
    put_shards(s3env, shards, "feed-b", "train")
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader("s3://feed-b/train/s-{0..5}.tar", cache_dir=cache)
    assert "s3://feed-b/train/s-3.tar" in str(e.value)


def test_s3_listing_matching_nothing(make_loader, shards, s3env, cache):
    put_shards(s3env, shards, "feed-c", "train")
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader("s3://feed-c/val/*.tar", cache_dir=cache)
    assert "s3://feed-c/val/*.tar matches no objects" in str(e.value)


def test_a_running_loaders_shards_are_never_evicted(make_loader, shards, server, cache):
    sizes = [os.path.getsize(shards / f"s-{i}.tar") for i in range(NSHARDS)]
    a = make_loader(server.url + "/s-0.tar", cache_dir=cache, shuffle=False, epochs=1, augment="val")
    held = held_lists(cache)
    assert len(held) == 1
    room = sizes[0] + sizes[2]
    load(make_loader, server.url + "/s-1.tar", cache_dir=cache)  # closed: s-1 is evictable
    make_loader(server.url + "/s-2.tar", cache_dir=cache, cache_size=room).close()  # evicts s-1, not s-0
    with pytest.raises(libfeed.FeedResourceError) as e:  # s-0 and s-2 held, no room for s-1
        b = make_loader(server.url + "/s-2.tar", cache_dir=cache)
        make_loader(server.url + "/s-1.tar", cache_dir=cache, cache_size=room)
    assert "other running loaders hold" in str(e.value) and f"{server.url}/s-1.tar" in str(e.value)
    ref = load(make_loader, str(shards / "s-0.tar"))
    gi, gl, gids = all_batches(a)  # a's shard is still there, whole
    assert (gi == ref[0]).all() and (gl == ref[1]).all()
    a.close()
    b.close()
    assert not held_lists(cache)  # closed loaders hold nothing


def test_a_shard_replaced_on_the_server_is_a_new_file(make_loader, shards, cache, tmp_path):
    """A loader that runs keeps reading the version it indexed while another
    loader fetches the new one (each version is its own file)."""
    srv_dir = tmp_path / "srv"
    srv_dir.mkdir()
    shutil.copy(shards / "s-0.tar", srv_dir / "s-0.tar")
    server = Server(srv_dir)
    try:
        a = make_loader(server.url + "/s-0.tar", cache_dir=cache, shuffle=False, epochs=1, augment="val")
        shutil.copy(shards / "s-1.tar", srv_dir / "s-0.tar")  # replaced: another ETag, other samples
        got_b = load(make_loader, server.url + "/s-0.tar", cache_dir=cache)
        got_a = all_batches(a)
        a.close()
    finally:
        server.close()
    for got, local in ((got_a, "s-0.tar"), (got_b, "s-1.tar")):
        ref = load(make_loader, str(shards / local))
        assert list(got[2]) == list(ref[2]) and (got[0] == ref[0]).all() and (got[1] == ref[1]).all()
    assert len([f for f in os.listdir(cache) if f.endswith(".tar")]) == 2


def test_torch_loader_takes_the_url(shards, server, cache):
    torch = pytest.importorskip("torch", reason="no torch")
    import libfeed.torch

    def run(source, **kw):
        with libfeed.torch.Loader(source, 8, size=48, resize_shorter=64, seed=1234, workers=2, shuffle=False,
                                  epochs=1, augment="val", **kw) as L:
            return [(x.clone(), y.clone()) for x, y in L]

    got, ref = run(server.url + "/s-{0..2}.tar", cache_dir=cache), run(str(shards / "s-{0..2}.tar"))
    assert len(got) == len(ref)
    for (gx, gy), (rx, ry) in zip(got, ref):
        assert torch.equal(gx, rx) and torch.equal(gy, ry)


def test_feed_fetch_named_but_missing(make_loader, server, cache, monkeypatch, tmp_path):
    monkeypatch.setenv("FEED_FETCH", str(tmp_path / "no-such-feed-fetch"))
    with pytest.raises(libfeed.FeedResourceError) as e:
        make_loader(server.url + "/s-0.tar", cache_dir=cache)
    assert "no-such-feed-fetch is not an executable file" in str(e.value)


def test_rank_shares_as_for_local_shards(make_loader, shards, server, cache):
    """Each rank gets from the URLs what it gets from the same shards on disk
    (ids, labels, pixels), the two shares cover every sample."""
    ids = []
    for rank in (0, 1):
        kw = dict(rank=rank, world_size=2, shuffle=True, seed=7)
        got = load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache, **kw)
        ref = load(make_loader, str(shards / "s-{0..2}.tar"), **kw)
        assert list(got[2]) == list(ref[2]) and (got[0] == ref[0]).all() and (got[1] == ref[1]).all()
        ids += list(got[2])
    assert set(ids) == set(range(NIMG))
