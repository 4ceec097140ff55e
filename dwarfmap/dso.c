/*
 * The ds_dso object: opening, layout (PT_LOAD segments, executable
 * sections, build-id), address conversion, code bytes and accessors.
 * Symbols, debug files, line tables and kallsyms live in their own files.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static ds_dso *dso_new(const char *path)
{
	ds_dso *d = ds_xcalloc(1, sizeof *d);

	d->path = ds_xstrdup(path);
	d->main.fd = d->debug.fd = d->mini.fd = -1;
	d->root = -1;
	return d;
}

void ds_dso_set_note(ds_dso *d, const char *fmt, ...)
{
	ds_buf b = {0};
	va_list ap;

	if (d->note)
		return;
	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	d->note = ds_buf_steal(&b);
}

/* Whether the object is a program (not a library): ET_EXEC, or a PIE,
 * which says so in DT_FLAGS_1 (the C library is ET_DYN with an
 * interpreter too, and no DF_1_PIE). */
static bool is_program(ds_dso *d)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (d->main.ehdr.e_type == ET_EXEC)
		return true;
	while ((scn = elf_nextscn(d->main.elf, scn)) != NULL) {
		Elf_Data *data;
		GElf_Dyn dyn;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && gelf_getdyn(data, (int)i, &dyn); i++)
			if (dyn.d_tag == DT_FLAGS_1)
				return (dyn.d_un.d_val & DF_1_PIE) != 0;
	}
	return false;
}

/* A program's thread-locals sit at a fixed distance from each thread's
 * pointer, which its code uses as a constant (the local-exec model:
 * mov %fs:-16, %rax).  On x86-64 (TLS variant II) its block is the first
 * below the thread pointer, at the offset glibc's _dl_determine_tlsoffset
 * and the linker's TPOFF relocations agree on.  A library's block is
 * placed at load time. */
static void read_tls(ds_dso *d, const GElf_Phdr *tls)
{
	uint64_t align = tls->p_align ? tls->p_align : 1, first = -tls->p_vaddr & (align - 1);

	if (d->main.ehdr.e_machine != EM_X86_64 || (align & (align - 1)) || align > (1ull << 30) ||
	    tls->p_memsz > (1ull << 40) || first > tls->p_memsz || !is_program(d))
		return;
	d->tls_exec = true;
	d->tls_size = tls->p_memsz;
	d->tls_base = -(int64_t)(((tls->p_memsz - first + align - 1) & ~(align - 1)) + first);
}

static void read_segments(ds_dso *d)
{
	size_t nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(d->main.elf, &nph) != 0)
		return;
	for (size_t i = 0; i < nph; i++) {
		if (!gelf_getphdr(d->main.elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_TLS)
			read_tls(d, &ph);
		if (ph.p_type != PT_LOAD)
			continue;
		ds_vec_push(&d->segs, ((ds_seg){ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, (ph.p_flags & PF_W) != 0}));
	}
}

static void read_exec_sections(ds_dso *d)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(d->main.elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_size == 0)
			continue;
		ds_vec_push(&d->xsecs, ((ds_xsec){sh.sh_addr, sh.sh_size, scn}));
	}
}

static void hex(ds_buf *b, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ds_buf_printf(b, "%02x", p[i]);
}

static void check_build_id(ds_dso *d, const ds_dso_opts *opts)
{
	ds_buf b = {0};

	if (!opts || !opts->build_id || !opts->build_id_size)
		return;
	if (d->build_id_size == opts->build_id_size &&
	    memcmp(d->build_id, opts->build_id, d->build_id_size) == 0)
		return;
	ds_buf_puts(&b, "build-id differs from the recording: file has ");
	if (d->build_id_size)
		hex(&b, d->build_id, d->build_id_size);
	else
		ds_buf_puts(&b, "none");
	ds_buf_puts(&b, ", recording has ");
	hex(&b, opts->build_id, opts->build_id_size);
	ds_dso_set_note(d, "%s", ds_buf_str(&b));
	ds_buf_free(&b);
}

static void read_layout(ds_dso *d)
{
	read_segments(d);
	read_exec_sections(d);
	d->build_id_size = ds_elf_build_id(&d->main, d->build_id, sizeof d->build_id);
}

ds_dso *ds_dso_open(const char *path, const ds_dso_opts *opts, ds_err *err)
{
	ds_dso *d = dso_new(path);

	if (ds_elf_open_file(&d->main, path, err) < 0) {
		ds_dso_close(d);
		return NULL;
	}
	d->progress = opts && opts->progress;
	read_layout(d);
	check_build_id(d, opts);
	ds_dso_find_debug_file(d, opts ? opts->debug_root : NULL, opts ? opts->debug_file : NULL);
	if (ds_elf_is_open(&d->debug) && ds_elf_has_dwarf(&d->debug))
		d->dwarf = &d->debug;
	else if (ds_elf_has_dwarf(&d->main))
		d->dwarf = &d->main;
	ds_dso_load_symbols(d);
	return d;
}

ds_dso *ds_dso_open_mem(const void *image, size_t size, const char *label, ds_err *err)
{
	ds_dso *d = dso_new(label ? label : "[memory]");
	void *copy = ds_xmalloc(size);

	memcpy(copy, image, size);
	if (ds_elf_open_mem(&d->main, copy, size, d->path, err) < 0) {
		ds_dso_close(d);
		return NULL;
	}
	read_layout(d);
	if (ds_elf_has_dwarf(&d->main))
		d->dwarf = &d->main;
	ds_dso_load_symbols(d);
	return d;
}

void ds_dso_close(ds_dso *d)
{
	if (!d)
		return;
	ds_dso_free_lines(d);
	ds_dso_free_cfi(d);
	ds_dso_free_types(d);
	ds_dso_free_vars(d);
	ds_elf_close(&d->main);
	ds_elf_close(&d->debug);
	ds_elf_close(&d->mini);
	ds_vec_free(&d->segs);
	ds_vec_free(&d->xsecs);
	ds_vec_free(&d->tls_slots);
	free(d->syms);
	free(d->nodes);
	free(d->names);
	free(d->symsrc);
	free(d->note);
	free(d->path);
	free(d);
}

const char *ds_dso_path(const ds_dso *d)
{
	return d->path;
}

const char *ds_dso_symbol_source(const ds_dso *d)
{
	return d->symsrc ? d->symsrc : "none";
}

const char *ds_dso_debug_file(const ds_dso *d)
{
	return d->dwarf ? d->dwarf->path : NULL;
}

const char *ds_dso_separate_debug_file(const ds_dso *d)
{
	return ds_elf_is_open(&d->debug) ? d->debug.path : NULL;
}

const char *ds_dso_note(const ds_dso *d)
{
	return d->note;
}

const uint8_t *ds_dso_build_id(const ds_dso *d, size_t *size)
{
	if (size)
		*size = d->build_id_size;
	return d->build_id_size ? d->build_id : NULL;
}

bool ds_dso_file_to_vaddr(const ds_dso *d, uint64_t offset, uint64_t *vaddr)
{
	if (d->kallsyms) {
		*vaddr = offset;
		return true;
	}
	for (size_t i = 0; i < d->segs.n; i++) {
		const ds_seg *s = &d->segs.v[i];
		if (offset >= s->offset && offset - s->offset < s->filesz) {
			*vaddr = s->vaddr + (offset - s->offset);
			return true;
		}
	}
	return false;
}

/* perf keeps user-space symbols as file offsets (dso__load_sym_internal
 * with elf_read_program_header): the first PT_LOAD whose memory image
 * holds the address decides. */
bool ds_dso_vaddr_to_offset(const ds_dso *d, uint64_t vaddr, uint64_t *offset)
{
	for (size_t i = 0; i < d->segs.n; i++) {
		const ds_seg *s = &d->segs.v[i];
		uint64_t sz = s->memsz > s->filesz ? s->memsz : s->filesz;
		if (sz && vaddr >= s->vaddr && vaddr - s->vaddr < sz) {
			*offset = vaddr - s->vaddr + s->offset;
			return true;
		}
	}
	return false;
}

const ds_symbol *ds_dso_symbol_at(ds_dso *d, uint64_t vaddr)
{
	uint64_t addr = vaddr;

	/* Files without program headers (relocatable objects) keep symbols
	 * at their section-relative values, as perf does. */
	if (!d->kallsyms && d->segs.n && !ds_dso_vaddr_to_offset(d, vaddr, &addr))
		return NULL;
	return ds_symtab_find(d, addr);
}

size_t ds_dso_nsymbols(const ds_dso *d)
{
	return d->nsyms;
}

const ds_symbol *ds_dso_symbol(const ds_dso *d, size_t i)
{
	return i < d->nsyms ? &d->syms[i] : NULL;
}

bool ds_dso_vaddr_loaded(const ds_dso *d, uint64_t vaddr)
{
	for (size_t i = 0; i < d->segs.n; i++)
		if (vaddr >= d->segs.v[i].vaddr && vaddr - d->segs.v[i].vaddr < d->segs.v[i].memsz)
			return true;
	return false;
}

bool ds_dso_vaddr_readonly(const ds_dso *d, uint64_t vaddr)
{
	for (size_t i = 0; i < d->segs.n; i++)
		if (vaddr >= d->segs.v[i].vaddr && vaddr - d->segs.v[i].vaddr < d->segs.v[i].memsz)
			return !d->segs.v[i].writable;
	return false;
}

const uint8_t *ds_dso_bytes_at(ds_dso *d, uint64_t vaddr, size_t *avail)
{
	size_t raw_size;
	const uint8_t *raw;

	if (d->kallsyms || !d->main.elf)
		return NULL;
	raw = (const uint8_t *)elf_rawfile(d->main.elf, &raw_size);
	for (size_t i = 0; raw && i < d->segs.n; i++) {
		const ds_seg *s = &d->segs.v[i];
		uint64_t off;
		if (vaddr < s->vaddr || vaddr - s->vaddr >= s->filesz)
			continue;
		off = s->offset + (vaddr - s->vaddr);
		if (off >= raw_size)
			return NULL;
		*avail = s->filesz - (vaddr - s->vaddr);
		if (*avail > raw_size - off)
			*avail = raw_size - off;
		return raw + off;
	}
	return NULL;
}

/* ---- thread-local GOT slots (ds_dso_tls_slot) ---- */

static int slot_cmp(const void *a, const void *b)
{
	const ds_tls_slot *x = a, *y = b;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static const ds_tls_slot *slot_find(const ds_dso *d, uint64_t vaddr)
{
	ds_tls_slot key = {.vaddr = vaddr};

	return d->tls_slots.n ? bsearch(&key, d->tls_slots.v, d->tls_slots.n, sizeof key, slot_cmp) : NULL;
}

/* The x86-64 relocations of .rela.dyn that fill thread-local slots: a
 * tls_index's module (DTPMOD64) and offset (DTPOFF64), a variable's offset
 * from the thread pointer (TPOFF64).  Each against a symbol of .dynsym,
 * its value the variable's offset in its module's block, or none (0: the
 * addend is the offset; a module's own index for local-dynamic code).  A
 * symbol defined in another module is not this one's: its slot is kept
 * with DS_TLS_ELSEWHERE, a thread-local not known. */
static void read_tls_slots(ds_dso *d)
{
	GElf_Shdr relsh, dynsh;
	Elf_Scn *rel = ds_elf_section(&d->main, ".rela.dyn", &relsh, NULL), *dyn;
	Elf_Data *reldata, *syms;
	size_t n;

	d->tls_slots_read = true;
	if (d->main.ehdr.e_machine != EM_X86_64 || !rel || relsh.sh_type != SHT_RELA || !relsh.sh_entsize ||
	    !(dyn = elf_getscn(d->main.elf, relsh.sh_link)) || !gelf_getshdr(dyn, &dynsh) ||
	    dynsh.sh_type != SHT_DYNSYM || !(reldata = elf_getdata(rel, NULL)) || !(syms = elf_getdata(dyn, NULL)))
		return;
	n = (relsh.sh_size < reldata->d_size ? relsh.sh_size : reldata->d_size) / relsh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s = {0};
		unsigned type, sym;
		ds_tls_slot t;
		if (!gelf_getrela(reldata, (int)i, &r))
			continue;
		type = (unsigned)GELF_R_TYPE(r.r_info);
		sym = (unsigned)GELF_R_SYM(r.r_info);
		if (type != R_X86_64_DTPMOD64 && type != R_X86_64_DTPOFF64 && type != R_X86_64_TPOFF64)
			continue;
		if (sym && !gelf_getsym(syms, (int)sym, &s))
			continue;
		t.vaddr = r.r_offset;
		t.kind = type == R_X86_64_DTPMOD64 ? DS_TLS_SLOT_INDEX : type == R_X86_64_TPOFF64 ? DS_TLS_SLOT_TPOFF : 0;
		t.block_off = sym && s.st_shndx == SHN_UNDEF ? DS_TLS_ELSEWHERE : s.st_value + (uint64_t)r.r_addend;
		ds_vec_push(&d->tls_slots, t);
	}
	ds_sort(d->tls_slots.v, d->tls_slots.n, sizeof *d->tls_slots.v, slot_cmp);
}

bool ds_dso_tls_slot(ds_dso *d, uint64_t vaddr, int *kind, uint64_t *block_off)
{
	const ds_tls_slot *s, *off;
	const uint8_t *p;
	size_t avail;

	if (!d->tls_slots_read)
		read_tls_slots(d);
	if (!(s = slot_find(d, vaddr)) || !s->kind)
		return false;
	*kind = s->kind;
	*block_off = s->block_off;
	if (s->kind != DS_TLS_SLOT_INDEX || s->block_off == DS_TLS_ELSEWHERE)
		return true;
	/* the index's offset: relocated (a symbol other modules may take
	 * over), or the linker's, in the file (a symbol of this module's own,
	 * 0 for local-dynamic code) */
	if ((off = slot_find(d, vaddr + 8)) != NULL)
		*block_off = off->block_off;
	else if ((p = ds_dso_bytes_at(d, vaddr + 8, &avail)) != NULL && avail >= 8)
		memcpy(block_off, p, 8);
	else
		*block_off = 0; /* in .bss: zeros */
	return true;
}

const uint8_t *ds_dso_code_at(ds_dso *d, uint64_t vaddr, size_t *avail)
{
	for (size_t i = 0; i < d->xsecs.n; i++) {
		const ds_xsec *x = &d->xsecs.v[i];
		const uint8_t *p;
		size_t size;

		if (vaddr < x->addr || vaddr - x->addr >= x->size)
			continue;
		p = ds_elf_section_data(x->scn, &size);
		if (!p || vaddr - x->addr >= size)
			return NULL;
		*avail = size - (vaddr - x->addr);
		return p + (vaddr - x->addr);
	}
	return NULL;
}
