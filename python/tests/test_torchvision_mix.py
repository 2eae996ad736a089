"""libfeed's MixUp, CutMix and RandomErasing against torchvision's and timm's,
on the same lambda, box and pairing.

libfeed draws its parameters from its own generator, so they are handed to
both sides: to libfeed through build/tests/feed-mixtool (tests/mixtool.c, a
test program running loader/mix.c and pixels/erase.c), to torchvision and
timm through their transform() with fixed parameters, or their samplers
patched to return them. libfeed pairs sample i with sample N-1-i (timm's
flip); torchvision rolls by one, which is the same pairing for N = 2.
"""
import os
import subprocess
from unittest import mock

import numpy as np
import pytest

from conftest import build_path

torch = pytest.importorskip("torch")
v2 = pytest.importorskip("torchvision.transforms.v2")
F = pytest.importorskip("torchvision.transforms.v2.functional")

TOOL = build_path("tests", "feed-mixtool")
DT_U8, DT_F32, HWC, CHW = 0, 1, 0, 1
NONE, MIXUP, CUTMIX = 0, 1, 2


@pytest.fixture(scope="module", autouse=True)
def tool():
    if not os.access(TOOL, os.X_OK):
        pytest.skip(f"{TOOL} is missing (cmake --build build --target feed-mixtool)")


def run(*args):
    return subprocess.run([TOOL, *map(str, args)], check=True, capture_output=True, text=True).stdout


def write_draws(path, draws):
    with open(path, "w") as f:
        for kind, lam, box in draws:
            x1, y1, x2, y2 = box or (0, 0, 0, 0)
            f.write(f"{kind} {lam!r} {x1} {y1} {x2} {y2}\n")


def feed_mix(tmp_path, x, draws, layout=CHW):
    """libfeed's in-place mix of a float32 or uint8 batch x (N, 3, H, W)."""
    n, _, h, w = x.shape
    arr = x.numpy()
    if layout == HWC:
        arr = arr.transpose(0, 2, 3, 1)
    dt = DT_U8 if arr.dtype == np.uint8 else DT_F32
    np.ascontiguousarray(arr).tofile(tmp_path / "in")
    write_draws(tmp_path / "draws", draws)
    run("mix", dt, layout, n, h, w, tmp_path / "draws", tmp_path / "in", tmp_path / "out")
    out = np.fromfile(tmp_path / "out", dtype=arr.dtype)
    out = out.reshape(n, h, w, 3).transpose(0, 3, 1, 2) if layout == HWC else out.reshape(n, 3, h, w)
    return torch.from_numpy(np.ascontiguousarray(out))


def feed_soft(tmp_path, labels, draws, num_classes, smoothing=0.0):
    write_draws(tmp_path / "sdraws", draws)
    out = run("soft", num_classes, smoothing, tmp_path / "sdraws", *labels)
    return torch.tensor([[float(v) for v in line.split()] for line in out.splitlines()])


def as_f32(lam):
    """lam as the float32 the two sides multiply by."""
    return float(np.float32(lam))


@pytest.mark.parametrize("layout", [HWC, CHW])
def test_mixup_equals_torchvision(tmp_path, layout):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, 9, 13, generator=g)
    labels = torch.tensor([3, 1])
    lam = 0.3712
    mix = v2.MixUp(alpha=1.0, num_classes=5)
    want = mix.transform(x.clone(), {"lam": lam, "labels": labels, "batch_size": 2})
    got = feed_mix(tmp_path, x.clone(), [(MIXUP, lam, None)] * 2, layout)
    assert torch.equal(got, want)
    want_labels = mix.transform(labels, {"lam": lam, "labels": labels, "batch_size": 2})
    got_labels = feed_soft(tmp_path, labels.tolist(), [(MIXUP, lam, None)] * 2, 5)
    torch.testing.assert_close(got_labels, want_labels, rtol=0, atol=1e-7)
    assert torch.allclose(got_labels.sum(1), torch.ones(2))


@pytest.mark.parametrize("lam,rx,ry", [(0.55, 4, 7), (0.1, 0, 0), (0.93, 12, 8), (0.0001, 6, 3)])
def test_cutmix_box_and_pixels_equal_torchvision(tmp_path, lam, rx, ry):
    H, W = 9, 13
    cut = v2.CutMix(alpha=1.0, num_classes=5)
    x = torch.randn(2, 3, H, W, generator=torch.Generator().manual_seed(2))
    centre = iter([torch.tensor([rx]), torch.tensor([ry])])  # torchvision draws r_x, then r_y
    with mock.patch.object(cut._dist, "sample", return_value=torch.tensor([lam])), \
            mock.patch("torch.randint", side_effect=lambda *a, **k: next(centre)):
        params = cut.make_params([x])
    x1, y1, x2, y2, feed_lam = run("cutbox", H, W, repr(lam), rx, ry).split()
    box = tuple(map(int, (x1, y1, x2, y2)))
    assert box == params["box"]
    assert float(feed_lam) == params["lam_adjusted"]
    labels = torch.tensor([0, 4])
    full = {**params, "labels": labels, "batch_size": 2}
    want = cut.transform(x.clone(), full)
    got = feed_mix(tmp_path, x.clone(), [(CUTMIX, params["lam_adjusted"], box)] * 2)
    assert torch.equal(got, want)
    got_labels = feed_soft(tmp_path, labels.tolist(), [(CUTMIX, params["lam_adjusted"], box)] * 2, 5)
    torch.testing.assert_close(got_labels, cut.transform(labels, full), rtol=0, atol=1e-7)


@pytest.mark.parametrize("mode", ["batch", "pair", "elem"])
@pytest.mark.parametrize("cutmix", [False, True])
def test_modes_equal_timm(tmp_path, mode, cutmix):
    """timm's Mixup (the flip pairing libfeed uses) for each mode, MixUp or
    CutMix, with label smoothing: the same pixels bitwise, soft labels to
    float32 rounding."""
    mixup_mod = pytest.importorskip("timm.data.mixup")
    N, H, W, C, SMOOTH = 6, 10, 14, 7, 0.1
    rng = np.random.default_rng(3)
    x = torch.from_numpy(rng.standard_normal((N, 3, H, W), dtype=np.float32))
    labels = torch.tensor(rng.integers(0, C, N))
    units = 1 if mode == "batch" else N // 2 if mode == "pair" else N
    lams = rng.uniform(0.05, 0.95, units).astype(np.float32)
    boxes = [tuple(sorted(rng.integers(0, H, 2))) + tuple(sorted(rng.integers(0, W, 2))) for _ in range(units)]
    if cutmix:  # CutMix's lambda is its box's share
        lams = np.array([1 - (yh - yl) * (xh - xl) / (H * W) for yl, yh, xl, xh in boxes], dtype=np.float32)
    m = mixup_mod.Mixup(mixup_alpha=1.0, cutmix_alpha=1.0 if cutmix else 0.0, mode=mode,
                        label_smoothing=SMOOTH, num_classes=C)
    flags = np.full(units, cutmix)

    def fixed_box(shape, lam, **kw):
        # timm asks only for the units it mixes (lam != 1: an empty box is
        # skipped): the unit is the one with this lambda
        k = next(k for k in range(units) if lams[k] == lam)
        return boxes[k], float(lams[k])

    with mock.patch.object(mixup_mod, "cutmix_bbox_and_lam", side_effect=fixed_box), \
            mock.patch.object(m, "_params_per_batch", return_value=(float(lams[0]), bool(cutmix))), \
            mock.patch.object(m, "_params_per_elem", return_value=(lams.copy(), flags)):
        want_x, want_y = m(x.clone(), labels.clone())
    # the same draws as libfeed's: sample i takes unit i (elem), pair min(i, N-1-i), or the one (batch)
    draws = []
    for i in range(N):
        k = 0 if mode == "batch" else min(i, N - 1 - i) if mode == "pair" else i
        yl, yh, xl, xh = boxes[k]
        draws.append((CUTMIX, float(lams[k]), (xl, yl, xh, yh)) if cutmix else (MIXUP, float(lams[k]), None))
    got_x = feed_mix(tmp_path, x.clone(), draws)
    assert torch.equal(got_x, want_x)
    got_y = feed_soft(tmp_path, labels.tolist(), draws, C, SMOOTH)
    torch.testing.assert_close(got_y, want_y, rtol=0, atol=2e-7)


def test_uint8_mixup_rounds_to_nearest(tmp_path):
    """uint8: lam a + (1 - lam) b in float32, rounded to the nearest byte
    (torchvision's in-place uint8 arithmetic truncates; timm's collate rounds)."""
    x = torch.randint(0, 256, (2, 3, 5, 7), dtype=torch.uint8, generator=torch.Generator().manual_seed(4))
    lam = 0.4321
    got = feed_mix(tmp_path, x.clone(), [(MIXUP, lam, None)] * 2, HWC)
    a, b = x.float(), x.flip(0).float()
    want = torch.floor(a * as_f32(lam) + b * as_f32(1 - lam) + 0.5).to(torch.uint8)
    assert torch.equal(got, want)


@pytest.mark.parametrize("layout", [HWC, CHW])
@pytest.mark.parametrize("dtype", [torch.float32, torch.uint8])
def test_erase_equals_torchvision(tmp_path, layout, dtype):
    H, W = 11, 17
    g = torch.Generator().manual_seed(5)
    img = torch.randn(3, H, W, generator=g) if dtype == torch.float32 else \
        torch.randint(0, 256, (3, H, W), dtype=torch.uint8, generator=g)
    value = [-1.5, 0.25, 2.0] if dtype == torch.float32 else [7, 130, 255]
    for (i, j, h, w) in [(2, 3, 4, 9), (0, 0, 1, 1), (10, 16, 1, 1), (0, 0, H - 1, W - 1)]:
        v = torch.tensor(value, dtype=dtype)[:, None, None]
        want = F.erase(img.clone(), i, j, h, w, v)
        arr = img.numpy().transpose(1, 2, 0) if layout == HWC else img.numpy()
        np.ascontiguousarray(arr).tofile(tmp_path / "img")
        run("erase", DT_U8 if dtype == torch.uint8 else DT_F32, layout, H, W, i, j, h, w,
            *[repr(float(t)) for t in value], tmp_path / "img", tmp_path / "erased")
        out = np.fromfile(tmp_path / "erased", dtype=arr.dtype)
        out = out.reshape(H, W, 3).transpose(2, 0, 1) if layout == HWC else out.reshape(3, H, W)
        assert torch.equal(torch.from_numpy(np.ascontiguousarray(out)), want)
