/*
 * A check of a line table's header before libdwarf reads it.
 *
 * libdwarf 20210528 trusts the directory index of each file entry: a file
 * naming directory 7 of a table of 7 makes dwarf_srcfiles and
 * dwarf_linesrc build its path from memory past the table, and crash
 * (found by tests/fuzz/fuzz_elf).  So the header is walked here first, as
 * DWARF 2-5 lay it out, and a table whose file entries do not hold
 * together is not handed to libdwarf at all: its unit loses its line
 * numbers and file names, with a note, rather than the process.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <dwarf.h>
#include <string.h>

/* Skip a NUL-terminated string; false at the empty one that ends a list. */
static bool rd_string(ds_rd *r)
{
	const uint8_t *nul = r->bad ? NULL : memchr(r->p, 0, (size_t)(r->end - r->p));
	bool empty;

	if (!nul) {
		r->bad = true;
		r->p = r->end;
		return false;
	}
	empty = nul == r->p;
	r->p = nul + 1;
	return !empty;
}

/* Read one attribute value of the given form (DWARF 5 entry formats);
 * its value when it is a number, 0 for strings and blocks.  The offsets
 * into string sections must fall inside them. */
static uint64_t rd_form(ds_rd *r, uint64_t form, unsigned offset_size, size_t line_str, size_t str)
{
	uint64_t v;
	switch (form) {
	case DW_FORM_string: rd_string(r); return 0;
	case DW_FORM_line_strp:
		if ((v = ds_rd_uint(r, offset_size)) >= line_str)
			r->bad = true;
		return 0;
	case DW_FORM_strp:
		if ((v = ds_rd_uint(r, offset_size)) >= str)
			r->bad = true;
		return 0;
	case DW_FORM_sec_offset: return ds_rd_uint(r, offset_size);
	case DW_FORM_data1: case DW_FORM_strx1: return ds_rd_uint(r, 1);
	case DW_FORM_data2: case DW_FORM_strx2: return ds_rd_uint(r, 2);
	case DW_FORM_strx3: return ds_rd_uint(r, 3);
	case DW_FORM_data4: case DW_FORM_strx4: return ds_rd_uint(r, 4);
	case DW_FORM_data8: return ds_rd_uint(r, 8);
	case DW_FORM_data16: ds_rd_skip(r, 16); return 0;
	case DW_FORM_udata: case DW_FORM_strx: return ds_rd_uleb(r);
	case DW_FORM_block:
		ds_rd_skip(r, ds_rd_uleb(r));
		return 0;
	default: /* a form no line table should use */
		r->bad = true;
		return 0;
	}
}

/* DWARF 5: a table of entries described by (content type, form) pairs.
 * With ndirs set, each entry's directory index must be below it. */
static uint64_t rd_entries(ds_rd *r, unsigned offset_size, size_t line_str, size_t str, uint64_t ndirs)
{
	uint64_t fmt[2 * 16], nfmt = ds_rd_uint(r, 1), n;

	if (nfmt > 16) {
		r->bad = true;
		return 0;
	}
	for (uint64_t i = 0; i < nfmt; i++) {
		fmt[2 * i] = ds_rd_uleb(r);
		fmt[2 * i + 1] = ds_rd_uleb(r);
	}
	n = ds_rd_uleb(r);
	for (uint64_t e = 0; e < n && !r->bad; e++)
		for (uint64_t i = 0; i < nfmt && !r->bad; i++) {
			uint64_t v = rd_form(r, fmt[2 * i + 1], offset_size, line_str, str);
			if (ndirs && fmt[2 * i] == DW_LNCT_directory_index && v >= ndirs)
				r->bad = true;
		}
	return n;
}

bool ds_line_header_sane(const ds_dwarf *dw, uint64_t off)
{
	size_t size = 0, line_str = 0, str = 0;
	const uint8_t *sec = ds_dwarf_section(dw, ".debug_line", &size);
	unsigned offset_size = 4;
	uint64_t len, version, hlen, opcode_base, ndirs;
	ds_rd r;

	ds_dwarf_section(dw, ".debug_line_str", &line_str);
	ds_dwarf_section(dw, ".debug_str", &str);
	if (!sec || off >= size)
		return false;
	r = ds_rd_at(sec, size, off, ds_dwarf_msb(dw));
	len = ds_rd_uint(&r, 4);
	if (len == 0xffffffff) {
		offset_size = 8;
		len = ds_rd_uint(&r, 8);
	}
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return false;
	r.end = r.p + len;
	version = ds_rd_uint(&r, 2);
	if (version < 2 || version > 5)
		return false;
	if (version == 5)
		ds_rd_skip(&r, 2); /* address and segment selector sizes */
	hlen = ds_rd_uint(&r, offset_size);
	if (r.bad || hlen > (uint64_t)(r.end - r.p))
		return false;
	r.end = r.p + hlen; /* the rest is the program, which libdwarf bounds itself */
	ds_rd_skip(&r, version >= 4 ? 5 : 4); /* instruction lengths, is_stmt, line base and range */
	opcode_base = ds_rd_uint(&r, 1);
	if (opcode_base)
		ds_rd_skip(&r, opcode_base - 1); /* standard opcode lengths */
	if (version == 5) {
		/* at least one directory: the unit's own */
		ndirs = rd_entries(&r, offset_size, line_str, str, 0);
		if (!r.bad && ndirs)
			rd_entries(&r, offset_size, line_str, str, ndirs);
		return !r.bad && ndirs;
	}
	/* DWARF 2-4: directory 0 is the unit's own, then the list */
	for (ndirs = 1; rd_string(&r);)
		ndirs++;
	while (!r.bad && rd_string(&r)) {
		if (ds_rd_uleb(&r) >= ndirs)
			return false;
		ds_rd_uleb(&r); /* modification time */
		ds_rd_uleb(&r); /* length */
	}
	return !r.bad;
}

bool ds_cu_line_table_sane(const ds_dwarf *dw, Dwarf_Die cu)
{
	Dwarf_Debug dbg = ds_dwarf_debug(dw);
	Dwarf_Attribute a = NULL;
	Dwarf_Off off = 0;
	Dwarf_Unsigned u = 0;
	Dwarf_Error e = NULL;
	bool ok = false;
	int rc = dwarf_attr(cu, DW_AT_stmt_list, &a, &e);

	if (rc == DW_DLV_NO_ENTRY)
		return true; /* no line table: libdwarf says so itself */
	if (rc == DW_DLV_OK) {
		if (dwarf_global_formref(a, &off, &e) == DW_DLV_OK) {
			ok = ds_line_header_sane(dw, off);
		} else {
			if (e)
				dwarf_dealloc_error(dbg, e);
			e = NULL;
			ok = dwarf_formudata(a, &u, &e) == DW_DLV_OK && ds_line_header_sane(dw, u);
		}
		dwarf_dealloc_attribute(a);
	}
	if (e)
		dwarf_dealloc_error(dbg, e);
	return ok;
}

/* ---- a unit's file names ---- */

static void unit_files_free(ds_unit_files *f)
{
	Dwarf_Debug dbg = f->dw ? ds_dwarf_debug(f->dw) : NULL;

	for (Dwarf_Signed i = 0; i < f->n; i++)
		dwarf_dealloc(dbg, f->names[i], DW_DLA_STRING);
	if (f->names)
		dwarf_dealloc(dbg, f->names, DW_DLA_LIST);
	f->names = NULL;
	f->n = 0;
	f->read = false;
}

void ds_unit_files_set(ds_unit_files *f, uint64_t cu_off, bool is_info, int version)
{
	unit_files_free(f);
	f->cu_off = cu_off;
	f->is_info = is_info;
	f->version = version;
}

static void unit_files_read(ds_unit_files *f)
{
	static const char *const sections[] = {
		".debug_info", ".debug_abbrev", ".debug_str", ".debug_line", ".debug_line_str",
		".debug_str_offsets", ".debug_addr", ".debug_types",
	};
	Dwarf_Debug dbg;
	Dwarf_Die cu = NULL;
	Dwarf_Error e = NULL;
	int rc, old;

	f->read = true;
	if (!f->opened) {
		f->opened = true;
		old = dwarf_set_de_alloc_flag(1);
		f->dw = ds_dwarf_open(f->d, sections, sizeof sections / sizeof sections[0]);
		dwarf_set_de_alloc_flag(old);
	}
	if (!f->dw)
		return;
	dbg = ds_dwarf_debug(f->dw);
	if (dwarf_offdie_b(dbg, f->cu_off, f->is_info, &cu, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(dbg, e);
		return;
	}
	if (!ds_cu_line_table_sane(f->dw, cu)) {
		ds_dso_set_note(f->d, "DWARF in '%s': %s: a unit's line table is corrupt: its file names are left out",
				f->d->dwarf->path, f->who);
		dwarf_dealloc_die(cu);
		return;
	}
	old = dwarf_set_de_alloc_flag(1);
	rc = dwarf_srcfiles(cu, &f->names, &f->n, &e);
	dwarf_set_de_alloc_flag(old);
	if (rc == DW_DLV_ERROR) {
		ds_dso_set_note(f->d, "DWARF in '%s': %s: cannot read the file names of a unit: %s",
				f->d->dwarf->path, f->who, e ? dwarf_errmsg(e) : "unknown error");
		if (e)
			dwarf_dealloc_error(dbg, e);
	}
	if (rc != DW_DLV_OK) {
		f->names = NULL;
		f->n = 0;
	}
	dwarf_dealloc_die(cu);
}

const char *ds_unit_file(ds_unit_files *f, uint64_t n)
{
	if (!f->read)
		unit_files_read(f);
	if (f->version < 5) {
		if (n == 0)
			return NULL;
		n--;
	}
	return n < (uint64_t)f->n ? f->names[n] : NULL;
}

void ds_unit_files_close(ds_unit_files *f)
{
	unit_files_free(f);
	ds_dwarf_close(f->dw);
	f->dw = NULL;
	f->opened = false;
}
