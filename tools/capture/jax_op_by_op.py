#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""The same JAX training step run op by op, with jit disabled.

Under jax.disable_jit() every primitive of the forward pass, the backward
pass and the update is dispatched on its own, so the device runs many small
computations separated by host dispatch time: a launch-bound (host-overhead)
profile.  The batch is small so per-op device time stays short.
"""

import time

import jax
import jax.numpy as jnp

import jax_model
import jaxcap


def extra(parser):
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--layers", type=int, default=8)


def main():
    args = jaxcap.parse_args(__doc__.splitlines()[0], steps=5, extra=extra)
    dtype = jax_model.compute_dtype()
    features, classes = 128, 10
    sizes = [features] + [args.hidden] * args.layers + [classes]
    params = jax_model.init_params(args.seed, sizes)
    total = args.warmup + args.steps
    kx, ky = jax.random.split(jax.random.PRNGKey(args.seed + 1))
    xs = jax.random.normal(kx, (total, args.batch, features), jnp.float32)
    ys = jax.random.randint(ky, (total, args.batch), 0, classes)

    def run(i):
        return jax_model.sgd_step(params, xs[i], ys[i], 1e-2, dtype)

    loss = None
    with jax.disable_jit():
        # Warm-up fills the per-primitive caches.
        for i in range(args.warmup):
            params, loss = run(i)
        jax.block_until_ready(params)
        with jaxcap.Trace(args, "op-by-op", expect=["launch-bound"],
                          allow=["host-overhead", "low-utilization", "gpu-gaps"]) as tr:
            for i in range(args.warmup, total):
                t0 = time.perf_counter()
                with tr.step(i):
                    params, loss = run(i)
                tr.step_times.append(time.perf_counter() - t0)
            jax.block_until_ready(params)
    tr.report(final_loss=float(loss), batch=args.batch, hidden=args.hidden,
              layers=args.layers)


if __name__ == "__main__":
    main()
