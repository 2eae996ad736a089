#!/usr/bin/env python3
"""webdataset_meta.py - WebDataset shards whose samples carry metadata: each
sample's KEY.json (a record) and KEY.txt (a caption) come with its image as
batch.meta, decoded as asked (parsed JSON, text). The loop here checks each
record against its caption and its image's label and counts the words, as
a captioning or filtering step would use them.

    python3 examples/webdataset_meta.py [SHARDS] [--epochs N]

SHARDS is a shard pattern or list ("data/shard-{000000..000003}.tar",
"data/shards.txt") whose samples have .json and .txt members; without it a
small set is made with feed-mkdata --format tar --meta in a temporary folder.
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import libfeed
except ImportError:  # running from a source checkout: use its python/ package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import libfeed


def make_shards(out):
    exe = shutil.which("feed-mkdata") or shutil.which("libfeed-mkdata")
    build = os.environ.get("LIBFEED_BUILD_DIR")
    if build:
        exe = os.path.join(build, "bin", "feed-mkdata")
    subprocess.run([exe, "--out", out, "--count", "60", "--seed", "2", "--classes", "5", "--format", "tar",
                    "--shard-size", "16", "--meta", "--quiet"], check=True)
    return os.path.join(out, "shards.txt")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shards", nargs="?", help="shards with KEY.json and KEY.txt members")
    ap.add_argument("--epochs", type=int, default=2)
    a = ap.parse_args()
    tmp = None
    source = a.shards
    if source is None:
        tmp = tempfile.mkdtemp(prefix="wds-meta-")
        source = make_shards(os.path.join(tmp, "data"))
    words = collections.Counter()
    samples = mismatched = 0
    try:
        with libfeed.Loader(source, batch_size=8, size=64, workers=2, augment="train", seed=0,
                            epochs=a.epochs, meta_members=["json", "txt"],
                            meta_decode={"json": "json", "txt": "str"}) as loader:
            for epoch in range(a.epochs):
                for batch in loader:
                    records, captions = batch.meta["json"], batch.meta["txt"]
                    for record, caption, label in zip(records, captions, batch.labels):
                        # the record, the caption and the label all belong to the image delivered
                        mismatched += record["caption"] != caption or record["class"] != int(label)
                        words.update(caption.split(":", 1)[1].split())
                    samples += len(records)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    top = ", ".join(f"{w} {n}" for w, n in words.most_common(3))
    print(f"{samples} samples in {a.epochs} epochs, {mismatched} records that differ from their caption or "
          f"label; most common words: {top}")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
