"""The commands the package installs ([project.scripts] in pyproject.toml).

    libfeed-mkdata --out DIR --count N --seed S [--classes K] [--image FMT] ...

runs feed-mkdata (tools/mkdata/), the synthetic dataset generator, with the
same arguments: the wheel carries it in libfeed/_lib, beside libfeed.so and
feed-worker. `libfeed-mkdata --help` lists its options.
"""
import os
import shutil
import sys

from . import _capi

MKDATA = "feed-mkdata"


def mkdata_path():
    """The feed-mkdata to run: the one beside the libfeed.so in use (the
    package's libfeed/_lib, also for an editable install), else in the bin/
    beside its lib/ (a build tree, an installed prefix), else on $PATH; None
    where there is none."""
    lib = _capi.library_path
    if os.path.isabs(lib):
        here = os.path.dirname(lib)
        for d in (here, os.path.join(os.path.dirname(here), "bin")):
            exe = os.path.join(d, MKDATA)
            if os.access(exe, os.X_OK) and os.path.isfile(exe):
                return exe
    return shutil.which(MKDATA)


def mkdata():
    """libfeed-mkdata: execs feed-mkdata with this process's arguments, so
    its exit status and output are the command's."""
    exe = mkdata_path()
    if exe is None:
        sys.exit(f"libfeed-mkdata: no {MKDATA} beside {_capi.library_path} nor on $PATH "
                 "(the wheel carries one in libfeed/_lib: reinstall libfeed)")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, [exe] + sys.argv[1:])
