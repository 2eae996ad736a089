"""libfeed statuses as Python exceptions: options, create, bad samples, timeouts."""
import ctypes
import errno
import os
import shutil
import signal

import numpy as np
import pytest

import libfeed
from libfeed import _capi

from conftest import BATCH, NIMG, child_pids

BAD_ID = 12  # class_001's fourth file in index order; batch 1 unshuffled


@pytest.fixture(scope="module")
def bad_dataset(dataset, index, tmp_path_factory):
    """The dataset with one sample replaced by bytes that are not a JPEG."""
    d = tmp_path_factory.mktemp("bad") / "ds"
    shutil.copytree(dataset, d)
    rel = index[BAD_ID][0]
    with open(d / rel, "wb") as f:
        f.write(b"this is not a JPEG file " * 64)
    return str(d), os.path.join(str(d), rel)


def test_option_errors_are_value_errors(dataset):
    with pytest.raises(libfeed.FeedInvalidError) as e:
        libfeed.Loader(dataset, batch_size="abc")
    assert isinstance(e.value, ValueError) and isinstance(e.value, libfeed.FeedError)
    assert e.value.status == 3 and e.value.name == "FEED_E_INVALID"
    assert "batch_size='abc'" in e.value.message  # the C library's message
    with pytest.raises(ValueError, match="unknown key 'bogus'"):
        libfeed.Loader(dataset, bogus=1)
    with pytest.raises(ValueError, match="augment='sideways'.*none|val|train"):
        libfeed.Loader(dataset, augment="sideways")
    with pytest.raises(ValueError, match="not key=value"):
        libfeed.Loader(dataset, options="workers")
    with pytest.raises(ValueError, match="workers=0"):  # from validation at create
        libfeed.Loader(dataset, workers=0)
    with pytest.raises(ValueError, match="tpu"):
        libfeed.Loader(dataset, device="tpu")
    with pytest.raises(ValueError, match="output"):
        libfeed.Loader(dataset, output="list")


def test_create_errors_carry_status_and_message(dataset, tmp_path):
    with pytest.raises(libfeed.FeedDatasetError) as e:
        libfeed.Loader(str(tmp_path / "nope"))
    assert e.value.status == libfeed.Status.E_DATASET and e.value.name == "FEED_E_DATASET"
    assert str(tmp_path / "nope") in e.value.message and e.value.path == str(tmp_path / "nope")
    with pytest.raises(libfeed.FeedResourceError, match="/nonexistent/feed-worker"):
        libfeed.Loader(dataset, worker_path="/nonexistent/feed-worker")
    before = child_pids()
    with pytest.raises(libfeed.FeedWorkerError, match="exited with status 1"):
        libfeed.Loader(dataset, worker_path="/bin/false", device="cpu")
    assert child_pids() == before  # nothing left behind


def test_cuda_request_without_a_gpu(dataset):
    L = libfeed.Loader(dataset, device="auto", batch_size=4, size=32, resize_shorter=40)
    device = L.device
    L.close()
    if device != "cpu":
        pytest.skip("a GPU is present: device=cuda works here")
    with pytest.raises((libfeed.FeedUnsupportedError, libfeed.FeedDeviceError)) as e:
        libfeed.Loader(dataset, device="cuda:0")
    assert "cuda" in e.value.message.lower()


def test_bad_sample_fail_policy_raises_with_path(make_loader, bad_dataset):
    root, bad_path = bad_dataset
    L = make_loader(source=root, bad_policy="fail", shuffle=False, epochs=1)
    it = iter(L)
    assert next(it).index == 0
    with pytest.raises(libfeed.FeedDecodeError) as e:
        next(it)
    err = e.value
    assert err.status == libfeed.Status.E_DECODE and err.name == "FEED_E_DECODE"
    assert err.path == bad_path and bad_path in str(err)
    assert (err.sample_id, err.epoch, err.batch) == (BAD_ID, 0, 1)
    assert err.bad_samples and err.bad_samples[0].path == bad_path
    # Asking again delivers that batch, the sample replaced; the epoch goes on.
    b = next(it)
    assert b.index == 1 and b.bad == 1
    pos = list(b.sample_ids).index(BAD_ID) if BAD_ID in b.sample_ids else None
    replaced = np.flatnonzero(b.flags & libfeed.SAMPLE_REPLACED)
    assert len(replaced) == 1 and replaced[0] == BAD_ID - BATCH and pos is None
    del b  # a kept batch keeps its ring slot
    rest = [x.index for x in it]
    assert rest == list(range(2, (NIMG + BATCH - 1) // BATCH))


@pytest.mark.parametrize("how", ["deleted", "directory"])
def test_bad_sample_fail_policy_unreadable_file_names_it(make_loader, dataset, tmp_path, how):
    # A file gone (or made a directory) after create is FEED_E_IO, not a
    # decode error: under bad_policy="fail" it says which sample all the same.
    root = tmp_path / "ds"
    shutil.copytree(dataset, root)
    L = make_loader(source=str(root), bad_policy="fail", shuffle=False, epochs=1, prefetch=2,
                    report_bad=False)
    last = len(L) - 1
    sid = NIMG - 3  # in the last batch: not read before the loop reaches it (prefetch=2)
    path, _ = L.samples[sid]
    os.remove(path)
    if how == "directory":
        os.mkdir(path)
    it = iter(L)
    assert [next(it).index for _ in range(last)] == list(range(last))
    with pytest.raises(libfeed.FeedIOError) as e:
        next(it)
    err = e.value
    assert err.status == libfeed.Status.E_IO and isinstance(err, OSError)
    assert err.path == path and path in str(err)
    assert (err.sample_id, err.epoch, err.batch) == (sid, 0, last)
    assert [(r.sample_id, r.path, r.name) for r in err.bad_samples] == [(sid, path, "FEED_E_IO")]
    assert err.errno == (errno.ENOENT if how == "deleted" else errno.EISDIR)
    # As for a decode error: asking again delivers the batch, the sample replaced.
    b = next(it)
    assert (b.index, b.bad) == (last, 1) and sid not in b.sample_ids.tolist()
    assert list(it) == []


@pytest.mark.parametrize("status", ["E_WORKER", "E_TIMEOUT", "E_INTERRUPTED", "E_BUSY"])
def test_bad_sample_error_whatever_the_status(make_loader, bad_dataset, monkeypatch, status):
    # feed_loader_next returns the status of the batch's first bad sample:
    # FEED_E_WORKER for a quarantined one, or any a worker reported. Whatever
    # it is, the error carries the details, and a status the loop otherwise
    # waits on (timeout, interrupted, busy) is raised, the batch not delivered
    # as if replaced. feed_loader_next's decode status is swapped for it here.
    status = libfeed.Status[status]
    root, bad_path = bad_dataset
    L = make_loader(source=root, bad_policy="fail", shuffle=False, epochs=1, report_bad=False)
    real_next = _capi.lib.feed_loader_next

    def fake_next(h, cb, ms):
        st = real_next(h, cb, ms)
        return status if st == libfeed.Status.E_DECODE else st

    monkeypatch.setattr(_capi.lib, "feed_loader_next", fake_next)
    it = iter(L)
    assert next(it).index == 0
    with pytest.raises(libfeed.FeedError) as e:
        next(it)
    err = e.value
    assert type(err) is libfeed._errors.error_class(status) and err.status == status
    assert err.path == bad_path and bad_path in str(err)
    assert (err.sample_id, err.epoch, err.batch) == (BAD_ID, 0, 1)
    assert [r.sample_id for r in err.bad_samples] == [BAD_ID]
    b = next(it)
    assert (b.index, b.bad) == (1, 1)


def test_bad_sample_replace_policy_reports(make_loader, bad_dataset):
    root, bad_path = bad_dataset
    L = make_loader(source=root, shuffle=False, epochs=1)
    assert sum(b.bad for b in L) == 1
    reports = L.bad_samples()
    assert len(reports) == 1
    r = reports[0]
    assert (r.sample_id, r.epoch, r.batch, r.name, r.path) == (BAD_ID, 0, 1, "FEED_E_DECODE",
                                                               bad_path)
    assert r.message  # the decoder's words
    assert L.stats()["samples_bad"] == 1


def test_bad_sample_mirror_size(make_loader, bad_dataset):
    # feed_loader_bad_sample copies the whole struct: the first byte it leaves
    # untouched in a larger buffer is sizeof(feed_bad_sample).
    L = make_loader(source=bad_dataset[0], shuffle=False, epochs=1)
    sum(1 for _ in L)  # the epoch, each batch dropped (a kept one keeps its slot)
    size = ctypes.sizeof(_capi.FeedBadSample)
    buf = ctypes.create_string_buffer(b"\xaa" * (size + 256), size + 256)
    assert _capi.lib.feed_loader_bad_sample(L._h, 0, buf) == 0
    raw = buf.raw
    assert raw[size:size + 256] == b"\xaa" * 256
    assert raw[size - 1] != 0xAA  # the struct's last byte was written


def test_bad_sample_fail_policy_then_set_epoch(make_loader, bad_dataset):
    # The failed batch was never handed out: set_epoch / load_state_dict work.
    L = make_loader(source=bad_dataset[0], bad_policy="fail", shuffle=False, report_bad=False)
    it = iter(L)
    assert next(it).index == 0
    with pytest.raises(libfeed.FeedDecodeError):
        next(it)
    state = L.state_dict()
    assert (state["epoch"], state["batch"]) == (0, 1)
    L.set_epoch(1)
    assert L.position() == (1, 0)
    L.load_state_dict(state)
    with pytest.raises(libfeed.FeedDecodeError):  # the same batch, afresh
        next(iter(L))
    b = next(iter(L))
    assert (b.epoch, b.index, b.bad) == (0, 1, 1)


def test_wrong_root_is_a_dataset_error(make_loader, dataset, index, tmp_path, capfd):
    # Every file missing: an error naming the share and the paths, not black images.
    lst = tmp_path / "list.txt"
    lst.write_text("".join(f"{rel} {label}\n" for rel, label in index))
    L = make_loader(source=str(tmp_path), file_list=str(lst), shuffle=False)
    with pytest.raises(libfeed.FeedDatasetError) as e:
        next(iter(L))
    assert "100%" in e.value.message and str(tmp_path / index[0][0]) in e.value.message
    assert str(tmp_path / index[0][0]) in capfd.readouterr().err  # reported on stderr too
    with pytest.raises(libfeed.FeedDatasetError):
        next(iter(L))
    with pytest.raises(ValueError, match="max_bad_fraction"):
        make_loader(max_bad_fraction=1.5)


def test_bad_log_and_budget_keywords(make_loader, bad_dataset, tmp_path, capfd):
    root, bad_path = bad_dataset
    log = tmp_path / "bad.log"
    L = make_loader(source=root, shuffle=False, epochs=2, max_bad_fraction=0.5, report_bad=False,
                    bad_log=str(log))
    for _ in range(2):
        sum(1 for _ in L)  # the epoch, each batch dropped (a kept one keeps its slot)
    assert L.bad_count() == 2 and L.bad_count(epoch=1) == 1 and L.bad_count(epoch=5) == 0
    assert [r.epoch for r in L.bad_samples()] == [0, 1]
    L.close()
    lines = log.read_text().splitlines()
    assert [ln.split("\t")[:2] for ln in lines] == [["0", str(BAD_ID)], ["1", str(BAD_ID)]]
    assert all(ln.split("\t")[4] == bad_path and ln.split("\t")[3] == "FEED_E_DECODE" for ln in lines)
    assert "libfeed: bad sample" not in capfd.readouterr().err
    if _capi.options_mirror_ok:
        assert _capi.FeedOptions.max_bad_fraction.offset < _capi.FeedOptions.bad_log.offset


def test_timeout_then_resume(make_loader):
    L = make_loader(workers=1, prefetch=2, timeout=0.3, sample_timeout_ms=0, shuffle=False)
    it = iter(L)
    assert next(it).index == 0
    workers = child_pids()
    assert len(workers) == 1
    os.kill(workers[0], signal.SIGSTOP)
    try:
        got = []
        with pytest.raises(libfeed.FeedTimeoutError) as e:
            for _ in range(4):  # what the ring already holds, then a wait
                got.append(next(it).index)
        assert isinstance(e.value, TimeoutError) and e.value.status == libfeed.Status.E_TIMEOUT
        assert len(got) <= 2
    finally:
        os.kill(workers[0], signal.SIGCONT)
    assert next(it).index == 1 + len(got)  # nothing lost or skipped


def test_closed_loader(make_loader):
    L = make_loader()
    L.close()
    L.close()
    assert L.closed and "closed" in repr(L)
    for f in (lambda: iter(L), lambda: len(L), L.position, L.stats):
        with pytest.raises(ValueError, match="closed"):
            f()


# Every numeric keyword the Loader passes to feed_options_set(), by kind.
U32 = ["batch_size", "epochs", "start_epoch", "workers", "prefetch", "height", "width",
       "resize_shorter", "device_prefetch", "max_retries", "sample_timeout_ms", "readahead"]
U64 = ["seed", "max_pixels", "max_file_bytes", "max_worker_memory"]
F32 = ["scale_min", "scale_max", "ratio_min", "ratio_max", "flip_p", "rotate_deg",
       "brightness", "contrast", "saturation", "hue", "grayscale_p", "max_bad_fraction"]
FLAGS = ["shuffle", "drop_last", "exif", "roi_decode", "sync", "report_bad"]


def refused(dataset, exc, name, **kw):
    with pytest.raises(exc) as e:
        libfeed.Loader(dataset, **kw)
    assert not isinstance(e.value, libfeed.FeedError)  # refused here, not by the C parser
    assert name in str(e.value), str(e.value)
    assert child_pids() == []  # before any worker was started


@pytest.mark.parametrize("key", U32 + U64 + ["rank", "world_size", "size"])
def test_integer_options_refuse_bools_fractions_negatives(dataset, key):
    refused(dataset, TypeError, key, **{key: True})  # was batch_size=1, silently
    refused(dataset, TypeError, key, **{key: np.bool_(False)})
    refused(dataset, ValueError, key, **{key: 2.5})
    refused(dataset, ValueError, key, **{key: float("nan")})
    refused(dataset, ValueError, key, **{key: -1})
    refused(dataset, TypeError, key, **{key: [3]} if key != "size" else {key: [3, 4, 5]})
    refused(dataset, ValueError, key, **{key: 1 << 64})
    if key not in U64:
        refused(dataset, ValueError, key, **{key: 1 << 32})
    if key == "max_worker_memory":  # 2^64 - 1 is what "auto" is stored as
        refused(dataset, ValueError, key, **{key: (1 << 64) - 1})


def test_integer_options_accept_integers(dataset):
    L = libfeed.Loader(dataset, batch_size=np.int64(5), size=(np.int32(40), 36.0), seed=2**63,
                       workers=1, epochs=1, rank=np.uint8(0), world_size=1.0, max_pixels=1 << 40,
                       max_worker_memory=20e6)
    try:
        images, labels = next(iter(L))
        assert images.shape == (5, 40, 36, 3) and L.batch_size == 5
        if _capi.options_mirror_ok:
            assert L._option("max_worker_memory") == 20_000_000
    finally:
        L.close()


@pytest.mark.parametrize("key", F32)
def test_float_options_refuse_bools(dataset, key):
    refused(dataset, TypeError, key, **{key: True})
    refused(dataset, TypeError, key, **{key: [0.5]})
    refused(dataset, ValueError, key, **{key: float("inf")})


@pytest.mark.parametrize("key", FLAGS)
def test_flag_options_take_bools_or_0_1(dataset, key):
    refused(dataset, ValueError, key, **{key: 2})
    refused(dataset, TypeError, key, **{key: 1.0})


def test_other_numeric_arguments(dataset):
    refused(dataset, TypeError, "mean", mean=(True, 0.5, 0.5))
    refused(dataset, ValueError, "std", std=(0.5, 0.5))
    refused(dataset, TypeError, "fill", fill=True)
    refused(dataset, ValueError, "fill", fill=(256, 0, 0))
    refused(dataset, ValueError, "fill", fill=-1)
    refused(dataset, TypeError, "rotate", augment={"mode": "train", "rotate": True})
    refused(dataset, ValueError, "scale", augment={"mode": "train", "scale": (0.5,)})
    refused(dataset, TypeError, "batch_size", options={"batch_size": True})
    refused(dataset, TypeError, "timeout", timeout=True)
    refused(dataset, ValueError, "timeout", timeout=-1)
    refused(dataset, TypeError, "stream", stream=True)


@pytest.mark.parametrize("status", [libfeed.Status.E_DECODE, libfeed.Status.E_IO,
                                    libfeed.Status.E_WORKER])
def test_errors_pickle_with_their_sample(status):
    # Errors cross processes pickled (multiprocessing, torch.multiprocessing):
    # the sample's details must survive, not only status, message and path.
    import pickle

    from libfeed._errors import make_error
    from libfeed.loader import BadSample

    e = make_error(status, "bad sample x.jpg", path="/data/x.jpg")
    rep = BadSample(7, 1, 2, int(status), "FEED_E_X", errno.ENOENT, "/data/x.jpg", "gone")
    e.bad_samples, e.sample_id, e.epoch, e.batch = (rep,), 7, 1, 2
    if isinstance(e, OSError):
        e.errno = errno.ENOENT
    r = pickle.loads(pickle.dumps(e))
    assert type(r) is type(e) and str(r) == str(e)
    assert (r.status, r.name, r.message, r.path) == (e.status, e.name, e.message, e.path)
    assert (r.sample_id, r.epoch, r.batch, r.bad_samples) == (7, 1, 2, (rep,))
    if isinstance(e, OSError):
        assert r.errno == errno.ENOENT
