"""The resize against torchvision's: interpolation=bilinear and bicubic, with
augment="none" (the whole image to height x width) and augment="val" (the
shorter side to resize_shorter, then the centre crop), on a .npy source (no
decoder in the way), compared with torchvision.transforms.v2.functional.resize
(antialias=True; + center_crop for val) on the same uint8 arrays of noise
(every pixel an edge: the most rounding boundaries and, for bicubic, the most
overshoot).

Bilinear: within 1 level. Both compute the same separable sum of the same
float64 weights quantised (libfeed in Q14, torch at a precision it picks
from the largest weight); torch rounds
its intermediate image to uint8 (an error of at most 0.5) where libfeed keeps
7 more bits, and both round the result.

Bicubic: within 2 levels, and more than 1 for under 1e-4 of the values.
libfeed follows torch's order (horizontal pass, intermediate rounded and
clamped to 0..255, vertical pass), but the two quantise the weights
differently, so an intermediate byte can land on the other side of a
rounding boundary (off by 1); the vertical pass carries such differences
with weights whose absolute values add up to under 1.3, on top of the final
rounding: 2 at worst, and only where two boundaries line up.
"""
import numpy as np
import pytest

import libfeed

tv = pytest.importorskip("torchvision.transforms.v2")
torch = pytest.importorskip("torch")
F = tv.functional
InterpolationMode = tv.InterpolationMode

SHORTER = 56
# (source H, W): shrinks and enlargements in both directions
SOURCES = [(61, 83), (300, 200), (40, 50)]
# (augment, (height, width)): down, up, and the val crop
TARGETS = [("none", (37, 55)), ("none", (97, 120)), ("val", (48, 40))]


def _noise(rng, n, h, w):
    return rng.integers(0, 256, size=(n, h, w, 3), dtype=np.uint8)


def _libfeed(tmp_path, images, augment, size, interpolation):
    img, lab = tmp_path / "images.npy", tmp_path / "labels.npy"
    np.save(img, images)
    np.save(lab, np.zeros(len(images), np.int32))
    extra = dict(resize_shorter=SHORTER) if augment == "val" else {}
    with libfeed.Loader(str(img), labels=str(lab), batch_size=len(images), size=size,
                        augment=augment, shuffle=False, interpolation=interpolation,
                        workers=2, copy=True, **extra) as L:
        b = next(iter(L))
        np.testing.assert_array_equal(b.sample_ids, np.arange(len(images)))
        return b.images


def _torchvision(images, augment, size, interpolation):
    mode = {"bilinear": InterpolationMode.BILINEAR, "bicubic": InterpolationMode.BICUBIC}
    t = torch.from_numpy(images).permute(0, 3, 1, 2)
    if augment == "none":
        out = F.resize(t, list(size), interpolation=mode[interpolation], antialias=True)
    else:
        out = F.center_crop(F.resize(t, SHORTER, interpolation=mode[interpolation],
                                     antialias=True), list(size))
    return out.permute(0, 2, 3, 1).numpy()


def _max_diff(a, b):
    assert a.shape == b.shape
    return int(np.abs(a.astype(np.int32) - b.astype(np.int32)).max())


@pytest.mark.parametrize("augment,size", TARGETS)
@pytest.mark.parametrize("hw", SOURCES)
def test_bilinear_within_one(tmp_path, hw, augment, size):
    """Bilinear weights are non-negative: nothing overshoots, so noise (every
    pixel an edge) is within 1."""
    images = _noise(np.random.default_rng(hw[0] * 7 + size[0]), 4, *hw)
    got = _libfeed(tmp_path, images, augment, size, "bilinear")
    assert _max_diff(got, _torchvision(images, augment, size, "bilinear")) <= 1


@pytest.mark.parametrize("augment,size", TARGETS)
@pytest.mark.parametrize("hw", SOURCES)
def test_bicubic_within_two(tmp_path, hw, augment, size):
    """Bicubic on noise: within 2 levels, more than 1 off for under 1e-4 of
    the values; and not bilinear's result (the filter is the one asked for)."""
    images = _noise(np.random.default_rng(hw[1] * 5 + size[1]), 4, *hw)
    got = _libfeed(tmp_path, images, augment, size, "bicubic")
    want = _torchvision(images, augment, size, "bicubic")
    diff = np.abs(got.astype(np.int32) - want.astype(np.int32))
    assert diff.max() <= 2
    assert (diff > 1).mean() < 1e-4
    bilinear = _libfeed(tmp_path, images, augment, size, "bilinear")
    assert _max_diff(got, bilinear) > 1
