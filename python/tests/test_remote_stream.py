"""Remote shards fetched while the loader runs (fetch_ahead > 0), from the
local HTTP server of remote_server.py: create asks only for the versions
(and scans the shards for the index, each let go once read); the run asks for
the shards its next batches read, within cache_size. Every load is compared
with the same shards read from disk."""
import os

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
    with pytest.raises(libfeed.FeedError, match=r"s-2\.tar changed since the loader was created"):
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
