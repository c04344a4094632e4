#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""An input-bound training loop: slow Python transforms, num_workers=0.

Every sample is decoded and augmented element by element in Python inside
Dataset.__getitem__, and the DataLoader has no worker processes, so the
training process spends most of each step in
enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ while the model
(small on purpose) waits.
"""

import math
import random

import torch
from torch.utils.data import DataLoader, Dataset

import cpcap


class SlowImages(Dataset):
    """Fake 3x24x24 "images" produced and augmented with pure-Python loops."""

    def __init__(self, n, side=24, classes=10):
        self.n, self.side, self.classes = n, side, classes

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = random.Random(i)
        side = self.side
        # "Decode": a byte buffer turned into floats one value at a time.
        raw = bytes(rng.randrange(256) for _ in range(3 * side * side))
        pixels = [b / 255.0 for b in raw]
        # Augment: brightness, contrast, a gamma curve and a horizontal flip,
        # all in Python.
        gain, bias, gamma = rng.uniform(0.8, 1.2), rng.uniform(-0.1, 0.1), rng.uniform(0.9, 1.1)
        mean = sum(pixels) / len(pixels)
        pixels = [min(1.0, max(0.0, (p - mean) * gain + mean + bias)) for p in pixels]
        pixels = [math.pow(p, gamma) for p in pixels]
        if rng.random() < 0.5:
            rows = [pixels[r * side:(r + 1) * side][::-1] for r in range(3 * side)]
            pixels = [p for row in rows for p in row]
        x = torch.tensor(pixels, dtype=torch.float32).view(3, side, side)
        return x, i % self.classes


def extra(parser):
    parser.add_argument("--batch", type=int, default=32)


def main():
    args = cpcap.parse_args(__doc__.splitlines()[0], steps=4, extra=extra)
    total = args.wait + args.warmup + args.steps
    loader = DataLoader(SlowImages(args.batch * total), batch_size=args.batch,
                        shuffle=False, num_workers=0,
                        pin_memory=args.device == "cuda")
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(4), torch.nn.Flatten(),
        torch.nn.Linear(16 * 16, 10),
    ).to(args.device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()

    it = iter(loader)
    loss = None
    with cpcap.Capture(args, "input-bound", expect=["input-bound"],
                      allow=["dataloader-single-process"]) as cap:
        for _ in cap.steps():
            x, y = next(it)
            x = x.to(args.device, non_blocking=True)
            y = y.to(args.device, non_blocking=True)
            with cpcap.autocast(args.device):
                loss = loss_fn(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    cap.report(final_loss=float(loss), batch=args.batch, workers=0)


if __name__ == "__main__":
    main()
