#!/bin/sh
# run-ui-test.sh PROGRAM [ARGS...]: runs a UI test in its own D-Bus session.
# Without a display it reports a skip (exit 77), so the suite passes on
# machines without one; .ci/run provides Xvfb.
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "SKIP: no display; run under Xvfb (see .ci/run)"
    exit 77
fi
if ! command -v dbus-run-session >/dev/null 2>&1; then
    echo "SKIP: dbus-run-session is not installed"
    exit 77
fi
# Without a session bus GTK warns, and fatal warnings abort.
exec dbus-run-session -- "$@"
