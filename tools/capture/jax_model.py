# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
"""The small MLP and SGD step that the JAX capture programs train (plain JAX)."""

import functools

import jax
import jax.numpy as jnp
import numpy as np


def init_params(seed, sizes):
    keys = jax.random.split(jax.random.PRNGKey(seed), len(sizes) - 1)
    params = []
    for key, fan_in, fan_out in zip(keys, sizes[:-1], sizes[1:]):
        w = jax.random.normal(key, (fan_in, fan_out), jnp.float32) / np.sqrt(fan_in)
        params.append((w, jnp.zeros((fan_out,), jnp.float32)))
    return params


def forward(params, x, dtype):
    h = x.astype(dtype)
    for i, (w, b) in enumerate(params):
        h = h @ w.astype(dtype) + b.astype(dtype)
        if i < len(params) - 1:
            h = jax.nn.gelu(h)
    return h.astype(jnp.float32)


def loss_fn(params, x, y, dtype):
    logp = jax.nn.log_softmax(forward(params, x, dtype))
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


def sgd_step(params, x, y, lr, dtype):
    """One step: returns (new params, loss).  Jit it, or call it as is."""
    loss, grads = jax.value_and_grad(functools.partial(loss_fn, dtype=dtype))(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return params, loss


def compute_dtype():
    """bf16 on accelerators, f32 on the CPU backend."""
    return jnp.bfloat16 if jax.default_backend() in ("gpu", "tpu", "cuda", "rocm") else jnp.float32
