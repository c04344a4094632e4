#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""Two-process data-parallel training dominated by gradient all-reduce.

DistributedDataParallel over a model with large weight matrices and a tiny
batch: each step computes little but all-reduces every gradient, so
communication takes most of the step.  Two processes are started on this
machine: with --device cuda and at least two GPUs they use NCCL, one GPU
each; otherwise (--device cpu) they use gloo on the CPU.  NCCL cannot put two
ranks on one GPU, so a one-GPU machine records the gloo variant only.

Rank 0 is profiled and written to --out; --all-ranks also profiles rank 1
and writes it next to it with "-rank1" before the extension.
"""

import contextlib
import copy
import os
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

import cpcap

WORLD = 2


def extra(parser):
    parser.add_argument("--all-ranks", action="store_true",
                        help="profile every rank, not only rank 0")
    parser.add_argument("--hidden", type=int, default=0, help="0: by device")
    parser.add_argument("--batch", type=int, default=4)


def rank_out(path, rank):
    if rank == 0:
        return path
    for ext in (".json.gz", ".json"):
        if path.endswith(ext):
            return path[:-len(ext)] + "-rank%d" % rank + ext
    return path + "-rank%d" % rank


class _Unprofiled:
    """Stands in for cpcap.Capture on ranks that are not recorded."""

    def __init__(self, args):
        self.args = args

    def steps(self):
        return range(self.args.wait + self.args.warmup + self.args.steps)


def worker(rank, args, store_path):
    cuda = args.device == "cuda"
    backend = "nccl" if cuda else "gloo"
    if cuda:
        torch.cuda.set_device(rank)
    # A file rendezvous: no TCP store, so it works on builds without libuv
    # and on machines with no usable network.
    dist.init_process_group(backend, init_method="file://" + store_path,
                            rank=rank, world_size=WORLD)
    device = torch.device("cuda", rank) if cuda else torch.device("cpu")
    torch.manual_seed(args.seed)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    hidden = args.hidden or (8192 if cuda else 1024)
    layers = []
    for _ in range(4):
        layers += [torch.nn.Linear(hidden, hidden), torch.nn.ReLU()]
    model = DistributedDataParallel(
        torch.nn.Sequential(*layers).to(device),
        device_ids=[rank] if cuda else None)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    total = args.wait + args.warmup + args.steps
    xs = torch.randn(total, args.batch, hidden, device=device)

    profiled = rank == 0 or args.all_ranks
    if profiled:
        rank_args = copy.copy(args)
        rank_args.out = rank_out(args.out, rank)
        cap = cpcap.Capture(rank_args, "comm-bound", expect=["comm-bound"],
                            allow=["low-comm-overlap"])
    else:
        cap = _Unprofiled(args)
    loss = None
    with (cap if profiled else contextlib.nullcontext()):
        for i in cap.steps():
            with cpcap.autocast(args.device):
                loss = model(xs[i]).float().square().mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    final = float(loss)
    dist.barrier()
    dist.destroy_process_group()
    if profiled:
        cap.report(final_loss=final, rank=rank, world_size=WORLD,
                   backend=backend, hidden=hidden, batch=args.batch)


def main():
    args = cpcap.parse_args(__doc__.splitlines()[0], steps=3, cuda_wait=10, extra=extra)
    if args.device == "cuda" and torch.cuda.device_count() < WORLD:
        raise SystemExit("%s: --device cuda needs %d GPUs (NCCL puts one rank on "
                         "each); this machine has %d. Use --device cpu for gloo."
                         % (os.path.basename(__file__), WORLD, torch.cuda.device_count()))
    if not dist.is_available():
        raise SystemExit("this PyTorch build has no torch.distributed")
    with tempfile.TemporaryDirectory(prefix="cp-comm-") as folder:
        store = os.path.join(folder, "rendezvous")
        mp.spawn(worker, args=(args, store), nprocs=WORLD, join=True)


if __name__ == "__main__":
    main()
