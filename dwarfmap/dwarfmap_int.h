/*
 * dwarfmap/ internals shared by its files: the ds_dso structure, the ELF
 * helpers, the perf-compatible symbol tree, and the loaders.
 */
#ifndef DSPROF_DWARFMAP_INT_H
#define DSPROF_DWARFMAP_INT_H

#include <gelf.h>
#include <libdwarf.h>

#include "dwarfmap/dwarfmap.h"

/* A section of a relocatable object with its relocations applied (reloc.c). */
typedef struct ds_relsec {
	size_t index;  /* the section's */
	uint8_t *data; /* owned; NULL when it could not be relocated */
	bool failed;
} ds_relsec;

/* One ELF image open through libelf.  The image stays mapped (or, for
 * in-memory images, owned) as long as the ds_elf is open, so pointers into
 * its sections stay valid. */
typedef struct ds_elf {
	char *path;  /* NULL when none is open */
	int fd;      /* -1 for in-memory images */
	void *mem;   /* owned bytes of an in-memory image */
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx; /* 0 when the section names cannot be read */
	DS_VEC(ds_relsec) relocated; /* ET_REL: the debug sections read so far */
} ds_elf;

int ds_elf_open_file(ds_elf *e, const char *path, ds_err *err);
/* Takes ownership of mem (malloc'd), also on failure. */
int ds_elf_open_mem(ds_elf *e, void *mem, size_t size, const char *label, ds_err *err);
void ds_elf_close(ds_elf *e);
bool ds_elf_is_open(const ds_elf *e);
/* The section called name, or NULL; *shdr and *index filled when found. */
Elf_Scn *ds_elf_section(const ds_elf *e, const char *name, GElf_Shdr *shdr, size_t *index);
const char *ds_elf_section_name(const ds_elf *e, const GElf_Shdr *shdr);
/* A section's bytes when it has them in the file (not SHT_NOBITS), or NULL. */
const void *ds_elf_section_data(Elf_Scn *scn, size_t *size);
/* Its bytes uncompressed (SHF_COMPRESSED, or gnu_z: a GNU .zdebug section),
 * inflated in place on the first call, so that every DWARF handle on the
 * image may ask; NULL when absent, empty or corrupt. */
const void *ds_elf_section_inflated(Elf_Scn *scn, bool gnu_z, size_t *size);
/* NT_GNU_BUILD_ID of the image into out (at most cap bytes); its size or 0. */
size_t ds_elf_build_id(const ds_elf *e, uint8_t *out, size_t cap);
/* Whether the image carries a DWARF line table (plain or compressed). */
bool ds_elf_has_dwarf(const ds_elf *e);

typedef struct ds_seg {
	uint64_t vaddr, memsz, offset, filesz;
	bool writable; /* PF_W: RELRO data too, read-only only after relocation */
} ds_seg;

typedef struct ds_xsec {
	uint64_t addr, size;
	Elf_Scn *scn;
} ds_xsec;

/* A GOT slot of a thread-local (dso.c, ds_dso_tls_slot): its relocation
 * (kind 0: a tls_index's offset word), and the variable's offset in its
 * module's block. */
typedef struct ds_tls_slot {
	uint64_t vaddr, block_off;
	int kind;
} ds_tls_slot;

/* A symbol as perf keeps it: [start, end) in perf's address space (file
 * offsets for ELF files, addresses for kallsyms), plus where it sits in the
 * red-black tree perf would have built, because perf's lookup walks that
 * tree and, where symbols overlap, the tree's shape decides the answer. */
typedef struct ds_symnode {
	uint64_t start, end;
	int32_t left, right;
} ds_symnode;

typedef struct ds_line_row {
	uint64_t addr;
	uint32_t file; /* DS_LINE_END for the end of a sequence */
	uint32_t line;
} ds_line_row;
#define DS_LINE_END UINT32_MAX

struct ds_dso {
	char *path;
	bool kallsyms;
	bool progress;   /* ds_dso_opts.progress */
	ds_elf main;
	ds_elf debug;    /* separate debug file, when one matched */
	ds_elf mini;     /* decompressed .gnu_debugdata, when used */
	ds_elf *dwarf;   /* &debug or &main when it holds a line table */
	uint8_t build_id[64];
	size_t build_id_size;
	DS_VEC(ds_seg) segs;
	DS_VEC(ds_xsec) xsecs;
	bool tls_exec;    /* an executable with thread-locals: its TLS block's place is fixed */
	int64_t tls_base; /* ... from the thread pointer (x86-64: below it) */
	uint64_t tls_size;
	bool tls_slots_read;
	DS_VEC(ds_tls_slot) tls_slots; /* by vaddr, read by the first ds_dso_tls_slot */

	ds_symbol *syms; /* sorted by start (tree in-order) */
	ds_symnode *nodes;
	size_t nsyms;
	int32_t root;
	char *names; /* string arena the symbols point into */
	char *symsrc;
	char *note;

	bool lines_loaded;
	ds_line_row *rows;
	size_t nrows;
	ds_hash *files;
	const char **file_names;

	struct ds_cfi *cfi; /* FDE index (cfi.c), built by the first CFA query */
	struct ds_typetab *types; /* types (types.c), loaded by the first type query */
	struct ds_vars *vars; /* globals and scopes (vars.c), loaded by the first variable query */
};

/* ---- call-frame rows (cfi.c) ----
 * A row of the CFI table at one address, for the registers an unwinder
 * reads (x86-64 numbers 0-16, AArch64 0-32).  A register without a rule
 * keeps its value (DS_RULE_SAME), as callee-saved registers do. */
#define DS_FRAME_NREGS 33
enum { DS_RULE_SAME, DS_RULE_UNDEF, DS_RULE_OFFSET, DS_RULE_VAL_OFFSET, DS_RULE_REG, DS_RULE_EXPR,
       DS_RULE_VAL_EXPR };
enum { DS_CFA_UNSET, DS_CFA_REG, DS_CFA_EXPR };

typedef struct ds_frame_rule {
	uint8_t kind;
	int64_t n;           /* OFFSET, VAL_OFFSET: from the CFA; REG: the register */
	const uint8_t *expr; /* EXPR, VAL_EXPR: a DWARF expression in the section */
	uint32_t len;
} ds_frame_rule;

typedef struct ds_frame {
	uint8_t cfa;               /* DS_CFA_* */
	int cfa_reg;
	int64_t cfa_off;
	const uint8_t *cfa_expr;
	uint32_t cfa_len;
	int ra_reg;                /* the return-address column; -1 beyond DS_FRAME_NREGS */
	bool signal;               /* a signal trampoline ('S') */
	uint8_t addr_size;
	bool msb;
	uint64_t ruled;            /* bit r: reg[r] is not DS_RULE_SAME */
	ds_frame_rule reg[DS_FRAME_NREGS];
} ds_frame;

/* The row at vaddr, or NULL when no FDE covers it or the CFI there is
 * malformed.  Rows are kept per address: the second query is a lookup.  The
 * pointer is valid until the next query. */
const ds_frame *ds_dso_frame_at(ds_dso *d, uint64_t vaddr);

/* Keep the first problem only: later ones are usually its consequences. */
void ds_dso_set_note(ds_dso *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* vaddr -> file offset through the PT_LOAD headers as perf does it. */
bool ds_dso_vaddr_to_offset(const ds_dso *d, uint64_t vaddr, uint64_t *offset);

/* ---- bounds-checked reading of DWARF bytes ----
 * For the parts dwarfmap reads itself (call-frame information, location
 * expressions and lists, line-table headers): every read is checked
 * against the end, and the first that would pass it sets `bad`, after
 * which every read returns 0.  Inline: these run per byte of .eh_frame
 * and .debug_loclists. */
typedef struct ds_rd {
	const uint8_t *p, *end;
	bool msb;
	bool bad; /* sticky: once set, every read returns 0 */
} ds_rd;

/* A reader of size bytes at base from offset off (bad when off is past them). */
static inline ds_rd ds_rd_at(const uint8_t *base, size_t size, uint64_t off, bool msb)
{
	ds_rd r = {NULL, NULL, msb, true};

	if (base && off <= size) {
		r.p = base + off;
		r.end = base + size;
		r.bad = false;
	}
	return r;
}

static inline bool ds_rd_has(ds_rd *r, uint64_t n)
{
	if (!r->bad && (uint64_t)(r->end - r->p) >= n)
		return true;
	r->bad = true;
	return false;
}

static inline bool ds_rd_done(const ds_rd *r)
{
	return r->bad || r->p == r->end;
}

static inline void ds_rd_skip(ds_rd *r, uint64_t n)
{
	if (ds_rd_has(r, n))
		r->p += n;
}

/* An unsigned integer of n (at most 8) bytes in the file's byte order. */
static inline uint64_t ds_rd_uint(ds_rd *r, unsigned n)
{
	uint64_t v = 0;

	if (n > 8 || !ds_rd_has(r, n))
		return 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->msb ? n - 1 - i : i] << (8 * i);
	r->p += n;
	return v;
}

/* LEB128; bits beyond the 64th are dropped, the bytes still consumed. */
static inline uint64_t ds_rd_leb(ds_rd *r, bool is_signed)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (!ds_rd_has(r, 1))
			return 0;
		b = *r->p++;
		if (shift < 64) {
			v |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
		}
	} while (b & 0x80);
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

static inline uint64_t ds_rd_uleb(ds_rd *r)
{
	return ds_rd_leb(r, false);
}

static inline int64_t ds_rd_sleb(ds_rd *r)
{
	return (int64_t)ds_rd_leb(r, true);
}

/* ---- debug sections as readers see them (reloc.c) ----
 * Section `name` of e, else its GNU-compressed .zdebug form, inflated, and
 * in a relocatable object (ET_REL: .o, .ko) with its relocations applied
 * (a copy kept by e, made by the first call, shared by every handle).
 * NULL when e has no such section, and with a note on d when it cannot be
 * read or relocated (unreadable, corrupt, or relocations dsprof does not
 * apply: reloc.c lists them); *sh is its header when found. */
const void *ds_dso_debug_section(ds_dso *d, ds_elf *e, const char *name, GElf_Shdr *sh,
				 size_t *size);

/* ---- perf's symbol tree (symtree.c) ---- */
typedef struct ds_psym {
	uint64_t start, end, vaddr;
	size_t name, raw; /* offsets in the arena */
	uint8_t bind, type;
	bool red;
	int32_t left, right, parent;
} ds_psym;

typedef struct ds_symtree {
	DS_VEC(ds_psym) n;
	ds_buf arena;
	int32_t root;
	size_t live;
} ds_symtree;

void ds_symtree_init(ds_symtree *t);
void ds_symtree_free(ds_symtree *t);
/* Insert as perf's symbol__new + __symbols__insert: a zero len leaves the
 * end at the start for symbols__fixup_end to extend. */
void ds_symtree_add(ds_symtree *t, uint64_t start, uint64_t len, uint64_t vaddr,
		    const char *name, const char *raw, uint8_t bind, uint8_t type);
void ds_symtree_fixup_end(ds_symtree *t, bool is_kallsyms);
void ds_symtree_fixup_duplicate(ds_symtree *t);
/* Remove every symbol called name (perf drops some after loading). */
void ds_symtree_remove_name(ds_symtree *t, const char *name);
/* Move the symbols into d (sorted array, tree links, names); resets t. */
void ds_symtree_finish(ds_symtree *t, ds_dso *d);
/* perf's symbols__find over the finished tree, at a perf-space address. */
const ds_symbol *ds_symtab_find(const ds_dso *d, uint64_t addr);

/* ---- libdwarf over chosen sections (dwarf.c) ---- */
typedef struct ds_dwarf ds_dwarf;
/* A libdwarf handle over the named sections of d's DWARF file (the debug
 * file, or the object itself); NULL when it has none or libdwarf refuses
 * it (a note says why).  Sections it lacks are simply left out. */
ds_dwarf *ds_dwarf_open(ds_dso *d, const char *const *sections, size_t n);
Dwarf_Debug ds_dwarf_debug(const ds_dwarf *dw);
/* The (uncompressed) bytes of one of the opened sections, or NULL. */
const void *ds_dwarf_section(const ds_dwarf *dw, const char *name, size_t *size);
/* Whether its file is big-endian. */
bool ds_dwarf_msb(const ds_dwarf *dw);
void ds_dwarf_close(ds_dwarf *dw);
/* Whether the line table at offset off of .debug_line (or the one of unit
 * cu) holds together well enough for libdwarf to read it: file entries
 * naming directories the table has, string offsets inside their sections
 * (dwarfmap/linehdr.c says what libdwarf does otherwise). */
bool ds_line_header_sane(const ds_dwarf *dw, uint64_t off);
bool ds_cu_line_table_sane(const ds_dwarf *dw, Dwarf_Die cu); /* true without one */

/* A unit's file names, the numbers DW_AT_decl_file and DW_AT_call_file
 * give (its line table's), read on first use and kept for the unit.
 * libdwarf records every allocation in a search tree, so that dwarf_finish
 * frees what callers forgot; the loaders' main handles go without (a
 * quarter faster), as they free all they get.  But dwarf_srcfiles itself
 * loses allocations on a corrupt line table, so file names are read
 * through a handle of their own made with its tree, and recording is on
 * during that call only (the flag is global and read at each allocation). */
typedef struct ds_unit_files {
	ds_dso *d;
	const char *who;      /* for notes: "types", "variables" */
	ds_dwarf *dw;         /* the handle (opened on first use), NULL when it cannot be */
	bool opened;
	uint64_t cu_off;      /* the unit's DIE, in .debug_info or .debug_types */
	bool is_info;
	int version;          /* its DWARF version: 5 numbers files from 0, others from 1 */
	bool read;            /* its names were read (or could not be) */
	char **names;
	Dwarf_Signed n;
} ds_unit_files;
/* The next unit: its names are read when first asked for. */
void ds_unit_files_set(ds_unit_files *f, uint64_t cu_off, bool is_info, int version);
/* The name of file number n of the unit, or NULL. */
const char *ds_unit_file(ds_unit_files *f, uint64_t n);
/* The names of the unit, then the handle, let go. */
void ds_unit_files_close(ds_unit_files *f);

/* ---- loaders ---- */
void ds_dso_load_symbols(ds_dso *d);
/* Each sized data object (STT_OBJECT) of the symbol table: .symtab of the
 * debug file or the object, else .dynsym; raw is the name as stored. */
void ds_dso_each_object(ds_dso *d, void (*fn)(void *ctx, const char *raw, uint64_t vaddr, uint64_t size),
			void *ctx);
/* Find and open the separate debug file for d->main into d->debug: `first`
 * when given and its build-id matches, else by build-id under debug_root,
 * else by .gnu_debuglink. */
void ds_dso_find_debug_file(ds_dso *d, const char *debug_root, const char *first);
/* Decompress .gnu_debugdata of d->main into d->mini; false when absent. */
bool ds_dso_open_minidebug(ds_dso *d);
void ds_dso_free_lines(ds_dso *d);
void ds_dso_free_cfi(ds_dso *d);
void ds_dso_free_types(ds_dso *d);
void ds_dso_free_vars(ds_dso *d);
/* The name perf shows for raw (demangled without parameters), or NULL. */
char *ds_demangle_perf(const char *raw);

#endif
