"""meta_members in Python: each sample's KEY.json and KEY.txt members of its
WebDataset shard come with the batch as Batch.meta, as bytes, text or parsed
JSON (meta_decode), each the delivered sample's own (feed-mkdata --meta
writes the id into the record, which the test checks against the id the
loader names). A member that does not decode names the sample.
"""
import io
import json
import os
import subprocess
import sys
import tarfile

import pytest

import libfeed

from conftest import BUILD, REPO, SEED, SIDE, build_path

N = 40


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    out = tmp_path_factory.mktemp("meta") / "ds"
    subprocess.run([build_path("bin", "feed-mkdata"), "--out", str(out), "--count", str(N), "--seed", "4",
                    "--classes", "4", "--format", "tar", "--shard-size", "16", "--meta", "--quiet"], check=True)
    return str(out / "shards.txt")


def _key_id(loader, sid):
    """The image number of a delivered id: SHARD.tar:img_NNNNNN."""
    return int(loader.samples[sid][0].rsplit(":img_", 1)[1])


def test_members_as_bytes_text_and_json(shards):
    seen = set()
    with libfeed.Loader(shards, batch_size=6, size=SIDE, seed=SEED, workers=2, epochs=1, augment="train",
                        meta_members=["json", "txt"], meta_decode={"json": "json", "txt": "str"}) as L:
        for b in L:
            assert sorted(b.meta) == ["json", "txt"]
            for i, sid in enumerate(b.sample_ids):
                record, caption = b.meta["json"][i], b.meta["txt"][i]
                assert record["id"] == _key_id(L, int(sid))
                assert record["class"] == int(b.labels[i]) and record["caption"] == caption
                seen.add(int(sid))
    assert seen == set(range(N))
    with libfeed.Loader(shards, batch_size=6, size=SIDE, seed=SEED, workers=1, epochs=1,
                        options="meta_members=txt") as L:
        b = next(iter(L))
        assert list(b.meta) == ["txt"]
        assert all(isinstance(v, bytes) and v.startswith(b"image ") for v in b.meta["txt"])


def test_meta_decode_refused():
    for bad in ("yaml", {"json": "pickle"}, 3):
        with pytest.raises(ValueError, match="meta_decode"):
            libfeed.Loader("/nonexistent", batch_size=2, meta_decode=bad)


def test_undecodable_member_names_the_sample(tmp_path, shards):
    src = os.path.join(os.path.dirname(shards), "shard-000000.tar")
    bad = tmp_path / "bad.tar"
    with tarfile.open(src) as t, tarfile.open(bad, "w") as o:
        for m in t.getmembers():
            data = t.extractfile(m).read()
            if m.name == "img_000003.json":
                data = b"{not json"
                m.size = len(data)
            o.addfile(m, io.BytesIO(data))
    with libfeed.Loader(str(bad), batch_size=16, size=SIDE, shuffle=False, workers=1,
                        meta_members="json", meta_decode="json") as L:
        with pytest.raises(ValueError, match=r"bad\.tar:img_000003 is not JSON"):
            next(iter(L))


def test_missing_member_policy(tmp_path, shards):
    src = os.path.join(os.path.dirname(shards), "shard-000000.tar")
    cut = tmp_path / "cut.tar"
    with tarfile.open(src) as t, tarfile.open(cut, "w") as o:
        for m in t.getmembers():
            if m.name != "img_000005.txt":
                o.addfile(m, t.extractfile(m))
    with libfeed.Loader(str(cut), batch_size=16, size=SIDE, shuffle=False, workers=1,
                        meta_members="json:txt", meta_missing="empty") as L:
        b = next(iter(L))
        assert int(b.sample_ids[5]) == 5 and b.meta["txt"][5] == b"" and b.meta["json"][5]
    with libfeed.Loader(str(cut), batch_size=16, size=SIDE, shuffle=False, workers=1, report_bad=False,
                        meta_members="json:txt") as L:
        b = next(iter(L))
        assert b.flags[5] & libfeed.SAMPLE_REPLACED and int(b.sample_ids[5]) != 5
        (report,) = L.bad_samples()
        assert report.path.endswith("cut.tar:img_000005") and "no .txt member" in report.message


def test_torch_loader_carries_meta(shards):
    pytest.importorskip("torch", reason="torch is not installed in this interpreter")
    import libfeed.torch
    with libfeed.torch.Loader(shards, batch_size=8, size=SIDE, workers=2, device="cpu", epochs=1,
                              meta_members=["json"], meta_decode="json") as L:
        b = next(iter(L))
        assert [r["class"] for r in b.meta["json"]] == [int(x) for x in b[1]]


def test_example_runs(tmp_path):
    """examples/webdataset_meta.py on feed-mkdata --meta shards: every record
    matches its caption and label."""
    env = dict(os.environ, LIBFEED_BUILD_DIR=BUILD,
               PYTHONPATH=os.path.join(REPO, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, os.path.join(REPO, "examples", "webdataset_meta.py")], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "120 samples in 2 epochs, 0 records that differ" in r.stdout
