#!/bin/sh
# run-ui-test.sh PROGRAM [ARGS...]: runs a UI test in its own D-Bus session.
# Without a display it reports a skip (exit 77), so the suite passes on
# machines without one; .ci/run provides Xvfb.
#
# The bus is private (session-bus.conf beside this script): it activates no
# services, so no portal or daemon outlives the test holding meson's pipes
# open, and nothing is left running after it.
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "SKIP: no display; run under Xvfb (see .ci/run)"
    exit 77
fi
if ! command -v dbus-run-session >/dev/null 2>&1; then
    echo "SKIP: dbus-run-session is not installed"
    exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
# Without a session bus GTK warns, and fatal warnings abort. No
# accessibility bus either: it would be one more activated service.
GTK_A11Y=${GTK_A11Y:-none}
export GTK_A11Y
exec dbus-run-session --config-file="$here/session-bus.conf" -- "$@"
