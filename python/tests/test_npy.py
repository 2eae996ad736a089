"""Raw arrays (numpy's .npy) as a source, and where each sample came from
(loader.samples, loader.class_to_idx) as torchvision's ImageFolder gives them."""
import os

import numpy as np
import pytest

import libfeed


def _write(tmp_path, images, labels, name="images.npy"):
    img = tmp_path / name
    lab = tmp_path / ("labels_" + name)
    np.save(img, images)
    np.save(lab, labels)
    return str(img), str(lab)


@pytest.mark.parametrize("channels", [3, 1, 4, None])
def test_npy_every_byte(tmp_path, channels):
    """augment='none' at the array's own size: every byte of every sample is the
    array's (grey replicated, alpha dropped), labels from the labels file, each
    sample once an epoch."""
    rng = np.random.default_rng(channels or 0)
    shape = (29, 12, 17) + ((channels,) if channels else ())
    images = rng.integers(0, 256, size=shape, dtype=np.uint8)
    labels = rng.integers(0, 6, size=29).astype(np.int64 if channels == 3 else np.int32)
    img, lab = _write(tmp_path, images, labels)
    rgb = images[..., None] if channels is None else images
    rgb = np.repeat(rgb, 3, axis=-1) if rgb.shape[-1] == 1 else rgb[..., :3]
    with libfeed.Loader(img, labels=lab, batch_size=5, size=(12, 17), augment="none",
                        workers=2, copy=True) as L:
        assert len(L.samples) == 29
        assert L.num_classes == int(labels.max()) + 1
        assert L.class_to_idx == {}
        seen = np.zeros(29, int)
        for b in L:
            for img_, lab_, sid in zip(b.images, b.labels, b.sample_ids):
                seen[sid] += 1
                assert lab_ == labels[sid]
                np.testing.assert_array_equal(img_, rgb[sid])
        assert (seen == 1).all()
        path, label = L.samples[-1]
        assert path == os.path.realpath(img) + "[28]"
        assert label == labels[28]


def test_npy_train_and_float(tmp_path):
    """Augmented and converted: runs, shapes and labels right, and the
    same seed gives the same batches (the array's pixels feed the same pipeline)."""
    images = np.random.default_rng(1).integers(0, 256, size=(10, 40, 30, 3), dtype=np.uint8)
    img, lab = _write(tmp_path, images, np.arange(10, dtype=np.int32))
    runs = []
    for _ in range(2):
        with libfeed.Loader(img, labels=lab, batch_size=10, size=16, augment="train",
                            dtype="float32", seed=3, copy=True) as L:
            b = next(iter(L))
            assert b.images.shape == (10, 3, 16, 16)
            assert np.isfinite(b.images).all()
            np.testing.assert_array_equal(b.labels, b.sample_ids.astype(np.int32))
            runs.append(b.images)
    np.testing.assert_array_equal(runs[0], runs[1])


def test_npy_bad_headers(tmp_path):
    labels = np.zeros(4, np.int32)
    lab = tmp_path / "lab.npy"
    np.save(lab, labels)
    cases = [
        (np.zeros((4, 5, 6, 3), np.float32), "images must be uint8"),
        (np.asfortranarray(np.zeros((4, 5, 6, 3), np.uint8)), "Fortran order"),
        (np.zeros((4, 30), np.uint8), "2 dimensions"),
        (np.zeros((4, 5, 6, 2), np.uint8), "2 channels"),
    ]
    for arr, want in cases:
        p = tmp_path / "bad.npy"
        np.save(p, arr)
        with pytest.raises(libfeed.FeedDatasetError, match=want) as e:
            libfeed.Loader(str(p), labels=str(lab))
        assert "bad.npy" in str(e.value)
    p = tmp_path / "ok.npy"
    np.save(p, np.zeros((4, 5, 6, 3), np.uint8))
    with open(p, "ab") as f:  # a byte past the data
        f.write(b"x")
    with pytest.raises(libfeed.FeedDatasetError, match="1 more than its header"):
        libfeed.Loader(str(p), labels=str(lab))
    np.save(p, np.zeros((4, 5, 6, 3), np.uint8))
    with pytest.raises(libfeed.FeedDatasetError, match="labels=PATH"):
        libfeed.Loader(str(p))
    np.save(lab, np.array([0, 1, -3, 2], np.int64))
    with pytest.raises(libfeed.FeedDatasetError, match="label -3 of sample 2"):
        libfeed.Loader(str(p), labels=str(lab))
    np.save(lab, np.zeros(5, np.int32))
    with pytest.raises(libfeed.FeedDatasetError, match="5 labels for 4 images"):
        libfeed.Loader(str(p), labels=str(lab))


IMG_EXTENSIONS = (".jpg", ".jpeg", ".jpe")  # what libfeed's folder scan takes


def _walk(root):
    """(classes, class_to_idx, samples) by torchvision.datasets.ImageFolder's
    documented walk, written here: find_classes: sorted folders; make_dataset:
    sorted(os.walk(followlinks=True)), sorted file names with an allowed
    extension. Independent of torchvision, so it runs everywhere;
    test_samples_like_torchvision checks it against torchvision itself."""
    classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
    class_to_idx = {c: i for i, c in enumerate(classes)}
    samples = []
    for c in classes:
        for d, _, files in sorted(os.walk(os.path.join(root, c), followlinks=True)):
            for f in sorted(files):
                if f.lower().endswith(IMG_EXTENSIONS):
                    samples.append((os.path.join(d, f), class_to_idx[c]))
    return classes, class_to_idx, samples


def _torchvision_image_folder(root):
    """The same from torchvision.datasets.ImageFolder; skips (saying so) where
    torchvision is missing: scripts/test-python runs this file again under the
    torch environment, which has it."""
    datasets = pytest.importorskip("torchvision.datasets", reason="torchvision is not installed for this python")
    ds = datasets.ImageFolder(root, is_valid_file=lambda p: p.lower().endswith(IMG_EXTENSIONS))
    return ds.classes, ds.class_to_idx, ds.samples


def _has_torchvision():
    try:
        import torchvision.datasets  # noqa: F401
    except ImportError:
        return False
    return True


def _check_like(L, classes, class_to_idx, samples):
    assert L.classes == classes
    assert L.class_to_idx == class_to_idx
    assert len(L.samples) == len(samples)
    assert list(L.samples) == samples  # flat class folders: the same order
    assert L.samples[-1] == samples[-1]
    assert L.samples[1:4] == samples[1:4]
    with pytest.raises(IndexError):
        L.samples[len(samples)]


def test_samples_like_image_folder(make_loader, dataset):
    _check_like(make_loader(), *_walk(os.path.realpath(dataset)))


def test_samples_like_torchvision(make_loader, dataset):
    root = os.path.realpath(dataset)
    tv = _torchvision_image_folder(root)
    assert tv == _walk(root)  # the walk above is torchvision's
    _check_like(make_loader(), *tv)


def test_samples_nested(tmp_path, make_loader, dataset):
    """Nested folders: the same samples and labels; the order differs where a
    class folder has both files and sub-folders (libfeed sorts each folder's
    entries together, torchvision walks a folder's files before its sub-folders)."""
    import shutil
    root = tmp_path / "nested"
    src = sorted(os.listdir(dataset))
    for i, c in enumerate(src[:3]):
        files = sorted(os.listdir(os.path.join(dataset, c)))
        (root / c / "deep" / "er").mkdir(parents=True)
        for k, f in enumerate(files):
            sub = ["", "deep", "deep/er"][k % 3]
            shutil.copy(os.path.join(dataset, c, f), root / c / sub / f)
    L = make_loader(str(root))
    for name, (classes, class_to_idx, samples) in [("walk", _walk(str(root)))] + (
            [("torchvision", _torchvision_image_folder(str(root)))] if _has_torchvision() else []):
        assert L.class_to_idx == class_to_idx, name
        assert sorted(L.samples) == sorted(samples), name


def test_samples_file_list(tmp_path, make_loader, dataset, index):
    lst = tmp_path / "list.txt"
    lst.write_text("".join(f"{p} {l * 3}\n" for p, l in index[:10]))
    L = make_loader(dataset, file_list=str(lst))
    assert L.class_to_idx == {}
    assert list(L.samples) == [(os.path.join(os.path.realpath(dataset), p), l * 3) for p, l in index[:10]]
    L.close()
    with pytest.raises(Exception):
        L.samples


def test_scan_cache(tmp_path, dataset):
    """scan_cache=True saves the folder scan next to the data and the next
    loader reuses it: the same samples; a file added makes it stale."""
    import shutil
    import time
    root = tmp_path / "ds"
    shutil.copytree(dataset, root)
    old = time.time() - 3600
    for d, dirs, files in os.walk(root):
        for x in dirs + files:
            os.utime(os.path.join(d, x), (old, old))
    with libfeed.Loader(str(root), scan_cache=True, size=16, workers=1) as L:
        first = list(L.samples)
    assert (root / ".libfeed-scan").is_file()
    with libfeed.Loader(str(root), scan_cache=True, size=16, workers=1) as L:
        assert list(L.samples) == first
    cls = sorted(os.listdir(dataset))[0]
    shutil.copy(first[0][0], root / cls / "zz_new.jpg")
    with libfeed.Loader(str(root), scan_cache=True, size=16, workers=1) as L:
        assert len(L.samples) == len(first) + 1
        assert (str(root / cls / "zz_new.jpg"), 0) in list(L.samples)


def test_sample_range_is_the_row(tmp_path):
    """Loader.sample_range(i) of a .npy source: the row's bytes in the file."""
    a = (np.arange(5 * 8 * 6 * 3) % 251).astype(np.uint8).reshape(5, 8, 6, 3)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "l.npy", np.arange(5, dtype=np.int32))
    with libfeed.Loader(str(tmp_path / "a.npy"), labels=str(tmp_path / "l.npy"), batch_size=2, size=8,
                        workers=1) as L:
        for i in range(5):
            f, start, end = L.sample_range(i)
            assert f == str(tmp_path / "a.npy") and end - start == 8 * 6 * 3
            with open(f, "rb") as fh:
                fh.seek(start)
                assert np.array_equal(np.frombuffer(fh.read(end - start), np.uint8).reshape(8, 6, 3), a[i])
