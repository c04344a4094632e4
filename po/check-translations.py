#!/usr/bin/env python3
# check-translations.py: the translation checks of `meson test`.
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check-translations.py SOURCE_ROOT LANG...
#
# 1. po/POTFILES.in is sorted, names only files that exist, and names every
#    source, .ui and data file that has strings marked for translation.
# 2. A template made now from POTFILES.in (with the keywords of meson's
#    'glib' gettext preset) is merged into each po/LANG.po: every message must
#    be translated and none fuzzy, so a new or changed string that was not
#    translated fails here rather than showing up in English.
#
# Exits 77 (skipped) when the gettext tools are not installed.

import os
import re
import shutil
import subprocess
import sys
import tempfile

XGETTEXT_ARGS = [
    '--from-code=UTF-8', '--add-comments',
    '--keyword=_', '--keyword=N_', '--keyword=C_:1c,2', '--keyword=NC_:1c,2',
    '--keyword=g_dcgettext:2', '--keyword=g_dngettext:2,3', '--keyword=g_dpgettext2:2c,3',
    '--flag=N_:1:pass-c-format', '--flag=C_:2:pass-c-format', '--flag=NC_:2:pass-c-format',
    '--flag=g_dngettext:2:pass-c-format', '--flag=g_strdup_printf:1:c-format',
    '--flag=g_string_printf:2:c-format', '--flag=g_string_append_printf:2:c-format',
    '--flag=g_error_new:3:c-format', '--flag=g_set_error:4:c-format',
    '--flag=g_markup_printf_escaped:1:c-format', '--flag=g_log:3:c-format',
    '--flag=g_print:1:c-format', '--flag=g_printerr:1:c-format',
    '--flag=g_printf:1:c-format', '--flag=g_fprintf:2:c-format',
    '--flag=g_sprintf:2:c-format', '--flag=g_snprintf:3:c-format',
]

# Where translatable strings may live, relative to the source root.
CANDIDATE_DIRS = ('src', 'resources', 'data')
CANDIDATE_SUFFIXES = ('.c', '.ui', '.desktop.in', '.metainfo.xml.in', '.gschema.xml', '.mime.xml.in')


def fail(n, message):
    print('not ok %d - %s' % (n, message))
    return 1


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, **kwargs)


def candidates(root):
    found = []
    for top in CANDIDATE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(CANDIDATE_SUFFIXES):
                    found.append(os.path.relpath(os.path.join(dirpath, name), root))
    return found


def files_with_messages(root, files, tmp):
    """Runs xgettext once over FILES and returns the set that has messages."""
    listing = os.path.join(tmp, 'all-files')
    with open(listing, 'w') as f:
        f.write('\n'.join(files) + '\n')
    pot = os.path.join(tmp, 'all.pot')
    r = run(['xgettext', '--directory=' + root, '--files-from=' + listing,
             '--output=' + pot, '--no-wrap'] + XGETTEXT_ARGS)
    if r.returncode != 0:
        raise RuntimeError('xgettext failed on the candidate files:\n' + r.stderr)
    seen = set()
    if not os.path.exists(pot):
        return seen
    with open(pot, encoding='utf-8') as f:
        for line in f:
            if line.startswith('#: '):
                for ref in line[3:].split():
                    seen.add(re.sub(r':\d+$', '', ref))
    return seen


def main():
    if len(sys.argv) < 3:
        print('usage: check-translations.py SOURCE_ROOT LANG...', file=sys.stderr)
        return 2
    root = sys.argv[1]
    langs = sys.argv[2:]
    for tool in ('xgettext', 'msgmerge', 'msgfmt'):
        if shutil.which(tool) is None:
            print('1..0 # SKIP %s is not installed' % tool)
            return 77

    status = 0
    n = 0
    print('1..%d' % (3 + len(langs)))

    with open(os.path.join(root, 'po', 'POTFILES.in'), encoding='utf-8') as f:
        listed = [l.strip() for l in f if l.strip() and not l.startswith('#')]

    n += 1
    if listed != sorted(listed) or len(set(listed)) != len(listed):
        status |= fail(n, 'POTFILES.in is sorted and has no duplicates')
    else:
        print('ok %d - POTFILES.in is sorted' % n)

    n += 1
    gone = [p for p in listed if not os.path.isfile(os.path.join(root, p))]
    if gone:
        status |= fail(n, 'POTFILES.in names files that do not exist: ' + ', '.join(gone))
    else:
        print('ok %d - every file in POTFILES.in exists' % n)

    with tempfile.TemporaryDirectory() as tmp:
        n += 1
        unlisted = sorted(files_with_messages(root, candidates(root), tmp) - set(listed))
        if unlisted:
            status |= fail(n, 'files with translatable strings missing from POTFILES.in: '
                           + ', '.join(unlisted))
        else:
            print('ok %d - POTFILES.in names every file with translatable strings' % n)

        pot = os.path.join(tmp, 'chokepoint.pot')
        r = run(['xgettext', '--directory=' + root,
                 '--files-from=' + os.path.join(root, 'po', 'POTFILES.in'),
                 '--package-name=chokepoint', '--output=' + pot] + XGETTEXT_ARGS)
        if r.returncode != 0 or not os.path.exists(pot):
            print(r.stderr, file=sys.stderr)
            return fail(n + 1, 'xgettext could not make the template')

        for lang in langs:
            n += 1
            merged = os.path.join(tmp, lang + '.po')
            r = run(['msgmerge', '--quiet', '--no-fuzzy-matching', '--output-file=' + merged,
                     os.path.join(root, 'po', lang + '.po'), pot])
            if r.returncode != 0:
                print(r.stderr, file=sys.stderr)
                status |= fail(n, '%s.po merges with a fresh template' % lang)
                continue
            r = run(['msgfmt', '--check', '--statistics', '--output-file=/dev/null', merged],
                    env=dict(os.environ, LC_ALL='C'))
            stats = r.stderr.strip()
            untranslated = re.search(r'(\d+) untranslated', stats)
            fuzzy = re.search(r'(\d+) fuzzy', stats)
            if r.returncode != 0 or untranslated or fuzzy:
                r2 = run(['msgattrib', '--untranslated', '--no-obsolete', merged])
                missing = [l[7:80] for l in r2.stdout.splitlines() if l.startswith('msgid "') and l != 'msgid ""']
                print('# ' + stats.replace('\n', '\n# '))
                for m in missing[:20]:
                    print('# untranslated: ' + m)
                status |= fail(n, '%s.po translates every message of a fresh template (%s); '
                               'run `meson compile -C build chokepoint-pot chokepoint-update-po` '
                               'and translate the new entries' % (lang, stats))
            else:
                print('ok %d - %s.po is complete: %s' % (n, lang, stats))
    return status


if __name__ == '__main__':
    sys.exit(main())
