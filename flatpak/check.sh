#!/bin/bash
# check.sh: prove the Flatpak manifest against a GNOME 48-era stack.
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The GNOME 48 runtime cannot be downloaded everywhere, but Debian 13
# (trixie) ships the same generation of libraries (GTK 4.18, libadwaita 1.7,
# json-glib 1.10, zstd 1.5). This script:
#
#   rootfs   makes (or reuses) a Debian 13 root filesystem with debootstrap and
#            apt-get, in a cache folder outside the clone;
#   runtime  turns its /usr and /etc into a local Flatpak runtime that serves
#            as both runtime and SDK, commits it with ostree and installs it;
#   app      builds the project's real manifest with flatpak-builder (only the
#            runtime and SDK names replaced), installs it, checks the exported
#            desktop integration and the sandbox, and runs it under Xvfb with
#            the sample capture, taking a screenshot; then drags a capture
#            onto it with the pointer from a GTK 4 window on the host, once
#            through the file transfer portal (it opens) and once as a bare
#            text/uri-list (the sandbox cannot see it, and says so);
#   trixie   builds the project inside the Debian 13 root filesystem with
#            -Dwerror=true and runs the whole test suite there.
#
# Each check is reported in RESULTS/meson-logs/testlog.json (one JSON object
# per line, like meson's, so that tools reading a build folder's results read
# these too) and RESULTS/flatpak-check.tap; the test suite run in the Debian 13
# root filesystem leaves its own RESULTS/trixie/meson-logs/testlog.json.
# Exit status: 0 when every check passed, 1 otherwise, 2 on a usage error.
#
# Needs root (debootstrap, chroot, mounts), and network access to a Debian
# mirror on the first run. Missing host tools are installed with apt-get.

set -uo pipefail

usage ()
{
  cat <<EOF
Usage: $0 [OPTION...]

  --results DIR   where reports, logs and the screenshot go
                  (default: SOURCE/build/flatpak-check)
  --cache DIR     cache folder outside the clone ($CP_FLATPAK_CACHE, default
                  /var/cache/chokepoint-flatpak)
  --only LIST     comma-separated subset of: rootfs,runtime,app,trixie
  --refresh       rebuild the root filesystem and runtime from scratch
  -h, --help      show this help

Environment: CP_FLATPAK_CACHE, CP_DEBIAN_MIRROR (default
http://deb.debian.org/debian), CP_FLATPAK_SAMPLE (capture to open; default
data/samples/sample-training.pt.trace.json.gz).
EOF
}

SRC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CP_FLATPAK_CACHE:-/var/cache/chokepoint-flatpak}
RESULTS=
ONLY=rootfs,runtime,app,trixie
REFRESH=0
MIRROR=${CP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=trixie

APP_ID=io.github.chokepoint.Chokepoint
ROOTFS_BINDS=
MANIFEST=$SRC_ROOT/flatpak/$APP_ID.json
# The local runtime stands in for org.gnome.Platform//48 and org.gnome.Sdk//48,
# so it keeps the branch name the manifest asks for.
RT_NAME=io.github.chokepoint.Trixie
RT_BRANCH=48
REMOTE=chokepoint-trixie
# Bump when the way the root filesystem or the runtime is made changes, so that
# caches made by an older script are rebuilt.
RECIPE=1

while [ $# -gt 0 ]; do
  case "$1" in
    --results) RESULTS=$2; shift 2 ;;
    --results=*) RESULTS=${1#*=}; shift ;;
    --cache) CACHE=$2; shift 2 ;;
    --cache=*) CACHE=${1#*=}; shift ;;
    --only) ONLY=$2; shift 2 ;;
    --only=*) ONLY=${1#*=}; shift ;;
    --refresh) REFRESH=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "check.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done

RESULTS=${RESULTS:-$SRC_ROOT/build/flatpak-check}

# No display of the caller's: with one and no session bus, GLib programs
# (flatpak-builder, flatpak) autolaunch a bus bound to that display, and it
# and the portals activated on it outlive this script. The app's run and the
# Debian 13 suite start their own Xvfb and bus.
unset DISPLAY WAYLAND_DISPLAY
SAMPLE=${CP_FLATPAK_SAMPLE:-$SRC_ROOT/data/samples/sample-training.pt.trace.json.gz}

# The chroot runs binaries built for the host architecture only.
case "$(uname -m)" in
  x86_64) DEB_ARCH=amd64 ;;
  aarch64) DEB_ARCH=arm64 ;;
  *) DEB_ARCH= ;;
esac

# Packages the root filesystem gets. It serves as the Flatpak runtime and SDK
# (libraries, fonts, icons, schemas, build tools) and as the place where the
# test suite runs (Xvfb, D-Bus, ImageMagick, desktop and AppStream checkers).
ROOTFS_PACKAGES=(
  # What the application links and needs at run time.
  libgtk-4-1 libgtk-4-bin libadwaita-1-0 libjson-glib-1.0-0 libzstd1 zlib1g libsqlite3-0
  libcairo2 libpango-1.0-0 libpangocairo-1.0-0 libglib2.0-bin
  libgl1-mesa-dri libegl-mesa0 libglx-mesa0
  librsvg2-common adwaita-icon-theme hicolor-icon-theme
  fonts-cantarell fonts-dejavu-core gsettings-desktop-schemas shared-mime-info
  at-spi2-core
  # What building it needs (the SDK side).
  libgtk-4-dev libadwaita-1-dev libjson-glib-dev libzstd-dev zlib1g-dev libsqlite3-dev nettle-dev
  libcairo2-dev libpango1.0-dev libglib2.0-dev libglib2.0-dev-bin
  meson ninja-build gcc libc6-dev pkg-config gettext python3 ccache
  desktop-file-utils appstream gtk-update-icon-cache
  # Debian 12's flatpak-builder 1.2 composes AppStream data with appstream-glib's
  # appstream-compose, run inside the SDK (1.4 uses appstreamcli compose).
  appstream-util
  # What the test suite needs.
  xvfb xauth x11-utils dbus dbus-daemon dbus-bin imagemagick procps file
  # The hash oracle of the history tests (xxHash's own xxhsum).
  xxhash
)

log () { printf '%s check.sh: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# --- results -----------------------------------------------------------------

mkdir -p "$RESULTS/logs" "$RESULTS/meson-logs" || exit 2
RESULTS=$(cd "$RESULTS" && pwd)
TESTLOG=$RESULTS/meson-logs/testlog.json
: > "$TESTLOG"
rm -f "$RESULTS/flatpak-check.tap" "$RESULTS/screenshot.png"
rm -rf "$RESULTS/trixie"
N_CHECKS=0
N_FAILED=0
SUITE_FAILED=0
TAP_LINES=()

# record NAME RESULT SECONDS LOGFILE [RETURNCODE]: one testlog.json line and
# one TAP line. RESULT is OK, FAIL or SKIP, as in meson's testlog.json.
record ()
{
  local name=$1 result=$2 secs=$3 logfile=$4 rc=${5:-0} tap
  N_CHECKS=$((N_CHECKS + 1))
  python3 - "$name" "$result" "$secs" "$logfile" "$rc" >> "$TESTLOG" <<'EOF'
import json, sys
name, result, secs, logfile, rc = sys.argv[1:6]
try:
    with open(logfile, errors='replace') as f:
        text = f.read()
except OSError:
    text = ''
if len(text) > 20000:
    text = '[...]\n' + text[-20000:]
print(json.dumps({'name': 'flatpak-check/' + name, 'project': 'chokepoint',
                  'suite': ['flatpak-check'], 'result': result,
                  'duration': float(secs), 'returncode': int(rc),
                  'log': logfile, 'stdout': text}))
EOF
  case "$result" in
    OK) tap="ok $N_CHECKS - $name" ;;
    SKIP) tap="ok $N_CHECKS - $name # SKIP" ;;
    *) tap="not ok $N_CHECKS - $name"; N_FAILED=$((N_FAILED + 1)) ;;
  esac
  TAP_LINES+=("$tap")
  log "$result: $name (${secs}s, log: $logfile)"
}

# run_check NAME FUNCTION: runs FUNCTION with its output in logs/NAME.log and
# records the outcome. A function returns 0 (pass), 77 (skip) or anything else
# (fail). Sets CHECK_OK=1 when it passed.
CHECK_OK=0
run_check ()
{
  local name=$1 fn=$2 logfile="$RESULTS/logs/$1.log" start rc secs
  log "running $name"
  start=$(date +%s.%N)
  "$fn" > "$logfile" 2>&1
  rc=$?
  secs=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" \
         "$start" "$(date +%s.%N)")
  if [ $rc -eq 0 ]; then
    record "$name" OK "$secs" "$logfile" 0; CHECK_OK=1
  elif [ $rc -eq 77 ]; then
    record "$name" SKIP "$secs" "$logfile" 77; CHECK_OK=0
  else
    echo "--- last lines of $logfile:" >&2
    tail -n 25 "$logfile" >&2
    record "$name" FAIL "$secs" "$logfile" "$rc"; CHECK_OK=0
  fi
}

# not_run NAME REASON: a check that could not run because one it needs failed.
not_run ()
{
  local logfile="$RESULTS/logs/$1.log"
  echo "not run: $2" > "$logfile"
  record "$1" FAIL 0 "$logfile" 1
}

finish ()
{
  {
    echo "TAP version 13"
    echo "1..$N_CHECKS"
    printf '%s\n' "${TAP_LINES[@]}"
  } > "$RESULTS/flatpak-check.tap"
  log "$((N_CHECKS - N_FAILED)) of $N_CHECKS checks passed; results in $RESULTS"
  [ "$N_FAILED" -eq 0 ] && [ "$SUITE_FAILED" -eq 0 ]
}

want () { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }

# --- host tools --------------------------------------------------------------

check_host ()
{
  local missing=() tool pkg
  if [ "$(id -u)" -ne 0 ]; then
    echo "check.sh needs root: debootstrap, chroot and bind mounts."
    return 1
  fi
  if [ -z "$DEB_ARCH" ]; then
    echo "unsupported host architecture $(uname -m)"
    return 1
  fi
  for tool in debootstrap:debootstrap ostree:ostree flatpak:flatpak \
              flatpak-builder:flatpak-builder bwrap:bubblewrap Xvfb:xvfb \
              xwininfo:x11-utils import:imagemagick dbus-run-session:dbus \
              python3:python3 unshare:util-linux flock:util-linux \
              desktop-file-validate:desktop-file-utils eu-strip:elfutils \
              fusermount3:fuse3 /usr/libexec/xdg-document-portal:xdg-desktop-portal \
              xdotool:xdotool; do
    command -v "${tool%%:*}" > /dev/null || missing+=("${tool#*:}")
  done
  # The drag source of the drop checks is a GTK 4 window in Python.
  /usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "4.0")' 2> /dev/null ||
    missing+=(python3-gi gir1.2-gtk-4.0)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing host packages: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
      install -y --no-install-recommends "${missing[@]}" ||
    { apt-get -o DPkg::Lock::Timeout=600 update &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
        install -y --no-install-recommends "${missing[@]}"; } || return 1
  fi
  flatpak --version; flatpak-builder --version; ostree --version | head -n 2
  bwrap --version; debootstrap --version
  # flatpak runs everything in bubblewrap; prove it can make its namespaces.
  bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all true || {
    echo "bubblewrap cannot create a sandbox on this machine"
    return 1
  }
}

# --- rootfs ------------------------------------------------------------------

ROOTFS=$CACHE/rootfs

rootfs_wanted_stamp ()
{
  printf 'recipe=%s suite=%s arch=%s mirror=%s packages=%s\n' "$RECIPE" "$SUITE" \
    "$DEB_ARCH" "$MIRROR" "$(printf '%s\n' "${ROOTFS_PACKAGES[@]}" | sort | tr '\n' ' ')"
}

# in_rootfs COMMAND...: runs a shell command inside the root filesystem with
# /dev, /proc and a fresh /tmp, in a private mount namespace so that nothing
# stays mounted whatever happens. Extra bind mounts come from $ROOTFS_BINDS
# ("HOST:TARGET[:ro]" words).
in_rootfs ()
{
  unshare --mount --propagation private -- /bin/bash -s -- "$ROOTFS" "$*" <<'EOF'
set -e
R=$1
mount --rbind /dev "$R/dev"
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys" 2> /dev/null || true
mount -t tmpfs -o mode=1777 tmpfs "$R/tmp"
for b in ${ROOTFS_BINDS:-}; do
  host=${b%%:*}; rest=${b#*:}; target=${rest%%:*}
  mkdir -p "$R$target"
  mount --bind "$host" "$R$target"
  case "$rest" in *:ro) mount -o remount,bind,ro "$R$target" ;; esac
done
cp -L /etc/resolv.conf "$R/etc/resolv.conf" 2> /dev/null || true
exec chroot "$R" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive /bin/bash -c "$2"
EOF
  local rc=$?
  kill_rootfs_procs
  return $rc
}

# Stops what a command in the root filesystem left running (a test killed on
# a timeout leaves its D-Bus session behind, for example).
kill_rootfs_procs ()
{
  local p r pids=
  r=$(cd "$ROOTFS" && pwd -P) || return 0
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2> /dev/null)" = "$r" ] && pids="$pids ${p#/proc/}"
  done
  if [ -n "$pids" ]; then
    echo "stopping processes left in the root filesystem:$pids"
    kill $pids 2> /dev/null
  fi
  true
}

apt_install_in_rootfs ()
{
  in_rootfs "apt-get update && apt-get install -y --no-install-recommends ${ROOTFS_PACKAGES[*]} && apt-get clean"
}

# Flatpak refuses setuid and setgid files in a runtime, and sticky bits mean
# nothing there; the chroot runs everything as root, so it does not need them.
strip_special_bits ()
{
  find "$ROOTFS/usr" "$ROOTFS/etc" -xdev -perm /7000 ! -type l -print \
    -exec chmod ug-s,o-t {} +
}

check_rootfs ()
{
  local want have
  want=$(rootfs_wanted_stamp)
  if [ "$REFRESH" = 1 ]; then
    rm -rf "$ROOTFS" "$CACHE/rootfs.new"
  fi
  if [ -f "$ROOTFS/.chokepoint-rootfs" ]; then
    have=$(cat "$ROOTFS/.chokepoint-rootfs")
    if [ "$have" = "$want" ]; then
      echo "reusing $ROOTFS"
    else
      echo "package list changed: installing into the cached $ROOTFS"
      rm -f "$ROOTFS/.chokepoint-rootfs"
      apt_install_in_rootfs || return 1
      strip_special_bits
      printf '%s\n' "$want" > "$ROOTFS/.chokepoint-rootfs"
    fi
  else
    local new=$CACHE/rootfs.new
    rm -rf "$new"
    mkdir -p "$new"
    # Keep docs and manual pages out: they would only bloat the runtime.
    mkdir -p "$new/etc/dpkg/dpkg.cfg.d"
    printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
      'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' \
      > "$new/etc/dpkg/dpkg.cfg.d/01-chokepoint-nodoc"
    echo "debootstrap --variant=minbase $SUITE into $new from $MIRROR"
    unshare --mount --propagation private -- \
      debootstrap --variant=minbase --arch="$DEB_ARCH" "$SUITE" "$new" "$MIRROR" || {
      echo "debootstrap failed; see $new/debootstrap/debootstrap.log"
      tail -n 30 "$new/debootstrap/debootstrap.log" 2> /dev/null
      return 1
    }
    printf 'deb %s %s main\ndeb %s %s-updates main\n' "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" \
      > "$new/etc/apt/sources.list"
    # No services start inside the chroot.
    printf '#!/bin/sh\nexit 101\n' > "$new/usr/sbin/policy-rc.d"
    chmod 755 "$new/usr/sbin/policy-rc.d"
    ROOTFS=$new apt_install_in_rootfs || return 1
    ROOTFS=$new strip_special_bits
    printf '%s\n' "$want" > "$new/.chokepoint-rootfs"
    rm -rf "$ROOTFS"
    mv "$new" "$ROOTFS"
  fi
  # The point of the exercise: the same library generation as GNOME 48.
  in_rootfs 'set -e
    cat /etc/debian_version
    for m in gtk4 libadwaita-1 json-glib-1.0 libzstd zlib cairo pangocairo glib-2.0; do
      printf "%s %s\n" "$m" "$(pkg-config --modversion $m)"
    done
    pkg-config --atleast-version=4.18 gtk4
    pkg-config --atleast-version=1.7 libadwaita-1
    meson --version; gcc --version | head -n 1' || return 1
  du -sh "$ROOTFS" 2> /dev/null
}

# --- runtime -----------------------------------------------------------------

FLATPAK_USER_DIR=$CACHE/flatpak
export FLATPAK_USER_DIR
REPO=$CACHE/repo

check_runtime ()
{
  local arch ref tree md stamp want
  arch=$(flatpak --default-arch)
  ref=runtime/$RT_NAME/$arch/$RT_BRANCH
  want="$(cat "$ROOTFS/.chokepoint-rootfs") runtime-recipe=$RECIPE"
  stamp=$CACHE/runtime.stamp
  if [ "$REFRESH" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
     flatpak --user info "$RT_NAME//$RT_BRANCH" > /dev/null 2>&1; then
    echo "reusing the installed runtime $ref"
    flatpak --user info "$RT_NAME//$RT_BRANCH"
    return 0
  fi
  rm -f "$stamp"

  # The runtime tree: /usr becomes files/, /etc becomes files/etc. Hard links
  # keep this cheap; the root filesystem already had its special bits removed.
  tree=$CACHE/runtime-tree
  rm -rf "$tree"
  mkdir -p "$tree"
  cp -al "$ROOTFS/usr" "$tree/files" || return 1
  cp -al "$ROOTFS/etc" "$tree/files/etc" || return 1
  # Files only root may read are of no use in a sandbox.
  rm -f "$tree/files/etc/shadow" "$tree/files/etc/gshadow" \
        "$tree/files/etc/shadow-" "$tree/files/etc/gshadow-"
  if [ -n "$(find "$tree/files" -perm /7000 ! -type l)" ]; then
    echo "special permission bits left in the runtime tree"
    return 1
  fi

  md="[Runtime]
name=$RT_NAME
runtime=$RT_NAME/$arch/$RT_BRANCH
sdk=$RT_NAME/$arch/$RT_BRANCH
"
  printf '%s' "$md" > "$tree/metadata"

  if [ ! -f "$REPO/config" ]; then
    ostree init --repo="$REPO" --mode=archive-z2 || return 1
  fi
  echo "ostree commit $ref"
  ostree commit --repo="$REPO" --branch="$ref" \
    --subject="Debian $(cat "$ROOTFS/etc/debian_version") as a stand-in for GNOME $RT_BRANCH" \
    --canonical-permissions --parent=none \
    --add-metadata-string=xa.metadata="$md" \
    "$tree" || return 1
  # Without parents, earlier runtimes are unreferenced: drop them.
  ostree prune --repo="$REPO" --refs-only || return 1
  flatpak build-update-repo "$REPO" || return 1
  flatpak --user remote-add --if-not-exists --no-gpg-verify "$REMOTE" "$REPO" || return 1
  flatpak --user remote-modify --url="file://$REPO" "$REMOTE" || return 1
  if flatpak --user info "$RT_NAME//$RT_BRANCH" > /dev/null 2>&1; then
    flatpak --user update -y --noninteractive "$ref" || return 1
  else
    flatpak --user install -y --noninteractive "$REMOTE" "$ref" || return 1
  fi
  flatpak --user info "$RT_NAME//$RT_BRANCH" || return 1
  cmp "$tree/metadata" "$FLATPAK_USER_DIR/runtime/$RT_NAME/$arch/$RT_BRANCH/active/metadata" || {
    echo "the deployed metadata differs from the committed one"
    return 1
  }
  rm -rf "$tree"
  printf '%s' "$want" > "$stamp"
}

# --- app ---------------------------------------------------------------------

APP_XDG=
APP_XVFB_PID=
APP_BUS_PID=
APP_PID=
APP_DISPLAY=
APP_BUS=
DRAG_PID=

# The manifest users build, with only the runtime and SDK names replaced. It
# sits beside the real one so that the source "path": ".." still resolves to
# this checkout.
local_manifest ()
{
  local out=$SRC_ROOT/flatpak/.$APP_ID.local.json
  python3 - "$MANIFEST" "$out" "$RT_NAME" <<'EOF' || return 1
import json, sys
src, dst, name = sys.argv[1:4]
with open(src) as f:
    m = json.load(f)
m['runtime'] = name
m['sdk'] = name
with open(dst, 'w') as f:
    json.dump(m, f, indent=2)
    f.write('\n')
EOF
  echo "$out"
}

# Processes this run started, found by a variable only they inherit.
SESSION_MARK=CP_FLATPAK_CHECK_SESSION=$$.$RANDOM
kill_marked ()
{
  local p pids=
  for p in /proc/[0-9]*; do
    tr '\0' '\n' 2> /dev/null < "$p/environ" | grep -q -x -F "$SESSION_MARK" &&
      pids="$pids ${p#/proc/}"
  done
  [ -n "$pids" ] && kill $pids 2> /dev/null
  true
}

stop_app_session ()
{
  # Ending the session bus makes the portals and helpers it started exit;
  # whatever is left (a killed bus orphans them) goes by its mark.
  [ -n "$APP_PID" ] && XDG_RUNTIME_DIR=$APP_XDG flatpak --user kill "$APP_ID" 2> /dev/null
  [ -n "$APP_PID" ] && kill "$APP_PID" 2> /dev/null && wait "$APP_PID" 2> /dev/null
  [ -n "$APP_BUS_PID" ] && kill "$APP_BUS_PID" 2> /dev/null
  [ -n "$APP_XVFB_PID" ] && kill "$APP_XVFB_PID" 2> /dev/null && wait "$APP_XVFB_PID" 2> /dev/null
  [ -n "$DRAG_PID" ] && kill "$DRAG_PID" 2> /dev/null && wait "$DRAG_PID" 2> /dev/null
  APP_PID=; APP_XVFB_PID=; APP_BUS_PID=; DRAG_PID=; APP_DISPLAY=; APP_BUS=
  sleep 1
  kill_marked
  if [ -n "$APP_XDG" ]; then
    mountpoint -q "$APP_XDG/doc" && { fusermount3 -u "$APP_XDG/doc" || umount -l "$APP_XDG/doc"; }
    rm -f "$APP_XDG/display"
  fi
  APP_XDG=
}

# The exported files a desktop reads: the launcher, icons, MIME types (in the
# installation's exports/share) and the AppStream data (in the deployed app).
check_exports ()
{
  local exp=$FLATPAK_USER_DIR/exports/share inst desktop ok=0 f
  inst=$(flatpak --user info --show-location "$APP_ID") || return 1
  desktop=$exp/applications/$APP_ID.desktop
  for f in "$desktop" \
           "$exp/icons/hicolor/scalable/apps/$APP_ID.svg" \
           "$exp/icons/hicolor/symbolic/apps/$APP_ID-symbolic.svg" \
           "$exp/mime/packages/$APP_ID.xml" \
           "$inst/files/share/app-info/xmls/$APP_ID.xml.gz"; do
    if [ -e "$f" ]; then
      echo "present: ${f#$FLATPAK_USER_DIR/}"
    else
      echo "MISSING: $f"; ok=1
    fi
  done
  # flatpak-builder 1.2 moves the metainfo to the legacy appdata name; 1.4
  # keeps it. Either way the composed catalogue above is what software
  # centres read.
  if [ -e "$inst/files/share/metainfo/$APP_ID.metainfo.xml" ]; then
    echo "present: share/metainfo/$APP_ID.metainfo.xml"
  elif [ -e "$inst/files/share/appdata/$APP_ID.appdata.xml" ]; then
    echo "present: share/appdata/$APP_ID.appdata.xml"
  else
    echo "MISSING: the AppStream metainfo in $inst/files/share"; ok=1
  fi
  [ $ok = 0 ] || return 1
  desktop-file-validate "$desktop" || return 1
  # The exported launcher goes through flatpak and forwards files through the
  # document portal.
  grep -q '^Exec=.*flatpak run .*--file-forwarding .*@@' "$desktop" || {
    echo "the exported launcher does not forward files:"; grep '^Exec=' "$desktop"; return 1
  }
  # Every MIME type the mime package defines is one the launcher handles.
  python3 - "$desktop" "$exp/mime/packages/$APP_ID.xml" <<'EOF' || return 1
import configparser, sys, xml.etree.ElementTree as ET
desktop, mimexml = sys.argv[1:3]
cp = configparser.RawConfigParser(strict=False, interpolation=None)
cp.optionxform = str
cp.read(desktop)
handled = {t for t in cp['Desktop Entry'].get('MimeType', '').split(';') if t}
ns = '{http://www.freedesktop.org/standards/shared-mime-info}'
defined = {e.get('type') for e in ET.parse(mimexml).getroot().iter(ns + 'mime-type')}
print('launcher handles:', ' '.join(sorted(handled)))
print('package defines: ', ' '.join(sorted(defined)))
if not defined:
    sys.exit('the MIME package defines no type')
missing = defined - handled
if missing:
    sys.exit('types defined but not handled by the launcher: ' + ' '.join(sorted(missing)))
# Claiming a generic type (application/json) would make the app the default
# for every such file where nothing else claims it exactly.
extra = handled - defined
if extra:
    sys.exit('the launcher claims types that are not captures: ' + ' '.join(sorted(extra)))
EOF
}

# No host filesystem: the permissions carry no filesystem entry, and inside the
# sandbox neither the checkout, nor the home folder, nor the host's /etc show.
check_sandbox ()
{
  local perms marker=$HOME/.chokepoint-flatpak-check-marker out rc=0
  perms=$(flatpak --user info --show-permissions "$APP_ID") || return 1
  echo "$perms"
  if grep -q '^filesystems=' <<< "$perms"; then
    echo "the app asks for filesystem access"; rc=1
  fi
  grep -q '^shared=.*ipc' <<< "$perms" || { echo "no --share=ipc"; rc=1; }
  grep -q '^sockets=.*wayland' <<< "$perms" || { echo "no wayland socket"; rc=1; }
  touch "$marker"
  out=$(flatpak --user run --command=sh "$APP_ID" -c '
    for p in "$@"; do [ -e "$p" ] && echo "VISIBLE: $p"; done
    # A sandbox without host access has only what flatpak builds at its root.
    for p in /* /.[!.]*; do
      case "$p" in
        /.flatpak-info|/app|/bin|/dev|/etc|/home|/lib|/lib32|/lib64|/proc|/root|/run|/sbin|/sys|/tmp|/usr|/var) ;;
        *) [ -e "$p" ] && echo "VISIBLE: $p" ;;
      esac
    done
    echo "sandbox /etc/debian_version: $(cat /etc/debian_version 2> /dev/null)"
    echo "sandbox /app/bin: $(ls /app/bin)"
    true' sh "$SRC_ROOT/meson.build" "$marker" "$CACHE/lock" /etc/shadow 2>&1)
  rm -f "$marker"
  echo "$out"
  if grep -q '^VISIBLE:' <<< "$out"; then
    echo "host files are visible inside the sandbox"; rc=1
  fi
  grep -q -x -F "sandbox /etc/debian_version: $(cat "$ROOTFS/etc/debian_version")" <<< "$out" || {
    echo "the sandbox does not use the runtime's /etc"; rc=1
  }
  return $rc
}

# Starts the app under Xvfb and a private session bus with the sample capture
# forwarded through the document portal, waits for its window, checks that it
# stays up, and takes a screenshot of the whole screen.
check_run ()
{
  local disp i title shot=$RESULTS/screenshot.png colors
  if [ ! -f "$SAMPLE" ]; then
    echo "no sample capture at $SAMPLE"; return 1
  fi
  # Flatpak mounts the document portal at /run/user/UID/doc inside the sandbox
  # and forwards files with the host's mount point, so the two agree only with
  # the usual XDG_RUNTIME_DIR.
  APP_XDG=/run/user/$(id -u)
  mkdir -p "$APP_XDG" && chmod 700 "$APP_XDG" || return 1
  if mountpoint -q "$APP_XDG/doc"; then
    echo "a document portal is already mounted at $APP_XDG/doc; unmounting it"
    fusermount3 -u "$APP_XDG/doc" || umount -l "$APP_XDG/doc"
  fi
  rm -f "$APP_XDG/display"
  env "$SESSION_MARK" Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp \
    3> "$APP_XDG/display" > "$RESULTS/logs/xvfb.log" 2>&1 &
  APP_XVFB_PID=$!
  # Up to a minute: a loaded machine can take that long to start Xvfb.
  for i in $(seq 600); do
    disp=$(cat "$APP_XDG/display" 2> /dev/null)
    [ -n "$disp" ] && break
    sleep 0.1
  done
  [ -n "$disp" ] || { echo "Xvfb did not start"; return 1; }
  echo "Xvfb on :$disp"
  # --file-forwarding exports the file in the document portal (started on
  # demand on the private bus) and hands the app /run/user/UID/doc/ID/NAME,
  # the same path a desktop launcher gives it.
  # A session bus of its own (not dbus-run-session, which leaves its bus and
  # everything activated on it running when it is killed).
  local bus_info
  bus_info=$(env "$SESSION_MARK" DISPLAY=:$disp XDG_RUNTIME_DIR=$APP_XDG \
             dbus-daemon --session --fork --print-address=1 --print-pid=1 \
             2> "$RESULTS/logs/app-bus.log") || { echo "no session bus"; return 1; }
  APP_BUS_PID=$(sed -n 2p <<< "$bus_info")
  APP_BUS=$(sed -n 1p <<< "$bus_info")
  APP_DISPLAY=$disp
  # The app's own debug messages say what it made of a drop.
  env "$SESSION_MARK" DISPLAY=:$disp XDG_RUNTIME_DIR=$APP_XDG \
    DBUS_SESSION_BUS_ADDRESS=$APP_BUS \
    flatpak --user run --env=G_MESSAGES_DEBUG=Chokepoint --file-forwarding "$APP_ID" @@ "$SAMPLE" @@ \
    > "$RESULTS/logs/app-stdout.log" 2>&1 &
  APP_PID=$!
  title=
  for i in $(seq 120); do
    title=$(DISPLAY=:$disp xwininfo -root -tree 2> /dev/null | grep -o "\"[^\"]*$(basename "$SAMPLE")[^\"]*\"" | head -n 1)
    [ -n "$title" ] && break
    kill -0 "$APP_PID" 2> /dev/null || break
    sleep 0.5
  done
  DISPLAY=:$disp xwininfo -root -tree | grep -E '^ +0x' | grep -v 'has no name' | head -n 20
  if [ -z "$title" ]; then
    echo "no window titled after the capture appeared; app output:"
    cat "$RESULTS/logs/app-stdout.log"
    return 1
  fi
  echo "window: $title"
  # Let it load and draw, then make sure it is still running.
  sleep 4
  if ! kill -0 "$APP_PID" 2> /dev/null; then
    echo "the app exited; output:"; cat "$RESULTS/logs/app-stdout.log"; return 1
  fi
  # Wait until the screen settles (two shots alike) so that the picture shows
  # the loaded capture and not a transition.
  local prev= sig
  for i in $(seq 15); do
    DISPLAY=:$disp import -window root "$shot" || return 1
    sig=$(identify -format '%#' "$shot")
    [ "$sig" = "$prev" ] && break
    prev=$sig
    sleep 2
  done
  colors=$(identify -format '%k' "$shot")
  echo "screenshot: $shot ($colors colours)"
  echo "--- app output:"; cat "$RESULTS/logs/app-stdout.log"
  # A drawn timeline has many colours; an empty or broken window has a handful.
  [ "$colors" -ge 64 ] || { echo "the screenshot looks empty"; return 1; }
  # Only the app's own messages count (portals on the host may warn).
  if grep -E -q '^(\*\* )?\(chokepoint:[0-9]+\): [^ ]*(CRITICAL|WARNING|ERROR)' \
       "$RESULTS/logs/app-stdout.log"; then
    echo "the app logged warnings"; return 1
  fi
  kill -0 "$APP_PID" 2> /dev/null || { echo "the app exited"; return 1; }
}

check_app_build ()
{
  local manifest rc=0
  manifest=$(local_manifest) || return 1
  echo "building $manifest"
  # The app module is a "dir" source, which flatpak-builder never caches;
  # ccache (in the state folder) keeps rebuilds of unchanged files cheap.
  flatpak-builder --user --install --force-clean --disable-rofiles-fuse --ccache \
    --state-dir="$CACHE/builder-state" --repo="$CACHE/app-repo" \
    "$CACHE/app-build" "$manifest" || rc=1
  rm -f "$manifest"
  [ $rc = 0 ] || return 1
  flatpak --user info "$APP_ID"
}

# A window titled after a file on the app's display, or nothing.
app_window_titled ()
{
  DISPLAY=:$APP_DISPLAY xwininfo -root -tree 2> /dev/null | grep -o "\"[^\"]*$1[^\"]*\"" | head -n 1
}

# drag_onto_app MODE FILE: shows flatpak/drag-source.py (a GTK 4 window on
# the host, on the app's display and bus) at the top right of the screen and
# drags FILE from it onto the app's window with the pointer, the way a user
# drags from a file manager. The drag source stays up (the file transfer
# portal asks it for the files after the drop) until the next drag or the
# end of the session.
drag_onto_app ()
{
  local mode=$1 file=$2 sw= i x log=$RESULTS/logs/drag-source-$1.log
  [ -n "$DRAG_PID" ] && kill "$DRAG_PID" 2> /dev/null && wait "$DRAG_PID" 2> /dev/null
  env "$SESSION_MARK" DISPLAY=:$APP_DISPLAY XDG_RUNTIME_DIR=$APP_XDG DBUS_SESSION_BUS_ADDRESS=$APP_BUS \
    /usr/bin/python3 "$SRC_ROOT/flatpak/drag-source.py" "$mode" "$file" > "$log" 2>&1 &
  DRAG_PID=$!
  for i in $(seq 60); do
    sw=$(DISPLAY=:$APP_DISPLAY xdotool search --name "^drag-source $mode\$" 2> /dev/null | head -n 1)
    [ -n "$sw" ] && break
    sleep 0.25
  done
  [ -n "$sw" ] || { echo "the drag source did not show:"; cat "$log"; return 1; }
  # No window manager: the window goes where it is told, above the app's.
  DISPLAY=:$APP_DISPLAY xdotool windowmove "$sw" 1420 20
  sleep 1
  echo "dragging $file ($mode) from window $sw"
  DISPLAY=:$APP_DISPLAY xdotool mousemove 1500 100 mousedown 1
  sleep 0.5
  # Small steps, slowly, and a few moves over the target before the button
  # is let go: on a loaded machine a fast drag can end before the app's drop
  # target has seen the pointer enter.
  for x in 1495 1490 1480 1470 1455 1440 1410 1380 1320 1250 1180 1100 1000 900 800 700 650 600 610 600; do
    DISPLAY=:$APP_DISPLAY xdotool mousemove "$x" 400
    sleep 0.2
  done
  sleep 1
  DISPLAY=:$APP_DISPLAY xdotool mouseup 1
  sleep 1
  cat "$log"
  grep -q '^drag-source: offering' "$log" || { echo "no drag started"; return 1; }
}

# A drop from a GTK 4 window while the document portal runs comes through
# the file transfer portal: the sandbox gets a document and opens it in a
# window of its own (the app already shows the sample).
check_drop_portal ()
{
  local file=$RESULTS/drops/dropped-through-portal.pt.trace.json.gz title= i try
  mkdir -p "$RESULTS/drops" && cp "$SAMPLE" "$file" || return 1
  # A synthetic drag with no window manager can be lost on a loaded machine
  # (the drag ends without a drop): up to three drags, each given 20 s.
  for try in 1 2 3; do
    drag_onto_app files "$file" || return 1
    grep -q 'application/vnd.portal.filetransfer' "$RESULTS/logs/drag-source-files.log" || {
      echo "the drag source did not offer the file transfer portal's format"; return 1
    }
    for i in $(seq 40); do
      title=$(app_window_titled "$(basename "$file")")
      [ -n "$title" ] && break
      sleep 0.5
    done
    [ -n "$title" ] && break
    echo "drag $try: no window yet"
  done
  DISPLAY=:$APP_DISPLAY xwininfo -root -tree | grep -E '^ +0x' | grep -v 'has no name' | head -n 20
  sleep 2
  DISPLAY=:$APP_DISPLAY import -window root "$RESULTS/drop-portal.png"
  echo "--- app output:"; cat "$RESULTS/logs/app-stdout.log"
  [ -n "$title" ] || { echo "no window opened for the dropped capture"; return 1; }
  echo "window: $title"
  if grep -q 'The sandbox cannot see' "$RESULTS/logs/app-stdout.log"; then
    echo "the app could not see a file the portal handed it"; return 1
  fi
  kill -0 "$APP_PID" 2> /dev/null || { echo "the app exited"; return 1; }
}

# A drop that names the file only by its path (text/uri-list alone) points at
# a host file the sandbox cannot see: nothing opens, and the app says why
# (its toast; its debug output names the path) instead of "does not exist".
check_drop_uri_list ()
{
  local file=$RESULTS/drops/dropped-as-uri-list.pt.trace.json.gz i seen=0 try
  mkdir -p "$RESULTS/drops" && cp "$SAMPLE" "$file" || return 1
  for try in 1 2 3; do
    drag_onto_app uri-list "$file" || return 1
    if grep -q 'application/vnd.portal' "$RESULTS/logs/drag-source-uri-list.log"; then
      echo "the uri-list drag source offered a portal format"; return 1
    fi
    for i in $(seq 30); do
      grep -q -F "The sandbox cannot see $file" "$RESULTS/logs/app-stdout.log" && { seen=1; break; }
      sleep 0.5
    done
    [ $seen = 1 ] && break
    echo "drag $try: no message yet"
  done
  sleep 1
  DISPLAY=:$APP_DISPLAY import -window root "$RESULTS/drop-uri-list.png"
  echo "--- app output:"; cat "$RESULTS/logs/app-stdout.log"
  [ $seen = 1 ] || { echo "the app did not tell the sandbox could not see $file"; return 1; }
  if [ -n "$(app_window_titled "$(basename "$file")")" ]; then
    echo "a window opened for a file the sandbox cannot see"; return 1
  fi
  [ -e "$file" ] || { echo "the dropped file is gone"; return 1; }
  kill -0 "$APP_PID" 2> /dev/null || { echo "the app exited"; return 1; }
}

# --- trixie ------------------------------------------------------------------

# The project builds and its whole suite runs inside the Debian 13 root
# filesystem, warnings as errors, against GTK 4.18 and libadwaita 1.7. The
# checkout is mounted read-only at /src (../shared at /shared, so the default
# shared traces path resolves), the build folder lives in the cache so reruns
# are incremental.
trixie_binds ()
{
  local shared
  mkdir -p "$CACHE/trixie-build"
  ROOTFS_BINDS="$SRC_ROOT:/src:ro $CACHE/trixie-build:/build"
  shared=$(cd "$SRC_ROOT/../shared" 2> /dev/null && pwd -P)
  [ -n "$shared" ] && ROOTFS_BINDS="$ROOTFS_BINDS $shared:/shared:ro"
  export ROOTFS_BINDS
}

check_trixie_build ()
{
  trixie_binds
  in_rootfs '
    set -e
    export PYTHONDONTWRITEBYTECODE=1
    cd /src
    if [ -f /build/werror/build.ninja ]; then
      meson setup --reconfigure /build/werror -Dwerror=true ||
        { rm -rf /build/werror; meson setup /build/werror -Dwerror=true; }
    else
      rm -rf /build/werror
      meson setup /build/werror -Dwerror=true
    fi
    ninja -C /build/werror'
}

check_trixie_tests ()
{
  trixie_binds
  rm -f "$CACHE/trixie-build/werror/meson-logs/testlog.json"
  in_rootfs '
    export CI=true PYTHONDONTWRITEBYTECODE=1 XDG_RUNTIME_DIR=/tmp/xdg-runtime
    mkdir -m 700 "$XDG_RUNTIME_DIR"
    Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3> /tmp/display > /tmp/xvfb.log 2>&1 &
    # On a loaded machine Xvfb can take many seconds: wait until it has said
    # its display and answers on it, within a minute, rather than running
    # the UI tests against a display that is not there yet.
    ready=0
    for i in $(seq 600); do
      if [ -s /tmp/display ] && DISPLAY=:$(cat /tmp/display) xdpyinfo > /dev/null 2>&1; then
        ready=1
        break
      fi
      kill -0 %1 2> /dev/null || break
      sleep 0.1
    done
    if [ $ready -ne 1 ]; then
      echo "Xvfb did not answer within 60 s:"
      cat /tmp/xvfb.log
      exit 1
    fi
    export DISPLAY=:$(cat /tmp/display)
    echo "Xvfb on $DISPLAY"
    dbus-run-session -- meson test -C /build/werror --print-errorlogs
    rc=$?
    kill %1
    exit $rc'
}

# --- main --------------------------------------------------------------------

mkdir -p "$CACHE" || exit 2
CACHE=$(cd "$CACHE" && pwd)
case "$CACHE/" in
  "$SRC_ROOT"/*) echo "check.sh: the cache ($CACHE) must be outside the clone" >&2; exit 2 ;;
esac

# One run at a time per cache: several clones on one machine share it.
exec 9> "$CACHE/lock"
if ! flock -n 9; then
  log "waiting for another check.sh run that holds $CACHE/lock"
  flock 9
fi

run_check host check_host
HOST_OK=$CHECK_OK
ROOTFS_OK=0
RUNTIME_OK=0

if want rootfs || want runtime || want app || want trixie; then
  if [ $HOST_OK = 1 ]; then
    run_check rootfs check_rootfs; ROOTFS_OK=$CHECK_OK
  else
    not_run rootfs "host check failed"
  fi
fi

if want runtime || want app; then
  if [ $ROOTFS_OK = 1 ]; then
    run_check runtime check_runtime; RUNTIME_OK=$CHECK_OK
  else
    not_run runtime "no Debian 13 root filesystem"
  fi
fi

if want app; then
  if [ $RUNTIME_OK = 1 ]; then
    run_check app-build check_app_build
    if [ $CHECK_OK = 1 ]; then
      run_check app-exports check_exports
      run_check app-sandbox check_sandbox
      run_check app-run check_run
      if [ $CHECK_OK = 1 ]; then
        run_check app-drop-portal check_drop_portal
        run_check app-drop-uri-list check_drop_uri_list
      else
        for c in app-drop-portal app-drop-uri-list; do not_run $c "the app did not run"; done
      fi
      stop_app_session
    else
      for c in app-exports app-sandbox app-run app-drop-portal app-drop-uri-list; do
        not_run $c "the app did not build"
      done
    fi
  else
    for c in app-build app-exports app-sandbox app-run app-drop-portal app-drop-uri-list; do
      not_run $c "no local runtime"
    done
  fi
fi

if want trixie; then
  if [ $ROOTFS_OK = 1 ]; then
    run_check trixie-build check_trixie_build
    if [ $CHECK_OK = 1 ]; then
      # The suite's own results are counted from its testlog.json; a check
      # is recorded here only when the suite left none.
      log "running the test suite in the Debian 13 root filesystem"
      check_trixie_tests > "$RESULTS/logs/trixie-tests.log" 2>&1
      tlog=$CACHE/trixie-build/werror/meson-logs
      if [ -f "$tlog/testlog.json" ]; then
        mkdir -p "$RESULTS/trixie/meson-logs"
        cp "$tlog/testlog.json" "$tlog/testlog.txt" "$RESULTS/trixie/meson-logs/" 2> /dev/null
        SUITE_SUMMARY=$(python3 - "$RESULTS/trixie/meson-logs/testlog.json" <<'EOF'
import json, sys
counts = {}
for line in open(sys.argv[1], encoding='utf-8'):
    if line.strip():
        r = json.loads(line).get('result', 'ERROR')
        counts[r] = counts.get(r, 0) + 1
bad = sum(n for r, n in counts.items() if r not in ('OK', 'SKIP', 'EXPECTEDFAIL'))
print('%d %d %d' % (counts.get('OK', 0), bad, counts.get('SKIP', 0)))
EOF
)
        read -r s_ok s_bad s_skip <<< "$SUITE_SUMMARY"
        log "test suite in Debian 13: $s_ok passed, $s_bad failed, $s_skip skipped (log: $RESULTS/logs/trixie-tests.log)"
        [ "$s_bad" = 0 ] || SUITE_FAILED=$s_bad
      else
        record trixie-tests FAIL 0 "$RESULTS/logs/trixie-tests.log" 1
      fi
    fi
  else
    not_run trixie-build "no Debian 13 root filesystem"
  fi
fi

finish
