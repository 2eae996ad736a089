"""libfeed status codes as Python exceptions.

Every non-OK status of the C library becomes a FeedError subclass carrying
.status (the number), .name ("FEED_E_IO"), .message (the detail: the error
text from create, or feed_loader_last_error()) and, for bad samples, .path.
Subclasses also derive from the nearest built-in exception, so
`except ValueError` catches bad options and `except TimeoutError` a timeout.
"""
import enum


class Status(enum.IntEnum):
    """FEED_STATUS_LIST of include/feed.h (numbers are stable)."""

    OK = 0
    END_OF_EPOCH = 1
    END_OF_DATA = 2
    E_INVALID = 3
    E_NOMEM = 4
    E_IO = 5
    E_DATASET = 6
    E_DECODE = 7
    E_TOO_LARGE = 8
    E_TIMEOUT = 9
    E_WORKER = 10
    E_RESOURCE = 11
    E_DEVICE = 12
    E_UNSUPPORTED = 13
    E_BUSY = 14
    E_INTERNAL = 15
    E_INTERRUPTED = 16

    @property
    def c_name(self):
        return "FEED_" + self.name


class FeedError(Exception):
    """A libfeed error: .status (int), .name ("FEED_E_..."), .message, .path."""

    def __init__(self, status, name=None, message="", path=None):
        self.status = int(status)
        self.name = name or _name(self.status)
        self.message = message
        self.path = path
        super().__init__(message or self.name)

    def __str__(self):
        s = f"{self.name}: {self.message}" if self.message else self.name
        if self.path and self.path not in s:
            s += f" [{self.path}]"
        return s

    def __reduce__(self):
        # What the loader sets after construction (.sample_id, .epoch, .batch,
        # .bad_samples, an OSError's .errno) goes too: errors cross processes
        # pickled (multiprocessing, torch.multiprocessing, concurrent.futures).
        state = {k: v for k, v in self.__dict__.items() if k not in ("status", "name", "message", "path")}
        if isinstance(self, OSError) and self.errno is not None:
            state["errno"] = self.errno
        return (type(self), (self.status, self.name, self.message, self.path), state or None)


class FeedInvalidError(FeedError, ValueError):
    """FEED_E_INVALID: a bad option or argument (message names the key)."""


class FeedNoMemError(FeedError, MemoryError):
    """FEED_E_NOMEM."""


class FeedIOError(FeedError, OSError):
    """FEED_E_IO."""


class FeedDatasetError(FeedError):
    """FEED_E_DATASET: the dataset is missing, empty or malformed."""


class FeedDecodeError(FeedError):
    """FEED_E_DECODE (bad_policy=fail): a bad sample. .path, .sample_id,
    .epoch, .batch say which; .bad_samples lists every report of the batch.
    Calling next again delivers that batch with the sample replaced."""

    sample_id = epoch = batch = None
    bad_samples = ()


class FeedTooLargeError(FeedDecodeError):
    """FEED_E_TOO_LARGE: a sample over max_pixels / max_file_bytes."""


class FeedTimeoutError(FeedError, TimeoutError):
    """FEED_E_TIMEOUT: no batch within the loader's timeout."""


class FeedWorkerError(FeedError):
    """FEED_E_WORKER: a worker process failed and could not be replaced."""


class FeedResourceError(FeedError):
    """FEED_E_RESOURCE: shared memory, fds, memlock, processes, worker executable."""


class FeedDeviceError(FeedError):
    """FEED_E_DEVICE: a CUDA error."""


class FeedUnsupportedError(FeedError):
    """FEED_E_UNSUPPORTED: not in this build or on this machine (e.g. CUDA)."""


class FeedBusyError(FeedError):
    """FEED_E_BUSY: too many batches held (arrays exported with DLPack are
    still alive, or seek/set_epoch with a batch held)."""


class FeedInternalError(FeedError):
    """FEED_E_INTERNAL: a bug in libfeed; please report it."""


class FeedInterruptedError(FeedError, InterruptedError):
    """FEED_E_INTERRUPTED."""


_BY_STATUS = {
    Status.E_INVALID: FeedInvalidError,
    Status.E_NOMEM: FeedNoMemError,
    Status.E_IO: FeedIOError,
    Status.E_DATASET: FeedDatasetError,
    Status.E_DECODE: FeedDecodeError,
    Status.E_TOO_LARGE: FeedTooLargeError,
    Status.E_TIMEOUT: FeedTimeoutError,
    Status.E_WORKER: FeedWorkerError,
    Status.E_RESOURCE: FeedResourceError,
    Status.E_DEVICE: FeedDeviceError,
    Status.E_UNSUPPORTED: FeedUnsupportedError,
    Status.E_BUSY: FeedBusyError,
    Status.E_INTERNAL: FeedInternalError,
    Status.E_INTERRUPTED: FeedInterruptedError,
}


def _name(status):
    try:
        return Status(status).c_name
    except ValueError:
        return "FEED_UNKNOWN"


def error_class(status):
    return _BY_STATUS.get(status, FeedError)


def make_error(status, message="", path=None, name=None):
    return error_class(status)(status, name, message, path)
