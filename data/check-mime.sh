#!/bin/sh
# check-mime.sh MIME_XML UPDATE_MIME_DATABASE: builds a MIME database from the
# package file alone and checks that each capture pattern maps to its type.
set -eu
xml=$1
update=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM

mkdir -p "$dir/mime/packages"
cp "$xml" "$dir/mime/packages/"
"$update" "$dir/mime" >/dev/null 2>&1

status=0
check () {
    if grep -qxF "$2:$1" "$dir/mime/globs"; then
        echo "ok: $1 -> $2"
    else
        echo "missing: $1 -> $2" >&2
        status=1
    fi
}
check '*.pt.trace.json' application/x-pytorch-trace+json
check '*.pt.trace.json.gz' application/x-pytorch-trace+gzip
check '*.xplane.pb' application/x-xplane+protobuf
check '*.trace.json' application/x-chrome-trace+json
check '*.trace.json.gz' application/x-chrome-trace+gzip

# Names resolve as a file manager sees them: the longest pattern wins, so a
# PyTorch trace stays one, and a plain .json is no capture.
if command -v gio > /dev/null; then
    files=$dir/files
    mkdir -p "$files"
    type_of () {
        echo x > "$files/$1"
        XDG_DATA_DIRS=$dir XDG_DATA_HOME=$dir gio info -a standard::fast-content-type "$files/$1" |
            sed -n "s/^ *standard::fast-content-type: //p"
    }
    resolves () {
        got=$(type_of "$1")
        if [ "$got" = "$2" ]; then
            echo "ok: $1 is $2"
        else
            echo "$1 is '$got', not $2" >&2
            status=1
        fi
    }
    resolves worker0.1733.pt.trace.json application/x-pytorch-trace+json
    resolves worker0.1733.pt.trace.json.gz application/x-pytorch-trace+gzip
    resolves host0.trace.json application/x-chrome-trace+json
    resolves host0.trace.json.gz application/x-chrome-trace+gzip
    resolves host0.xplane.pb application/x-xplane+protobuf
    case $(type_of config.json) in
        application/x-*trace*) echo "config.json resolves to a capture type" >&2; status=1 ;;
        *) echo "ok: config.json is no capture" ;;
    esac
else
    echo "gio missing" >&2
    status=1
fi
# The translated comments made it into the database.
grep -q 'PyTorch' "$dir/mime/application/x-pytorch-trace+json.xml" || { echo "no comment" >&2; status=1; }
exit $status
