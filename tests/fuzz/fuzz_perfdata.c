/* libFuzzer target: the perf.data reader must reject bad input with an
 * error, never crash, over-read or loop. */
#include "experiment/experiment.h"
#include "tests/fuzz/fuzz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void spe_op(const ds_spe_op *op, void *ctx)
{
	*(uint64_t *)ctx += op->pc + op->va + op->latency + ds_spe_data_src(op, 0x410fd0c0) + ds_spe_data_src(op, 0);
}

/* Where an Arm SPE recording's samples are written: the scratch
 * directory, open for writing; each input's file replaces the last. */
static ds_wdir *spe_dir(void)
{
	static ds_wdir *d;
	ds_err err = {0};

	if (!d && !(d = ds_wdir_open(fz_dir(), &err)))
		abort();
	ds_wdir_unlink(d, "spe.data", NULL);
	return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ds_perfdata *pd = NULL;
	ds_err err = {0};
	ds_record r;
	uint64_t cur = 0, sum = 0;
	/* the reader expects an 8-aligned image, as mmap gives it */
	uint64_t *copy = malloc(size / 8 * 8 + 8);

	memcpy(copy, data, size);
	/* the bytes as SPE packets, and a recording's SPE records as samples */
	{
		uint64_t bad = 0;
		sum += ds_spe_decode(data, size, spe_op, &sum, &bad) + bad;
	}
	if (ds_perfdata_open_mem(copy, size, "fuzz", &pd, &err) == 0) {
		ds_spe_stats st;
		ds_err e2 = {0};
		sum += (uint64_t)ds_spe_import(pd, spe_dir(), "spe.data", &st, &e2) + st.loads + st.bad_bytes;
		ds_perfdata_close(pd);
		pd = NULL;
		cur = 0;
		if (ds_perfdata_open_mem(copy, size, "fuzz", &pd, &err) != 0)
			goto done;
		while (ds_perfdata_next(pd, &cur, &r, &err) > 0) {
			/* touch what a consumer touches */
			if (r.kind == DS_REC_SAMPLE) {
				for (uint64_t i = 0; i < r.u.sample.nr_callchain; i++)
					sum += r.u.sample.callchain[i];
				for (int i = 0; r.u.sample.regs && i < __builtin_popcountll(r.u.sample.regs_mask); i++)
					sum += r.u.sample.regs[i];
				if (r.u.sample.stack_field)
					sum += r.u.sample.stack_field[r.u.sample.stack_field_len - 1];
			} else if (r.kind == DS_REC_MMAP) {
				sum += strlen(r.u.mmap.filename);
			} else if (r.kind == DS_REC_COMM) {
				sum += strlen(r.u.comm.comm);
			}
		}
		for (size_t i = 0; i < ds_perfdata_nevents(pd); i++)
			sum += strlen(ds_perfdata_event(pd, i)->name);
		{
			size_t n;
			const ds_build_id *ids = ds_perfdata_build_ids(pd, &n);
			for (size_t i = 0; i < n; i++)
				sum += strlen(ids[i].path) + ids[i].size + ids[i].id[DS_BUILD_ID_MAX - 1];
		}
		{
			/* what a report says of the damage */
			size_t n;
			char **notes = ds_perfdata_damage_notes(pd, 0, &n);
			for (size_t i = 0; i < n; i++) {
				sum += strlen(notes[i]);
				free(notes[i]);
			}
			free(notes);
		}
		ds_perfdata_close(pd);
	}
done:
	free(copy);
	sink = sum; /* keeps the reads; libFuzzer wants 0 */
	return 0;
}
