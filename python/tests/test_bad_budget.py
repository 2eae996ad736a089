"""The bad-sample budget's first-16 rule and how many reports bad_samples()
keeps (README: "Every bad file reported")."""
import pytest

import libfeed
from libfeed import _capi

from conftest import BATCH

assert BATCH == 8  # the batch numbers below


def _list(tmp_path, index, missing, name="list.txt"):
    """A file list: `missing` paths that do not exist, then every real sample."""
    lst = tmp_path / name
    lst.write_text("".join(f"missing/m{i:04d}.jpg 0\n" for i in range(missing))
                   + "".join(f"{rel} {label}\n" for rel, label in index))
    return str(lst)


def test_first_16_delivered_all_bad_stops(make_loader, dataset, index, tmp_path):
    # 16 bad samples are far under 5% of the last 1000, but when they are the
    # first 16 delivered, all bad, the batch that reaches 16 stops the run
    # (substitutes exist: this is the budget, not "no substitute").
    lst16 = _list(tmp_path, index, 16)
    L = make_loader(source=dataset, file_list=lst16, shuffle=False, epochs=1, report_bad=False)
    it = iter(L)
    b = next(it)
    assert (b.index, b.bad) == (0, BATCH)  # 8 delivered, all bad: not yet 16
    with pytest.raises(libfeed.FeedDatasetError) as e:
        next(it)
    msg = e.value.message
    assert "the first 16 samples delivered were all bad" in msg, msg
    # batch 1 was not delivered: the position still names it (a seek there
    # does it again; it named batch 2, so that batch 1 was lost)
    assert L.position() == (0, 1)
    assert "no substitute" not in msg and "missing/m0000.jpg" in msg
    # one good sample among the first 16: no first-16 stop (the dataset's
    # share, 15 of 60, is judged at the epoch's end: max_bad_fraction=0.5 lets it be)
    lst = _list(tmp_path, index, 15, "list15.txt")
    assert sum(b.bad for b in make_loader(source=dataset, file_list=lst, shuffle=False, epochs=1,
                                          report_bad=False, max_bad_fraction=0.5)) == 15
    # the first batch holds 16 bad and 16 good (batch 32): not all bad
    L = make_loader(source=dataset, file_list=lst16, batch_size=32,
                    shuffle=False, epochs=1, report_bad=False, max_bad_fraction=0.5)
    assert sum(b.bad for b in L) == 16
    # max_bad_fraction=1 turns the budget off
    L = make_loader(source=dataset, file_list=lst16, shuffle=False,
                    epochs=1, report_bad=False, max_bad_fraction=1)
    assert sum(b.bad for b in L) == 16


def test_share_is_judged_over_the_first_epoch(make_loader, dataset, index, tmp_path):
    # 15 bad of 60 (25%) over the default 5%: the run stops at the batch that
    # ends the first epoch, when the dataset's share is known, not epochs later
    # when a count crosses a threshold, and not before (the 15 come first).
    lst = _list(tmp_path, index, 15, "list15.txt")
    L = make_loader(source=dataset, file_list=lst, shuffle=False, epochs=3, report_bad=False)
    got = 0
    with pytest.raises(libfeed.FeedDatasetError) as e:
        for b in L:
            got += len(b[1])  # (images, labels)
    assert got == 60 - (60 % BATCH or BATCH)  # all but the batch that ends the epoch
    assert "15 of the last 60 samples delivered were bad" in e.value.message, e.value.message


def test_bad_samples_keeps_the_most_recent_1024(make_loader, dataset, index, tmp_path):
    # 40 bad samples an epoch for 26 epochs: 1040 reports (one per sample and
    # epoch); bad_samples() gives the last 1024, bad_count() counts them all.
    assert _capi.BAD_KEEP == 1024
    lst = _list(tmp_path, index[:5], 40)
    L = make_loader(source=dataset, file_list=lst, shuffle=False, epochs=26, report_bad=False,
                    max_bad_fraction=1, batch_size=45, workers=2)
    for _ in range(26):
        list(L)
    assert L.bad_count() == 26 * 40 and L.bad_count(epoch=25) == 40
    got = L.bad_samples()
    assert len(got) == 1024
    assert [(r.epoch, r.sample_id) for r in got] == \
        [(e, i) for e in range(26) for i in range(40)][26 * 40 - 1024:]
