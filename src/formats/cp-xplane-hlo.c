/* cp-xplane-hlo.c: where each HLO op comes from, from the programs' HloProto
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * JAX and TensorFlow write each compiled program's HloProto as the "Hlo
 * Proto" stat of its event metadata on /host:metadata (the metadata id is
 * the program id). Its instructions' OpMetadata give the framework's name
 * of the op and where in the user's code it was made: source_file and
 * source_line, or, in newer JAX, stack_frame_id into the module's
 * StackFrameIndexProto. Field numbers are those of xla/service/hlo.proto
 * and xla/xla_data.proto:
 *
 *   HloProto.hlo_module = 1
 *   HloModuleProto.name = 1, computations = 3, stack_frame_index = 17
 *   HloComputationProto.instructions = 2
 *   HloInstructionProto.name = 1, metadata = 7
 *   OpMetadata.op_name = 2, source_file = 3, source_line = 4, stack_frame_id = 15
 *   StackFrameIndexProto.file_names = 1, function_names = 2,
 *     file_locations = 3 (file_name_id = 1, function_name_id = 2, line = 3),
 *     stack_frames = 4 (file_location_id = 1, parent_frame_id = 2);
 *   the ids are 1-based, 0 meaning none.
 */

#include "config.h"

#include <string.h>

#include "cp-protobuf.h"
#include "cp-xplane-private.h"

typedef struct
{
  GPtrArray *files;        /* const guint8 * spans: start, then length */
  GArray    *file_lens;
  GPtrArray *functions;
  GArray    *function_lens;
  GArray    *locations;    /* of Location */
  GArray    *frames;       /* of Frame */
} StackIndex;

typedef struct
{
  guint32 file, function;  /* 1-based */
  gint32  line;
} Location;

typedef struct
{
  guint32 location, parent;  /* 1-based */
} Frame;

static void
stack_index_init (StackIndex *x)
{
  x->files = g_ptr_array_new ();
  x->file_lens = g_array_new (FALSE, FALSE, sizeof (gsize));
  x->functions = g_ptr_array_new ();
  x->function_lens = g_array_new (FALSE, FALSE, sizeof (gsize));
  x->locations = g_array_new (FALSE, FALSE, sizeof (Location));
  x->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
}

static void
stack_index_clear (StackIndex *x)
{
  g_ptr_array_unref (x->files);
  g_array_unref (x->file_lens);
  g_ptr_array_unref (x->functions);
  g_array_unref (x->function_lens);
  g_array_unref (x->locations);
  g_array_unref (x->frames);
}

static void
read_stack_index (StackIndex       *x,
                  const CpPbField  *field)
{
  CpPbReader r;
  CpPbField f, g;

  cp_pb_reader_init (&r, field->data, field->len, 0);
  while (cp_pb_reader_next (&r, &f))
    {
      CpPbReader sub;

      if (f.wire_type != CP_PB_WIRE_LEN)
        continue;
      if (f.number == 1 || f.number == 2)
        {
          g_ptr_array_add (f.number == 1 ? x->files : x->functions, (gpointer) f.data);
          g_array_append_val (f.number == 1 ? x->file_lens : x->function_lens, f.len);
        }
      else if (f.number == 3)
        {
          Location loc = { 0, 0, 0 };

          cp_pb_reader_init (&sub, f.data, f.len, 0);
          while (cp_pb_reader_next (&sub, &g))
            if (g.wire_type == CP_PB_WIRE_VARINT)
              {
                if (g.number == 1)
                  loc.file = (guint32) MIN (g.value, G_MAXUINT32);
                else if (g.number == 2)
                  loc.function = (guint32) MIN (g.value, G_MAXUINT32);
                else if (g.number == 3)
                  loc.line = (gint32) CLAMP ((gint64) g.value, 0, G_MAXINT32);
              }
          g_array_append_val (x->locations, loc);
        }
      else if (f.number == 4)
        {
          Frame fr = { 0, 0 };

          cp_pb_reader_init (&sub, f.data, f.len, 0);
          while (cp_pb_reader_next (&sub, &g))
            if (g.wire_type == CP_PB_WIRE_VARINT)
              {
                if (g.number == 1)
                  fr.location = (guint32) MIN (g.value, G_MAXUINT32);
                else if (g.number == 2)
                  fr.parent = (guint32) MIN (g.value, G_MAXUINT32);
              }
          g_array_append_val (x->frames, fr);
        }
    }
}

static gboolean
is_library_file (const guint8 *name,
                 gsize         len)
{
  g_autofree char *s = g_strndup ((const char *) name, MIN (len, 4096));

  return strstr (s, "site-packages") != NULL || strstr (s, "dist-packages") != NULL || s[0] == '<';
}

/* The frame to show for stack frame id: the innermost whose file is the
 * user's (not site-packages or dist-packages), else the innermost. */
static const Location *
frame_location (const StackIndex *x,
                guint32           id)
{
  const Location *first = NULL;

  for (guint hops = 0; id > 0 && id <= x->frames->len && hops < x->frames->len; hops++)
    {
      const Frame *fr = &g_array_index (x->frames, Frame, id - 1);
      const Location *loc;

      if (fr->location == 0 || fr->location > x->locations->len)
        break;
      loc = &g_array_index (x->locations, Location, fr->location - 1);
      if (loc->file == 0 || loc->file > x->files->len)
        break;
      if (first == NULL)
        first = loc;
      if (!is_library_file (g_ptr_array_index (x->files, loc->file - 1),
                            g_array_index (x->file_lens, gsize, loc->file - 1)))
        return loc;
      id = fr->parent;
    }
  return first;
}

static CpStr
intern (CpTraceBuilder *b,
        const guint8   *data,
        gsize           len)
{
  g_autofree char *t = g_utf8_make_valid ((const char *) data, (gssize) MIN (len, 4096));

  return cp_trace_builder_intern (b, t, -1);
}

static void
read_instruction (CpTraceBuilder   *b,
                  const StackIndex *x,
                  CpXlaSource      *src,
                  const CpPbField  *field)
{
  CpPbReader r, m;
  CpPbField f, g;
  const guint8 *name = NULL, *op_name = NULL, *file = NULL;
  gsize name_len = 0, op_name_len = 0, file_len = 0;
  gint32 line = 0;
  guint32 frame = 0;
  gboolean has_metadata = FALSE;

  cp_pb_reader_init (&r, field->data, field->len, 0);
  while (cp_pb_reader_next (&r, &f))
    {
      if (f.number == 1 && f.wire_type == CP_PB_WIRE_LEN)
        {
          name = f.data;
          name_len = f.len;
        }
      else if (f.number == 7 && f.wire_type == CP_PB_WIRE_LEN)
        {
          has_metadata = TRUE;
          cp_pb_reader_init (&m, f.data, f.len, 0);
          while (cp_pb_reader_next (&m, &g))
            {
              if (g.number == 2 && g.wire_type == CP_PB_WIRE_LEN)
                op_name = g.data, op_name_len = g.len;
              else if (g.number == 3 && g.wire_type == CP_PB_WIRE_LEN)
                file = g.data, file_len = g.len;
              else if (g.number == 4 && g.wire_type == CP_PB_WIRE_VARINT)
                line = (gint32) CLAMP ((gint64) g.value, 0, G_MAXINT32);
              else if (g.number == 15 && g.wire_type == CP_PB_WIRE_VARINT)
                frame = (guint32) MIN (g.value, G_MAXUINT32);
            }
        }
    }
  if (name == NULL || name_len == 0 || !has_metadata || (op_name_len == 0 && file_len == 0 && frame == 0))
    return;
  src->hlo_op = intern (b, name, name_len);
  src->op_name = op_name_len > 0 ? intern (b, op_name, op_name_len) : CP_STR_EMPTY;
  src->file = CP_STR_EMPTY;
  src->function = CP_STR_EMPTY;
  src->line = 0;
  if (file_len > 0)
    {
      src->file = intern (b, file, file_len);
      src->line = line;
    }
  else if (frame > 0)
    {
      const Location *loc = frame_location (x, frame);

      if (loc != NULL)
        {
          src->file = intern (b, g_ptr_array_index (x->files, loc->file - 1),
                              g_array_index (x->file_lens, gsize, loc->file - 1));
          src->line = loc->line;
          if (loc->function > 0 && loc->function <= x->functions->len)
            src->function = intern (b, g_ptr_array_index (x->functions, loc->function - 1),
                                    g_array_index (x->function_lens, gsize, loc->function - 1));
        }
    }
  src->code = CP_STR_EMPTY;
  if (src->file != CP_STR_EMPTY)
    {
      g_autofree char *code = src->function != CP_STR_EMPTY
                              ? g_strdup_printf ("%s(%d): %s", cp_trace_builder_get_string (b, src->file), src->line,
                                                 cp_trace_builder_get_string (b, src->function))
                              : g_strdup_printf ("%s(%d)", cp_trace_builder_get_string (b, src->file), src->line);

      src->code = cp_trace_builder_intern (b, code, -1);
    }
  cp_trace_builder_add_xla_source (b, src);
}

guint
cp_xplane_read_hlo_proto (CpTraceBuilder *builder,
                          gint64          program_id,
                          const guint8   *data,
                          gsize           len)
{
  CpPbReader r, mod;
  CpPbField f, g, h;
  const guint8 *module = NULL;
  gsize module_len = 0;
  StackIndex x;
  CpXlaSource src = { 0 };
  guint before = 0;

  stack_index_init (&x);
  cp_pb_reader_init (&r, data, len, 0);
  while (cp_pb_reader_next (&r, &f))
    {
      if (f.number != 1 || f.wire_type != CP_PB_WIRE_LEN)
        continue;
      /* The stack frame index comes after the computations: first it. */
      cp_pb_reader_init (&mod, f.data, f.len, 0);
      while (cp_pb_reader_next (&mod, &g))
        {
          if (g.number == 1 && g.wire_type == CP_PB_WIRE_LEN)
            module = g.data, module_len = g.len;
          else if (g.number == 17 && g.wire_type == CP_PB_WIRE_LEN)
            read_stack_index (&x, &g);
        }
      src.program_id = program_id;
      src.module = module != NULL ? intern (builder, module, module_len) : CP_STR_EMPTY;
      cp_pb_reader_init (&mod, f.data, f.len, 0);
      while (cp_pb_reader_next (&mod, &g))
        {
          CpPbReader comp;

          if (g.number != 3 || g.wire_type != CP_PB_WIRE_LEN)
            continue;
          cp_pb_reader_init (&comp, g.data, g.len, 0);
          while (cp_pb_reader_next (&comp, &h))
            if (h.number == 2 && h.wire_type == CP_PB_WIRE_LEN)
              {
                read_instruction (builder, &x, &src, &h);
                before++;
              }
        }
    }
  stack_index_clear (&x);
  return before;
}
