"""What a Loader's dataset holds, from the C index: sizes, classes, the
(path, label) of each sample, and the files left out of it; and
loader.dataset, the same as an object shaped like torchvision's ImageFolder.
"""
import collections.abc
import ctypes
import operator
import os

from . import _capi

_lib = _capi.lib

# feed_loader_sample_info's largest path (feed.h), NUL included.
_SAMPLE_PATH_MAX = 2 * _capi.FEED_PATH_MAX + 32


class _Samples(collections.abc.Sequence):
    """Loader.samples: (path, label) by sample id, from the C index."""

    __slots__ = ("_loader",)

    def __init__(self, loader):
        self._loader = loader

    def __len__(self):
        return int(_lib.feed_loader_num_samples(self._loader._handle()))

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(n))]
        i = operator.index(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"libfeed: sample {i} is out of range (0..{n - 1})")
        buf = ctypes.create_string_buffer(_SAMPLE_PATH_MAX)
        label = ctypes.c_int32()
        st = _lib.feed_loader_sample_info(self._loader._handle(), i, buf, len(buf), ctypes.byref(label))
        if st:
            raise self._loader._error(st)
        return (os.fsdecode(buf.value), int(label.value))

    def __repr__(self):
        return f"<libfeed samples: {len(self)}>"


def _read_labels(loader):
    """Every sample's label, in id order (feed_loader_sample_info without the path)."""
    h = loader._handle()
    label = ctypes.c_int32()
    out = []
    for i in range(int(_lib.feed_loader_num_samples(h))):
        st = _lib.feed_loader_sample_info(h, i, None, 0, ctypes.byref(label))
        if st:
            raise loader._error(st)
        out.append(int(label.value))
    return out


class Dataset:
    """loader.dataset: the whole dataset a loader reads, with what
    torchvision.datasets.ImageFolder has, from libfeed's C index (nothing
    is scanned again in Python):

      len(ds)          samples in the whole dataset, all ranks together (not
                       this rank's share, which is loader.samples_per_epoch):
                       as torch's DataLoader with a DistributedSampler, where
                       len(loader.dataset) is the whole dataset too
      samples, imgs    (path, class index) of each sample id: a lazy sequence
                       (see Loader.samples; a .npy row's path is "ARRAY.npy[i]",
                       a shard member's "SHARD.tar:KEY", its WebDataset key;
                       its bytes: Loader.sample_range(i))
      targets          [class index of each sample id], a list built on first
                       use (one C call per sample) and kept by the loader
      classes          the class names: an ImageFolder's folder names; a
                       file list, tar shards or a .npy array have bare
                       integer labels, so their classes are the label numbers
                       as strings, "0" .. str(num_classes - 1)
      class_to_idx     {class name: index} for those classes
      root             the loader's source

    len() and the classes are read when the object is made, so they still
    answer after the loader is closed; samples and targets read the C index
    and need the loader open (ValueError otherwise), unless targets was
    already read.
    """

    def __init__(self, loader):
        h = loader._handle()
        self._loader = loader
        self._len = int(_lib.feed_loader_num_samples(h))
        n = int(_lib.feed_loader_num_classes(h))
        names = loader.classes if n else []
        # No names (file list, shards, .npy): the label numbers.
        self.classes = names if names is not None else [str(i) for i in range(n)]
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self.root = loader._settings.get("source")

    def __len__(self):
        return self._len

    @property
    def samples(self):
        return _Samples(self._loader)

    imgs = samples  # torchvision's other name for them

    @property
    def targets(self):
        L = self._loader
        t = getattr(L, "_targets", None)
        if t is None:
            t = L._targets = _read_labels(L)
        return t

    def __repr__(self):
        return (f"<libfeed dataset: {self._len} samples, {len(self.classes)} classes, "
                f"root={self.root!r}>")


class DatasetInfo:
    """The Loader's view of its dataset (a part of Loader: it uses the
    loader's _handle())."""

    def __len__(self):
        return int(_lib.feed_loader_batches_per_epoch(self._handle()))

    @property
    def samples_per_epoch(self):
        return int(_lib.feed_loader_samples_per_epoch(self._handle()))

    @property
    def num_classes(self):
        return int(_lib.feed_loader_num_classes(self._handle()))

    @property
    def classes(self):
        """Class names (ImageFolder folder names), or None for a file list or tar shards."""
        h = self._handle()
        out = []
        for i in range(_lib.feed_loader_num_classes(h)):
            n = _lib.feed_loader_class_name(h, i)
            if n is None:
                return None
            out.append(n.decode(errors="surrogateescape"))
        return out

    @property
    def skipped_files(self):
        """Files in the ImageFolder's class folders left out for their extension
        (not .jpg/.jpeg/.jpe/.png/.webp): their count. Create also says so on
        stderr (unless report_bad=0); skipped_examples names the first few."""
        return int(_lib.feed_loader_skipped_files(self._handle(), None))

    @property
    def skipped_examples(self):
        """The first few skipped files (paths relative to the root), a list."""
        first = ctypes.c_char_p()
        _lib.feed_loader_skipped_files(self._handle(), ctypes.byref(first))
        text = (first.value or b"").decode(errors="surrogateescape")
        return text.split(", ") if text else []

    @property
    def shard_problems(self):
        """Tar shard members left out because they could not be indexed (a
        bad header, a sample without a label, ...): their count (0 for other
        sources). Create reports each on stderr; shard_problem_first is the
        first report."""
        return int(_lib.feed_loader_shard_problems(self._handle(), None))

    @property
    def shard_problem_first(self):
        """The first left-out member's report ("SHARD: member 'NAME' at
        offset N: what"), or "" when there was none."""
        first = ctypes.c_char_p()
        _lib.feed_loader_shard_problems(self._handle(), ctypes.byref(first))
        return (first.value or b"").decode(errors="surrogateescape")

    @property
    def class_to_idx(self):
        """{class name: label}, as torchvision's ImageFolder.class_to_idx; {} for a
        file list or an array, which have labels but no names."""
        return {c: i for i, c in enumerate(self.classes or ())}

    @property
    def samples(self):
        """(path, label) of every sample id, as ImageFolder.samples: a read-only
        sequence read from the C index on demand (feed_loader_sample_info), so
        it costs nothing until used. Paths are absolute; a .npy source's are
        "ARRAY.npy[i]", a tar shard member's "SHARD.tar:KEY" (its WebDataset
        key, as bad-sample reports name it)."""
        self._handle()
        return _Samples(self)

    def sample_range(self, i):
        """(file, start, end): the bytes sample i is read from, a slice of the
        file (absolute path): a tar shard member's data, a .npy row; end is
        None for a whole file (ImageFolder, file list)."""
        n = int(_lib.feed_loader_num_samples(self._handle()))
        i = operator.index(i)
        if not 0 <= i < n:
            raise IndexError(f"libfeed: sample {i} is out of range (0..{n - 1})")
        buf = ctypes.create_string_buffer(_SAMPLE_PATH_MAX)
        off, length = ctypes.c_uint64(), ctypes.c_uint64()
        st = _lib.feed_loader_sample_range(self._handle(), i, buf, len(buf), ctypes.byref(off),
                                           ctypes.byref(length))
        if st:
            raise self._error(st)
        end = None if length.value == 2**64 - 1 else off.value + length.value
        return (os.fsdecode(buf.value), int(off.value), end)

    @property
    def dataset(self):
        """The whole dataset as an object shaped like torchvision's
        ImageFolder (libfeed._dataset.Dataset): len() (all ranks' samples),
        samples, targets, classes, class_to_idx. Made on each access; cheap
        (the samples and targets are read from the C index when used)."""
        return Dataset(self)

    @property
    def dataset_size(self):
        """Samples in the dataset (all ranks together)."""
        return int(_lib.feed_loader_dataset_size(self._handle()))
