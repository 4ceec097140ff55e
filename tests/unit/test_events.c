/*
 * Event names: software, hardware, hw-cache, raw, perf-style PMU strings,
 * libpfm4 and PAPI, the availability check and `dsprof list`.
 *
 * libpfm4 decides which CPU it is on once per process, so the libpfm4 and
 * PAPI encodings run in a fresh copy of this binary started with
 * LIBPFM_FORCE_PMU set ("--forced PMU"): that exercises the hardware path
 * on a machine without a PMU, where the kernel then refuses the event.
 */
#include "sampler/events_int.h"
#include "tests/unit/unit.h"

#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Resolve without the open check; the attr (or a zeroed one on error). */
static int parse(const char *s, ds_evspec *e, ds_err *err)
{
	int r = ds_ev_parse(s, e, err);

	if (r)
		memset(e, 0, sizeof *e);
	return r;
}

/* Parse s and check its type, config and where the name was found. */
static void check_enc(const char *s, uint32_t type, uint64_t config, enum ds_ev_source src)
{
	ds_evspec e;
	ds_err err = {0};
	int r = parse(s, &e, &err);

	if (r)
		printf("# %s: %s\n", s, err.msg);
	CHECK(r == 0);
	CHECK_EQ_U64(e.attr.type, type);
	CHECK_EQ_U64(e.attr.config, config);
	CHECK_STR(ds_ev_source_name(e.source), ds_ev_source_name(src));
	CHECK_EQ_U64(e.attr.size, sizeof(struct perf_event_attr));
	ds_evspec_fini(&e);
}

/* Parse s and expect an error of this kind whose message has `needle`. */
static void check_parse_err(const char *s, int kind, const char *needle)
{
	ds_evspec e;
	ds_err err = {0};

	CHECK(parse(s, &e, &err) == -1);
	CHECK_EQ_U64(err.kind, kind);
	CHECK(strstr(err.msg, needle) != NULL);
	if (!strstr(err.msg, needle))
		printf("# '%s' gave: %s\n", s, err.msg);
}

TEST(software_names)
{
	ds_evspec e;
	ds_err err = {0};

	check_enc("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, DS_EV_SOFTWARE);
	check_enc("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, DS_EV_SOFTWARE);
	check_enc("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, DS_EV_SOFTWARE);
	check_enc("faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, DS_EV_SOFTWARE);
	check_enc("major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, DS_EV_SOFTWARE);
	check_enc("minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, DS_EV_SOFTWARE);
	check_enc("cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, DS_EV_SOFTWARE);
	check_enc("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
		  DS_EV_SOFTWARE);
	check_enc("migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, DS_EV_SOFTWARE);
	check_enc("alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS,
		  DS_EV_SOFTWARE);
	check_enc("emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS,
		  DS_EV_SOFTWARE);

	/* The real thing, open check included: software events open anywhere. */
	CHECK(ds_event_resolve("page-faults", &e, &err) == 0);
	CHECK_STR(e.name, "page-faults");
	CHECK(e.source == DS_EV_SOFTWARE);
	CHECK(!ds_ev_is_hardware(&e));
	CHECK(e.detail == NULL);
	CHECK_EQ_U64(e.period, 0);
	ds_evspec_fini(&e);
	CHECK(e.name == NULL);
}

TEST(period)
{
	ds_evspec e;
	ds_err err = {0};

	CHECK(ds_event_resolve("cpu-clock/100000", &e, &err) == 0);
	CHECK_STR(e.name, "cpu-clock");
	CHECK_EQ_U64(e.period, 100000);
	ds_evspec_fini(&e);
	CHECK(ds_event_resolve("faults/10k", &e, &err) == 0);
	CHECK_EQ_U64(e.period, 10000);
	CHECK_EQ_U64(e.attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	ds_evspec_fini(&e);
	CHECK(ds_event_resolve("cpu-clock:u/2M", &e, &err) == 0);
	CHECK_STR(e.name, "cpu-clock:u");
	CHECK_EQ_U64(e.period, 2000000);
	CHECK(e.attr.exclude_kernel);
	ds_evspec_fini(&e);

	check_parse_err("page-faults/0", DS_EINPUT, "bad period '0'");
	check_parse_err("page-faults/x", DS_EINPUT, "bad period 'x'");
	check_parse_err("page-faults/12q", DS_EINPUT, "bad period");
	check_parse_err("/100", DS_EINPUT, "no name");
	check_parse_err("", DS_EINPUT, "empty");
}

TEST(modifiers)
{
	ds_evspec e;
	ds_err err = {0};

	CHECK(parse("cpu-clock:u", &e, &err) == 0);
	CHECK(e.attr.exclude_kernel && e.attr.exclude_hv && !e.attr.exclude_user);
	ds_evspec_fini(&e);
	CHECK(parse("cs:k", &e, &err) == 0);
	CHECK(e.attr.exclude_user && !e.attr.exclude_kernel);
	ds_evspec_fini(&e);
	CHECK(parse("cpu-clock:uk", &e, &err) == 0);
	CHECK(!e.attr.exclude_user && !e.attr.exclude_kernel && e.attr.exclude_hv);
	ds_evspec_fini(&e);
	CHECK(parse("cycles:p", &e, &err) == 0);
	CHECK_EQ_U64(e.attr.precise_ip, 1);
	ds_evspec_fini(&e);
	CHECK(parse("cycles:upp", &e, &err) == 0);
	CHECK_EQ_U64(e.attr.precise_ip, 2);
	CHECK(e.attr.exclude_kernel);
	ds_evspec_fini(&e);
	CHECK(parse("instructions:ppp", &e, &err) == 0);
	CHECK_EQ_U64(e.attr.precise_ip, 3);
	ds_evspec_fini(&e);
	CHECK(parse("cycles:P", &e, &err) == 0);
	CHECK_EQ_U64(e.attr.precise_ip, 3);
	ds_evspec_fini(&e);
	CHECK(parse("r1a8:u", &e, &err) == 0);
	CHECK_EQ_U64(e.attr.type, PERF_TYPE_RAW);
	CHECK_EQ_U64(e.attr.config, 0x1a8);
	CHECK(e.attr.exclude_kernel);
	ds_evspec_fini(&e);

	check_parse_err("cycles:pppp", DS_EINPUT, "ppp");
	check_parse_err("cpu-clock:x", DS_EINPUT, "unknown modifier 'x'");
	check_parse_err("cpu-clock:", DS_EINPUT, "empty modifier");
}

TEST(hardware_names)
{
	ds_evspec e;
	ds_err err = {0};

	check_enc("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, DS_EV_HARDWARE);
	check_enc("cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, DS_EV_HARDWARE);
	check_enc("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, DS_EV_HARDWARE);
	check_enc("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, DS_EV_HARDWARE);
	check_enc("branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		  DS_EV_HARDWARE);
	check_enc("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, DS_EV_HARDWARE);
	check_enc("stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
		  DS_EV_HARDWARE);
	check_enc("ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, DS_EV_HARDWARE);
	check_enc("r1a8", PERF_TYPE_RAW, 0x1a8, DS_EV_RAW);
	check_enc("rC0", PERF_TYPE_RAW, 0xc0, DS_EV_RAW);

	CHECK(parse("branch-misses", &e, &err) == 0);
	CHECK(e.source == DS_EV_HARDWARE);
	CHECK(ds_ev_is_hardware(&e));
	ds_evspec_fini(&e);
}

TEST(cache_names)
{
	/* config = id | op << 8 | result << 16 */
	check_enc("L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000, DS_EV_HWCACHE);
	check_enc("L1-dcache-loads", PERF_TYPE_HW_CACHE, 0x0, DS_EV_HWCACHE);
	check_enc("LLC-loads", PERF_TYPE_HW_CACHE, 0x2, DS_EV_HWCACHE);
	check_enc("llc-loads", PERF_TYPE_HW_CACHE, 0x2, DS_EV_HWCACHE);
	check_enc("LLC-store-misses", PERF_TYPE_HW_CACHE, 0x10102, DS_EV_HWCACHE);
	check_enc("dTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10003, DS_EV_HWCACHE);
	check_enc("iTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10004, DS_EV_HWCACHE);
	check_enc("branch-loads", PERF_TYPE_HW_CACHE, 0x5, DS_EV_HWCACHE);
	check_enc("node-prefetch-misses", PERF_TYPE_HW_CACHE, 0x10206, DS_EV_HWCACHE);
	check_enc("L1-icache-prefetches", PERF_TYPE_HW_CACHE, 0x201, DS_EV_HWCACHE);
	/* perf knows no stores to the instruction side. */
	check_parse_err("L1-icache-stores", DS_EINPUT, "unknown event");
	check_parse_err("iTLB-stores", DS_EINPUT, "unknown event");
}

/* Every hw-cache name ds_attr_name() prints parses back to its config. */
TEST(cache_round_trip)
{
	static const unsigned valid_ops[PERF_COUNT_HW_CACHE_MAX] = {7, 5, 7, 7, 1, 1, 7};
	unsigned n = 0, good = 0;

	for (unsigned id = 0; id < PERF_COUNT_HW_CACHE_MAX; id++)
		for (unsigned op = 0; op < 3; op++)
			for (unsigned res = 0; res < 2; res++) {
				struct perf_event_attr a = {.type = PERF_TYPE_HW_CACHE,
							    .config = id | op << 8 | res << 16};
				char *name = ds_attr_name(&a);
				ds_evspec e;
				ds_err err = {0};
				int r = parse(name, &e, &err);

				if (!(valid_ops[id] & (1u << op))) {
					good += r == -1;
				} else {
					n++;
					good += r == 0 && e.attr.config == a.config &&
						e.source == DS_EV_HWCACHE;
				}
				if (r == 0)
					ds_evspec_fini(&e);
				free(name);
			}
	CHECK_EQ_U64(n, 32);
	CHECK_EQ_U64(good, 7 * 3 * 2);
}

TEST(unknown)
{
	ds_evspec e;
	ds_err err = {0};

	CHECK(ds_event_resolve("foo", &e, &err) == -1);
	CHECK_EQ_U64(err.kind, DS_EINPUT);
	CHECK(strstr(err.msg, "unknown event 'foo'") != NULL);
	CHECK(strstr(err.msg, "'dsprof list'") != NULL);
	check_parse_err("rxyz", DS_EINPUT, "'dsprof list'");
	check_parse_err("PAPI_NO_SUCH_PRESET", DS_EINPUT, "unknown PAPI preset");
	check_parse_err("nosuchpmu/event=1/", DS_EINPUT, "no PMU 'nosuchpmu'");
	check_parse_err("../x/", DS_EINPUT, "no PMU");
}

/* Whichever the machine is, say which branch ran. */
TEST(pmu)
{
	char why[512] = "";
	bool pmu = ds_pmu_available(why, sizeof why);
	ds_evspec e;
	ds_err err = {0};
	int r = ds_event_resolve("cycles", &e, &err);

	printf("# ds_pmu_available: %d (%s)\n", pmu, why);
	if (!pmu) {
		unit_current = "pmu[this machine has no PMU: cycles must fail]";
		CHECK(r == -1);
		CHECK_EQ_U64(err.kind, DS_EENV);
		CHECK(strstr(err.msg, "event 'cycles' needs a hardware PMU") != NULL);
		CHECK(strstr(err.msg, "-e cpu-clock") != NULL);
		CHECK(strstr(err.msg, "perf_event_open: ") != NULL);
		CHECK(strstr(why, "no ") == why);
		CHECK(strstr(why, "perf_event_open(cycles) fails") != NULL);
		CHECK(ds_event_resolve("L1-dcache-load-misses", &e, &err) == -1);
		CHECK_EQ_U64(err.kind, DS_EENV);
		CHECK(ds_event_resolve("r1a8", &e, &err) == -1);
		CHECK(strstr(err.msg, "needs a hardware PMU") != NULL);
		CHECK(ds_event_resolve("cpu/event=0x3c/", &e, &err) == -1);
		CHECK(strstr(err.msg, "needs a hardware PMU") != NULL);
		/* Without LIBPFM_FORCE_PMU, PAPI sees no PMU either. */
		CHECK(ds_event_resolve("PAPI_L1_DCM", &e, &err) == -1);
		CHECK_EQ_U64(err.kind, DS_EENV);
		CHECK(strstr(err.msg, "hardware PMU") != NULL);
		CHECK(strstr(err.msg, "cpu-clock") != NULL);
		CHECK(strstr(err.msg, "PAPI") != NULL);
	} else {
		unit_current = "pmu[this machine has a PMU: cycles must resolve]";
		CHECK(r == 0);
		CHECK_EQ_U64(e.attr.type, PERF_TYPE_HARDWARE);
		CHECK(strstr(why, "hardware PMU '") == why);
		if (r == 0)
			ds_evspec_fini(&e);
	}
	unit_current = "pmu";
}

/* Unprivileged, with perf_event_paranoid >= 2, the kernel refuses samples
 * that include the kernel: a plain name falls back to user space (as perf
 * does), a kernel-only name cannot and the message names the knob.  Runs in
 * a child that drops root. */
static void paranoid_child(int level)
{
	ds_evspec e;
	ds_err err = {0};
	char want[64];
	int r;

	if (getuid() == 0 && (setgid(65534) || setuid(65534)))
		_exit(99);
	r = ds_event_resolve("cpu-clock", &e, &err);
	if (level < 2) {
		unit_current = "paranoid[paranoid < 2: cpu-clock opens with the kernel]";
		CHECK(r == 0);
		CHECK(r == 0 && !e.kernel_dropped && !e.attr.exclude_kernel);
		if (r == 0)
			ds_evspec_fini(&e);
		_exit(unit_failures);
	}
	if (level == 2) {
		unit_current = "paranoid[unprivileged, paranoid 2: cpu-clock falls back to user space]";
		CHECK(r == 0);
		CHECK(r == 0 && e.kernel_dropped && e.attr.exclude_kernel && !e.attr.exclude_user);
		if (r == 0)
			ds_evspec_fini(&e);
		CHECK(ds_event_resolve("cpu-clock:u", &e, &err) == 0);
		CHECK(!e.kernel_dropped);
		ds_evspec_fini(&e);
		r = ds_event_resolve("cpu-clock:k", &e, &err);
	}
	unit_current = "paranoid[unprivileged: kernel samples refused with advice]";
	snprintf(want, sizeof want, "/proc/sys/kernel/perf_event_paranoid is %d", level);
	CHECK(r == -1);
	CHECK_EQ_U64(err.kind, DS_EENV);
	CHECK(strstr(err.msg, want) != NULL);
	CHECK(strstr(err.msg, "sysctl kernel.perf_event_paranoid=1") != NULL);
	_exit(unit_failures);
}

TEST(paranoid)
{
	char *text = ds_read_line("/proc/sys/kernel/perf_event_paranoid");
	int level = text ? atoi(text) : 2, status = -1;
	pid_t pid;

	free(text);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		paranoid_child(level);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A fake event_source tree for the PMU-string parser. */
static void put(const char *root, const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int pmu_enc(const char *root, const char *s, struct perf_event_attr *a, ds_err *err)
{
	memset(a, 0, sizeof *a);
	return ds_ev_pmu_encode(root, s, a, err);
}

TEST(pmu_strings)
{
	char root[] = "/tmp/dsprof-evtest.XXXXXX";
	struct perf_event_attr a;
	ds_err err = {0};

	CHECK(mkdtemp(root) != NULL);
	put(root, "fake/type", "42\n");
	put(root, "fake/format/event", "config:0-7\n");
	put(root, "fake/format/umask", "config:8-15\n");
	put(root, "fake/format/inv", "config:23\n");
	put(root, "fake/format/cmask", "config:24-31\n");
	put(root, "fake/format/ldlat", "config1:0-15\n");
	put(root, "fake/format/split", "config:32-33,40-41\n");
	put(root, "fake/events/loads", "event=0xcd,umask=0x1,ldlat=3\n");
	put(root, "fake/events/broken", "event=0x1,nope=2\n");
	put(root, "fake/events/nested", "loads\n");

	CHECK(pmu_enc(root, "fake/event=0x3c,umask=0x1/", &a, &err) == 0);
	CHECK_EQ_U64(a.type, 42);
	CHECK_EQ_U64(a.config, 0x13c);
	CHECK(pmu_enc(root, "fake/event=0xa3,umask=0xc,cmask=12,inv/", &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x0c800ca3);
	CHECK(pmu_enc(root, "fake/loads/", &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x1cd);
	CHECK_EQ_U64(a.config1, 3);
	CHECK(pmu_enc(root, "fake/split=0xe/", &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x30200000000ull); /* bits 33, 40, 41 */
	CHECK(pmu_enc(root, "fake/config=0x1234,config2=7/", &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x1234);
	CHECK_EQ_U64(a.config2, 7);

	CHECK(pmu_enc(root, "fake/event=0x100/", &a, &err) == -1);
	CHECK(strstr(err.msg, "does not fit") != NULL);
	CHECK(pmu_enc(root, "fake/nope/", &a, &err) == -1);
	CHECK(strstr(err.msg, "no term or event 'nope'") != NULL);
	CHECK(pmu_enc(root, "fake/broken/", &a, &err) == -1);
	CHECK(strstr(err.msg, "no term or event 'nope'") != NULL);
	/* An event's terms do not name events again. */
	CHECK(pmu_enc(root, "fake/nested/", &a, &err) == -1);
	CHECK(strstr(err.msg, "no term or event 'loads'") != NULL);
	CHECK(pmu_enc(root, "fake/event=zz/", &a, &err) == -1);
	CHECK(strstr(err.msg, "bad term") != NULL);
	CHECK(pmu_enc(root, "fake/event=1", &a, &err) == -1);
	CHECK(strstr(err.msg, "PMU/term=value") != NULL);
	CHECK(pmu_enc(root, "other/event=1/", &a, &err) == -1);
	CHECK_EQ_U64(err.kind, DS_EINPUT);
	CHECK(nftw(root, rm_one, 8, FTW_DEPTH | FTW_PHYS) == 0);
}

/* The kernel's own "software" PMU takes config= directly: a PMU string
 * that opens on every machine. */
/* --mem's events from the PMUs the kernel lists: an Intel core PMU's PEBS
 * events (a hybrid's two), AMD's IBS op, and the one-line refusal on Arm
 * SPE and on a machine without any (as every machine here). */
TEST(mem_plans)
{
	char root[] = "/tmp/dsprof-memtest.XXXXXX", dir[600];
	static const char *const cores[] = {"cpu", "hyb/cpu_core", "hyb/cpu_atom"};
	struct perf_event_attr a;
	ds_mem_plan p;
	ds_err err = {0};

	CHECK(mkdtemp(root) != NULL);
	/* the kernel's definitions (arch/x86/events/intel/core.c, Skylake on) */
	for (size_t i = 0; i < sizeof cores / sizeof cores[0]; i++) {
		char rel[128];
		snprintf(rel, sizeof rel, "%s/type", cores[i]);
		put(root, rel, i ? "8\n" : "4\n");
		snprintf(rel, sizeof rel, "%s/format/event", cores[i]);
		put(root, rel, "config:0-7\n");
		snprintf(rel, sizeof rel, "%s/format/umask", cores[i]);
		put(root, rel, "config:8-15\n");
		snprintf(rel, sizeof rel, "%s/format/ldlat", cores[i]);
		put(root, rel, "config1:0-15\n");
		snprintf(rel, sizeof rel, "%s/events/mem-loads", cores[i]);
		put(root, rel, "event=0xcd,umask=0x1,ldlat=3\n");
		snprintf(rel, sizeof rel, "%s/events/mem-stores", cores[i]);
		put(root, rel, "event=0xd0,umask=0x82\n");
	}
	put(root, "amd/ibs_op/type", "11\n");
	put(root, "amd/ibs_op/format/cnt_ctl", "config:19\n");
	put(root, "arm/arm_spe_0/type", "9\n");
	put(root, "none/software/type", "1\n");

	unit_current = "mem_plans[intel]";
	CHECK(ds_mem_plan_at(root, true, true, 30, &p, &err) == 0);
	CHECK(p.mechanism && strstr(p.mechanism, "PEBS"));
	CHECK_EQ_U64(p.nevents, 2);
	if (p.nevents == 2) {
		CHECK_STR(p.events[0], "cpu/mem-loads,ldlat=30/P");
		CHECK_STR(p.events[1], "cpu/mem-stores/P");
	}
	ds_mem_plan_fini(&p);
	/* the threshold the user gives replaces the event's own ldlat=3 */
	CHECK(pmu_enc(root, "cpu/mem-loads,ldlat=30/", &a, &err) == 0);
	CHECK_EQ_U64(a.type, 4);
	CHECK_EQ_U64(a.config, 0x1cd);
	CHECK_EQ_U64(a.config1, 30);
	CHECK(pmu_enc(root, "cpu/mem-stores/", &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x82d0);
	CHECK(ds_mem_plan_at(root, true, false, 50, &p, &err) == 0);
	CHECK_EQ_U64(p.nevents, 1);
	CHECK_STR(p.nevents ? p.events[0] : "", "cpu/mem-loads,ldlat=50/P");
	ds_mem_plan_fini(&p);

	unit_current = "mem_plans[intel hybrid]";
	snprintf(dir, sizeof dir, "%s/hyb", root);
	CHECK(ds_mem_plan_at(dir, true, true, 30, &p, &err) == 0);
	CHECK_EQ_U64(p.nevents, 4);
	if (p.nevents == 4) {
		CHECK_STR(p.events[0], "cpu_core/mem-loads,ldlat=30/P");
		CHECK_STR(p.events[1], "cpu_core/mem-stores/P");
		CHECK_STR(p.events[2], "cpu_atom/mem-loads,ldlat=30/P");
		CHECK_STR(p.events[3], "cpu_atom/mem-stores/P");
	}
	ds_mem_plan_fini(&p);

	unit_current = "mem_plans[amd]";
	snprintf(dir, sizeof dir, "%s/amd", root);
	CHECK(ds_mem_plan_at(dir, true, true, 30, &p, &err) == 0);
	CHECK(p.mechanism && strstr(p.mechanism, "IBS"));
	CHECK_STR(p.nevents == 1 ? p.events[0] : "", "ibs_op//");
	ds_mem_plan_fini(&p);
	CHECK(pmu_enc(dir, "ibs_op//", &a, &err) == 0);
	CHECK_EQ_U64(a.type, 11);

	unit_current = "mem_plans[arm spe]";
	snprintf(dir, sizeof dir, "%s/arm", root);
	CHECK(ds_mem_plan_at(dir, true, true, 30, &p, &err) == -1);
	CHECK_EQ_U64(err.kind, DS_EENV);
	CHECK(strstr(err.msg, "arm_spe_0") && strstr(err.msg, "perf mem record") && strstr(err.msg, "--sim --mem"));

	unit_current = "mem_plans[none]";
	snprintf(dir, sizeof dir, "%s/none", root);
	CHECK(ds_mem_plan_at(dir, true, true, 30, &p, &err) == -1);
	CHECK_EQ_U64(err.kind, DS_EENV);
	CHECK(strstr(err.msg, "--sim --mem") && strstr(err.msg, "cpu-clock") && !strchr(err.msg, '\n'));
	CHECK(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

TEST(pmu_string_real)
{
	ds_evspec e;
	ds_err err = {0};
	int r = ds_event_resolve("software/config=2/", &e, &err);

	if (r)
		printf("# %s\n", err.msg);
	CHECK(r == 0);
	CHECK_EQ_U64(e.attr.type, PERF_TYPE_SOFTWARE);
	CHECK_EQ_U64(e.attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	CHECK(e.source == DS_EV_SOFTWARE);
	CHECK_STR(e.name, "software/config=2/");
	if (r == 0)
		ds_evspec_fini(&e);
	CHECK(ds_event_resolve("software/config=0/u/5000", &e, &err) == 0);
	CHECK_EQ_U64(e.period, 5000);
	CHECK(e.attr.exclude_kernel);
	ds_evspec_fini(&e);
}

TEST(source_names)
{
	CHECK_STR(ds_ev_source_name(DS_EV_SOFTWARE), "software");
	CHECK_STR(ds_ev_source_name(DS_EV_HARDWARE), "hardware");
	CHECK_STR(ds_ev_source_name(DS_EV_HWCACHE), "hw-cache");
	CHECK_STR(ds_ev_source_name(DS_EV_RAW), "raw");
	CHECK_STR(ds_ev_source_name(DS_EV_PFM), "libpfm4");
	CHECK_STR(ds_ev_source_name(DS_EV_PAPI), "papi");
}

struct seen {
	int total, cpu_clock, cycles, l1dlm, faults_alias, perf_pseudo, skl_l1_miss, papi_l1_dcm;
	int cpu_clock_avail, cycles_avail, skl_avail, papi_avail, empty;
};

static void list_cb(void *ctx, const char *group, const char *name, const char *desc, bool avail)
{
	struct seen *s = ctx;

	s->total++;
	s->empty += !*group || !*name || !desc;
	if (!strcmp(group, "software") && !strcmp(name, "cpu-clock")) {
		s->cpu_clock++;
		s->cpu_clock_avail = avail;
	}
	if (!strcmp(group, "hardware") && !strcmp(name, "cycles")) {
		s->cycles++;
		s->cycles_avail = avail;
	}
	if (!strcmp(group, "hw-cache") && !strcmp(name, "L1-dcache-load-misses"))
		s->l1dlm++;
	s->faults_alias += !strcmp(name, "faults");
	s->perf_pseudo += !strncmp(name, "perf::", 6) || !strncmp(name, "perf_raw::", 10);
	if (!strcmp(group, "libpfm4") && !strcmp(name, "skl::MEM_LOAD_RETIRED:L1_MISS")) {
		s->skl_l1_miss++;
		s->skl_avail = avail;
	}
	if (!strcmp(group, "papi") && !strcmp(name, "PAPI_L1_DCM")) {
		s->papi_l1_dcm++;
		s->papi_avail = avail;
	}
}

TEST(list)
{
	struct seen s = {0};
	bool pmu = ds_pmu_available(NULL, 0);

	ds_event_list(list_cb, &s, false);
	CHECK(s.total > 50);
	CHECK_EQ_U64(s.empty, 0);
	CHECK_EQ_U64(s.cpu_clock, 1);
	CHECK(s.cpu_clock_avail);
	CHECK_EQ_U64(s.cycles, 1);
	CHECK_EQ_U64(s.cycles_avail, pmu);
	CHECK_EQ_U64(s.l1dlm, 1);
	CHECK_EQ_U64(s.faults_alias, 0);
	CHECK_EQ_U64(s.perf_pseudo, 0);
	/* PAPI may believe in a PMU (libpfm4 goes by CPUID, which a VM or
	 * valgrind reports); the kernel decides what is available. */
	CHECK(!s.papi_avail || pmu);

	memset(&s, 0, sizeof s);
	ds_event_list(list_cb, &s, true);
	CHECK_EQ_U64(s.cpu_clock, 1);
	CHECK_EQ_U64(s.papi_l1_dcm, 1);
	CHECK(!s.papi_avail || pmu);
}

/* ---- in a child with LIBPFM_FORCE_PMU ---- */

static void forced_skl(void)
{
	ds_evspec e;
	ds_err err = {0};
	bool pmu = ds_pmu_available(NULL, 0);
	struct seen s = {0};

	/* MEM_LOAD_RETIRED.L1_MISS is event 0xd1, umask 0x08 (Intel SDM;
	 * perf's skylake/cache.json). */
	unit_current = "forced_skl";
	CHECK(parse("MEM_LOAD_RETIRED:L1_MISS", &e, &err) == 0);
	CHECK_EQ_U64(e.attr.type, PERF_TYPE_RAW);
	CHECK_EQ_U64(e.attr.config, 0x8d1);
	CHECK(e.source == DS_EV_PFM);
	CHECK(e.detail && strstr(e.detail, "skl::MEM_LOAD_RETIRED:L1_MISS") == e.detail);
	CHECK(!e.attr.exclude_user && !e.attr.exclude_kernel);
	ds_evspec_fini(&e);
	check_enc("MEM_LOAD_RETIRED.L1_MISS", PERF_TYPE_RAW, 0x8d1, DS_EV_PFM);
	check_enc("skl::MEM_LOAD_RETIRED:L1_MISS", PERF_TYPE_RAW, 0x8d1, DS_EV_PFM);
	/* CYCLE_ACTIVITY.STALLS_L1D_MISS: event 0xa3, umask 0x0c, cmask 12. */
	check_enc("CYCLE_ACTIVITY:STALLS_L1D_MISS", PERF_TYPE_RAW, 0x0c000ca3, DS_EV_PFM);
	CHECK(parse("INST_RETIRED:ANY_P:u:precise=2:period=200003", &e, &err) == 0);
	CHECK_EQ_U64(e.attr.config, 0xc0);
	CHECK_EQ_U64(e.attr.precise_ip, 2);
	CHECK(e.attr.exclude_kernel && !e.attr.exclude_user);
	CHECK_EQ_U64(e.period, 200003);
	CHECK_EQ_U64(e.attr.sample_period, 0);
	ds_evspec_fini(&e);
	/* OFFCORE_RESPONSE_0 is 0x1b7 with the request/response mask in config1. */
	CHECK(parse("OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS", &e, &err) == 0);
	CHECK_EQ_U64(e.attr.config, 0x1b7);
	CHECK_EQ_U64(e.attr.config1, 0x3f84000001ull);
	ds_evspec_fini(&e);
	check_parse_err("MEM_LOAD_RETIRED:NO_SUCH_UMASK", DS_EINPUT, "libpfm4 cannot encode");
	check_parse_err("INST_RETIRED:ANY_P:freq=100", DS_EINPUT, "use -F");

	/* PAPI reads the same forced PMU: presets become Skylake natives. */
	unit_current = "forced_skl_papi";
	CHECK(parse("PAPI_L1_DCM", &e, &err) == 0);
	CHECK(e.source == DS_EV_PAPI);
	CHECK_STR(e.detail, "L1D:REPLACEMENT");
	CHECK_EQ_U64(e.attr.type, PERF_TYPE_RAW);
	CHECK_EQ_U64(e.attr.config, 0x151);
	ds_evspec_fini(&e);
	CHECK(parse("PAPI_TOT_CYC:u", &e, &err) == 0);
	CHECK_EQ_U64(e.attr.config, 0x3c);
	CHECK(e.attr.exclude_kernel);
	ds_evspec_fini(&e);
	check_parse_err("PAPI_L1_TCM", DS_EINPUT, "derived");
	check_parse_err("PAPI_L1_TCM", DS_EINPUT, "-e L1D:REPLACEMENT -e L2_RQSTS:ALL_CODE_RD");

	/* libpfm4 believes in the PMU; the kernel does not. */
	if (!pmu) {
		unit_current = "forced_skl[no kernel PMU: the open check refuses]";
		CHECK(ds_event_resolve("MEM_LOAD_RETIRED:L1_MISS", &e, &err) == -1);
		CHECK_EQ_U64(err.kind, DS_EENV);
		CHECK(strstr(err.msg, "needs a hardware PMU") != NULL);
		CHECK(strstr(err.msg, "cpu-clock") != NULL);
		CHECK(ds_event_resolve("PAPI_L1_DCM", &e, &err) == -1);
		CHECK_EQ_U64(err.kind, DS_EENV);
		CHECK(strstr(err.msg, "needs a hardware PMU") != NULL);
	}

	unit_current = "forced_skl_list";
	ds_event_list(list_cb, &s, false);
	CHECK_EQ_U64(s.skl_l1_miss, 1);
	CHECK_EQ_U64(s.skl_avail, pmu);
	CHECK_EQ_U64(s.papi_l1_dcm, 1);
	CHECK_EQ_U64(s.papi_avail, pmu);
	CHECK_EQ_U64(s.perf_pseudo, 0);
}

static void forced_zen1(void)
{
	unit_current = "forced_zen1";
	/* AMD PMCx0C0, retired instructions. */
	check_enc("RETIRED_INSTRUCTIONS", PERF_TYPE_RAW, 0xc0, DS_EV_PFM);
	check_enc("amd64_fam17h_zen1::RETIRED_INSTRUCTIONS:u", PERF_TYPE_RAW, 0xc0, DS_EV_PFM);
	check_parse_err("MEM_LOAD_RETIRED:L1_MISS", DS_EINPUT, "unknown event");
}

/* The precise memory events of several PMU models, as libpfm4 encodes them
 * for -e (the kernel's sysfs names are mem_plans' above): PEBS load latency
 * is event 0xcd umask 0x01 with the threshold in config1 (MSR_PEBS_LD_LAT;
 * Intel SDM, perf's skylake/icelake/sapphirerapids memory.json), all
 * retired stores 0xd0 umask 0x82; on Zen 3 and 4 (whose precise sampling is
 * IBS, a PMU of its own) the load and store ops dispatched are PMCx029
 * umasks 0x01 and 0x02 (AMD PPR for family 19h). */
static void forced_mem(const char *pmu)
{
	ds_evspec e;
	ds_err err = {0};

	unit_current = pmu;
	if (!strncmp(pmu, "amd64", 5)) {
		check_enc("LS_DISPATCH:LD_DISPATCH", PERF_TYPE_RAW, 0x129, DS_EV_PFM);
		check_enc("LS_DISPATCH:STORE_DISPATCH", PERF_TYPE_RAW, 0x229, DS_EV_PFM);
		return;
	}
	CHECK(parse("MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30", &e, &err) == 0);
	CHECK_STR(err.msg, "");
	CHECK_EQ_U64(e.attr.type, PERF_TYPE_RAW);
	CHECK_EQ_U64(e.attr.config & 0xffff, 0x1cd);
	CHECK_EQ_U64(e.attr.config1, 30);
	ds_evspec_fini(&e);
	check_enc("MEM_INST_RETIRED:ALL_STORES", PERF_TYPE_RAW, 0x82d0, DS_EV_PFM);
}

/* Run this binary again with LIBPFM_FORCE_PMU=pmu; its checks print as ours. */
static void run_forced(const char *self, const char *pmu)
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		execl(self, self, "--forced", pmu, (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	unit_current = pmu;
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv)
{
	/* Debian 12's libpfm4 (4.13) knows no hybrid: mem_plans covers it */
	static const char *const mem_pmus[] = {"icl", "spr", "amd64_fam19h_zen3", "amd64_fam19h_zen4"};
	/* Our own path, from the link rather than exec'ing /proc/self/exe, so
	 * that the children also run under valgrind when we do. */
	char self[4096] = "";
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n > 0)
		self[n] = '\0';
	if (argc == 3 && !strcmp(argv[1], "--forced")) {
		if (!strcmp(argv[2], "skl"))
			forced_skl();
		else if (!strcmp(argv[2], "amd64_fam17h_zen1"))
			forced_zen1();
		if (strcmp(argv[2], "amd64_fam17h_zen1"))
			forced_mem(argv[2]);
		return unit_done();
	}
	RUN(software_names);
	RUN(period);
	RUN(modifiers);
	RUN(hardware_names);
	RUN(cache_names);
	RUN(cache_round_trip);
	RUN(unknown);
	RUN(pmu);
	RUN(paranoid);
	RUN(pmu_strings);
	RUN(pmu_string_real);
	RUN(mem_plans);
	RUN(source_names);
	RUN(list);
	run_forced(self, "skl");
	run_forced(self, "amd64_fam17h_zen1");
	for (size_t i = 0; i < sizeof mem_pmus / sizeof mem_pmus[0]; i++)
		run_forced(self, mem_pmus[i]);
	return unit_done();
}
