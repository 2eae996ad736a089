"""libfeed.torch: the Loader, giving torch tensors, and DataLoader, the same
with torch.utils.data.DataLoader's keywords and defaults.

    from libfeed.torch import Loader
    loader = Loader("/data/train", batch_size=256, workers=8, augment="train",
                    dtype="float16", device="cuda")
    for images, labels in loader:   # torch.Tensor on the current CUDA device, no copy
        loss = model(images).float().cross_entropy(labels) ...

Images are views of libfeed's memory (host ring slot: torch.from_numpy,
with a holder that pins the batch; device buffer: torch.from_dlpack): no
copy. Such a tensor keeps its batch from being reused
until it is freed, so a tensor never changes under you; hold on to at most
prefetch-1 of them (device: device_prefetch-1), or .clone() what you keep.
That holds past close() too: the loader (workers, shared memory) is
destroyed when the last such tensor is freed.
Labels are int64 by default (what cross_entropy wants), a small copy; with
label smoothing or MixUp/CutMix the targets are float32 soft labels (N x C).
options_from_transform(T) gives the libfeed options equal to a torchvision
or timm transform (TypeError naming what has none); options_from_mix(M)
those of torchvision's v2.MixUp/CutMix or timm's Mixup.
On CUDA, torch.from_dlpack passes the current stream, and the batch's copy
is ordered before it on the device (no host wait).
"""
from ._array import Array  # what to_torch takes
from ._torch_dataloader import DataLoader
from ._torch_loader import Loader, to_torch
from ._tv_mix import translate_mix as options_from_mix
from ._tv_translate import translate as options_from_transform

__all__ = ["Loader", "DataLoader", "to_torch", "Array", "options_from_transform",
           "options_from_mix"]
