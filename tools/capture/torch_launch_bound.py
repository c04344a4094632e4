#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""A launch-bound loop: thousands of tiny elementwise ops on a small batch.

The "model" applies a long chain of unfused elementwise operations to an
8x64 tensor, forward and backward, so each step issues thousands of
microsecond-sized kernels and the GPU spends most of the step waiting for
the host to launch the next one.  The input pipeline is trivial (one
pre-made batch already on the device), so nothing else competes.
"""

import torch

import cpcap


class TinyOps(torch.nn.Module):
    """depth blocks of scale, shift, tanh, multiply, add: five kernels each."""

    def __init__(self, depth, width):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(depth, width))
        self.shift = torch.nn.Parameter(torch.zeros(depth, width))
        self.depth = depth

    def forward(self, x):
        for i in range(self.depth):
            h = x * self.scale[i] + self.shift[i]
            x = x + 0.1 * torch.tanh(h)
        return x


def extra(parser):
    parser.add_argument("--depth", type=int, default=0,
                        help="elementwise blocks per forward (0: by device)")
    parser.add_argument("--batch", type=int, default=8)


def main():
    args = cpcap.parse_args(__doc__.splitlines()[0], steps=3, extra=extra)
    depth = args.depth or (200 if args.device == "cuda" else 150)
    width = 64
    model = TinyOps(depth, width).to(args.device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(args.batch, width, device=args.device)
    target = torch.randn(args.batch, width, device=args.device)

    loss = None
    with cpcap.Capture(args, "launch-bound", expect=["launch-bound"],
                       allow=["host-overhead"]) as cap:
        for _ in cap.steps():
            loss = torch.nn.functional.mse_loss(model(x), target)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    cap.report(final_loss=float(loss), depth=depth, batch=args.batch)


if __name__ == "__main__":
    main()
