#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""Host-to-device copies from pageable memory every step.

Each step copies a large batch from ordinary (pageable, not pinned) host
memory to the device with non_blocking=True, which has no effect for
pageable memory: the CUDA driver stages the data through a bounce buffer and
the copy is synchronous, so the GPU sits idle during a slow
"Memcpy HtoD (Pageable -> Device)".  The model is light, and the batches are
made up front (no DataLoader), so the copies are the bottleneck.

On the CPU the same loop copies host memory into a preallocated buffer
(aten::copy_), which shows the copies on the host thread but not the GPU
effect: a CPU capture cannot hold pageable memcpy events.
"""

import torch

import cpcap


def extra(parser):
    parser.add_argument("--mbytes", type=int, default=0,
                        help="megabytes copied per step (0: by device)")


def main():
    args = cpcap.parse_args(__doc__.splitlines()[0], steps=4, extra=extra)
    cuda = args.device == "cuda"
    mbytes = args.mbytes or (256 if cuda else 32)
    features = 1024
    rows = mbytes * 1024 * 1024 // (4 * features)
    # Two distinct pageable host batches, alternated; deliberately not pinned.
    host = [torch.randn(rows, features) for _ in range(2)]
    assert not host[0].is_pinned()
    device_batch = torch.empty(rows, features, device=args.device)
    model = torch.nn.Linear(features, 16).to(args.device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)

    loss = None
    with cpcap.Capture(args, "pageable-transfers", expect=["pageable-memcpy"],
                       allow=["transfer-bound"]) as cap:
        for i in cap.steps():
            device_batch.copy_(host[i % 2], non_blocking=True)
            # Use a slice so the compute stays small next to the copy.
            with cpcap.autocast(args.device):
                loss = model(device_batch[:4096]).float().square().mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    cap.report(final_loss=float(loss), mbytes_per_step=mbytes)


if __name__ == "__main__":
    main()
