#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""Data-parallel training where one rank is slow on purpose (a straggler).

DistributedDataParallel over --world processes (default 3) on this machine,
gloo on the CPU (or NCCL with one GPU per rank), gradients in buckets of
--bucket-mb (default 1) so each step has several all-reduces.  Every step,
rank --slow-rank (default 2) spends --slow-ms (default 200) inside a
record_function named "slow_input_read" before its forward pass: a sleep
(a slow read from storage, as a rank on a busy disk sees), or with
--slow-work matrix products (which on a machine with fewer cores than ranks
also slow the others down).  The others wait for it in the gradient
all-reduces.  With DDP the all-reduce evens out the step times: the
straggler shows only in when each rank arrives at each collective.

Every rank is profiled; rank R is written to --out with "-rankR" before the
extension (use a folder: OUT/rank.pt.trace.json.gz gives
OUT/rank-rank0.pt.trace.json.gz ...).
"""

import os
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

import cpcap


def extra(parser):
    parser.add_argument("--world", type=int, default=3, help="processes (default 3)")
    parser.add_argument("--slow-rank", type=int, default=2)
    parser.add_argument("--slow-ms", type=float, default=200.0)
    parser.add_argument("--slow-work", action="store_true",
                        help="compute instead of sleeping while slow")
    parser.add_argument("--bucket-mb", type=float, default=1.0)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--batch", type=int, default=32)


def rank_out(path, rank):
    for ext in (".pt.trace.json.gz", ".pt.trace.json", ".json.gz", ".json"):
        if path.endswith(ext):
            return path[:-len(ext)] + "-rank%d" % rank + ext
    return path + "-rank%d" % rank


def slow_down(ms, work, a):
    """About ms milliseconds of sleep, or of matrix products with work."""
    end = time.perf_counter() + ms / 1000.0
    with torch.profiler.record_function("slow_input_read"):
        if not work:
            time.sleep(ms / 1000.0)
        while time.perf_counter() < end:
            a = torch.tanh(a @ a)
    return a


def worker(rank, args, store_path):
    cuda = args.device == "cuda"
    backend = "nccl" if cuda else "gloo"
    if cuda:
        torch.cuda.set_device(rank)
    dist.init_process_group(backend, init_method="file://" + store_path,
                            rank=rank, world_size=args.world)
    device = torch.device("cuda", rank) if cuda else torch.device("cpu")
    torch.manual_seed(args.seed)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    layers = []
    for _ in range(4):
        layers += [torch.nn.Linear(args.hidden, args.hidden), torch.nn.ReLU()]
    model = DistributedDataParallel(torch.nn.Sequential(*layers).to(device),
                                    device_ids=[rank] if cuda else None,
                                    bucket_cap_mb=args.bucket_mb)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    total = args.wait + args.warmup + args.steps
    xs = torch.randn(total, args.batch, args.hidden, device=device)
    scratch = torch.randn(128, 128, device=device) / 16

    rank_args = type(args)(**vars(args))
    rank_args.out = rank_out(args.out, rank)
    cap = cpcap.Capture(rank_args, "ddp-straggler", expect=["job-straggler"],
                        allow=["comm-bound", "low-comm-overlap"])
    loss = None
    with cap:
        for i in cap.steps():
            if rank == args.slow_rank:
                scratch = slow_down(args.slow_ms, args.slow_work, scratch)
            loss = model(xs[i]).float().square().mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    final = float(loss)
    dist.barrier()
    dist.destroy_process_group()
    cap.report(final_loss=final, rank=rank, world_size=args.world, backend=backend,
               slow_rank=args.slow_rank, slow_ms=args.slow_ms, slow_work=args.slow_work)


def main():
    args = cpcap.parse_args(__doc__.splitlines()[0], steps=4, cuda_wait=5, extra=extra)
    if args.world < 2 or not 0 <= args.slow_rank < args.world:
        raise SystemExit("--world must be >= 2 and --slow-rank below it")
    if args.device == "cuda" and torch.cuda.device_count() < args.world:
        raise SystemExit("--device cuda needs one GPU per rank; use --device cpu for gloo")
    with tempfile.TemporaryDirectory(prefix="cp-straggler-") as folder:
        store = os.path.join(folder, "rendezvous")
        mp.spawn(worker, args=(args, store), nprocs=args.world, join=True)


if __name__ == "__main__":
    main()
