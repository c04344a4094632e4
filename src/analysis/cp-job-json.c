/* cp-job-json.c: a job as JSON (docs/diagnose-json.md, "Jobs")
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>

#include "analysis/cp-analysis-private.h"
#include "analysis/cp-job-private.h"
#include "analysis/cp-json-util.h"

void
_cp_job_add_breakdown (JsonBuilder     *b,
                       const CpJobRank *r)
{
  json_builder_set_member_name (b, "breakdown_ns");
  json_builder_begin_object (b);
  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    _cp_json_add_int (b, cp_time_category_to_string (c), r->breakdown[c]);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "utilization");
  json_builder_begin_array (b);
  for (guint d = 0; d < r->n_devices; d++)
    json_builder_add_double_value (b, r->utilization[d]);
  json_builder_end_array (b);
}

static void
add_rank (JsonBuilder *b,
          Slot        *s)
{
  json_builder_begin_object (b);
  _cp_json_add_int (b, "rank", s->r.rank);
  _cp_json_add_string (b, "file", s->r.path);
  _cp_json_add_string (b, "rank_source", cp_rank_source_to_string (s->r.rank_source));
  if (s->r.world_size > 0)
    _cp_json_add_int (b, "world_size", s->r.world_size);
  else
    _cp_json_add_string (b, "world_size", NULL);
  _cp_json_add_string (b, "backend", s->r.backend);
  _cp_json_add_string (b, "host", s->r.host);
  _cp_json_add_int (b, "origin_abs_ns", s->r.origin_abs);
  _cp_json_add_int (b, "clock_offset_ns", s->r.clock_offset);
  _cp_json_add_int (b, "clock_residual_ns", s->r.clock_residual);
  json_builder_set_member_name (b, "clock_aligned");
  json_builder_add_boolean_value (b, s->r.clock_aligned);
  _cp_json_add_int (b, "to_job_ns", s->to_job);
  _cp_json_add_int (b, "n_steps", s->r.n_steps);
  _cp_json_add_int (b, "step_time_mean_ns", s->r.step.mean);
  _cp_job_add_breakdown (b, &s->r);
  json_builder_set_member_name (b, "device_collectives");
  json_builder_add_boolean_value (b, s->r.device_collectives);
  _cp_json_add_int (b, "n_collectives", s->r.n_collectives);
  _cp_json_add_int (b, "comm_ns", s->r.comm_time);
  _cp_json_add_int (b, "exposed_comm_ns", s->r.exposed_comm);
  _cp_json_add_int (b, "wait_ns", s->r.wait_time);
  _cp_json_add_int (b, "caused_wait_ns", s->r.caused_wait);
  _cp_json_add_int (b, "compute_per_step_ns", s->r.compute_time);
  _cp_json_add_confidence (b, "confidence", s->r.confidence,
                           s->r.confidence_reasons ? (const CpConfidenceReason *) s->r.confidence_reasons->data : NULL,
                           s->r.confidence_reasons ? s->r.confidence_reasons->len : 0);
  json_builder_end_object (b);
}

static void
add_collective (JsonBuilder           *b,
                CpJob                 *self,
                const CpJobCollective *c)
{
  json_builder_begin_object (b);
  _cp_json_add_string (b, "group", c->group);
  _cp_json_add_int (b, "index", c->index);
  _cp_json_add_string (b, "name", c->name);
  if (c->bytes >= 0)
    _cp_json_add_int (b, "bytes", c->bytes);
  else
    _cp_json_add_string (b, "bytes", NULL);
  _cp_json_add_string (b, "dtype", c->dtype);
  if (c->group_size > 0)
    _cp_json_add_int (b, "group_size", c->group_size);
  else
    _cp_json_add_string (b, "group_size", NULL);
  _cp_json_add_int (b, "first_arrival_ns", c->first_arrival);
  _cp_json_add_int (b, "skew_ns", c->skew);
  _cp_json_add_int (b, "last_rank", self->slots[self->order[c->last_rank]].r.rank);
  _cp_json_add_int (b, "wait_ns", c->wait_total);
  _cp_json_add_int (b, "transfer_ns", c->transfer_time);
  _cp_json_add_double (b, "bus_bandwidth_gbps", c->bus_bandwidth);
  _cp_json_add_string (b, "mismatch", c->mismatch);
  json_builder_set_member_name (b, "ranks");
  json_builder_begin_array (b);
  for (guint k = 0; k < self->n_ranks; k++)
    {
      json_builder_begin_object (b);
      _cp_json_add_int (b, "rank", self->slots[self->order[k]].r.rank);
      _cp_json_add_int (b, "arrival_ns", c->arrival[k]);
      _cp_json_add_int (b, "end_ns", c->end[k]);
      _cp_json_add_int (b, "duration_ns", c->end[k] - c->arrival[k]);
      _cp_json_add_int (b, "wait_ns", c->last_arrival - c->arrival[k]);
      _cp_json_add_int (b, "exposed_ns", c->exposed[k]);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

char *
cp_job_to_json (CpJob    *self,
                gboolean  pretty)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  _cp_json_add_string (b, "schema", "chokepoint-job/1");
  json_builder_set_member_name (b, "job");
  json_builder_begin_object (b);
  if (self->world_size > 0)
    _cp_json_add_int (b, "world_size", self->world_size);
  else
    _cp_json_add_string (b, "world_size", NULL);
  _cp_json_add_int (b, "n_ranks", self->n_ranks);
  _cp_json_add_int (b, "n_files", self->n_slots);
  json_builder_set_member_name (b, "clock_alignment");
  json_builder_add_boolean_value (b, self->align);
  _cp_json_add_int (b, "n_collectives", self->n_colls);
  _cp_json_add_int (b, "n_mismatches", self->n_mismatches);
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->notes->len && g_ptr_array_index (self->notes, i) != NULL; i++)
    json_builder_add_string_value (b, g_ptr_array_index (self->notes, i));
  json_builder_end_array (b);
  {
    g_autoptr(GArray) reasons = NULL;
    CpConfidenceLevel level = cp_job_get_confidence (self, &reasons);

    _cp_json_add_confidence (b, "confidence", level, (const CpConfidenceReason *) reasons->data, reasons->len);
  }
  json_builder_end_object (b);

  json_builder_set_member_name (b, "ranks");
  json_builder_begin_array (b);
  for (guint k = 0; k < self->n_ranks; k++)
    add_rank (b, &self->slots[self->order[k]]);
  json_builder_end_array (b);

  json_builder_set_member_name (b, "collectives");
  json_builder_begin_array (b);
  for (guint c = 0; c < self->n_colls; c++)
    add_collective (b, self, &self->colls[c]);
  json_builder_end_array (b);

  json_builder_set_member_name (b, "findings");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->findings->len; i++)
    {
      const CpJobFinding *f = &g_array_index (self->findings, CpJobFinding, i);

      json_builder_begin_object (b);
      _cp_json_add_string (b, "id", f->id);
      _cp_json_add_string (b, "severity", cp_severity_to_string (f->severity));
      _cp_json_add_string (b, "title", f->title);
      _cp_json_add_string (b, "summary", f->summary);
      if (f->rank >= 0)
        _cp_json_add_int (b, "rank", f->rank);
      else
        _cp_json_add_string (b, "rank", NULL);
      _cp_json_add_int (b, "time_at_stake_ns", f->time_at_stake);
      json_builder_set_member_name (b, "fixes");
      json_builder_begin_object (b);
      for (guint fw = 0; fw < CP_N_FRAMEWORKS; fw++)
        {
          json_builder_set_member_name (b, cp_framework_to_string (fw));
          json_builder_begin_array (b);
          for (guint j = 0; j < 3 && f->fixes[fw][j] != NULL; j++)
            json_builder_add_string_value (b, f->fixes[fw][j]);
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}
