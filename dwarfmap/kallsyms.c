/*
 * The kernel's symbols from a kallsyms file, as perf 6.1 loads them for
 * the kernel map (tools/lib/symbol/kallsyms.c: kallsyms__parse;
 * tools/perf/util/symbol.c: map__process_kallsym_symbol,
 * __dso__load_kallsyms, maps__split_kallsyms):
 *
 *  - lines are "address type name[\t[module]]"; malformed lines are skipped;
 *  - types T, W, D and B in either case are kept (t/w are functions, the
 *    rest objects; 'W' is weak, other upper case global, lower case local),
 *    names starting with '$' are not;
 *  - every symbol starts with size 0; symbols__fixup_end sizes it up to
 *    the next one (one page at a kernel/module boundary) and
 *    symbols__fixup_duplicate keeps one per address, comparing names with
 *    their module suffix as perf does;
 *  - the x86-64 entry trampoline symbol is dropped.
 *
 * Module symbols stay in this one table at their absolute addresses; the
 * module suffix is cut from the names once the table is built.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct kparse {
	ds_symtree t;
	size_t nonzero; /* symbols with an address: kptr_restrict hides all */
} kparse;

static bool parse_line(char *s, uint64_t *addr, char *type, char **name)
{
	char *end;

	if (!isxdigit((unsigned char)*s))
		return false;
	errno = 0;
	*addr = strtoull(s, &end, 16);
	if (errno || *end != ' ')
		return false;
	*type = end[1];
	if (!*type || end[2] != ' ')
		return false;
	*name = end + 3;
	(*name)[strcspn(*name, "\n")] = '\0';
	return true;
}

/* The lines perf keeps for the kernel map. */
static bool kept(char type, const char *name)
{
	char up = (char)toupper((unsigned char)type);
	return (up == 'T' || up == 'W' || up == 'D' || up == 'B') && name[0] != '$';
}

static void add_ksym(kparse *k, uint64_t addr, char type, const char *name)
{
	uint8_t bind, stype;

	if (!kept(type, name))
		return;
	stype = type == 't' || type == 'T' || type == 'w' || type == 'W' ? STT_FUNC : STT_OBJECT;
	bind = type == 'W' ? STB_WEAK : isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL;
	ds_symtree_add(&k->t, addr, 0, addr, name, name, bind, stype);
	if (addr)
		k->nonzero++;
}

static void cut_module_suffixes(ds_dso *d)
{
	for (size_t i = 0; i < d->nsyms; i++) {
		char *tab = strchr(d->syms[i].name, '\t');
		if (tab)
			*tab = '\0';
	}
}

ds_dso *ds_dso_open_kallsyms(const char *path, bool own, ds_err *err)
{
	FILE *f = own ? ds_fopen_own(path, err) : ds_fopen_regular(path, err);
	kparse k = {0};
	char *line = NULL;
	size_t cap = 0;
	ds_dso *d;

	if (!f)
		return NULL;
	d = ds_xcalloc(1, sizeof *d);
	d->path = ds_xstrdup(path);
	d->kallsyms = true;
	d->main.fd = d->debug.fd = d->mini.fd = -1;
	ds_symtree_init(&k.t);
	while (getline(&line, &cap, f) > 0) {
		uint64_t addr;
		char type, *name;
		if (parse_line(line, &addr, &type, &name))
			add_ksym(&k, addr, type, name);
	}
	free(line);
	fclose(f);
	if (k.t.live && !k.nonzero) {
		ds_symtree_free(&k.t);
		d->symsrc = ds_xstrdup("kallsyms (addresses hidden)");
	} else {
		ds_symtree_fixup_end(&k.t, true);
		ds_symtree_fixup_duplicate(&k.t);
		ds_symtree_remove_name(&k.t, "__entry_SYSCALL_64_trampoline");
		d->symsrc = ds_xstrdup("kallsyms");
	}
	ds_symtree_finish(&k.t, d);
	cut_module_suffixes(d);
	return d;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Index of the last element <= x in sorted v[0..n), or -1. */
static int64_t floor_index(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)lo - 1;
}

/*
 * Every rule above is local to an address and its neighbours: a symbol's
 * end is the next kept address, duplicates are settled among the lines of
 * one address.  So the lines at the kept address at or below each sampled
 * address, and at the next kept address, resolve it exactly as the whole
 * file does.
 */
int ds_kallsyms_subset(const char *path, const uint64_t *addrs, size_t naddrs, ds_buf *o, ds_err *err)
{
	size_t len;
	char *text = ds_read_file_err(path, &len, err), *line, *next;
	ds_vec_u64 all = {0}, want = {0};

	if (!text)
		return -1;
	/* line by line to the file's end, as the whole-file reader goes: a
	 * NUL byte ends a name, not the file */
	for (line = text; line < text + len; line = next) {
		uint64_t addr;
		char type, *name, *nl = memchr(line, '\n', (size_t)(text + len - line));
		next = nl ? nl + 1 : text + len;
		if (nl)
			*nl = 0;
		if (parse_line(line, &addr, &type, &name) && kept(type, name))
			ds_vec_push(&all, addr);
		if (nl)
			*nl = '\n';
	}
	ds_sort(all.v, all.n, sizeof *all.v, cmp_u64);
	for (size_t i = 0; i < naddrs; i++) {
		int64_t k = floor_index(all.v, all.n, addrs[i]);
		if (k >= 0)
			ds_vec_push(&want, all.v[k]);
		while (++k < (int64_t)all.n && all.v[k] <= addrs[i])
			;
		if (k < (int64_t)all.n)
			ds_vec_push(&want, all.v[k]);
	}
	ds_sort(want.v, want.n, sizeof *want.v, cmp_u64);
	for (line = text; line < text + len; line = next) {
		uint64_t addr;
		char type, *name, *nl = memchr(line, '\n', (size_t)(text + len - line));
		next = nl ? nl + 1 : text + len;
		if (nl)
			*nl = 0;
		if (parse_line(line, &addr, &type, &name) && kept(type, name) && want.n) {
			int64_t k = floor_index(want.v, want.n, addr);
			if (k >= 0 && want.v[k] == addr)
				ds_buf_printf(o, "%016llx %c %s\n", (unsigned long long)addr, type, name);
		}
	}
	free(text);
	ds_vec_free(&all);
	ds_vec_free(&want);
	return 0;
}
