/*
 * The perf_event backend: run (or attach to) a program and stream the
 * kernel's records into perf.data.
 *
 * One event per (event, CPU[, thread]) with inherit, like `perf record`:
 * children and threads created later inherit the events and their records
 * go to the ring buffer of the CPU they ran on, one buffer per CPU.  The
 * records are copied to the file as the kernel wrote them (that is what
 * makes the file a standard perf.data); we only peek at their headers to
 * count samples, lost records and throttling, and fill in the physical
 * address of the faults the kernel sampled before there was a page
 * (sampler/physaddr.h).
 *
 * The command, its start and end, and the stop signals read in the drain
 * loop are sampler/workload.c's, shared with the simulator.
 */
#include "sampler/sampler.h"
#include "sampler/backend.h"
#include "sampler/physaddr.h"

#include "arch/arch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_CLOCK_PERIOD 250000 /* ns: 4 kHz, perf's default rate */
#define DEFAULT_FREQ 4000
#define DEFAULT_PAGES 256           /* 1 MiB per CPU with 4 KiB pages */
/* Each CPU's ring buffer holds at least this many samples, whatever they
 * carry: a burst that long (page faults of a loop touching fresh pages
 * come about 20 us apart with 8 KiB stack copies) is absorbed while the
 * drain loop waits its turn for a busy CPU.  1 MiB holds that many
 * frame-pointer samples; 8 KiB stack copies take 16 MiB. */
#define RING_SAMPLES 1024
/* Call-chain entries assumed for the size of a sample that has them. */
#define TYPICAL_CHAIN 32
/* The shortest stack copy dsprof shortens its default to (see
 * choose_pages): a few frames, still. */
#define MIN_STACK_BYTES 2048
#define DRAIN_INTERVAL_MS 250
/* User stack copied with each call chain: enough to find the return
 * address of a leaf function that has no frame of its own, which frame
 * pointers cannot.  analyze/finish.c puts that caller into the chain when
 * the recording ends, and drops the copy. */
#define LEAF_STACK_BYTES 256

struct ring {
	int fd;
	void *base;
	size_t len;   /* whole mapping */
	size_t size;  /* data area, a power of two */
	struct perf_event_mmap_page *pg;
};

typedef struct rec {
	const ds_record_opts *o;
	ds_record_result *res;
	size_t page;
	size_t pages;                /* data pages per ring buffer */
	uint32_t stack_bytes;        /* DS_CG_DWARF: the copy each sample carries */
	DS_VEC(int) cpus;
	DS_VEC(pid_t) tids;          /* targets of the events: the child, or the attached threads */
	DS_VEC(int) fds;
	DS_VEC(struct ring) rings;
	ds_event *events;            /* name, attr, ids: for the perf.data header */
	ds_pdw *w;
	ds_workload wl;              /* the command, and the stop signals */
	int pidfd;                   /* -p: the attached process, to see it end */
	uint64_t first_time, last_time;
	ds_hash *kernel_ips;         /* so that the kernel symbols they need can be kept */
	bool no_mmap_build_ids;      /* the kernel cannot put build-ids in MMAP2 records (before 5.12) */
	ds_physaddr *phys;           /* fills in the physical addresses faults lack, or NULL */
	ds_buf recs;                 /* with phys: the records being completed */
} rec;

static int perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

/* "0-3,8,10-11" from sysfs. */
static int online_cpus(rec *r, ds_err *err)
{
	char *s = ds_read_line("/sys/devices/system/cpu/online");
	char *p = s;
	if (!s)
		return ds_err_set(err, DS_EENV, "cannot read /sys/devices/system/cpu/online: %s",
				  strerror(errno));
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b && c < 65536; c++)
			ds_vec_push(&r->cpus, (int)c);
		p = *end == ',' ? end + 1 : end;
		if (*p == '\n')
			break;
	}
	free(s);
	if (!r->cpus.n)
		return ds_err_set(err, DS_EENV, "cannot parse /sys/devices/system/cpu/online");
	return 0;
}

static bool is_fault_event(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_PAGE_FAULTS || a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

static bool is_clock_event(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* Sampling settings for event i: what every view downstream needs. */
static void setup_attr(const rec *r, size_t i, struct perf_event_attr *a, bool with_phys)
{
	const ds_record_opts *o = r->o;
	const ds_evspec *e = &o->events[i];
	uint64_t period = e->period ? e->period : o->period;

	*a = e->attr;
	a->size = sizeof *a;
	a->disabled = 1;
	a->inherit = o->inherit;
	a->enable_on_exec = o->pid == 0;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	/* IDENTIFIER first, then IP, TID, TIME: the drain loop reads the time
	 * at a fixed offset, and perf finds the event of any record. */
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_REGS_USER;
	a->sample_regs_user = ds_arch_sample_regs(ds_arch_host());
	if (o->callgraph != DS_CG_NONE) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER;
		a->exclude_callchain_kernel = 1;
		a->sample_stack_user = LEAF_STACK_BYTES;
	}
	/* The kernel's walk of -O2 code follows a frame pointer that is not
	 * one: the copy gives the chain instead, as in perf's dwarf mode. */
	if (o->callgraph == DS_CG_DWARF) {
		a->exclude_callchain_user = 1;
		a->sample_stack_user = r->stack_bytes;
	}
	if (is_fault_event(a) || e->mem || (ds_ev_is_hardware(e) && a->precise_ip)) {
		a->sample_type |= PERF_SAMPLE_ADDR;
		if (with_phys)
			a->sample_type |= PERF_SAMPLE_PHYS_ADDR;
		if (a->precise_ip || e->mem)
			a->sample_type |= PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	}
	if (!period && !o->freq) {
		if (is_clock_event(a))
			period = DEFAULT_CLOCK_PERIOD;
		else if (!ds_ev_is_hardware(e))
			period = 1; /* faults and other software events: every one */
	}
	if (period) {
		a->freq = 0;
		a->sample_period = period;
	} else {
		a->freq = 1;
		a->sample_freq = o->freq ? o->freq : DEFAULT_FREQ;
	}
	if (i == 0) {
		/* side-band records once, on the first event; MMAP2 records
		 * carry the build-id the kernel read when the file was mapped,
		 * which no later change of the file can falsify */
		a->mmap = a->mmap2 = a->mmap_data = 1;
		a->build_id = !r->no_mmap_build_ids;
		a->comm = a->comm_exec = 1;
		a->task = 1;
	}
	/* wake the drain loop when a CPU's buffer is a quarter full: the rest
	 * absorbs what comes while it waits for a CPU and drains */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(r->pages * r->page / 4);
}

static int open_error(const rec *r, size_t i, pid_t tid, int cpu, int e, ds_err *err)
{
	const char *name = r->o->events[i].name;
	switch (e) {
	case ESRCH:
		return ds_err_set(err, DS_EINPUT, "cannot sample thread %d: it no longer exists", (int)tid);
	case EACCES:
	case EPERM: {
		char *par = ds_read_line("/proc/sys/kernel/perf_event_paranoid");
		ds_err_set(err, DS_EENV,
			   "cannot sample '%s' on thread %d: %s (kernel.perf_event_paranoid is %s); "
			   "run as root, or as root run 'sysctl kernel.perf_event_paranoid=1'",
			   name, (int)tid, strerror(e), par ? par : "unknown");
		free(par);
		return -1;
	}
	case EMFILE:
	case ENFILE:
		return ds_err_set(err, DS_EENV,
				  "cannot open more events (%zu open): %s; raise the limit with "
				  "'ulimit -n' or follow fewer threads", r->fds.n, strerror(e));
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		return ds_err_set(err, DS_EENV,
				  "event '%s' is not supported on CPU %d: %s; 'dsprof list' shows "
				  "what this machine supports", name, cpu, strerror(e));
	default:
		return ds_err_set(err, DS_EINPUT,
				  "the kernel rejected the settings of event '%s' (CPU %d): %s; try "
				  "another period (-c) or fewer modifiers", name, cpu, strerror(e));
	}
}

/* One ring buffer per CPU, on the first event opened there. */
static int map_ring(rec *r, int fd, ds_err *err)
{
	struct ring g = {fd, NULL, (r->pages + 1) * r->page, r->pages * r->page, NULL};

	g.base = mmap(NULL, g.len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (g.base == MAP_FAILED) {
		int e = errno;
		unsigned long long limit = ds_as_limit_mib();
		if (e == ENOMEM && limit)
			return ds_err_set(err, DS_EENV,
					  "cannot map a %zu KiB ring buffer: the address-space limit (ulimit -v) "
					  "is %llu MiB; raise it ('ulimit -v unlimited') or lower --mmap-pages",
					  g.len / 1024, limit);
		return ds_err_set(err, DS_EENV,
				  "cannot map a %zu KiB ring buffer: %s; lower --mmap-pages or raise "
				  "/proc/sys/kernel/perf_event_mlock_kb", g.len / 1024, strerror(e));
	}
	g.pg = g.base;
	ds_vec_push(&r->rings, g);
	return 0;
}

/* The bytes of one sample as the kernel writes it (PERF_RECORD_SAMPLE in
 * perf_event_open(2)), its call chain taken chain entries deep. */
static size_t sample_bytes(const struct perf_event_attr *a, size_t chain)
{
	const uint64_t words = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			       PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
			       PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR;
	uint64_t t = a->sample_type;
	size_t n = sizeof(struct perf_event_header) + 8 * (size_t)__builtin_popcountll(t & words);

	if (t & PERF_SAMPLE_CALLCHAIN)
		n += 8 + (a->exclude_callchain_user && a->exclude_callchain_kernel ? 0 : 8 * chain);
	if (t & PERF_SAMPLE_REGS_USER)
		n += 8 + 8 * (size_t)__builtin_popcountll(a->sample_regs_user);
	if (t & PERF_SAMPLE_STACK_USER)
		n += 16 + a->sample_stack_user;
	return n;
}

/* The largest sample of any event, with the stack copy as it stands and
 * call chains chain entries deep. */
static size_t largest_sample(const rec *r, size_t chain)
{
	size_t most = 0;

	for (size_t i = 0; i < r->o->nevents; i++) {
		struct perf_event_attr a;
		setup_attr(r, i, &a, true);
		if (sample_bytes(&a, chain) > most)
			most = sample_bytes(&a, chain);
	}
	return most;
}

/* Data pages (a power of two) that hold RING_SAMPLES of the largest
 * sample. */
static size_t pages_for_samples(const rec *r)
{
	size_t pages = 1;

	while (pages * r->page < largest_sample(r, TYPICAL_CHAIN) * RING_SAMPLES)
		pages *= 2;
	return pages < DEFAULT_PAGES ? DEFAULT_PAGES : pages;
}

/* Whether the locked-memory limit lets a ring of r->pages be mapped on
 * each of the n fds, one per CPU (the kernel counts an unprivileged
 * user's perf_event_mlock_kb for all CPUs, then RLIMIT_MEMLOCK); true
 * when that cannot be told. */
static bool rings_fit(rec *r, const int *fds, size_t n)
{
	size_t len = (r->pages + 1) * r->page, mapped = 0;
	void **p = ds_xcalloc(n, sizeof *p);
	bool fit = true;

	for (; mapped < n; mapped++) {
		p[mapped] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[mapped], 0);
		if (p[mapped] == MAP_FAILED) {
			fit = errno != EPERM;
			break;
		}
	}
	while (mapped--)
		munmap(p[mapped], len);
	free(p);
	return fit;
}

/* Halves r->pages while the locked-memory limit refuses a ring of them on
 * every CPU, as perf does; whether it had to. */
static bool fit_locked_memory(rec *r)
{
	struct perf_event_attr a = {0};
	int *fds = ds_xcalloc(r->cpus.n, sizeof *fds);
	size_t n = 0;
	bool halved = false;

	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	/* as unprivileged as the events: paranoid 2 refuses kernel samples */
	a.exclude_kernel = a.exclude_hv = 1;
	while (n < r->cpus.n && (fds[n] = perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)) >= 0)
		n++;
	for (; n == r->cpus.n && r->pages > 8 && !rings_fit(r, fds, n); r->pages /= 2)
		halved = true;
	while (n--)
		close(fds[n]);
	free(fds);
	return halved;
}

/* The ring buffer size and the stack copy, decided before the events are
 * opened because their wake-up mark and their samples depend on them.
 * -m's size stands as given.  Otherwise each CPU's ring holds RING_SAMPLES
 * samples, all of them together within 1/DS_RING_MEMORY_SHARE of the memory
 * and the locked-memory limit; and when that leaves a ring too small,
 * dsprof's own choice of a stack copy (--call-graph auto) is shortened, to
 * MIN_STACK_BYTES at the least, so that a burst of samples is shortened
 * rather than lost.  res says what was chosen and why; the error is a
 * ring of -m's that cannot hold one sample. */
static int choose_pages(rec *r, ds_err *err)
{
	const ds_record_opts *o = r->o;
	size_t cap = (size_t)sysconf(_SC_PHYS_PAGES) / DS_RING_MEMORY_SHARE / r->cpus.n;

	r->stack_bytes = o->stack_bytes;
	r->pages = o->mmap_pages ? o->mmap_pages : pages_for_samples(r);
	r->res->ring_wanted = r->pages * r->page;
	/* the kernel drops every sample larger than the ring, and says so
	 * only after the fact */
	if (o->mmap_pages && o->mmap_pages * r->page < largest_sample(r, 0))
		return ds_err_set(err, DS_EINPUT, "--mmap-pages %u (%zu KiB) cannot hold one sample of %zu bytes: "
				  "give a larger one%s", o->mmap_pages, o->mmap_pages * r->page / 1024,
				  largest_sample(r, 0), o->callgraph == DS_CG_DWARF ? ", or a shorter stack copy "
				  "(--call-graph dwarf,SIZE)" : "");
	if (!o->mmap_pages) {
		for (; r->pages > DEFAULT_PAGES && r->pages > cap; r->pages /= 2)
			r->res->ring_limit = DS_RING_MEMORY;
		if (fit_locked_memory(r))
			r->res->ring_limit = DS_RING_LOCKED;
		while (o->callgraph == DS_CG_DWARF && o->stack_auto && r->stack_bytes > MIN_STACK_BYTES &&
		       pages_for_samples(r) > r->pages)
			r->stack_bytes /= 2;
	}
	r->res->ring_bytes = r->pages * r->page;
	r->res->stack_bytes = o->callgraph == DS_CG_DWARF ? r->stack_bytes : 0;
	return 0;
}

static int open_events(rec *r, ds_err *err)
{
	const ds_record_opts *o = r->o;
	bool with_phys = true;

	r->events = ds_xcalloc(o->nevents, sizeof *r->events);
	for (size_t ci = 0; ci < r->cpus.n; ci++) {
		int cpu = r->cpus.v[ci];
		int ring_fd = -1;
		for (size_t i = 0; i < o->nevents; i++) {
			struct perf_event_attr a;
			for (size_t t = 0; t < r->tids.n; t++) {
				int fd;
				uint64_t id;
				setup_attr(r, i, &a, with_phys);
				fd = perf_event_open(&a, r->tids.v[t], cpu, -1, PERF_FLAG_FD_CLOEXEC);
				if (fd < 0 && errno == EACCES && (a.sample_type & PERF_SAMPLE_PHYS_ADDR)) {
					/* physical addresses need CAP_SYS_ADMIN: record without */
					with_phys = false;
					r->res->phys_addr_dropped = true;
					setup_attr(r, i, &a, with_phys);
					fd = perf_event_open(&a, r->tids.v[t], cpu, -1, PERF_FLAG_FD_CLOEXEC);
				}
				if (fd < 0 && errno == EINVAL && a.build_id) {
					/* an older kernel: build-ids are read from the files at the end */
					r->no_mmap_build_ids = true;
					setup_attr(r, i, &a, with_phys);
					fd = perf_event_open(&a, r->tids.v[t], cpu, -1, PERF_FLAG_FD_CLOEXEC);
				}
				if (fd < 0)
					return open_error(r, i, r->tids.v[t], cpu, errno, err);
				ds_vec_push(&r->fds, fd);
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
					return ds_err_set(err, DS_EENV, "cannot read an event id: %s", strerror(errno));
				ds_event *ev = &r->events[i];
				ev->ids = ds_xrealloc(ev->ids, (ev->nids + 1) * sizeof *ev->ids);
				ev->ids[ev->nids++] = id;
				if (ring_fd < 0) {
					ring_fd = fd;
					if (map_ring(r, fd, err))
						return -1;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) < 0) {
					return ds_err_set(err, DS_EENV, "cannot share a ring buffer: %s",
							  strerror(errno));
				}
			}
			r->events[i].attr = a;
		}
	}
	for (size_t i = 0; i < o->nevents; i++) {
		r->events[i].name = o->events[i].name;
		r->res->event_period[i] = r->events[i].attr.freq ? 0 : r->events[i].attr.sample_period;
		r->res->event_freq[i] = r->events[i].attr.freq ? r->events[i].attr.sample_freq : 0;
	}
	return 0;
}

/* ---- synthesized records ---- */

static void put_rec(rec *r, ds_buf *b, uint32_t type, uint16_t misc, uint32_t pid, uint32_t tid)
{
	struct perf_event_header *h;
	const ds_event *e0 = &r->events[0];
	ds_sample_id_append(b, &e0->attr, pid, tid, 0, e0->ids[0], 0);
	while (b->len % 8)
		ds_buf_putc(b, 0);
	h = (struct perf_event_header *)b->p;
	h->type = type;
	h->misc = misc;
	h->size = (uint16_t)b->len;
}

static void put_name(ds_buf *b, const char *s)
{
	ds_buf_append(b, s, strlen(s) + 1);
	while (b->len % 8)
		ds_buf_putc(b, 0);
}

/* The kernel's text as perf describes it, so kernel samples resolve. */
static int synth_kernel_mmap(rec *r, ds_err *err)
{
	FILE *ks = ds_fopen_regular("/proc/kallsyms", NULL);
	uint64_t text = 0, etext = 0;
	char line[512];
	ds_buf b = {0};
	int rc;

	/* a line at a time, up to _etext: the file is several MiB, and a
	 * low ulimit -v must not fail here */
	while (ks && (!text || !etext) && fgets(line, sizeof line, ks)) {
		unsigned long long addr;
		char type, name[64];
		if (sscanf(line, "%llx %c %63s", &addr, &type, name) != 3)
			continue;
		if (strcmp(name, "_text") == 0)
			text = addr;
		else if (strcmp(name, "_etext") == 0)
			etext = addr;
	}
	if (ks)
		fclose(ks);
	if (!text || etext <= text)
		return 0; /* addresses hidden (kptr_restrict): kernel samples stay [kernel] */
	{
		struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
		} m = {{0, 0, 0}, (uint32_t)-1, 0, text, etext - text, text};
		ds_buf_append(&b, &m, sizeof m);
	}
	put_name(&b, "[kernel.kallsyms]_text");
	put_rec(r, &b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, (uint32_t)-1, 0);
	rc = ds_pdw_write(r->w, b.p, b.len, err);
	ds_buf_free(&b);
	return rc;
}

/* An attached process's threads and mappings, which the kernel reported
 * before we were listening. */
static int synth_process(rec *r, ds_err *err)
{
	pid_t pid = r->o->pid;
	char path[64];
	char *maps;
	ds_buf b = {0};

	for (size_t t = 0; t < r->tids.n; t++) {
		char *comm;
		snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)r->tids.v[t]);
		comm = ds_read_line(path);
		struct { struct perf_event_header h; uint32_t pid, tid; } c = {{0, 0, 0}, (uint32_t)pid, (uint32_t)r->tids.v[t]};
		ds_buf_reset(&b);
		ds_buf_append(&b, &c, sizeof c);
		put_name(&b, comm ? comm : "?");
		free(comm);
		put_rec(r, &b, PERF_RECORD_COMM, 0, (uint32_t)pid, (uint32_t)r->tids.v[t]);
		if (ds_pdw_write(r->w, b.p, b.len, err))
			goto fail;
	}
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	maps = ds_read_file(path, NULL);
	for (char *l = maps; l && *l;) {
		char *nl = strchr(l, '\n');
		unsigned long long start, end, off, ino;
		unsigned maj, mn;
		char perms[8];
		int name_at = 0;
		if (nl)
			*nl = 0;
		if (sscanf(l, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &mn,
			   &ino, &name_at) >= 7) {
			const char *name = name_at ? l + name_at : "";
			struct {
				struct perf_event_header h;
				uint32_t pid, tid;
				uint64_t start, len, pgoff;
				uint32_t maj, min;
				uint64_t ino, ino_gen;
				uint32_t prot, flags;
			} m = {{0, 0, 0}, (uint32_t)pid, (uint32_t)pid, start, end - start, off, maj, mn, ino, 0,
			       (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
				       (perms[2] == 'x' ? PROT_EXEC : 0),
			       perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE};
			ds_buf_reset(&b);
			ds_buf_append(&b, &m, sizeof m);
			put_name(&b, *name ? name : "//anon");
			put_rec(r, &b, PERF_RECORD_MMAP2, perms[2] == 'x' ? 0 : PERF_RECORD_MISC_MMAP_DATA,
				(uint32_t)pid, (uint32_t)pid);
			((struct perf_event_header *)b.p)->misc |= PERF_RECORD_MISC_USER;
			if (ds_pdw_write(r->w, b.p, b.len, err)) {
				free(maps);
				goto fail;
			}
		}
		if (!nl)
			break;
		l = nl + 1;
	}
	free(maps);
	ds_buf_free(&b);
	return 0;
fail:
	ds_buf_free(&b);
	return -1;
}

/* ---- draining ---- */

static void ring_copy(const struct ring *g, uint64_t pos, void *dst, size_t n)
{
	const unsigned char *data = (const unsigned char *)g->base + g->pg->data_offset;
	size_t off = pos & (g->size - 1), first = g->size - off;
	if (first >= n) {
		memcpy(dst, data + off, n);
	} else {
		memcpy(dst, data + off, first);
		memcpy((char *)dst + first, data, n - first);
	}
}

static int drain_ring(rec *r, struct ring *g, bool *wrote, ds_err *err)
{
	uint64_t head = __atomic_load_n(&g->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = g->pg->data_tail, pos;
	const unsigned char *data = (const unsigned char *)g->base + g->pg->data_offset;
	size_t off, first;

	if (head == tail)
		return 0;
	if (head - tail > g->size)
		return ds_err_set(err, DS_EENV, "ring buffer overran (head %llu, tail %llu)",
				  (unsigned long long)head, (unsigned long long)tail);
	off = tail & (g->size - 1);
	first = g->size - off;
	if (first > head - tail)
		first = head - tail;
	if (r->phys) {
		/* a copy to complete: the ring's data pages are read-only */
		ds_buf_reset(&r->recs);
		ds_buf_reserve(&r->recs, head - tail);
		ring_copy(g, tail, r->recs.p, head - tail);
		ds_physaddr_fill(r->phys, (unsigned char *)r->recs.p, head - tail);
		if (ds_pdw_write(r->w, r->recs.p, head - tail, err))
			return -1;
	} else if (ds_pdw_write(r->w, data + off, first, err) ||
		   (head - tail > first && ds_pdw_write(r->w, data, head - tail - first, err))) {
		return -1;
	}
	for (pos = tail; pos < head;) {
		struct perf_event_header h;
		uint64_t v;
		ring_copy(g, pos, &h, sizeof h);
		if (h.size < sizeof h)
			break;
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			r->res->samples++;
			if ((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
				ring_copy(g, pos + 16, &v, 8); /* after header and identifier */
				ds_hash_intern(r->kernel_ips, &v, sizeof v, NULL);
			}
			ring_copy(g, pos + 32, &v, 8); /* after header, identifier, ip, pid/tid */
			if (!r->first_time || v < r->first_time)
				r->first_time = v;
			if (v > r->last_time)
				r->last_time = v;
			break;
		case PERF_RECORD_LOST:
			ring_copy(g, pos + 16, &v, 8);
			r->res->lost += v;
			break;
		case PERF_RECORD_LOST_SAMPLES:
			ring_copy(g, pos + 8, &v, 8);
			r->res->lost_samples += v;
			break;
		case PERF_RECORD_THROTTLE:
			r->res->throttled++;
			break;
		}
		pos += h.size;
	}
	__atomic_store_n(&g->pg->data_tail, head, __ATOMIC_RELEASE);
	*wrote = true;
	return 0;
}

/* One pass over every ring, closed by a FINISHED_ROUND record as perf
 * writes it: its ordered-events queue flushes at those marks. */
static int drain_all(rec *r, ds_err *err)
{
	bool wrote = false;
	for (size_t i = 0; i < r->rings.n; i++)
		if (drain_ring(r, &r->rings.v[i], &wrote, err))
			return -1;
	if (wrote) {
		struct perf_event_header fr = {68 /* PERF_RECORD_FINISHED_ROUND */, 0, sizeof fr};
		if (ds_pdw_write(r->w, &fr, sizeof fr, err) || ds_pdw_flush(r->w, err))
			return -1;
	}
	return 0;
}

/* ---- the target ---- */

static int start_child(rec *r, ds_err *err)
{
	if (ds_workload_fork(&r->wl, r->o->argv, r->o->env, r->o->detach, err))
		return -1;
	ds_vec_push(&r->tids, r->wl.pid);
	return 0;
}

/* Let the child exec; returns -1 when exec failed. */
static int release_child(rec *r, ds_err *err)
{
	int e = ds_workload_start(&r->wl, err);
	if (e < 0)
		return -1;
	if (e > 0)
		return ds_err_set(err, DS_EINPUT, "cannot run '%s': %s", r->o->argv[0], strerror(e));
	r->res->target_started = true;
	return 0;
}

/* PF_KTHREAD in /proc/PID/stat's flags (include/linux/sched.h) */
#define PF_KTHREAD 0x00200000UL

int ds_sampler_check_pid(pid_t pid, ds_err *err)
{
	char path[64], *text, *open_paren, *close_paren;
	unsigned long flags = 0;
	int rc = 0;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!(text = ds_read_file(path, NULL)))
		return ds_err_set(err, DS_EINPUT, "cannot attach to process %d: %s", (int)pid,
				  errno == ENOENT ? "no such process" : strerror(errno));
	/* "PID (COMM) STATE PPID PGRP SESSION TTY TPGID FLAGS ...": COMM may hold
	 * spaces and parentheses, so the fields start after the last ')' */
	open_paren = strchr(text, '(');
	close_paren = strrchr(text, ')');
	if (open_paren && close_paren > open_paren &&
	    sscanf(close_paren + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1 && (flags & PF_KTHREAD)) {
		*close_paren = 0;
		rc = ds_err_set(err, DS_EINPUT, "cannot attach to process %d (%s): it is a kernel thread, which "
			        "has no user space to sample; attach to a process that runs a program", (int)pid,
				open_paren + 1);
	}
	free(text);
	return rc;
}

static int attach_threads(rec *r, ds_err *err)
{
	char path[64];
	DIR *d;
	struct dirent *e;

	if (ds_sampler_check_pid(r->o->pid, err))
		return -1;
	snprintf(path, sizeof path, "/proc/%d/task", (int)r->o->pid);
	d = opendir(path);
	if (!d)
		return ds_err_set(err, DS_EINPUT, "cannot attach to process %d: %s", (int)r->o->pid,
				  errno == ENOENT ? "no such process" : strerror(errno));
	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end == 0 && tid > 0)
			ds_vec_push(&r->tids, (pid_t)tid);
		if (!r->o->inherit)
			break;
	}
	closedir(d);
	if (!r->tids.n)
		return ds_err_set(err, DS_EINPUT, "cannot attach to process %d: it has no threads",
				  (int)r->o->pid);
	r->pidfd = (int)syscall(SYS_pidfd_open, r->o->pid, 0);
	r->res->target_started = true;
	return 0;
}

static void enable_all(rec *r)
{
	for (size_t i = 0; i < r->fds.n; i++)
		ioctl(r->fds.v[i], PERF_EVENT_IOC_ENABLE, 0);
}

static void disable_all(rec *r)
{
	for (size_t i = 0; i < r->fds.n; i++)
		ioctl(r->fds.v[i], PERF_EVENT_IOC_DISABLE, 0);
}

/* The drain loop: until the target ends, a stop signal, or the duration.
 * The heap tracker's asks for files (--heap) are answered as they come. */
static int record_loop(rec *r, bool *interrupted, ds_err *err)
{
	size_t n = r->rings.n;
	struct pollfd *pfd = ds_xcalloc(n + 2 + DS_HEAP_BROKER_FDS, sizeof *pfd);
	double end = r->o->duration > 0 ? ds_now() + r->o->duration : 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		pfd[i] = (struct pollfd){r->rings.v[i].fd, POLLIN, 0};
	pfd[n] = (struct pollfd){r->wl.sigfd, POLLIN, 0};
	pfd[n + 1] = (struct pollfd){r->pidfd, POLLIN, 0};
	for (;;) {
		int timeout = r->phys ? ds_physaddr_drain_ms() : DRAIN_INTERVAL_MS;
		size_t nb = ds_heap_broker_fds(r->o->heap_broker, pfd + n + 2);
		if (end) {
			double left = end - ds_now();
			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		if (poll(pfd, n + 2 + nb, timeout) < 0 && errno != EINTR) {
			rc = ds_err_set(err, DS_EENV, "poll: %s", strerror(errno));
			break;
		}
		ds_heap_broker_serve(r->o->heap_broker);
		for (size_t i = 0; i < n; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1; /* drained below, and again at the end */
		if (drain_all(r, err)) {
			rc = -1;
			break;
		}
		if (ds_workload_stop_requests(&r->wl)) {
			*interrupted = true;
			break;
		}
		if (r->wl.pid > 0 && ds_workload_reap(&r->wl))
			break;
		if (r->pidfd >= 0 && (pfd[n + 1].revents & POLLIN))
			break; /* the attached process ended */
	}
	free(pfd);
	return rc;
}

static int finish_file(rec *r, ds_err *err)
{
	ds_host h;
	ds_pdw_info info = {0};
	int rc;

	ds_pdw_info_host(&info, &h, r->o);
	info.clockid = CLOCK_MONOTONIC;
	info.clock_wall_ns = ds_clock_ns(CLOCK_REALTIME);
	info.clock_ref_ns = ds_clock_ns(CLOCK_MONOTONIC);
	info.first_sample_time = r->first_time;
	info.last_sample_time = r->last_time;
	r->res->bytes = ds_pdw_data_size(r->w);
	rc = ds_pdw_finish(r->w, &info, err);
	r->w = NULL;
	return rc;
}

static void cleanup(rec *r)
{
	for (size_t i = 0; i < r->rings.n; i++)
		munmap(r->rings.v[i].base, r->rings.v[i].len);
	for (size_t i = 0; i < r->fds.n; i++)
		close(r->fds.v[i]);
	ds_vec_free(&r->rings);
	ds_vec_free(&r->fds);
	ds_vec_free(&r->cpus);
	ds_vec_free(&r->tids);
	if (r->events) {
		for (size_t i = 0; i < r->o->nevents; i++)
			free(r->events[i].ids);
		free(r->events);
	}
	if (r->w)
		ds_pdw_abort(r->w);
	ds_workload_fini(&r->wl);
	r->res->target_exited = r->wl.exited;
	r->res->wait_status = r->wl.wait_status;
	if (r->pidfd >= 0)
		close(r->pidfd);
	ds_hash_free(r->kernel_ips);
	ds_physaddr_free(r->phys);
	ds_buf_free(&r->recs);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void export_kernel_ips(rec *r)
{
	size_t n = ds_hash_count(r->kernel_ips);
	r->res->kernel_ips = ds_xcalloc(n ? n : 1, sizeof *r->res->kernel_ips);
	for (size_t i = 0; i < n; i++)
		memcpy(&r->res->kernel_ips[i], ds_hash_key(r->kernel_ips, i, NULL), 8);
	ds_sort(r->res->kernel_ips, n, sizeof *r->res->kernel_ips, cmp_u64);
	r->res->nkernel_ips = n;
}

int ds_sampler_record(const ds_record_opts *o, ds_record_result *res, ds_err *err)
{
	rec r = {0};
	bool interrupted = false, loop_failed;
	int rc = -1;

	memset(res, 0, sizeof *res);
	res->event_period = ds_xcalloc(o->nevents, sizeof *res->event_period);
	res->event_freq = ds_xcalloc(o->nevents, sizeof *res->event_freq);
	r.o = o;
	r.res = res;
	r.page = (size_t)sysconf(_SC_PAGESIZE);
	r.pidfd = -1;
	r.kernel_ips = ds_hash_new();

	if (ds_workload_init(&r.wl, o->command_mask, err))
		goto out;
	if (online_cpus(&r, err))
		goto out;
	if (choose_pages(&r, err))
		goto out;
	if (o->pid ? attach_threads(&r, err) : start_child(&r, err))
		goto out;
	if (open_events(&r, err))
		goto out;
	r.phys = ds_physaddr_new(r.events, o->nevents);
	r.w = ds_pdw_create(o->dir, "perf.data", false, r.events, o->nevents, err);
	if (!r.w || synth_kernel_mmap(&r, err) || (o->pid && synth_process(&r, err)) ||
	    ds_pdw_flush(r.w, err))
		goto out;

	res->start_wall = (double)ds_clock_ns(CLOCK_REALTIME) / 1e9;
	res->start_ns = ds_clock_ns(CLOCK_MONOTONIC);
	if (o->pid)
		enable_all(&r);
	else if (release_child(&r, err)) {
		ds_pdw_abort(r.w);
		r.w = NULL;
		ds_wdir_unlink(o->dir, "perf.data", NULL);
		goto out;
	}
	loop_failed = record_loop(&r, &interrupted, err) != 0;
	/* nothing answers from here on: a process that asks now must not wait
	 * (below, dsprof waits for the command to end) */
	ds_heap_broker_stop(o->heap_broker);
	if (loop_failed)
		goto out;
	disable_all(&r);
	res->end_wall = (double)ds_clock_ns(CLOCK_REALTIME) / 1e9;
	res->end_ns = ds_clock_ns(CLOCK_MONOTONIC);
	if (drain_all(&r, err) || finish_file(&r, err) || ds_expdir_save_vdso(o->dir, err))
		goto out;
	export_kernel_ips(&r);
	if (ds_workload_wait(&r.wl, interrupted, 0, NULL, NULL, err))
		goto out;
	rc = 0;
out:
	cleanup(&r);
	return rc;
}

void ds_record_result_fini(ds_record_result *r)
{
	free(r->event_period);
	free(r->event_freq);
	free(r->kernel_ips);
	r->event_period = r->event_freq = r->kernel_ips = NULL;
}
