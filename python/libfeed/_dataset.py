"""What a Loader's dataset holds, from the C index: sizes, classes, the
(path, label) of each sample, and the files left out of it.
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
        "ARRAY.npy[i]"."""
        self._handle()
        return _Samples(self)

    @property
    def dataset_size(self):
        """Samples in the dataset (all ranks together)."""
        return int(_lib.feed_loader_dataset_size(self._handle()))
