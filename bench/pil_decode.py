#!/usr/bin/env python3
"""PIL's decode time on a list of files, for decodebench --format png|webp.

    pil_decode.py --list FILE --seconds S

FILE holds one path a line. The files are read into memory first (no I/O is
measured), decoded once each (warm-up, and every one must decode), then
decoded in turn for S seconds of this thread's CPU time the way
torchvision's default loader does it: Image.open(...).convert("RGB").
Prints one JSON object: images per second of thread CPU time and of wall
time, the count, and PIL's version.
"""
import argparse
import io
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", required=True)
    ap.add_argument("--seconds", type=float, default=1.0)
    a = ap.parse_args()
    try:
        import PIL
        from PIL import Image
    except ImportError:
        print(json.dumps({"error": "no PIL (pip install pillow)"}))
        return 0
    with open(a.list) as f:
        paths = [line.rstrip("\n") for line in f if line.strip()]
    data = []
    for p in paths:
        with open(p, "rb") as f:
            data.append(f.read())

    def decode(b):
        return Image.open(io.BytesIO(b)).convert("RGB")

    for b in data:
        decode(b).tobytes()[:1]
    n = 0
    c0, w0 = time.thread_time(), time.perf_counter()
    while n % 8 or time.thread_time() - c0 < a.seconds:
        decode(data[n % len(data)])
        n += 1
    cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
    print(json.dumps({"img_s_cpu": n / cpu, "img_s_wall": n / wall, "images": n,
                      "pillow": PIL.__version__}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
