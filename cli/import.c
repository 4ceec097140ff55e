/* dsprof import PERF.DATA [-o DIR]: an experiment out of perf's recording. */
#include "cli/cli.h"

#include "experiment/experiment.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static const char import_usage[] =
	"usage: dsprof import PERF.DATA [-o DIR]\n"
	"\n"
	"Makes an experiment directory (default dsprof.data) out of a perf.data recorded by\n"
	"'perf record', 'perf mem record' or 'perf c2c record'.  The file is copied unchanged,\n"
	"but for an Arm SPE recording, whose loads and stores become samples of its event.\n"
	"\n"
	"  -o, --output DIR   experiment directory (default dsprof.data)\n";

/* Kernel addresses of a sample: its IP in kernel mode, and the kernel part
 * of its call chain (return addresses, looked up at address - 1). */
static void kernel_ips(const ds_record *r, ds_hash *ips)
{
	const ds_sample *s = &r->u.sample;
	uint16_t mode = r->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel = false, first = true;

	if (mode == PERF_RECORD_MISC_KERNEL)
		ds_hash_intern(ips, &s->ip, 8, NULL);
	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = s->callchain[i];
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			first = true;
			continue;
		}
		if (kernel) {
			if (!first)
				ip--;
			ds_hash_intern(ips, &ip, 8, NULL);
		}
		first = false;
	}
}

/* Read every record once: the copy must be readable, and meta.json wants counts. */
static int scan(ds_perfdata *pd, ds_meta *m, ds_hash *kips, ds_err *err)
{
	uint64_t cur = 0;
	ds_record r;
	int rc;
	while ((rc = ds_perfdata_next(pd, &cur, &r, err)) > 0) {
		switch (r.kind) {
		case DS_REC_SAMPLE:
			kernel_ips(&r, kips);
			m->samples++;
			if (r.time && (!m->start_ns || r.time < m->start_ns))
				m->start_ns = r.time;
			if (r.time > m->end_ns)
				m->end_ns = r.time;
			break;
		case DS_REC_LOST: m->lost += r.u.lost.lost; break;
		case DS_REC_LOST_SAMPLES: m->lost_samples += r.u.lost.lost; break;
		case DS_REC_THROTTLE: m->throttled++; break;
		default: break;
		}
	}
	return rc;
}

/* The header's facts, and how this experiment came to be. */
static void fill_meta(ds_meta *m, ds_perfdata *pd, const char *src, int argc, char **argv)
{
	char *abs = realpath(src, NULL);

	ds_meta_from_perfdata(m, pd, "import");
	m->dsprof_version = ds_xstrdup(DSPROF_VERSION);
	m->argv = ds_xcalloc((size_t)argc + 2, sizeof *m->argv);
	m->argv[0] = ds_xstrdup("dsprof");
	for (int i = 0; i < argc; i++)
		m->argv[i + 1] = ds_xstrdup(argv[i]);
	m->argc = argc + 1;
	m->source_file = ds_xstrdup(abs ? abs : src);
	free(abs);
}

/* Recorded on this host and kernel: keep what resolves it later anywhere,
 * the vDSO image and the kernel symbols its samples need. */
static void keep_machine_bits(const ds_perfdata *pd, ds_wdir *outdir, ds_hash *kips)
{
	const ds_perfdata_header_info *in = ds_perfdata_info(pd);
	struct utsname u;
	size_t n = ds_hash_count(kips);
	uint64_t *ips;
	ds_err err = {0};

	if (uname(&u) != 0 || !in->hostname || !in->osrelease || strcmp(u.nodename, in->hostname) ||
	    strcmp(u.release, in->osrelease))
		return;
	if (ds_expdir_save_vdso(outdir, &err))
		cli_note(err.msg);
	ips = ds_xcalloc(n ? n : 1, sizeof *ips);
	for (size_t i = 0; i < n; i++)
		memcpy(&ips[i], ds_hash_key(kips, i, NULL), 8);
	cli_keep_kernel_symbols(outdir, ips, n);
	free(ips);
}

/* What the copy lacks: the same notes every report of it will show. */
static void print_damage(const ds_perfdata *pd)
{
	size_t n;
	char **notes = ds_perfdata_damage_notes(pd, 0, &n);
	for (size_t i = 0; i < n; i++) {
		cli_note(notes[i]);
		free(notes[i]);
	}
	free(notes);
}

/* An SPE recording's samples are those the rewrite made: count them in
 * it, from zero. */
static int reread(ds_perfdata **pd, const char *path, ds_meta *m, ds_hash *kips, ds_err *err)
{
	ds_perfdata_close(*pd);
	*pd = NULL;
	m->samples = m->lost = m->lost_samples = m->throttled = m->start_ns = m->end_ns = 0;
	return ds_perfdata_open(path, pd, err) || scan(*pd, m, kips, err) < 0 ? -1 : 0;
}

/* What decoding SPE's records made of them. */
static void say_spe(const ds_spe_stats *st)
{
	char *msg = ds_xasprintf("Arm SPE: %llu records decoded: %llu loads and %llu stores are samples; "
				 "%llu other operations (branches, arithmetic) are left out",
				 (unsigned long long)st->records, (unsigned long long)st->loads,
				 (unsigned long long)st->stores, (unsigned long long)st->others);
	cli_note(msg);
	free(msg);
	if (st->unattributed) {
		msg = ds_xasprintf("Arm SPE: %llu loads and stores name no thread (no context packet, a buffer per "
				   "CPU and no context switches recorded: perf record --switch-events) and are left out",
				   (unsigned long long)st->unattributed);
		cli_note(msg);
		free(msg);
	}
	if (st->bad_bytes) {
		msg = ds_xasprintf("Arm SPE: %llu bytes of the AUX data were no packet or a record cut short, "
				   "and were skipped", (unsigned long long)st->bad_bytes);
		cli_note(msg);
		free(msg);
	}
}

int cmd_import(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *outdir = "dsprof.data", *src;
	ds_perfdata *pd = NULL;
	ds_hash *kips = ds_hash_new();
	ds_meta m;
	ds_err err = {0};
	char *dst = NULL;
	int c, status = 0;
	ds_expdir_prev prev;
	ds_wdir *d = NULL;
	ds_spe_stats st;
	int spe;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o': outdir = optarg; break;
		case 'h': fputs(import_usage, stdout); return 0;
		default: return cli_bad_option("import", argv, c, NULL);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("import", "give exactly one perf.data file");
	src = argv[optind];
	ds_meta_init(&m);
	if (ds_perfdata_open(src, &pd, &err)) {
		status = cli_fail(&err);
		goto out;
	}
	fill_meta(&m, pd, src, argc, argv);
	if (scan(pd, &m, kips, &err) < 0) {
		status = cli_fail(&err);
		goto out;
	}
	dst = ds_xasprintf("%s/perf.data", outdir);
	if (!(d = ds_expdir_create(outdir, &prev, &err))) {
		status = cli_fail(&err);
		goto out;
	}
	cli_say_moved(&prev);
	if ((spe = ds_spe_import(pd, d, "perf.data", &st, &err)) < 0 || (spe && reread(&pd, dst, &m, kips, &err)) ||
	    (!spe && ds_wdir_copy_in(d, "perf.data", src, &err)) || ds_meta_write(&m, d, &err)) {
		status = cli_fail(&err);
		ds_wdir_close(d);
		d = NULL;
		cli_discard(outdir, &prev);
		goto out;
	}
	keep_machine_bits(pd, d, kips);
	if (ds_expdir_complete(d, &err)) {
		status = cli_fail(&err);
		goto out;
	}
	print_damage(pd);
	if (spe)
		say_spe(&st);
	fprintf(stderr, "[ dsprof import: %llu samples of %zu event%s from '",
		(unsigned long long)m.samples, m.nevents, m.nevents == 1 ? "" : "s");
	cli_puts_safe(stderr, src);
	fputs("' into '", stderr);
	cli_puts_safe(stderr, outdir);
	fputs("' ]\n", stderr);
out:
	ds_hash_free(kips);
	ds_meta_fini(&m);
	ds_perfdata_close(pd);
	ds_wdir_close(d);
	free(dst);
	return status;
}
