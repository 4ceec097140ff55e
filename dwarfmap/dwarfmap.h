/*
 * dwarfmap/: what object files say about addresses.
 *
 * A ds_dso is one object file (executable, shared library, vdso image,
 * or the kernel through kallsyms): its function symbols, its DWARF line
 * table, and its code bytes.  Addresses in this interface are the object's
 * own ELF virtual addresses ("vaddr"); callers turn a runtime IP into one
 * with ds_dso_file_to_vaddr() on the mapping's file offset.
 *
 * Symbols come from .symtab, else .dynsym, plus the MiniDebugInfo in
 * .gnu_debugdata, plus a separate debug file found by build-id
 * (DEBUG_ROOT/.build-id/xx/rest.debug) or .gnu_debuglink (next to the file,
 * in .debug/, and under DEBUG_ROOT), plus synthesized name@plt entries.
 * Symbol choice and sizes follow perf's rules, so that dsprof and
 * `perf report` attribute every sample to the same function.
 *
 * Loading is lazy: symbols on open, line tables on the first line query.
 * Nothing here prints; problems with a file's debug information are kept
 * as a note (ds_dso_note) that the caller may show.
 */
#ifndef DSPROF_DWARFMAP_H
#define DSPROF_DWARFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

typedef struct ds_dso ds_dso;

typedef struct ds_symbol {
	const char *name;  /* for display, as perf shows it: demangled, without parameters */
	const char *raw;   /* as in the symbol table */
	uint64_t start;    /* vaddr */
	uint64_t size;     /* bytes; zero sizes are extended as perf does */
	uint8_t bind;      /* STB_* */
	uint8_t type;      /* STT_*: perf keeps data symbols too, so STT_OBJECT happens */
} ds_symbol;

typedef struct ds_dso_opts {
	const char *debug_root;  /* NULL: /usr/lib/debug */
	const uint8_t *build_id; /* expected build-id (from MMAP2), NULL when unknown */
	size_t build_id_size;
} ds_dso_opts;

/* Open an ELF file.  NULL with err when the file cannot be read or is not
 * ELF (DS_EINPUT); a file without symbols opens fine and has none. */
ds_dso *ds_dso_open(const char *path, const ds_dso_opts *opts, ds_err *err);
/* The same over an in-memory ELF image (the vdso); the image is copied. */
ds_dso *ds_dso_open_mem(const void *image, size_t size, const char *label, ds_err *err);
/* The running kernel's symbols from a kallsyms file (vaddr = address). */
ds_dso *ds_dso_open_kallsyms(const char *path, ds_err *err);
void ds_dso_close(ds_dso *d);
/* Write to `out` the lines of the kallsyms file `path` that resolve each
 * of addrs[0..n) exactly as the whole file would: a few lines instead of
 * the kernel's hundred thousand, so that an experiment carries its kernel
 * symbols and a report need not read /proc/kallsyms. */
int ds_kallsyms_subset(const char *path, const uint64_t *addrs, size_t n, const char *out,
		       ds_err *err);

const char *ds_dso_path(const ds_dso *d);
/* Where the symbols came from: "symtab", "dynsym", "dynsym+gnu_debugdata",
 * "debug file /usr/lib/debug/...", "kallsyms", "none". */
const char *ds_dso_symbol_source(const ds_dso *d);
/* The file that holds the DWARF, or NULL when there is none. */
const char *ds_dso_debug_file(const ds_dso *d);
/* First problem met with this file's debug information, or NULL. */
const char *ds_dso_note(const ds_dso *d);
/* Build-id of the file (NULL when it has none). */
const uint8_t *ds_dso_build_id(const ds_dso *d, size_t *size);

/* File offset (mapping pgoff + ip - start) -> vaddr through the PT_LOAD
 * segments; false when the offset lies in no loadable segment.  For
 * kallsyms the offset is the address itself. */
bool ds_dso_file_to_vaddr(const ds_dso *d, uint64_t offset, uint64_t *vaddr);

/* The symbol containing vaddr by perf's lookup (a walk of perf's own
 * red-black tree, whose shape decides between overlapping symbols), or NULL. */
const ds_symbol *ds_dso_symbol_at(ds_dso *d, uint64_t vaddr);
size_t ds_dso_nsymbols(const ds_dso *d);
const ds_symbol *ds_dso_symbol(const ds_dso *d, size_t i); /* sorted by start */

/* Source file and line of the instruction at vaddr from the DWARF line
 * table; false when there is no line information for it.  The first call
 * loads the whole table (not thread-safe).  The file name stays owned by
 * the dso. */
bool ds_dso_line_at(ds_dso *d, uint64_t vaddr, const char **file, unsigned *line);

/* Code bytes from vaddr to the end of its executable section; NULL when
 * vaddr is in none (or for kallsyms). */
const uint8_t *ds_dso_code_at(ds_dso *d, uint64_t vaddr, size_t *avail);

/* How to find the caller's frame at an instruction, from the object's
 * call-frame information (.eh_frame, else .debug_frame of the object or its
 * debug file): CFA = value of DWARF register `cfa_reg` + cfa_offset, and the
 * return address is stored at CFA + ra_offset (ra_saved) or not on the stack
 * (ra_saved false: still in a register, e.g. AArch64 leaf code, or undefined
 * in the outermost frame).  DWARF numbering (x86-64: 6 = rbp, 7 = rsp,
 * 16 = return address column). */
typedef struct ds_cfa {
	int cfa_reg;
	int64_t cfa_offset;
	bool ra_saved;
	int64_t ra_offset;
} ds_cfa;

/* The CFA rule at vaddr; false when no FDE covers it, or the CFA is a DWARF
 * expression (DW_CFA_def_cfa_expression), or the CFI is malformed.  The
 * first call parses the FDE index (sorted table of [start, end) -> FDE); each
 * lookup then interprets one FDE's instructions up to vaddr.  Not
 * thread-safe, like the line queries; false for kallsyms. */
bool ds_dso_cfa_at(ds_dso *d, uint64_t vaddr, ds_cfa *out);

/* A C++/Rust-mangled name demangled (malloc'd), or NULL when not mangled. */
char *ds_demangle(const char *raw);

#endif
