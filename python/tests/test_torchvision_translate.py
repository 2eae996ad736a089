"""torchvision (v1 and v2) and timm transforms translated to libfeed options
(libfeed.torch.options_from_transform, options_from_mix, and
libfeed.torch.DataLoader over an ImageFolder with a transform).

What is checked here is the translation: each parameter of the transform
lands in the option that means the same, and what has no equal is refused
naming the op. That the options then give torchvision's pixels is the C
side's to test. Runs under the PyPI torch venv (scripts/test-python), which
has torchvision.transforms.v2 and timm; skipped where they are missing.
"""
import inspect
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
v2 = pytest.importorskip("torchvision.transforms.v2")

import torchvision  # noqa: E402
import torchvision.transforms as v1  # noqa: E402
from torchvision.transforms import InterpolationMode as IM  # noqa: E402

import libfeed  # noqa: E402
import libfeed.torch as lt  # noqa: E402
from libfeed._tv_translate import interpolation_word  # noqa: E402

from conftest import BATCH, NCLASS  # noqa: E402

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)  # the references' defaults


def default(cls, name):
    """torchvision's own default of a parameter, so that the expected options
    follow the installed torchvision rather than a copy of its numbers."""
    return inspect.signature(cls.__init__).parameters[name].default


def reference_train(T, use_v2, crop_size, interpolation=IM.BILINEAR, auto_augment=None,
                    ra_magnitude=9, random_erase_prob=0.0, hflip_prob=0.5, backend="pil"):
    """torchvision's references/classification/presets.py ClassificationPresetTrain:
    the same steps in the same order."""
    steps = []
    if backend == "tensor":
        steps.append(T.PILToTensor())
    steps.append(T.RandomResizedCrop(crop_size, interpolation=interpolation, antialias=True))
    if hflip_prob > 0:
        steps.append(T.RandomHorizontalFlip(hflip_prob))
    if auto_augment == "ra":
        steps.append(T.RandAugment(interpolation=interpolation, magnitude=ra_magnitude))
    elif auto_augment == "ta_wide":
        steps.append(T.TrivialAugmentWide(interpolation=interpolation))
    elif auto_augment is not None:
        steps.append(T.AutoAugment(policy=T.AutoAugmentPolicy(auto_augment),
                                   interpolation=interpolation))
    if backend == "pil":
        steps.append(T.PILToTensor())
    steps += [T.ToDtype(torch.float, scale=True) if use_v2 else T.ConvertImageDtype(torch.float),
              T.Normalize(mean=MEAN, std=STD)]
    if random_erase_prob > 0:
        steps.append(T.RandomErasing(p=random_erase_prob))
    if use_v2:
        steps.append(T.ToPureTensor())
    return T.Compose(steps)


def reference_eval(T, use_v2, crop_size, resize_size, interpolation=IM.BILINEAR):
    """presets.py ClassificationPresetEval (backend="pil")."""
    steps = [T.Resize(resize_size, interpolation=interpolation, antialias=True),
             T.CenterCrop(crop_size), T.PILToTensor(),
             T.ToDtype(torch.float, scale=True) if use_v2 else T.ConvertImageDtype(torch.float),
             T.Normalize(mean=MEAN, std=STD)]
    if use_v2:
        steps.append(T.ToPureTensor())
    return T.Compose(steps)


def close(got, want):
    """The options' values equal (floats as libfeed's float32 holds them)."""
    assert set(got) == set(want), (sorted(set(got) ^ set(want)))
    for k, w in want.items():
        g = got[k]
        if isinstance(w, float) or (isinstance(w, tuple) and w and isinstance(w[0], float)):
            assert np.allclose(np.float32(g), np.float32(w), rtol=1e-6, atol=0), (k, g, w)
        else:
            assert g == w, (k, g, w)


def refused(transform, *words):
    with pytest.raises(TypeError) as e:
        lt.options_from_transform(transform)
    msg = str(e.value)
    for w in words:
        assert w in msg, (w, msg)
    return msg


# ---- torchvision's ResNet-50 recipe ------------------------------------------------------------

@pytest.mark.parametrize("use_v2", [False, True])
@pytest.mark.parametrize("backend", ["pil", "tensor"])
def test_resnet50_recipe_train(use_v2, backend):
    """--auto-augment ta_wide --random-erase 0.1 --train-crop-size 176 (bilinear)."""
    T = v2 if use_v2 else v1
    crop, erase = 176, 0.1
    got = lt.options_from_transform(reference_train(T, use_v2, crop, auto_augment="ta_wide",
                                                    random_erase_prob=erase, backend=backend))
    scale, ratio = default(T.RandomResizedCrop, "scale"), default(T.RandomResizedCrop, "ratio")
    escale, eratio = default(T.RandomErasing, "scale"), default(T.RandomErasing, "ratio")
    close(got, {
        "augment": "train", "height": crop, "width": crop, "interpolation": "bilinear",
        "scale_min": scale[0], "scale_max": scale[1], "ratio_min": ratio[0], "ratio_max": ratio[1],
        "flip_p": 0.5, "auto_augment": "trivialaugment", "aa_interpolation": "bilinear",
        "aa_fill": 0, "dtype": "float32", "layout": "chw", "mean": MEAN, "std": STD,
        "erase_p": erase, "erase_scale_min": escale[0], "erase_scale_max": escale[1],
        "erase_ratio_min": eratio[0], "erase_ratio_max": eratio[1], "erase_random": False,
        "erase_value": (0.0, 0.0, 0.0)})


@pytest.mark.parametrize("use_v2", [False, True])
def test_resnet50_recipe_eval(use_v2):
    T = v2 if use_v2 else v1
    got = lt.options_from_transform(reference_eval(T, use_v2, 224, 232))
    close(got, {"augment": "val", "resize_shorter": 232, "height": 224, "width": 224,
                "interpolation": "bilinear", "dtype": "float32", "layout": "chw",
                "mean": MEAN, "std": STD})


@pytest.mark.parametrize("use_v2", [False, True])
def test_recipe_randaugment_and_autoaugment(use_v2):
    T = v2 if use_v2 else v1
    got = lt.options_from_transform(reference_train(T, use_v2, 224, auto_augment="ra",
                                                    ra_magnitude=7))
    assert (got["auto_augment"], got["aa_num_ops"], got["aa_magnitude"], got["aa_num_bins"],
            got["aa_mstd"], got["aa_inc"]) == (
        "randaugment", default(T.RandAugment, "num_ops"), 7,
        default(T.RandAugment, "num_magnitude_bins"), 0, False)
    got = lt.options_from_transform(reference_train(T, use_v2, 224, auto_augment="imagenet"))
    assert (got["auto_augment"], got["aa_interpolation"], got["interpolation"]) == (
        "autoaugment", "bilinear", "bilinear")
    # torchvision's own default for the policy's ops is nearest
    got = lt.options_from_transform([T.RandomResizedCrop(32), T.AutoAugment(), T.PILToTensor()])
    assert got["aa_interpolation"] == interpolation_word(default(T.AutoAugment, "interpolation"))


def test_policy_at_bicubic_is_refused():
    """presets.py passes its interpolation to the policy too; libfeed's policy
    ops sample nearest or bilinear only."""
    for T, use_v2 in ((v1, False), (v2, True)):
        refused(reference_train(T, use_v2, 224, interpolation=IM.BICUBIC, auto_augment="ta_wide"),
                "TrivialAugmentWide", "interpolation=bicubic")


# ---- timm --------------------------------------------------------------------------------------

def test_timm_rand_augment_recipe_is_refused_naming_why():
    """timm's create_transform(224, is_training=True, auto_augment='rand-m9-mstd0.5-inc1',
    interpolation='bicubic', re_prob=0.25, re_mode='pixel'): its RandAugment's
    geometric ops resample bicubic, which libfeed's aa_interpolation has not."""
    timm_data = pytest.importorskip("timm.data")
    t = timm_data.create_transform(224, is_training=True, auto_augment="rand-m9-mstd0.5-inc1",
                                   interpolation="bicubic", re_prob=0.25, re_mode="pixel")
    refused(t, "RandAugment", "bicubic")
    p1 = timm_data.create_transform(224, is_training=True, auto_augment="rand-m9-mstd0.5-inc1-p1.0",
                                    interpolation="bilinear")
    refused(p1, "RandAugment", "p=1")  # libfeed applies each op with timm's default 0.5


def test_timm_rand_augment_bilinear_translates():
    """The same recipe with bilinear resampling: timm's increasing op set (aa_inc),
    each op applied with probability 0.5, magnitude 9 of 10 (aa_num_bins = 11), mstd."""
    timm_data = pytest.importorskip("timm.data")
    from timm.data.auto_augment import _LEVEL_DENOM
    from timm.data.constants import IMAGENET_DEFAULT_MEAN, IMAGENET_DEFAULT_STD

    t = timm_data.create_transform(224, is_training=True,
                                   auto_augment="rand-m9-mstd0.5-inc1",
                                   interpolation="bilinear", re_prob=0.25, re_mode="pixel")
    got = lt.options_from_transform(t)
    fill = [min(255, round(255 * x)) for x in IMAGENET_DEFAULT_MEAN]  # timm's img_mean
    close(got, {
        "augment": "train", "height": 224, "width": 224, "interpolation": "bilinear",
        "scale_min": 0.08, "scale_max": 1.0, "ratio_min": 3 / 4, "ratio_max": 4 / 3,
        "flip_p": 0.5, "auto_augment": "randaugment", "aa_num_ops": 2,
        "aa_num_bins": _LEVEL_DENOM + 1, "aa_magnitude": 9.0, "aa_mstd": 0.5, "aa_inc": True,
        "aa_interpolation": "bilinear", "aa_fill": (fill[0] << 16) | (fill[1] << 8) | fill[2],
        "dtype": "float32", "layout": "chw", "mean": tuple(IMAGENET_DEFAULT_MEAN),
        "std": tuple(IMAGENET_DEFAULT_STD), "erase_p": 0.25, "erase_scale_min": 0.02,
        "erase_scale_max": 1 / 3, "erase_ratio_min": 0.3, "erase_ratio_max": 1 / 0.3,
        "erase_random": True})


def test_timm_eval_and_erasing_modes():
    timm_data = pytest.importorskip("timm.data")
    from timm.data.random_erasing import RandomErasing

    got = lt.options_from_transform(timm_data.create_transform(224, is_training=False,
                                                               interpolation="bicubic",
                                                               crop_pct=0.875))
    assert (got["augment"], got["resize_shorter"], got["height"], got["interpolation"]) == (
        "val", math.floor(224 / 0.875), 224, "bicubic")
    train = [v1.RandomResizedCrop(32), v1.ToTensor(), v1.Normalize(MEAN, STD)]
    got = lt.options_from_transform(train + [RandomErasing(0.3, mode="const", device="cpu")])
    assert (got["erase_p"], got["erase_random"], got["erase_value"]) == (0.3, False, (0, 0, 0))
    refused(train + [RandomErasing(0.3, mode="rand", device="cpu")], "RandomErasing", "mode='rand'")
    refused(train + [RandomErasing(0.3, max_count=3, device="cpu")], "RandomErasing", "max_count=3")
    refused(timm_data.create_transform(224, is_training=True, interpolation="random"),
            "RandomResizedCropAndInterpolation", "interpolation=")


# ---- what else translates ----------------------------------------------------------------------

@pytest.mark.parametrize("T", [v1, v2], ids=["v1", "v2"])
def test_parameters_land_in_their_options(T):
    got = lt.options_from_transform(T.Compose([
        T.RandomResizedCrop((40, 48), scale=(0.25, 0.9), ratio=(0.5, 2.0), antialias=True),
        T.RandomHorizontalFlip(p=0.3),
        T.RandomRotation(15, interpolation=IM.BILINEAR, fill=(10, 20, 30)),
        T.ColorJitter(brightness=(0.6, 1.4), contrast=0.2, saturation=0.3, hue=(-0.05, 0.05)),
        T.RandomGrayscale(p=0.1),
        T.ToTensor() if T is v1 else T.Compose([T.ToImage(), T.ToDtype(torch.float32, scale=True)]),
        T.Normalize([0.5], [0.25]),
        T.ConvertImageDtype(torch.float16) if T is v1 else T.ToDtype(torch.float16),
        T.RandomErasing(p=0.2, scale=(0.1, 0.2), ratio=(0.5, 1.5), value="random"),
    ]))
    close(got, {
        "augment": "train", "height": 40, "width": 48, "interpolation": "bilinear",
        "scale_min": 0.25, "scale_max": 0.9, "ratio_min": 0.5, "ratio_max": 2.0, "flip_p": 0.3,
        "rotate_deg": 15.0, "fill": (10 << 16) | (20 << 8) | 30, "brightness": 0.4,
        "contrast": 0.2, "saturation": 0.3, "hue": 0.05, "grayscale_p": 0.1,
        "dtype": "float16", "layout": "chw", "mean": (0.5,) * 3, "std": (0.25,) * 3,
        "erase_p": 0.2, "erase_scale_min": 0.1, "erase_scale_max": 0.2, "erase_ratio_min": 0.5,
        "erase_ratio_max": 1.5, "erase_random": True})


def test_uint8_output_and_flip_after_normalize():
    got = lt.options_from_transform([v2.PILToTensor(), v2.Resize((30, 20)), v2.PILToTensor()])
    assert (got["augment"], got["height"], got["width"], got["dtype"], got["layout"]) == (
        "none", 30, 20, "uint8", "chw")
    # A flip permutes pixels: after the conversion and Normalize it is the same flip.
    got = lt.options_from_transform([v2.RandomResizedCrop(16), v2.ToImage(),
                                     v2.ToDtype(torch.float32, scale=True),
                                     v2.Normalize(MEAN, STD), v2.RandomHorizontalFlip(0.4)])
    assert got["flip_p"] == 0.4
    # Without a flip, libfeed's train default (0.5) is switched off.
    assert lt.options_from_transform([v2.RandomResizedCrop(16), v2.ToImage()])["flip_p"] == 0


# ---- what is refused ---------------------------------------------------------------------------

CROP = [v1.RandomResizedCrop(32)]
TAIL = [v1.ToTensor(), v1.Normalize(MEAN, STD)]


@pytest.mark.parametrize("steps,words", [
    (CROP + [v1.Lambda(lambda x: x)] + TAIL, ["Lambda", "runs Python per sample"]),
    (CROP + [v2.Lambda(lambda x: x)] + TAIL, ["v2.Lambda", "runs Python per sample"]),
    (CROP + [lambda x: x] + TAIL, ["<lambda>", "a Python function"]),
    (CROP + [v1.GaussianBlur(3)] + TAIL, ["GaussianBlur", "has no libfeed equivalent"]),
    (CROP + [v2.RandomVerticalFlip()] + TAIL, ["v2.RandomVerticalFlip", "no libfeed equivalent"]),
    (CROP + [v1.ColorJitter(brightness=(0.5, 1.2))] + TAIL, ["ColorJitter", "brightness=(0.5, 1.2)"]),
    (CROP + [v1.ColorJitter(hue=(0.0, 0.2))] + TAIL, ["ColorJitter", "hue=(0, 0.2)"]),
    (CROP + [v1.RandomRotation(10)] + TAIL, ["RandomRotation", "interpolation=nearest"]),
    (CROP + [v1.RandomRotation((0, 10), interpolation=IM.BILINEAR)] + TAIL,
     ["RandomRotation", "degrees=(0, 10)"]),
    (CROP + [v1.RandomRotation(10, interpolation=IM.BILINEAR, expand=True)] + TAIL,
     ["RandomRotation", "expand=True"]),
    (CROP + [v1.AutoAugment(v1.AutoAugmentPolicy.CIFAR10)] + TAIL, ["AutoAugment", "CIFAR10"]),
    (CROP + [v1.TrivialAugmentWide(num_magnitude_bins=10)] + TAIL,
     ["TrivialAugmentWide", "num_magnitude_bins=10"]),
    (CROP + [v1.AugMix()] + TAIL, ["AugMix", "no libfeed equivalent"]),
    ([v1.RandomResizedCrop(32, interpolation=IM.NEAREST)] + TAIL,
     ["RandomResizedCrop", "interpolation=nearest"]),
    ([v1.PILToTensor(), v1.RandomResizedCrop(32, antialias=False)] + TAIL[1:],
     ["RandomResizedCrop", "antialias=False"]),
    ([v1.Resize(32)] + TAIL, ["Resize", "CenterCrop"]),
    ([v1.Resize(32, max_size=40), v1.CenterCrop(32)] + TAIL, ["Resize", "max_size=40"]),
    ([v1.CenterCrop(32)] + TAIL, ["CenterCrop", "Resize"]),
    (TAIL, ["has no RandomResizedCrop or Resize", "augment='train'"]),
    ([v1.Resize(36), v1.CenterCrop(32), v1.RandomHorizontalFlip()] + TAIL,
     ["RandomHorizontalFlip", "augment='train'"]),
    (CROP + [v1.ToTensor(), v1.ColorJitter(0.4)] + TAIL[1:], ["ColorJitter", "after the conversion"]),
    (CROP + [v1.ColorJitter(0.4), v1.RandomRotation(5, interpolation=IM.BILINEAR)] + TAIL,
     ["RandomRotation", "comes after ColorJitter"]),
    (CROP + TAIL[:1] + [v1.RandomErasing(), v1.Normalize(MEAN, STD)],
     ["Normalize", "after RandomErasing"]),
    (CROP + [v1.RandomErasing()] + TAIL, ["RandomErasing", "PIL image"]),
    (CROP + [v2.PILToTensor(), v2.ToDtype(torch.float32)], ["v2.ToDtype", "scale=False"]),
    (CROP + [v2.PILToTensor(), v2.RandomErasing(value="random")], ["v2.RandomErasing", "uint8"]),
    (CROP + [v1.RandomResizedCrop(32)] + TAIL, ["RandomResizedCrop", "second crop"]),
    (CROP + [v1.RandomHorizontalFlip(), v1.RandomHorizontalFlip()] + TAIL,
     ["RandomHorizontalFlip", "twice"]),
    (CROP, ["ends with a PIL image"]),
    (CROP + [v1.PILToTensor(), v1.Normalize(MEAN, STD)], ["Normalize", "uint8"]),
])
def test_refused_naming_the_op_and_why(steps, words):
    refused(v1.Compose(steps), "libfeed cannot translate the transform", *words)


def test_subclass_is_refused():
    class MyCrop(v1.RandomResizedCrop):  # may do anything in forward()
        pass

    refused([MyCrop(32)] + TAIL, "MyCrop", "own transforms only")


# ---- MixUp / CutMix ----------------------------------------------------------------------------

def test_torchvision_mixup_cutmix():
    mix = lt.options_from_mix(v2.MixUp(alpha=0.2, num_classes=10))
    assert mix == {"mixup_alpha": 0.2, "cutmix_alpha": 0.0, "mix_p": 1.0, "mix_mode": "batch",
                   "num_classes": 10}
    # references/classification/transforms.py get_mixup_cutmix: RandomChoice of the two
    mix = lt.options_from_mix(v2.RandomChoice([v2.MixUp(alpha=0.2, num_classes=10),
                                               v2.CutMix(alpha=1.0, num_classes=10)]))
    assert (mix["mixup_alpha"], mix["cutmix_alpha"], mix["mix_switch_p"], mix["mix_p"]) == (
        0.2, 1.0, 0.5, 1.0)
    mix = lt.options_from_mix(v2.RandomApply([v2.RandomChoice(
        [v2.CutMix(alpha=1.0, num_classes=10), v2.MixUp(alpha=0.8, num_classes=10)],
        p=[3, 1])], p=0.8))
    assert (mix["cutmix_alpha"], mix["mixup_alpha"], mix["mix_switch_p"], mix["mix_p"]) == (
        1.0, 0.8, 0.75, 0.8)
    for bad, words in ((v2.Compose([v2.MixUp(num_classes=3), v2.CutMix(num_classes=3)]), "v2.Compose"),
                       (v2.RandomChoice([v2.MixUp(num_classes=3), v2.MixUp(num_classes=3)]),
                        "v2.RandomChoice"),
                       (v2.RandomChoice([v2.MixUp(num_classes=3), v2.CutMix(num_classes=4)]),
                        "num_classes differ")):
        with pytest.raises(TypeError, match="libfeed cannot translate mix="):
            lt.options_from_mix(bad)
        with pytest.raises(TypeError, match=words):
            lt.options_from_mix(bad)


def test_timm_mixup_object_and_arguments():
    mixup = pytest.importorskip("timm.data.mixup")
    args = dict(mixup_alpha=0.8, cutmix_alpha=1.0, prob=0.9, switch_prob=0.4, mode="elem",
                label_smoothing=0.1, num_classes=1000)
    want = {"mixup_alpha": 0.8, "cutmix_alpha": 1.0, "mix_p": 0.9, "mix_switch_p": 0.4,
            "mix_mode": "elem", "label_smoothing": 0.1, "num_classes": 1000}
    assert lt.options_from_mix(mixup.Mixup(**args)) == want
    assert lt.options_from_mix(args) == want
    for bad, words in ((dict(args, cutmix_minmax=(0.2, 0.8)), "cutmix_minmax"),
                       (dict(args, correct_lam=False), "correct_lam=False"),
                       (dict(args, mode="other"), "mode='other'"),
                       (dict(args, lam=0.3), "unknown argument")):
        with pytest.raises(TypeError, match=words):
            lt.options_from_mix(bad)
        if "lam" not in bad:
            with pytest.raises(TypeError, match=words):
                lt.options_from_mix(mixup.Mixup(**bad))


# ---- through libfeed.torch.DataLoader ----------------------------------------------------------

def test_dataloader_takes_an_imagefolder_with_a_translatable_transform(dataset):
    """The translated options reach the loader: the same batches as the
    options given by hand."""
    ds = torchvision.datasets.ImageFolder(dataset, transform=reference_eval(v2, True, 24, 28))
    with lt.DataLoader(ds, batch_size=BATCH, num_workers=2, seed=5) as D, \
            lt.DataLoader(dataset, batch_size=BATCH, num_workers=2, seed=5, augment="val",
                          resize_shorter=28, size=24, mean=MEAN, std=STD) as E:
        assert D.dataset is ds
        for (a, la), (b, lb) in zip(D, E):
            assert a.shape == (len(la), 3, 24, 24) and a.dtype == torch.float32
            assert torch.equal(a, b) and torch.equal(la, lb)
    with pytest.raises(ValueError, match="augment='train' contradicts"):
        lt.DataLoader(ds, batch_size=BATCH, augment="train")
    with pytest.raises(ValueError, match="size=64 contradicts"):
        lt.DataLoader(ds, batch_size=BATCH, size=64)
    with pytest.raises(TypeError, match="RandomVerticalFlip"):
        lt.DataLoader(torchvision.datasets.ImageFolder(dataset, transform=v2.RandomVerticalFlip()))


def test_dataloader_mix_num_classes_against_the_dataset(dataset):
    with pytest.raises(ValueError, match=f"the dataset has {NCLASS} classes"):
        lt.DataLoader(dataset, batch_size=BATCH, mix=v2.MixUp(alpha=0.2, num_classes=NCLASS - 1))
    with lt.DataLoader(dataset, batch_size=BATCH, mix=v2.MixUp(alpha=0.2, num_classes=NCLASS + 3),
                       label_smoothing=0.1) as D:
        assert D.loader._option("num_classes") == NCLASS + 3
        assert D.loader._option("mixup_alpha") == pytest.approx(0.2)
        # torchvision's MixUp says nothing of smoothing: the caller's is taken
        assert D.loader._option("label_smoothing") == pytest.approx(0.1)
    with pytest.raises(ValueError, match="label_smoothing=0.2 contradicts the mix="):
        lt.DataLoader(dataset, batch_size=BATCH, label_smoothing=0.2,
                      mix=dict(mixup_alpha=0.2, label_smoothing=0.1))


def test_dataloader_mix_gives_soft_targets(dataset):
    """mix=v2.MixUp: the targets are float32 rows of the batch's classes that
    sum to 1, each with its own class's share. Needs the C side of MixUp
    (feed_batch.soft_labels); skipped, saying so, with a library without it."""
    with lt.DataLoader(dataset, batch_size=BATCH, num_workers=2, seed=3, shuffle=True,
                       mix=v2.MixUp(alpha=0.4, num_classes=NCLASS)) as D:
        try:
            b = next(iter(D))
        except libfeed.FeedUnsupportedError as e:
            assert "mixup_alpha=0.4" in str(e)  # said, not class labels in their place
            pytest.skip("this libfeed library delivers no soft labels (the recipes' C side "
                        "is not in this build): " + str(e))
        images, targets = b
        assert targets.dtype == torch.float32 and tuple(targets.shape) == (len(images), NCLASS)
        assert torch.allclose(targets.sum(1), torch.ones(len(images)), atol=1e-6)
        own = targets[torch.arange(len(images)), b.class_labels]
        assert bool((own > 0).all())  # lambda ~ Beta(0.4, 0.4) is > 0
        present = torch.zeros(NCLASS, dtype=torch.bool)
        present[b.class_labels] = True
        assert bool((targets[:, ~present] == 0).all())  # mixed only with the batch's samples
        assert bool(((targets > 0).sum(1) <= 2).all())  # one partner each


# The C enums' words, in their order (include/feed.h), to read the options back.
WORDS = {"augment": ["none", "val", "train"], "interpolation": ["nearest", "bilinear", "bicubic"],
         "aa_interpolation": ["nearest", "bilinear", "bicubic"],
         "auto_augment": ["none", "trivialaugment", "randaugment", "autoaugment"],
         "mix_mode": ["batch", "pair", "elem"], "dtype": ["uint8", "float32", "float16", "bfloat16"],
         "layout": ["hwc", "chw"]}


def recipes():
    """(transform, mix) pairs translated above, as a user would pass them."""
    yield (reference_train(v2, True, 176, auto_augment="ta_wide", random_erase_prob=0.1),
           v2.RandomChoice([v2.MixUp(alpha=0.2, num_classes=NCLASS),
                            v2.CutMix(alpha=1.0, num_classes=NCLASS)]))
    yield (v1.Compose([v1.RandomResizedCrop(40, interpolation=IM.BICUBIC),
                       v1.RandomRotation(10, interpolation=IM.BILINEAR, fill=(1, 2, 3)),
                       v1.ColorJitter(0.4, 0.3, 0.2, 0.1), v1.RandomGrayscale(0.2),
                       v1.PILToTensor(), v1.ConvertImageDtype(torch.float32), v1.Normalize(MEAN, STD),
                       v1.ConvertImageDtype(torch.bfloat16),
                       v1.RandomErasing(0.5, value=(1.0, -1.0, 0.5))]),
           dict(mixup_alpha=0.8, cutmix_alpha=1.0, mode="elem", label_smoothing=0.1))
    timm_data = pytest.importorskip("timm.data")
    yield (timm_data.create_transform(64, is_training=True, interpolation="bilinear",
                                      auto_augment="rand-m9-n3-mstd0.5-inc1",
                                      re_prob=0.25, re_mode="pixel"),
           None)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_translated_options_are_what_the_library_holds(dataset, which):
    """Every translated option, set through libfeed's own parser and read back
    from the feed_options the loader was made with: the words, flags, colours
    and numbers reach C as meant (and the library's validation takes them)."""
    transform, mix = list(recipes())[which]
    want = dict(lt.options_from_transform(transform))
    if mix is not None:
        want.update(lt.options_from_mix(mix))
    with lt.DataLoader(dataset, batch_size=BATCH, transform=transform, mix=mix) as D:
        for key, value in want.items():
            got = D.loader._option(key)
            if key in WORDS:
                assert WORDS[key][got] == value, (key, got, value)
            elif isinstance(value, tuple):
                assert np.allclose(np.array(got[:], np.float32), np.float32(value), rtol=1e-7), key
            elif isinstance(value, float):
                assert np.float32(got) == np.float32(value), (key, got, value)
            else:
                assert got == int(value), (key, got, value)


def test_recipe_example_trains(dataset, tmp_path):
    """examples/recipe_torchvision.py, as a user runs it: torchvision's reference
    recipe objects through libfeed.torch.DataLoader, soft targets into the loss."""
    import os
    import subprocess
    import sys

    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run([sys.executable, os.path.join(repo, "examples", "recipe_torchvision.py"), dataset,
                        "--steps", "6", "--batch", "8"], cwd=str(tmp_path), capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith("6 steps, last loss ")
    assert math.isfinite(float(last.rsplit(" ", 1)[1]))
