#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""A jitted JAX step starved by a slow host-side input loop.

The step itself is one jitted computation, but each batch is built on the
host just before it is needed: samples are generated and augmented one by
one in Python/NumPy, then copied with jax.device_put.  The device finishes
its step in a fraction of the time the host needs for the next batch, so it
sits idle most of each step: an input-bound profile.
"""

import functools
import time

import jax
import jax.numpy as jnp
import numpy as np

import jax_model
import jaxcap


def make_batch(rng, batch, features, classes):
    """Builds one batch sample by sample, with per-element Python work."""
    xs = np.empty((batch, features), np.float32)
    ys = np.empty((batch,), np.int32)
    for n in range(batch):
        raw = rng.integers(0, 256, size=features).tolist()
        gain, bias = rng.uniform(0.8, 1.2), rng.uniform(-0.1, 0.1)
        mean = sum(raw) / len(raw)
        xs[n] = [((v - mean) * gain + mean) / 255.0 + bias for v in raw]
        ys[n] = int(rng.integers(0, classes))
    return xs, ys


def extra(parser):
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=1024)


def main():
    args = jaxcap.parse_args(__doc__.splitlines()[0], steps=6, extra=extra)
    dtype = jax_model.compute_dtype()
    features, classes = 512, 10
    params = jax_model.init_params(args.seed, [features, args.hidden, args.hidden, classes])
    step = jax.jit(functools.partial(jax_model.sgd_step, lr=1e-2, dtype=dtype))
    rng = np.random.default_rng(args.seed)
    total = args.warmup + args.steps

    loss = None
    for i in range(args.warmup):
        x, y = make_batch(rng, args.batch, features, classes)
        params, loss = step(params, jax.device_put(x), jax.device_put(y))
    jax.block_until_ready(params)

    host_s = 0.0
    with jaxcap.Trace(args, "input-starved", expect=["input-bound"],
                      allow=["low-utilization", "gpu-gaps"]) as tr:
        for i in range(args.warmup, total):
            t0 = time.perf_counter()
            with tr.step(i):
                with jax.profiler.TraceAnnotation("make_batch"):
                    x, y = make_batch(rng, args.batch, features, classes)
                host_s += time.perf_counter() - t0
                params, loss = step(params, jax.device_put(x), jax.device_put(y))
            tr.step_times.append(time.perf_counter() - t0)
        jax.block_until_ready(params)
    tr.report(final_loss=float(loss), batch=args.batch, hidden=args.hidden,
              host_input_ms_per_step=1000.0 * host_s / args.steps)


if __name__ == "__main__":
    main()
