"""What the Python benchmarks share: the normalisation the side-by-side
comparisons (compare_torch.py, compare_dali.py) ask for, the machine's
description that goes into their JSON, the provenance every result records
(the command and the commit), and writing that JSON."""
import json
import os
import platform
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ImageNet's, libfeed's defaults: every loader compared normalises with them.
MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def loadavg():
    """The 1-minute load average (-1 where there is none): results quote it,
    since the machines are shared."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return -1.0


def provenance():
    """The command that is running and the commit it runs (git rev-parse
    HEAD of the checkout; "dirty" says whether tracked files differ from it,
    None where git cannot tell): the "provenance" object of every result."""
    cmd = " ".join([os.path.basename(sys.executable)] + sys.argv)
    commit = dirty = None
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=10).stdout.strip() or None
        if commit:
            st = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=10)
            dirty = bool(st.stdout.strip()) if st.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        pass
    return {"command": cmd, "commit": commit, "dirty": dirty}


def write_json(path, res):
    """res as indented JSON at path (nothing when path is empty), with a
    "provenance" object added."""
    if path:
        res = dict(res)
        res.setdefault("provenance", provenance())
        with open(path, "w") as f:
            json.dump(res, f, indent=2)
            f.write("\n")
