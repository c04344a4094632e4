#!/bin/sh
# submit.sh: submit chokepoint-fleet.sbatch over a list of captures
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tools/fleet/submit.sh LIST [SBATCH-OPTION...]
#
# Counts the captures of LIST (as chokepoint-fleet.sbatch reads it), and
# submits one array task per CP_FLEET_PER_TASK captures (default 1), at
# most CP_FLEET_MAX_RUNNING tasks at once when set. The options after LIST
# go to sbatch (--partition, --account, --wait...). CHOKEPOINT_DATABASE
# and CHOKEPOINT are passed on to the tasks by sbatch's default
# --export=ALL.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ ! -r "$1" ]; then
    echo "usage: $0 LIST [SBATCH-OPTION...]  (LIST: one capture a line, then KEY=VALUE labels)" >&2
    exit 2
fi
list=$1
shift
per=${CP_FLEET_PER_TASK:-1}
n=$(grep -cv '^[[:space:]]*\(#\|$\)' "$list" || true)
if [ "$n" -eq 0 ]; then
    echo "$0: $list names no capture" >&2
    exit 2
fi
tasks=$(( (n + per - 1) / per ))
throttle=${CP_FLEET_MAX_RUNNING:+%$CP_FLEET_MAX_RUNNING}
exec sbatch --array="0-$((tasks - 1))$throttle" "$@" "$here/chokepoint-fleet.sbatch" "$(realpath "$list")"
