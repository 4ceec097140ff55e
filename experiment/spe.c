/*
 * Arm SPE: the Statistical Profiling Extension's records, as `perf record
 * -e arm_spe_0//` (and `perf mem record` on Arm) keeps them: packets in the
 * AUX area, copied into AUXTRACE records whose payload follows them.
 *
 * A record is a run of packets about one sampled operation, ended by a
 * timestamp or an end packet (Arm ARM, "Statistical Profiling Extension":
 * the packet formats): its PC, the data's virtual and physical address,
 * the operation (load, store, branch, other), the events it caused (L1D,
 * LLC and TLB accesses and refills, remote access), its total latency in
 * cycles and, on CPUs that fill it, where the data came from.  Importing
 * turns each load and store into a sample of the SPE event, with ADDR,
 * PHYS_ADDR, DATA_SRC and WEIGHT (the latency), as perf's arm-spe
 * decoding synthesizes its "memory" samples, so that every view reads
 * them like PEBS or IBS samples.
 */
#include "experiment/experiment.h"
#include "experiment/pdread_int.h"
#include "experiment/perf_file.h"

#include <stdlib.h>
#include <string.h>

/* ---- packets ---- */

#define HDR_PAD 0x00
#define HDR_END 0x01
#define HDR_TIMESTAMP 0x71
#define HDR_EXTENDED 0x20 /* under mask 0xfc: a second header byte follows */

/* event bits (the events packet's payload) */
#define EV_L1D_ACCESS (1u << 2)
#define EV_L1D_REFILL (1u << 3)
#define EV_TLB_ACCESS (1u << 4)
#define EV_TLB_WALK (1u << 5)
#define EV_LLC_ACCESS (1u << 8)
#define EV_LLC_MISS (1u << 9)
#define EV_REMOTE (1u << 10)

/* address packet indexes */
enum { ADDR_PC, ADDR_BRANCH, ADDR_VA, ADDR_PA };
/* counter packet indexes */
enum { CNT_TOTAL, CNT_ISSUE, CNT_XLAT };

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* An instruction address: 56 bits, the top byte set again for a kernel
 * address (EL1, EL2 in the non-secure state), as perf's decoder does. */
static uint64_t code_address(uint64_t v)
{
	unsigned el = (unsigned)(v >> 61) & 3;
	uint64_t a = v & ((1ull << 56) - 1);
	return (v >> 63) && (el == 1 || el == 2) ? a | 0xffull << 56 : a;
}

/* A data address: 56 bits (the top byte is a tag), a kernel one when
 * bits 55..52 are all set. */
static uint64_t data_address(uint64_t v)
{
	uint64_t a = v & ((1ull << 56) - 1);
	return ((a >> 52) & 0xf) == 0xf ? a | 0xffull << 56 : a;
}

/* One packet at p (n bytes left, at bytes into the buffer): its length, 0
 * when it needs more bytes than there are, -1 when it is no packet. */
static int packet(const uint8_t *p, size_t n, size_t at, ds_spe_op *op, bool *ends)
{
	unsigned h = p[0], ext = 0, len, idx;
	uint64_t v;

	*ends = false;
	if (h == HDR_PAD)
		return 1;
	if (h == HDR_END) {
		*ends = true;
		return 1;
	}
	if ((h & 0xfc) == HDR_EXTENDED) {
		if (n < 2)
			return 0;
		ext = 1;
		if (p[1] == 0) {
			/* alignment: padding to the next multiple of 2^(k+1) bytes of
			 * the buffer (perf's: of the AUX area, whose chunks start
			 * aligned); what the buffer holds of it, at its end */
			size_t align = (size_t)1 << ((h & 0xf) + 1), k = align - at % align;
			return (int)(k < n ? k : n);
		}
		h = p[1];
	}
	len = 1u << ((h >> 4) & 3);
	if (n < 1 + ext + len)
		return 0;
	v = le(p + 1 + ext, len);
	idx = ext ? (unsigned)(p[0] & 3) << 3 | (h & 7) : h & 7;
	if (!ext && h == HDR_TIMESTAMP) {
		op->ts = v;
		op->has_ts = true;
		*ends = true;
	} else if (!ext && (h & 0xcf) == 0x42) {
		op->events = (uint32_t)v;
	} else if (!ext && (h & 0xcf) == 0x43) {
		op->source = (uint16_t)v;
	} else if (!ext && (h & 0xfc) == 0x64) {
		op->context = (uint32_t)v;
		op->has_context = true;
	} else if (!ext && (h & 0xfc) == 0x48) {
		switch (h & 3) {
		case 1: op->kind = v & 1 ? DS_SPE_STORE : DS_SPE_LOAD; break;
		case 2: op->kind = DS_SPE_BRANCH; break;
		default: op->kind = DS_SPE_OTHER; break;
		}
	} else if ((h & 0xf8) == 0xb0) {
		if (idx == ADDR_PC) {
			op->pc = code_address(v);
			op->kernel = (v >> 61 & 3) != 0;
		} else if (idx == ADDR_VA) {
			op->va = data_address(v);
			op->has_va = true;
		} else if (idx == ADDR_PA) {
			op->pa = v & ((1ull << 56) - 1);
			op->has_pa = true;
		}
	} else if ((h & 0xf8) == 0x98) {
		if (idx == CNT_TOTAL)
			op->latency = (uint32_t)v;
	} else {
		return -1;
	}
	return (int)(1 + ext + len);
}

size_t ds_spe_decode(const uint8_t *p, size_t n, ds_spe_fn fn, void *ctx, uint64_t *bad)
{
	size_t at = 0, start = 0;
	ds_spe_op op;

	memset(&op, 0, sizeof op);
	while (at < n) {
		bool ends, pad = p[at] == HDR_PAD || ((p[at] & 0xfc) == HDR_EXTENDED && at + 1 < n && p[at + 1] == 0);
		int k = packet(p + at, n - at, at, &op, &ends);
		if (k == 0)
			break;
		if (k < 0) {
			/* not a packet: resynchronize a byte further, as perf does */
			(*bad)++;
			at++;
			if (start == at - 1)
				start = at;
			continue;
		}
		at += (size_t)k;
		/* padding between records belongs to none */
		if (pad && start == at - (size_t)k) {
			start = at;
			continue;
		}
		if (!ends)
			continue;
		if (op.kind != DS_SPE_NONE || op.pc)
			fn(&op, ctx);
		memset(&op, 0, sizeof op);
		start = at;
	}
	return start;
}

/* ---- data sources ---- */

#define SRC(field, v) ((uint64_t)(v) << PERF_MEM_##field##_SHIFT)

/* CPUs whose data source packet has the common encoding (perf's list):
 * Neoverse N1, N2 and V1, by implementer and part number. */
static bool common_encoding(uint64_t midr)
{
	static const uint16_t parts[] = {0xd0c, 0xd49, 0xd40};
	if ((midr >> 24 & 0xff) != 0x41)
		return false;
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		if ((midr >> 4 & 0xfff) == parts[i])
			return true;
	return false;
}

uint64_t ds_spe_data_src(const ds_spe_op *op, uint64_t midr)
{
	uint64_t d = SRC(OP, op->kind == DS_SPE_LOAD ? PERF_MEM_OP_LOAD : PERF_MEM_OP_STORE);
	uint64_t lvl = PERF_MEM_LVL_NA, num = PERF_MEM_LVLNUM_NA, snoop = PERF_MEM_SNOOP_NA, snoopx = 0, remote = 0;

	if (common_encoding(midr)) {
		/* stores say nothing of where their line was */
		if (op->kind == DS_SPE_LOAD) {
			switch (op->source) {
			case 0x0: lvl = PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT; num = PERF_MEM_LVLNUM_L1; snoop = PERF_MEM_SNOOP_NONE; break;
			case 0x8: lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT; num = PERF_MEM_LVLNUM_L2; snoop = PERF_MEM_SNOOP_NONE; break;
			case 0x9: /* another core's cache */
				lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT; num = PERF_MEM_LVLNUM_L2; snoop = 0; snoopx = PERF_MEM_SNOOPX_PEER;
				break;
			case 0xa: case 0xc: /* a cluster's cache, this one's or another's */
				lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT; num = PERF_MEM_LVLNUM_L3; snoop = 0; snoopx = PERF_MEM_SNOOPX_PEER;
				break;
			case 0xb: lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT; num = PERF_MEM_LVLNUM_L3; snoop = PERF_MEM_SNOOP_HIT; break;
			case 0xd: /* another socket */
				lvl = PERF_MEM_LVL_REM_CCE1; num = PERF_MEM_LVLNUM_ANY_CACHE; snoop = 0; snoopx = PERF_MEM_SNOOPX_PEER;
				remote = PERF_MEM_REMOTE_REMOTE;
				break;
			case 0xe: lvl = PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT; num = PERF_MEM_LVLNUM_RAM; snoop = PERF_MEM_SNOOP_NONE; break;
			default: break;
			}
		}
	} else if (op->events & (EV_LLC_ACCESS | EV_LLC_MISS)) {
		/* other CPUs: the levels the events name */
		lvl = PERF_MEM_LVL_L3 | (op->events & EV_LLC_MISS ? PERF_MEM_LVL_MISS : PERF_MEM_LVL_HIT);
	} else if (op->events & (EV_L1D_ACCESS | EV_L1D_REFILL)) {
		lvl = PERF_MEM_LVL_L1 | (op->events & EV_L1D_REFILL ? PERF_MEM_LVL_MISS : PERF_MEM_LVL_HIT);
	}
	if (!common_encoding(midr) && (op->events & EV_REMOTE))
		lvl |= PERF_MEM_LVL_REM_CCE1;
	d |= SRC(LVL, lvl) | SRC(LVLNUM, num) | SRC(SNOOP, snoop) | SRC(SNOOPX, snoopx) | SRC(REMOTE, remote);
	/* a walk, or a hit in one of the TLBs (which, SPE does not say);
	 * perf writes walk-and-hit for both */
	if (op->events & EV_TLB_WALK)
		d |= SRC(TLB, PERF_MEM_TLB_WK | PERF_MEM_TLB_HIT);
	else if (op->events & EV_TLB_ACCESS)
		d |= SRC(TLB, PERF_MEM_TLB_HIT);
	return d;
}

/* ---- an SPE recording's samples ---- */

enum { AUXTRACE_ARM_SPE = 4 }; /* perf's enum auxtrace_type */

/* perf's conversion of the CPU's counter to its clock (PERF_RECORD_TIME_CONV) */
typedef struct time_conv {
	bool valid, is_short;
	uint64_t shift, mult, zero, cycles, mask;
} time_conv;

static uint64_t perf_time(const time_conv *tc, uint64_t cyc)
{
	uint64_t quot, rem;
	if (tc->is_short)
		cyc = tc->cycles + ((cyc - tc->cycles) & tc->mask);
	quot = tc->shift < 64 ? cyc >> tc->shift : 0;
	rem = tc->shift < 64 ? cyc & ((1ull << tc->shift) - 1) : cyc;
	return tc->zero + quot * tc->mult + ((rem * tc->mult) >> (tc->shift < 64 ? tc->shift : 63));
}

/* Who ran on a CPU from a time on: the task a context switch (CPU-wide,
 * switching out) handed the CPU to. */
typedef struct cpu_task {
	uint32_t cpu, pid, tid;
	uint64_t time;
} cpu_task;

typedef struct spe_in {
	uint32_t pmu_type;
	bool found, v2;
	DS_VEC(uint64_t) midr; /* per CPU, from the AUXTRACE_INFO's metadata; 0 unknown */
	uint64_t midr_all;     /* HEADER_CPUID's, for CPUs without their own */
	time_conv tc;
	DS_VEC(cpu_task) tasks;
	ds_u64map pid_of;      /* tid -> 1 + pid */
} spe_in;

/* The AUXTRACE_INFO of SPE: version 1 (two words: the PMU's type, per-CPU
 * buffers) or later (a versioned header, then each CPU's metadata, its
 * MIDR among them). */
static void auxtrace_info(spe_in *in, const uint8_t *p, uint32_t size)
{
	const uint8_t *priv = p + 16;
	size_t n = size >= 16 ? (size - 16) / 8 : 0, at;

	if (size < 16 || rd32(p + 8) != AUXTRACE_ARM_SPE || n < 1)
		return;
	in->found = true;
	if (n == 2) {
		in->pmu_type = (uint32_t)rd64(priv);
		return;
	}
	if (n < 4)
		return;
	in->v2 = true;
	in->pmu_type = (uint32_t)rd64(priv + 16);
	at = rd64(priv + 8);
	for (uint64_t c = 0, cpus = rd64(priv + 24); c < cpus && at + 3 <= n; c++) {
		uint64_t cpu = rd64(priv + 8 * (at + 1)), nr = rd64(priv + 8 * (at + 2));
		if (nr >= 1 && at + 4 <= n && cpu < 65536) {
			while (in->midr.n <= cpu)
				ds_vec_push(&in->midr, 0);
			in->midr.v[cpu] = rd64(priv + 8 * (at + 3));
		}
		if (nr > n)
			break;
		at += 3 + nr;
	}
}

static void note_thread(spe_in *in, uint32_t pid, uint32_t tid)
{
	if (tid != UINT32_MAX && pid != UINT32_MAX)
		ds_u64map_put(&in->pid_of, tid, pid + 1, NULL);
}

static int cmp_cpu_task(const void *a, const void *b)
{
	const cpu_task *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* The first pass: what decoding needs from the rest of the file. */
static void gather(ds_perfdata *pd, spe_in *in)
{
	uint64_t cur = 0;
	ds_record r;
	ds_err err = {0};
	const char *cpuid = ds_perfdata_info(pd)->cpuid;

	in->midr_all = cpuid ? strtoull(cpuid, NULL, 16) : 0;
	while (ds_perfdata_next(pd, &cur, &r, &err) > 0) {
		const uint8_t *p = r.raw;
		switch (r.kind) {
		case DS_REC_MMAP: note_thread(in, r.u.mmap.pid, r.u.mmap.tid); continue;
		case DS_REC_COMM: note_thread(in, r.u.comm.pid, r.u.comm.tid); continue;
		case DS_REC_FORK: note_thread(in, r.u.task.pid, r.u.task.tid); continue;
		default: break;
		}
		if (r.type == PF_RECORD_AUXTRACE_INFO) {
			auxtrace_info(in, p, r.size);
		} else if (r.type == PF_RECORD_TIME_CONV && r.size >= 32) {
			in->tc = (time_conv){.valid = true, .shift = rd64(p + 8), .mult = rd64(p + 16), .zero = rd64(p + 24)};
			if (r.size >= 56) {
				in->tc.cycles = rd64(p + 32);
				in->tc.mask = rd64(p + 40);
				in->tc.is_short = p[49] != 0;
			}
		} else if (r.type == PERF_RECORD_SWITCH_CPU_WIDE && (r.misc & PERF_RECORD_MISC_SWITCH_OUT) && r.size >= 16) {
			ds_vec_push(&in->tasks, ((cpu_task){r.cpu, rd32(p + 8), rd32(p + 12), r.time}));
			note_thread(in, rd32(p + 8), rd32(p + 12));
		}
	}
	ds_sort(in->tasks.v, in->tasks.n, sizeof *in->tasks.v, cmp_cpu_task);
}

/* The task on cpu at time t, false when no switch says. */
static bool task_at(const spe_in *in, uint32_t cpu, uint64_t t, uint32_t *pid, uint32_t *tid)
{
	size_t lo = 0, hi = in->tasks.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const cpu_task *m = &in->tasks.v[mid];
		if (m->cpu < cpu || (m->cpu == cpu && m->time <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || in->tasks.v[lo - 1].cpu != cpu)
		return false;
	*pid = in->tasks.v[lo - 1].pid;
	*tid = in->tasks.v[lo - 1].tid;
	return true;
}

typedef struct spe_out {
	spe_in *in;
	ds_pdw *w;
	const ds_event *ev;
	ds_spe_stats *st;
	ds_buf rec;
	uint32_t aux_tid, aux_cpu; /* the AUXTRACE record's: its buffer's thread (-1: per CPU) and CPU */
	uint64_t last_time;        /* of the records before it: the time of ops without a timestamp */
	int rc;
	ds_err *err;
} spe_out;

static void put64(ds_buf *b, uint64_t v)
{
	ds_buf_append(b, &v, 8);
}

/* One op as a sample of the SPE event, fields in perf's order. */
static void emit(const ds_spe_op *op, void *ctx)
{
	spe_out *o = ctx;
	const struct perf_event_attr *a = &o->ev->attr;
	uint64_t t = a->sample_type, time, midr;
	uint32_t pid = UINT32_MAX, tid = UINT32_MAX, p;
	struct perf_event_header h = {PERF_RECORD_SAMPLE, op->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, 0};

	o->st->records++;
	if (op->kind != DS_SPE_LOAD && op->kind != DS_SPE_STORE) {
		o->st->others++;
		return;
	}
	time = op->has_ts && o->in->tc.valid ? perf_time(&o->in->tc, op->ts) : o->last_time;
	if (op->has_context)
		tid = op->context;
	else if (o->aux_tid != UINT32_MAX)
		tid = o->aux_tid;
	else if (!task_at(o->in, o->aux_cpu, time, &pid, &tid))
		tid = UINT32_MAX;
	if (tid == UINT32_MAX) {
		o->st->unattributed++;
		return;
	}
	if (pid == UINT32_MAX)
		pid = (p = ds_u64map_get(&o->in->pid_of, tid)) != DS_U64MAP_NONE ? p - 1 : tid;
	midr = o->aux_cpu < o->in->midr.n && o->in->midr.v[o->aux_cpu] ? o->in->midr.v[o->aux_cpu] : o->in->midr_all;
	o->st->loads += op->kind == DS_SPE_LOAD;
	o->st->stores += op->kind == DS_SPE_STORE;
	ds_buf_reset(&o->rec);
	ds_buf_append(&o->rec, &h, sizeof h);
	if (t & PERF_SAMPLE_IDENTIFIER) put64(&o->rec, o->ev->nids ? o->ev->ids[0] : 0);
	if (t & PERF_SAMPLE_IP) put64(&o->rec, op->pc);
	if (t & PERF_SAMPLE_TID) put64(&o->rec, (uint64_t)tid << 32 | pid);
	if (t & PERF_SAMPLE_TIME) put64(&o->rec, time);
	if (t & PERF_SAMPLE_ADDR) put64(&o->rec, op->has_va ? op->va : 0);
	if (t & PERF_SAMPLE_ID) put64(&o->rec, o->ev->nids ? o->ev->ids[0] : 0);
	if (t & PERF_SAMPLE_STREAM_ID) put64(&o->rec, o->ev->nids ? o->ev->ids[0] : 0);
	if (t & PERF_SAMPLE_CPU) put64(&o->rec, o->aux_cpu);
	if (t & PERF_SAMPLE_PERIOD) put64(&o->rec, a->sample_period && !a->freq ? a->sample_period : 1);
	if (t & PERF_SAMPLE_WEIGHT) put64(&o->rec, op->latency);
	if (t & PERF_SAMPLE_DATA_SRC) put64(&o->rec, ds_spe_data_src(op, midr));
	if (t & PERF_SAMPLE_PHYS_ADDR) put64(&o->rec, op->has_pa ? op->pa : 0);
	h.size = (uint16_t)o->rec.len;
	memcpy(o->rec.p, &h, sizeof h);
	if (!o->rc)
		o->rc = ds_pdw_write(o->w, o->rec.p, o->rec.len, o->err);
}

/* Sample fields an SPE sample can give; the sample_id ones stay as the
 * event has them (its other records carry them). */
#define SPE_FIELDS (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | \
		    PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR)
#define ID_FIELDS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)

int ds_spe_import(ds_perfdata *pd, ds_wdir *dir, const char *name, ds_spe_stats *st, ds_err *err)
{
	spe_in in = {0};
	spe_out o = {.in = &in, .st = st, .err = err};
	DS_VEC(ds_buf) carry = {0};
	ds_event *evs;
	size_t n = ds_perfdata_nevents(pd), spe = n;
	uint64_t cur = 0;
	ds_record r;
	ds_pdw_info info = {.clockid = -1, .features_from = pd};
	int rc = -1;

	memset(st, 0, sizeof *st);
	gather(pd, &in);
	if (!in.found) {
		rc = 0;
		goto done;
	}
	st->found = true;
	if (ds_perfdata_info(pd)->pipe_mode) {
		ds_err_set(err, DS_EINPUT, "an Arm SPE recording written to a pipe cannot be imported; record it to a "
					   "file (perf record -o FILE) or convert it with 'perf inject -i - -o FILE'");
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		if (ds_perfdata_event(pd, i)->attr.type == in.pmu_type)
			spe = i;
	if (spe == n) {
		ds_err_set(err, DS_EINPUT, "the AUXTRACE_INFO names Arm SPE PMU type %u, which no event of the file has",
			   in.pmu_type);
		goto done;
	}
	if (!(ds_perfdata_event(pd, spe)->attr.sample_type & PERF_SAMPLE_TID)) {
		ds_err_set(err, DS_EINPUT, "the Arm SPE event samples no thread ids (PERF_SAMPLE_TID): its records "
					   "cannot be given to processes");
		goto done;
	}
	evs = ds_xcalloc(n, sizeof *evs);
	for (size_t i = 0; i < n; i++)
		evs[i] = *ds_perfdata_event(pd, i);
	evs[spe].attr.sample_type = (evs[spe].attr.sample_type & ID_FIELDS) | SPE_FIELDS;
	o.w = ds_pdw_create(dir, name, false, evs, n, err);
	o.ev = &evs[spe];
	if (!o.w) {
		free(evs);
		goto done;
	}
	while (!o.rc && ds_perfdata_next(pd, &cur, &r, err) > 0) {
		const uint8_t *p = r.raw;
		if (r.time)
			o.last_time = r.time;
		if (r.type == PF_RECORD_AUXTRACE_INFO)
			continue;
		if (r.type != PF_RECORD_AUXTRACE) {
			o.rc = ds_pdw_write(o.w, r.raw, r.size, err);
			continue;
		}
		if (r.size >= 48) {
			/* a buffer's bytes may stop inside a record: its start waits
			 * for the next chunk of the same buffer */
			uint64_t size = rd64(p + 8);
			uint32_t idx = rd32(p + 32);
			ds_buf *c;
			size_t used;
			if (idx >= 65536)
				continue;
			while (carry.n <= idx)
				ds_vec_push(&carry, (ds_buf){0});
			c = &carry.v[idx];
			ds_buf_append(c, p + r.size, size);
			o.aux_tid = rd32(p + 36);
			o.aux_cpu = rd32(p + 40);
			used = ds_spe_decode((const uint8_t *)c->p, c->len, emit, &o, &st->bad_bytes);
			memmove(c->p, c->p + used, c->len - used);
			c->len -= used;
		}
	}
	for (size_t i = 0; i < carry.n; i++) {
		st->bad_bytes += carry.v[i].len;
		ds_buf_free(&carry.v[i]);
	}
	ds_vec_free(&carry);
	if (!o.rc)
		o.rc = ds_pdw_finish(o.w, &info, err);
	else
		ds_pdw_abort(o.w);
	ds_buf_free(&o.rec);
	free(evs);
	rc = o.rc ? -1 : 1;
done:
	ds_vec_free(&in.midr);
	ds_vec_free(&in.tasks);
	ds_u64map_free(&in.pid_of);
	return rc;
}
