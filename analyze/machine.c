/*
 * The machine an experiment's memory objects and cache lines are of: the
 * one it was recorded on (its meta.json), or a model file.  Its memory
 * objects (predefined, the machine's, the user's file and --mobj) and the
 * line size of each cache level are asked here by the dimensions, the
 * views and the filter.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>
#include <string.h>

/* The experiment's machine; a recording that kept none (an imported
 * perf.data) made on this very machine gets this machine's. */
static void experiment_machine(ds_session *s)
{
	ds_err e = {0};

	ds_machine_from_meta(&s->machine, &s->meta);
	if (s->machine.ncaches || s->machine.page_size || !s->same_machine)
		return;
	ds_machine_fini(&s->machine);
	ds_machine_sysfs(&s->machine, &e);
	ds_session_note_add(s, "the experiment does not describe its machine; memory objects use this "
			       "machine's caches and pages (the one it was recorded on)");
}

void ds_machine_ready(ds_session *s)
{
	if (!s->machine.source)
		experiment_machine(s);
}

static int make_mobjs(ds_session *s, ds_err *err)
{
	if (s->mobjs_ready)
		return 0;
	ds_machine_ready(s);
	ds_mobjs_init(&s->mobjs, &s->machine);
	if (ds_mobjs_add_user(&s->mobjs, NULL, err))
		goto fail;
	for (size_t i = 0; i < s->mobj_args.n; i++)
		if (ds_mobjs_add_option(&s->mobjs, s->mobj_args.v[i], err))
			goto fail;
	s->mobjs_ready = true;
	return 0;
fail:
	ds_mobjs_fini(&s->mobjs);
	return -1;
}

void ds_mobjs_drop(ds_session *s)
{
	if (s->mobjs_ready)
		ds_mobjs_fini(&s->mobjs);
	s->mobjs_ready = false;
}

int ds_session_add_mobj(ds_session *s, const char *arg, ds_err *err)
{
	if (make_mobjs(s, err) || ds_mobjs_add_option(&s->mobjs, arg, err))
		return -1;
	ds_vec_push(&s->mobj_args, ds_xstrdup(arg));
	return 0;
}

const ds_mobjs *ds_session_mobjs(ds_session *s, ds_err *err)
{
	return make_mobjs(s, err) ? NULL : &s->mobjs;
}

const ds_mobj *ds_session_mobj(ds_session *s, const char *name, ds_err *err)
{
	const ds_mobj *o;

	if (make_mobjs(s, err) || !(o = ds_mobjs_find(&s->mobjs, name, err)))
		return NULL;
	if (o->needs_paddr) {
		if (ds_dataspace_build(s, err))
			return NULL;
		if (!s->has_paddr) {
			ds_err_set(err, DS_EINPUT,
				   "memory object '%s' needs physical addresses (PADDR), and experiment '%s' "
				   "has none: " NO_PADDR_HINT, name, s->path);
			return NULL;
		}
	}
	return o;
}

int ds_session_line_size(ds_session *s, const char *level, bool fallback, unsigned *line, ds_err *err)
{
	const ds_cache_level *c;

	if (!level)
		level = "L1D";
	if (strcmp(level, "L1D") != 0 && strcmp(level, "L2") != 0 && strcmp(level, "L3") != 0)
		return ds_err_set(err, DS_EINPUT, "unknown cache level '%s' (L1D, L2 or L3)", level);
	ds_machine_ready(s);
	if (fallback && !s->machine.ncaches) {
		*line = DS_DEFAULT_LINE;
		ds_session_note_add(s, "the experiment describes no caches: cache lines are taken as %u bytes "
				       "(give --line-size N, or a machine model with --machine FILE)",
				    DS_DEFAULT_LINE);
		return 0;
	}
	c = ds_machine_level(&s->machine, level);
	if (!c || !c->line)
		return ds_err_set(err, DS_EINPUT,
				  "the machine of '%s' (%s) has no %s cache; give a machine model "
				  "(--machine FILE) or a line size (--line N)",
				  s->path, s->machine.source, level);
	*line = c->line;
	return 0;
}

int ds_view_line_size(ds_session *s, const ds_view_opts *o, unsigned *line, ds_err *err)
{
	*line = o ? o->line : 0;
	return !*line && ds_session_line_size(s, o ? o->level : NULL, true, line, err) ? -1 : 0;
}

void ds_session_mobjs_free(ds_session *s)
{
	ds_mobjs_drop(s);
	ds_machine_fini(&s->machine);
	for (size_t i = 0; i < s->mobj_args.n; i++)
		free(s->mobj_args.v[i]);
	ds_vec_free(&s->mobj_args);
}
