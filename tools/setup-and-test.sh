#!/bin/bash
# tools/setup-and-test.sh [MESON TEST OPTIONS...]: installs what is missing
# (Debian 12), builds Chokepoint in build/ with warnings as errors and runs
# the whole test suite, UI tests included (under Xvfb when there is no
# display). Safe to run again. Exit status: that of `meson test`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. tools/setup-common.sh

cp_install_packages "${CP_DEBIAN_TEST_PACKAGES[@]}"
cp_configure build -Dwerror=true
ninja -C build
status=0
cp_with_display meson test -C build --print-errorlogs "$@" || status=$?

# The tests on real captures skip without them: say so, and how to run them.
traces=$(meson introspect --buildoptions build |
         python3 -c 'import json, sys; print(next((o["value"] for o in json.load(sys.stdin) if o["name"] == "shared_traces"), ""))')
[ -n "$traces" ] || traces=$root/../shared/traces
if [ ! -d "$traces" ]; then
    echo "Note: $traces is missing, so the tests on real captures were skipped." >&2
    echo "      Put the captures there, or run: meson configure build -Dshared_traces=DIR" >&2
    echo "      (README, Quick start), then this script again." >&2
fi
exit "$status"
