/* Names for perf_event_attr values, the way perf prints them. */
#include "experiment/experiment.h"

#include <stdlib.h>
#include <string.h>

static const char *const hw_names[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = "cycles",
	[PERF_COUNT_HW_INSTRUCTIONS] = "instructions",
	[PERF_COUNT_HW_CACHE_REFERENCES] = "cache-references",
	[PERF_COUNT_HW_CACHE_MISSES] = "cache-misses",
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = "branches",
	[PERF_COUNT_HW_BRANCH_MISSES] = "branch-misses",
	[PERF_COUNT_HW_BUS_CYCLES] = "bus-cycles",
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = "stalled-cycles-frontend",
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = "stalled-cycles-backend",
	[PERF_COUNT_HW_REF_CPU_CYCLES] = "ref-cycles",
};

static const char *const sw_names[PERF_COUNT_SW_MAX] = {
	[PERF_COUNT_SW_CPU_CLOCK] = "cpu-clock",
	[PERF_COUNT_SW_TASK_CLOCK] = "task-clock",
	[PERF_COUNT_SW_PAGE_FAULTS] = "page-faults",
	[PERF_COUNT_SW_CONTEXT_SWITCHES] = "context-switches",
	[PERF_COUNT_SW_CPU_MIGRATIONS] = "cpu-migrations",
	[PERF_COUNT_SW_PAGE_FAULTS_MIN] = "minor-faults",
	[PERF_COUNT_SW_PAGE_FAULTS_MAJ] = "major-faults",
	[PERF_COUNT_SW_ALIGNMENT_FAULTS] = "alignment-faults",
	[PERF_COUNT_SW_EMULATION_FAULTS] = "emulation-faults",
	[PERF_COUNT_SW_DUMMY] = "dummy",
	[PERF_COUNT_SW_BPF_OUTPUT] = "bpf-output",
	[PERF_COUNT_SW_CGROUP_SWITCHES] = "cgroup-switches",
};

static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = "L1-dcache",
	[PERF_COUNT_HW_CACHE_L1I] = "L1-icache",
	[PERF_COUNT_HW_CACHE_LL] = "LLC",
	[PERF_COUNT_HW_CACHE_DTLB] = "dTLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "iTLB",
	[PERF_COUNT_HW_CACHE_BPU] = "branch",
	[PERF_COUNT_HW_CACHE_NODE] = "node",
};

/* [op][result]: "loads", "load-misses", ... */
static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][PERF_COUNT_HW_CACHE_RESULT_MAX] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = {"loads", "load-misses"},
	[PERF_COUNT_HW_CACHE_OP_WRITE] = {"stores", "store-misses"},
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = {"prefetches", "prefetch-misses"},
};

char *ds_attr_name(const struct perf_event_attr *a)
{
	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		if (a->config < PERF_COUNT_HW_MAX && hw_names[a->config])
			return ds_xstrdup(hw_names[a->config]);
		break;
	case PERF_TYPE_SOFTWARE:
		if (a->config < PERF_COUNT_SW_MAX && sw_names[a->config])
			return ds_xstrdup(sw_names[a->config]);
		break;
	case PERF_TYPE_HW_CACHE: {
		uint64_t id = a->config & 0xff, op = (a->config >> 8) & 0xff, res = (a->config >> 16) & 0xff;
		if (id < PERF_COUNT_HW_CACHE_MAX && op < PERF_COUNT_HW_CACHE_OP_MAX &&
		    res < PERF_COUNT_HW_CACHE_RESULT_MAX && cache_names[id] && !(a->config >> 24))
			return ds_xasprintf("%s-%s", cache_names[id], cache_ops[op][res]);
		break;
	}
	case PERF_TYPE_RAW:
		return ds_xasprintf("r%llx", (unsigned long long)a->config);
	case PERF_TYPE_BREAKPOINT:
		return ds_xasprintf("mem:0x%llx", (unsigned long long)a->bp_addr);
	default:
		break;
	}
	return ds_xasprintf("type%u:0x%llx", a->type, (unsigned long long)a->config);
}

/* perf's evsel__add_modifiers() (tools/perf/util/evsel.c) as Debian's perf
 * 6.1 has it, the reference the corpus tests compare with: the privilege
 * levels counted when some are excluded, then one p per precise_ip level,
 * then H/G when exclude_host is set or exclude_guest equals the default
 * perf assumed (set with a privilege or precision modifier, else clear). */
char *ds_attr_perf_name(const struct perf_event_attr *a)
{
	char *base = ds_attr_name(a), mods[16], *out;
	bool guest_default = false;
	size_t n = 0;

	if (a->type == PERF_TYPE_TRACEPOINT)
		return base;
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			mods[n++] = 'k';
		if (!a->exclude_user)
			mods[n++] = 'u';
		if (!a->exclude_hv)
			mods[n++] = 'h';
		guest_default = true;
	}
	for (unsigned i = 0; i < a->precise_ip && i < 3; i++) {
		mods[n++] = 'p';
		guest_default = true;
	}
	if (a->exclude_host || (bool)a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			mods[n++] = 'H';
		if (!a->exclude_guest)
			mods[n++] = 'G';
	}
	if (!n)
		return base;
	out = ds_xasprintf("%s:%.*s", base, (int)n, mods);
	free(base);
	return out;
}

bool ds_attr_precise(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_SOFTWARE)
		/* A fault's IP is the faulting instruction itself; the other
		 * software events ignore precise_ip (perf sets it on cpu-clock). */
		return a->config == PERF_COUNT_SW_PAGE_FAULTS || a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		       a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ || a->config == PERF_COUNT_SW_ALIGNMENT_FAULTS;
	return a->precise_ip && a->type != PERF_TYPE_TRACEPOINT && a->type != PERF_TYPE_BREAKPOINT;
}

/* Whether a name starts with a PMU's, or names it after a derived
 * event's prefix ("latency:ibs_op//"). */
static bool names_pmu(const char *name, const char *pmu)
{
	size_t n = strlen(pmu);
	for (const char *p = name; p; p = strchr(p, ':'), p = p ? p + 1 : NULL)
		if (!strncmp(p, pmu, n))
			return true;
	return false;
}

bool ds_event_precise(const ds_event *e)
{
	/* AMD IBS op and Arm SPE sample the operation itself, its own address,
	 * whatever precise_ip says (perf opens ibs_op// without it) */
	return ds_attr_precise(&e->attr) ||
	       (e->name && (names_pmu(e->name, "ibs_op") || names_pmu(e->name, "arm_spe")));
}

bool ds_attr_counts_time(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}
