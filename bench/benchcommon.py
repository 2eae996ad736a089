"""What the side-by-side comparison scripts (compare_torch.py, compare_dali.py)
share: the normalisation they all ask for, the machine's description that
goes into their JSON, and writing that JSON."""
import json
import os
import platform

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


def write_json(path, res):
    """res as indented JSON at path (nothing when path is empty)."""
    if path:
        with open(path, "w") as f:
            json.dump(res, f, indent=2)
            f.write("\n")
