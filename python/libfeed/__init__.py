"""libfeed: a data loader that keeps GPUs busy (Python binding).

    import libfeed
    with libfeed.Loader("/data/train", batch_size=256, workers=8,
                        augment="train", seed=0) as loader:
        for images, labels in loader:   # one epoch; numpy (host) or GPU arrays
            ...

A ctypes binding of libfeed.so (include/feed.h): numpy is the only
dependency. libfeed.torch gives torch tensors and a DataLoader with torch's
keywords; libfeed.keras a Keras 3 PyDataset. The shared library is found
through $LIBFEED_LIBRARY, then libfeed/_lib/ (the copy `pip install .`
builds into the package), then a build*/lib/ directory of the source tree
this package sits in, then the system's library path.
"""
from . import _capi
from ._array import Array
from ._capi import SAMPLE_FLIPPED, SAMPLE_REPLACED
from ._errors import (FeedBusyError, FeedDatasetError, FeedDecodeError, FeedDeviceError,
                      FeedError, FeedInternalError, FeedInterruptedError, FeedInvalidError,
                      FeedIOError, FeedNoMemError, FeedResourceError, FeedTimeoutError,
                      FeedTooLargeError, FeedUnsupportedError, FeedWorkerError, Status)
from ._stats import Stats
from .loader import BadSample, Batch, Loader

__version__ = "0.2.0"
#: The version of the loaded libfeed.so ("0.2.0") and where it was found.
library_version = _capi.lib.feed_version_string().decode()
library_path = _capi.library_path

__all__ = [
    "Loader", "Batch", "Array", "BadSample", "Stats", "Status", "SAMPLE_REPLACED", "SAMPLE_FLIPPED",
    "FeedError", "FeedInvalidError", "FeedNoMemError", "FeedIOError", "FeedDatasetError",
    "FeedDecodeError", "FeedTooLargeError", "FeedTimeoutError", "FeedWorkerError",
    "FeedResourceError", "FeedDeviceError", "FeedUnsupportedError", "FeedBusyError",
    "FeedInternalError", "FeedInterruptedError", "library_version", "library_path",
]
