/* dsprof record [options] -- COMMAND [ARGS] | -p PID */
#include "cli/cli.h"

#include "analyze/analyze.h"
#include "arch/arch.h"
#include "dwarfmap/dwarfmap.h"
#include "experiment/experiment.h"
#include "memobj/memobj.h"
#include "sampler/sampler.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char record_usage[] =
	"usage: dsprof record [options] [--] COMMAND [ARGS...]\n"
	"       dsprof record [options] -p PID\n"
	"\n"
	"  -e, --event NAME[/PERIOD]  event to sample (repeatable; default cpu-clock);\n"
	"                             'dsprof list' shows what this machine has\n"
	"  -c, --count PERIOD         sample every PERIOD events (ns for cpu-clock)\n"
	"  -F, --freq HZ              sample HZ times a second (default for hardware events: 4000)\n"
	"  -g                         same as --call-graph=fp\n"
	"      --call-graph=MODE      auto (the default): fp when the program keeps frame\n"
	"                             pointers, else dwarf; fp: the kernel's frame-pointer\n"
	"                             walk; dwarf[,SIZE]: copy SIZE bytes of user stack\n"
	"                             (default 8192) and unwind them through the call-frame\n"
	"                             information; none\n"
	"      --no-inherit           do not follow threads and child processes\n"
	"  -p, --pid PID              attach to a running process until Ctrl-C or --duration\n"
	"      --detach               let the command run on if dsprof is killed (by default it\n"
	"                             is killed with dsprof)\n"
	"  -d, --duration SECONDS     stop recording after SECONDS\n"
	"  -o, --output DIR           experiment directory (default dsprof.data)\n"
	"      --group G              add the experiment to group G (a directory of experiments):\n"
	"                             under MPI named by its rank (rank.N), else as the next\n"
	"                             run (run.N)\n"
	"      --repeat N             run the command N times, each run an experiment of one\n"
	"                             group (--group G, else a new group at -o DIR)\n"
	"      --follow-exec          each program the command's processes exec is an\n"
	"                             experiment of its own, PROG.PID in one group (--group\n"
	"                             G, else a new group at -o DIR): a script's programs\n"
	"  -m, --mmap-pages N         ring buffer pages per CPU (power of two; default: room\n"
	"                             for 1,024 samples, stack copies and all)\n"
	"  -q, --quiet                no summary line at the end\n"
	"      --archive              keep the sampled object files with the experiment\n"
	"                             (as 'dsprof archive' does), to analyze it elsewhere\n"
	"      --heap                 record every allocation and free of the command and its\n"
	"                             children (a preloaded tracker; with --sim, the simulator's\n"
	"                             allocator), so that heap samples are named by the\n"
	"                             allocation that made their block\n"
	"\n"
	"      --mem                  sample memory accesses precisely, as perf mem does: Intel\n"
	"                             PEBS load latency and stores, AMD IBS op (with --sim: the\n"
	"                             simulator's memory cycles, sim:MEM_CYCLES and sim:stores)\n"
	"      --ldlat N              --mem: loads that take at least N cycles (default 30)\n"
	"      --loads, --stores      --mem: only loads, only stores (default both)\n"
	"\n"
	"      --sim                  simulate the caches instead of sampling the PMU (under\n"
	"                             Valgrind); events sim:NAME (default sim:L1D_MISS,\n"
	"                             sim:LLC_MISS, sim:HITM), exact at -c 1\n"
	"      --machine FILE         --sim: the cache geometry of a machine model file\n"
	"      --cache L1D=32K:8:64,...  --sim: override cache levels (SIZE:WAYS:LINE)\n";

/* Whether argv0 names something execvp can run; mirrors its PATH search. */
static int check_command(const char *cmd, ds_err *err)
{
	char *full;
	if (strchr(cmd, '/')) {
		if (access(cmd, X_OK) == 0)
			return 0;
		return ds_err_set(err, DS_EINPUT, "cannot run '%s': %s", cmd, strerror(errno));
	}
	if (!(full = ds_find_command(cmd)))
		return ds_err_set(err, DS_EINPUT, "cannot run '%s': command not found in PATH", cmd);
	free(full);
	return 0;
}

/* "SIGSEGV" for 11: what killed the target, in the words users know. */
static char *signal_name(int sig)
{
	const char *abbrev = sigabbrev_np(sig);
	return abbrev ? ds_xasprintf("SIG%s", abbrev) : ds_xasprintf("signal %d", sig);
}

/* The stack copied by default with --call-graph dwarf: perf's default, and
 * deep enough for the chains of most programs. */
#define DWARF_STACK_BYTES 8192
/* The largest copy a sample record (at most 64 KiB) can carry: perf's. */
#define DWARF_STACK_MAX 65528

/* --mem: the events that sample memory accesses on this machine (or in
 * the simulator), into names; says which mechanism it chose. */
typedef DS_VEC(char *) name_vec;

static int pick_mem(bool sim, bool loads, bool stores, unsigned ldlat, ds_mem_plan *plan, name_vec *names,
		    bool quiet, ds_err *err)
{
	const char *how;

	if (sim) {
		how = "the simulator's latency model";
		if (loads)
			ds_vec_push(names, "sim:MEM_CYCLES");
		if (stores)
			ds_vec_push(names, "sim:stores");
	} else {
		if (ds_mem_plan_make(loads, stores, ldlat, plan, err))
			return -1;
		how = plan->mechanism;
		for (size_t i = 0; i < plan->nevents; i++)
			ds_vec_push(names, plan->events[i]);
	}
	if (!quiet) {
		fprintf(stderr, "dsprof: --mem: %s:", how);
		for (size_t i = 0; i < names->n; i++) {
			fputc(' ', stderr);
			cli_puts_safe(stderr, names->v[i]);
		}
		fputc('\n', stderr);
	}
	return 0;
}

static int parse_callgraph(const char *arg, ds_record_opts *o, bool *cg_auto)
{
	uint64_t size = DWARF_STACK_BYTES;

	*cg_auto = false;
	if (strcmp(arg, "auto") == 0) {
		*cg_auto = true;
		o->callgraph = DS_CG_FP;
	} else if (strcmp(arg, "fp") == 0) {
		o->callgraph = DS_CG_FP;
	} else if (strcmp(arg, "none") == 0) {
		o->callgraph = DS_CG_NONE;
	} else if (strncmp(arg, "dwarf", 5) == 0 && (arg[5] == '\0' || arg[5] == ',')) {
		if (arg[5] && (!ds_parse_u64(arg + 6, &size, false) || size < 8 || size > DWARF_STACK_MAX ||
			       size % 8))
			return cli_usage_error("record", "bad stack size '%s' for --call-graph dwarf (a multiple "
							 "of 8 from 8 to %d)", arg + 6, DWARF_STACK_MAX);
		o->callgraph = DS_CG_DWARF;
	} else {
		return cli_usage_error("record", "unknown call-graph mode '%s' (auto, fp, dwarf[,SIZE] or none)",
				       arg);
	}
	o->stack_bytes = (uint32_t)size;
	return 0;
}

/* --call-graph auto: frame pointers when the program keeps them, else the
 * stack copy.  A program that cannot be read (a script's interpreter is
 * what runs) gets the stack copy, which works for any code with CFI. */
static void auto_callgraph(ds_record_opts *o)
{
	char *path = o->pid ? ds_xasprintf("/proc/%d/exe", (int)o->pid)
			    : strchr(o->argv[0], '/') ? ds_xstrdup(o->argv[0]) : ds_find_command(o->argv[0]);
	ds_err none = {0};
	ds_dso *d = path ? ds_dso_open(path, NULL, &none) : NULL;
	bool fp = d && ds_dso_keeps_frame_pointers(d, ds_arch_dwarf_fp(ds_arch_host()));

	o->callgraph = fp ? DS_CG_FP : DS_CG_DWARF;
	o->stack_bytes = DWARF_STACK_BYTES;
	o->stack_auto = true;
	ds_dso_close(d);
	free(path);
}

/* The MPI rank this process runs as, from the variables the launchers
 * set (Open MPI, MPICH and Hydra, PMIx, Slurm); -1 outside MPI. */
static int64_t mpi_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};

	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		uint64_t u;
		if (v && ds_parse_u64(v, &u, false) && u <= INT32_MAX)
			return (int64_t)u;
	}
	return -1;
}

static char **dup_argv(char **v, int n)
{
	char **o = ds_xcalloc((size_t)n + 1, sizeof *o);
	for (int i = 0; i < n; i++)
		o[i] = ds_xstrdup(v[i]);
	return o;
}

/* The huge page size and NUMA nodes of a machine, and its node map, so
 * that memory objects of the experiment keep them. */
static void meta_memory(ds_meta *m, const ds_machine *mach)
{
	m->huge_page_size = mach->huge_page_size;
	m->numa_nodes = mach->numa_nodes;
	for (size_t i = 0; i < mach->nmobjs; i++)
		if (strcmp(mach->mobj_names[i], "numa_node") == 0)
			m->numa_map = ds_xstrdup(mach->mobj_exprs[i]);
}

/* sim: the machine whose caches were simulated, NULL for the perf_event backend. */
static int write_meta(ds_wdir *outdir, const ds_record_opts *o, const ds_record_result *res,
		      const ds_machine *sim, int argc, char **argv, int ntarget, ds_err *err)
{
	ds_meta m;
	ds_host h;
	int rc;

	ds_host_probe(&h);
	ds_meta_init(&m);
	m.dsprof_version = ds_xstrdup(DSPROF_VERSION);
	m.argv = dup_argv(argv, argc);
	m.argc = argc;
	if (o->argv) {
		m.target = dup_argv(o->argv, ntarget);
		m.ntarget = ntarget;
	}
	m.attach_pid = o->pid ? o->pid : -1;
	m.rank = mpi_rank();
	m.host = ds_xstrdup(h.hostname);
	m.kernel = ds_xstrdup(h.kernel);
	m.arch = ds_xstrdup(h.arch);
	m.cpu_model = ds_xstrdup(h.cpu_model);
	m.ncpus = h.ncpus_online;
	m.page_size = h.page_size;
	if (sim) {
		m.ncaches = sim->ncaches;
		memcpy(m.caches, sim->caches, sizeof m.caches);
		m.cache_source = ds_xstrdup(sim->source);
		meta_memory(&m, sim);
	} else {
		ds_machine here;
		ds_err none = {0};
		ds_machine_sysfs(&here, &none); /* a machine that says nothing still is one */
		m.ncaches = here.ncaches;
		memcpy(m.caches, here.caches, sizeof m.caches);
		if (here.ncaches)
			m.cache_source = ds_xstrdup(here.source);
		meta_memory(&m, &here);
		ds_machine_fini(&here);
	}
	m.backend = ds_xstrdup(sim ? "sim" : "perf_event");
	m.clock = ds_xstrdup(sim ? "logical" : "monotonic");
	m.nevents = o->nevents;
	m.events = ds_xcalloc(o->nevents, sizeof *m.events);
	for (size_t i = 0; i < o->nevents; i++) {
		m.events[i].name = ds_xstrdup(o->events[i].name);
		m.events[i].period = res->event_period[i];
		m.events[i].freq = res->event_freq[i];
		m.events[i].precise = ds_event_precise(&(ds_event){.name = o->events[i].name, .attr = o->events[i].attr});
		m.events[i].source = ds_xstrdup(sim ? "sim" : ds_ev_source_name(o->events[i].source));
	}
	m.callchains = o->callgraph != DS_CG_NONE;
	m.inherit = o->inherit;
	m.start_wall = res->start_wall;
	m.end_wall = res->end_wall;
	m.start_ns = res->start_ns;
	m.end_ns = res->end_ns;
	m.samples = res->samples;
	m.lost = res->lost;
	m.lost_samples = res->lost_samples;
	m.throttled = res->throttled;
	if (res->target_exited) {
		int st = res->wait_status;
		m.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (WIFSIGNALED(st))
			m.exit_signal = signal_name(WTERMSIG(st));
	}
	rc = ds_meta_write(&m, outdir, err);
	ds_meta_fini(&m);
	return rc;
}

void cli_say_moved(const ds_expdir_prev *prev)
{
	if (!prev->said[0])
		return;
	fputs("dsprof: ", stderr);
	cli_puts_safe(stderr, prev->said);
	fputc('\n', stderr);
}

void cli_discard(const char *dir, const ds_expdir_prev *prev)
{
	if (!ds_expdir_discard(dir, prev))
		return;
	fputs("dsprof: put the previous experiment back in '", stderr);
	cli_puts_safe(stderr, dir);
	fputs("'\n", stderr);
}

int cli_keep_kernel_symbols(ds_wdir *outdir, const uint64_t *ips, size_t n)
{
	ds_buf kept = {0};
	ds_err err = {0};
	int rc = 0;

	if (!n)
		return 0;
	if (ds_kallsyms_subset("/proc/kallsyms", ips, n, &kept, &err) ||
	    ds_wdir_write_file(outdir, "kallsyms", kept.p ? kept.p : "", kept.len, &err)) {
		fputs("dsprof: note: kernel samples will show as [kernel]: ", stderr);
		cli_puts_safe(stderr, err.msg);
		fputc('\n', stderr);
		rc = -1;
	}
	ds_buf_free(&kept);
	return rc;
}

/* What the simulator counted, exactly; the cache levels it could not
 * simulate; and what Valgrind had to say. */
static void sim_summary(const ds_record_opts *o, const ds_sim_result *s, const ds_machine *left_out,
			bool quiet)
{
	if (!quiet) {
		fprintf(stderr, "[ dsprof record: simulated %llu accesses:",
			(unsigned long long)s->accesses);
		for (size_t i = 0; i < o->nevents; i++)
			fprintf(stderr, "%s %s %llu", i ? "," : "", o->events[i].name,
				(unsigned long long)s->event_count[i]);
		fprintf(stderr, " ]\n");
		for (int i = 0; i < left_out->ncaches; i++)
			fprintf(stderr, "dsprof: note: the L%d cache's associativity is unknown (%s): it was "
				"not simulated; give it with --cache L%d=SIZE:WAYS:LINE\n",
				left_out->caches[i].level, left_out->source, left_out->caches[i].level);
	}
	if (s->truncated_streams)
		fprintf(stderr, "dsprof: warning: %llu processes were killed while writing a sample; "
			"their last records are lost\n", (unsigned long long)s->truncated_streams);
	if (s->valgrind_said) {
		fputs("dsprof: note: valgrind: ", stderr);
		cli_puts_safe(stderr, s->valgrind_said);
		fputs(" (its logs are in the experiment's sim/ folder)\n", stderr);
	}
}

/* The machine --sim simulates: this one, or --machine's, with --cache's
 * overrides.  A level below L1D whose associativity the machine does not
 * tell (CPUID leaves some out) cannot be simulated: it moves to
 * left_out, to be said in the summary, rather than simulated with ways we
 * made up. */
static int sim_machine(ds_machine *m, ds_machine *left_out, const char *model, const char *cache,
		       ds_err *err)
{
	int n = 0;

	if (model ? ds_machine_load(m, model, err) : ds_machine_sysfs(m, err))
		return -1;
	if (cache && ds_machine_override(m, cache, err))
		return -1;
	left_out->source = ds_xstrdup(m->source);
	for (int i = 0; i < m->ncaches; i++) {
		const ds_cache_level *c = &m->caches[i];
		if (c->level > 1 && !c->ways && strcmp(c->type, "Instruction") != 0)
			left_out->caches[left_out->ncaches++] = *c;
		else
			m->caches[n++] = *c;
	}
	m->ncaches = n;
	return 0;
}

static void summary(const char *outdir, const ds_record_result *res, uint32_t stack_bytes_asked, bool quiet)
{
	bool stack_bytes_cut = res->stack_bytes && res->stack_bytes < stack_bytes_asked;

	if (!quiet) {
		fprintf(stderr, "[ dsprof record: %llu samples, %.2f MB written to '",
			(unsigned long long)res->samples, (double)res->bytes / 1e6);
		cli_puts_safe(stderr, outdir);
		fprintf(stderr, "' ]\n");
	}
	/* a smaller ring than the samples need, and lost data, are never
	 * hidden, even with -q */
	if (res->ring_limit != DS_RING_UNLIMITED) {
		fprintf(stderr, "dsprof: note: ring buffers of %zu KiB per CPU, not %zu KiB, ", res->ring_bytes / 1024,
			res->ring_wanted / 1024);
		if (stack_bytes_cut)
			fprintf(stderr, "and stack copies of %u bytes, not %u, ", res->stack_bytes, stack_bytes_asked);
		if (res->ring_limit == DS_RING_LOCKED)
			fputs("by the locked-memory limit (kernel.perf_event_mlock_kb, ulimit -l); raise it, or "
			      "record as root, for more\n", stderr);
		else
			fprintf(stderr, "to take at most 1/%d of the memory; --mmap-pages N sets the size\n",
				DS_RING_MEMORY_SHARE);
	}
	if (res->lost || res->lost_samples) {
		fprintf(stderr,
			"dsprof: warning: %llu records (samples or side-band) and %llu further samples were lost "
			"(ring buffer full: %zu KiB per CPU", (unsigned long long)res->lost,
			(unsigned long long)res->lost_samples, res->ring_bytes / 1024);
		if (res->stack_bytes)
			fprintf(stderr, ", %u-byte stack copies); use a larger --mmap-pages, a shorter copy "
					"(--call-graph dwarf,SIZE), --call-graph fp, or a longer period\n",
				res->stack_bytes);
		else
			fputs("); use a larger --mmap-pages or a longer period\n", stderr);
	}
	if (res->throttled)
		fprintf(stderr,
			"dsprof: warning: the kernel throttled sampling %llu times "
			"(kernel.perf_event_max_sample_rate); use a longer period\n",
			(unsigned long long)res->throttled);
	if (res->phys_addr_dropped)
		fprintf(stderr, "dsprof: note: physical addresses need CAP_SYS_ADMIN; recorded without them\n");
}

/* What the heap tracker wrote: its files' allocations, frees and call
 * stacks; that it wrote none (the command never loaded it), or that some
 * process could not get its file, is never hidden, even with -q. */
static void heap_summary(const char *outdir, const ds_heap_broker *broker, bool quiet)
{
	ds_heap_totals t;
	ds_err err = {0};
	size_t failed;
	const char *why = ds_heap_broker_failed(broker, &failed);

	if (ds_heap_count(outdir, &t, &err)) {
		fprintf(stderr, "dsprof: warning: heap: %s\n", err.msg);
		return;
	}
	if (!t.files)
		fprintf(stderr, "dsprof: warning: heap: no process of the command loaded the heap tracker "
				"(setuid, or LD_PRELOAD cleared): no heap data\n");
	else if (!quiet)
		fprintf(stderr, "[ dsprof record: heap: %llu allocations, %llu frees, %llu call stacks, %zu process "
				"image%s ]\n", (unsigned long long)t.allocs, (unsigned long long)t.frees,
			(unsigned long long)t.stacks, t.files, t.files == 1 ? "" : "s");
	if (t.bad_bytes || t.cut)
		fprintf(stderr, "dsprof: warning: heap: %llu bytes of records could not be read and %zu files "
				"were cut short (a process killed while writing, a full disk)\n",
			(unsigned long long)t.bad_bytes, t.cut);
	if (failed)
		fprintf(stderr, "dsprof: warning: heap: %zu process image%s got no heap file (%s%s): their heap "
				"data is lost\n", failed, failed == 1 ? "" : "s", why, failed > 1 ? ", and others" : "");
}

/* What only this machine, right after the run, can put into the
 * experiment: the call chains' missing callers and the build-ids. */
/* How the chains unwound from stack copies end: all of them reach the
 * thread's first frame when the copies are deep enough and every object
 * has call-frame information. */
static void unwind_summary(const uint64_t *unwound, uint32_t stack_bytes)
{
	uint64_t all = 0;
	const char *sep = ":";

	for (int e = 0; e < DS_CHAIN_NENDS; e++)
		all += unwound[e];
	if (!all)
		return;
	fprintf(stderr, "[ dsprof record: %llu call chains unwound from %u-byte stack copies",
		(unsigned long long)all, stack_bytes);
	for (int e = 0; e < DS_CHAIN_NENDS; e++) {
		if (!unwound[e])
			continue;
		fprintf(stderr, "%s %.1f%% %s", sep, 100.0 * (double)unwound[e] / (double)all,
			e == DS_CHAIN_OUTERMOST ? "reach the thread's first frame" : ds_chain_end_name(e));
		sep = ",";
	}
	fputs(" ]\n", stderr);
}

static int finish(const char *outdir, ds_wdir *dir, ds_record_result *res, uint64_t *unwound, ds_err *err)
{
	ds_finish_result fr;
	int rc = ds_experiment_finish(outdir, dir, &fr, err);

	if (rc == 0) {
		res->bytes = fr.bytes;
		memcpy(unwound, fr.unwound, sizeof fr.unwound);
	}
	for (size_t i = 0; i < fr.notes.n; i++)
		cli_note(fr.notes.v[i]);
	ds_finish_result_fini(&fr);
	return rc;
}

/* What every run of the command shares. */
typedef struct run_ctx {
	ds_record_opts *o;
	const ds_machine *machine, *left_out;
	bool sim, heap, archive, quiet;
	int ntarget;
} run_ctx;

/* Record one run of the command into outdir; the exit status: the
 * command's when it ran and dsprof did its part.  *complete: the
 * experiment is complete; *killed: a signal ended the command. */
static int record_run(const run_ctx *x, const char *outdir, bool *complete, bool *killed)
{
	ds_record_opts *o = x->o;
	ds_record_result res;
	ds_sim_result sres = {0};
	ds_expdir_prev prev;
	uint64_t unwound[DS_CHAIN_NENDS] = {0};
	char *heap_note = NULL;
	ds_wdir *dir, *heap = NULL;
	ds_err err = {0};
	int status = 0;

	*complete = *killed = false;
	o->outdir = outdir;
	o->env = NULL;
	o->heap_broker = NULL;
	if (!(dir = ds_expdir_create(outdir, &prev, &err)))
		return cli_fail(&err);
	o->dir = dir;
	cli_say_moved(&prev); /* even with -q: it is the user's data */
	if (x->heap && ds_heap_env(dir, o->argv, x->sim, &heap, &o->env, &o->heap_broker, &heap_note, &err)) {
		status = cli_fail(&err);
		ds_wdir_close(dir);
		cli_discard(outdir, &prev);
		return status;
	}
	if (heap_note)
		cli_note(heap_note);
	free(heap_note);
	o->heap = x->sim && o->env;
	if (x->sim ? ds_sim_record(o, x->machine->caches, x->machine->ncaches, &res, &sres, &err)
		   : ds_sampler_record(o, &res, &err)) {
		status = cli_fail(&err);
		/* nothing was recorded: leave the directory as it was */
		if (!res.target_started) {
			ds_wdir_close(dir);
			dir = NULL;
			cli_discard(outdir, &prev);
		}
		ds_record_result_fini(&res);
		goto out;
	}
	/* the experiment is complete when meta.json, the completed perf.data
	 * and the kernel symbols are in place; until then it stays marked
	 * unfinished */
	if (write_meta(dir, o, &res, x->sim ? x->machine : NULL, o->argc_self, o->argv_self, x->ntarget,
		       &err) ||
	    finish(outdir, dir, &res, unwound, &err))
		status = cli_fail(&err);
	cli_keep_kernel_symbols(dir, res.kernel_ips, res.nkernel_ips);
	if (!status && ds_expdir_complete(dir, &err))
		status = cli_fail(&err);
	*complete = !status;
	summary(outdir, &res, o->stack_bytes, x->quiet);
	if (!x->quiet)
		unwind_summary(unwound, res.stack_bytes);
	if (o->env)
		heap_summary(outdir, o->heap_broker, x->quiet);
	if (x->sim)
		sim_summary(o, &sres, x->left_out, x->quiet);
	if (!status && x->archive && cli_archive(outdir, x->quiet, &err))
		status = cli_fail(&err);
	if (!status && res.target_exited) {
		int st = res.wait_status;
		status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		*killed = WIFSIGNALED(st);
	}
	ds_record_result_fini(&res);
out:
	ds_wdir_close(dir);
	o->dir = NULL;
	ds_sim_result_fini(&sres);
	ds_heap_env_free(o->env);
	o->env = NULL;
	ds_heap_broker_free(o->heap_broker);
	o->heap_broker = NULL;
	ds_wdir_close(heap); /* after the broker, which makes its files in it */
	return status;
}

/* --follow-exec: the recording in `whole` as a member of group gdir for
 * each program its processes exec'd (kind process), each with the
 * recording's meta data for its program; then `whole` goes. */
static int split_programs(const char *gdir, const char *whole, bool quiet)
{
	char *pdpath = ds_xasprintf("%s/perf.data", whole), *metapath = ds_xasprintf("%s/meta.json", whole);
	char **dirs = NULL;
	ds_wdir **wdirs = NULL, *from = NULL;
	ds_image *im = NULL;
	size_t n = 0, made = 0;
	ds_meta m;
	ds_err err = {0};
	int status = 0;

	ds_meta_init(&m);
	if (ds_perfdata_images(pdpath, &im, &n, &err) || ds_meta_read(&m, metapath, &err) ||
	    !(from = ds_wdir_open(whole, &err))) {
		status = cli_fail(&err);
		goto out;
	}
	dirs = ds_xcalloc(n + 1, sizeof *dirs);
	wdirs = ds_xcalloc(n + 1, sizeof *wdirs);
	for (made = 0; made < n; made++) {
		/* named by its command name (a script's, not its interpreter's), or
		 * by its file's when the kernel cut the name at 15 characters */
		const char *file = im[made].exe ? strrchr(im[made].exe, '/') + 1 : NULL;
		const char *prog = file && strlen(im[made].comm) == 15 && !strncmp(file, im[made].comm, 15)
					   ? file : im[made].comm;
		int64_t id;
		if (ds_group_reserve(gdir, "process", im[made].pid, prog, &dirs[made], &id, &err) ||
		    !(wdirs[made] = ds_wdir_open(dirs[made], &err))) {
			status = cli_fail(&err);
			made += dirs[made] != NULL;
			goto out;
		}
	}
	if (ds_perfdata_split(pdpath, n, wdirs, &err)) {
		status = cli_fail(&err);
		goto out;
	}
	for (size_t k = 0; k < n && !status; k++) {
		char **target = m.target, *prog[2] = {im[k].exe ? im[k].exe : im[k].comm, NULL};
		int ntarget = m.ntarget;
		/* the program's own: what it was, how many samples it has */
		m.target = prog;
		m.ntarget = 1;
		m.samples = im[k].samples;
		m.exit_status = -1;
		status = ds_meta_write(&m, wdirs[k], &err) || ds_wdir_share(from, "kallsyms", wdirs[k], "kallsyms", &err) ||
				 ds_wdir_share(from, "vdso.so", wdirs[k], "vdso.so", &err)
			 ? cli_fail(&err) : 0;
		m.target = target;
		m.ntarget = ntarget;
		if (!status && ds_group_add(gdir, dirs[k], "process", im[k].pid, &err))
			status = cli_fail(&err);
	}
	if (!status) {
		ds_expdir_prev none = {0};
		ds_expdir_discard(whole, &none);
	}
	if (!status && !quiet) {
		fprintf(stderr, "[ dsprof record: %zu program%s in group '", n, n == 1 ? "" : "s");
		cli_puts_safe(stderr, gdir);
		fputs("':", stderr);
		for (size_t k = 0; k < n; k++) {
			fprintf(stderr, "%s ", k ? "," : "");
			cli_puts_safe(stderr, strrchr(dirs[k], '/') + 1);
			fprintf(stderr, " (%llu samples)", (unsigned long long)im[k].samples);
		}
		fputs(" ]\n", stderr);
	}
out:
	for (size_t k = 0; k < made; k++) {
		free(dirs[k]);
		ds_wdir_close(wdirs[k]);
	}
	free(dirs);
	free(wdirs);
	ds_wdir_close(from);
	ds_images_free(im, n);
	ds_meta_fini(&m);
	free(pdpath);
	free(metapath);
	return status;
}

/* A new group where the experiment would have been: what was there
 * moves aside as it would for an experiment. */
static int new_group(const char *outdir)
{
	ds_expdir_prev prev;
	ds_err err = {0};
	ds_wdir *d = ds_expdir_create(outdir, &prev, &err);
	int rc = !d || ds_expdir_complete(d, &err) || ds_group_make(outdir, &err) ? -1 : 0;

	ds_wdir_close(d);
	if (rc)
		return cli_fail(&err);
	cli_say_moved(&prev);
	return 0;
}

/* --follow-exec: the whole recording first, in the group but not of it;
 * then a member for each program. */
static int record_followed(const run_ctx *x, const char *gdir, const char *group)
{
	char *whole = ds_xasprintf("%s/.recording.%d", gdir, (int)getpid());
	bool complete, killed;
	ds_err err = {0};
	int st, status;

	if (group && ds_group_make(group, &err)) {
		free(whole);
		return cli_fail(&err);
	}
	st = record_run(x, whole, &complete, &killed);
	status = complete ? split_programs(gdir, whole, x->quiet) : 0;
	free(whole);
	return status ? status : st;
}

/* Run k of a group gdir (or, without one, the experiment outdir); *done:
 * record no further run. */
static int record_member(const run_ctx *x, const char *outdir, const char *gdir, unsigned k, unsigned repeat,
			 bool *done)
{
	int64_t rank = mpi_rank(), id = rank;
	const char *kind = rank >= 0 ? "rank" : "run";
	char *path = NULL;
	bool complete, killed;
	ds_err err = {0};
	int st;

	*done = true;
	if (gdir && ds_group_reserve(gdir, kind, rank, NULL, &path, &id, &err))
		return cli_fail(&err);
	if (repeat > 1 && !x->quiet)
		fprintf(stderr, "[ dsprof record: run %u of %u ]\n", k + 1, repeat);
	st = record_run(x, path ? path : outdir, &complete, &killed);
	if (gdir && complete && ds_group_add(gdir, path, kind, id, &err)) {
		st = cli_fail(&err);
		complete = false;
	}
	if (gdir && !x->quiet && complete) {
		fputs("[ dsprof record: in group '", stderr);
		cli_puts_safe(stderr, gdir);
		fprintf(stderr, "' as %s.%lld ]\n", kind, (long long)id);
	}
	free(path);
	*done = !complete || killed;
	return st;
}

/* Record the command `repeat` times: into outdir, or as members of a
 * group (--group, or with --repeat a new group at outdir).  The exit
 * status is the first run's that failed, else 0.  Repeating stops at a
 * run dsprof could not complete, that a signal ended, or that a stop
 * signal (Ctrl-C) came in.  The stop signals are held from before the
 * first directory is made until the last experiment is complete
 * (ds_stop_hold): none cuts short an experiment that record then says it
 * wrote, or leaves one half written. */
static int record_runs(const run_ctx *x, const char *outdir, const char *group, unsigned repeat, bool follow)
{
	const char *gdir = group ? group : repeat > 1 || follow ? outdir : NULL;
	ds_stop_hold hold;
	bool stop = false;
	int status = 0;

	ds_stop_hold_begin(&hold);
	x->o->command_mask = &hold.before;
	if (gdir && !group)
		status = new_group(outdir);
	if (!status && follow)
		status = record_followed(x, group ? group : outdir, group);
	else if (!status)
		for (unsigned k = 0; k < repeat && !stop; k++) {
			int st = record_member(x, outdir, gdir, k, repeat, &stop);
			if (!status)
				status = st;
			/* one that came once the run's recording had read its last */
			stop |= ds_stop_hold_take(&hold) > 0;
		}
	ds_stop_hold_end(&hold);
	x->o->command_mask = NULL;
	return status;
}

/* -e takes a list, as perf's does: "cpu-clock,page-faults".  Commas inside
 * a PMU's terms ("cpu/event=0x3c,umask=0/") belong to that event; a slash
 * followed by digits only is a period ("page-faults/100,cpu-clock").  Cut
 * the list in place into NUL-terminated names; return the end of the last. */
static char *split_events(char *list)
{
	bool in_terms = false;
	char *p = list;

	for (; *p; p++) {
		if (*p == '/' && !in_terms) {
			size_t digits = strspn(p + 1, "0123456789");
			in_terms = !(digits && (p[1 + digits] == ',' || !p[1 + digits]));
		} else if (*p == '/') {
			in_terms = false;
		} else if (*p == ',' && !in_terms) {
			*p = '\0';
		}
	}
	return p + 1;
}

int cmd_record(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"event", required_argument, NULL, 'e'},
		{"count", required_argument, NULL, 'c'},
		{"freq", required_argument, NULL, 'F'},
		{"call-graph", required_argument, NULL, 'G'},
		{"no-inherit", no_argument, NULL, 'I'},
		{"pid", required_argument, NULL, 'p'},
		{"detach", no_argument, NULL, 'T'},
		{"duration", required_argument, NULL, 'd'},
		{"output", required_argument, NULL, 'o'},
		{"mmap-pages", required_argument, NULL, 'm'},
		{"quiet", no_argument, NULL, 'q'},
		{"sim", no_argument, NULL, 'S'},
		{"machine", required_argument, NULL, 'M'},
		{"cache", required_argument, NULL, 'C'},
		{"archive", no_argument, NULL, 'A'},
		{"heap", no_argument, NULL, 'H'},
		{"mem", no_argument, NULL, 'X'},
		{"ldlat", required_argument, NULL, 'L'},
		{"loads", no_argument, NULL, 'l'},
		{"stores", no_argument, NULL, 's'},
		{"group", required_argument, NULL, 'U'},
		{"repeat", required_argument, NULL, 'R'},
		{"follow-exec", no_argument, NULL, 'E'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	ds_record_opts o = {0};
	name_vec names = {0};
	DS_VEC(char *) lists = {0}; /* copies of the -e arguments that names point into */
	DS_VEC(ds_evspec) evs = {0};
	const char *outdir = "dsprof.data", *group = NULL;
	bool quiet = false, archive = false, heap = false, outdir_given = false, follow = false;
	unsigned repeat = 1;
	ds_err err = {0};
	int c, status = 0, ntarget;
	uint64_t u;
	char **self = NULL;
	bool sim = false, cg_auto = true;
	bool mem = false, only_loads = false, only_stores = false, ldlat_set = false;
	const char *bad = NULL;
	unsigned ldlat = 30;
	ds_mem_plan plan = {0};
	const char *model = NULL, *cache = NULL;
	ds_machine machine = {0}, left_out = {0};

	o.inherit = true;
	o.callgraph = DS_CG_FP;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:e:c:F:gp:d:o:m:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (!*optarg || strstr(optarg, ",,") || *optarg == ',' || optarg[strlen(optarg) - 1] == ',')
				return cli_usage_error("record", "empty event name in '-e %s'", optarg);
			ds_vec_push(&lists, ds_xstrdup(optarg));
			for (char *p = lists.v[lists.n - 1], *end = split_events(p); p < end; p += strlen(p) + 1)
				ds_vec_push(&names, p);
			break;
		case 'c':
			if (!ds_parse_u64(optarg, &o.period, true) || !o.period)
				return cli_usage_error("record", "bad period '%s' for -c", optarg);
			break;
		case 'F':
			if (!ds_parse_u64(optarg, &o.freq, true) || !o.freq)
				return cli_usage_error("record", "bad frequency '%s' for -F", optarg);
			break;
		case 'g':
			o.callgraph = DS_CG_FP;
			cg_auto = false;
			break;
		case 'G':
			if (parse_callgraph(optarg, &o, &cg_auto))
				return 1;
			break;
		case 'I':
			o.inherit = false;
			break;
		case 'T':
			o.detach = true;
			break;
		case 'p':
			if (!ds_parse_u64(optarg, &u, false) || u == 0 || u > 0x7fffffff)
				return cli_usage_error("record", "bad process id '%s'", optarg);
			o.pid = (pid_t)u;
			break;
		case 'd': {
			char *end;
			o.duration = strtod(optarg, &end);
			if (*end || end == optarg || !(o.duration > 0))
				return cli_usage_error("record", "bad duration '%s' (seconds)", optarg);
			break;
		}
		case 'o':
			outdir = optarg;
			outdir_given = true;
			break;
		case 'U':
			group = optarg;
			break;
		case 'E':
			follow = true;
			break;
		case 'R':
			if (!ds_parse_u64(optarg, &u, false) || !u || u > 10000)
				return cli_usage_error("record", "bad --repeat '%s' (1 to 10000 runs)", optarg);
			repeat = (unsigned)u;
			break;
		case 'm':
			if (!ds_parse_u64(optarg, &u, false) || u < 1 || u > (1u << 20) || (u & (u - 1)))
				return cli_usage_error("record", "--mmap-pages must be a power of two, got '%s'", optarg);
			o.mmap_pages = (unsigned)u;
			break;
		case 'q':
			quiet = true;
			break;
		case 'S':
			sim = true;
			break;
		case 'M':
			model = optarg;
			break;
		case 'C':
			cache = optarg;
			break;
		case 'A':
			archive = true;
			break;
		case 'H':
			heap = true;
			break;
		case 'X':
			mem = true;
			break;
		case 'L':
			if (!ds_parse_u64(optarg, &u, false) || !u || u > 0xffff)
				return cli_usage_error("record", "bad --ldlat '%s' (cycles, 1 to 65535)", optarg);
			ldlat = (unsigned)u;
			ldlat_set = true;
			break;
		case 'l':
			only_loads = true;
			break;
		case 's':
			only_stores = true;
			break;
		case 'h':
			fputs(record_usage, stdout);
			return 0;
		default:
			return cli_bad_option("record", argv, c, NULL);
		}
	}
	ntarget = argc - optind;
	/* the -e lists are kept: the way out frees them */
	if (o.pid && ntarget > 0)
		bad = "give either -p PID or a command, not both";
	else if (o.pid && o.detach)
		bad = "--detach is for a command dsprof runs: a process attached to with -p never dies with dsprof";
	else if (!o.pid && ntarget <= 0)
		bad = "no command to run";
	else if (o.period && o.freq)
		bad = "give either -c or -F, not both";
	else if ((model || cache) && !sim)
		bad = "--machine and --cache describe the caches --sim simulates";
	else if (heap && o.pid)
		bad = "--heap preloads a tracker into a command dsprof runs: not with -p";
	else if (sim && (o.pid || o.freq || o.duration))
		bad = "--sim runs a command and counts events: no -p, -F or -d";
	else if ((ldlat_set || only_loads || only_stores) && !mem)
		bad = "--ldlat, --loads and --stores go with --mem";
	else if (mem && names.n)
		bad = "--mem picks its own events: give --mem or -e, not both";
	else if (group && outdir_given)
		bad = "give --group or -o, not both: a group names its experiments itself";
	else if (repeat > 1 && o.pid)
		bad = "--repeat runs a command again: not with -p";
	else if (repeat > 1 && mpi_rank() >= 0)
		bad = "under MPI each rank records once (its experiment is named by its rank): no --repeat";
	else if (follow && (o.pid || repeat > 1 || heap || archive || !o.inherit))
		bad = o.pid ? "--follow-exec follows a command dsprof runs: not with -p"
		      : repeat > 1 ? "--follow-exec records one run of the command: not with --repeat"
		      : !o.inherit ? "--follow-exec follows the command's children: not with --no-inherit"
				  : "--follow-exec splits the recording by program; the files of --heap and --archive are not split: give them without it";
	if (bad) {
		status = cli_usage_error("record", "%s", bad);
		goto out;
	}
	if (mem && pick_mem(sim, !only_stores || only_loads, !only_loads || only_stores, ldlat, &plan, &names,
			    quiet, &err)) {
		status = cli_fail(&err);
		goto out;
	}
	if (sim && !names.n)
		for (size_t i = 0; ds_sim_default_events[i]; i++)
			ds_vec_push(&names, (char *)ds_sim_default_events[i]);
	if (!names.n)
		ds_vec_push(&names, "cpu-clock");
	if (sim && sim_machine(&machine, &left_out, model, cache, &err)) {
		status = cli_fail(&err);
		goto out;
	}
	memcpy(o.sim_latency, machine.latency, sizeof o.sim_latency);
	for (size_t i = 0; i < names.n; i++) {
		ds_evspec e;
		if (!sim && ds_sim_is_event(names.v[i])) {
			ds_err_set(&err, DS_EINPUT, "'%s' is a simulated event: it needs --sim (dsprof record "
				   "--sim -e %s -- COMMAND)", names.v[i], names.v[i]);
			status = cli_fail(&err);
			goto out;
		}
		if (sim && !ds_sim_is_event(names.v[i])) {
			ds_err_set(&err, DS_EINPUT, "--sim records simulated events (sim:NAME, see 'dsprof "
				   "list'), not '%s'", names.v[i]);
			status = cli_fail(&err);
			goto out;
		}
		if (sim ? ds_sim_event_resolve(names.v[i], &e, &err) : ds_event_resolve(names.v[i], &e, &err)) {
			status = cli_fail(&err);
			goto out;
		}
		e.mem = mem;
		if (e.kernel_dropped) {
			fputs("dsprof: note: kernel.perf_event_paranoid forbids kernel samples here: '", stderr);
			cli_puts_safe(stderr, e.name);
			fputs("' samples user space only\n", stderr);
		}
		ds_vec_push(&evs, e);
	}
	if (o.pid ? ds_sampler_check_pid(o.pid, &err) : check_command(argv[optind], &err)) {
		status = cli_fail(&err);
		goto out;
	}
	if (!o.pid)
		o.argv = argv + optind;
	if (cg_auto && !sim)
		auto_callgraph(&o);
	o.events = evs.v;
	o.nevents = evs.n;
	/* the header's command line names the program, as perf's does */
	self = ds_xcalloc((size_t)argc + 2, sizeof *self);
	self[0] = "dsprof";
	memcpy(self + 1, argv, (size_t)argc * sizeof *self);
	o.argc_self = argc + 1;
	o.argv_self = self;
	status = record_runs(&(run_ctx){&o, &machine, &left_out, sim, heap, archive, quiet, ntarget}, outdir,
			     group, repeat, follow);
out:
	for (size_t i = 0; i < evs.n; i++)
		ds_evspec_fini(&evs.v[i]);
	ds_vec_free(&evs);
	ds_vec_free(&names);
	for (size_t i = 0; i < lists.n; i++)
		free(lists.v[i]);
	ds_vec_free(&lists);
	free(self);
	ds_machine_fini(&machine);
	ds_mem_plan_fini(&plan);
	ds_machine_fini(&left_out);
	return status;
}
