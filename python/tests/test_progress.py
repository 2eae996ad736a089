"""Progress and inspection: len() and tqdm(loader) give a correct bar, and
loader.stats() is a libfeed.Stats (a dict with images/s, the consumer's busy
fraction and the bad samples so far, printed readably)."""
import io
import os
import shutil

import pytest

import libfeed

from conftest import BATCH, NIMG

NB = -(-NIMG // BATCH)


def test_tqdm_bar_counts_each_epoch(make_loader):
    tqdm = pytest.importorskip("tqdm").tqdm
    L = make_loader(epochs=2)
    for epoch in range(2):
        out = io.StringIO()
        bar = tqdm(L, file=out, mininterval=0, ascii=True)
        images = sum(len(labels) for _, labels in bar)
        assert bar.total == len(L) == NB and bar.n == NB and images == NIMG
        assert f"{NB}/{NB}" in out.getvalue()  # the bar's last line: all of the epoch
    # Past the last epoch the bar still knows its total, and ends empty.
    bar = tqdm(L, file=io.StringIO())
    assert list(bar) == [] and bar.total == NB and bar.n == 0


def test_stats_rate_busy_fraction_and_print(make_loader):
    L = make_loader(epochs=1)
    s = L.stats()
    assert isinstance(s, libfeed.Stats) and isinstance(s, dict)
    assert s.images_per_sec == 0 and s.elapsed_s == 0  # nothing asked for yet
    n = sum(len(labels) for _, labels in L)
    s = L.stats()
    assert s["samples_delivered"] == n == NIMG and s.bad_samples == 0
    assert s.elapsed_s > 0
    assert s.images_per_sec == pytest.approx(NIMG / s.elapsed_s)
    assert 0 <= s.busy_fraction <= 1
    assert s.busy_fraction == pytest.approx(1 - s.next_wait_ns / (s.elapsed_s * 1e9))
    text = str(s)
    assert text.startswith("libfeed.Stats: 45 images in 6 batches")
    assert f"{s.images_per_sec:.1f} images/s" in text and "bad samples 0" in text
    assert "\n  decode_ns " in text  # then every counter, one per line
    assert repr(s).startswith("libfeed.Stats(45 images")
    with pytest.raises(AttributeError, match="no 'nonesuch'"):
        s.nonesuch


def test_stats_count_bad_samples(make_loader, dataset, index, tmp_path):
    root = tmp_path / "ds"
    shutil.copytree(dataset, root)
    with open(root / index[3][0], "wb") as f:
        f.write(b"not a JPEG " * 64)
    L = make_loader(source=str(root), epochs=1, report_bad=False)
    sum(1 for _ in L)  # the epoch, each batch dropped (a kept one keeps its slot)
    s = L.stats()
    assert s.bad_samples == 1 == s["samples_bad"] and "bad samples 1," in str(s)
    assert L.bad_samples()[0].path == os.path.join(str(root), index[3][0])
