"""Remote shards fetched while the loader runs (fetch_ahead > 0), from the
local HTTP server of remote_server.py: create asks only for the versions
(and scans the shards for the index, each let go once read); the run asks for
the shards its next batches read, within cache_size. Every load is compared
with the same shards read from disk."""
import os

import numpy as np
import pytest

from conftest import BATCH, NIMG
from test_remote import NSHARDS, assert_same, cache, load, server, shards  # noqa: F401 (fixtures)
from test_tar import all_batches

import libfeed


def gets(server, name):
    return sum(1 for m, p, _ in server.log if m == "GET" and p == "/" + name)


def cached_tars(cache):
    return {f: os.path.getsize(os.path.join(cache, f)) for f in os.listdir(cache) if f.endswith(".tar")}


def test_same_as_disk(make_loader, shards, server, cache):
    ref = load(make_loader, str(shards / "s-{0..2}.tar"))
    assert_same(load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=2), ref)


def test_shuffled_batches_equal_the_local_loaders(make_loader, shards, server, cache):
    """The same index, the same order: batch by batch the same samples and pixels."""
    ref = load(make_loader, str(shards / "s-{0..2}.tar"), shuffle=True)
    got = load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=1, shuffle=True)
    assert list(got[2]) == list(ref[2])
    assert (got[0] == ref[0]).all() and (got[1] == ref[1]).all()


def test_a_dataset_larger_than_the_cache_streams_through_it(make_loader, shards, server, cache):
    sizes = [os.path.getsize(shards / f"s-{i}.tar") for i in range(NSHARDS)]
    room = sum(sorted(sizes)[1:])  # two shards of three
    ref = load(make_loader, str(shards / "s-{0..2}.tar"))
    got = load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=1, cache_size=room)
    assert_same(got, ref)
    assert sum(cached_tars(cache).values()) <= room
    # each shard read for the index and let go; the run fetched again what was evicted meanwhile
    n = [gets(server, f"s-{i}.tar") for i in range(NSHARDS)]
    assert min(n) >= 1 and sum(n) > NSHARDS


def test_shuffle_window_streams_a_shuffled_epoch_through_a_small_cache(make_loader, shards, server, cache):
    """shuffle_window=1: each stretch of the epoch reads one shard (a batch at
    a boundary two), so a cache of two shards is enough; batch by batch the
    local loader's order and pixels, two epochs."""
    sizes = [os.path.getsize(shards / f"s-{i}.tar") for i in range(NSHARDS)]
    kw = dict(shuffle=True, shuffle_window=1, epochs=2, augment="val")
    ref = make_loader(str(shards / "s-{0..2}.tar"), **kw)
    L = make_loader(server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=1, cache_size=sum(sorted(sizes)[1:]),
                    **kw)
    for epoch in range(2):
        got, want = all_batches(L), all_batches(ref)
        assert list(got[2]) == list(want[2]) and sorted(got[2]) == list(range(NIMG))
        assert (got[0] == want[0]).all() and (got[1] == want[1]).all()
    L.close()
    ref.close()
    assert sum(cached_tars(cache).values()) <= sum(sorted(sizes)[1:])


def test_cache_too_small_for_a_batch_names_cache_size(make_loader, shards, server, cache):
    """A shuffled order over all shards: the first batch reads every shard."""
    size = max(os.path.getsize(shards / f"s-{i}.tar") for i in range(NSHARDS))
    L = make_loader(server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=1, cache_size=size + 1,
                    shuffle=True, epochs=1, augment="val")
    with pytest.raises(libfeed.FeedError, match="cache_size"):
        all_batches(L)
    L.close()


def test_shard_changed_after_create_is_an_error_naming_it(make_loader, shards, server, cache):
    sizes = [os.path.getsize(shards / f"s-{i}.tar") for i in range(NSHARDS)]
    L = make_loader(server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=1, cache_size=sum(sorted(sizes)[1:]),
                    shuffle=False, epochs=1, augment="val")
    # s-2 is not wanted before the consumer is past s-0's batches (cache_size): replace it now
    server.etag_salt["/s-2.tar"] = server.etag_salt.get("/s-2.tar", 0) + 1
    seen = 0
    with pytest.raises(libfeed.FeedError, match=r"s-2\.tar changed while it was read"):
        for b in L:
            seen += len(b.sample_ids)
    assert 0 < seen < NIMG
    L.close()


def test_a_missing_shard_fails_create(make_loader, server, cache):
    with pytest.raises(libfeed.FeedError, match=r"s-3\.tar.*404"):
        make_loader(server.url + "/s-{0..3}.tar", cache_dir=cache, fetch_ahead=1)


def test_second_epoch_and_seek(make_loader, shards, server, cache):
    """Two epochs through a cache of two shards; a seek back to the start of
    epoch 1 gives its batches again."""
    sizes = [os.path.getsize(shards / f"s-{i}.tar") for i in range(NSHARDS)]
    L = make_loader(server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=1, cache_size=sum(sorted(sizes)[1:]),
                    shuffle=False, epochs=2, augment="val")
    ref = load(make_loader, str(shards / "s-{0..2}.tar"))
    for epoch in range(2):
        assert_same(all_batches(L), ref)
    L.close()


BAD = (12, 22, 37)
NBAD_SHARDS, PER = 9, NIMG // 9


@pytest.fixture(scope="module")
def bad_shards(tmp_path_factory, dataset, index):
    """The dataset in 9 shards of 5 (b-0.tar .. b-8.tar), samples BAD not JPEGs."""
    from test_tar import samples, write_tarfile
    d = tmp_path_factory.mktemp("bad_shards")
    items = samples(dataset, index)
    for i in BAD:
        items[i] = (items[i][0], b"not a jpeg at all" * 10, items[i][2])
    for s in range(NBAD_SHARDS):
        write_tarfile(d / f"b-{s}.tar", items[s * PER:(s + 1) * PER])
    return d


def test_a_bad_samples_substitute_comes_from_its_own_shard(make_loader, shards, bad_shards, cache):
    """Only the shards of the batch are sure to be cached: a substitute from
    another shard could not be read."""
    from remote_server import Server
    srv = Server(bad_shards)
    try:
        sizes = [os.path.getsize(bad_shards / f"b-{i}.tar") for i in range(NBAD_SHARDS)]
        ref = load(make_loader, str(shards / "s-{0..2}.tar"))
        L = make_loader(srv.url + "/b-{0..8}.tar", cache_dir=cache, fetch_ahead=1, cache_size=sum(sorted(sizes)[-4:]),
                        shuffle=False, epochs=1, augment="val")
        got = []
        for b in L:
            ids, flags = np.array(b.sample_ids), np.array(b.flags)
            for t in np.flatnonzero(flags & libfeed.SAMPLE_REPLACED):
                got.append(int(ids[t]))
                assert (np.array(b[0])[t] == ref[0][ids[t]]).all()  # the substitute's own pixels
        L.close()
    finally:
        srv.close()
    assert len(got) == len(BAD)
    for bad, sub in zip(BAD, got):  # in order: shuffle is off
        assert sub != bad and sub // PER == bad // PER, (bad, sub)


def test_the_index_is_saved_and_a_second_create_fetches_no_shard(make_loader, shards, server, cache):
    ref = load(make_loader, str(shards / "s-{0..2}.tar"))
    assert_same(load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=1), ref)
    assert [f for f in os.listdir(cache) if f.startswith("index-") and f.endswith(".shards")]
    for f in cached_tars(cache):
        os.remove(os.path.join(cache, f))
    server.get_status = 503  # no shard can be had now: a create that scanned them would fail
    L = make_loader(server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=1, fetch_retries=0, shuffle=False,
                    epochs=1, augment="val")
    assert len(L.dataset) == NIMG  # the saved index
    with pytest.raises(libfeed.FeedError, match=r"s-\d\.tar.*503"):
        all_batches(L)
    L.close()
    with pytest.raises(libfeed.FeedError, match=r"s-\d\.tar.*503"):  # without the saved index: the scan
        make_loader(server.url + "/s-{0..2}.tar", cache_dir=cache + "-2", fetch_ahead=1, fetch_retries=0)
    server.get_status = None
    assert_same(load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=1), ref)


def ranged_gets(server, since):
    """The GETs from entry since of the log: (path, Range header or None)."""
    return [(p, r) for m, p, r in server.log[since:] if m == "GET"]


def test_two_ranks_by_range_deliver_their_local_batches(make_loader, shards, server, cache):
    """world_size=2, fetch_ranges=ranges: batch by batch each rank's
    samples and pixels are the local rank's, together every sample once; with
    the index saved (a first run scanned the shards) every GET is ranged, none
    of a whole shard."""
    kw = dict(shuffle=True, shuffle_window=1, world_size=2)
    remote = dict(cache_dir=cache, fetch_ahead=1, fetch_ranges="ranges")
    load(make_loader, server.url + "/s-{0..2}.tar", rank=0, **remote, **kw)
    for f in cached_tars(cache):  # the scan's copies: a range would be taken from them
        os.remove(os.path.join(cache, f))
    seen = []
    for rank in range(2):
        ref = load(make_loader, str(shards / "s-{0..2}.tar"), rank=rank, **kw)
        n0 = len(server.log)
        got = load(make_loader, server.url + "/s-{0..2}.tar", rank=rank, **remote, **kw)
        assert list(got[2]) == list(ref[2])
        assert (got[0] == ref[0]).all() and (got[1] == ref[1]).all()
        run = ranged_gets(server, n0)
        assert run and all(r and r.startswith("bytes=") for _, r in run), run
        assert not cached_tars(cache) and [f for f in os.listdir(cache) if f.endswith(".ranges")]
        seen += list(got[2])
    assert sorted(set(seen)) == list(range(NIMG)) and len(seen) == NIMG + 1  # one sample twice: the shares padded


def test_a_ranged_substitute_comes_from_its_batch(make_loader, shards, bad_shards, cache):
    """With byte ranges only the batch's samples are sure to be cached: a bad
    sample's substitute is another sample of its batch, with its own pixels.
    Batches of two: the shard's other samples are mostly outside the batch."""
    from remote_server import Server
    srv = Server(bad_shards)
    try:
        ref = load(make_loader, str(shards / "s-{0..2}.tar"))
        L = make_loader(srv.url + "/b-{0..8}.tar", cache_dir=cache, fetch_ahead=1, fetch_ranges="ranges",
                        shuffle=False, epochs=1, augment="val", batch_size=2)
        got = []
        for k, b in enumerate(L):
            ids, flags = np.array(b.sample_ids), np.array(b.flags)
            for t in np.flatnonzero(flags & libfeed.SAMPLE_REPLACED):
                got.append((k * 2 + int(t), int(ids[t])))
                assert (np.array(b[0])[t] == ref[0][ids[t]]).all()  # the substitute's own pixels
        L.close()
    finally:
        srv.close()
    assert [bad for bad, _ in got] == list(BAD)  # shuffle off: batch k asks k*BATCH..
    for bad, sub in got:
        assert sub == bad ^ 1, (bad, sub)  # the other of its batch


def test_a_server_that_ignores_range_is_an_error_naming_the_option(make_loader, shards, server, cache):
    assert_same(load(make_loader, server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=1,
                     fetch_ranges="ranges"), load(make_loader, str(shards / "s-{0..2}.tar")))
    for f in os.listdir(cache):  # the index stays
        if f.endswith((".tar", ".meta", ".ranges")):
            os.remove(os.path.join(cache, f))
    server.ranges = False  # a 200 with the whole shard to every ranged GET
    L = make_loader(server.url + "/s-{0..2}.tar", cache_dir=cache, fetch_ahead=1, fetch_ranges="ranges",
                    shuffle=False, epochs=1, augment="val")
    with pytest.raises(libfeed.FeedError, match=r"s-\d\.tar.*ignores Range.*fetch_ranges"):
        all_batches(L)
    L.close()
