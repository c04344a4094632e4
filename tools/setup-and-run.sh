#!/bin/bash
# tools/setup-and-run.sh [FILE...]: installs what is missing (Debian 12),
# builds Chokepoint in build/ and opens the bundled sample capture (or the
# files given). Safe to run again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. tools/setup-common.sh

cp_install_packages
cp_configure build
ninja -C build

if [ $# -eq 0 ]; then
    sample=$root/data/samples/sample-training.pt.trace.json.gz
    if [ -f "$sample" ]; then
        set -- "$sample"
    else
        echo "The sample capture $sample is missing; starting empty." >&2
    fi
fi

# meson devenv points GSettings at the schema compiled in build/.
files=()
for f in "$@"; do
    files+=("$(realpath -- "$f")")
done
exec meson devenv -C build chokepoint ${files[@]+"${files[@]}"}
