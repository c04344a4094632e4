#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Chokepoint authors
#
# Records the CPU captures with a PyTorch that has Kineto, on a Debian 12 host.
#
#   record_cpu_debian13.sh [--root DIR] OUTDIR
#
# Debian 12's python3-torch (1.13) is built without Kineto: its
# torch.profiler falls back to the legacy autograd profiler, whose Chrome
# export is a bare JSON array (pid "CPU functions", tid 1, no categories, no
# schemaVersion), not Kineto output.  Debian 13's python3-torch (2.6) has
# Kineto.  This script builds a minimal Debian 13 chroot in DIR (default
# /var/tmp/chokepoint-debian13; needs root, debootstrap and access to the
# Debian mirror the first time), installs python3-torch and OpenBLAS there
# (without OpenBLAS the fp32 matmuls use the slow reference BLAS), and runs
# record_all.sh --cpu inside it with the repository and OUTDIR bind-mounted.
# Everything it mounts is unmounted when it exits.

set -eu

root=/var/tmp/chokepoint-debian13
mirror=http://deb.debian.org/debian
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root=$2; shift ;;
    -h|--help) sed -n '5,18p' "$0"; exit 0 ;;
    -*) echo "record_cpu_debian13.sh: unknown option $1" >&2; exit 2 ;;
    *) out=$1 ;;
  esac
  shift
done
if [ -z "$out" ]; then
  echo "usage: record_cpu_debian13.sh [--root DIR] OUTDIR" >&2
  exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "record_cpu_debian13.sh: needs root (debootstrap, chroot, mount)" >&2
  exit 1
fi

repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

if ! [ -x "$root/usr/bin/python3" ] || ! chroot "$root" python3 -c 'import torch' 2>/dev/null; then
  if ! [ -x "$root/usr/bin/apt-get" ]; then
    debootstrap --variant=minbase trixie "$root" "$mirror"
  fi
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  chroot "$root" sh -c 'export DEBIAN_FRONTEND=noninteractive;
    apt-get update && apt-get install -y --no-install-recommends python3-torch libopenblas0-pthread'
fi

mounted=()
cleanup () {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[$i]}" || umount -l "${mounted[$i]}" || true
  done
}
trap cleanup EXIT
bind () {
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mounted+=("$2")
}
mkdir -p "$root/proc"
mount -t proc proc "$root/proc"
mounted+=("$root/proc")
bind /dev "$root/dev"
# DataLoader workers hand batches over through shared memory.
bind /dev/shm "$root/dev/shm"
bind "$repo" "$root/src/chokepoint"
bind "$out" "$root/out"

chroot "$root" bash /src/chokepoint/tools/capture/record_all.sh --cpu /out
