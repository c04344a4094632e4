#!/usr/bin/env python3
# check-claims.py DESKTOP MIME_XML: the launcher claims exactly the capture
# types the MIME package defines, and none of the generic types (plain JSON,
# gzip) whose default it would otherwise become.
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
import configparser
import sys
import xml.etree.ElementTree as ET

GENERIC = {'application/json', 'application/gzip', 'application/x-gzip',
           'application/zstd', 'application/octet-stream', 'text/plain',
           'application/x-protobuf', 'inode/directory'}
CAPTURES = {'application/x-pytorch-trace+json', 'application/x-pytorch-trace+gzip',
            'application/x-chrome-trace+json', 'application/x-chrome-trace+gzip',
            'application/x-xplane+protobuf'}

desktop, mimexml = sys.argv[1:3]
cp = configparser.RawConfigParser(strict=False, interpolation=None)
cp.optionxform = str
cp.read(desktop, encoding='utf-8')
claimed = [t for t in cp['Desktop Entry'].get('MimeType', '').split(';') if t]
ns = '{http://www.freedesktop.org/standards/shared-mime-info}'
defined = {e.get('type') for e in ET.parse(mimexml).getroot().iter(ns + 'mime-type')}

status = 0
def fail(msg):
    global status
    print(msg, file=sys.stderr)
    status = 1

print('claimed:', ' '.join(claimed))
print('defined:', ' '.join(sorted(defined)))
if len(set(claimed)) != len(claimed):
    fail('a type is claimed twice')
for t in claimed:
    if t in GENERIC:
        fail('the launcher claims the generic type ' + t)
if set(claimed) != defined:
    fail('claimed but not defined: %s; defined but not claimed: %s' %
         (' '.join(sorted(set(claimed) - defined)) or '-',
          ' '.join(sorted(defined - set(claimed))) or '-'))
if set(claimed) != CAPTURES:
    fail('the capture types are %s' % ' '.join(sorted(CAPTURES)))
sys.exit(status)
