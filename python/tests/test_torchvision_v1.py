"""torchvision v1 transforms (torchvision.transforms.Compose) translated to
libfeed options, with the torchvision that the system Python has (Debian's
0.14: no transforms.v2; scripts/test-python runs test_torchvision_*.py with
/usr/bin/python3 and the venv). test_torchvision_translate.py covers v2 and
timm in the PyPI venv.
"""
import pytest

torch = pytest.importorskip("torch")
tv = pytest.importorskip("torchvision")

import torchvision.transforms as T  # noqa: E402
from torchvision.transforms import InterpolationMode as IM  # noqa: E402

import libfeed.torch as lt  # noqa: E402

from conftest import BATCH  # noqa: E402

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def test_v1_recipe_train_translates():
    """torchvision's ResNet-50 recipe, as references/classification/presets.py
    builds it for --auto-augment ta_wide --random-erase 0.1 --train-crop-size 176."""
    t = T.Compose([T.RandomResizedCrop(176, interpolation=IM.BILINEAR, antialias=True),
                   T.RandomHorizontalFlip(0.5), T.TrivialAugmentWide(interpolation=IM.BILINEAR),
                   T.PILToTensor(), T.ConvertImageDtype(torch.float), T.Normalize(MEAN, STD),
                   T.RandomErasing(p=0.1)])
    got = lt.options_from_transform(t)
    assert (got["augment"], got["height"], got["width"], got["flip_p"]) == ("train", 176, 176, 0.5)
    assert (got["auto_augment"], got["aa_interpolation"]) == ("trivialaugment", "bilinear")
    assert (got["dtype"], got["layout"], got["mean"], got["std"]) == ("float32", "chw", MEAN, STD)
    assert (got["erase_p"], got["erase_random"]) == (0.1, False)
    assert (got["scale_min"], got["scale_max"]) == tuple(t.transforms[0].scale)
    assert (got["erase_scale_min"], got["erase_scale_max"]) == tuple(t.transforms[-1].scale)


def test_v1_default_antialias_on_a_pil_image_and_on_a_tensor():
    """antialias=None (torchvision 0.14's default, given here so that a newer
    torchvision means the same): a PIL image is antialiased anyway (as
    libfeed's resize), a tensor is not."""
    ok = lt.options_from_transform(T.Compose([T.Resize(40, antialias=None), T.CenterCrop(32),
                                              T.ToTensor()]))
    assert (ok["augment"], ok["resize_shorter"], ok["height"]) == ("val", 40, 32)
    assert (ok["mean"], ok["std"]) == ((0.0,) * 3, (1.0,) * 3)  # ToTensor alone: x / 255
    with pytest.raises(TypeError, match="Resize: antialias=None on a tensor"):
        lt.options_from_transform(T.Compose([T.PILToTensor(), T.Resize(40, antialias=None),
                                             T.CenterCrop(32),
                                             T.ConvertImageDtype(torch.float)]))


def test_v1_imagefolder_with_transform_in_the_dataloader(dataset):
    ds = tv.datasets.ImageFolder(dataset, transform=T.Compose([
        T.Resize(28), T.CenterCrop(24), T.ToTensor(), T.Normalize(MEAN, STD)]))
    with lt.DataLoader(ds, batch_size=BATCH, num_workers=2, seed=5) as D, \
            lt.DataLoader(dataset, batch_size=BATCH, num_workers=2, seed=5, augment="val",
                          resize_shorter=28, size=24, mean=MEAN, std=STD) as E:
        for (a, la), (b, lb) in zip(D, E):
            assert a.shape == (len(la), 3, 24, 24) and a.dtype == torch.float32
            assert torch.equal(a, b) and torch.equal(la, lb)
    with pytest.raises(TypeError, match="Lambda: runs Python per sample"):
        lt.DataLoader(tv.datasets.ImageFolder(dataset, transform=T.Compose([
            T.RandomResizedCrop(24), T.Lambda(lambda x: x), T.ToTensor()])))
