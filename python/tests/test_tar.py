"""WebDataset tar shards as a source: shards written by Python's tarfile (pax,
GNU and ustar formats) and by the webdataset package's TarWriter load, and
give the same pixels and labels as the loose files they were made from; a
malformed shard is reported (shard, member, offset) and loses nothing else."""
import io
import os
import tarfile

import numpy as np
import pytest

from conftest import NIMG

import libfeed


def write_tarfile(path, items, fmt=tarfile.PAX_FORMAT):
    """items: [(key, jpeg bytes, label)] -> KEY.jpg + KEY.cls members."""
    with tarfile.open(path, "w", format=fmt) as t:
        for key, data, label in items:
            for ext, payload in (("jpg", data), ("cls", str(label).encode())):
                info = tarfile.TarInfo(f"{key}.{ext}")
                info.size = len(payload)
                t.addfile(info, io.BytesIO(payload))


def samples(dataset, index):
    out = []
    for i, (rel, label) in enumerate(index):
        with open(os.path.join(dataset, rel), "rb") as f:
            out.append((f"s{i:05d}", f.read(), label))
    return out


def all_batches(L):
    imgs, labs, ids = [], [], []
    for b in L:
        imgs.append(np.array(b[0]))
        labs.append(np.array(b[1]))
        ids.append(np.array(b.sample_ids))
    return np.concatenate(imgs), np.concatenate(labs), np.concatenate(ids)


def assert_same_as_files(make_loader, source, dataset, index):
    ref = make_loader(dataset, shuffle=False, epochs=1, augment="val")
    got = make_loader(source, shuffle=False, epochs=1, augment="val")
    ri, rl, _ = all_batches(ref)
    gi, gl, gids = all_batches(got)
    assert list(gids) == list(range(NIMG))
    assert (gl == rl).all() and list(gl) == [lab for _, lab in index]
    assert (gi == ri).all()  # the same bytes decoded: the same pixels


@pytest.mark.parametrize("fmt", [tarfile.PAX_FORMAT, tarfile.GNU_FORMAT, tarfile.USTAR_FORMAT])
def test_tarfile_shards_load(tmp_path, make_loader, dataset, index, fmt):
    items = samples(dataset, index)
    half = len(items) // 2
    # a long directory name: pax 'path' records, GNU 'L' members, ustar prefixes
    sub = "d" * 120 + "/"
    write_tarfile(tmp_path / "py-0.tar", [(sub + k, d, l) for k, d, l in items[:half]], fmt)
    write_tarfile(tmp_path / "py-1.tar", [(sub + k, d, l) for k, d, l in items[half:]], fmt)
    assert_same_as_files(make_loader, str(tmp_path / "py-{0..1}.tar"), dataset, index)
    # the same shards as a glob and as a list file
    assert make_loader(str(tmp_path / "py-*.tar")).samples_per_epoch == NIMG
    (tmp_path / "shards.txt").write_text("py-0.tar\npy-1.tar\n")
    assert make_loader(str(tmp_path / "shards.txt")).samples_per_epoch == NIMG


def test_webdataset_tarwriter_shards_load(tmp_path, make_loader, dataset, index):
    wds = pytest.importorskip("webdataset", reason="the webdataset package is not installed")
    items = samples(dataset, index)
    for s in range(3):
        with wds.TarWriter(str(tmp_path / f"wds-{s:06d}.tar")) as sink:
            for key, data, label in items[s * 15:(s + 1) * 15]:
                sink.write({"__key__": key, "jpg": data, "cls": label, "json": {"i": key}})
    assert_same_as_files(make_loader, str(tmp_path / "wds-{000000..000002}.tar"), dataset, index)


def test_malformed_shard_reports_and_keeps_the_rest(tmp_path, make_loader, dataset, index, capfd):
    items = samples(dataset, index)
    write_tarfile(tmp_path / "m-0.tar", items[:20])
    write_tarfile(tmp_path / "m-1.tar", items[20:])
    raw = bytearray((tmp_path / "m-1.tar").read_bytes())
    # the header of the second sample's image member: corrupt its checksum
    with tarfile.open(tmp_path / "m-1.tar") as t:
        members = t.getmembers()
    victim = members[2]
    assert victim.name == "s00021.jpg"
    raw[victim.offset + 5] ^= 0x55
    (tmp_path / "m-1.tar").write_bytes(bytes(raw))
    L = make_loader(str(tmp_path / "m-{0..1}.tar"), shuffle=False, epochs=1, augment="val")
    err = capfd.readouterr().err
    assert f"m-1.tar: member 's0002" in err and f"at offset {victim.offset}: bad tar header" in err
    # and through the API: the count, and the first report as stderr had it
    reports = [ln for ln in err.splitlines() if ln.startswith("libfeed: dataset: ")]
    assert L.shard_problems == len(reports) >= 1
    assert reports[0] == "libfeed: dataset: " + L.shard_problem_first
    assert L.shard_problem_first.startswith(str(tmp_path / "m-1.tar") + ": member 's0002")
    assert L.samples_per_epoch == NIMG - 1
    _, labels, _ = all_batches(L)
    want = [lab for i, (_, lab) in enumerate(index) if i != 21]
    assert list(labels) == want


def test_pattern_errors(tmp_path):
    with pytest.raises(libfeed.FeedError, match="matches no files"):
        libfeed.Loader(str(tmp_path / "none-*.tar"))
    write_tarfile(tmp_path / "e-0.tar", [])
    with pytest.raises(libfeed.FeedError, match=r"e-1\.tar \(from pattern .*\): No such file"):
        libfeed.Loader(str(tmp_path / "e-{0..1}.tar"))


def test_samples_name_each_member_by_its_key(tmp_path, make_loader, dataset, index):
    """loader.samples over shards: "SHARD.tar:KEY" names the member by its
    WebDataset key; sample_range(i) is its data (the image file's bytes,
    exactly); the label is its .cls member's."""
    items = samples(dataset, index)
    half = len(items) // 2
    write_tarfile(tmp_path / "s-0.tar", items[:half])
    write_tarfile(tmp_path / "s-1.tar", items[half:])
    L = make_loader(str(tmp_path / "s-{0..1}.tar"))
    got = list(L.samples)
    assert len(got) == len(items)
    for i, ((name, label), (key, data, want_label)) in enumerate(zip(got, items)):
        shard = str(tmp_path / ("s-0.tar" if i < half else "s-1.tar"))
        assert name == f"{shard}:{key}"
        file, start, end = L.sample_range(i)
        assert file == shard
        with open(file, "rb") as f:
            f.seek(start)
            assert f.read(end - start) == data
        assert label == want_label
    assert L.class_to_idx == {}
    with pytest.raises(IndexError):
        L.sample_range(len(items))


def test_bad_shard_member_reported_by_key(tmp_path, make_loader, dataset, index):
    """A bad member's report names it "SHARD.tar:KEY", its bytes in the message."""
    items = samples(dataset, index)[:8]
    items[3] = (items[3][0], b"not a jpeg at all", items[3][2])
    write_tarfile(tmp_path / "b-0.tar", items)
    L = make_loader(str(tmp_path / "b-0.tar"), report_bad=0, epochs=1, shuffle=False)
    all_batches(L)
    bad = L.bad_samples()
    assert [b.sample_id for b in bad] == [3]
    assert bad[0].path == str(tmp_path / "b-0.tar") + ":" + items[3][0]
    _, start, end = L.sample_range(3)
    assert f"member at offset {start} ({end - start} bytes)" in bad[0].message


def test_shard_problems_first_100_printed_then_a_count(tmp_path, make_loader, dataset, index,
                                                        capfd):
    # 130 image members without a label: each is a problem and counted, the
    # first 100 printed one a line, then one line with the rest's count.
    items = samples(dataset, index)[:3]
    with tarfile.open(tmp_path / "p-0.tar", "w", format=tarfile.PAX_FORMAT) as t:
        for i in range(130):
            info = tarfile.TarInfo(f"nolabel{i:03d}.jpg")
            info.size = 3
            t.addfile(info, io.BytesIO(b"abc"))
        for key, data, label in items:
            for ext, payload in (("jpg", data), ("cls", str(label).encode())):
                info = tarfile.TarInfo(f"{key}.{ext}")
                info.size = len(payload)
                t.addfile(info, io.BytesIO(payload))
    L = make_loader(str(tmp_path / "p-0.tar"))
    err = capfd.readouterr().err.splitlines()
    assert L.shard_problems == 130 and L.samples_per_epoch == 3
    shown = [ln for ln in err if ln.startswith("libfeed: dataset: ") and "member 'nolabel" in ln]
    assert len(shown) == 100 and "member 'nolabel000.jpg'" in shown[0]
    assert "libfeed: dataset: 30 more malformed shard members skipped (130 in all)" in err


def test_shard_index_limits(tmp_path, make_loader, dataset, index, capfd):
    # More than 2^24 shards: an error at create (a brace range, refused before
    # any file is looked at).
    with pytest.raises(libfeed.FeedDatasetError, match="more than 16777216 shards"):
        libfeed.Loader(str(tmp_path / "x-{0..16777216}.tar"))
    # A member of 4 GiB or more (its data sparse here): reported and skipped
    # like a malformed one; the samples around it load.
    items = samples(dataset, index)[:2]
    path = tmp_path / "big-0.tar"
    with open(path, "wb") as f:
        def member(name, payload=None, size=None):
            info = tarfile.TarInfo(name)
            info.size = len(payload) if size is None else size
            f.write(info.tobuf(format=tarfile.USTAR_FORMAT))
            if payload is None:
                f.seek(-(-info.size // 512) * 512, os.SEEK_CUR)
            else:
                f.write(payload + b"\0" * (-len(payload) % 512))
        key, data, label = items[0]
        member(f"{key}.jpg", data)
        member(f"{key}.cls", str(label).encode())
        member("huge.jpg", size=4 << 30)
        member("huge.cls", b"1")
        key, data, label = items[1]
        member(f"{key}.jpg", data)
        member(f"{key}.cls", str(label).encode())
        f.write(b"\0" * 1024)
    L = make_loader(str(path), shuffle=False, epochs=1)
    err = capfd.readouterr().err
    assert "member 'huge.jpg'" in err and "over 4 GiB" in err
    assert L.samples_per_epoch == 2 and L.shard_problems >= 1
    _, labels, _ = all_batches(L)
    assert list(labels) == [items[0][2], items[1][2]]


def test_shuffle_window(tmp_path, make_loader, dataset, index):
    """shuffle_window=K as a keyword: every sample once an epoch, each window of
    K shards one run of the epoch; the state carries it, and a state of another
    shuffle_window is refused (its positions are of another order); a folder
    source is refused naming it."""
    items = samples(dataset, index)
    cuts = [0, 10, 10, 18, 30, 45]  # shard 1 is empty
    for s in range(5):
        write_tarfile(tmp_path / f"w-{s}.tar", items[cuts[s]:cuts[s + 1]])
    shard_of = {i: s for s in range(5) for i in range(cuts[s], cuts[s + 1])}
    L = make_loader(str(tmp_path / "w-{0..4}.tar"), shuffle_window=2, epochs=2)
    for _ in range(2):
        _, _, ids = all_batches(L)
        assert sorted(ids) == list(range(NIMG))
        # windows of 2 shards are runs of the epoch: at any position at most 2
        # shards have samples both at or before it and at or after it
        pos = {s: [p for p, i in enumerate(ids) if shard_of[int(i)] == s] for s in (0, 2, 3, 4)}
        assert all(sum(v[0] <= p <= v[-1] for v in pos.values()) <= 2 for p in range(NIMG))
    state = L.state_dict()
    assert state["shuffle_window"] == 2
    M = make_loader(str(tmp_path / "w-{0..4}.tar"), shuffle_window=3)
    with pytest.raises(libfeed.FeedInvalidError, match="shuffle_window"):
        M.load_state_dict(state)
    with pytest.raises(libfeed.FeedError, match="shuffle_window"):
        make_loader(dataset, shuffle_window=2)
