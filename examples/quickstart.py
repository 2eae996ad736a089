# quickstart.py: two epochs of augmented batches from an image folder.
#   libfeed-mkdata --out data/demo --count 2000 --seed 1
#   python3 quickstart.py data/demo
import sys

import libfeed

source = sys.argv[1] if len(sys.argv) > 1 else "data/demo"
total = 0
with libfeed.Loader(source, batch_size=64, workers=2, augment="train", seed=0) as loader:
    for epoch in range(2):
        images_seen = 0
        for images, labels in loader:  # one epoch: numpy uint8 (N, 224, 224, 3), int32 (N,)
            images_seen += len(labels)  # your training step here; a kept images array keeps its batch
        print(f"epoch {epoch}: {images_seen} images")
        total += images_seen
    print(f"{total} images in 2 epochs, {loader.stats().images_per_sec:.0f} images/s")
