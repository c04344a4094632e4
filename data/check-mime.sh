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
# The translated comments made it into the database.
grep -q 'PyTorch' "$dir/mime/application/x-pytorch-trace+json.xml" || { echo "no comment" >&2; status=1; }
exit $status
