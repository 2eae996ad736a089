"""libfeed.torch.DataLoader: torch.utils.data.DataLoader's keywords over
libfeed (skipped when torch is not installed; scripts/test-python runs it
with Debian's python3-torch)."""
import io
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import libfeed  # noqa: E402
import libfeed.torch as lt  # noqa: E402

from conftest import BATCH, NIMG, NCLASS, REPO, SEED, SIDE  # noqa: E402

NB = -(-NIMG // BATCH)
SMALL = dict(size=SIDE, resize_shorter=64)


def dl(dataset, **kw):
    args = dict(batch_size=BATCH, num_workers=2, **SMALL)
    args.update(kw)
    return lt.DataLoader(dataset, **args)


def test_same_batches_as_the_loader(dataset):
    g = torch.Generator()
    g.manual_seed(SEED)
    with dl(dataset, shuffle=True, generator=g, augment="train") as D, \
            lt.Loader(dataset, batch_size=BATCH, shuffle=True, seed=SEED, workers=2,
                      augment="train", dtype=torch.float32, **SMALL) as L:
        assert len(D) == len(L) == NB
        for epoch in range(2):
            n = 0
            for (di, dlab), (li, llab) in zip(D, L):
                # ToTensor() + Normalize(): float32 CHW; cross_entropy's int64 labels
                assert di.dtype == torch.float32 and di.shape[1:] == (3, SIDE, SIDE)
                assert dlab.dtype == torch.int64
                assert torch.equal(di, li) and torch.equal(dlab, llab)
                n += 1
            assert n == NB


def test_dataloader_defaults(dataset, index):
    # DataLoader's: batch_size=1, shuffle=False, num_workers=0 (here: one worker process)
    with lt.DataLoader(dataset, **SMALL) as D:
        assert len(D) == NIMG and D.batch_size == 1 and D.num_workers == 0
        ids = [int(b.sample_ids[0]) for b in D]
        assert ids == list(range(NIMG))  # unshuffled: the ImageFolder order
        st = D.stats()
        assert st["workers"] == 1 and st["samples_delivered"] == NIMG


def test_workers_and_prefetch_factor(dataset):
    with dl(dataset, num_workers=3, prefetch_factor=3, persistent_workers=True) as D:
        st = D.stats()
        assert st["workers"] == 3 and st["ring_slots"] == 9  # num_workers * prefetch_factor
    with dl(dataset, num_workers=2) as D:
        assert D.stats()["ring_slots"] == 4  # prefetch_factor defaults to 2, as DataLoader's


def test_seed_follows_torch_manual_seed(dataset):
    def order():
        with dl(dataset, shuffle=True) as D:
            return [b.sample_ids.tolist() for b in D]

    torch.manual_seed(5)
    a = order()
    torch.manual_seed(5)
    assert order() == a  # DataLoader draws its base seed from torch's generator
    torch.manual_seed(6)
    assert order() != a


def test_distributed_sampler_and_set_epoch(dataset):
    from torch.utils.data.distributed import DistributedSampler

    s = DistributedSampler(list(range(NIMG)), num_replicas=2, rank=1, shuffle=True, seed=7)
    with dl(dataset, sampler=s) as D, \
            lt.Loader(dataset, batch_size=BATCH, rank=1, world_size=2, seed=7, workers=2,
                      dtype=torch.float32, **SMALL) as L:
        for epoch in (0, 3, 1):
            s.set_epoch(epoch)  # followed at the next `for`, as DataLoader's sampler is
            L.set_epoch(epoch)
            got = [(b.epoch, b.sample_ids.tolist()) for b in D]
            assert got == [(b.epoch, b.sample_ids.tolist()) for b in L]
            assert {e for e, _ in got} == {epoch}
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        dl(dataset, sampler=s, shuffle=True)


# (world size, batch size) over the 45 images: 2, 8: the uneven share is 22
# or 23, neither a multiple of 8; 4, 4: 11 or 12, the uncut one a multiple;
# 3, 4: an even share (15) with a short last batch.
@pytest.mark.parametrize("world,batch", [(2, 8), (4, 4), (3, 4)])
@pytest.mark.parametrize("sampler_drop", [False, True])
@pytest.mark.parametrize("loader_drop", [False, True])
def test_distributed_sampler_drop_last_and_drop_last(dataset, world, batch, sampler_drop,
                                                      loader_drop):
    # As torch: the sampler's drop_last cuts the ranks' shares to even (or
    # pads them by wrapping around), the DataLoader's drops a short last batch.
    from torch.utils.data.distributed import DistributedSampler

    for rank in sorted({0, world - 1}):
        def sampler():
            return DistributedSampler(list(range(NIMG)), num_replicas=world, rank=rank,
                                      shuffle=False, drop_last=sampler_drop)

        want = [b.tolist() for b in torch.utils.data.DataLoader(
            list(range(NIMG)), batch_size=batch, sampler=sampler(), drop_last=loader_drop)]
        with lt.DataLoader(dataset, batch_size=batch, sampler=sampler(), drop_last=loader_drop,
                           num_workers=1, **SMALL) as D:
            assert D.drop_last == loader_drop and D.sampler.drop_last == sampler_drop
            assert len(D) == len(want), (rank, len(D), [len(w) for w in want])
            for epoch in range(2):  # each `for` an epoch, the same batches unshuffled
                got = [(b.sample_ids.tolist(), len(b[0]), len(b[1])) for b in D]
                assert [g for g, _, _ in got] == want, (rank, epoch)
                assert all(len(g) == ni == nl for g, ni, nl in got)


def test_drop_last_choice_against_torch_over_many_sizes():
    # _drop_last_for over many dataset sizes, world and batch sizes: libfeed's
    # batches with the drop_last it picks (src/loader/sampler.c: rank r's i-th sample
    # at position i * world + r of the order, wrapping around; one drop_last
    # cutting the shares and the short batch), less the sample it says to
    # leave out, are torch's BatchSampler over DistributedSampler, unshuffled.
    from torch.utils.data import BatchSampler
    from torch.utils.data.distributed import DistributedSampler

    from libfeed._torch_dataloader import _drop_last_for

    for n in range(1, 40):
        for world in range(1, 6):
            for batch in range(1, 8):
                for sdrop in (False, True):
                    for ldrop in (False, True):
                        for rank in sorted({0, world - 1}):
                            want = list(BatchSampler(DistributedSampler(
                                range(n), world, rank, shuffle=False, drop_last=sdrop),
                                batch, ldrop))
                            if not want:
                                continue  # libfeed refuses an epoch without a batch
                            c, trim = _drop_last_for(n, world, batch, sdrop, ldrop)
                            share = n // world if c else -(-n // world)
                            ids = [(i * world + rank) % n for i in range(share)]
                            got = [ids[i:i + batch] for i in range(0, share, batch)]
                            if c and got and len(got[-1]) < batch:
                                got.pop()
                            if trim:
                                got[-1].pop()
                            assert got == want, (n, world, batch, sdrop, ldrop, rank)


def test_distributed_sampler_drop_last_follows_the_index(dataset):
    # libfeed's drop_last for the two is chosen from the sampler's dataset
    # size, then checked against what libfeed indexed: here the sampler's
    # list is one short, so the first choice was wrong (44 over 4 ranks: 11,
    # no full batch of 4 in the last place; 45: 12 padded, 3 full batches).
    from torch.utils.data.distributed import DistributedSampler

    want = [b.tolist() for b in torch.utils.data.DataLoader(
        list(range(NIMG)), batch_size=4, drop_last=True,
        sampler=DistributedSampler(list(range(NIMG)), num_replicas=4, rank=3, shuffle=False))]
    s = DistributedSampler(list(range(NIMG - 1)), num_replicas=4, rank=3, shuffle=False)
    with lt.DataLoader(dataset, batch_size=4, sampler=s, drop_last=True, **SMALL) as D:
        assert [b.sample_ids.tolist() for b in D] == want and len(want) == 3


def test_each_for_is_a_new_epoch_and_set_epoch(dataset):
    with dl(dataset, shuffle=True, seed=1) as D:
        for images, labels in D:
            break
        del images, labels
        assert [(b.epoch, b.index) for b in D][:2] == [(1, 0), (1, 1)]
        D.set_epoch(5)
        assert {b.epoch for b in D} == {5}
        for images, labels in D:
            break
        # The loop's variables hold the batch: the next epoch cannot start.
        with pytest.raises(libfeed.FeedBusyError, match="del images, labels"):
            iter(D)


def test_state_dict_resumes_mid_epoch(dataset):
    with dl(dataset, shuffle=True, seed=3) as D:
        it = iter(D)
        next(it)
        next(it)
        state = D.state_dict()
        rest = [(b.index, b[0].clone()) for b in it]
    with dl(dataset, shuffle=True, seed=3) as E:
        E.load_state_dict(state)
        got = [(b.index, b[0].clone()) for b in E]  # StatefulDataLoader: the rest of the epoch
        assert [i for i, _ in got] == [i for i, _ in rest] == list(range(2, NB))
        assert all(torch.equal(a, b) for (_, a), (_, b) in zip(got, rest))
        assert [b.epoch for b in E] == [1] * NB  # then the next epoch, whole


def test_imagefolder_without_transform(dataset):
    tv = pytest.importorskip("torchvision")
    ds = tv.datasets.ImageFolder(dataset)
    with dl(ds) as D:
        assert D.classes == ds.classes and len(D) == NB
        assert D.dataset is ds  # the user's object, kept as torch's DataLoader keeps it
    with pytest.raises(TypeError, match="augment='train'"):
        dl(tv.datasets.ImageFolder(dataset, transform=tv.transforms.ToTensor()))


def test_dataset_of_a_folder_is_what_imagefolder_gives(dataset):
    """len(dl.dataset) is the number of images (not the path's length), and
    classes, class_to_idx, targets and samples are torchvision's ImageFolder's
    over the same folder."""
    tv = pytest.importorskip("torchvision")
    ref = tv.datasets.ImageFolder(os.path.realpath(dataset))
    assert len(ref) == NIMG
    with dl(dataset) as D:
        ds = D.dataset
        assert len(ds) == NIMG
        assert ds.classes == ref.classes and len(ds.classes) == NCLASS
        assert ds.class_to_idx == ref.class_to_idx
        assert ds.targets == ref.targets
        assert list(ds.samples) == ref.samples and list(ds.imgs) == ref.imgs
        assert ds.samples[-1] == ref.samples[-1]
        correct = NIMG
        assert correct / len(D.dataset) == 1.0  # the usual accuracy line
    assert len(ds) == NIMG and ds.classes == ref.classes  # still, after close


def test_dataset_len_is_the_whole_dataset_on_every_rank(dataset):
    """As torch's DataLoader with a DistributedSampler: len(dataset) is every
    rank's samples together, len(loader) this rank's batches."""
    from torch.utils.data.distributed import DistributedSampler
    ref = list(range(NIMG))
    for rank in range(2):
        s = DistributedSampler(ref, num_replicas=2, rank=rank, shuffle=False)
        with dl(dataset, sampler=s) as D:
            assert len(D.dataset) == NIMG
            assert len(D) == len(torch.utils.data.DataLoader(ref, batch_size=BATCH, sampler=s))
            assert len(D) < NB


def _npy_labels(tmp_path):
    rng = np.random.default_rng(5)
    images = rng.integers(0, 256, size=(23, 16, 16, 3), dtype=np.uint8)
    labels = rng.integers(0, 7, size=23).astype(np.int64)
    labels[3] = 7  # the largest: 8 classes
    np.save(tmp_path / "images.npy", images)
    np.save(tmp_path / "labels.npy", labels)
    return str(tmp_path / "images.npy"), str(tmp_path / "labels.npy"), labels.tolist()


def test_dataset_of_a_file_list_shards_and_npy(dataset, tmp_path):
    """A file list, tar shards and a .npy array: len() and targets counted
    independently (the list's lines, the shards' .cls members, the labels
    array); bare integer labels make classes the label numbers as strings."""
    import tarfile
    from conftest import build_path
    # A file list: every other line of files.txt, in reverse order, labels 0..2*NCLASS-2.
    with open(os.path.join(dataset, "files.txt")) as f:
        lines = [ln.split() for ln in f if ln.strip()][::-2]
    lst = tmp_path / "list.txt"
    lst.write_text("".join(f"{p} {int(l) * 2}\n" for p, l in lines))
    want = [int(l) * 2 for _, l in lines]
    with dl(dataset, file_list=str(lst)) as D:
        assert len(D.dataset) == len(lines) and D.dataset.targets == want
        assert D.dataset.classes == [str(i) for i in range(max(want) + 1)]
        assert D.dataset.class_to_idx == {str(i): i for i in range(max(want) + 1)}
        assert [l for _, l in D.dataset.samples] == want
        assert D.dataset.samples[0][0] == os.path.join(os.path.realpath(dataset), lines[0][0])

    # WebDataset shards from feed-mkdata: 3 shards of at most 7 samples.
    shards = tmp_path / "shards"
    subprocess.run([build_path("bin", "feed-mkdata"), "--out", str(shards), "--count", "19",
                    "--seed", "2", "--classes", "4", "--format", "tar", "--shard-size", "7",
                    "--quiet"], check=True)
    want = []
    names = sorted(n for n in os.listdir(shards) if n.endswith(".tar"))
    assert len(names) == 3
    for n in names:
        with tarfile.open(shards / n) as t:
            want += [int(t.extractfile(m).read()) for m in t.getmembers()
                     if m.name.endswith(".cls")]
    with dl(str(shards / "shards.txt")) as D:
        assert len(D.dataset) == len(want) == 19
        assert D.dataset.targets == want
        assert D.dataset.classes == ["0", "1", "2", "3"]
        assert D.dataset.samples[0][0] == str(shards / names[0]) + ":img_000000"  # its WebDataset key

    img, lab, want = _npy_labels(tmp_path)
    with dl(img, labels=lab, size=16) as D:
        assert len(D.dataset) == 23 and D.dataset.targets == want
        assert D.dataset.classes == [str(i) for i in range(8)]
        assert D.dataset.samples[4] == (os.path.realpath(img) + "[4]", want[4])


def test_loader_dataset(dataset, tmp_path):
    """libfeed.Loader (and libfeed.torch.Loader) has the same .dataset: the
    whole dataset whatever the rank's share."""
    img, lab, want = _npy_labels(tmp_path)
    for make in (libfeed.Loader, lt.Loader):
        with make(img, labels=lab, batch_size=4, size=16, rank=1, world_size=3) as L:
            assert len(L.dataset) == 23 and L.samples_per_epoch == 8
            assert L.dataset.targets == want and L.dataset.targets is L.dataset.targets
            assert len(L.dataset.classes) == L.num_classes == 8
        with pytest.raises(ValueError, match="closed"):
            L.dataset


@pytest.mark.parametrize("kw,words", [
    ({"collate_fn": lambda b: b}, "collate_fn= cannot apply: libfeed stacks the batch in C"),
    ({"worker_init_fn": print}, "worker_init_fn= cannot apply"),
    ({"batch_sampler": [[0, 1]]}, "batch_sampler= cannot apply: use batch_size="),
    ({"transform": print}, "transform= cannot apply: libfeed cannot run a Python transform"),
    ({"pin_memory_device": "cuda"}, "use device='cuda:N'"),
    ({"sampler": [0, 1, 2]}, "sampler=list cannot apply"),
    ({"batch_size": None}, "batch_size=None"),
])
def test_what_cannot_apply_says_what_instead(dataset, kw, words):
    with pytest.raises(TypeError) as e:
        dl(dataset, **kw)
    assert words in str(e.value)


def test_dataset_object_is_refused_clearly(dataset):
    with pytest.raises(TypeError, match="pass its path"):
        dl(list(range(10)))
    with pytest.raises(ValueError, match="generator= or seed="):
        dl(dataset, generator=torch.Generator(), seed=1)


def test_pin_memory(dataset):
    if torch.cuda.is_available():
        with dl(dataset, pin_memory=True) as D:
            images, labels = next(iter(D))
            assert images.is_pinned() and labels.is_pinned()
    else:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            D = dl(dataset, pin_memory=True)
        assert any("no CUDA device" in str(x.message) for x in w)
        assert sum(1 for _ in D) == NB
        D.close()


def test_tqdm_bar(dataset):
    tqdm = pytest.importorskip("tqdm").tqdm
    with dl(dataset) as D:
        bar = tqdm(D, file=io.StringIO())
        assert sum(len(y) for _, y in bar) == NIMG and bar.n == bar.total == NB


def test_example_trains_a_torchvision_model(dataset, tmp_path):
    pytest.importorskip("torchvision")
    env = dict(os.environ)
    r = subprocess.run([sys.executable, os.path.join(REPO, "examples", "train_torchvision.py"),
                        dataset, "--steps", "7", "--batch", "8", "--size", "64",
                        "--device", "cpu"], env=env, cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    # 7 steps of 8 crosses an epoch (45 images, drop_last: 5 batches each)
    assert out["steps"] == 7 and out["images"] == 56 and out["bad_samples"] == 0
    assert np.isfinite([out["first_loss"], out["last_loss"]]).all()
    assert out["weights_moved"] > 0 and 0 < out["busy_fraction"] <= 1
    assert out["first_loss"] == pytest.approx(np.log(NCLASS), rel=0.5)  # an untrained model


def test_holding_every_batch_is_a_clear_error(dataset):
    # list(loader) keeps every tensor: past the ring's slots, FeedBusyError.
    # The tensors list() had made are freed while that error is being raised;
    # their pins must be given back without losing it (or hanging).
    with dl(dataset, num_workers=2) as D:
        with pytest.raises(libfeed.FeedBusyError, match="held"):
            list(D)
        assert sum(len(y) for _, y in D) == NIMG  # the next epoch, whole
