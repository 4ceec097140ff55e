/* libFuzzer target: ELF images with their DWARF (lines, types, variables
 * and locations, CFI) and the layouts made from the types.  Malformed
 * files must give notes and errors, never a crash, an over-read or a
 * hang. */
#include "analyze/analyze.h"
#include "dwarfmap/dwarfmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

/* Enough of each table to reach every reader, bounded so that one input
 * cannot take seconds. */
#define MAX_EACH 400

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ds_err err = {0};
	ds_dso *d = ds_dso_open_mem(data, size, "fuzz", &err);
	uint64_t sum = 0;
	ds_buf b = {0};

	if (!d)
		return 0;
	for (size_t i = 0; i < ds_dso_nsymbols(d) && i < MAX_EACH; i++) {
		const ds_symbol *s = ds_dso_symbol(d, i);
		const char *file;
		unsigned line;
		ds_cfa cfa;
		ds_var vars[16];
		size_t avail, n;

		if (ds_dso_line_at(d, s->start, &file, &line))
			sum += strlen(file) + line;
		if (ds_dso_cfa_at(d, s->start + s->size / 2, &cfa))
			sum++;
		if (ds_dso_code_at(d, s->start, &avail))
			sum += avail;
		n = ds_dso_vars_at(d, s->start + s->size / 2, vars, 16);
		for (size_t k = 0; k < n && k < 16; k++) {
			const ds_type *t = ds_dso_type_at_die(d, vars[k].type_die);
			sum += strlen(vars[k].name ? vars[k].name : "");
			if (t) {
				ds_buf_reset(&b);
				ds_type_name(t, &b);
				sum += b.len;
			}
		}
	}
	for (size_t i = 0; i < ds_dso_nglobals(d) && i < MAX_EACH; i++) {
		const ds_var *v = ds_dso_global(d, i);
		uint64_t off;
		if (v->loc.kind == DS_LOC_ADDR && ds_dso_global_at(d, v->loc.addr, &off))
			sum += off;
	}
	for (size_t i = 0; i < ds_dso_ntypes(d) && i < MAX_EACH; i++) {
		ds_err lerr = {0};
		ds_layout *l = ds_layout_build(ds_dso_type(d, i), 64, &lerr);
		if (l) {
			ds_buf_reset(&b);
			ds_layout_text(l, &b);
			sum += b.len;
			ds_layout_free(l);
		}
	}
	if (ds_dso_note(d))
		sum += strlen(ds_dso_note(d));
	ds_buf_free(&b);
	ds_dso_close(d);
	sink = sum; /* keeps the reads; libFuzzer wants 0 */
	return 0;
}
