#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""Large fp32 matmuls with TF32 and mixed precision turned off.

A matmul-heavy MLP trained in plain float32, with
torch.backends.cuda.matmul.allow_tf32 = False and cudnn TF32 off, so on a
tensor-core GPU the GEMMs run as fp32 (SIMT/FFMA) kernels and the tensor
cores stay unused.  The input pipeline is healthy (worker processes, pinned
memory) so the missing mixed precision is the only problem.

On the CPU the loop runs the same fp32 aten::addmm / aten::mm ops; there are
no kernel names in a CPU capture, so the tensor-core check cannot apply.
"""

import torch
from torch.utils.data import DataLoader, TensorDataset

import cpcap


def extra(parser):
    parser.add_argument("--workers", type=int, default=0,
                        help="DataLoader workers (0: 4 on a GPU, 2 on the CPU)")
    parser.add_argument("--batch", type=int, default=0, help="0: by device")
    parser.add_argument("--hidden", type=int, default=0, help="0: by device")


def main():
    args = cpcap.parse_args(__doc__.splitlines()[0], steps=4, cuda_wait=30, extra=extra)
    cuda = args.device == "cuda"
    # Keep every GEMM in full fp32 precision.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if hasattr(torch, "set_float32_matmul_precision"):
        torch.set_float32_matmul_precision("highest")
    batch = args.batch or (2048 if cuda else 256)
    hidden = args.hidden or (4096 if cuda else 2048)
    workers = args.workers or (4 if cuda else 2)
    features = 256
    total = args.wait + args.warmup + args.steps
    g = torch.Generator().manual_seed(args.seed)
    data = TensorDataset(torch.randn(batch * (total + 2), features, generator=g),
                         torch.randint(0, 10, (batch * (total + 2),), generator=g))
    options = dict(batch_size=batch, shuffle=True, drop_last=True,
                   num_workers=workers, pin_memory=cuda)
    if workers > 0:
        options.update(prefetch_factor=4, persistent_workers=True)
    loader = DataLoader(data, **options)
    model = torch.nn.Sequential(
        torch.nn.Linear(features, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, 10),
    ).to(args.device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()

    it = iter(loader)
    loss = None
    with cpcap.Capture(args, "fp32-no-tensor-cores", expect=["no-mixed-precision"]) as cap:
        for _ in cap.steps():
            x, y = next(it)
            x = x.to(args.device, non_blocking=True)
            y = y.to(args.device, non_blocking=True)
            loss = loss_fn(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    cap.report(final_loss=float(loss), batch=batch, hidden=hidden,
               tf32=torch.backends.cuda.matmul.allow_tf32)


if __name__ == "__main__":
    main()
