# tools/setup-common.sh: shared by setup-and-run.sh, setup-and-test.sh and
# .ci/run. Source it; it defines functions and changes nothing by itself.
#
# Target: a fresh Debian 12 machine. Everything is idempotent: packages
# already installed are not asked for again, an existing build folder is
# reused, and sudo is used only when not running as root.

# Debian packages that building, running and testing Chokepoint need.
CP_DEBIAN_PACKAGES=(
    gcc libc6-dev pkg-config meson ninja-build python3
    libglib2.0-dev libglib2.0-bin libgtk-4-dev libadwaita-1-dev
    libjson-glib-dev libzstd-dev zlib1g-dev libcairo2-dev libpango1.0-dev
    libsqlite3-dev nettle-dev libpq-dev
    gettext desktop-file-utils appstream shared-mime-info
    librsvg2-common adwaita-icon-theme fonts-cantarell
    xvfb xauth dbus-daemon
)

# What the tests need on top: test-prometheus, test-history-postgres and
# test-fleet-slurm run the real servers; test-mcp-sdk drives chokepoint mcp
# with the MCP SDK's own client, installed from npm; test-compare-window
# holds Ctrl and Shift through the X server with xdotool.
CP_DEBIAN_TEST_PACKAGES=(
    prometheus prometheus-pushgateway
    postgresql slurm-wlm munge
    nodejs npm
    xdotool xxhash
)

cp_sudo () {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    else
        sudo "$@"
    fi
}

# Installs the packages of CP_DEBIAN_PACKAGES, and those named as
# arguments (CP_DEBIAN_TEST_PACKAGES), that are missing.
cp_install_packages () {
    local missing=() pkg
    for pkg in "${CP_DEBIAN_PACKAGES[@]}" "$@"; do
        # NodeSource's nodejs package carries npm and conflicts with
        # Debian's: an npm that runs is enough.
        if [ "$pkg" = npm ] && command -v npm >/dev/null 2>&1; then
            continue
        fi
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
            missing+=("$pkg")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return 0
    fi
    echo "Installing: ${missing[*]}"
    cp_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q &&
        cp_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends "${missing[@]}"
}

# cp_configure DIR [MESON OPTIONS...]: sets up DIR, or applies the options to
# an existing one.
cp_configure () {
    local dir=$1
    shift
    if [ -f "$dir/build.ninja" ]; then
        if [ $# -gt 0 ]; then
            meson configure "$dir" "$@"
        fi
    else
        meson setup "$dir" "$@"
    fi
}

# cp_with_display COMMAND...: runs COMMAND with a display. Uses the one there
# is, else starts Xvfb for the command's duration (UI tests skip without
# any display).
cp_with_display () {
    if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ] || ! command -v Xvfb >/dev/null; then
        "$@"
        return
    fi
    cp_start_xvfb || { "$@"; return; }
    local status=0
    "$@" || status=$?
    cp_stop_xvfb
    return $status
}

# cp_start_xvfb: starts Xvfb on a free display and exports DISPLAY.
cp_start_xvfb () {
    local numfile
    numfile=$(mktemp)
    Xvfb -displayfd 9 -screen 0 1600x1000x24 -nolisten tcp 9>"$numfile" >/dev/null 2>&1 &
    CP_XVFB_PID=$!
    local i
    # Up to a minute: a loaded machine can take that long to start Xvfb.
    for i in $(seq 1 600); do
        if [ -s "$numfile" ]; then
            export DISPLAY=":$(head -n1 "$numfile")"
            rm -f "$numfile"
            return 0
        fi
        sleep 0.1
    done
    rm -f "$numfile"
    echo "Xvfb did not start" >&2
    kill "$CP_XVFB_PID" 2>/dev/null
    unset CP_XVFB_PID
    return 1
}

cp_stop_xvfb () {
    if [ -n "${CP_XVFB_PID:-}" ]; then
        kill "$CP_XVFB_PID" 2>/dev/null
        wait "$CP_XVFB_PID" 2>/dev/null
        unset CP_XVFB_PID DISPLAY
    fi
}
