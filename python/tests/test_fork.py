"""A loader in a fork's child (os.fork, multiprocessing's fork start method):
every call that would touch the parent's workers raises, naming whose loader it
is; close() and garbage collection return at once; the child exits cleanly; and
the parent's loader goes on undisturbed."""
import os
import signal
import time

import pytest

import libfeed

from conftest import BATCH, NIMG


def _wait(pid, seconds=60):
    """The child's exit status; a child stuck (in a futex) past `seconds` is
    killed and fails the test: exiting needs no time at all."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child did not exit within %d s" % seconds)


@pytest.mark.parametrize("how", ["close", "gc"])
def test_forked_child_is_inert_and_parent_goes_on(make_loader, dataset, how):
    L = make_loader(source=dataset, workers=2, epochs=1, shuffle=False)
    it = iter(L)
    first = next(it)
    seen = len(first[1])
    del first
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery from here, only an exit code
        code = 0
        try:
            try:
                next(it)
                code = 11  # a batch the parent's workers fill: never
            except libfeed.FeedError as e:
                if "belongs to process %d" % parent not in str(e):
                    code = 12
            if how == "close":
                L.close()
            elif how == "gc":
                del it
                del L  # the loader's last reference: collected, destroyed
                import gc
                gc.collect()
        except BaseException:
            code = 13
        os._exit(code)
    status = _wait(pid)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    for b in it:  # the parent's epoch, whole
        seen += len(b[1])
    assert seen == NIMG
    L.close()


CHILD_EXITS = r"""
import os, sys, time
import libfeed
L = libfeed.Loader(sys.argv[1], batch_size=4, workers=2, epochs=1)
it = iter(L)
next(it)
pid = os.fork()
if pid == 0:
    sys.exit(0)  # the interpreter's teardown collects the loader's copy
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    time.sleep(0.01)
else:
    os.kill(pid, 9)
    print("child stuck")
    sys.exit(3)
n = 4 + sum(len(b[1]) for b in it)
print("child", os.WEXITSTATUS(status), "parent", n)
"""


def test_forked_child_exits_cleanly_with_sys_exit(dataset, tmp_path):
    import subprocess
    import sys

    script = tmp_path / "fork_exit.py"
    script.write_text(CHILD_EXITS)
    env = dict(os.environ)  # this libfeed, wherever the tests import it from
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(libfeed.__file__)))
    env["PYTHONPATH"] = pkg + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    r = subprocess.run([sys.executable, str(script), dataset], capture_output=True, text=True, timeout=300,
                       env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split() == ["child", "0", "parent", str(NIMG)], r.stdout + r.stderr
