"""libfeed.torch.Loader and to_torch: libfeed batches as torch tensors,
without a copy (see libfeed.torch for what a tensor's lifetime means for
its batch).
"""
import numpy as _np
import torch as _torch

from . import loader as _loader
from ._array import Array
from ._held import _HostPin


def to_torch(x):
    """A libfeed.Array (or numpy array) as a torch tensor, without a copy."""
    if isinstance(x, Array):
        if x.is_cuda:
            return _torch.from_dlpack(x)
        a = _np.asarray(_HostPin(x))
        if x.dtype_name == "bfloat16":  # the raw bits; torch takes int16, not uint16
            return _torch.from_numpy(a.view(_np.int16)).view(_torch.bfloat16)
        return _torch.from_numpy(a)
    return _torch.from_numpy(x)


def _ranks_from_process_group(kwargs):
    """rank/world_size="auto" with torch.distributed initialised: the process
    group's (what DistributedSampler uses), else libfeed reads the launcher's
    environment (RANK/WORLD_SIZE from torchrun, MPI, Slurm)."""
    dist = getattr(_torch, "distributed", None)
    if dist is None or not dist.is_available() or not dist.is_initialized():
        return
    if kwargs.get("rank") == "auto":
        kwargs["rank"] = dist.get_rank()
    if kwargs.get("world_size") == "auto":
        kwargs["world_size"] = dist.get_world_size()


def _torch_device(device):
    """device="cuda" (or torch.device("cuda")) as torch means it: the current
    CUDA device (torch.cuda.current_device(), which each DDP rank sets to its
    own), not libfeed's cuda:0."""
    if isinstance(device, _torch.device):
        if device.type == "cuda" and device.index is None:
            return f"cuda:{_torch.cuda.current_device()}"
        return device
    if isinstance(device, str) and device.strip().lower() == "cuda":
        return f"cuda:{_torch.cuda.current_device()}"
    return device


class Loader(_loader.Loader):
    """libfeed.Loader yielding (images, labels) as torch tensors.

    labels_dtype: torch dtype of the labels (default torch.int64; None keeps
    libfeed's int32 without a conversion). With label_smoothing=, mixup_alpha=
    or cutmix_alpha= the batches' targets are the float32 soft labels
    (N x num_classes) instead, and the class labels are batch.class_labels.
    Other arguments as libfeed.Loader;
    dtype and device may be given as torch.dtype / torch.device; device="cuda"
    (or torch.device("cuda")) is the current CUDA device, as in torch.
    rank="auto", world_size="auto": the torch.distributed process group's
    when it is initialised, else the launcher's environment.
    """

    def __init__(self, *args, labels_dtype=_torch.int64, **kwargs):
        kwargs["output"] = "array"
        if "device" in kwargs:
            kwargs["device"] = _torch_device(kwargs["device"])
        _ranks_from_process_group(kwargs)
        self._labels_dtype = labels_dtype
        super().__init__(*args, **kwargs)

    def _make_batch(self, held):
        b = super()._make_batch(held)
        targets = self._batch_targets(b)  # checks that asked-for soft labels came
        images, labels = b
        images = to_torch(images)
        labels = to_torch(labels)
        if self._labels_dtype is not None and labels.dtype != self._labels_dtype:
            labels = labels.to(self._labels_dtype)
        # With label smoothing or MixUp/CutMix the targets are the float32
        # soft labels (N x num_classes), as timm's Mixup gives them;
        # cross_entropy takes either.
        soft = None if b.soft_labels is None else to_torch(b.soft_labels)
        vectors = None if b.targets is None else to_torch(b.targets)
        return b.replace(images=images, labels=labels if targets is b[1] else soft,
                         soft_labels=soft, class_labels=labels, targets=vectors)


Loader.__module__ = "libfeed.torch"  # where users import it from
