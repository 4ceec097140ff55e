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
	bool progress;           /* progress lines on stderr (a terminal) while reading a large
				  * object's types and variables; never from a thread beside a
				  * full-screen interface, whose screen they would overwrite */
	const char *debug_file;  /* a separate debug file to try first (an archived one), or NULL */
} ds_dso_opts;

/* Open an ELF file.  NULL with err when the file cannot be read or is not
 * ELF (DS_EINPUT); a file without symbols opens fine and has none. */
ds_dso *ds_dso_open(const char *path, const ds_dso_opts *opts, ds_err *err);
/* The same over an in-memory ELF image (the vdso), with the DWARF it
 * carries (no separate debug file is looked for); the image is copied. */
ds_dso *ds_dso_open_mem(const void *image, size_t size, const char *label, ds_err *err);
/* The running kernel's symbols from a kallsyms file (vaddr = address);
 * own: a file dsprof wrote (an experiment's), not read through a link. */
ds_dso *ds_dso_open_kallsyms(const char *path, bool own, ds_err *err);
void ds_dso_close(ds_dso *d);
/* Append to `out` the lines of the kallsyms file `path` that resolve each
 * of addrs[0..n) exactly as the whole file would: a few lines instead of
 * the kernel's hundred thousand, so that an experiment carries its kernel
 * symbols and a report need not read /proc/kallsyms.  Exactly, where one
 * symbol covers the address: where two overlap (perf extends the last
 * symbol before a kernel/module boundary by a page, which can reach past
 * the next symbol's start), which one perf names depends on the whole
 * file's tree, and the subset may name the other. */
int ds_kallsyms_subset(const char *path, const uint64_t *addrs, size_t n, ds_buf *out, ds_err *err);

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
/* The separate debug file that was found for it (by build-id or debuglink),
 * or NULL. */
const char *ds_dso_separate_debug_file(const ds_dso *d);

/* The build-id (NT_GNU_BUILD_ID note) of the ELF file at path into id (at
 * most cap bytes): its size, 0 when the file has none or cannot be read. */
size_t ds_build_id_of_file(const char *path, uint8_t *id, size_t cap);
/* The same from a block of notes, as the kernel shows its own in
 * /sys/kernel/notes. */
size_t ds_build_id_of_notes(const void *notes, size_t len, uint8_t *id, size_t cap);

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
/* Whether vaddr lies in a loadable segment (its .data and .bss included). */
bool ds_dso_vaddr_loaded(const ds_dso *d, uint64_t vaddr);
/* Whether vaddr lies in a loadable segment the program cannot write (its
 * .rodata: literals, jump tables; not RELRO data, written by the loader). */
bool ds_dso_vaddr_readonly(const ds_dso *d, uint64_t vaddr);
/* Initialized bytes of any loadable segment from vaddr to its file-backed
 * end (read-only data such as jump tables); NULL when vaddr is in none. */
const uint8_t *ds_dso_bytes_at(ds_dso *d, uint64_t vaddr, size_t *avail);

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
/* The code range [start, end) of the FDE covering vaddr: a function's bounds
 * (or of a part of it, like GCC's .cold blocks) where the symbol table has
 * none, as in stripped libraries. */
bool ds_dso_fde_range(ds_dso *d, uint64_t vaddr, uint64_t *start, uint64_t *end);

/* Whether the object's functions keep a frame pointer: of the FDEs whose
 * CFA moves (functions that make a frame), at least half define it by
 * register fp_reg (DWARF number) somewhere, as -fno-omit-frame-pointer
 * code does and -O2 code (Debian's default) does not.  False without CFI. */
bool ds_dso_keeps_frame_pointers(ds_dso *d, int fp_reg);

/* ---- unwinding ----
 * One frame up through the call-frame information, with the registers of a
 * thread as it ran: the sampled ones for the first frame, then each
 * caller's as the rules recover them.  Registers are DWARF-numbered; the
 * thread's memory (a copy of its stack) is read through env->read. */
#define DS_UNWIND_NREGS 33
typedef struct ds_uregs {
	uint64_t v[DS_UNWIND_NREGS];
	uint64_t known;    /* bit r: register r's value is known */
	uint64_t deferred; /* of those, bit r: v[r] is the address of the value in the
			    * thread's memory, read when a rule needs it (most saved
			    * registers never are: a frame is then one read) */
} ds_uregs;

typedef struct ds_unwind_env {
	int sp_reg;    /* the stack pointer's DWARF number: the caller's is the CFA */
	uint64_t bias; /* the object's load bias (runtime address - vaddr), for DW_OP_addr */
	/* 8 bytes of the thread's memory at addr; false when not available */
	bool (*read)(void *ctx, uint64_t addr, uint64_t *val);
	void *ctx;
	/* has_ra: the caller's address as a call chain gives it, taken instead
	 * of reading the return address (a walk with no copy of the stack,
	 * whose frames' extents alone are wanted) */
	bool has_ra;
	uint64_t ra;
} ds_unwind_env;

enum ds_unwind_rc {
	DS_UNWIND_OK,
	DS_UNWIND_OUTERMOST, /* the return address is undefined: the thread's first frame */
	DS_UNWIND_NO_CFI,    /* no FDE covers the address */
	DS_UNWIND_BAD_CFI,   /* a rule that cannot be evaluated: a register not known, a bad expression */
	DS_UNWIND_NO_MEMORY, /* a read env->read cannot serve: the stack copy ends */
};

/* Unwind the frame whose code is at vaddr (the sampled address, or a
 * return address minus one) from regs to its caller's registers.  On
 * DS_UNWIND_OK, *ra is the caller's address and *exact says whether it is
 * the interrupted instruction itself (the frame was a signal trampoline),
 * to be looked up as it is rather than as a return address; the stack
 * pointer's value is read.  On any other answer regs mean what they meant
 * (a deferred value may have been read). */
int ds_dso_unwind_step(ds_dso *d, uint64_t vaddr, const ds_unwind_env *env, ds_uregs *regs,
		       uint64_t *ra, bool *exact);
/* Register reg's value, read from memory first when deferred; false when
 * it is not known or cannot be read. */
bool ds_uregs_get(ds_uregs *regs, int reg, const ds_unwind_env *env, uint64_t *v);

/* A C++/Rust-mangled name demangled (malloc'd), or NULL when not mangled. */
char *ds_demangle(const char *raw);

/* ---- types (DWARF) ----
 * Loaded on the first type query from every compilation unit (and DWARF 4
 * type units), and deduplicated by name and layout: `struct node` defined
 * in forty CUs is one type; two layouts of one name are two types, and
 * each of them says where it is declared (ds_type.where), so that no name
 * stands for two of them.  In C++ (and Rust) names are qualified by their
 * namespaces and enclosing classes ("a::Node", "Outer::Inner",
 * "(anonymous namespace)::Impl"); template instances are named as DWARF
 * spells them ("Item<double>").  A declaration (`struct node;`) is the
 * definition of its name when every definition of that name has the same
 * layout.  Types, and the strings they point to, stay owned by the dso.
 * Corrupt DWARF gives a note (ds_dso_note) and the types that could be
 * read. */

enum ds_type_kind {
	DS_TYPE_VOID,
	DS_TYPE_BASE,      /* int, double, _Bool, char ... */
	DS_TYPE_POINTER,   /* also C++ references */
	DS_TYPE_STRUCT,
	DS_TYPE_UNION,
	DS_TYPE_CLASS,
	DS_TYPE_ENUM,
	DS_TYPE_ARRAY,
	DS_TYPE_TYPEDEF,
	DS_TYPE_CONST,
	DS_TYPE_VOLATILE,
	DS_TYPE_RESTRICT,
	DS_TYPE_FUNCTION,  /* what a function pointer points to */
	DS_TYPE_OTHER,     /* _Atomic (name "_Atomic", target the type), pointers to
			    * members (no name, target the member's type),
			    * unspecified types (decltype(nullptr): their name) */
};

typedef struct ds_type ds_type;

typedef struct ds_member {
	const char *name;       /* NULL for an anonymous struct or union member */
	const ds_type *type;    /* never NULL, but for a function's `...` */
	uint64_t offset;        /* bytes from the start of the enclosing type */
	uint32_t bit_offset;    /* bit fields: bits from the start of byte `offset` */
	uint32_t bit_size;      /* bit fields: width in bits; 0 when not a bit field */
	bool base_class;        /* a C++ base class subobject */
	uint32_t align;         /* the member's own DW_AT_alignment (_Alignas, aligned()), else 0 */
} ds_member;

struct ds_type {
	enum ds_type_kind kind;
	const char *name;          /* tag, base or typedef name, qualified by its scope in
				    * C++ ("a::Node"); NULL when anonymous; "&" and "&&"
				    * for C++ references */
	uint64_t size;             /* bytes; 0 when incomplete (a declaration only) */
	const ds_type *target;     /* pointee, typedef/cv target, array element, enum base
				    * (NULL when not given), function's return type */
	const uint64_t *dims;      /* arrays: elements per dimension, outermost first; 0 = flexible */
	size_t ndims;
	const ds_member *members;  /* struct, union, class: in declaration order, static
				    * members left out; function: its parameters'
				    * types (type NULL for `...`) */
	size_t nmembers;
	uint32_t align;            /* DW_AT_alignment when given, else 0 */
	const char *decl_file;     /* where it is declared (aggregates and typedefs), or NULL */
	unsigned decl_line;
	const char *where;         /* a struct, union or class whose name another definition
				    * in the object shares (its tag, or the typedef that names
				    * it), with another layout: its declaration as the type's
				    * label shows it, "tu2.c:3" (the fewest last components
				    * of the path that tell the definitions apart, and "#N"
				    * after them when whole paths do not); else NULL */
};

/* Named structs, unions, classes and enums, wherever defined (functions
 * included), and typedef names of anonymous ones, sorted by name (one name
 * with two layouts: both, in the order first met); declarations without a
 * definition are not listed. */
size_t ds_dso_ntypes(ds_dso *d);
const ds_type *ds_dso_type(ds_dso *d, size_t i);
/* By name: "struct node" ("class node" alike), "union u", "enum e", "node",
 * or a typedef; without a prefix a struct, union or class wins over a
 * typedef, a typedef over an enum.  A label with a where ("struct node
 * (tu2.c:3)", ds_type_ident) names that definition only; a name without
 * one names every definition of it.  A name no type has whole names the
 * C++ types it ends (ds_name_tail): "Node" is a::Node and b::Node, as
 * "SkipList<int>::Node" is ns::SkipList<int>::Node.  Writes at most max of them into out,
 * in the order ds_dso_type lists them, and returns how many there are (0
 * when the name is absent or only declared). */
size_t ds_dso_find_types(ds_dso *d, const char *name, const ds_type **out, size_t max);
/* Whether want (wlen bytes) is the qualified C++ name q (qlen bytes) or
 * its last scopes: "Node" and "b::Node" end "a::b::Node"; a "::" inside
 * template arguments ("X<a::Node>") is no scope of q. */
bool ds_name_tail(const char *q, size_t qlen, const char *want, size_t wlen);
/* The first of ds_dso_find_types, or NULL. */
const ds_type *ds_dso_find_type(ds_dso *d, const char *name);
/* The type a DIE describes, by its offset in .debug_info (what variables
 * refer to); NULL when there is none. */
const ds_type *ds_dso_type_at_die(ds_dso *d, uint64_t die_offset);
/* C syntax: "struct node", "int *", "char [16]", "struct row *[4]". */
void ds_type_name(const ds_type *t, ds_buf *out);
/* What tells the type apart from every other of the object: its C name,
 * or for a typedef of an anonymous struct or union the typedef's name,
 * then its where when it has one: "struct node", "struct node (tu2.c:3)",
 * "Elf64_Dyn". */
void ds_type_ident(const ds_type *t, ds_buf *out);
/* Whether a and b are one definition, wherever they come from (two
 * objects, two handles on one): the same kind, name and size, and members
 * with the same names, offsets, bit fields and type names (anonymous
 * structs and unions compared member by member). */
bool ds_type_same(const ds_type *a, const ds_type *b);
/* Through typedefs and qualifiers (const, volatile, restrict, _Atomic). */
const ds_type *ds_type_strip(const ds_type *t);
/* The member path at byte `offset` of t for an access of `size` bytes:
 * "next", "a.b.c" (nested; anonymous members add no name), "cells[]" (an
 * array element: offsets inside one are taken modulo its size),
 * "cells[].x", "grid[][]"; a flexible array member covers every offset
 * past its start.  In a union, the member whose size matches the access,
 * else the one whose innermost member there does, else the first; among
 * bit fields, the first whose bits cover the byte.  *leaf (may be NULL)
 * gets the innermost member.  False when the offset is in padding, a hole
 * or past the end (the path then names the nearest member before). */
bool ds_type_member_path(const ds_type *t, uint64_t offset, uint32_t size, ds_buf *path,
			 const ds_member **leaf);

/* ---- variables (DWARF) ----
 * Globals, statics, parameters and locals with their locations, loaded on
 * the first query from every compilation unit (not thread-safe).
 * Locations are resolved for one pc: location lists (DWARF 4 .debug_loc,
 * DWARF 5 .debug_loclists) select the entry, and frame-base forms
 * (DW_OP_fbreg with DW_AT_frame_base, DW_OP_call_frame_cfa through
 * ds_dso_cfa_at) become a register and an offset valid at that pc.
 * Names and types of inlined and out-of-line instances come from their
 * abstract origins, those of definitions from their declarations. */

enum ds_loc_kind {
	DS_LOC_NONE,      /* not available at this pc (optimized out, or only as the
			   * value a register had on entry: DW_OP_entry_value) */
	DS_LOC_ADDR,      /* in memory at a static address */
	DS_LOC_TLS,       /* thread-local: offset in the object's TLS block */
	DS_LOC_REG,       /* its value is in register `reg` */
	DS_LOC_MEM,       /* in memory at register `reg` + offset */
	DS_LOC_IMPLICIT,  /* a value without storage (DW_OP_stack_value, implicit_value) */
	DS_LOC_COMPLEX,   /* an expression dsprof does not follow (pieces, computations,
			   * a CFA the call-frame information does not give) */
};

typedef struct ds_loc {
	enum ds_loc_kind kind;
	int reg;          /* DWARF register number (REG, MEM) */
	int64_t offset;   /* MEM: from reg; TLS: in the block */
	uint64_t addr;    /* ADDR: vaddr */
} ds_loc;

typedef struct ds_var {
	const char *name;
	uint64_t type_die;      /* its type: ds_dso_type_at_die() */
	uint64_t size;          /* bytes of its storage (from its type), 0 when unknown */
	ds_loc loc;             /* where it lives (at the queried pc, for locals) */
	bool param;
	bool global;            /* a global, or a static at file or function scope */
	const char *function;   /* the (inlined) function of a parameter, local or
				 * function-local static; NULL at file scope */
	uint64_t die;           /* the variable's own DIE offset */
} ds_var;

/* Globals and statics: those with a static address (DS_LOC_ADDR) sorted by
 * address, then the thread-locals (DS_LOC_TLS) by offset in the TLS block.
 * A definition seen in several units is listed once. */
size_t ds_dso_nglobals(ds_dso *d);
const ds_var *ds_dso_global(ds_dso *d, size_t i);
/* The global whose storage [addr, addr + size) holds vaddr, the smallest
 * when several do (one binary search); *offset is vaddr - addr.  NULL when
 * none does: thread-locals and globals of unknown size never match. */
const ds_var *ds_dso_global_at(ds_dso *d, uint64_t vaddr, uint64_t *offset);
/* The thread-local variable of a program whose storage is tpoff bytes from
 * a thread's pointer (x86-64's %fs base), in every thread; *offset is into
 * it.  NULL when none is, or when d is a library (its block is placed at
 * load time) or not x86-64. */
const ds_var *ds_dso_tls_at(ds_dso *d, int64_t tpoff, uint64_t *offset);
/* The thread-local variable whose storage is block_off bytes into d's
 * own TLS block (program or library: where each thread's copy begins),
 * *offset into it; NULL when none is. */
const ds_var *ds_dso_tls_var(ds_dso *d, uint64_t block_off, uint64_t *offset);
/* A library reaches its thread-locals through GOT slots the loader fills:
 * a tls_index (module, offset) that __tls_get_addr turns into the
 * thread's address of the variable (the general- and local-dynamic
 * models), or the offset of the variable from the thread pointer (the
 * initial-exec model).  Whether vaddr is the first word of such a slot
 * in d (x86-64), which (*kind), and *block_off: the variable's offset in
 * d's TLS block (a local-dynamic index: 0, its block's start). */
enum { DS_TLS_SLOT_INDEX = 1, DS_TLS_SLOT_TPOFF };
/* *block_off of a slot of another module's variable (not known here). */
#define DS_TLS_ELSEWHERE UINT64_MAX
bool ds_dso_tls_slot(ds_dso *d, uint64_t vaddr, int *kind, uint64_t *block_off);
/* Parameters and locals in scope at pc, innermost scope first (lexical
 * blocks and inlined subroutines included) and outward to the function,
 * each with its location at pc; variables in scope but not available there
 * come as DS_LOC_NONE, function-local statics as DS_LOC_ADDR with global
 * set.  Writes at most max into out and returns how many there are; the
 * strings stay owned by the dso. */
size_t ds_dso_vars_at(ds_dso *d, uint64_t pc, ds_var *out, size_t max);
/* Code at pc inlined into its function (from a header, say): the file
 * and line of the function's own code that made the outermost inlined
 * call (DW_AT_call_file, DW_AT_call_line).  False when pc is not inlined
 * code, or the call's place is not known.  The string stays owned by d. */
bool ds_dso_inline_call_at(ds_dso *d, uint64_t pc, const char **file, unsigned *line);

#endif
