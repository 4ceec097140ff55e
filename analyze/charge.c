/*
 * Charging samples to their triggers, for the views of code.
 *
 * An imprecise sample (cpu-clock, most counters) names the instruction
 * after the one that stalled: the skid.  Backtracking walks back from it
 * to the load or store the sample is charged to, and the data views read
 * that trigger.  The views of code (lines, pcs, source) charge it there
 * too, so that a line's cost is the cost of its own accesses, as Oracle's
 * analyzer does with its trigger PCs and as a precise event would: a
 * sample whose trigger backtracking found counts at the trigger's
 * instruction and line; one without (a branch target crossed, a call...)
 * stays at the instruction it was taken at.  The pcs view still shows
 * where the samples were taken, in its `sampled` column.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>

/* The site site si's samples of a precise event (or not) are charged to. */
static uint32_t charge_of(ds_session *s, size_t si, bool precise)
{
	const site *st = &s->sites.v[si];
	const site_ds *x = st->ds;
	const ds_trigger *t;

	if (!x || !x->done[precise] || !st->has_vaddr || s->dsos.v[st->dso].kernel)
		return (uint32_t)si;
	t = &x->trig[precise];
	/* distance 0: the sampled instruction is its own trigger */
	if (t->verdict != DS_BT_OK || t->distance == 0 || t->pc > st->vaddr || st->vaddr - t->pc > st->off)
		return (uint32_t)si;
	/* the trigger lies before it in the same function, so in the same
	 * segment: as many bytes before it in the file */
	return ds_session_site_at(s, st->dso, st->off - (st->vaddr - t->pc));
}

uint32_t ds_charged_site(ds_session *s, uint32_t si, bool precise)
{
	uint32_t *at;

	while (s->site_charge.n < 2 * s->sites.n)
		ds_vec_push(&s->site_charge, UINT32_MAX);
	at = &s->site_charge.v[2 * (size_t)si + precise];
	if (*at == UINT32_MAX) {
		uint32_t j = charge_of(s, si, precise); /* may add a site: then `at` moves */
		s->site_charge.v[2 * (size_t)si + precise] = j;
		return j;
	}
	return *at;
}

/* Whether backtracking found the trigger of site si's samples. */
static bool trigger_known(const ds_session *s, size_t si, bool precise)
{
	const site_ds *x = s->sites.v[si].ds;
	return x && x->done[precise] && x->trig[precise].verdict == DS_BT_OK;
}

static bool has_samples(const ds_session *s, size_t si)
{
	for (size_t e = 0; e < s->nev; e++)
		if (s->site_samples.v[si * s->nev + e])
			return true;
	return false;
}

void ds_charge_build(ds_session *s, ds_charge *c)
{
	size_t nev = s->nev, n0 = s->sites.n;
	bool *precise = ds_xcalloc(nev ? nev : 1, sizeof *precise);
	bool any_precise = false, any_imprecise = false;
	uint64_t *best, *skid_best;
	bool *best_known;

	memset(c, 0, sizeof *c);
	for (size_t e = 0; e < nev; e++) {
		precise[e] = ds_event_precise(ds_session_event(s, e));
		any_precise |= precise[e];
		any_imprecise |= !precise[e];
	}
	/* each site's charges, once per session: finding a trigger's site may
	 * add sites (a load that was never sampled itself) */
	for (size_t i = s->site_charge.n / 2; i < n0; i++) {
		ds_vec_push(&s->site_charge, UINT32_MAX);
		ds_vec_push(&s->site_charge, UINT32_MAX);
	}
	for (size_t i = 0; i < n0; i++) {
		if (!has_samples(s, i))
			continue;
		for (int p = 0; p < 2; p++)
			if ((p ? any_precise : any_imprecise) && s->site_charge.v[2 * i + p] == UINT32_MAX) {
				uint32_t j = charge_of(s, i, p);
				s->site_charge.v[2 * i + p] = j;
			}
	}

	c->nsites = s->sites.n;
	ds_vec_reserve(&c->samples, c->nsites * nev);
	ds_vec_reserve(&c->count, c->nsites * nev);
	c->samples.n = c->count.n = c->nsites * nev;
	ds_zero_u64(c->samples.v, c->samples.n);
	ds_zero_u64(c->count.v, c->count.n);
	ds_vec_reserve(&c->lead, c->nsites);
	ds_vec_reserve(&c->skid, c->nsites);
	ds_vec_reserve(&c->nskid, c->nsites);
	c->lead.n = c->skid.n = c->nskid.n = c->nsites;
	best = ds_xcalloc(c->nsites + 1, sizeof *best);
	best_known = ds_xcalloc(c->nsites + 1, sizeof *best_known);
	skid_best = ds_xcalloc(c->nsites + 1, sizeof *skid_best);
	for (size_t j = 0; j < c->nsites; j++) {
		c->lead.v[j] = c->skid.v[j] = UINT32_MAX;
		c->nskid.v[j] = 0;
	}

	for (size_t i = 0; i < n0; i++) {
		uint32_t to[2];
		bool known;
		if (!has_samples(s, i))
			continue;
		to[0] = s->site_charge.v[2 * i] == UINT32_MAX ? (uint32_t)i : s->site_charge.v[2 * i];
		to[1] = s->site_charge.v[2 * i + 1] == UINT32_MAX ? (uint32_t)i : s->site_charge.v[2 * i + 1];
		for (int p = 0; p < 2; p++) {
			uint32_t j = to[p];
			uint64_t n = 0;
			if (p == 1 && to[1] == to[0])
				break; /* one target: counted in one go */
			for (size_t e = 0; e < nev; e++) {
				if (to[0] != to[1] && precise[e] != (p == 1))
					continue;
				c->samples.v[j * nev + e] += s->site_samples.v[i * nev + e];
				c->count.v[j * nev + e] += s->site_count.v[i * nev + e];
				n += s->site_samples.v[i * nev + e];
			}
			if (!n)
				continue;
			/* the row is labelled by the samples whose access is
			 * known, the most of them; by the others only without */
			known = trigger_known(s, i, p == 1 || (to[0] == to[1] && !any_imprecise));
			if (c->lead.v[j] == UINT32_MAX || (known && !best_known[j]) ||
			    (known == best_known[j] && n > best[j])) {
				best[j] = n;
				best_known[j] = known;
				c->lead.v[j] = (uint32_t)i;
			}
			if (j != i) {
				c->nskid.v[j]++;
				if (n > skid_best[j] || c->skid.v[j] == UINT32_MAX) {
					skid_best[j] = n;
					c->skid.v[j] = (uint32_t)i;
				}
			}
		}
	}
	free(best);
	free(best_known);
	free(skid_best);
	free(precise);
}

bool ds_charge_has(const ds_session *s, const ds_charge *c, size_t j)
{
	for (size_t e = 0; e < s->nev; e++)
		if (c->samples.v[j * s->nev + e])
			return true;
	return false;
}

void ds_charge_add(const ds_session *s, const ds_charge *c, size_t j, ds_row *r)
{
	for (size_t e = 0; e < s->nev; e++) {
		r->samples[e] += c->samples.v[j * s->nev + e];
		r->count[e] += c->count.v[j * s->nev + e];
	}
}

uint64_t ds_charge_total(const ds_session *s, const ds_charge *c, size_t j)
{
	uint64_t n = 0;
	for (size_t e = 0; e < s->nev; e++)
		n += c->samples.v[j * s->nev + e];
	return n;
}

void ds_charge_free(ds_charge *c)
{
	ds_vec_free(&c->samples);
	ds_vec_free(&c->count);
	ds_vec_free(&c->lead);
	ds_vec_free(&c->skid);
	ds_vec_free(&c->nskid);
}
