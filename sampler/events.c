/*
 * Event names to perf_event_attr settings, and what this machine can count.
 *
 * A name with a slash is a perf-style PMU string (cpu/event=0x3c/, encoded
 * with the kernel's sysfs formats).  Any other name is tried, in order, as a
 * software event, a generic hardware event, a hw-cache event (perf's names,
 * as ds_attr_name() prints them), a raw rHEX code, a PAPI preset (through
 * the one native event PAPI counts for it) and finally a libpfm4 event
 * string.  The result is then opened once, disabled, so that an event this
 * machine cannot sample fails here with advice rather than in the middle of
 * a recording.
 *
 * State: none of ours.  libpfm4 remembers its own initialization, so
 * pfm_initialize() is simply called before each use (it returns at once
 * when already done).  PAPI is started only for PAPI_ names and shut down
 * again after each question, which also leaves libpfm4 terminated: the
 * next libpfm4 use initializes it again.
 */
#include "sampler/sampler.h"
#include "sampler/events_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <papi.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
/* The check opens the event as a sampling event, as the recorder will; this
 * period stands in when the name carries none. */
#define CHECK_PERIOD 1000000

/* ---- small helpers ---- */

/* The first line of s, at most n-1 bytes, into dst. */
static const char *first_line(char *dst, size_t n, const char *s)
{
	size_t len = s ? strcspn(s, "\r\n") : 0;

	if (len >= n)
		len = n - 1;
	memcpy(dst, s ? s : "", len);
	dst[len] = '\0';
	return dst;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in a directory, sorted; NULL when it cannot be read. */
static char **dir_names(const char *path, size_t *n)
{
	DIR *d = opendir(path);
	DS_VEC(char *) v = {0};
	struct dirent *de;

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			ds_vec_push(&v, ds_xstrdup(de->d_name));
	closedir(d);
	ds_sort(v.v, v.n, sizeof *v.v, cmp_str);
	*n = v.n;
	return v.n ? v.v : ds_xcalloc(1, sizeof(char *));
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- opening ---- */

/* Open the event on this thread, disabled, and close it again: 0 or errno.
 * With `sample`, as a sampling event (the kernel refuses some events only
 * then). */
static int try_open(const struct perf_event_attr *ev, uint64_t period, bool sample)
{
	struct perf_event_attr a = *ev;
	long fd;

	a.size = sizeof a;
	a.disabled = 1;
	a.sample_period = sample ? (period ? period : CHECK_PERIOD) : 0;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close((int)fd);
	return 0;
}

/* Types that only a core PMU can count. */
static bool needs_core_pmu(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW;
}

/* Whether a sysfs PMU is a CPU's core PMU, the way perf tells: "cpu"
 * (x86), "cpum_cf" (s390), or any PMU that lists the CPUs it covers (Arm,
 * hybrid x86).  Uncore PMUs list a "cpumask" instead. */
static bool is_core_pmu(const char *devroot, const char *name)
{
	char path[512];

	if (!strcmp(name, "cpu") || !strcmp(name, "cpum_cf"))
		return true;
	snprintf(path, sizeof path, "%s/%s/cpus", devroot, name);
	return access(path, F_OK) == 0;
}

/* Whether we run under a hypervisor (x86 sets the "hypervisor" CPU flag). */
static bool in_vm(void)
{
	char *info = ds_read_file("/proc/cpuinfo", NULL);
	bool vm = info && strstr(info, " hypervisor");

	free(info);
	return vm;
}

bool ds_pmu_available(char *why, size_t whylen)
{
	struct perf_event_attr cycles = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.exclude_kernel = 1, /* so that perf_event_paranoid does not decide */
		.exclude_hv = 1,
	};
	size_t n, i;
	char **names = dir_names(DS_EV_DEVROOT, &n);
	int dir_errno = errno;
	const char *core = NULL;
	int er = try_open(&cycles, 0, false);
	bool avail;
	ds_buf b = {0};

	for (i = 0; names && i < n && !core; i++)
		if (is_core_pmu(DS_EV_DEVROOT, names[i]))
			core = names[i];
	/* A permission refusal still means the kernel knows the PMU. */
	avail = er == 0 || (core && (er == EACCES || er == EPERM));
	if (avail)
		ds_buf_printf(&b, "hardware PMU '%s'", core ? core : "(unnamed)");
	else if (core)
		ds_buf_printf(&b, "no usable hardware PMU: %s has '%s' but perf_event_open(cycles) "
			      "fails with %s", DS_EV_DEVROOT, core, strerror(er));
	else if (!names)
		ds_buf_printf(&b, "no hardware PMU: %s cannot be read (%s); perf_event_open(cycles) "
			      "fails with %s", DS_EV_DEVROOT, strerror(dir_errno), strerror(er));
	else {
		ds_buf_printf(&b, "no hardware PMU: %s has %s", DS_EV_DEVROOT, n ? "only " : "nothing");
		for (i = 0; i < n; i++)
			ds_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
		ds_buf_printf(&b, "; perf_event_open(cycles) fails with %s", strerror(er));
	}
	if (why && whylen)
		snprintf(why, whylen, "%s", ds_buf_str(&b));
	ds_buf_free(&b);
	if (names)
		free_names(names, n);
	return avail;
}

/* ---- errors ---- */

/* The one message for hardware events on a machine without a PMU. */
static int no_pmu_error(ds_err *err, const char *name, const char *cause)
{
	return ds_err_set(err, DS_EENV,
			  "event '%s' needs a hardware PMU, and this machine exposes none (%s; %s); "
			  "use -e cpu-clock (timer samples with backtracking), -e page-faults "
			  "(exact data addresses), or --sim (simulated cache misses, exact)",
			  name, cause,
			  in_vm() ? "a VM without PMU passthrough?" : "no kernel driver for this CPU's PMU?");
}

static int paranoid_error(ds_err *err, const ds_evspec *e, int er)
{
	char *level = ds_read_line(PARANOID_PATH);
	int r = ds_err_set(err, DS_EENV,
			   "cannot open event '%s' (perf_event_open: %s): %s is %s; run as root, "
			   "or allow it with 'sysctl kernel.perf_event_paranoid=1'%s",
			   e->name, strerror(er), PARANOID_PATH, level ? ds_trim(level) : "unreadable",
			   e->attr.exclude_kernel ? "" : ", or add :u to leave the kernel out");

	free(level);
	return r;
}

/* Turn the check's errno into advice. */
static int open_error(const ds_evspec *e, int er, ds_err *err)
{
	char cause[160];

	if (er == EACCES || er == EPERM)
		return paranoid_error(err, e, er);
	if (needs_core_pmu(&e->attr) && !ds_pmu_available(NULL, 0)) {
		snprintf(cause, sizeof cause, "perf_event_open: %s", strerror(er));
		return no_pmu_error(err, e->name, cause);
	}
	/* x86 says EOPNOTSUPP for a precise level its PMU lacks, others EINVAL. */
	if (e->attr.precise_ip && (er == EINVAL || er == EOPNOTSUPP))
		return ds_err_set(err, DS_EINPUT,
				  "the kernel rejected event '%s' (perf_event_open: %s): precise level %u "
				  "is not supported here; try a lower one (:pp, :p) or none",
				  e->name, strerror(er), (unsigned)e->attr.precise_ip);
	if ((er == EINVAL || er == EOPNOTSUPP) && try_open(&e->attr, 0, false) == 0)
		return ds_err_set(err, DS_EINPUT,
				  "event '%s' can be counted here but not sampled (perf_event_open: %s); "
				  "dsprof needs an event that interrupts", e->name, strerror(er));
	if (ds_ev_is_hardware(e) && (er == ENOENT || er == ENODEV || er == EOPNOTSUPP))
		return ds_err_set(err, DS_EENV,
				  "this machine's PMU does not support event '%s' (perf_event_open: %s); "
				  "'dsprof list' shows what it has", e->name, strerror(er));
	if (er == EINVAL)
		return ds_err_set(err, DS_EINPUT,
				  "the kernel rejected the settings of event '%s' (perf_event_open: %s)",
				  e->name, strerror(er));
	return ds_err_set(err, DS_EENV, "cannot open event '%s' (perf_event_open: %s)", e->name,
			  strerror(er));
}

/* ---- generic names ---- */

/* perf's second names for some events. */
static const struct {
	const char *alias, *name;
} aliases[] = {
	{"faults", "page-faults"},
	{"cs", "context-switches"},
	{"migrations", "cpu-migrations"},
	{"cpu-cycles", "cycles"},
	{"branch-instructions", "branches"},
};

static const char *unalias(const char *name)
{
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (!strcmp(name, aliases[i].alias))
			return aliases[i].name;
	return name;
}

static const char *alias_of(const char *name)
{
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (!strcmp(name, aliases[i].name))
			return aliases[i].alias;
	return NULL;
}

/* The software events worth sampling (dummy and bpf-output produce no
 * samples of their own); their names come from ds_attr_name(). */
static const struct {
	unsigned config;
	const char *desc;
} sw_events[] = {
	{PERF_COUNT_SW_CPU_CLOCK, "a high-resolution timer per CPU"},
	{PERF_COUNT_SW_TASK_CLOCK, "a timer that runs while the task runs"},
	{PERF_COUNT_SW_PAGE_FAULTS, "page faults, with the faulting data address"},
	{PERF_COUNT_SW_PAGE_FAULTS_MAJ, "page faults that waited for I/O"},
	{PERF_COUNT_SW_PAGE_FAULTS_MIN, "page faults served without I/O"},
	{PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches"},
	{PERF_COUNT_SW_CPU_MIGRATIONS, "moves of the task to another CPU"},
	{PERF_COUNT_SW_ALIGNMENT_FAULTS, "unaligned accesses the kernel fixed up"},
	{PERF_COUNT_SW_EMULATION_FAULTS, "instructions the kernel emulated"},
};

static const char *const hw_desc[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = "CPU cycles",
	[PERF_COUNT_HW_INSTRUCTIONS] = "instructions retired",
	[PERF_COUNT_HW_CACHE_REFERENCES] = "last-level cache accesses",
	[PERF_COUNT_HW_CACHE_MISSES] = "last-level cache misses",
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = "branch instructions retired",
	[PERF_COUNT_HW_BRANCH_MISSES] = "mispredicted branches",
	[PERF_COUNT_HW_BUS_CYCLES] = "bus cycles",
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = "cycles stalled in the front end",
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = "cycles stalled in the back end",
	[PERF_COUNT_HW_REF_CPU_CYCLES] = "reference cycles, at a constant rate",
};

#define OP_BIT(op) (1u << PERF_COUNT_HW_CACHE_OP_##op)
/* The operations each cache can count, as perf allows them (its
 * evsel__hw_cache_stat): the instruction side is never written. */
static const unsigned cache_ops_valid[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_L1I] = OP_BIT(READ) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_LL] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_DTLB] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_ITLB] = OP_BIT(READ),
	[PERF_COUNT_HW_CACHE_BPU] = OP_BIT(READ),
	[PERF_COUNT_HW_CACHE_NODE] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
};

static const char *const cache_desc[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = "level-1 data cache",
	[PERF_COUNT_HW_CACHE_L1I] = "level-1 instruction cache",
	[PERF_COUNT_HW_CACHE_LL] = "last-level cache",
	[PERF_COUNT_HW_CACHE_DTLB] = "data TLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "instruction TLB",
	[PERF_COUNT_HW_CACHE_BPU] = "branch predictor",
	[PERF_COUNT_HW_CACHE_NODE] = "local memory node",
};

static const char *const cache_op_desc[PERF_COUNT_HW_CACHE_OP_MAX] = {"loads", "stores",
								       "prefetches"};

/* Walk every valid hw-cache config; stops when fn returns true. */
static bool for_each_cache_config(bool (*fn)(void *ctx, uint64_t config), void *ctx)
{
	for (unsigned id = 0; id < PERF_COUNT_HW_CACHE_MAX; id++)
		for (unsigned op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++)
			for (unsigned res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX; res++)
				if ((cache_ops_valid[id] & (1u << op)) &&
				    fn(ctx, id | op << 8 | res << 16))
					return true;
	return false;
}

/* Whether ds_attr_name() calls (type, config) `name`. */
static bool name_is(uint32_t type, uint64_t config, const char *name, bool icase)
{
	struct perf_event_attr a = {.type = type, .config = config};
	char *n = ds_attr_name(&a);
	bool same = icase ? !strcasecmp(n, name) : !strcmp(n, name);

	free(n);
	return same;
}

struct cache_match {
	const char *name;
	uint64_t config;
};

static bool cache_match_fn(void *ctx, uint64_t config)
{
	struct cache_match *m = ctx;

	m->config = config;
	return name_is(PERF_TYPE_HW_CACHE, config, m->name, true);
}

static bool parse_raw(const char *name, uint64_t *config)
{
	size_t n = strlen(name);

	if (name[0] != 'r' || n < 2 || n > 17 || strspn(name + 1, "0123456789abcdefABCDEF") != n - 1)
		return false;
	*config = strtoull(name + 1, NULL, 16);
	return true;
}

/* A software, hardware, hw-cache or raw name (without modifiers). */
static bool match_generic(const char *given, struct perf_event_attr *a, enum ds_ev_source *src)
{
	const char *name = unalias(given);
	struct cache_match cm = {.name = name};
	uint64_t raw;

	for (size_t i = 0; i < sizeof sw_events / sizeof *sw_events; i++)
		if (name_is(PERF_TYPE_SOFTWARE, sw_events[i].config, name, false)) {
			a->type = PERF_TYPE_SOFTWARE;
			a->config = sw_events[i].config;
			*src = DS_EV_SOFTWARE;
			return true;
		}
	for (unsigned c = 0; c < PERF_COUNT_HW_MAX; c++)
		if (name_is(PERF_TYPE_HARDWARE, c, name, false)) {
			a->type = PERF_TYPE_HARDWARE;
			a->config = c;
			*src = DS_EV_HARDWARE;
			return true;
		}
	if (for_each_cache_config(cache_match_fn, &cm)) {
		a->type = PERF_TYPE_HW_CACHE;
		a->config = cm.config;
		*src = DS_EV_HWCACHE;
		return true;
	}
	if (parse_raw(name, &raw)) {
		a->type = PERF_TYPE_RAW;
		a->config = raw;
		*src = DS_EV_RAW;
		return true;
	}
	return false;
}

/* ---- modifiers and period ---- */

/* perf's :u :k :h (which levels to count; naming any excludes the rest),
 * :p :pp :ppp (precise_ip) and :P (the most precise level that opens). */
static int apply_mods(const char *mods, const char *name, struct perf_event_attr *a,
		      bool *max_precise, ds_err *err)
{
	bool u = false, k = false, h = false, P = false;
	unsigned p = 0;

	if (!*mods)
		return ds_err_set(err, DS_EINPUT, "event '%s' has an empty modifier", name);
	for (const char *s = mods; *s; s++) {
		switch (*s) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'p': p++; break;
		case 'P': P = true; break;
		default:
			return ds_err_set(err, DS_EINPUT,
					  "unknown modifier '%c' in event '%s' (known: u, k, h, p, pp, ppp, P)",
					  *s, name);
		}
	}
	if (p > 3)
		return ds_err_set(err, DS_EINPUT, "event '%s': at most :ppp (precise level 3)", name);
	if (u || k || h) {
		a->exclude_user = !u;
		a->exclude_kernel = !k;
		a->exclude_hv = !h;
	}
	if (P) {
		a->precise_ip = 3;
		*max_precise = true;
	} else if (p) {
		a->precise_ip = p;
	}
	return 0;
}

/* Split "NAME/PERIOD".  A string ending in '/' is a PMU string without a
 * period; one with two slashes and a non-numeric tail is a PMU string with
 * modifiers (cpu/event=0x3c/u). */
static int split_period(const char *spec, char **name, uint64_t *period, ds_err *err)
{
	const char *slash = strrchr(spec, '/');
	const char *tail = slash ? slash + 1 : "";

	*period = 0;
	if (!slash || !*tail || (!isdigit((unsigned char)*tail) && memchr(spec, '/', slash - spec))) {
		*name = ds_xstrdup(spec);
		return 0;
	}
	if (!ds_parse_u64(tail, period, true) || *period == 0)
		return ds_err_set(err, DS_EINPUT,
				  "bad period '%s' in event '%s': want NAME/PERIOD with a positive "
				  "count of events (k, M, G suffixes allowed)", tail, spec);
	*name = ds_xstrndup(spec, slash - spec);
	return 0;
}

/* ---- libpfm4 ---- */

/* Encode a libpfm4 event string into *full (everything libpfm4 set, its
 * :period= and :freq= included) and *fstr (the fully qualified name, when
 * asked).  Returns a libpfm4 status. */
static int pfm_encode(const char *str, struct perf_event_attr *full, char **fstr)
{
	pfm_perf_encode_arg_t arg = {.attr = full, .fstr = fstr, .size = sizeof arg};
	int r = pfm_initialize();

	memset(full, 0, sizeof *full);
	full->size = sizeof *full;
	if (r == PFM_SUCCESS)
		r = pfm_get_os_event_encoding(str, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	return r;
}

/* What identifies the event in libpfm4's encoding; pinned, exclusive and
 * libpfm4's :cpu= are the recorder's business. */
static void copy_identity(struct perf_event_attr *dst, const struct perf_event_attr *src)
{
	dst->type = src->type;
	dst->config = src->config;
	dst->config1 = src->config1;
	dst->config2 = src->config2;
	dst->precise_ip = src->precise_ip;
	dst->exclude_user = src->exclude_user;
	dst->exclude_kernel = src->exclude_kernel;
	dst->exclude_hv = src->exclude_hv;
	dst->exclude_idle = src->exclude_idle;
	dst->exclude_host = src->exclude_host;
	dst->exclude_guest = src->exclude_guest;
}

static int unknown_event(ds_err *err, const char *name)
{
	return ds_err_set(err, DS_EINPUT,
			  "unknown event '%s': not a software, hardware, cache, raw, PAPI or libpfm4 "
			  "event name; 'dsprof list' shows what this machine has%s",
			  name, ds_pmu_available(NULL, 0) ? "" :
			  " (it has no hardware PMU, so CPU-specific names are unknown here)");
}

static int resolve_pfm(ds_evspec *e, ds_err *err)
{
	struct perf_event_attr full;
	int r = pfm_encode(e->name, &full, &e->detail);

	if (r == PFM_ERR_NOTFOUND)
		return unknown_event(err, e->name);
	if (r != PFM_SUCCESS)
		return ds_err_set(err, DS_EINPUT,
				  "libpfm4 cannot encode event '%s': %s; 'dsprof list' shows its events "
				  "and unit masks", e->name, pfm_strerror(r));
	if (full.freq)
		return ds_err_set(err, DS_EINPUT,
				  "event '%s': a sampling frequency is not part of an event; use -F",
				  e->name);
	copy_identity(&e->attr, &full);
	/* NAME/PERIOD wins over libpfm4's :period=. */
	if (!e->period)
		e->period = full.sample_period;
	e->source = DS_EV_PFM;
	return 0;
}

/* ---- PAPI ---- */

/* Start PAPI unless something else in the process already did; *mine
 * tells whether papi_stop() should shut it down. */
static int papi_start(bool *mine, ds_err *err)
{
	int r;

	*mine = false;
	if (PAPI_is_initialized() != PAPI_NOT_INITED)
		return 0;
	r = PAPI_library_init(PAPI_VER_CURRENT);
	if (r != PAPI_VER_CURRENT)
		return ds_err_set(err, DS_EENV, "PAPI cannot start (PAPI_library_init: %s)",
				  r > 0 ? "library version mismatch" : PAPI_strerror(r));
	/* Quiet is PAPI's default; say so, since its messages would land in
	 * the middle of dsprof's output. */
	PAPI_set_debug(PAPI_QUIET);
	*mine = true;
	return 0;
}

static void papi_stop(bool mine)
{
	if (mine)
		PAPI_shutdown();
}

/* Why PAPI's perf_event component is off, or NULL when it is on. */
static const char *papi_pe_disabled(void)
{
	int cidx = PAPI_get_component_index("perf_event");
	const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;

	if (!ci)
		return "PAPI has no perf_event component";
	return ci->disabled ? ci->disabled_reason : NULL;
}

static bool papi_derived(const PAPI_event_info_t *info)
{
	return info->count > 1 || (info->derived[0] && strcmp(info->derived, "NOT_DERIVED"));
}

static int papi_derived_error(ds_err *err, const char *name, const PAPI_event_info_t *info)
{
	ds_buf natives = {0}, opts = {0};
	int r;

	for (unsigned i = 0; i < info->count && i < PAPI_MAX_INFO_TERMS; i++) {
		ds_buf_printf(&natives, "%s%s", i ? ", " : "", info->name[i]);
		ds_buf_printf(&opts, "%s-e %s", i ? " " : "", info->name[i]);
	}
	r = ds_err_set(err, DS_EINPUT,
		       "PAPI preset '%s' is derived (%s of %s) and cannot be sampled; sample its "
		       "native events instead: %s", name, info->derived, ds_buf_str(&natives),
		       ds_buf_str(&opts));
	ds_buf_free(&natives);
	ds_buf_free(&opts);
	return r;
}

/* The one native event PAPI counts for a preset, malloc'd in *native. */
static int papi_query(const char *preset, const char *name, char **native, ds_err *err)
{
	PAPI_event_info_t info;
	const char *off;
	int code = 0;

	if (PAPI_event_name_to_code(preset, &code) != PAPI_OK ||
	    PAPI_get_event_info(code, &info) != PAPI_OK)
		return ds_err_set(err, DS_EINPUT,
				  "unknown PAPI preset '%s'; 'dsprof list' shows the presets this "
				  "machine has", preset);
	if (info.count == 0) {
		char why[512];

		off = papi_pe_disabled();
		if (off) {
			char cause[PAPI_HUGE_STR_LEN + 64];

			snprintf(cause, sizeof cause, "PAPI's perf_event component is disabled: %s", off);
			return no_pmu_error(err, name, cause);
		}
		/* PAPI may keep the component on where the kernel has no PMU to
		 * give it: that, not the CPU, is why the preset has no event */
		if (!ds_pmu_available(why, sizeof why))
			return no_pmu_error(err, name, why);
		return ds_err_set(err, DS_EENV,
				  "PAPI preset '%s' is not available on this CPU; 'dsprof list' shows "
				  "the presets it has", preset);
	}
	if (papi_derived(&info))
		return papi_derived_error(err, preset, &info);
	*native = ds_xstrdup(info.name[0]);
	return 0;
}

static int resolve_papi(ds_evspec *e, const char *preset, const char *mods, bool *max_precise,
			ds_err *err)
{
	struct perf_event_attr full;
	char *native = NULL;
	bool mine;
	int r;

	if (papi_start(&mine, err))
		return -1;
	r = papi_query(preset, e->name, &native, err);
	papi_stop(mine);
	if (r)
		return -1;
	e->detail = native;
	e->source = DS_EV_PAPI;
	r = pfm_encode(native, &full, NULL);
	if (r != PFM_SUCCESS)
		return ds_err_set(err, DS_EENV,
				  "PAPI preset '%s' counts native event '%s', which libpfm4 cannot "
				  "encode: %s", preset, native, pfm_strerror(r));
	copy_identity(&e->attr, &full);
	return mods ? apply_mods(mods, e->name, &e->attr, max_precise, err) : 0;
}

/* ---- perf-style PMU strings ---- */

/* A sysfs term name: no path tricks. */
static bool safe_name(const char *s)
{
	return *s && *s != '.' && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789_-.") == strlen(s);
}

/* perf_event_attr counts in __u64, which is not uint64_t on every ABI. */
static __u64 *config_field(struct perf_event_attr *a, const char *field)
{
	if (!strcmp(field, "config"))
		return &a->config;
	if (!strcmp(field, "config1"))
		return &a->config1;
	if (!strcmp(field, "config2"))
		return &a->config2;
	return NULL;
}

/* A format file such as "config:0-7,21" or "config1:0-63": the field and
 * the bits it spans. */
static __u64 *parse_format(const char *text, struct perf_event_attr *a, uint64_t *mask)
{
	char field[16];
	const char *s = strchr(text, ':');
	__u64 *dst;

	if (!s || (size_t)(s - text) >= sizeof field)
		return NULL;
	memcpy(field, text, s - text);
	field[s - text] = '\0';
	dst = config_field(a, field);
	*mask = 0;
	while (dst && *++s) {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (end == s)
			return NULL;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi < lo || hi > 63 || (*end && *end != ','))
			return NULL;
		for (unsigned long b = lo; b <= hi; b++)
			*mask |= 1ull << b;
		s = end;
		if (!*s)
			break;
	}
	return *mask ? dst : NULL;
}

/* Spread val over the set bits of mask, low bits first, as perf does;
 * false when val has more bits than the mask.  A term given again (an
 * event's own ldlat=3, then the user's ldlat=30) replaces the first. */
static bool deposit(uint64_t mask, uint64_t val, __u64 *dst)
{
	*dst &= ~mask;
	for (unsigned b = 0; b < 64; b++) {
		if (!(mask >> b & 1))
			continue;
		if (val & 1)
			*dst |= 1ull << b;
		val >>= 1;
	}
	return val == 0;
}

struct pmu_ctx {
	const char *devroot, *pmu, *str;
	struct perf_event_attr *a;
	ds_err *err;
};

static int pmu_terms(struct pmu_ctx *c, const char *terms, int depth);

/* A term that names one of the PMU's events (events/NAME) stands for that
 * event's own terms; those do not name events again.  1 when applied, 0
 * when there is no such event, -1 on error. */
static int pmu_alias(struct pmu_ctx *c, const char *key, int depth)
{
	char path[1024];
	char *text;
	int r;

	if (depth > 0)
		return 0;
	snprintf(path, sizeof path, "%s/%s/events/%s", c->devroot, c->pmu, key);
	text = ds_read_file(path, NULL);
	if (!text)
		return 0;
	r = pmu_terms(c, ds_trim(text), depth + 1);
	free(text);
	return r ? -1 : 1;
}

static int pmu_term(struct pmu_ctx *c, char *term, int depth)
{
	char *eq = strchr(term, '='), path[1024], *fmt;
	uint64_t val = 1, mask;
	__u64 *dst;
	int r;

	if (eq)
		*eq++ = '\0';
	if (!safe_name(term) || (eq && !ds_parse_u64(eq, &val, false)))
		return ds_err_set(c->err, DS_EINPUT, "bad term '%s%s%s' in event '%s'", term,
				  eq ? "=" : "", eq ? eq : "", c->str);
	if ((dst = config_field(c->a, term))) {
		*dst = val;
		return 0;
	}
	snprintf(path, sizeof path, "%s/%s/format/%s", c->devroot, c->pmu, term);
	fmt = ds_read_line(path);
	if (!fmt) {
		r = eq ? 0 : pmu_alias(c, term, depth);
		if (r)
			return r < 0 ? -1 : 0;
		return ds_err_set(c->err, DS_EINPUT,
				  "event '%s': PMU '%s' has no term or event '%s' (see %s/%s/format "
				  "and events)", c->str, c->pmu, term, c->devroot, c->pmu);
	}
	dst = parse_format(fmt, c->a, &mask);
	r = 0;
	if (!dst || !deposit(mask, val, dst))
		r = ds_err_set(c->err, DS_EINPUT, "event '%s': %s=0x%llx does not fit '%s' "
			       "(format '%s')", c->str, term, (unsigned long long)val, term, fmt);
	free(fmt);
	return r;
}

static int pmu_terms(struct pmu_ctx *c, const char *terms, int depth)
{
	char *copy = ds_xstrdup(terms), *save = NULL, *t;
	int r = 0;

	for (t = strtok_r(copy, ",", &save); t && !r; t = strtok_r(NULL, ",", &save))
		r = pmu_term(c, ds_trim(t), depth);
	free(copy);
	return r;
}

int ds_ev_pmu_encode(const char *devroot, const char *str, struct perf_event_attr *a,
		     ds_err *err)
{
	const char *s1 = strchr(str, '/'), *s2 = strrchr(str, '/');
	char path[1024], *pmu, *terms, *type;
	struct pmu_ctx c = {.devroot = devroot, .str = str, .a = a, .err = err};
	int r = -1;

	if (!s1 || s2 == s1 || s2[1] || memchr(s1 + 1, '/', s2 - s1 - 1))
		return ds_err_set(err, DS_EINPUT,
				  "bad event '%s': a PMU event is PMU/term=value,.../ (e.g. "
				  "cpu/event=0x3c/), a period is NAME/PERIOD", str);
	pmu = ds_xstrndup(str, s1 - str);
	terms = ds_xstrndup(s1 + 1, s2 - s1 - 1);
	c.pmu = pmu;
	snprintf(path, sizeof path, "%s/%s/type", devroot, pmu);
	type = safe_name(pmu) ? ds_read_line(path) : NULL;
	if (!type && (!strcmp(pmu, "cpu") || !strncmp(pmu, "cpu_", 4) || !strncmp(pmu, "armv", 4)) &&
	    !ds_pmu_available(NULL, 0)) {
		snprintf(path, sizeof path, "no '%s' in %s", pmu, devroot);
		no_pmu_error(err, str, path);
	} else if (!type) {
		ds_err_set(err, DS_EINPUT, "unknown event '%s': no PMU '%s' in %s; 'dsprof list' "
			   "shows what this machine has", str, pmu, devroot);
	} else {
		memset(a, 0, sizeof *a);
		a->size = sizeof *a;
		a->type = (uint32_t)strtoul(type, NULL, 10);
		r = pmu_terms(&c, terms, 0);
	}
	free(type);
	free(terms);
	free(pmu);
	return r;
}

static int resolve_pmu(ds_evspec *e, bool *max_precise, ds_err *err)
{
	const char *last = strrchr(e->name, '/');
	char *body;
	int r;

	/* its samples come in an AUX area, which record does not map */
	if (ds_str_has_prefix(e->name, "arm_spe"))
		return ds_err_set(err, DS_EENV,
				  "event '%s' is Arm SPE, whose records come in an AUX area dsprof record does not "
				  "map; record with 'perf record -e %s -- COMMAND' (or 'perf mem record'), then "
				  "'dsprof import perf.data', which decodes them",
				  e->name, e->name);
	body = ds_xstrndup(e->name, last - e->name + 1);
	r = ds_ev_pmu_encode(DS_EV_DEVROOT, body, &e->attr, err);
	free(body);
	if (r)
		return -1;
	e->source = e->attr.type == PERF_TYPE_SOFTWARE ? DS_EV_SOFTWARE : DS_EV_RAW;
	return last[1] ? apply_mods(last + 1, e->name, &e->attr, max_precise, err) : 0;
}

/* ---- resolution ---- */

static int resolve_name(ds_evspec *e, bool *max_precise, ds_err *err)
{
	const char *colon = strchr(e->name, ':');
	char *base = ds_xstrndup(e->name, colon ? (size_t)(colon - e->name) : strlen(e->name));
	const char *mods = colon ? colon + 1 : NULL;
	int r;

	if (strchr(e->name, '/'))
		r = resolve_pmu(e, max_precise, err);
	else if (match_generic(base, &e->attr, &e->source))
		r = mods ? apply_mods(mods, e->name, &e->attr, max_precise, err) : 0;
	else if (ds_str_has_prefix(base, "PAPI_"))
		r = resolve_papi(e, base, mods, max_precise, err);
	else
		r = resolve_pfm(e, err);
	free(base);
	return r;
}

static int parse_spec(const char *spec, ds_evspec *out, bool *max_precise, ds_err *err)
{
	memset(out, 0, sizeof *out);
	*max_precise = false;
	if (!spec || !*spec)
		return ds_err_set(err, DS_EINPUT, "empty event name");
	if (split_period(spec, &out->name, &out->period, err))
		return -1;
	if (!*out->name) {
		ds_evspec_fini(out);
		return ds_err_set(err, DS_EINPUT, "event '%s' has no name before the period", spec);
	}
	out->attr.size = sizeof out->attr;
	if (resolve_name(out, max_precise, err)) {
		ds_evspec_fini(out);
		return -1;
	}
	out->attr.size = sizeof out->attr;
	return 0;
}

int ds_ev_parse(const char *spec, ds_evspec *out, ds_err *err)
{
	bool max_precise;

	return parse_spec(spec, out, &max_precise, err);
}

int ds_event_resolve(const char *spec, ds_evspec *out, ds_err *err)
{
	bool max_precise;
	int er;

	if (parse_spec(spec, out, &max_precise, err))
		return -1;
	er = try_open(&out->attr, out->period, true);
	/* :P asks for the most precise level this PMU has. */
	while (er && max_precise && out->attr.precise_ip && (er == EINVAL || er == EOPNOTSUPP)) {
		out->attr.precise_ip--;
		er = try_open(&out->attr, out->period, true);
	}
	/* perf_event_paranoid 2 allows user space only: take that, as perf does,
	 * unless user space is what was left out (:k) */
	if ((er == EACCES || er == EPERM) && !out->attr.exclude_kernel && !out->attr.exclude_user) {
		struct perf_event_attr user = out->attr;
		user.exclude_kernel = user.exclude_hv = 1;
		if (try_open(&user, out->period, true) == 0) {
			out->attr = user;
			out->kernel_dropped = true;
			return 0;
		}
	}
	if (!er)
		return 0;
	open_error(out, er, err);
	ds_evspec_fini(out);
	return -1;
}

void ds_evspec_fini(ds_evspec *e)
{
	free(e->name);
	free(e->detail);
	memset(e, 0, sizeof *e);
}

const char *ds_ev_source_name(enum ds_ev_source s)
{
	switch (s) {
	case DS_EV_SOFTWARE: return "software";
	case DS_EV_HARDWARE: return "hardware";
	case DS_EV_HWCACHE: return "hw-cache";
	case DS_EV_RAW: return "raw";
	case DS_EV_PFM: return "libpfm4";
	case DS_EV_PAPI: return "papi";
	}
	return "unknown";
}

bool ds_ev_is_hardware(const ds_evspec *e)
{
	return e->source != DS_EV_SOFTWARE;
}

/* ---- listing ---- */

struct lister {
	ds_event_list_cb cb;
	void *ctx;
	bool pmu;
};

static bool opens(uint32_t type, uint64_t config)
{
	struct perf_event_attr a = {.type = type, .config = config};

	return try_open(&a, 0, true) == 0;
}

static void list_generic(struct lister *l)
{
	char desc[160];

	for (size_t i = 0; i < sizeof sw_events / sizeof *sw_events; i++) {
		struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .config = sw_events[i].config};
		char *name = ds_attr_name(&a);
		const char *alias = alias_of(name);

		snprintf(desc, sizeof desc, "%s%s%s%s", sw_events[i].desc, alias ? " (also: " : "",
			 alias ? alias : "", alias ? ")" : "");
		l->cb(l->ctx, "software", name, desc, try_open(&a, 0, true) == 0);
		free(name);
	}
	for (unsigned c = 0; c < PERF_COUNT_HW_MAX; c++) {
		struct perf_event_attr a = {.type = PERF_TYPE_HARDWARE, .config = c};
		char *name = ds_attr_name(&a);
		const char *alias = alias_of(name);

		snprintf(desc, sizeof desc, "%s%s%s%s", hw_desc[c] ? hw_desc[c] : "",
			 alias ? " (also: " : "", alias ? alias : "", alias ? ")" : "");
		l->cb(l->ctx, "hardware", name, desc, l->pmu && opens(PERF_TYPE_HARDWARE, c));
		free(name);
	}
}

static bool list_cache_fn(void *ctx, uint64_t config)
{
	struct lister *l = ctx;
	struct perf_event_attr a = {.type = PERF_TYPE_HW_CACHE, .config = config};
	char *name = ds_attr_name(&a), desc[128];

	snprintf(desc, sizeof desc, "%s %s%s", cache_desc[config & 0xff],
		 cache_op_desc[(config >> 8) & 0xff], config >> 16 ? " that miss" : "");
	l->cb(l->ctx, "hw-cache", name, desc, l->pmu && opens(PERF_TYPE_HW_CACHE, config));
	free(name);
	return false;
}

/* Events the kernel names in sysfs (msr/tsc/, cpu/mem-loads/, ...). */
static void list_sysfs(struct lister *l)
{
	size_t npmu, nev;
	char **pmus = dir_names(DS_EV_DEVROOT, &npmu), path[1024], desc[160];

	for (size_t i = 0; pmus && i < npmu; i++) {
		char **evs;

		snprintf(path, sizeof path, "%s/%s/events", DS_EV_DEVROOT, pmus[i]);
		evs = dir_names(path, &nev);
		for (size_t j = 0; evs && j < nev; j++) {
			char *str, *text;
			struct perf_event_attr a = {0};
			ds_err err = {0};

			/* .scale, .unit and the like describe an event, not name one. */
			if (strchr(evs[j], '.'))
				continue;
			str = ds_xasprintf("%s/%s/", pmus[i], evs[j]);
			snprintf(path, sizeof path, "%s/%s/events/%s", DS_EV_DEVROOT, pmus[i], evs[j]);
			text = ds_read_line(path);
			if (ds_ev_pmu_encode(DS_EV_DEVROOT, str, &a, &err) == 0)
				l->cb(l->ctx, "kernel-pmu", str, first_line(desc, sizeof desc, text),
				      try_open(&a, 0, true) == 0);
			free(text);
			free(str);
		}
		if (evs)
			free_names(evs, nev);
	}
	if (pmus)
		free_names(pmus, npmu);
}

static void list_papi(struct lister *l, bool all)
{
	PAPI_event_info_t info;
	int code = PAPI_PRESET_MASK;
	bool mine;
	ds_err err = {0};
	char line[200], desc[256];

	if (papi_start(&mine, &err))
		return;
	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK) {
		do {
			bool derived;

			if (PAPI_get_event_info(code, &info) != PAPI_OK || (!all && !info.count))
				continue;
			derived = papi_derived(&info);
			snprintf(desc, sizeof desc, "%s%s", first_line(line, sizeof line, info.long_descr),
				 derived ? " (derived: cannot be sampled)" : "");
			l->cb(l->ctx, "papi", info.symbol, desc,
			      info.count && !derived && l->pmu);
		} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
	}
	papi_stop(mine);
}

/* One libpfm4 event: a line per unit mask, or one when it has none. */
static void list_pfm_event(struct lister *l, const char *pmu, int idx, bool avail)
{
	pfm_event_info_t ev = {.size = sizeof ev};
	pfm_event_attr_info_t at;
	char desc[256], *name;
	bool any = false;

	if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS)
		return;
	for (int i = 0; i < ev.nattrs; i++) {
		memset(&at, 0, sizeof at);
		at.size = sizeof at;
		if (pfm_get_event_attr_info(idx, i, PFM_OS_NONE, &at) != PFM_SUCCESS ||
		    at.type != PFM_ATTR_UMASK)
			continue;
		name = ds_xasprintf("%s::%s:%s", pmu, ev.name, at.name);
		l->cb(l->ctx, "libpfm4", name, first_line(desc, sizeof desc, at.desc), avail);
		free(name);
		any = true;
	}
	if (!any) {
		name = ds_xasprintf("%s::%s", pmu, ev.name);
		l->cb(l->ctx, "libpfm4", name, first_line(desc, sizeof desc, ev.desc), avail);
		free(name);
	}
}

/* The PMUs libpfm4 detected here, without its "perf" and "perf_raw"
 * pseudo-PMUs (the generic names again); with `all`, also a line for each
 * core PMU model it knows but did not detect (its uncore models would add
 * hundreds of lines no one can use on this machine). */
static void list_pfm(struct lister *l, bool all)
{
	pfm_pmu_info_t pi;
	char desc[256];

	if (pfm_initialize() != PFM_SUCCESS)
		return;
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (p == PFM_PMU_PERF_EVENT || p == PFM_PMU_PERF_EVENT_RAW ||
		    pfm_get_pmu_info(p, &pi) != PFM_SUCCESS)
			continue;
		if (pi.is_present) {
			bool avail = l->pmu && pi.type == PFM_PMU_TYPE_CORE;

			for (int i = pi.first_event; i != -1; i = pfm_get_event_next(i))
				list_pfm_event(l, pi.name, i, avail);
		} else if (all && pi.type == PFM_PMU_TYPE_CORE) {
			snprintf(desc, sizeof desc, "%s: not this machine (LIBPFM_FORCE_PMU=%s lists "
				 "its events)", pi.desc, pi.name);
			l->cb(l->ctx, "libpfm4", pi.name, desc, false);
		}
	}
}

void ds_event_list(ds_event_list_cb cb, void *ctx, bool all)
{
	struct lister l = {.cb = cb, .ctx = ctx, .pmu = ds_pmu_available(NULL, 0)};

	list_generic(&l);
	for_each_cache_config(list_cache_fn, &l);
	cb(ctx, "raw", "rNNNN", "a raw PMU event code (x86: umask << 8 | event)", l.pmu);
	list_sysfs(&l);
	list_papi(&l, all);
	list_pfm(&l, all);
}
