/*
 * Cross-checking a timer's data views with a recording that counts misses
 * (report --cross EXP).
 *
 * A timer sample is charged to the load or store before the interrupted
 * instruction, with the time of whatever stalled there: a miss, or a
 * mispredicted branch or a divide that was no memory access.  A recording
 * of the same program whose events count misses at the exact access (the
 * simulator's, a PMU's precise ones) tells them apart: a data object whose
 * samples all sit at accesses that never missed there took its time for
 * something else.  The check goes by instruction: the trigger's module and
 * address in one, the sampled access's in the other.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* An event that counts misses at the access: sim:L1D_MISS, sim:HITM,
 * a PMU's MEM_LOAD_RETIRED.L1_MISS... */
static bool counts_misses(const char *name)
{
	return strcasestr(name, "MISS") || strcasestr(name, "HITM");
}

static void access_key(ds_buf *key, const char *module, uint64_t vaddr)
{
	key->len = 0;
	ds_buf_puts(key, module);
	ds_buf_putc(key, '\0');
	ds_buf_append(key, &vaddr, sizeof vaddr);
}

int ds_session_set_cross(ds_session *s, ds_session *x, ds_err *err)
{
	ds_buf key = {0};
	bool any = false;

	if (ds_dataspace_build(s, err) || ds_dataspace_build(x, err))
		return -1;
	for (size_t e = 0; e < x->nev; e++)
		any |= counts_misses(ds_session_event_name(x, e));
	if (!any)
		return ds_err_set(err, DS_EINPUT,
				  "--cross: experiment '%s' counts no misses (its events: %s...); record one with "
				  "'dsprof record --sim'",
				  x->path, x->nev ? ds_session_event_name(x, 0) : "none");
	ds_hash_free(s->cross_index);
	s->cross_index = ds_hash_new();
	s->cross_misses.n = 0;
	free(s->cross_path);
	s->cross_path = ds_xstrdup(x->path);
	for (size_t i = 0; i < x->srecs.n; i++) {
		const ds_srec *r = &x->srecs.v[i];
		const site *st;
		bool added;
		size_t k;

		if ((r->flags & SR_KERNEL) || !counts_misses(ds_session_event_name(x, r->ev)))
			continue;
		ds_site_resolve(x, r->site, false);
		st = &x->sites.v[r->site];
		if (!st->has_vaddr)
			continue;
		access_key(&key, x->dsos.v[st->dso].module, st->vaddr);
		k = ds_hash_intern(s->cross_index, key.p, key.len, &added);
		if (added)
			ds_vec_push(&s->cross_misses, 0);
		s->cross_misses.v[k]++;
	}
	ds_buf_free(&key);
	return 0;
}

int64_t ds_cross_misses(ds_session *s, uint32_t si, bool precise)
{
	const site *st = &s->sites.v[si];
	const ds_trigger *t;
	ds_buf key = {0};
	int64_t k;

	if (!s->cross_index || !st->ds)
		return -1;
	t = &st->ds->trig[precise];
	if (t->verdict != DS_BT_OK)
		return -1;
	access_key(&key, s->dsos.v[st->dso].module, t->pc);
	k = ds_hash_find(s->cross_index, key.p, key.len);
	ds_buf_free(&key);
	return k < 0 ? 0 : (int64_t)s->cross_misses.v[k];
}
