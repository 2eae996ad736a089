"""The resize against torchvision's: interpolation=bilinear and bicubic, with
augment="none" (the whole image to height x width) and augment="val" (the
shorter side to resize_shorter, then the centre crop), on a .npy source (no
decoder in the way), compared with torchvision.transforms.v2.functional.resize
(antialias=True; + center_crop for val) on the same uint8 arrays.

The bound is 1 level. Both compute the same separable sum of the same
weights (torch's uint8 path and libfeed's Q14 ones are the float64 weights
rounded); torch rounds its intermediate image to uint8 (an error of at most
0.5 times the sum of the weights' absolute values, under 0.63 for bicubic)
where libfeed keeps 7 more bits, and both round the result, so the two
results are within 1 as long as no intermediate value is clamped.

Bicubic's negative lobes make the intermediate overshoot 0..255 on sharp
edges, and both clamp it there. torch's intermediate is its horizontal pass,
libfeed's its vertical pass, so on noise the two clamp different sums and
differ by more (tens of levels at a few percent of the values). The
transposed comparison shows that this is the only difference: libfeed on the
transposed image, whose vertical pass is then torch's horizontal one, is
within 1 of torchvision on noise too.
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


def _smooth(rng, n, h, w):
    """Low-frequency images: coarse noise bilinearly enlarged, so that no
    resize overshoots 0..255 (a natural photo's shading, without its edges)."""
    coarse = torch.from_numpy(rng.integers(0, 256, size=(n, 3, h // 8 + 2, w // 8 + 2),
                                           dtype=np.uint8)).float()
    big = torch.nn.functional.interpolate(coarse, size=(h, w), mode="bilinear",
                                          align_corners=False)
    return big.round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1).numpy().copy()


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
def test_bicubic_within_one_without_overshoot(tmp_path, hw, augment, size):
    """Bicubic on smooth images (no intermediate leaves 0..255): within 1; and
    not bilinear's result (the filter is the one asked for)."""
    images = _smooth(np.random.default_rng(hw[1] * 5 + size[1]), 4, *hw)
    got = _libfeed(tmp_path, images, augment, size, "bicubic")
    assert _max_diff(got, _torchvision(images, augment, size, "bicubic")) <= 1
    bilinear = _libfeed(tmp_path, images, augment, size, "bilinear")
    assert _max_diff(got, bilinear) > 1


@pytest.mark.parametrize("augment,size", TARGETS)
@pytest.mark.parametrize("hw", SOURCES)
def test_bicubic_transposed_within_one_on_noise(tmp_path, hw, augment, size):
    """Noise, transposed: libfeed's clamped intermediate is then torch's (the
    same axis's pass), and the results are within 1 at every value."""
    images = _noise(np.random.default_rng(hw[0] * 3 + size[1]), 4, *hw)
    transposed = np.ascontiguousarray(images.transpose(0, 2, 1, 3))
    got = _libfeed(tmp_path, transposed, augment, size[::-1], "bicubic").transpose(0, 2, 1, 3)
    assert _max_diff(got, _torchvision(images, augment, size, "bicubic")) <= 1
