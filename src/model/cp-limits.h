/* cp-limits.h: every limit the readers enforce on their input, in one place
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

/* docs/limits.md explains each limit, what happens past it and the message
 * that names it; tests/test-limits.c checks that the two agree. Change a
 * value here and there together. Plain #defines only. It lives in model/
 * because the load report counts against these limits, and the model
 * includes nothing from the folders above it. */

/* --- Compressed input (cp-source.c) ------------------------------------ */

/* Once CP_SOURCE_RATIO_GRACE bytes were produced, output larger than
 * CP_SOURCE_MAX_RATIO times the compressed input read so far is refused as a
 * decompression bomb (CP_TRACE_ERROR_LIMIT). Real captures compress 10x to
 * 60x. */
#define CP_SOURCE_MAX_RATIO          1000
#define CP_SOURCE_RATIO_GRACE        (16u * 1024u * 1024u)

/* --- JSON text (cp-json-tokenizer.c) ----------------------------------- */

/* A document nested deeper than this is refused (CP_JSON_ERROR_LIMIT).
 * Containers the Chrome reader skips (event arguments, unknown top-level
 * values) are scanned without a stack, so their depth is not limited. */
#define CP_JSON_MAX_DEPTH            10000
/* A string, key or number longer than this many bytes is refused. */
#define CP_JSON_MAX_STRING           (64u * 1024u * 1024u)

/* --- Chrome trace (cp-chrome-*.c) -------------------------------------- */

/* Top-level values other than the events are kept as metadata up to this
 * size each; larger ones are dropped with a warning. */
#define CP_CHROME_MAX_METADATA       (4u * 1024u * 1024u)
/* Arguments of one event are kept up to this size; larger ones are dropped
 * with a warning (the event itself is kept). */
#define CP_CHROME_MAX_ARGS           (16u * 1024u * 1024u)

/* --- JSON handed to json-glib (cp-args.c, deviceProperties) ----------- */

/* json-glib's parser recurses once per nesting level and overflows the
 * stack past some tens of thousands of levels, while the readers skip event
 * arguments and metadata without any depth limit. JSON text nested deeper
 * than this is therefore never given to json-glib: such event arguments
 * are not decoded (the Details pane says why) and such deviceProperties
 * are not read (a load-report warning says so). */
#define CP_JSON_MAX_DOM_DEPTH        512

/* --- Protobuf (cp-protobuf.c) ------------------------------------------ */

/* A varint longer than this is damage. */
#define CP_PB_MAX_VARINT_BYTES       10
/* Groups (wire types 3/4) nested deeper than this inside a skipped field
 * are refused. */
#define CP_PB_MAX_GROUP_DEPTH        64
/* Nested readers made with cp_pb_reader_init_sub() refuse to go deeper. */
#define CP_PB_MAX_DEPTH              32

/* --- XPlane (cp-xplane-*.c) -------------------------------------------- */

/* Lines with events beyond this many lanes per plane are skipped, with a
 * warning (a plane with a million threads is damage or abuse, not
 * something to draw). */
#define CP_XPLANE_MAX_LANES_PER_PLANE 10000
/* Metadata of bookkeeping planes: at most this many names listed per plane,
 * and strings cut to this many bytes. */
#define CP_XPLANE_MAX_METADATA_NAMES  200
#define CP_XPLANE_MAX_METADATA_STRING 4096
/* A compressed XPlane file is decompressed into memory: at most this many
 * bytes (4 GiB - 1); past that the user is asked to decompress it. */
#define CP_XPLANE_MAX_DECOMPRESSED    0xffffffffu
/* Up to this many decompressed bytes stay in memory; past that they go to
 * an unlinked temporary file in the cache folder, mapped for reading, so the
 * peak follows the model rather than the decompressed size. */
#define CP_XPLANE_INFLATE_IN_MEMORY   (256u * 1024u * 1024u)

/* --- Memory (cp-loader.c) ---------------------------------------------- */

/* A load whose estimated peak passes this many bytes is announced before it
 * starts (the command line prints it, the window shows it). */
#define CP_LOAD_MEMORY_NOTICE        (G_GUINT64_CONSTANT (2) << 30)

/* --- Mapped files (cp-mapping.c) --------------------------------------- */

/* Files mapped at once with the SIGBUS guard; further files are read into
 * memory instead. */
#define CP_MAPPING_MAX_GUARDED       256

/* --- The model (src/model) --------------------------------------------- */

/* A load report keeps at most this many warnings; more are counted. */
#define CP_LOAD_REPORT_MAX_WARNINGS  200
/* Overlapping slices of one lane are laid out on at most this many rows;
 * deeper ones share the last row. */
#define CP_LANE_MAX_ROWS             1024
