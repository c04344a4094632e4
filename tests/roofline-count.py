#!/usr/bin/env python3
# roofline-count.py: an independent count of each kernel's FLOPs, bytes and
# place on the roofline, over the raw events of a capture
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# XPlane (decoded with tests/xspace_wire.py, not the C reader): the events
# of TPU "XLA Ops" lines and of GPU stream lines with a `flops` stat (on the
# event or its metadata), summed per name; bytes from `bytes_accessed`; the
# device's peaks from its plane stats (peak_teraflops_per_second, and
# memory_bandwidth in B/s or peak_hbm_bw_gigabytes_per_second). Times are
# the line's timestamp_ns plus floor(offset_ps / 1000), as the readers do.
#
# Kineto JSON: a kernel ("cat": "kernel", not NCCL) takes the figures of
# the innermost op around its launch call (matched by args.correlation)
# that has a `flops` argument or shapes the formulas below fit: a kernel
# that computes its FLOPs and bytes by its share of the op's computing
# kernels' time; a kernel that only moves or lays out data (moves_data()
# below: a transpose, copy or fill launched inside a convolution...) no
# FLOPs, and bytes by its share of all the op's kernel time. Peaks: the datasheet figures of the H100
# SXM ("NVIDIA H100 80GB HBM3") and the MI300X, none for other devices.
#
# Prints {"kernels": {name: {...}}, "host_ops": {name: {...}}}, for
# tests/test-roofline.c.

import decimal
import gzip
import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xspace_wire import fields, planes, s64, text  # noqa: E402

# The H100 SXM datasheet: dense TFLOP/s per precision and HBM3 3.35 TB/s.
H100 = {"fp32": 67.0, "tf32": 494.5, "16": 989.5, "fp8": 1979.0, "int8": 1979.0, "bw": 3350.0}
# The MI300X data sheet: matrix peaks and HBM3 5.3 TB/s.
MI300X = {"fp32": 163.4, "tf32": 653.7, "16": 1307.4, "fp8": 2614.9, "int8": 2614.9, "bw": 5300.0}
KNOWN = {"NVIDIA H100 80GB HBM3": H100, "AMD Instinct MI300X": MI300X}

FLOATS = ("fp32", "16", "fp8")

TYPES = {
    "float": (4, "fp32"), "double": (8, "fp32"), "c10::Half": (2, "16"), "c10::BFloat16": (2, "16"),
    "c10::Float8_e4m3fn": (1, "fp8"), "c10::Float8_e5m2": (1, "fp8"),
    "signed char": (1, "int8"), "unsigned char": (1, "int8"), "bool": (1, "int8"),
    "short int": (2, "int8"), "int": (4, "int8"), "long int": (8, "int8"),
}

ELEMENTWISE = set("""add add_ sub sub_ mul mul_ div div_ neg abs relu relu_ gelu gelu_ silu silu_
sigmoid sigmoid_ tanh tanh_ exp exp_ log sqrt rsqrt pow clamp clamp_ maximum minimum
threshold_backward gelu_backward silu_backward sigmoid_backward tanh_backward hardtanh hardtanh_
leaky_relu where addcmul_ addcdiv_ lerp_""".split())


# Words that name a kernel moving or laying out data, where a word of the
# name starts (after a non-alphanumeric character, or a capital after a
# small letter or digit) and not after "non" (NonZeroOp counts); never in
# GEMM, convolution, attention or collective kernels, whatever their
# template arguments say.
MOVES = ("transpose", "permute", "nchw2nhwc", "nhwc2nchw", "nchwtonhwc", "nhwctonchw",
         "copy", "fill", "zero", "memset", "memcpy", "subtensoropwith")
# GEMM and convolution kernels (any case), tensor-core kernels (XProf's
# name patterns and Chokepoint's additions, as written), collectives.
GEMM_LIKE = ("gemm", "gemv", "matmul", "conv1d", "conv2d", "conv3d", "convolve", "convolution", "_conv_",
             "wgrad", "dgrad", "fprop", "xmma", "cutlass", "nvjet", "cublas")
TENSOR_CORE = ("16816", "c1688", "conv1x1", "conv2d_c1_k1", "dgrad_1x1_stride_2x2", "direct_group",
               "first_layer_wgrad_kernel", "h1688", "h884", "hmma", "i16832", "i8816", "s884", "s1688",
               "gmma", "tensorop", "nvjet", "flash_fwd", "flash_bwd", "fmha")
INDUCTOR = re.compile(r"^(?:triton_(?:poi|red|per|tem|for)_fused_|cpp_fused_)(.+)_\d+$")
MOVE_OPS = {"_to_copy", "_unsafe_view", "alias", "as_strided", "cat", "clone", "constant_pad_nd",
            "convert_element_type", "copy", "detach", "expand", "fill", "flip", "full", "new_zeros",
            "permute", "repeat", "reshape", "select", "slice", "split", "split_with_sizes", "squeeze",
            "stack", "t", "transpose", "unbind", "unsqueeze", "view", "zeros", "zeros_like"}


def only_move_ops(text):
    """Whether text splits at '_' into MOVE_OPS (ops may hold '_' themselves)."""
    parts = text.split("_")
    ok = [False] * (len(parts) + 1)
    ok[len(parts)] = True
    for i in range(len(parts) - 1, -1, -1):
        ok[i] = any("_".join(parts[i:j]) in MOVE_OPS and ok[j] for j in range(i + 1, len(parts) + 1))
    return bool(text) and ok[0]


def moves_data(name):
    low = name.lower()
    if (any(p in low for p in GEMM_LIKE) or any(p in name for p in TENSOR_CORE) or name.startswith("Cijk_")
            or low.startswith(("nccl", "rccl", "hccl")) or "ncclKernel" in name or "ncclDevKernel" in name):
        return False
    if name.startswith(("Memcpy", "Memset", "memcpy ", "memset ", "hipMemcpy ", "hipMemset ")):
        return True
    m = INDUCTOR.match(name)
    if m:
        return only_move_ops(m.group(1))
    for word in MOVES:
        for m in re.finditer(re.escape(word), low):
            i = m.start()
            if low[max(i - 3, 0):i] == "non":
                continue
            if i == 0 or not name[i - 1].isalnum() or (name[i].isupper() and (name[i - 1].islower() or
                                                                              name[i - 1].isdigit())):
                return True
    return False


def ns(value):
    return int((decimal.Decimal(str(value)) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def prod(xs):
    r = 1
    for x in xs:
        r *= x
    return r


def finish(st, peak, bw):
    """Achieved figures and the percent of the ceiling, as docs/diagnose-json.md defines them."""
    t = st["timed"] * 1e-9
    st["achieved_tflops"] = st["flops"] / t / 1e12 if st["timed"] > 0 else None
    st["intensity"] = st["flops_b"] / st["bytes"] if st["bytes"] > 0 else None
    gbs = st["bytes"] / (st["bytes_time"] * 1e-9) / 1e9 if st["bytes_time"] > 0 and st["bytes"] > 0 else None
    st["achieved_gbps"] = gbs
    st["percent"] = None
    st["bound"] = "unknown"
    if peak and bw and st["intensity"] is not None:
        st["bound"] = "memory" if st["intensity"] < peak * 1000.0 / bw else "compute"
    if peak:
        ceiling = peak if (not bw or st["intensity"] is None) else min(peak, st["intensity"] * bw / 1000.0)
        if st["flops"] > 0 and st["achieved_tflops"] is not None and ceiling > 0:
            st["percent"] = 100.0 * st["achieved_tflops"] / ceiling
        elif st["timed"] > 0 and st["flops"] == 0 and gbs is not None and bw:
            st["percent"] = 100.0 * gbs / bw
    st["peak_tflops"] = peak
    st["bandwidth_gbps"] = bw
    return st


def fresh():
    return {"count": 0, "time": 0, "timed": 0, "flops": 0.0, "bytes": 0.0, "flops_b": 0.0,
            "bytes_time": 0, "source": "none", "precision": None}


def add(st, dur, flops, nbytes, source, precision):
    st["timed"] += dur
    st["flops"] += flops
    if nbytes is not None:
        st["bytes"] += nbytes
        st["flops_b"] += flops
        st["bytes_time"] += dur
    order = ["none", "stats", "flops-argument", "estimate"]
    if order.index(source) > order.index(st["source"]):
        st["source"] = source
    if st["precision"] is None:
        st["precision"] = precision


# XPlane

def stat_value(b, span, names):
    mid, val = 0, None
    for sf, sw, sv in fields(b, *span):
        if sf == 1:
            mid = s64(sv)
        elif sf == 2:
            val = struct.unpack("<d", sv)[0]
        elif sf == 3:
            val = sv
        elif sf == 4:
            val = s64(sv)
        elif sf == 5:
            val = text(b, sv)
    return names.get(mid), val


COLLECTIVE = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute", "send", "recv")


def xplane(path):
    b = open(path, "rb").read()
    if b[:2] == b"\x1f\x8b":
        b = gzip.decompress(b)
    kernels = {}
    peaks = {}
    for p in planes(b):
        name = p["name"]
        gpu = name.startswith("/device:GPU:")
        if not (gpu or name.startswith("/device:TPU:")):
            continue
        pst = dict(stat_value(b, s, p["stats"]) for s in p["pstats"])
        peak = pst.get("peak_teraflops_per_second")
        bw = pst.get("memory_bandwidth")
        bw = bw / 1e9 if bw else (pst.get("peak_hbm_bw_gigabytes_per_second") or None)
        for lv in p["lines"]:
            lname, base, evs = "", 0, []
            for lf, lw, lvv in fields(b, *lv):
                if lf == 2:
                    lname = text(b, lvv)
                elif lf == 3:
                    base = s64(lvv)
                elif lf == 4:
                    evs.append(lvv)
            if not gpu and lname != "XLA Ops":
                continue
            for ev in evs:
                mid, off, dur, stats = 0, 0, 0, []
                for ef, ew, evv in fields(b, *ev):
                    if ef == 1:
                        mid = s64(evv)
                    elif ef == 2:
                        off = s64(evv)
                    elif ef == 3:
                        dur = s64(evv)
                    elif ef == 4:
                        stats.append(evv)
                m = p["emeta"].get(mid, {"name": "", "display": "", "stats": []})
                st = dict(stat_value(b, s, p["stats"]) for s in m["stats"])
                st.update(dict(stat_value(b, s, p["stats"]) for s in stats))
                ename = m["display"] or m["name"]
                base_name = re.sub(r"\.\d+$", "", ename)
                if base_name.startswith(COLLECTIVE) or base_name.endswith(("-done", "-start")):
                    continue
                if gpu and "flops" not in st:
                    continue
                d = (base + (off + max(dur, 0)) // 1000) - (base + off // 1000)
                k = kernels.setdefault(ename, fresh())
                k["count"] += 1
                k["time"] += d
                if "flops" in st:
                    add(k, d, float(st["flops"]), float(st["bytes_accessed"]) if "bytes_accessed" in st else None,
                        "stats", "16")
                peaks[ename] = (peak, bw)
    return {"kernels": {n: finish(k, *peaks[n]) for n, k in kernels.items()}, "host_ops": {}}


# Kineto

def shapes_of(args):
    dims = args.get("Input Dims") or []
    types = args.get("Input type") or []
    conc = args.get("Concrete Inputs") or []
    out = []
    for i, d in enumerate(dims):
        t = types[i] if i < len(types) else None
        size, prec = TYPES.get(t, (0, None))
        tensor = isinstance(d, list) and size > 0 and all(isinstance(x, int) for x in d)
        out.append({"dims": d if tensor else None, "size": size, "prec": prec,
                    "conc": conc[i] if i < len(conc) else None})
    return out


def nbytes(ins, idx, out_numel, out_like):
    total = 0
    for i in idx:
        if ins[i]["dims"] is None:
            return None
        total += prod(ins[i]["dims"]) * ins[i]["size"]
    return total + out_numel * ins[out_like]["size"]


def ints(text_, n):
    v = [int(x) for x in text_.strip().strip("[]").split(",") if x.strip()]
    return v * n if len(v) == 1 else v


def formula(name, ins):
    """(flops, bytes, precision) from the shapes, or None."""
    if not name.startswith("aten::"):
        return None
    op = name[6:]
    t = [x["dims"] is not None for x in ins]
    if op in ("mm", "bmm", "matmul", "addmm", "baddbmm", "linear"):
        a, b = (1, 2) if op in ("addmm", "baddbmm") else (0, 1)
        if len(ins) <= b or not (t[a] and t[b]):
            return None
        A, B = ins[a]["dims"], ins[b]["dims"]
        if op == "linear":
            k, n = B[1], B[0]
            m = prod(A) // k
            batch = 1
        else:
            m = A[-2] if len(A) >= 2 else 1
            k = A[-1]
            n = B[-1] if len(B) >= 2 else 1
            ba, bb = A[:-2], B[:-2]
            width = max(len(ba), len(bb))
            ba = [1] * (width - len(ba)) + list(ba)
            bb = [1] * (width - len(bb)) + list(bb)
            batch = prod(max(x, y) for x, y in zip(ba, bb))
        idx = [a, b] + ([0] if a == 1 and t[0] else []) + ([2] if op == "linear" and len(t) > 2 and t[2] else [])
        return 2 * batch * m * n * k, nbytes(ins, idx, batch * m * n, a), ins[a]["prec"]
    conv_args = {"conv1d": (3, 4, 5, 6), "conv2d": (3, 4, 5, 6), "conv3d": (3, 4, 5, 6),
                 "convolution": (3, 4, 5, 8), "_convolution": (3, 4, 5, 8),
                 "cudnn_convolution": (3, 2, 4, 5), "miopen_convolution": (4, 3, 5, 6)}
    if op in conv_args:
        si, pi, di, gi = conv_args[op]
        if op in ("convolution", "_convolution") and ins[6]["conc"] != "False":
            return None
        x, w = ins[0]["dims"], ins[1]["dims"]
        nsp = len(x) - 2
        s, pd, dl = ints(ins[si]["conc"], nsp), ints(ins[pi]["conc"], nsp), ints(ins[di]["conc"], nsp)
        out = [(x[2 + i] + 2 * pd[i] - dl[i] * (w[2 + i] - 1) - 1) // s[i] + 1 for i in range(nsp)]
        idx = [0, 1] + ([2] if op not in ("cudnn_convolution",) and t[2] and len(ins[2]["dims"]) == 1 else [])
        f = 2 * x[0] * w[0] * prod(out) * w[1] * prod(w[2:])
        return f, nbytes(ins, idx, x[0] * w[0] * prod(out), 0), ins[0]["prec"]
    attn = {"scaled_dot_product_attention": (False, 5), "_scaled_dot_product_flash_attention": (False, 4),
            "_scaled_dot_product_efficient_attention": (False, 6),
            "_scaled_dot_product_cudnn_attention": (False, 6),
            "_flash_attention_forward": (True, 8), "_efficient_attention_forward": (True, None)}
    if op in attn:
        seq_first, ci = attn[op]
        q, k, v = ins[0]["dims"], ins[1]["dims"], ins[2]["dims"]
        if seq_first:
            bb, ll, hh, ee = q
            ss = k[1]
        else:
            bb, hh, ll, ee = q
            ss = k[2]
        ev = v[3]
        f = 2 * bb * hh * ll * ss * (ee + ev)
        if ci is not None and ci < len(ins) and ins[ci]["conc"] == "True":
            f /= 2
        return f, nbytes(ins, [0, 1, 2], bb * hh * ll * ev, 0), ins[0]["prec"]
    if op in ELEMENTWISE:
        tens = [i for i in range(len(ins)) if t[i]]
        if not tens:
            return None
        rank = max(len(ins[i]["dims"]) for i in tens)
        shape = [1] * rank
        for i in tens:
            d = ins[i]["dims"]
            for j, x in enumerate(d):
                shape[rank - len(d) + j] = max(shape[rank - len(d) + j], x)
        n = prod(shape)
        prec = ins[tens[0]]["prec"]
        if prec not in FLOATS:
            prec = next((ins[i]["prec"] for i in tens if ins[i]["prec"] in FLOATS), prec)
        return n, nbytes(ins, tens, n, tens[0]), prec
    return None


def op_figures(e):
    args = e.get("args") or {}
    shaped = None
    if "Input Dims" in args:
        try:
            shaped = formula(e["name"], shapes_of(args))
        except (IndexError, KeyError, TypeError, ValueError, ZeroDivisionError):
            shaped = None
    fl = args.get("flops")
    if isinstance(fl, (int, float)) and not isinstance(fl, bool) and fl >= 0:
        prec = shaped[2] if shaped else None
        return float(fl), shaped[1] if shaped else None, "flops-argument", prec
    if shaped:
        return float(shaped[0]), shaped[1], "estimate", shaped[2]
    return None


def kineto(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    props = doc.get("deviceProperties") if isinstance(doc, dict) else None
    peak_row = None
    if props:
        peak_row = KNOWN.get(props[0].get("name"))
    threads = {}
    runtime = {}
    kernels = []
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e:
            continue
        cat = str(e.get("cat", "")).lower()
        start = ns(e["ts"])
        end = start + max(ns(e.get("dur", 0)), 0)
        args = e.get("args") or {}
        if cat == "kernel":
            if "nccl" not in e.get("name", "").lower():
                kernels.append((e, start, end))
        elif cat in ("cuda_runtime", "cuda_driver"):
            if "correlation" in args:
                runtime[args["correlation"]] = (e.get("pid"), e.get("tid"), start)
        elif cat == "cpu_op":
            threads.setdefault((e.get("pid"), e.get("tid")), []).append((start, end, e))
    figs = {}
    attributed = {}
    computing = {}
    pending = []
    out = {}
    for e, start, end in kernels:
        name = e["name"]
        st = out.setdefault(name, fresh())
        st["count"] += 1
        st["time"] += end - start
        r = runtime.get((e.get("args") or {}).get("correlation"))
        if r is None or end - start <= 0:
            continue
        around = [o for o in threads.get((r[0], r[1]), []) if o[0] <= r[2] < o[1]]
        around.sort(key=lambda o: (-o[0], o[1]))
        for o in around:
            key = id(o[2])
            if key not in figs:
                figs[key] = (op_figures(o[2]), o[2]["name"])
            if figs[key][0] is not None:
                attributed[key] = attributed.get(key, 0) + (end - start)
                if not moves_data(name):
                    computing[key] = computing.get(key, 0) + (end - start)
                pending.append((name, end - start, key))
                break
    for name, dur, key in pending:
        (fl, by, src, prec), _ = figs[key]
        if moves_data(name):
            share = dur / attributed[key]
            add(out[name], dur, 0.0, by * share if by is not None else None, src, prec)
        else:
            share = dur / computing[key]
            add(out[name], dur, fl * share, by * share if by is not None else None, src, prec)
    ops = {}
    for key, t in attributed.items():
        (fl, by, src, prec), oname = figs[key]
        st = ops.setdefault(oname, fresh())
        st["count"] += 1
        st["time"] += t
        add(st, t, fl, by, src, prec)

    def peaks(st):
        if peak_row is None:
            return None, None
        return peak_row.get(st["precision"] or "fp32"), peak_row["bw"]

    return {"kernels": {n: finish(k, *peaks(k)) for n, k in out.items()},
            "host_ops": {n: finish(k, *peaks(k)) for n, k in ops.items()}}


def main(path):
    with open(path, "rb") as f:
        head = f.read(2)
    if head == b"\x1f\x8b":
        with gzip.open(path, "rb") as f:
            head = f.read(64).lstrip()[:1]
    else:
        with open(path, "rb") as f:
            head = f.read(64).lstrip()[:1]
    r = kineto(path) if head in (b"{", b"[") else xplane(path)
    json.dump(r, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
