/*
 * DWARF line tables through libdwarf, loaded on the first query.
 *
 * Every CU's line program is flattened into one array of rows (address,
 * file, line), end-of-sequence rows included, then sorted by address so a
 * query is one binary search: the row in effect at an address is the last
 * row at or below it, and an end-of-sequence row there means "no line".
 * File names are interned once per CU and file number, not once per row:
 * dwarf_linesrc builds a full path on every call.
 *
 * libdwarf reads the sections through its object-access interface from
 * the ELF we already hold, and sees only the few sections line tables
 * need.  That keeps its work (and its exposure to corrupt input: the
 * 20210528 release double-frees on a damaged .debug_rnglists, which it
 * would otherwise load with .debug_info) to the minimum, and lets libelf
 * decompress SHF_COMPRESSED and .zdebug sections.
 *
 * libdwarf gets no error handler, so it never aborts; every error return
 * is checked, its Dwarf_Error freed, the CU skipped and a note kept.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <libdwarf.h>
#include <stdlib.h>
#include <string.h>

typedef struct loader {
	ds_dso *d;
	Dwarf_Debug dbg;
	const ds_dwarf *dw;       /* dbg's sections, to check line tables before libdwarf */
	DS_VEC(ds_line_row) rows;
	DS_VEC(int64_t) cu_files; /* file number -> interned index + 1, per CU */
	size_t seq_start;         /* first row of the open sequence */
} loader;

static void dwarf_problem(loader *l, Dwarf_Error *e, const char *what)
{
	ds_dso_set_note(l->d, "DWARF in '%s': %s: %s", l->d->dwarf->path, what,
			*e ? dwarf_errmsg(*e) : "unknown error");
	if (*e)
		dwarf_dealloc_error(l->dbg, *e);
	*e = NULL;
}

/* The interned file index for a line's file number, or DS_LINE_END when
 * the line names no readable file. */
static uint32_t line_file(loader *l, Dwarf_Line ln)
{
	Dwarf_Unsigned fno;
	Dwarf_Error e = NULL;
	char *name = NULL;
	size_t idx;

	if (dwarf_line_srcfileno(ln, &fno, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(l->dbg, e);
		return DS_LINE_END;
	}
	if (fno < l->cu_files.n && l->cu_files.v[fno] != 0)
		return (uint32_t)(l->cu_files.v[fno] - 1);
	if (dwarf_linesrc(ln, &name, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(l->dbg, e);
		return DS_LINE_END;
	}
	idx = ds_hash_intern(l->d->files, name, strlen(name) + 1, NULL);
	dwarf_dealloc(l->dbg, name, DW_DLA_STRING);
	/* File numbers are small indexes into the CU's file table; a huge one
	 * is bogus and is simply not cached. */
	if (fno < 1u << 20) {
		while (l->cu_files.n <= fno)
			ds_vec_push(&l->cu_files, 0);
		l->cu_files.v[fno] = (int64_t)idx + 1;
	}
	return (uint32_t)idx;
}

static bool in_image(const ds_dso *d, uint64_t addr)
{
	uint64_t off;
	return d->segs.n == 0 || ds_dso_vaddr_to_offset(d, addr, &off);
}

/* A sequence for code the linker discarded keeps address 0 (or a
 * tombstone); it would shadow real code, so drop sequences that start
 * outside every loadable segment. */
static void close_sequence(loader *l)
{
	if (l->rows.n > l->seq_start && !in_image(l->d, l->rows.v[l->seq_start].addr))
		l->rows.n = l->seq_start;
	l->seq_start = l->rows.n;
}

static bool add_line(loader *l, Dwarf_Line ln)
{
	Dwarf_Addr addr;
	Dwarf_Unsigned lineno;
	Dwarf_Bool end;
	Dwarf_Error e = NULL;
	ds_line_row r;

	if (dwarf_lineaddr(ln, &addr, &e) != DW_DLV_OK ||
	    dwarf_lineendsequence(ln, &end, &e) != DW_DLV_OK ||
	    dwarf_lineno(ln, &lineno, &e) != DW_DLV_OK) {
		dwarf_problem(l, &e, "bad line table row");
		return false;
	}
	r.addr = addr;
	r.line = lineno > UINT32_MAX ? UINT32_MAX : (uint32_t)lineno;
	r.file = end ? DS_LINE_END : line_file(l, ln);
	if (!end && r.file == DS_LINE_END)
		r.line = 0;
	/* a row the next one of its sequence follows at the same address
	 * covers nothing: the later is in effect.  Kept, the last before an
	 * end of sequence (GCC ends a cold part so: its line at the end
	 * address) would sort after that end and cover the code up to the
	 * next sequence, which has no lines (main in another unit without -g). */
	if (l->rows.n > l->seq_start && l->rows.v[l->rows.n - 1].addr == r.addr)
		l->rows.n--;
	ds_vec_push(&l->rows, r);
	if (end)
		close_sequence(l);
	return true;
}

static void load_cu(loader *l, Dwarf_Die cu)
{
	Dwarf_Unsigned version;
	Dwarf_Small tables;
	Dwarf_Line_Context ctx;
	Dwarf_Line *lines;
	Dwarf_Signed n;
	Dwarf_Error e = NULL;
	int rc;

	if (!ds_cu_line_table_sane(l->dw, cu)) {
		ds_dso_set_note(l->d, "DWARF in '%s': a unit's line table is corrupt: its lines are left out",
				l->d->dwarf->path);
		return;
	}
	rc = dwarf_srclines_b(cu, &version, &tables, &ctx, &e);
	if (rc == DW_DLV_ERROR)
		dwarf_problem(l, &e, "cannot read a line table");
	if (rc != DW_DLV_OK)
		return;
	l->cu_files.n = 0;
	l->seq_start = l->rows.n;
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &e) != DW_DLV_OK) {
		dwarf_problem(l, &e, "cannot read a line table");
		n = 0;
	}
	for (Dwarf_Signed i = 0; i < n; i++)
		if (!add_line(l, lines[i]))
			break;
	/* A sequence cut short, or without its end row, covers nothing we
	 * can bound. */
	l->rows.n = l->seq_start;
	dwarf_srclines_dealloc_b(ctx);
}

static void load_cus(loader *l)
{
	Dwarf_Unsigned hlen, typeoff, next;
	Dwarf_Half ver, asize, lsize, esize, utype;
	Dwarf_Off abbrev;
	Dwarf_Sig8 sig;
	Dwarf_Error e = NULL;
	int rc;

	for (;;) {
		Dwarf_Die cu = NULL;
		rc = dwarf_next_cu_header_d(l->dbg, true, &hlen, &ver, &abbrev, &asize, &lsize,
					    &esize, &sig, &typeoff, &next, &utype, &e);
		if (rc == DW_DLV_ERROR)
			dwarf_problem(l, &e, "cannot read a compilation unit header");
		if (rc != DW_DLV_OK)
			return;
		rc = dwarf_siblingof_b(l->dbg, NULL, true, &cu, &e);
		if (rc == DW_DLV_ERROR)
			dwarf_problem(l, &e, "cannot read a compilation unit");
		if (rc != DW_DLV_OK)
			continue;
		load_cu(l, cu);
		dwarf_dealloc_die(cu);
	}
}

/* Rows by address; at one address an end of sequence sorts first, so the
 * sequence that starts there wins, and otherwise the table's order is
 * kept (the last row at an address is the one in effect).  A merge sort,
 * because it is stable and tables come nearly sorted. */
static bool row_before(const ds_line_row *a, const ds_line_row *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr;
	return a->file == DS_LINE_END && b->file != DS_LINE_END;
}

static void sort_rows(ds_line_row *v, size_t n)
{
	ds_line_row *tmp = ds_xmalloc((n ? n : 1) * sizeof *tmp), *src = v, *dst = tmp;

	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = row_before(&src[j], &src[i]) ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		ds_line_row *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	free(tmp);
}

/* Drop rows that only repeat the file and line of the row before: they
 * change no answer and large programs have many. */
static size_t compact_rows(ds_line_row *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (k && v[i].file != DS_LINE_END && v[k - 1].file == v[i].file &&
		    v[k - 1].line == v[i].line)
			continue;
		if (k && v[k - 1].addr == v[i].addr)
			k--; /* same address: the later row is in effect */
		v[k++] = v[i];
	}
	return k;
}

static void finish(ds_dso *d, loader *l)
{
	size_t nf = ds_hash_count(d->files);

	sort_rows(l->rows.v, l->rows.n);
	d->nrows = compact_rows(l->rows.v, l->rows.n);
	d->rows = l->rows.v;
	d->file_names = ds_xcalloc(nf ? nf : 1, sizeof *d->file_names);
	for (size_t i = 0; i < nf; i++)
		d->file_names[i] = ds_hash_key(d->files, i, NULL);
	ds_vec_free(&l->cu_files);
}

static void load_lines(ds_dso *d)
{
	static const char *const sections[] = {
		".debug_info", ".debug_abbrev", ".debug_line",
		".debug_str", ".debug_line_str", ".debug_str_offsets", ".debug_addr",
	};
	loader l = {.d = d};
	ds_dwarf *dw;

	d->lines_loaded = true;
	d->files = ds_hash_new();
	if (!d->dwarf)
		return;
	dw = ds_dwarf_open(d, sections, sizeof sections / sizeof sections[0]);
	if (dw) {
		l.dbg = ds_dwarf_debug(dw);
		l.dw = dw;
		load_cus(&l);
		ds_dwarf_close(dw);
		l.dbg = NULL;
	}
	finish(d, &l);
}

void ds_dso_free_lines(ds_dso *d)
{
	free(d->rows);
	free(d->file_names);
	ds_hash_free(d->files);
	d->rows = NULL;
	d->file_names = NULL;
	d->files = NULL;
	d->nrows = 0;
}

bool ds_dso_line_at(ds_dso *d, uint64_t vaddr, const char **file, unsigned *line)
{
	size_t lo = 0, hi;
	const ds_line_row *r;

	if (d->kallsyms)
		return false;
	if (!d->lines_loaded)
		load_lines(d);
	hi = d->nrows;
	/* the last row with addr <= vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->rows[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	r = &d->rows[lo - 1];
	if (r->file == DS_LINE_END || r->line == 0)
		return false;
	*file = d->file_names[r->file];
	*line = r->line;
	return true;
}
