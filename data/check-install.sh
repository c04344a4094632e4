#!/bin/sh
# check-install.sh MESON BUILD_DIR PREFIX BINDIR DATADIR LOCALEDIR APP_ID LINGUAS
# Installs the build into a temporary DESTDIR and checks that every file a
# distribution package and the Flatpak need is there and usable.
set -eu
meson=$1 build=$2 prefix=$3 bindir=$4 datadir=$5 localedir=$6 app_id=$7 linguas=$8

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

# The installed schema compiles on its own.
glib-compile-schemas --strict --dry-run "$root/$datadir/glib-2.0/schemas" || status=1

exit $status
