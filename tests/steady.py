# steady.py: the steady-state window's warm-up rule, written again for the
# oracles (tests/*-count.py) from its description in docs/diagnose-json.md
# ("window"), not from the C code.
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later

WARMUP_RATIO = 1.5        # a warm-up iteration is at least this times the median
WARMUP_PAIR_RATIO = 4.0   # of two iterations, the first when it is this times the second


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return 0.0
    return float(v[n // 2]) if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def outliers(durations):
    """The modified z-score |0.6745 (x - median) / MAD| > 3.5, the MAD
    floored at 1% of the median (and at 1 ns); needs 3 values."""
    n = len(durations)
    if n < 3:
        return [False] * n
    med = median(durations)
    mad = median([abs(round(x - med)) for x in durations])
    mad = max(mad, 0.01 * med, 1.0)
    return [abs(0.6745 * (x - med) / mad) > 3.5 for x in durations]


def warmup_count(durations):
    """How many leading iterations are a warm-up: with 3 or more, the
    leading outliers at least WARMUP_RATIO times the median, at most a third
    of them (at least one) and leaving two; with two, the first when it is
    WARMUP_PAIR_RATIO times the second or more."""
    n = len(durations)
    if n == 2:
        return 1 if durations[1] > 0 and durations[0] >= WARMUP_PAIR_RATIO * durations[1] else 0
    if n < 3:
        return 0
    out = outliers(durations)
    med = median(durations)
    k = 0
    while k < max(1, n // 3) and n - (k + 1) >= 2 and out[k] and durations[k] >= WARMUP_RATIO * med:
        k += 1
    return k
