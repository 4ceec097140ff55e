/*
 * libFuzzer target: meta.json's meaning (fuzz_json covers its syntax).
 * Every field is validated on reading: a value that cannot be is one
 * problem line and an unknown field, never a crash or undefined behaviour.
 * What was read must then be usable and must survive a round trip: the
 * machine made from it evaluates its memory objects, and what ds_meta_write
 * writes reads back with no problem and the same values (a second round
 * trip changes nothing, strings included).
 */
#include "experiment/experiment.h"
#include "memobj/memobj.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what, const char *field)
{
	fprintf(stderr, "fuzz_meta: %s: %s\n", what, field);
	abort();
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void same_strv(char **a, int na, char **b, int nb, const char *field)
{
	if (na != nb || (!a) != (!b))
		fail("a round trip changed", field);
	for (int i = 0; i < na; i++)
		if (!same_str(a[i], b[i]))
			fail("a round trip changed", field);
}

/* The fields of a and b agree; strings only when `strings` (the first
 * trip may turn invalid UTF-8 into U+FFFD, on purpose). */
static void same_meta(const ds_meta *a, const ds_meta *b, bool strings)
{
#define NUM(f)                                                  \
	do {                                                    \
		if (a->f != b->f)                               \
			fail("a round trip changed", #f);       \
	} while (0)
#define STR(f)                                                  \
	do {                                                    \
		if (strings && !same_str(a->f, b->f))           \
			fail("a round trip changed", #f);       \
	} while (0)
	NUM(attach_pid); NUM(ncpus); NUM(page_size); NUM(huge_page_size); NUM(numa_nodes);
	NUM(ncaches); NUM(nevents); NUM(callchains); NUM(inherit); NUM(start_wall); NUM(end_wall);
	NUM(start_ns); NUM(end_ns); NUM(samples); NUM(lost); NUM(lost_samples); NUM(throttled);
	NUM(exit_status);
	STR(host); STR(kernel); STR(arch); STR(cpu_model); STR(numa_map); STR(cache_source);
	STR(backend); STR(clock); STR(exit_signal); STR(source_file);
	if (strings) {
		same_strv(a->argv, a->argc, b->argv, b->argc, "argv");
		same_strv(a->target, a->ntarget, b->target, b->ntarget, "target");
	}
	for (int i = 0; i < a->ncaches; i++) {
		const ds_cache_level *x = &a->caches[i], *y = &b->caches[i];
		if (x->level != y->level || strcmp(x->type, y->type) || x->size != y->size || x->line != y->line ||
		    x->ways != y->ways || x->sets != y->sets || (strings && strcmp(x->shared_cpus, y->shared_cpus)))
			fail("a round trip changed", "caches");
	}
	for (size_t i = 0; i < a->nevents; i++) {
		const ds_meta_event *x = &a->events[i], *y = &b->events[i];
		if (x->period != y->period || x->freq != y->freq || x->precise != y->precise ||
		    (strings && (!same_str(x->name, y->name) || !same_str(x->source, y->source))))
			fail("a round trip changed", "events");
	}
#undef NUM
#undef STR
}

/* Write m and read it back into r: no problem may come back. */
static void round_trip(const ds_meta *m, ds_meta *r)
{
	static ds_wdir *dir;
	char *path = ds_xasprintf("%s/meta.json", fz_dir());
	ds_err err = {0};

	if (!dir && !(dir = ds_wdir_open(fz_dir(), &err)))
		fail("cannot open the scratch directory", err.msg);
	if (ds_meta_write(m, dir, &err) || ds_meta_read(r, path, &err))
		fail("cannot write and read back", err.msg);
	if (r->nproblems)
		fail("what was written reads with a problem", r->problems[0]);
	free(path);
}

/* The experiment's machine and its memory objects, evaluated. */
static void use_machine(const ds_meta *m)
{
	ds_machine mach;
	ds_mobjs objs;
	ds_access acc = {.v = {0x7f0012345678, 0x123456789, 1234, 1, 0x401000, 1000000}};
	char buf[64];

	ds_machine_from_meta(&mach, m);
	ds_mobjs_init(&objs, &mach);
	for (size_t i = 0; i < objs.n; i++)
		if (objs.v[i].code)
			ds_mobj_format(&objs.v[i], ds_expr_eval(objs.v[i].code, &acc), buf, sizeof buf);
	ds_mobjs_fini(&objs);
	ds_machine_fini(&mach);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ds_meta m, r1, r2;
	ds_err err = {0};

	if (ds_meta_read(&m, fz_memfile(0, data, size), &err)) {
		ds_meta_fini(&m);
		return 0;
	}
	for (size_t i = 0; i < m.nproblems; i++)
		if (!m.problems[i] || !strstr(m.problems[i], "meta.json: "))
			fail("a problem does not say where", m.problems[i] ? m.problems[i] : "(null)");
	use_machine(&m);
	round_trip(&m, &r1);
	same_meta(&m, &r1, false);
	round_trip(&r1, &r2);
	same_meta(&r1, &r2, true);
	ds_meta_fini(&m);
	ds_meta_fini(&r1);
	ds_meta_fini(&r2);
	return 0;
}
