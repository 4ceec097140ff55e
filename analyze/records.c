/*
 * The record store: what the views, dimensions and filters read of the
 * per-sample records (analyze_int.h, "the record store"), after loading
 * made them and the dataspace attributed them to data.
 */
#include "analyze/analyze_int.h"

int ds_srec_visit(ds_session *s, ds_srec_fn *fn, void *ctx, ds_err *err)
{
	if (ds_dataspace_build(s, err))
		return -1;
	for (size_t i = 0; i < s->srecs.n; i++)
		if (ds_srec_kept(s, i))
			fn(s, i, &s->srecs.v[i], ctx);
	return 0;
}

uint64_t ds_srec_paddr(const ds_session *s, size_t i)
{
	return i < s->srec_paddr.n ? s->srec_paddr.v[i] : 0;
}

bool ds_srec_data_src(const ds_session *s, size_t i, uint64_t *src)
{
	if (i >= s->srec_data_src.n)
		return false;
	*src = s->srec_data_src.v[i];
	return *src != 0;
}

bool ds_srec_weight(const ds_session *s, size_t i, uint64_t *w)
{
	if (i >= s->srec_weight.n || !s->srec_weight.v[i])
		return false;
	*w = s->srec_weight.v[i];
	return true;
}

uint32_t ds_srec_size(const ds_session *s, const ds_srec *r)
{
	const site_ds *x = s->sites.v[r->site].ds;
	const ds_trigger *t;

	if (!x || (r->flags & (SR_KERNEL | SR_IFETCH)))
		return 0;
	t = &x->trig[(r->flags & SR_PRECISE) != 0];
	if (t->verdict != DS_BT_OK)
		return 0;
	return r->flags & SR_MEM2 ? t->mem2.size : t->mem.size;
}

void ds_srec_operands(const ds_session *s, size_t i, ds_access *a)
{
	const ds_srec *r = &s->srecs.v[i];
	uint64_t pa = ds_srec_paddr(s, i);

	a->v[DS_VADDR] = r->flags & SR_EA ? (int64_t)r->ea : -1;
	a->v[DS_PADDR] = pa ? (int64_t)pa : -1;
	a->v[DS_THRID] = s->threads.v[r->thread].tid;
	a->v[DS_CPUID] = r->cpu == UINT32_MAX ? -1 : (int64_t)r->cpu;
	a->v[DS_VIRTPC] = (int64_t)r->ip;
	a->v[DS_TSTAMP] = r->time == UINT64_MAX ? -1 : (int64_t)r->time;
	a->v[DS_ASITE] = a->v[DS_BLOCKOFF] = -1;
	if (i < s->heap.rec_block.n && s->heap.rec_block.v[i]) {
		const hblock *b = &s->heap.blocks.v[s->heap.rec_block.v[i] - 1];
		a->v[DS_ASITE] = b->site;
		a->v[DS_BLOCKOFF] = (int64_t)(r->ea - b->addr);
	}
}

/* The sums over the records the filter keeps, from zero. */
void ds_session_recount(ds_session *s)
{
	ds_zero_u64(s->site_samples.v, s->site_samples.n);
	ds_zero_u64(s->site_count.v, s->site_count.n);
	ds_zero_u64(s->thread_samples.v, s->thread_samples.n);
	ds_zero_u64(s->thread_count.v, s->thread_count.n);
	ds_zero_u64(s->chain_samples.v, s->chain_samples.n);
	ds_zero_u64(s->chain_count.v, s->chain_count.n);
	ds_zero_u64(s->ev_samples, s->nev);
	ds_zero_u64(s->ev_count, s->nev);
	s->nsamples = s->first_time = s->last_time = 0;
	for (size_t i = 0; i < s->srecs.n; i++)
		if (ds_srec_kept(s, i))
			ds_srec_count(s, &s->srecs.v[i]);
}
