/*
 * libFuzzer target: the kernel's symbols from a kallsyms file.  Any text
 * must read without a crash or an over-read, and the subset an experiment
 * keeps (ds_kallsyms_subset) must resolve each address it was made for
 * exactly as the whole file does: same symbol, start and size, wherever
 * one symbol covers the address (where perf's page at a kernel/module
 * boundary makes two overlap, the subset may name the other: dwarfmap.h).
 */
#include "dwarfmap/dwarfmap.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enough addresses to reach every rule, few enough to stay fast. */
#define MAX_ADDRS 96

static void fail(const char *what, uint64_t addr)
{
	fprintf(stderr, "fuzz_kallsyms: %s at 0x%llx\n", what, (unsigned long long)addr);
	abort();
}

/* How many symbols of d cover addr. */
static size_t covering(const ds_dso *d, uint64_t addr)
{
	size_t n = 0;

	for (size_t i = 0; i < ds_dso_nsymbols(d); i++) {
		const ds_symbol *s = ds_dso_symbol(d, i);
		n += addr >= s->start && addr - s->start < s->size;
	}
	return n;
}

static void same_symbol(ds_dso *whole, ds_dso *part, uint64_t addr)
{
	const ds_symbol *a = ds_dso_symbol_at(whole, addr), *b = ds_dso_symbol_at(part, addr);

	if (covering(whole, addr) > 1 || covering(part, addr) > 1)
		return;
	if (!a != !b)
		fail(a ? "the subset lost the symbol" : "the subset has a symbol the file has not", addr);
	if (a && (strcmp(a->name, b->name) || a->start != b->start || a->size != b->size))
		fail("the subset resolves to another symbol", addr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_memfile(0, data, size), *subset;
	uint64_t addrs[MAX_ADDRS];
	size_t n = 0;
	ds_err err = {0};
	ds_buf kept = {0};
	ds_dso *d = ds_dso_open_kallsyms(path, false, &err), *s;

	if (!d)
		return 0;
	(void)strlen(ds_dso_symbol_source(d));
	addrs[n++] = 0;
	addrs[n++] = UINT64_MAX;
	for (size_t i = 0; i < ds_dso_nsymbols(d) && n + 3 <= MAX_ADDRS; i++) {
		const ds_symbol *sym = ds_dso_symbol(d, i);
		uint64_t v;
		addrs[n++] = sym->start;
		addrs[n++] = sym->start + sym->size / 2;
		addrs[n++] = sym->start + sym->size;
		if (!ds_dso_file_to_vaddr(d, sym->start, &v) || v != sym->start)
			fail("a kernel address is not its own offset", sym->start);
	}
	for (size_t i = 0; i < n; i++)
		ds_dso_symbol_at(d, addrs[i]);
	if (ds_kallsyms_subset(path, addrs, n, &kept, &err))
		fail("no subset could be made", 0);
	subset = fz_memfile(1, kept.p ? kept.p : "", kept.len);
	ds_buf_free(&kept);
	if (!(s = ds_dso_open_kallsyms(subset, false, &err)))
		fail("the subset does not read", 0);
	for (size_t i = 0; i < n; i++)
		same_symbol(d, s, addrs[i]);
	ds_dso_close(s);
	ds_dso_close(d);
	return 0;
}
