#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""A healthy JAX training loop: one jitted step, data already on the device.

The whole step (forward, backward, SGD update) is one jax.jit computation in
bf16, the batches are put on the device ahead of time, and the host never
waits inside the loop, so the device runs back-to-back steps.
"""

import functools
import time

import jax
import jax.numpy as jnp

import jax_model
import jaxcap


def extra(parser):
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--hidden", type=int, default=4096)


def main():
    args = jaxcap.parse_args(__doc__.splitlines()[0], steps=10, extra=extra)
    dtype = jax_model.compute_dtype()
    features, classes = 512, 100
    params = jax_model.init_params(args.seed, [features, args.hidden, args.hidden,
                                               args.hidden, classes])
    step = jax.jit(functools.partial(jax_model.sgd_step, lr=1e-2, dtype=dtype))
    total = args.warmup + args.steps
    key = jax.random.PRNGKey(args.seed + 1)
    kx, ky = jax.random.split(key)
    # Every batch is created on the device before the loop.
    xs = jax.random.normal(kx, (total, args.batch, features), jnp.float32)
    ys = jax.random.randint(ky, (total, args.batch), 0, classes)

    loss = None
    for i in range(args.warmup):
        params, loss = step(params, xs[i], ys[i])
    jax.block_until_ready(params)

    with jaxcap.Trace(args, "healthy", expect=[]) as tr:
        for i in range(args.warmup, total):
            t0 = time.perf_counter()
            with tr.step(i):
                params, loss = step(params, xs[i], ys[i])
            tr.step_times.append(time.perf_counter() - t0)
        jax.block_until_ready(params)
    tr.report(final_loss=float(loss), batch=args.batch, hidden=args.hidden,
              dtype=str(jnp.dtype(dtype)))


if __name__ == "__main__":
    main()
