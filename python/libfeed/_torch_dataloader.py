"""libfeed.torch.DataLoader: torch.utils.data.DataLoader's arguments, libfeed's pipeline.

    # torch
    ds = torchvision.datasets.ImageFolder("/data/train", transform=T.Compose([
        T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(mean, std)]))
    loader = torch.utils.data.DataLoader(ds, batch_size=256, shuffle=True, num_workers=8,
                                         pin_memory=True, prefetch_factor=2, persistent_workers=True)
    # libfeed
    loader = libfeed.torch.DataLoader("/data/train", batch_size=256, shuffle=True, num_workers=8,
                                      pin_memory=True, prefetch_factor=2, persistent_workers=True,
                                      augment="train")

The keywords DataLoader shares with libfeed mean what they mean there, with
DataLoader's defaults; the transform is libfeed's (augment=, size=, mean=,
std=, dtype=: float32 CHW normalised with ImageNet's mean/std by default, what
ToTensor() + Normalize() give). An ImageFolder's transform (or transform=)
made of torchvision's or timm's own transforms is translated to those
options when libfeed has each step with the same parameters
(libfeed.torch.options_from_transform; TypeError naming the step and the
parameter otherwise); mix= takes torchvision's v2.MixUp/CutMix or timm's
Mixup, and batches then carry float32 soft labels as their targets.
Arguments that would run Python per sample or per batch (a transform
libfeed cannot translate, collate_fn, worker_init_fn, batch_sampler, a
custom sampler) raise a TypeError that says what to use instead.

Each `for` is one epoch from its start, as with DataLoader, unless
load_state_dict() just set a position (then it resumes there, as torchdata's
StatefulDataLoader). set_epoch(e) as DistributedSampler.set_epoch; with
sampler=DistributedSampler(...), the sampler's set_epoch is followed.
"""
import os
import warnings

import torch

from . import _capi
from . import _torch_loader as _lt
from . import _tv_mix, _tv_translate
from . import loader as _loader
from ._capi import SAMPLE_REPLACED
from ._errors import FeedBusyError
from ._options import _dtype_word

# DataLoader arguments that cannot apply, and what to use instead.
_REFUSED = {
    "collate_fn": "libfeed stacks the batch in C: each batch is (images, labels) tensors. "
                  "Do per-batch work in your loop, on the batch",
    "worker_init_fn": "libfeed's workers are feed-worker processes (C, sandboxed), not Python; "
                      "there is no Python to initialise in them",
    "batch_sampler": "use batch_size= and drop_last= (with shuffle= and seed=)",
    "pin_memory_device": "use device='cuda:N': batches then arrive on that GPU, copied from a "
                         "ring pinned once",
}
_TRANSFORM_HELP = _tv_translate.HELP


def _transform_options(transform, where):
    """The libfeed options of a torchvision/timm transform, or TypeError
    saying which step libfeed has no exact equivalent for, and what to use."""
    try:
        return _tv_translate.translate(transform)
    except TypeError as e:
        raise TypeError(f"libfeed.torch.DataLoader: {where} cannot apply: libfeed cannot run a "
                        f"Python transform, and translating it failed: {e}. "
                        + _TRANSFORM_HELP) from None


def _source_of(dataset):
    """The folder (or the ImageFolder's root) a dataset argument names, and
    the dataset's transform (None without one)."""
    if isinstance(dataset, (str, bytes, os.PathLike)):
        return os.fsdecode(dataset), None
    root = getattr(dataset, "root", None)
    if root is not None and hasattr(dataset, "samples") and hasattr(dataset, "class_to_idx"):
        if getattr(dataset, "target_transform", None) is not None:
            raise TypeError("libfeed.torch.DataLoader: the dataset has a target_transform: "
                            "libfeed delivers the folder's class index as the label (or soft "
                            "labels with label_smoothing= / mix=); " + _TRANSFORM_HELP)
        return os.fsdecode(root), getattr(dataset, "transform", None)
    raise TypeError(f"libfeed.torch.DataLoader: dataset={type(dataset).__name__}: libfeed reads "
                    "an image folder (ImageFolder layout) itself; pass its path (or a "
                    "torchvision ImageFolder without transform), or file_list= for a list of "
                    "files with labels")


def _merge_translated(opts, options, translated, what):
    """opts (DataLoader's own) then the translated options, then the user's:
    a user option that contradicts the translation is an error, not a
    silent override."""
    size = options.get("size")
    if size is not None and "height" in translated:
        hw = tuple(size) if isinstance(size, (list, tuple)) else (size, size)
        if not _same_option(hw, (translated["height"], translated["width"])):
            raise ValueError(f"libfeed.torch.DataLoader: size={size!r} contradicts the {what}, "
                             f"which gives {translated['height']} x {translated['width']}: give "
                             "one of them")
    for k, v in translated.items():
        if k in options and not _same_option(options[k], v):
            raise ValueError(f"libfeed.torch.DataLoader: {k}={options[k]!r} contradicts the "
                             f"{what}, which gives {k}={v!r}: give one of them")
        opts[k] = v


def _same_option(a, b):
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_option(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) == bool(b)
    try:
        return abs(float(a) - float(b)) <= 1e-6 * max(1.0, abs(float(b)))
    except (TypeError, ValueError):
        return _dtype_word(a) == _dtype_word(b)


def _sampler_options(sampler, torch):
    """libfeed options for a DataLoader sampler= argument."""
    data = torch.utils.data
    dist_cls = getattr(getattr(data, "distributed", None), "DistributedSampler", None)
    if dist_cls is not None and isinstance(sampler, dist_cls):
        # Its drop_last is not the DataLoader's: see _drop_last_for().
        return {"rank": sampler.rank, "world_size": sampler.num_replicas,
                "shuffle": bool(sampler.shuffle), "seed": int(sampler.seed)}
    if isinstance(sampler, data.RandomSampler):
        if getattr(sampler, "replacement", False) or getattr(sampler, "_num_samples", None):
            raise TypeError("libfeed.torch.DataLoader: RandomSampler with replacement or "
                            "num_samples cannot apply: every epoch is one permutation of the "
                            "dataset (shuffle=True)")
        opts = {"shuffle": True}
        if getattr(sampler, "generator", None) is not None:
            opts["seed"] = int(sampler.generator.initial_seed())
        return opts
    if isinstance(sampler, data.SequentialSampler):
        return {"shuffle": False}
    raise TypeError(f"libfeed.torch.DataLoader: sampler={type(sampler).__name__} cannot apply: "
                    "libfeed computes each epoch's order itself; use shuffle=, seed=, and "
                    "rank=/world_size= (or sampler=DistributedSampler(...)) to shard it")


def _drop_last_for(n, world, batch, sampler_drop, loader_drop):
    """libfeed's drop_last for torch's DistributedSampler(drop_last=sampler_drop)
    and DataLoader(drop_last=loader_drop), and whether each epoch's last batch
    then has one sample more than torch's, to leave out.

    In torch the two are independent: the sampler's cuts the ranks' shares
    of n samples to n // world each (else ceil(n / world), padded by wrapping
    around), the DataLoader's drops a short last batch. libfeed's one
    drop_last does both. Both take each rank's samples from the same padded
    order, so equal batch and sample counts are the same batches. Only the
    sampler's cut without the DataLoader's, for shares uneven and a short
    last batch, has no libfeed equivalent: uncut, the share is one sample
    longer, the same number of batches, that sample last in the last one."""
    def run(cut_share, cut_batch):
        share = n // world if cut_share else -(-n // world)
        batches = share // batch if cut_batch else -(-share // batch)
        return batches, min(batches * batch, share)

    want = run(sampler_drop, loader_drop)
    for c in (loader_drop, not loader_drop):
        if run(c, c) == want:
            return c, False
    got = run(False, False)
    if sampler_drop and not loader_drop and got == (want[0], want[1] + 1):
        return False, True
    raise ValueError(  # not reached (every case of n, world, batch is one of the above)
        f"libfeed.torch.DataLoader: DistributedSampler(drop_last={sampler_drop}) with "
        f"DataLoader(drop_last={loader_drop}) over {n} samples, {world} ranks, batches of "
        f"{batch}: libfeed cannot give these batches; set both drop_last alike")


class DataLoader(_loader.Front):
    """torch.utils.data.DataLoader's signature over libfeed.torch.Loader.

    dataset            an image folder (ImageFolder layout), or a torchvision
                       ImageFolder (its root is read); its transform, if any,
                       is translated to libfeed options (options_from_transform)
    transform          the same for a folder given as a path (not both)
    mix                torchvision's v2.MixUp/CutMix/RandomChoice/RandomApply or
                       timm's Mixup (or a dict of its arguments): mixed in C, the
                       targets are then float32 soft labels (options_from_mix)
    batch_size         1 (as DataLoader)
    shuffle            False (as DataLoader); the order is a function of seed and epoch
    sampler            DistributedSampler(...) (its rank, num_replicas, shuffle,
                       seed, drop_last; its set_epoch() is followed),
                       RandomSampler or SequentialSampler; others: TypeError
    num_workers        worker processes; 0 (DataLoader's default: load in the
                       main process) starts one, libfeed has no in-process mode
    pin_memory         True: host batches are copied into page-locked memory
                       as DataLoader's pin thread does (device='cuda' is the
                       faster way: the ring is pinned once, no copy on the host)
    drop_last          as DataLoader: drops a short last batch. A DistributedSampler's
                       own drop_last (cut the ranks' shares to even, or pad them) is
                       independent of it, as in torch. Without a sampler, with
                       rank=/world_size=, it is libfeed's, which does both
    timeout            seconds one batch may take (0: no limit): FeedTimeoutError
    generator          a torch.Generator: its initial_seed() is the seed
    prefetch_factor    batches in flight per worker (2): the ring holds
                       num_workers * prefetch_factor batches (at least 2)
    persistent_workers accepted; libfeed's workers always live as long as the loader
    multiprocessing_context, in_order   accepted; workers are always
                       posix_spawn'ed executables, batches always in order

    libfeed keywords: seed (default: drawn from torch's default generator, as
    DataLoader draws its base seed, so torch.manual_seed() fixes it), augment
    ("val"), size (224), dtype (torch.float32), layout, mean, std, device
    ("cpu"; "cuda" for batches on the GPU), labels_dtype (torch.int64), and
    every other libfeed.Loader option (one that contradicts the translated
    transform or mix is a ValueError). collate_fn, worker_init_fn,
    batch_sampler, a transform with a step libfeed has no equal for, a
    target_transform: TypeError naming the libfeed way.

    Iterating gives one epoch of (images, labels) batches (libfeed.Batch:
    also .sample_ids, .flags, .epoch, .index); len() is the batches per epoch.

    .dataset is the torchvision ImageFolder given as dataset, that very
    object; given a path, it is loader.dataset (libfeed.Loader.dataset):
    len() the samples of the whole dataset (all ranks, as torch's
    len(loader.dataset) with a DistributedSampler), samples, targets, classes
    and class_to_idx as ImageFolder has them, read from libfeed's index.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, in_order=True, seed=None,
                 dtype=None, mix=None, **options):
        for name, value in (("collate_fn", collate_fn), ("worker_init_fn", worker_init_fn),
                            ("batch_sampler", batch_sampler),
                            ("pin_memory_device", options.pop("pin_memory_device", None) or None)):
            if value is not None:
                raise TypeError(f"libfeed.torch.DataLoader: {name}= cannot apply: {_REFUSED[name]}")
        if options.get("target_transform") is not None:
            raise TypeError("libfeed.torch.DataLoader: target_transform= cannot apply: libfeed "
                            "delivers the class index as the label (or soft labels with "
                            "label_smoothing= / mix=); " + _TRANSFORM_HELP)
        options.pop("target_transform", None)
        transform = options.pop("transform", None)
        if batch_size is None:
            raise TypeError("libfeed.torch.DataLoader: batch_size=None (no batching) cannot "
                            "apply: libfeed always delivers stacked batches")
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"libfeed.torch.DataLoader: num_workers={num_workers!r}: expected "
                             "an integer >= 0")
        if prefetch_factor is not None and (isinstance(prefetch_factor, bool) or
                                            not isinstance(prefetch_factor, int) or
                                            prefetch_factor < 1):
            raise ValueError(f"libfeed.torch.DataLoader: prefetch_factor={prefetch_factor!r}: "
                             "expected an integer >= 1")
        if timeout is None or timeout < 0:
            raise ValueError(f"libfeed.torch.DataLoader: timeout={timeout!r}: expected a "
                             "number >= 0 (0: no limit)")

        opts = {"shuffle": bool(shuffle) if shuffle is not None else False,
                "drop_last": bool(drop_last)}
        sampler_drop = None  # a DistributedSampler's drop_last
        if sampler is not None:
            if shuffle:
                # DataLoader's own rule
                raise ValueError("libfeed.torch.DataLoader: sampler option is mutually "
                                 "exclusive with shuffle")
            opts.update(_sampler_options(sampler, torch))
            if "world_size" in opts:
                sampler_drop = bool(sampler.drop_last)
        if generator is not None:
            if seed is not None:
                raise ValueError("libfeed.torch.DataLoader: give generator= or seed=, not both")
            seed = int(generator.initial_seed())
        if seed is None and "seed" not in opts:
            # As DataLoader draws its base seed: from the default generator.
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
        if seed is not None:
            opts["seed"] = seed
        workers = max(1, num_workers)
        opts["workers"] = workers
        opts["prefetch"] = max(2, workers * (prefetch_factor or 2))
        if timeout:
            opts["timeout"] = timeout
        opts["dtype"] = torch.float32
        if dtype is not None:
            options["dtype"] = dtype
        source, ds_transform = _source_of(dataset)
        if transform is not None and ds_transform is not None:
            raise ValueError("libfeed.torch.DataLoader: transform= and a dataset with a "
                             "transform: give one")
        if transform is not None:
            _merge_translated(opts, options, _transform_options(transform, "transform="),
                              "transform=")
        elif ds_transform is not None:
            _merge_translated(opts, options,
                              _transform_options(ds_transform, "the dataset's transform"),
                              "dataset's transform")
        mix_opts = {}
        if mix is not None:
            try:
                mix_opts = _tv_mix.translate_mix(mix)
            except TypeError as e:
                raise TypeError(f"libfeed.torch.DataLoader: {e}") from None
            _merge_translated(opts, options, mix_opts, "mix=")
        opts.update(options)  # explicit libfeed options win where they agree

        self.batch_size = batch_size
        self.drop_last = bool(drop_last)
        self.num_workers = num_workers
        self.pin_memory = bool(pin_memory)
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = bool(persistent_workers)
        self.sampler = sampler
        self.generator = generator
        self.timeout = timeout
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._pin = False
        if self.pin_memory:
            if torch.cuda.is_available():
                self._pin = True
            else:
                warnings.warn("libfeed.torch.DataLoader: pin_memory=True but no CUDA device is "
                              "available: not pinning (as torch's DataLoader)", stacklevel=2)
        self._resume = False    # load_state_dict() set the position: the next `for` starts there
        self._set_epoch = None  # set_epoch(e): the next `for` is epoch e
        self._trim = None       # (index, count) of a last batch one sample too long
        if sampler_drop is None:
            self.loader = _lt.Loader(source, batch_size, **opts)
        else:
            self.loader = self._loader_for_sampler(_lt, source, batch_size, opts, sampler,
                                                   sampler_drop)
        self._pin = self._pin and self.loader.device == "cpu"  # device batches need no pinning
        if "num_classes" in mix_opts:
            self._check_num_classes(mix_opts["num_classes"])
        self._source = source
        if isinstance(dataset, (str, bytes, os.PathLike)):
            self.dataset = self.loader.dataset
        else:
            self.dataset = dataset  # the user's torchvision ImageFolder, as torch keeps it

    def _loader_for_sampler(self, _lt, source, batch_size, opts, sampler, sampler_drop):
        """The Loader for DistributedSampler(drop_last=sampler_drop) and our
        drop_last, as torch gives them (_drop_last_for). libfeed's drop_last
        for them depends on the dataset size: guessed from the sampler's
        dataset, checked against the index (the loader is made again if the
        guess was wrong)."""
        def choose(n, world, batch):
            return _drop_last_for(n, world, batch, sampler_drop, self.drop_last)

        try:
            n = len(sampler.dataset)
            if n > 0 and int(batch_size) > 0:
                opts["drop_last"] = choose(n, int(sampler.num_replicas), int(batch_size))[0]
        except (AttributeError, TypeError, ValueError):
            pass  # no guess; the Loader says what is wrong with batch_size
        L = _lt.Loader(source, batch_size, **opts)
        try:
            n, world = L.dataset_size, L.stats()["world_size"]
            batch = L.batch_size if _capi.options_mirror_ok else int(batch_size)
            drop, trim = choose(n, world, batch)
            if drop != opts["drop_last"]:
                L.close()
                opts["drop_last"] = drop
                L = _lt.Loader(source, batch_size, **opts)
            if trim:
                last = len(L) - 1
                self._trim = (last, -(-n // world) - last * batch)
        except BaseException:
            L.close()
            raise
        return L

    def _check_num_classes(self, want):
        """mix='s num_classes against the dataset's: fewer columns than
        classes would leave labels without one (more are allowed: a model
        with more outputs than this dataset has classes)."""
        have = self.loader.num_classes
        if want < have:
            self.loader.close()
            raise ValueError(f"libfeed.torch.DataLoader: mix= has num_classes={want}, but the "
                             f"dataset has {have} classes: its labels 0..{have - 1} need "
                             f"num_classes >= {have}")

    # -- what DataLoader has ------------------------------------------------------------
    def __len__(self):
        return len(self.loader)

    def __iter__(self):
        self._start_epoch()
        it = iter(self.loader)
        if self._trim is not None:
            it = self._trimmed(it)
        if not self._pin:
            return it
        return self._pinned(it)

    def _trimmed(self, it):
        """Leaves out the last sample of the epoch's last batch, the one
        libfeed's uncut share has more than DistributedSampler(drop_last=True)'s
        (see _drop_last_for)."""
        index, count = self._trim
        for b in it:
            if b.index == index and len(b.sample_ids) == count:
                bad = b.bad - int(bool(b.flags[-1] & SAMPLE_REPLACED))
                b = b.replace(images=b[0][:-1], labels=b[1][:-1], sample_ids=b.sample_ids[:-1],
                              flags=b.flags[:-1], bad=bad,
                              soft_labels=None if b.soft_labels is None else b.soft_labels[:-1],
                              class_labels=b.class_labels[:-1],
                              label_lists=None if b.label_lists is None else
                              (b.label_lists[0][:-1], b.label_lists[1][:b.label_lists[0][-2]]),
                              targets=None if b.targets is None else b.targets[:-1])
            yield b

    @staticmethod
    def _pinned(it):
        for b in it:
            # The pinned copy frees the ring slot as soon as the view goes.
            soft = None if b.soft_labels is None else b.soft_labels.pin_memory()
            hard = b.class_labels.pin_memory()
            vectors = None if b.targets is None else b.targets.pin_memory()
            yield b.replace(images=b[0].pin_memory(), labels=hard if soft is None else soft,
                            soft_labels=soft, class_labels=hard, targets=vectors)

    def _start_epoch(self):
        """Where this `for` starts: a resumed position, a set_epoch(), the
        sampler's epoch, else the start of the next epoch (as a new
        DataLoader iterator), keeping what the ring already holds when the
        loader is already there."""
        if self._resume:
            self._resume = False
            return
        epoch, batch = self.loader.position()
        if self._set_epoch is not None:
            epoch, self._set_epoch = self._set_epoch, None
        elif self.sampler is not None and getattr(self.sampler, "epoch", None) is not None:
            epoch = int(self.sampler.epoch)
        elif batch != 0:
            epoch += 1  # the last `for` stopped early: a new one starts a new epoch
        try:
            self.loader.set_epoch(epoch)
        except FeedBusyError as e:
            e.message = (f"starting epoch {epoch} needs the ring back, but a tensor of an earlier "
                         "batch is still alive (the loop's variables after a `break` keep "
                         "theirs): `del images, labels` (or keep a .clone()) before the next "
                         "`for`. " + e.message)
            e.args = (e.message,)
            raise

    def set_epoch(self, epoch):
        """The next `for` delivers epoch `epoch` (DistributedSampler.set_epoch)."""
        self._set_epoch = int(epoch)
        self._resume = False

    # -- torchdata's StatefulDataLoader -------------------------------------------------
    def state_dict(self):
        """Where the next batch is (libfeed.Loader.state_dict): save it with
        the model; load_state_dict() in a new DataLoader resumes there."""
        return self.loader.state_dict()

    def load_state_dict(self, state, strict=True):
        """The next `for` continues at the saved position (mid-epoch: the rest
        of that epoch), bitwise the batches the saved run would have had."""
        self.loader.load_state_dict(state, strict=strict)
        self._resume = True
        self._set_epoch = None

    # -- libfeed's ------------------------------------------------------------------------
    def __getattr__(self, name):
        # classes, num_classes, samples_per_epoch, bad_samples(), position(), ...
        if name == "loader":
            raise AttributeError(name)
        return getattr(self.loader, name)

    def __repr__(self):
        return f"libfeed.torch.DataLoader({self._source!r}, batch_size={self.batch_size}, " \
               f"batches_per_epoch={len(self)})"


DataLoader.__module__ = "libfeed.torch"  # where users import it from
