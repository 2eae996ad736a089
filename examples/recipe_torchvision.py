"""recipe_torchvision.py - torchvision's ResNet-50 training recipe, fed by libfeed.

The transform and the batch mix are torchvision's own objects, built as
references/classification (presets.py, train.py) builds them for
--train-crop-size 176 --auto-augment ta_wide --random-erase 0.1
--mixup-alpha 0.2 --cutmix-alpha 1.0 --label-smoothing 0.1;
libfeed.torch.DataLoader translates them into its C pipeline (a TypeError names
any step it cannot reproduce exactly) and yields (images, soft targets).

    libfeed-mkdata --out data/demo --count 256 --seed 1
    python3 examples/recipe_torchvision.py data/demo [--steps N]

Needs torch and torchvision >= 0.16 (transforms.v2). A small convolutional
model stands in for ResNet-50 so that it runs on a CPU in seconds.
"""
import argparse

import torch
import torchvision
from torchvision.transforms import v2

import libfeed.torch

ap = argparse.ArgumentParser()
ap.add_argument("data")
ap.add_argument("--steps", type=int, default=10)
ap.add_argument("--batch", type=int, default=32)
args = ap.parse_args()

classes = torchvision.datasets.ImageFolder(args.data).classes
train_tf = v2.Compose([
    v2.RandomResizedCrop(176, antialias=True),
    v2.RandomHorizontalFlip(0.5),
    v2.TrivialAugmentWide(interpolation=v2.InterpolationMode.BILINEAR),
    v2.PILToTensor(),
    v2.ToDtype(torch.float, scale=True),
    v2.Normalize(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)),
    v2.RandomErasing(0.1),
])
mix = v2.RandomChoice([v2.MixUp(alpha=0.2, num_classes=len(classes)),
                       v2.CutMix(alpha=1.0, num_classes=len(classes))])
dataset = torchvision.datasets.ImageFolder(args.data, transform=train_tf)
loader = libfeed.torch.DataLoader(dataset, batch_size=args.batch, shuffle=True, num_workers=2,
                                  drop_last=True, mix=mix)

model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 5, stride=4), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
    torch.nn.Flatten(), torch.nn.Linear(16, len(classes)))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.1)  # takes the soft targets as they are

step = 0
while step < args.steps:
    for images, targets in loader:  # float32 (N, 3, 176, 176); float32 (N, classes), rows sum to 1
        assert targets.shape == (len(images), len(classes))
        loss = loss_fn(model(images), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step == args.steps:
            break
    del images, targets  # free the ring slot the last batch views before the next epoch
print(f"{step} steps, last loss {loss.item():.3f}")
loader.close()
