/*
 * libFuzzer target: the simulator's record streams, as sampler/sim.c reads
 * what the Valgrind tool writes (sim_proto.h), into perf.data, and that
 * perf.data read back as a report reads it.  A stream cut short, a record
 * of a size that cannot be, statistics records of any size, samples whose
 * fields are not what the attrs say: each must end in an error or a
 * perf.data whose damage is counted, never a crash or an over-read.
 *
 * The input holds the streams (fuzz.h: "--- NAME" lines), one part per
 * process named PID.stream; a part named callchain (its content does not
 * matter) records with call chains.  The events are the seven simulated
 * ones in the protocol's order (tests/fuzz/run.sh records its seeds with
 * the same).
 */
#include "analyze/analyze.h"
#include "sampler/sampler.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const events[] = {"sim:loads", "sim:stores", "sim:L1D_MISS", "sim:L2_MISS",
				     "sim:LLC_MISS", "sim:HITM", "sim:INVAL"};
#define NEVENTS (sizeof events / sizeof events[0])

static bool stream_name(const char *name)
{
	size_t digits = strspn(name, "0123456789");
	return digits > 0 && digits < 10 && strcmp(name + digits, ".stream") == 0;
}

/* perf.data as the report reads it: every record, then the views that
 * simulated samples feed. */
static void read_back(const char *dir)
{
	static const char *const views[] = {"functions", "dataobjects", "hotlines", "sharing", "timeline"};
	char *path = ds_xasprintf("%s/perf.data", dir), *debug = ds_xasprintf("%s/no-debug", fz_dir());
	char *ks = ds_xasprintf("%s/kallsyms", fz_dir());
	ds_session_opts so = {.debug_root = debug, .kallsyms = ks}; /* kept until the session closes */
	ds_perfdata *pd;
	ds_session *s;
	ds_err err = {0};

	if (ds_perfdata_open(path, &pd, &err) == 0) {
		uint64_t cur = 0;
		ds_record r;
		size_t n;
		char **notes;
		while (ds_perfdata_next(pd, &cur, &r, &err) > 0)
			;
		notes = ds_perfdata_damage_notes(pd, 0, &n);
		for (size_t i = 0; i < n; i++)
			free(notes[i]);
		free(notes);
		ds_perfdata_close(pd);
	}
	if (ds_session_open(dir, &so, &s, &err) == 0) {
		for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
			ds_table *t;
			if (ds_view_build(s, views[i], NULL, &t, &err) == 0)
				ds_table_free(t);
		}
		ds_session_close(s);
	}
	free(path);
	free(debug);
	free(ks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_part parts[FZ_MAX_PARTS];
	size_t n = fz_split(data, size, parts), nstreams = 0;
	ds_evspec specs[NEVENTS];
	ds_record_opts o = {0};
	ds_record_result res;
	ds_sim_result sres;
	ds_err err = {0};
	char *dir;

	fz_clear();
	for (size_t i = 0; i < n; i++)
		if (stream_name(parts[i].name)) {
			char *name = ds_xasprintf("exp/sim/%s", parts[i].name);
			fz_write(name, parts[i].data, parts[i].size);
			free(name);
			nstreams++;
		}
	if (!nstreams)
		return 0;
	fz_write("kallsyms", "", 0);
	for (size_t i = 0; i < NEVENTS; i++)
		if (ds_sim_event_resolve(events[i], &specs[i], &err))
			abort();
	dir = ds_xasprintf("%s/exp", fz_dir());
	o.events = specs;
	o.nevents = NEVENTS;
	o.callgraph = fz_find(parts, n, "callchain") ? DS_CG_FP : DS_CG_NONE;
	o.outdir = dir;
	if (!(o.dir = ds_wdir_open(dir, &err)))
		abort();
	if (ds_sim_convert(&o, &res, &sres, &err) == 0)
		read_back(dir);
	ds_wdir_close(o.dir);
	ds_record_result_fini(&res);
	ds_sim_result_fini(&sres);
	for (size_t i = 0; i < NEVENTS; i++)
		ds_evspec_fini(&specs[i]);
	free(dir);
	return 0;
}
