/* cp-application.c: the Chokepoint application (one window per capture)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "cp-application.h"
#include "cp-compare-window.h"
#include "cp-history-window.h"
#include "cp-renderer.h"
#include "cp-style.h"
#include "cp-job-window.h"
#include "cp-window-private.h"

struct _CpApplication
{
  AdwApplication  parent_instance;

  /* NULL when the schema is not installed (an uninstalled build run outside
   * `meson devenv`): the application then works but remembers nothing. */
  GSettings      *settings;

  /* The "Open Recent" submenu: recent_items is rebuilt from the settings. */
  GMenu          *recent_menu;
  GMenu          *recent_items;

  /* `--compare A B`: the two captures, taken out of the arguments. */
  char          **compare_args;
};

G_DEFINE_FINAL_TYPE (CpApplication, cp_application, ADW_TYPE_APPLICATION)

static const char *const website_url = "https://github.com/chokepoint/chokepoint";
static const char *const issues_url = "https://github.com/chokepoint/chokepoint/issues";

CpApplication *
cp_application_new (void)
{
  return cp_application_new_with_flags (G_APPLICATION_DEFAULT_FLAGS);
}

CpApplication *
cp_application_new_with_flags (GApplicationFlags extra_flags)
{
  return g_object_new (CP_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | extra_flags,
                       "resource-base-path", "/io/github/chokepoint/Chokepoint",
                       NULL);
}

GSettings *
cp_application_get_settings (CpApplication *self)
{
  g_return_val_if_fail (CP_IS_APPLICATION (self), NULL);

  return self->settings;
}

/* Recent captures ------------------------------------------------------- */

static gboolean
recent_file_is_gone (GFile *file)
{
  /* Only local files are checked: asking a network mount could block. */
  return g_file_is_native (file) && !g_file_query_exists (file, NULL);
}

/* Reads the list, drops missing files, duplicates and extra entries. */
static char **
read_recent (CpApplication *self,
             gboolean      *pruned)
{
  g_auto(GStrv) stored = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint kept = 0;

  *pruned = FALSE;
  if (self->settings == NULL)
    return g_new0 (char *, 1);

  stored = g_settings_get_strv (self->settings, "recent-captures");
  for (guint i = 0; stored[i] != NULL; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_uri (stored[i]);

      if (kept >= CP_RECENT_MAX || g_hash_table_contains (seen, stored[i]) ||
          recent_file_is_gone (file))
        {
          *pruned = TRUE;
          continue;
        }
      g_hash_table_add (seen, stored[i]);
      g_strv_builder_add (builder, stored[i]);
      kept++;
    }
  return g_strv_builder_end (builder);
}

char **
cp_application_dup_recent (CpApplication *self)
{
  gboolean pruned;

  g_return_val_if_fail (CP_IS_APPLICATION (self), NULL);

  return read_recent (self, &pruned);
}

void
cp_application_add_recent (CpApplication *self,
                           GFile         *file)
{
  g_autofree char *uri = NULL;
  g_auto(GStrv) recent = NULL;
  g_autoptr(GStrvBuilder) builder = NULL;
  gboolean pruned;
  guint n = 1;

  g_return_if_fail (CP_IS_APPLICATION (self));
  g_return_if_fail (G_IS_FILE (file));

  if (self->settings == NULL)
    return;

  uri = g_file_get_uri (file);
  recent = read_recent (self, &pruned);
  builder = g_strv_builder_new ();
  g_strv_builder_add (builder, uri);
  for (guint i = 0; recent[i] != NULL && n < CP_RECENT_MAX; i++)
    {
      if (g_strcmp0 (recent[i], uri) == 0)
        continue;
      g_strv_builder_add (builder, recent[i]);
      n++;
    }
  {
    g_auto(GStrv) list = g_strv_builder_end (builder);

    g_settings_set_strv (self->settings, "recent-captures", (const char * const *) list);
  }
}

/* The stored host paths of recent captures, less those no longer recent. */
static GVariant *
dup_recent_locations (CpApplication *self,
                      const char    *set_uri,
                      const char    *set_location)
{
  g_autoptr(GVariant) stored = g_settings_get_value (self->settings, "recent-locations");
  g_auto(GStrv) recent = NULL;
  GVariantBuilder builder;
  GVariantIter iter;
  const char *uri, *location;
  gboolean pruned;

  recent = read_recent (self, &pruned);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{ss}"));
  g_variant_iter_init (&iter, stored);
  while (g_variant_iter_next (&iter, "{&s&s}", &uri, &location))
    if (g_strv_contains ((const char * const *) recent, uri) && g_strcmp0 (uri, set_uri) != 0)
      g_variant_builder_add (&builder, "{ss}", uri, location);
  if (set_uri != NULL && set_location != NULL && g_strv_contains ((const char * const *) recent, set_uri))
    g_variant_builder_add (&builder, "{ss}", set_uri, set_location);
  return g_variant_ref_sink (g_variant_builder_end (&builder));
}

void
cp_application_set_recent_location (CpApplication *self,
                                    GFile         *file,
                                    const char    *location)
{
  g_autofree char *uri = NULL;
  g_autoptr(GVariant) locations = NULL;

  g_return_if_fail (CP_IS_APPLICATION (self));
  g_return_if_fail (G_IS_FILE (file));

  if (self->settings == NULL)
    return;
  uri = g_file_get_uri (file);
  locations = dup_recent_locations (self, uri, location);
  g_settings_set_value (self->settings, "recent-locations", locations);
}

char *
cp_application_dup_recent_location (CpApplication *self,
                                    GFile         *file)
{
  g_autoptr(GVariant) stored = NULL;
  g_autofree char *uri = NULL;
  char *location = NULL;

  g_return_val_if_fail (CP_IS_APPLICATION (self), NULL);
  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if (self->settings == NULL)
    return NULL;
  stored = g_settings_get_value (self->settings, "recent-locations");
  uri = g_file_get_uri (file);
  if (!g_variant_lookup (stored, uri, "s", &location))
    return NULL;
  return location;
}

GMenuModel *
cp_application_get_recent_menu (CpApplication *self)
{
  g_return_val_if_fail (CP_IS_APPLICATION (self), NULL);

  return G_MENU_MODEL (self->recent_menu);
}

/* A menu label for a file: its name, with the folder when two recent files
 * share a name. Underscores are doubled so they are not read as mnemonics. */
static char *
recent_label (GFile    *file,
              gboolean  with_folder)
{
  g_autofree char *base = g_file_get_basename (file);
  g_autofree char *name = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) parts = NULL;

  if (base == NULL)
    base = g_file_get_uri (file);
  name = g_filename_display_name (base);

  if (with_folder)
    {
      g_autoptr(GFile) parent = g_file_get_parent (file);
      g_autofree char *parent_base = parent ? g_file_get_basename (parent) : NULL;
      g_autofree char *parent_name = parent_base ? g_filename_display_name (parent_base) : NULL;

      if (parent_name != NULL)
        /* Translators: a recent capture whose name another one shares:
         * "file name — folder name". */
        text = g_strdup_printf (_("%s — %s"), name, parent_name);
    }
  if (text == NULL)
    text = g_strdup (name);

  parts = g_strsplit (text, "_", -1);
  return g_strjoinv ("__", parts);
}

/* The file a recent entry names for people: where the document portal
 * said it is, else the entry itself. */
static GFile *
recent_shown_file (CpApplication *self,
                   const char    *uri)
{
  g_autoptr(GFile) file = g_file_new_for_uri (uri);
  g_autofree char *location = cp_application_dup_recent_location (self, file);

  if (location != NULL)
    return g_file_new_for_path (location);
  return g_steal_pointer (&file);
}

static void
rebuild_recent_menu (CpApplication *self)
{
  g_auto(GStrv) recent = NULL;
  g_autoptr(GHashTable) name_count = NULL;
  gboolean pruned;

  recent = read_recent (self, &pruned);
  if (pruned)
    {
      /* This emits changed:: again, which finds nothing more to prune. */
      g_settings_set_strv (self->settings, "recent-captures", (const char * const *) recent);
      return;
    }

  name_count = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; recent[i] != NULL; i++)
    {
      g_autoptr(GFile) file = recent_shown_file (self, recent[i]);
      char *base = g_file_get_basename (file);
      guint count = GPOINTER_TO_UINT (g_hash_table_lookup (name_count, base));

      g_hash_table_replace (name_count, base, GUINT_TO_POINTER (count + 1));
    }

  g_menu_remove_all (self->recent_items);
  for (guint i = 0; recent[i] != NULL; i++)
    {
      g_autoptr(GFile) file = recent_shown_file (self, recent[i]);
      g_autofree char *base = g_file_get_basename (file);
      gboolean shared = GPOINTER_TO_UINT (g_hash_table_lookup (name_count, base)) > 1;
      g_autofree char *label = recent_label (file, shared);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target_value (item, "win.open-recent",
                                               g_variant_new_string (recent[i]));
      g_menu_append_item (self->recent_items, item);
    }

  if (recent[0] == NULL)
    /* app.no-recent is never enabled: the item only says the list is empty. */
    g_menu_append (self->recent_items, _("No Recent Captures"), "app.no-recent");

  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self),
                                                                            "clear-recent")),
                               recent[0] != NULL);
}

static void
recent_changed_cb (CpApplication *self,
                   const char    *key,
                   GSettings     *settings)
{
  rebuild_recent_menu (self);
}

/* Windows --------------------------------------------------------------- */

GtkWindow *
cp_application_new_window (CpApplication *self)
{
  g_return_val_if_fail (CP_IS_APPLICATION (self), NULL);

  return GTK_WINDOW (cp_window_new (self));
}

static CpWindow *
find_window (CpApplication *self,
             GFile         *file)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
    {
      if (!CP_IS_WINDOW (l->data))
        continue;
      if (file == NULL && cp_window_is_idle (l->data))
        return l->data;
      if (file != NULL && cp_window_get_file (l->data) != NULL &&
          g_file_equal (cp_window_get_file (l->data), file))
        return l->data;
    }
  return NULL;
}

GtkWindow *
cp_application_get_window_for (CpApplication *self,
                               GFile         *file,
                               gboolean      *existing)
{
  CpWindow *window;

  g_return_val_if_fail (CP_IS_APPLICATION (self), NULL);
  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (existing != NULL, NULL);

  *existing = FALSE;
  if ((window = find_window (self, file)) != NULL)
    {
      *existing = TRUE;
      return GTK_WINDOW (window);
    }
  if ((window = find_window (self, NULL)) != NULL)
    return GTK_WINDOW (window);

  {
    gboolean others = gtk_application_get_windows (GTK_APPLICATION (self)) != NULL;

    window = cp_window_new (self);
    _cp_window_set_made_for_capture (window, others);
  }
  return GTK_WINDOW (window);
}

void
cp_application_open_capture (CpApplication *self,
                             GFile         *file)
{
  GtkWindow *window;
  gboolean existing;

  g_return_if_fail (CP_IS_APPLICATION (self));
  g_return_if_fail (G_IS_FILE (file));

  /* A capture already open (or loading) is shown, not read twice. */
  window = cp_application_get_window_for (self, file, &existing);
  gtk_window_present (window);
  if (!existing)
    cp_window_open (CP_WINDOW (window), file);
}

/* Comparing two captures ----------------------------------------------- */

void
cp_application_compare (CpApplication *self,
                        GFile         *a,
                        GFile         *b)
{
  g_return_if_fail (CP_IS_APPLICATION (self));
  g_return_if_fail (G_IS_FILE (a) && G_IS_FILE (b));

  gtk_window_present (GTK_WINDOW (cp_compare_window_new (self, a, b)));
}

/* app.compare (ss): two URIs or paths, A (before) and B (after). */
static void
compare_action (GSimpleAction *action,
                GVariant      *param,
                gpointer       user_data)
{
  CpApplication *self = user_data;
  const char *a, *b;
  g_autoptr(GFile) file_a = NULL, file_b = NULL;

  g_variant_get (param, "(&s&s)", &a, &b);
  file_a = g_file_new_for_commandline_arg (a);
  file_b = g_file_new_for_commandline_arg (b);
  cp_application_compare (self, file_a, file_b);
}

void
cp_application_open_files (CpApplication *self,
                           GFile * const *files,
                           guint          n_files)
{
  g_return_if_fail (CP_IS_APPLICATION (self));

  /* Several files, or a folder of per-rank captures: the ranks of a job. */
  if (n_files > 1 || (n_files == 1 && cp_job_is_folder (files[0])))
    {
      CpJobWindow *window = cp_job_window_new (self);

      gtk_window_present (GTK_WINDOW (window));
      cp_job_window_open (window, files, n_files);
      return;
    }
  for (guint i = 0; i < n_files; i++)
    cp_application_open_capture (self, files[i]);
}

/* Actions --------------------------------------------------------------- */

static void
new_window_action (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  CpApplication *self = user_data;

  gtk_window_present (cp_application_new_window (self));
}

static void
quit_action (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  CpApplication *self = user_data;
  g_autoptr(GList) windows = NULL;

  /* Closing each window saves its size and cancels its load; the
   * application ends when the last one is gone. */
  windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (self)));
  for (GList *l = windows; l; l = l->next)
    gtk_window_close (l->data);
}

static void
clear_recent_action (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  CpApplication *self = user_data;

  if (self->settings != NULL)
    {
      g_settings_reset (self->settings, "recent-captures");
      g_settings_reset (self->settings, "recent-locations");
    }
}

/* What the About dialog says; AdwAboutDialog and AdwAboutWindow share the
 * properties. */
static void
describe_application (GObject *about)
{
  const char *developers[] = {
    "The Chokepoint contributors https://github.com/chokepoint/chokepoint/graphs/contributors",
    NULL
  };

  g_object_set (about,
                "application-name", _("Chokepoint"),
                "application-icon", APP_ID,
                "developer-name", _("The Chokepoint contributors"),
                "version", PACKAGE_VERSION,
                "website", website_url,
                "issue-url", issues_url,
                "copyright", _("© 2026 The Chokepoint contributors"),
                "license-type", GTK_LICENSE_GPL_3_0,
                "comments", _("Find out why your accelerator waits: Chokepoint draws "
                              "PyTorch, JAX and TensorFlow profiler captures on a timeline "
                              "and names the bottleneck."),
                "developers", developers,
                /* Translators: put your names here, one per line. */
                "translator-credits", _("translator-credits"),
                NULL);
}

static void
about_action (GSimpleAction *action,
              GVariant      *param,
              gpointer       user_data)
{
  CpApplication *self = user_data;
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));
  const char *formats[] = {
    "Chrome Trace Event Format https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU",
    "PyTorch Kineto https://github.com/pytorch/kineto",
    "OpenXLA XProf https://github.com/openxla/xprof",
    NULL
  };

#if ADW_CHECK_VERSION (1, 5, 0)
  AdwDialog *about = adw_about_dialog_new ();

  describe_application (G_OBJECT (about));
  adw_about_dialog_add_acknowledgement_section (ADW_ABOUT_DIALOG (about),
                                                _("Capture Formats"), formats);
  adw_dialog_present (about, parent ? GTK_WIDGET (parent) : NULL);
#else
  GtkWidget *about = adw_about_window_new ();

  gtk_window_set_transient_for (GTK_WINDOW (about), parent);
  gtk_window_set_modal (GTK_WINDOW (about), TRUE);
  describe_application (G_OBJECT (about));
  adw_about_window_add_acknowledgement_section (ADW_ABOUT_WINDOW (about),
                                                _("Capture Formats"), formats);
  gtk_window_present (GTK_WINDOW (about));
#endif
}

static const GActionEntry app_actions[] = {
  { "new-window", new_window_action },
  { "quit", quit_action },
  { "about", about_action },
  { "clear-recent", clear_recent_action },
  { "no-recent", NULL },
  { "compare", compare_action, "(ss)" },
};

/* GApplication ---------------------------------------------------------- */

static void
cp_application_startup (GApplication *app)
{
  CpApplication *self = CP_APPLICATION (app);
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GMenu) clear_section = g_menu_new ();
  static const struct {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "app.new-window", { "<Primary>n", NULL } },
    { "app.quit", { "<Primary>q", NULL } },
    { "win.find", { "<Primary>f", NULL } },
    { "win.open", { "<Primary>o", NULL } },
    { "win.open-folder", { "<Primary><Shift>o", NULL } },
    { "window.close", { "<Primary>w", NULL } },
    { "win.export-report", { "<Primary>e", NULL } },
    { "win.next-evidence", { "F8", NULL } },
    { "win.previous-evidence", { "<Shift>F8", NULL } },
  };

  gboolean theme_dark = cp_ui_style_take_gtk_theme ();
  const char *renderer = cp_ui_choose_renderer ();

  if (renderer != NULL)
    g_debug ("OpenGL would run in software here: drawing with GSK_RENDERER=%s", renderer);
  G_APPLICATION_CLASS (cp_application_parent_class)->startup (app);
  cp_ui_style_apply_gtk_theme (theme_dark);

  g_set_application_name (_("Chokepoint"));
  gtk_window_set_default_icon_name (APP_ID);

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema != NULL)
    self->settings = g_settings_new (APP_ID);
  else
    g_message ("The settings schema %s is not installed: window sizes and recent "
               "captures will not be remembered. Run from `meson devenv` or install.",
               APP_ID);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
  cp_history_add_app_actions (self);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self),
                                                                            "no-recent")),
                               FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accels[i].action,
                                           accels[i].accels);

  self->recent_menu = g_menu_new ();
  self->recent_items = g_menu_new ();
  g_menu_append_section (self->recent_menu, NULL, G_MENU_MODEL (self->recent_items));
  g_menu_append (clear_section, _("_Clear List"), "app.clear-recent");
  g_menu_append_section (self->recent_menu, NULL, G_MENU_MODEL (clear_section));
  if (self->settings != NULL)
    {
      g_signal_connect_object (self->settings, "changed::recent-captures",
                               G_CALLBACK (recent_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->settings, "changed::recent-locations",
                               G_CALLBACK (recent_changed_cb), self, G_CONNECT_SWAPPED);
    }
  rebuild_recent_menu (self);
}

static void
cp_application_activate (GApplication *app)
{
  CpApplication *self = CP_APPLICATION (app);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL)
    window = cp_application_new_window (self);
  gtk_window_present (window);
}

static void
cp_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  CpApplication *self = CP_APPLICATION (app);

  cp_application_open_files (self, files, n_files);
}

/* `--compare A B`: the two file arguments after --compare are taken out
 * here, before GApplication would open them as two windows. */
static gboolean
cp_application_local_command_line (GApplication   *app,
                                   char         ***arguments,
                                   int            *exit_status)
{
  CpApplication *self = CP_APPLICATION (app);
  char **argv = *arguments;
  gboolean compare = FALSE;
  GPtrArray *files = g_ptr_array_new ();
  guint out = 0;

  for (guint i = 0; argv[i] != NULL; i++)
    if (g_str_equal (argv[i], "--compare"))
      compare = TRUE;
  if (compare)
    {
      for (guint i = 0; argv[i] != NULL; i++)
        {
          if (i > 0 && argv[i][0] != '-' && files->len < 2)
            {
              g_ptr_array_add (files, argv[i]);
              continue;
            }
          argv[out++] = argv[i];
        }
      argv[out] = NULL;
      g_ptr_array_add (files, NULL);
      g_strfreev (self->compare_args);
      self->compare_args = (char **) g_ptr_array_free (files, FALSE);
    }
  else
    g_ptr_array_free (files, TRUE);

  return G_APPLICATION_CLASS (cp_application_parent_class)->local_command_line (app, arguments,
                                                                                exit_status);
}

static int
cp_application_handle_local_options (GApplication *app,
                                     GVariantDict *options)
{
  CpApplication *self = CP_APPLICATION (app);

  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("%s %s\n", "chokepoint", PACKAGE_VERSION);
      return 0;
    }
  if (g_variant_dict_contains (options, "compare"))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GFile) a = NULL, b = NULL;
      g_autofree char *uri_a = NULL, *uri_b = NULL;

      if (self->compare_args == NULL || g_strv_length (self->compare_args) != 2)
        {
          g_printerr (_("--compare needs two captures: chokepoint --compare BEFORE AFTER\n"));
          return 2;
        }
      /* Paths are made absolute here: a running instance has another
       * working folder. */
      a = g_file_new_for_commandline_arg (self->compare_args[0]);
      b = g_file_new_for_commandline_arg (self->compare_args[1]);
      uri_a = g_file_get_uri (a);
      uri_b = g_file_get_uri (b);
      if (!g_application_register (app, NULL, &error))
        {
          g_printerr ("%s\n", error->message);
          return 1;
        }
      g_action_group_activate_action (G_ACTION_GROUP (app), "compare",
                                      g_variant_new ("(ss)", uri_a, uri_b));
      return g_application_get_is_remote (app) ? 0 : -1;
    }
  return -1;
}

static void
cp_application_dispose (GObject *object)
{
  CpApplication *self = CP_APPLICATION (object);

  g_clear_object (&self->recent_items);
  g_clear_object (&self->recent_menu);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->compare_args, g_strfreev);

  G_OBJECT_CLASS (cp_application_parent_class)->dispose (object);
}

static void
cp_application_class_init (CpApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = cp_application_dispose;

  app_class->startup = cp_application_startup;
  app_class->activate = cp_application_activate;
  app_class->open = cp_application_open;
  app_class->handle_local_options = cp_application_handle_local_options;
  app_class->local_command_line = cp_application_local_command_line;
}

static void
cp_application_init (CpApplication *self)
{
  static const GOptionEntry options[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL },
    { "compare", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Compare two captures, before and after"), NULL },
    { NULL }
  };

  g_application_add_main_option_entries (G_APPLICATION (self), options);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[FILE…]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Open profiler captures (Chrome trace, PyTorch "
                                              "Profiler, XPlane) and find their bottlenecks.\n"
                                              "Without a window:\n"
                                              "  chokepoint info FILE       the summary of a capture\n"
                                              "  chokepoint diagnose FILE   its bottlenecks, with figures and fixes\n"
                                              "  chokepoint report FILE -o OUT.png   an annotated report\n"
                                              "  chokepoint compare A B     what changed from A to B\n"
                                              "Each of these takes --help."));
}
