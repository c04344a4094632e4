#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""A loop that stalls on host synchronisation several times per step.

Each step reads a value back in the middle of the forward pass (a
data-dependent branch on .item()), logs the loss with .item(), reads the
gradient norm with .item() and calls torch.cuda.synchronize() for "accurate
timing".  On a GPU every one of these blocks the host until the queue
drains (cudaStreamSynchronize / cudaDeviceSynchronize), so the host cannot
run ahead and the GPU idles while the host issues the next launches.

On the CPU the calls still appear (aten::item, aten::_local_scalar_dense)
but there is no device queue to wait for, so the stall itself cannot show.
"""

import torch

import cpcap


def extra(parser):
    parser.add_argument("--batch", type=int, default=0, help="0: by device")
    parser.add_argument("--hidden", type=int, default=0, help="0: by device")


def main():
    args = cpcap.parse_args(__doc__.splitlines()[0], steps=4, extra=extra)
    cuda = args.device == "cuda"
    # On a GPU each step must keep the device busy for milliseconds, so the
    # host visibly waits in every synchronising call.
    batch = args.batch or (1024 if cuda else 64)
    hidden = args.hidden or (8192 if cuda else 256)
    features = 512 if cuda else 128
    layers = [torch.nn.Linear(features, hidden), torch.nn.ReLU()]
    for _ in range(4):
        layers += [torch.nn.Linear(hidden, hidden), torch.nn.ReLU()]
    body = torch.nn.Sequential(*layers).to(args.device)
    head = torch.nn.Linear(hidden, 10).to(args.device)
    params = list(body.parameters()) + list(head.parameters())
    opt = torch.optim.SGD(params, lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    total = args.wait + args.warmup + args.steps
    # The batches are made up front and sit on the device: no input cost.
    xs = torch.randn(total, batch, features, device=args.device)
    ys = torch.randint(0, 10, (total, batch), device=args.device)

    losses = []
    with cpcap.Capture(args, "sync-stalls", expect=["sync-stall"]) as cap:
        for i in cap.steps():
            with cpcap.autocast(args.device):
                h = body(xs[i])
                # Data-dependent control flow: a device-to-host read mid-forward.
                if h.abs().max().item() > 1e4:
                    h = h / 1e4
                loss = loss_fn(head(h), ys[i])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            losses.append(loss.item())
            grad_norm = norm.item()
            cpcap.cuda_sync(args.device)
    cap.report(final_loss=losses[-1], grad_norm=grad_norm, batch=batch, hidden=hidden)


if __name__ == "__main__":
    main()
