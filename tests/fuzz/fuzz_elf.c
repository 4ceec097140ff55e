/* libFuzzer target: ELF images with their DWARF (lines, types, variables
 * and locations, CFI) and the layouts made from the types.  Malformed
 * files must give notes and errors, never a crash, an over-read or a
 * hang.
 *
 * An input is an ELF file, or an object with its separate debug files
 * (fuzz.h: "--- NAME" lines): "elf" is the object, installed as
 * usr/bin/prog of a tree, and "debug/PATH" and "bin/PATH" are files at
 * PATH under the tree's /usr/lib/debug and next to the object (a
 * .build-id/xx/....debug, a .gnu_debuglink target, .debug/NAME): the
 * object is then opened as a sampled one is, finding its debug file.
 * Each function is also unwound one frame from its middle, over a "stack"
 * that is the input's own bytes: corrupt CFI and corrupt stacks at once. */
#include "analyze/analyze.h"
#include "dwarfmap/dwarfmap.h"
#include "tests/fuzz/fuzz.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static volatile uint64_t sink;

/* Enough of each table to reach every reader, bounded so that one input
 * cannot take seconds. */
#define MAX_EACH 400

typedef struct stack {
	const uint8_t *bytes;
	size_t size;
} stack;

/* The stack lies at STACK_BASE; every register points into it. */
#define STACK_BASE 0x7ff000000000ull

static bool read_stack(void *ctx, uint64_t addr, uint64_t *val)
{
	const stack *st = ctx;

	if (addr < STACK_BASE || addr - STACK_BASE > st->size || st->size - (addr - STACK_BASE) < 8)
		return false;
	memcpy(val, st->bytes + (addr - STACK_BASE), 8);
	return true;
}

static uint64_t unwind_once(ds_dso *d, uint64_t vaddr, const stack *st)
{
	ds_unwind_env env = {.sp_reg = 7, .read = read_stack, .ctx = (void *)st};
	ds_uregs r = {.known = (1ull << DS_UNWIND_NREGS) - 1};
	uint64_t ra = 0;
	bool exact;

	for (int i = 0; i < DS_UNWIND_NREGS; i++)
		r.v[i] = STACK_BASE + (uint64_t)i * 24;
	return (uint64_t)ds_dso_unwind_step(d, vaddr, &env, &r, &ra, &exact) + ra + r.v[7];
}

static void exercise(ds_dso *d, const uint8_t *data, size_t size)
{
	uint64_t sum = 0;
	ds_buf b = {0};
	stack st = {data, size};

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
		sum += unwind_once(d, s->start + s->size / 2, &st);
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
	if (ds_dso_debug_file(d))
		sum += strlen(ds_dso_debug_file(d));
	sum += strlen(ds_dso_symbol_source(d));
	ds_buf_free(&b);
	sink = sum; /* keeps the reads */
}

/* The object and its debug files as a tree; false when the input has no
 * "elf" part. */
static bool tree(const fz_part *parts, size_t n)
{
	const fz_part *elf = fz_find(parts, n, "elf");
	char *prog, *root;
	ds_dso_opts o = {0};
	ds_err err = {0};
	ds_dso *d;

	if (!elf)
		return false;
	fz_clear();
	fz_write("usr/bin/prog", elf->data, elf->size);
	for (size_t i = 0; i < n; i++) {
		const char *name = parts[i].name;
		char *path;
		if (strstr(name, "..") || (strncmp(name, "debug/", 6) && strncmp(name, "bin/", 4)))
			continue;
		path = ds_xasprintf("%s%s", name[0] == 'd' ? "usr/lib/" : "usr/", name);
		fz_write(path, parts[i].data, parts[i].size);
		free(path);
	}
	prog = ds_xasprintf("%s/usr/bin/prog", fz_dir());
	root = ds_xasprintf("%s/usr/lib/debug", fz_dir());
	o.debug_root = root;
	if ((d = ds_dso_open(prog, &o, &err))) {
		exercise(d, elf->data, elf->size);
		ds_dso_close(d);
	}
	free(prog);
	free(root);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_part parts[FZ_MAX_PARTS];
	ds_err err = {0};
	ds_dso *d;

	if (tree(parts, fz_split(data, size, parts)))
		return 0;
	if ((d = ds_dso_open_mem(data, size, "fuzz", &err))) {
		exercise(d, data, size);
		ds_dso_close(d);
	}
	return 0;
}
