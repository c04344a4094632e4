#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
#
# Records every capture program in this folder into one output folder, as one
# prepared command that stays well inside a 10-minute limit.
#
#   record_all.sh [--cpu] [--python PY] [--budget SECONDS] OUTDIR
#
# Default (GPU) mode: the PyTorch programs run with --device cuda; the
# two-process run uses NCCL when there are two GPUs and gloo on the CPU
# otherwise; the JAX programs run when `import jax` works.
# --cpu: the PyTorch programs run with --device cpu and one intra-op thread
# (steadier timings on a small shared machine); JAX is skipped.
#
# OUTDIR receives the captures (torch-<scenario>-<device>.json.gz,
# jax-<scenario>/ TensorBoard runs plus jax-<scenario>.xplane.pb.gz),
# environment.txt, record.log (one JSON line per capture, or the error) and
# summary.txt (check_capture.py on every PyTorch capture).  Each program has
# its own time limit, and programs that would start after --budget seconds
# (default 480) are skipped, so the whole run ends in time even when
# something hangs.  Exit status: 0 when every program that ran succeeded.

set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=gpu
python=python3
budget=480
out=

while [ $# -gt 0 ]; do
  case "$1" in
    --cpu) mode=cpu ;;
    --python) python=$2; shift ;;
    --budget) budget=$2; shift ;;
    -h|--help) sed -n '5,22p' "$0"; exit 0 ;;
    -*) echo "record_all.sh: unknown option $1" >&2; exit 2 ;;
    *) out=$1 ;;
  esac
  shift
done
if [ -z "$out" ]; then
  echo "usage: record_all.sh [--cpu] [--python PY] [--budget SECONDS] OUTDIR" >&2
  exit 2
fi
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
log=$out/record.log
: > "$log"
start=$(date +%s)
failures=0

if ! "$python" -c 'import torch' 2>/dev/null; then
  echo "record_all.sh: $python cannot import torch" >&2
  exit 1
fi
if [ "$mode" = gpu ] && ! "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'; then
  echo "record_all.sh: no CUDA device visible to PyTorch; use --cpu" >&2
  exit 1
fi

{
  echo "recorded: $(date -u +%Y-%m-%dT%H:%M:%SZ) mode=$mode"
  echo "os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME") $(uname -r)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') x $(nproc)"
  "$python" - <<'EOF'
import platform, torch
print("python:", platform.python_version())
print("torch:", torch.__version__, "kineto:",
      getattr(torch.autograd, "kineto_available", lambda: False)())
if torch.cuda.is_available():
    print("cuda:", torch.version.cuda, "devices:", torch.cuda.device_count())
    for i in range(torch.cuda.device_count()):
        print("gpu %d:" % i, torch.cuda.get_device_name(i))
try:
    import jax
    print("jax:", jax.__version__, jax.default_backend(), jax.devices())
except Exception as exc:
    print("jax: not available (%s)" % type(exc).__name__)
EOF
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  fi
} > "$out/environment.txt" 2>&1
cat "$out/environment.txt"

# run NAME LIMIT PROGRAM ARGS...: runs one program under a time limit, unless
# the budget is spent, and appends its JSON line (or the failure) to the log.
run () {
  local name=$1 limit=$2
  shift 2
  local now elapsed rc
  now=$(date +%s)
  elapsed=$((now - start))
  if [ $((elapsed + limit)) -gt "$budget" ]; then
    echo "{\"capture\": \"$name\", \"skipped\": \"budget: ${elapsed}s used of ${budget}s\"}" >> "$log"
    echo "== $name: skipped (budget)"
    return
  fi
  echo "== $name (limit ${limit}s, ${elapsed}s used)"
  (cd "$here" && timeout --kill-after=10 "$limit" "$python" "$@") \
    > "$out/$name.stdout" 2> "$out/$name.stderr"
  rc=$?
  if [ $rc -eq 0 ]; then
    grep '^{' "$out/$name.stdout" >> "$log"
    rm -f "$out/$name.stdout"
    [ -s "$out/$name.stderr" ] || rm -f "$out/$name.stderr"
  else
    failures=$((failures + 1))
    echo "{\"capture\": \"$name\", \"failed\": $rc}" >> "$log"
    echo "   failed ($rc); last lines of $name.stderr:"
    tail -5 "$out/$name.stderr" | sed 's/^/   /'
  fi
}

if [ "$mode" = cpu ]; then
  dev=cpu
  common=(--device cpu --threads 1)
else
  dev=cuda
  common=(--device cuda)
fi

run "torch-input-bound-$dev" 90 torch_input_bound.py "${common[@]}" --out "$out/torch-input-bound-$dev.json.gz"
run "torch-healthy-$dev" 120 torch_healthy.py "${common[@]}" --out "$out/torch-healthy-$dev.json.gz"
run "torch-launch-bound-$dev" 90 torch_launch_bound.py "${common[@]}" --out "$out/torch-launch-bound-$dev.json.gz"
run "torch-sync-stalls-$dev" 90 torch_sync_stalls.py "${common[@]}" --out "$out/torch-sync-stalls-$dev.json.gz"
run "torch-pageable-copies-$dev" 90 torch_pageable_copies.py "${common[@]}" --out "$out/torch-pageable-copies-$dev.json.gz"
run "torch-fp32-no-tensor-cores-$dev" 120 torch_fp32_no_tensor_cores.py "${common[@]}" --out "$out/torch-fp32-no-tensor-cores-$dev.json.gz"

gpus=0
if [ "$mode" = gpu ]; then
  gpus=$("$python" -c 'import torch; print(torch.cuda.device_count())')
fi
if [ "$gpus" -ge 2 ]; then
  run "torch-comm-bound-nccl-cuda" 120 torch_comm_bound.py --device cuda --all-ranks --out "$out/torch-comm-bound-nccl-cuda.json.gz"
else
  # NCCL needs one GPU per rank: with fewer than two, record gloo on the CPU.
  run "torch-comm-bound-gloo-cpu" 120 torch_comm_bound.py --device cpu --threads 1 --out "$out/torch-comm-bound-gloo-cpu.json.gz"
fi
# A job of three ranks, one slow on purpose: a folder of per-rank captures.
run "torch-ddp-straggler-gloo-cpu" 150 torch_ddp_straggler.py --device cpu --threads 1 \
  --out "$out/torch-ddp-straggler-gloo-cpu/rank.pt.trace.json.gz"

if [ "$mode" = gpu ]; then
  if "$python" -c 'import jax' 2>/dev/null; then
    for s in healthy op_by_op input_starved; do
      n=jax-${s//_/-}
      run "$n" 120 "jax_$s.py" --out "$out/$n" --gz "$out/$n.xplane.pb.gz"
    done
  else
    echo "{\"capture\": \"jax-*\", \"skipped\": \"import jax failed\"}" >> "$log"
    echo "== jax: skipped (import jax failed)"
  fi
fi

shopt -s nullglob
captures=("$out"/torch-*.json.gz)
if [ ${#captures[@]} -gt 0 ]; then
  "$python" "$here/check_capture.py" "${captures[@]}" > "$out/summary.txt" 2>&1 || failures=$((failures + 1))
  cat "$out/summary.txt"
fi
ls -l "$out"
echo "record_all.sh: done in $(( $(date +%s) - start ))s, $failures failure(s)"
[ $failures -eq 0 ]
