"""PNG and WebP through the whole loader (workers, sandbox on), pixel for pixel
against PIL's decode; the format from the bytes, not the name; files the
ImageFolder scan skips, counted and named at create."""
import os
import subprocess
import sys

import numpy as np
import pytest

import libfeed

PIL = pytest.importorskip("PIL", reason="pillow is needed (scripts/test-python installs it)")
from PIL import Image, features  # noqa: E402

W, H = 40, 30


def _rgb(seed):
    r = np.random.default_rng(seed)
    base = np.linspace(0, 255, W * H * 3).reshape(H, W, 3)
    return ((base + r.integers(0, 64, (H, W, 3))) % 256).astype(np.uint8)


def _kinds():
    """(file name, writer(path)) for each PNG / WebP kind PIL can write."""
    rgb = _rgb(1)
    alpha = np.random.default_rng(2).integers(1, 256, (H, W), dtype=np.uint8)
    grey = rgb[..., 0]
    grey16 = (grey.astype(np.uint16) * 257 + np.arange(W, dtype=np.uint16)).astype(np.uint16)
    pal = Image.fromarray(rgb).quantize(colors=50)
    pal_t = pal.copy()
    pal_t.info["transparency"] = bytes(range(0, 250, 5))
    out = [
        ("grey.png", lambda p: Image.fromarray(grey).save(p)),
        ("grey_alpha.png", lambda p: Image.fromarray(np.dstack([grey, alpha])).save(p)),
        ("palette.png", lambda p: pal.save(p)),
        ("palette_trns.png", lambda p: pal_t.save(p, transparency=pal_t.info["transparency"])),
        ("rgb.png", lambda p: Image.fromarray(rgb).save(p)),
        ("rgba.png", lambda p: Image.fromarray(np.dstack([rgb, alpha])).save(p)),
        ("grey16.png", lambda p: Image.fromarray(grey16).save(p)),
        ("grey1.png", lambda p: Image.fromarray(grey > 128).save(p)),
        # bytes decide, not names
        ("png_named.jpg", lambda p: Image.fromarray(rgb[::-1].copy()).save(p, format="PNG")),
    ]
    if features.check("webp"):
        out += [
            ("lossless.webp", lambda p: Image.fromarray(rgb).save(p, lossless=True)),
            ("lossless_alpha.webp",
             lambda p: Image.fromarray(np.dstack([rgb, alpha])).save(p, lossless=True,
                                                                             exact=True)),
            ("lossy.webp", lambda p: Image.fromarray(rgb).save(p, quality=90)),
            ("lossy_alpha.webp",
             lambda p: Image.fromarray(np.dstack([rgb, alpha])).save(p, quality=90)),
        ]
    return out


def _pil_rgb(path):
    """What the image is, by PIL: RGB uint8, alpha dropped, 16-bit to its high byte."""
    im = Image.open(path)
    im.load()
    if im.mode in ("I;16", "I;16B", "I"):
        a = (np.asarray(im).astype(np.uint32) >> 8).astype(np.uint8)
        return np.repeat(a[..., None], 3, axis=2)
    return np.asarray(im.convert("RGB"))


@pytest.fixture(scope="module")
def formats_dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("formats") / "ds"
    names = []
    for c, chunk in enumerate((_kinds()[0::2], _kinds()[1::2])):
        d = root / f"c{c}"
        d.mkdir(parents=True)
        for name, write in chunk:
            write(str(d / name))
            names.append(f"c{c}/{name}")
    # not samples: other extensions (counted and named at create), a dot file
    (root / "c0" / "notes.txt").write_text("not an image\n")
    Image.fromarray(_rgb(3)).save(str(root / "c1" / "anim.gif"))
    (root / "c1" / ".hidden.png").write_bytes(b"")
    (root / "README.txt").write_text("a file at the root: not in a class, not counted\n")
    return str(root), sorted(names)


def _deliver(root, **kw):
    args = dict(batch_size=4, height=H, width=W, augment="none", shuffle=False, epochs=1,
                workers=2, sandbox=1)
    args.update(kw)
    with libfeed.Loader(root, **args) as L:
        got = {}
        for b in L:
            for i, sid in enumerate(b.sample_ids):
                got[int(sid)] = np.array(b.images[i])
        return got, L.samples_per_epoch, L.skipped_files, L.skipped_examples, L.bad_samples()


@pytest.mark.filterwarnings("ignore:Palette images with Transparency")  # PIL's, on convert
def test_pixels_match_pil(formats_dataset):
    root, names = formats_dataset
    got, n, skipped, examples, bad = _deliver(root)
    assert n == len(names) and len(got) == len(names) and not bad
    for i, rel in enumerate(names):
        want = _pil_rgb(os.path.join(root, rel))
        assert got[i].shape == want.shape == (H, W, 3), rel
        diff = np.abs(got[i].astype(int) - want.astype(int))
        if "lossy" in rel:
            # PIL's wheel carries its own libwebp: the same algorithm, maybe
            # another version; allow a rounding step
            assert diff.max() <= 3 and diff.mean() < 0.5, (rel, diff.max(), diff.mean())
        else:
            assert diff.max() == 0, (rel, int(diff.max()), int((diff > 0).sum()))


def test_skipped_files_said_at_create(formats_dataset):
    root, names = formats_dataset
    _, n, skipped, examples, _ = _deliver(root)
    assert skipped == 2
    assert sorted(examples) == ["c0/notes.txt", "c1/anim.gif"]
    # and on stderr, once, from create (a child process: the C library writes fd 2)
    code = (f"import libfeed\n"
            f"L = libfeed.Loader({root!r}, batch_size=4, height={H}, width={W}, workers=1)\n"
            f"print(len(L.skipped_examples), L.samples_per_epoch)\nL.close()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["2", str(len(names))]
    line = [x for x in r.stderr.splitlines() if "skipped" in x]
    assert len(line) == 1 and "2 files" in line[0] and "c0/notes.txt" in line[0] \
        and "c1/anim.gif" in line[0] and f"{len(names)} samples" in line[0]
    r = subprocess.run([sys.executable, "-c", code.replace("workers=1", "workers=1, report_bad=0")],
                       capture_output=True, text=True, check=True)
    assert "skipped" not in r.stderr


def test_unsupported_bytes_bad_sample_names_path_and_format(formats_dataset, tmp_path):
    root = tmp_path / "ds"
    (root / "a").mkdir(parents=True)
    for i in range(5):
        Image.fromarray(_rgb(i)).save(str(root / "a" / f"ok{i}.png"))
    Image.fromarray(_rgb(9)).save(str(root / "a" / "gif_named.jpg"), format="GIF")
    with open(root / "a" / "ok0.png", "rb") as f:
        data = f.read()
    (root / "a" / "truncated.png").write_bytes(data[: len(data) // 2])
    Image.fromarray(_rgb(8)).save(str(root / "a" / "tmp.webp"), quality=90)
    data = (root / "a" / "tmp.webp").read_bytes()
    (root / "a" / "tmp.webp").unlink()
    (root / "a" / "truncated.webp").write_bytes(data[: len(data) // 2])
    Image.fromarray(np.zeros((H * 2, W * 2, 3), np.uint8)).save(str(root / "a" / "big.webp"),
                                                                 lossless=True)
    got, n, _, _, bad = _deliver(str(root), max_bad_fraction=1, max_pixels=W * H)
    # the four bad ones were replaced by substitutes: the five good ones
    assert n == 9 and sorted(got) == [2, 3, 4, 5, 6]  # by name: big, gif, ok0-4, truncated x2
    by_path = {os.path.relpath(r.path, root) if os.path.isabs(r.path) else r.path: r for r in bad}
    assert sorted(by_path) == ["a/big.webp", "a/gif_named.jpg", "a/truncated.png",
                               "a/truncated.webp"]
    gif, trunc, big = by_path["a/gif_named.jpg"], by_path["a/truncated.png"], by_path["a/big.webp"]
    assert gif.name == "FEED_E_DECODE" and "GIF" in gif.message
    assert trunc.name == "FEED_E_DECODE" and "PNG" in trunc.message
    tw = by_path["a/truncated.webp"]
    assert tw.name == "FEED_E_DECODE" and "WebP" in tw.message
    assert big.name == "FEED_E_TOO_LARGE" and "max_pixels" in big.message



def test_photo_sized_png_webp_in_the_sandbox(tmp_path):
    """Photo-sized files: the decoders' large allocations (mmap'ed by malloc)
    pass the workers' seccomp filter and memory cap; no worker dies."""
    root = tmp_path / "ds"
    (root / "a").mkdir(parents=True)
    r = np.random.default_rng(7)
    for i in range(4):
        big = r.integers(0, 256, (480 + i, 640, 3), dtype=np.uint8)
        Image.fromarray(big).save(str(root / "a" / f"p{i}.png"))
        Image.fromarray(big).save(str(root / "a" / f"w{i}.webp"), quality=80)
    with libfeed.Loader(str(root), batch_size=4, height=64, width=64, augment="train", epochs=1,
                        workers=2, sandbox=1) as L:
        n = sum(len(b.sample_ids) for b in L)
        st = L.stats()
    assert n == 8 and st["samples_bad"] == 0 and st["worker_restarts"] == 0


def test_grey16_high_byte_not_pils_clip(tmp_path):
    # 16-bit greyscale: libfeed gives every value's high byte (v >> 8), as it
    # does for every 16-bit PNG; PIL opens it as mode I;16, and its
    # convert("RGB") (torchvision ImageFolder's loader) clips at 255 instead.
    root = tmp_path / "ds"
    (root / "c0").mkdir(parents=True)
    v = (np.arange(H * W, dtype=np.uint32) * 65535 // (H * W - 1)).astype(np.uint16).reshape(H, W)
    path = str(root / "c0" / "g16.png")
    Image.fromarray(v).save(path)
    got, n, _, _, bad = _deliver(str(root), batch_size=1, workers=1)
    assert n == 1 and not bad
    want = np.repeat((v >> 8).astype(np.uint8)[..., None], 3, axis=2)
    assert (got[0] == want).all()
    im = Image.open(path)
    assert im.mode == "I;16"
    pil = np.asarray(im.convert("RGB"))
    assert (pil[..., 0] == np.minimum(v, 255)).all()  # PIL's clip
    assert (got[0] != pil).any()


def test_dangling_links_and_dot_files_left_out_uncounted(tmp_path):
    # Not samples and not counted among the skipped files: a symlink named
    # *.jpg whose target is gone, a FIFO named *.png, a dot file. (Only
    # regular files not named as images are counted.)
    root = tmp_path / "ds"
    (root / "c0").mkdir(parents=True)
    Image.fromarray(_rgb(5)).save(str(root / "c0" / "real.png"))
    os.symlink(str(tmp_path / "gone.jpg"), str(root / "c0" / "dangling.jpg"))
    os.mkfifo(str(root / "c0" / "fifo.png"))
    Image.fromarray(_rgb(6)).save(str(root / "c0" / ".hidden.png"))
    (root / "c0" / "notes.txt").write_text("counted\n")
    _, n, skipped, examples, bad = _deliver(str(root), batch_size=1, workers=1)
    assert (n, skipped, examples, bad) == (1, 1, ["c0/notes.txt"], [])
