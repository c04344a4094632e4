#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""A well-fed training loop: the reference capture with no bottleneck.

Mixed precision (bf16 autocast, fp16 with a GradScaler on GPUs without bf16),
a DataLoader with worker processes, prefetching and pinned memory, and
non-blocking host-to-device copies.  No host synchronisation inside the loop:
the loss is read once, after the profiled steps.
"""

import torch
from torch.utils.data import DataLoader, Dataset

import cpcap


class Samples(Dataset):
    """Pre-made samples: fetching one is an index, so loading costs nothing."""

    def __init__(self, n, features, classes):
        g = torch.Generator().manual_seed(1)
        self.x = torch.randn(n, features, generator=g)
        self.y = torch.randint(0, classes, (n,), generator=g)

    def __len__(self):
        return self.x.shape[0]

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def extra(parser):
    parser.add_argument("--workers", type=int, default=0,
                        help="DataLoader workers (0: 4 on a GPU, 2 on the CPU)")
    parser.add_argument("--batch", type=int, default=0, help="0: by device")
    parser.add_argument("--hidden", type=int, default=0, help="0: by device")


def main():
    args = cpcap.parse_args(__doc__.splitlines()[0], steps=4, cuda_wait=30, extra=extra)
    cuda = args.device == "cuda"
    # The step must cost far more than handing over one batch (about 1 ms of
    # the training process's time), or the DataLoader share is no longer small.
    batch = args.batch or (4096 if cuda else 256)
    hidden = args.hidden or (8192 if cuda else 2048)
    workers = args.workers or (4 if cuda else 2)
    features, classes = 256, 100
    amp_dtype = cpcap.amp_dtype(args.device)
    total = args.wait + args.warmup + args.steps
    data = Samples(batch * (total + 2), features, classes)
    options = dict(batch_size=batch, shuffle=True, drop_last=True,
                   num_workers=workers, pin_memory=cuda)
    if workers > 0:
        options.update(prefetch_factor=4, persistent_workers=True)
    loader = DataLoader(data, **options)

    model = torch.nn.Sequential(
        torch.nn.Linear(features, hidden), torch.nn.GELU(),
        torch.nn.Linear(hidden, hidden), torch.nn.GELU(),
        torch.nn.Linear(hidden, hidden), torch.nn.GELU(),
        torch.nn.Linear(hidden, classes),
    ).to(args.device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scaler = None
    if cuda and amp_dtype == torch.float16:
        if hasattr(torch.amp, "GradScaler"):
            scaler = torch.amp.GradScaler("cuda")
        else:
            scaler = torch.cuda.amp.GradScaler()
    loss_fn = torch.nn.CrossEntropyLoss()

    # The workers start here; the unrecorded wait step absorbs their start-up.
    it = iter(loader)
    loss = None
    with cpcap.Capture(args, "healthy", expect=[]) as cap:
        for _ in cap.steps():
            x, y = next(it)
            x = x.to(args.device, non_blocking=True)
            y = y.to(args.device, non_blocking=True)
            with cpcap.autocast(args.device):
                loss = loss_fn(model(x), y)
            opt.zero_grad(set_to_none=True)
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
            else:
                loss.backward()
                opt.step()
    cap.report(final_loss=float(loss), amp=str(amp_dtype), batch=batch,
               hidden=hidden, workers=workers)


if __name__ == "__main__":
    main()
