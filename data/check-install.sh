#!/bin/sh
# check-install.sh MESON BUILD_DIR PREFIX BINDIR DATADIR LOCALEDIR APP_ID LINGUAS CHECK_CLAIMS
# Installs the build into a temporary DESTDIR and checks that every file a
# distribution package and the Flatpak need is there and usable.
set -eu
meson=$1 build=$2 prefix=$3 bindir=$4 datadir=$5 localedir=$6 app_id=$7 linguas=$8 claims=$9

destdir=$(mktemp -d)
trap 'rm -rf "$destdir"' EXIT INT TERM

"$meson" install -C "$build" --no-rebuild --quiet --destdir "$destdir" >/dev/null
root=$destdir$prefix

status=0
need () {
    if [ -s "$root/$1" ]; then
        echo "ok: $1"
    else
        echo "missing: $1" >&2
        status=1
    fi
}

need "$bindir/chokepoint"
need "$datadir/applications/$app_id.desktop"
need "$datadir/metainfo/$app_id.metainfo.xml"
need "$datadir/icons/hicolor/scalable/apps/$app_id.svg"
need "$datadir/icons/hicolor/symbolic/apps/$app_id-symbolic.svg"
need "$datadir/mime/packages/$app_id.xml"
need "$datadir/glib-2.0/schemas/$app_id.gschema.xml"
need "$datadir/chokepoint/prometheus/chokepoint-alerts.yml"
for lang in $(grep -v '^#' "$linguas"); do
    need "$localedir/$lang/LC_MESSAGES/chokepoint.mo"
done

# The installed binary runs (no display needed for --version).
if "$root/$bindir/chokepoint" --version | grep -q '^chokepoint '; then
    echo "ok: chokepoint --version"
else
    echo "chokepoint --version failed" >&2
    status=1
fi

# The launcher points at the installed binary and icon.
desktop=$root/$datadir/applications/$app_id.desktop
grep -qx 'Exec=chokepoint %U' "$desktop" || { echo "bad Exec= in $desktop" >&2; status=1; }
grep -qx "Icon=$app_id" "$desktop" || { echo "bad Icon= in $desktop" >&2; status=1; }

# The launcher claims only the capture types the MIME package defines.
"$claims" "$desktop" "$root/$datadir/mime/packages/$app_id.xml" || status=1

# What a desktop makes of them: with only this installation's MIME database
# and launchers, Chokepoint is the default for its capture types and for no
# plain JSON or gzip file (it would be, were it the only application claiming
# application/json).
if command -v gio > /dev/null && command -v update-mime-database > /dev/null &&
   command -v update-desktop-database > /dev/null; then
    update-mime-database "$root/$datadir/mime" > /dev/null 2>&1
    update-desktop-database "$root/$datadir/applications" > /dev/null 2>&1
    empty=$destdir/empty
    mkdir -p "$empty"
    mime_default () {
        env PATH="$root/$bindir:$PATH" XDG_DATA_DIRS="$root/$datadir" XDG_DATA_HOME="$empty" XDG_CONFIG_HOME="$empty" \
            XDG_CONFIG_DIRS="$empty" XDG_CURRENT_DESKTOP= gio mime "$1" 2> /dev/null |
            sed -n 's/^Default application for .*: //p'
    }
    for t in application/x-pytorch-trace+json application/x-pytorch-trace+gzip \
             application/x-chrome-trace+json application/x-chrome-trace+gzip \
             application/x-xplane+protobuf; do
        if [ "$(mime_default "$t")" = "$app_id.desktop" ]; then
            echo "ok: default for $t"
        else
            echo "not the default for $t: '$(mime_default "$t")'" >&2
            status=1
        fi
    done
    for t in application/json application/gzip text/plain; do
        if [ -z "$(mime_default "$t")" ]; then
            echo "ok: no default for $t"
        else
            echo "the default for $t is '$(mime_default "$t")'" >&2
            status=1
        fi
    done
else
    echo "gio, update-mime-database or update-desktop-database missing" >&2
    status=1
fi

# The installed schema compiles on its own.
glib-compile-schemas --strict --dry-run "$root/$datadir/glib-2.0/schemas" || status=1

exit $status
