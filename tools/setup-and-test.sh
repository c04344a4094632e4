#!/bin/bash
# tools/setup-and-test.sh [MESON TEST OPTIONS...]: installs what is missing
# (Debian 12), builds Chokepoint in build/ with warnings as errors and runs
# the whole test suite, UI tests included (under Xvfb when there is no
# display). Safe to run again. Exit status: that of `meson test`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. tools/setup-common.sh

cp_install_packages
cp_configure build -Dwerror=true
ninja -C build
cp_with_display meson test -C build --print-errorlogs "$@"
