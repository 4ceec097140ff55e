/*
 * Call chains from a copy of the user stack (`--call-graph dwarf`, and
 * perf's recordings made so): every frame from the sampled registers,
 * through the call-frame information of whichever object holds each
 * address (dwarfmap/unwind.c), as `perf report --call-graph dwarf` does.
 *
 * Where an object has no CFI for an address (hand-written code, JIT, an
 * object whose file cannot be read), the frame pointer takes over for that
 * frame when it points into the copy.
 * The chain ends for a named reason, counted per session: the thread's
 * first frame (the normal end), the copy's end, an address outside every
 * object, a frame that does not move up the stack, and so on.
 *
 * Cost: each distinct code address is looked up once per object (its CFI
 * row is kept, cfi.c), and a frame is then one read from the copy, its
 * return address: saved registers are read only when a rule needs them.
 */
#include "analyze/analyze_int.h"

#include <stdlib.h>
#include <string.h>

/* perf's own limit (PERF_MAX_STACK_DEPTH) */
#define MAX_FRAMES 127

static const char *const end_names[DS_CHAIN_NENDS] = {
	[DS_CHAIN_OUTERMOST] = "the thread's first frame",
	[DS_CHAIN_STACK_END] = "stack copy exhausted",
	[DS_CHAIN_NO_CFI] = "no CFI and no frame pointer",
	[DS_CHAIN_BAD_CFI] = "CFI that cannot be evaluated",
	[DS_CHAIN_BAD_RA] = "return address outside every object",
	[DS_CHAIN_NO_PROGRESS] = "frame does not move up the stack",
	[DS_CHAIN_DEPTH] = "127 frames",
	[DS_CHAIN_NO_REGS] = "no sampled registers",
};

const char *ds_chain_end_name(int end)
{
	return end >= 0 && end < DS_CHAIN_NENDS ? end_names[end] : "?";
}

typedef struct copy {
	const uint8_t *bytes;
	uint64_t base, size; /* the copy holds [base, base + size) */
} copy;

static bool read_copy(void *ctx, uint64_t addr, uint64_t *val)
{
	const copy *c = ctx;

	if (addr < c->base || addr - c->base > c->size || c->size - (addr - c->base) < 8)
		return false;
	memcpy(val, c->bytes + (addr - c->base), 8);
	return true;
}

/* The sampled registers by DWARF number.  Where each is in the sample
 * depends on the mask alone, the same in every sample of an event: found
 * once, by reading "registers" that are their own indexes. */
static bool sampled_regs(ds_session *s, const ds_arch *arch, const ds_sample *sm, ds_uregs *regs)
{
	regs->known = regs->deferred = 0;
	if (!sm->regs_abi || !sm->regs)
		return false;
	if (!s->regs_memo.set || s->regs_memo.mask != sm->regs_mask) {
		uint64_t index[64];
		for (int i = 0; i < 64; i++)
			index[i] = (uint64_t)i;
		s->regs_memo.set = true;
		s->regs_memo.mask = sm->regs_mask;
		for (int r = 0; r < DS_UNWIND_NREGS; r++) {
			uint64_t at;
			s->regs_memo.at[r] = ds_arch_sampled_reg(arch, sm->regs_mask, index, r, &at) ? (int8_t)at : -1;
		}
	}
	for (int r = 0; r < DS_UNWIND_NREGS; r++)
		if (s->regs_memo.at[r] >= 0) {
			regs->v[r] = sm->regs[s->regs_memo.at[r]];
			regs->known |= 1ull << r;
		}
	return true;
}

static bool known(const ds_uregs *r, int reg)
{
	return reg >= 0 && reg < DS_UNWIND_NREGS && (r->known & (1ull << reg));
}

/* One frame up by the frame pointer: the saved frame pointer at fp, the
 * return address above it.  -1 when it stepped, else why the chain ends. */
static int fp_step(const ds_arch *arch, const ds_unwind_env *env, ds_uregs *regs, uint64_t *ra)
{
	const copy *c = env->ctx;
	int fp = ds_arch_dwarf_fp(arch), sp = ds_arch_dwarf_sp(arch);
	uint64_t f, saved;

	if (!ds_uregs_get(regs, fp, env, &f) || !known(regs, sp) || f < regs->v[sp])
		return DS_CHAIN_NO_CFI;
	if (!read_copy(env->ctx, f, &saved) || !read_copy(env->ctx, f + 8, ra))
		return f >= c->base + c->size ? DS_CHAIN_STACK_END : DS_CHAIN_NO_CFI;
	regs->v[fp] = saved;
	regs->v[sp] = f + 16;
	return -1;
}

/* The walk of ds_session_unwind; sps (NULL: not wanted) gets each frame's
 * stack pointer, the bottom of the frame (its top is the next one's).
 * Given ras, the frames' addresses as a call chain has them (the sampled
 * one first), each caller's is taken from it instead of the copy: the CFI
 * then gives the extent of every frame whose stack pointer it can compute
 * without reading the stack. */
static int walk(ds_session *s, const ds_sample *sm, ds_vec_u64 *out, ds_vec_u32 *sites, ds_vec_u64 *sps,
		const uint64_t *ras, size_t nras)
{
	const ds_arch *arch = ds_arch_host();
	int sp = ds_arch_dwarf_sp(arch), ip = ds_arch_dwarf_ip(arch);
	uint64_t t = (sm->type & PERF_SAMPLE_TIME) ? sm->time : UINT64_MAX;
	ds_unwind_env env = {.sp_reg = sp, .read = read_copy};
	copy c = {sm->stack, 0, sm->stack_size};
	bool exact = true;
	ds_uregs regs;

	/* the walk reads words up the copy in an order only the CFI knows, each
	 * line of it from memory: asked for together, all of them (measured on
	 * SQLite: the first 1 KiB, 2 KiB or all 4 KiB take 8%, 9%, 21% off the
	 * report), they come in parallel */
	for (size_t o = 0; o < sm->stack_size; o += 64)
		__builtin_prefetch(sm->stack + o);
	if (!sampled_regs(s, arch, sm, &regs) || !known(&regs, sp) || !known(&regs, ip))
		return DS_CHAIN_NO_REGS;
	c.base = regs.v[sp];
	env.ctx = &c;
	for (size_t n = 0; n < MAX_FRAMES; n++) {
		uint64_t pc = regs.v[ip], at = exact ? pc : pc - 1, ra = 0, old_sp = regs.v[sp];
		uint32_t si;
		const site *st;
		int rc;

		ds_vec_push(out, pc);
		if (sps)
			ds_vec_push(sps, old_sp);
		si = ds_session_site(s, sm->pid, t, at, false);
		if (sites)
			ds_vec_push(sites, n == 0 || !exact ? si : UINT32_MAX);
		ds_site_resolve(s, si, false);
		st = &s->sites.v[si];
		if (st->dso == DSO_UNKNOWN || s->dsos.v[st->dso].kernel)
			return DS_CHAIN_BAD_RA;
		/* an object that cannot be read has no CFI to go by */
		rc = DS_UNWIND_NO_CFI;
		if (ras && n + 1 >= nras)
			return DS_CHAIN_STACK_END;
		if (ras) {
			env.has_ra = true;
			env.ra = ras[n + 1];
		}
		if (st->has_vaddr && s->dsos.v[st->dso].dso) {
			env.bias = at - st->vaddr;
			rc = ds_dso_unwind_step(s->dsos.v[st->dso].dso, st->vaddr, &env, &regs, &ra, &exact);
		}
		if (rc == DS_UNWIND_OUTERMOST)
			return DS_CHAIN_OUTERMOST;
		if (rc == DS_UNWIND_NO_MEMORY)
			return DS_CHAIN_STACK_END;
		if (rc == DS_UNWIND_BAD_CFI)
			return DS_CHAIN_BAD_CFI;
		if (rc == DS_UNWIND_NO_CFI) {
			int end = fp_step(arch, &env, &regs, &ra);
			if (end >= 0)
				return end;
			exact = false;
		}
		if (ra == 0) /* where some runtimes end the chain (clone's child) */
			return DS_CHAIN_OUTERMOST;
		/* A caller's frame lies above its callee's; a signal frame's
		 * interrupted code may reuse the same stack pointer no lower. */
		if (!known(&regs, sp) || regs.v[sp] < old_sp || (regs.v[sp] == old_sp && !exact))
			return DS_CHAIN_NO_PROGRESS;
		regs.v[ip] = ra;
		regs.known |= 1ull << ip;
	}
	return DS_CHAIN_DEPTH;
}

int ds_session_unwind(ds_session *s, const ds_sample *sm, ds_vec_u64 *out, ds_vec_u32 *sites)
{
	return walk(s, sm, out, sites, NULL, NULL, 0);
}

/* Below the stack pointer, the leaf's frame has the 128 bytes of the
 * System V red zone (a leaf function's locals, never moved off). */
#define RED_ZONE 128

/* The user-space part of a sample's call chain, or NULL. */
static const uint64_t *user_chain(const ds_sample *sm, size_t *n)
{
	for (uint64_t i = 0; i < sm->nr_callchain; i++)
		if (sm->callchain[i] == (uint64_t)PERF_CONTEXT_USER) {
			size_t e = (size_t)i + 1;
			while (e < sm->nr_callchain && sm->callchain[e] < (uint64_t)PERF_CONTEXT_MAX)
				e++;
			*n = e - ((size_t)i + 1);
			return *n ? sm->callchain + i + 1 : NULL;
		}
	return NULL;
}

int ds_session_stack_frame(ds_session *s, const ds_sample *sm, uint64_t ea, uint32_t *frame_site)
{
	ds_vec_u64 pcs = {0}, sps = {0};
	uint64_t t = (sm->type & PERF_SAMPLE_TIME) ? sm->time : UINT64_MAX;
	const uint64_t *ras = NULL;
	size_t nras = 0;
	int end, found = 0;

	/* a heap or image address: no walk (the caller asks of every scalar) */
	if (!ds_session_in_stack(s, sm->pid, ea))
		return -1;
	/* a recording's copy is gone once its chain is written (finish.c) */
	if (!sm->stack_size && !(ras = user_chain(sm, &nras)))
		return 0;
	end = walk(s, sm, &pcs, NULL, &sps, ras, nras);

	for (size_t n = 0; n < sps.n && !found; n++) {
		uint64_t lo = n ? sps.v[n] : sps.v[n] - RED_ZONE;
		/* the first frame of the thread reaches up to the stack's top */
		bool top = n + 1 == sps.n && end == DS_CHAIN_OUTERMOST;
		uint64_t hi = n + 1 < sps.n ? sps.v[n + 1] : top ? UINT64_MAX : 0;
		if (ea >= lo && ea < hi) {
			*frame_site = ds_session_site(s, sm->pid, t, n ? pcs.v[n] - 1 : pcs.v[n], false);
			found = 1;
		}
	}
	ds_vec_free(&pcs);
	ds_vec_free(&sps);
	return found;
}
