"""The commands the package installs ([project.scripts] in pyproject.toml).

    libfeed-mkdata --out DIR --count N --seed S [--classes K] [--image FMT] ...
    libfeed-bench --data DIR [--batch N] [--workers N] [--device host|cuda] ...

run feed-mkdata (tools/mkdata/), the synthetic dataset generator, and
feedbench (bench/), the training-loop simulation, with the same arguments:
the wheel carries both in libfeed/_lib, beside libfeed.so and feed-worker.
`libfeed-mkdata --help` and `libfeed-bench --help` list their options.
"""
import os
import shutil
import sys

from . import _capi

MKDATA = "feed-mkdata"
BENCH = "feedbench"


def program_path(name):
    """The program NAME to run: the one beside the libfeed.so in use (the
    package's libfeed/_lib, also for an editable install), else in the bin/
    beside its lib/ (a build tree, an installed prefix), else on $PATH; None
    where there is none."""
    lib = _capi.library_path
    if os.path.isabs(lib):
        here = os.path.dirname(lib)
        for d in (here, os.path.join(os.path.dirname(here), "bin")):
            exe = os.path.join(d, name)
            if os.access(exe, os.X_OK) and os.path.isfile(exe):
                return exe
    return shutil.which(name)


def mkdata_path():
    """The feed-mkdata to run (program_path)."""
    return program_path(MKDATA)


def _exec(command, name):
    """Execs program NAME with this process's arguments, so its exit status
    and output are the command's."""
    exe = program_path(name)
    if exe is None:
        sys.exit(f"{command}: no {name} beside {_capi.library_path} nor on $PATH "
                 "(the wheel carries one in libfeed/_lib: reinstall libfeed)")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, [exe] + sys.argv[1:])


def mkdata():
    """libfeed-mkdata: runs feed-mkdata."""
    _exec("libfeed-mkdata", MKDATA)


def bench():
    """libfeed-bench: runs feedbench."""
    _exec("libfeed-bench", BENCH)
