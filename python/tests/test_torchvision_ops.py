"""libfeed's policy ops (src/pixels/augops.c, run one at a time by the test
tool tests/augop_tool) against torchvision.transforms.v2.functional on the
same uint8 images: random noise and smooth photo-like images, square and not,
odd sizes, several arguments each, both interpolations and two fills.

The bounds, and why:
- Posterize, Solarize, AutoContrast, Equalize, Invert: EXACT. They are
  pixel functions (integer masks and histograms, or one correctly rounded
  float32 division and a float32 comparison), the same on every CPU.
- Brightness, Color, Contrast, Sharpness and the geometric ops (ShearX/Y,
  TranslateX/Y, Rotate, nearest and bilinear): EXACT where torch's CPU
  kernels are its AVX2 or AVX-512 ones (torch.backends.cpu
  .get_cpu_capability()), which fuse the multiply-adds that augops.c fuses
  (the alpha of add_, the grid sampler's unnormalisation and weighted sum).
  On a torch running its scalar kernels a value that lands within a float32
  rounding of an integer (colour ops: truncation) or of a half (sampler:
  rounding half to even) can move by one, so there: at most 1 anywhere, on at
  most 1% of the values.
- timm's pixel functions (PIL: posterize, solarize, solarize_add, invert,
  equalize): EXACT, the same tables. timm's shears and whole-pixel
  translations with nearest sampling: EXACT, PIL's affine transform places
  each pixel where torchvision's does.
"""

import math
import os
import subprocess
import tempfile

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchvision.transforms.v2")
import torchvision.transforms.v2.functional as F  # noqa: E402


def _tool():
    build = os.environ.get("LIBFEED_BUILD_DIR")
    if not build:
        pytest.skip("LIBFEED_BUILD_DIR is not set (scripts/test-python sets it)")
    for sub in ("tests", "bin"):
        p = os.path.join(build, sub, "augop_tool")
        if os.access(p, os.X_OK):
            return p
    pytest.skip(f"no augop_tool in {build}/tests or {build}/bin (build the augop_tool target)")


TOOL = None


@pytest.fixture(scope="module", autouse=True)
def tool():
    global TOOL
    TOOL = _tool()


def _fused():
    try:
        return torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")
    except AttributeError:
        return False


def photo(w, h, seed):
    """Smooth shading, a few flat-coloured discs with hard edges, mild noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    img = np.zeros((h, w, 3))
    for c in range(3):
        img[..., c] = 128 + 60 * np.sin(x / (7 + 3 * c) + seed) + 40 * np.cos(y / (5 + 2 * c))
    for _ in range(4):
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(2, max(3, w / 3))
        img += (((x - cx) ** 2 + (y - cy) ** 2) < r * r)[..., None] * rng.uniform(-80, 80, 3)
    img += rng.normal(0, 4, img.shape)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def noise(w, h, seed):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


IMAGES = {
    "noise37x29": noise(37, 29, 1),
    "photo64x48": photo(64, 48, 2),
    "photo224": photo(224, 224, 3),
    "noise32": noise(32, 32, 4),
    "photo5x2": photo(5, 2, 5),
    # a narrow range, so that AutoContrast and Equalize have work to do
    "dim40x30": (photo(40, 30, 6) // 4 + 60).astype(np.uint8),
}


def feed_op(op, arg, img, interp="nearest", fill=(0, 0, 0)):
    """libfeed's op on img; arg a number, or a policy's "POLICY:BIN[:BINS][:neg]"."""
    h, w, _ = img.shape
    arg = arg if isinstance(arg, str) else repr(float(arg))
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in"), os.path.join(d, "out")
        img.tofile(src)
        fill_hex = "%02x%02x%02x" % tuple(fill)
        subprocess.run([TOOL, op, arg, str(w), str(h), interp, fill_hex, src, dst], check=True)
        return np.fromfile(dst, dtype=np.uint8).reshape(h, w, 3)


def tv_op(op, arg, img, interp="nearest", fill=(0, 0, 0)):
    """torchvision's functional for op, called as its _auto_augment.py calls it."""
    t = torch.from_numpy(img).permute(2, 0, 1).contiguous()
    mode = F.InterpolationMode.NEAREST if interp == "nearest" else F.InterpolationMode.BILINEAR
    fl = [float(v) for v in fill]
    no_shear = [0.0, 0.0]
    if op == "ShearX":
        shear = [math.degrees(math.atan(arg)), 0.0]
        r = F.affine(t, angle=0.0, translate=[0, 0], scale=1.0, shear=shear, interpolation=mode, fill=fl,
                     center=[0, 0])
    elif op == "ShearY":
        shear = [0.0, math.degrees(math.atan(arg))]
        r = F.affine(t, angle=0.0, translate=[0, 0], scale=1.0, shear=shear, interpolation=mode, fill=fl,
                     center=[0, 0])
    elif op == "TranslateX":
        r = F.affine(t, angle=0.0, translate=[arg, 0], scale=1.0, shear=no_shear, interpolation=mode, fill=fl)
    elif op == "TranslateY":
        r = F.affine(t, angle=0.0, translate=[0, arg], scale=1.0, shear=no_shear, interpolation=mode, fill=fl)
    elif op == "Rotate":
        r = F.rotate(t, angle=arg, interpolation=mode, fill=fl)
    elif op == "Brightness":
        r = F.adjust_brightness(t, brightness_factor=arg)
    elif op == "Color":
        r = F.adjust_saturation(t, saturation_factor=arg)
    elif op == "Contrast":
        r = F.adjust_contrast(t, contrast_factor=arg)
    elif op == "Sharpness":
        r = F.adjust_sharpness(t, sharpness_factor=arg)
    elif op == "Posterize":
        r = F.posterize(t, bits=int(arg))
    elif op == "Solarize":
        r = F.solarize(t, threshold=arg)
    elif op == "AutoContrast":
        r = F.autocontrast(t)
    elif op == "Equalize":
        r = F.equalize(t)
    elif op == "Invert":
        r = F.invert(t)
    else:
        raise AssertionError(op)
    return r.permute(1, 2, 0).numpy()


def _f32(v):
    return float(np.float32(v))


# Arguments as the policies produce them (torchvision's float32 table values,
# both signs, TrivialAugmentWide's and RandAugment's ranges) and some between.
GEOMETRIC = {
    "ShearX": [0.3, -0.99, _f32(0.99 * 13 / 30), -0.033, 0.0],
    "ShearY": [0.3, -0.99, _f32(0.3 * 4 / 30), 0.137],
    "TranslateX": [5, -32, 13, -1, 13.7, -0.5, 0, 1e6],
    "TranslateY": [5, -32, 13, 101, -0.5],
    "Rotate": [30, -135, 90, -90, 180, 270, 17.3, -4.5, 0.0, _f32(135 * 7 / 30), 360.0],
}
COLOUR = {
    "Brightness": [0.01, 0.5, 1.99, 1.0 + _f32(0.9 * 9 / 30), 1.0 - _f32(0.99 * 17 / 30), 0.0],
    "Color": [0.01, 0.5, 1.99, 1.0 + _f32(0.9 * 9 / 30), 1.0 - _f32(0.99 * 17 / 30), 0.0],
    "Contrast": [0.01, 0.5, 1.99, 1.0 + _f32(0.9 * 9 / 30), 1.0 - _f32(0.99 * 17 / 30), 0.0],
    "Sharpness": [0.01, 0.5, 1.99, 1.0 + _f32(0.9 * 9 / 30), 1.0 - _f32(0.99 * 17 / 30), 0.0],
}
PIXEL = {
    "Posterize": [0, 1, 2, 4, 6, 7, 8],
    # 255 * the float32 linspace(1, 0, 31) values, and the ends
    "Solarize": [255.0 * float(v) for v in torch.linspace(1.0, 0.0, 31)] + [0.0, 128.0, 254.5],
    "AutoContrast": [0],
    "Equalize": [0],
    "Invert": [0],
}


def _check(op, arg, exact, cases):
    for name, img, interp, fill in cases:
        a = feed_op(op, arg, img, interp, fill).astype(np.int16)
        b = tv_op(op, arg, img, interp, fill).astype(np.int16)
        d = np.abs(a - b)
        where = f"{op}({arg}) on {name} {interp} fill={fill}"
        if exact:
            assert d.max() == 0, f"{where}: {int((d > 0).sum())} values differ, max {int(d.max())}"
        else:
            assert d.max() <= 1, f"{where}: max difference {int(d.max())}"
            assert (d > 0).mean() <= 0.01, f"{where}: {(d > 0).mean():.4f} of the values differ"


@pytest.mark.parametrize("op", sorted(PIXEL))
def test_pixel_functions_exact(op):
    cases = [(n, img, "nearest", (0, 0, 0)) for n, img in IMAGES.items()]
    for arg in PIXEL[op]:
        _check(op, arg, True, cases)


@pytest.mark.parametrize("op", sorted(COLOUR))
def test_colour_ops(op):
    cases = [(n, img, "nearest", (0, 0, 0)) for n, img in IMAGES.items()]
    for arg in COLOUR[op]:
        _check(op, arg, _fused(), cases)


@pytest.mark.parametrize("interp", ["nearest", "bilinear"])
@pytest.mark.parametrize("op", sorted(GEOMETRIC))
def test_geometric_ops(op, interp):
    cases = [(n, img, interp, fill) for n, img in IMAGES.items() for fill in [(0, 0, 0), (124, 116, 104)]]
    for arg in GEOMETRIC[op]:
        _check(op, arg, _fused(), cases)


def test_ops_change_pixels():
    """The comparison is not vacuous: each op (but at its identity argument)
    changes the photo, and differently from its neighbour argument."""
    img = IMAGES["photo64x48"]
    for op, arg in [("ShearX", 0.3), ("TranslateY", 5), ("Rotate", 17.3), ("Brightness", 1.5),
                    ("Color", 0.2), ("Contrast", 0.5), ("Sharpness", 1.9), ("Posterize", 3),
                    ("Solarize", 128.0), ("AutoContrast", 0), ("Equalize", 0), ("Invert", 0)]:
        assert (feed_op(op, arg, img) != img).any(), op
    assert (feed_op("Rotate", 17.3, img, "bilinear") != feed_op("Rotate", 17.3, img, "nearest")).any()
    filled = feed_op("TranslateX", 5, img, "nearest", (1, 2, 3))
    assert (filled[:, :5] == np.array([1, 2, 3], np.uint8)).all()
    assert (filled[:, 5:] == img[:, :-5]).all()


def test_timm_pixel_functions_exact():
    """timm's RandAugment pixel functions (PIL's ImageOps) are libfeed's ops."""
    aa = pytest.importorskip("timm.data.auto_augment")
    from PIL import Image

    for name, img in IMAGES.items():
        pil = Image.fromarray(img)
        # this Pillow refuses bits=0 (older ones, and torchvision, give 0s)
        for bits in range(1, 9):
            want = np.asarray(aa.posterize(pil, bits))
            assert (feed_op("Posterize", bits, img) == want).all(), (name, bits)
        for thresh in (0, 1, 77, 128, 255, 256):
            want = np.asarray(aa.solarize(pil, thresh))
            assert (feed_op("Solarize", thresh, img) == want).all(), (name, thresh)
        for add in (0, 1, 33, 110):
            want = np.asarray(aa.solarize_add(pil, add))
            assert (feed_op("SolarizeAdd", add, img) == want).all(), (name, add)
        assert (feed_op("Invert", 0, img) == np.asarray(aa.invert(pil))).all(), name
        assert (feed_op("Equalize", 0, img) == np.asarray(aa.equalize(pil))).all(), name


def test_timm_geometry_nearest():
    """timm's shears and translations (PIL's affine transform) and libfeed's
    torchvision ones place every pixel alike: with nearest sampling and
    timm's fill the images are the same (bilinear differs: PIL's own
    resampler and edge; policy.c says how)."""
    aa = pytest.importorskip("timm.data.auto_augment")
    from PIL import Image

    grey = (128, 128, 128)
    kw = dict(fillcolor=grey, resample=Image.NEAREST)
    for name in ("photo224", "noise37x29", "photo64x48"):
        img = IMAGES[name]
        pil = Image.fromarray(img)
        for s in (0.27, -0.27, 0.09):
            assert (feed_op("ShearX", s, img, "nearest", grey) == np.asarray(aa.shear_x(pil, s, **kw))).all()
            assert (feed_op("ShearY", s, img, "nearest", grey) == np.asarray(aa.shear_y(pil, s, **kw))).all()
        for p in (10, -7):  # PIL samples x + p: the content moves by -p
            want = np.asarray(aa.translate_x_abs(pil, p, **kw))
            assert (feed_op("TranslateX", -p, img, "nearest", grey) == want).all()
            want = np.asarray(aa.translate_y_abs(pil, p, **kw))
            assert (feed_op("TranslateY", -p, img, "nearest", grey) == want).all()


POLICIES = {"trivialaugment": ("TrivialAugmentWide", 31), "randaugment": ("RandAugment", 31),
            "autoaugment": ("AutoAugment", 10)}


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_policy_tables(policy):
    """Every op of the policy at every magnitude bin, both signs: libfeed's
    table and op (augop_tool POLICY:BIN) against the policy's own
    _AUGMENTATION_SPACE and _apply_image_or_video_transform (so int() of a
    translation, 255 * the solarize magnitude, 1 + the enhance magnitude and
    the float32 linspace values are all torchvision's). Exact under the same
    conditions as the ops (test_colour_ops, test_geometric_ops)."""
    import torchvision.transforms.v2 as v2

    cls_name, bins = POLICIES[policy]
    fill = (124, 116, 104)
    img = IMAGES["photo64x48"]
    h, w, _ = img.shape
    t = torch.from_numpy(img).permute(2, 0, 1).contiguous()
    fused = _fused()
    for interp in ("nearest", "bilinear"):
        mode = F.InterpolationMode.NEAREST if interp == "nearest" else F.InterpolationMode.BILINEAR
        tv = getattr(v2, cls_name)(interpolation=mode, fill=list(fill))
        for op, (magnitudes_fn, signed) in tv._AUGMENTATION_SPACE.items():
            geometric = op in GEOMETRIC
            if interp == "bilinear" and not geometric:
                continue
            mags = magnitudes_fn(bins, h, w)
            for b in range(bins) if mags is not None else [0]:
                for neg in (False, True) if signed else (False,):
                    m = 0.0 if mags is None else float(mags[b]) * (-1 if neg else 1)
                    want = tv._apply_image_or_video_transform(t, op, m, interpolation=mode, fill=tv._fill)
                    want = want.permute(1, 2, 0).numpy().astype(np.int16)
                    arg = f"{policy}:{b}:{bins}" + (":neg" if neg else "")
                    got = feed_op(op, arg, img, interp, fill).astype(np.int16)
                    d = np.abs(got - want)
                    where = f"{policy} {op} bin {b} {'-' if neg else '+'} {interp}"
                    if fused or op in PIXEL:
                        assert d.max() == 0, f"{where}: {int((d > 0).sum())} values differ"
                    else:
                        assert d.max() <= 1 and (d > 0).mean() <= 0.01, where
