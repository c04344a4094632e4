#!/usr/bin/python3
# drag-source.py MODE FILE: a small GTK 4 window whose whole area drags FILE,
# for flatpak/check.sh to drop on the sandboxed app with the pointer.
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# MODE "files" offers a file list, the way a GTK 4 file manager does: GTK
# serialises it through the file transfer portal
# (application/vnd.portal.filetransfer) when the document portal runs on the
# session bus, and as text/uri-list. MODE "uri-list" offers only
# text/uri-list, as an application started before the portal or a non-GTK
# file manager on X11 does. The window is titled "drag-source MODE" so that
# the caller finds it with xwininfo; the offered formats are printed when a
# drag starts.
import sys

import gi

gi.require_version('Gdk', '4.0')
gi.require_version('Gtk', '4.0')
from gi.repository import Gdk, Gio, GLib, GObject, Gtk  # noqa: E402

if len(sys.argv) != 3 or sys.argv[1] not in ('files', 'uri-list'):
    sys.exit('usage: drag-source.py files|uri-list FILE')
mode, path = sys.argv[1:3]
file = Gio.File.new_for_path(path)


def prepare(source, x, y):
    if mode == 'files':
        files = Gdk.FileList.new_from_list([file])
        provider = Gdk.ContentProvider.new_for_value(GObject.Value(Gdk.FileList, files))
    else:
        data = GLib.Bytes.new((file.get_uri() + '\r\n').encode())
        provider = Gdk.ContentProvider.new_for_bytes('text/uri-list', data)
    offered = provider.ref_formats().union_serialize_mime_types()
    print('drag-source: offering', offered.to_string(), flush=True)
    return provider


def end(source, drag, delete):
    print('drag-source: drag ended', flush=True)


def activate(app):
    win = Gtk.ApplicationWindow(application=app, title='drag-source ' + mode)
    win.set_default_size(160, 160)
    label = Gtk.Label(label='drag me')
    source = Gtk.DragSource(actions=Gdk.DragAction.COPY)
    source.connect('prepare', prepare)
    source.connect('drag-end', end)
    label.add_controller(source)
    win.set_child(label)
    win.present()


app = Gtk.Application(application_id='io.github.chokepoint.DragSource',
                      flags=Gio.ApplicationFlags.NON_UNIQUE)
app.connect('activate', activate)
sys.exit(app.run([sys.argv[0]]))
