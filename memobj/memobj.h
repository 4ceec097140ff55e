/*
 * memobj/: the machine's memory geometry and memory objects.
 *
 * A machine is the cache hierarchy, page sizes and NUMA nodes of a real
 * machine (sysfs), of the machine an experiment was recorded on (its
 * meta.json), or of a machine model file ("what would this look like with
 * 128-byte lines?").  A memory object maps every sampled access to an
 * index through an expression over the access (VADDR, PADDR, THRID, CPUID,
 * VIRTPC, TSTAMP) and the machine's constants (L1D_LINE, L1D_SETS, ...):
 * cache lines, sets, banks, pages, and whatever users define.  The same
 * language, with string operands, filters samples (FUNC == "main").
 *
 * docs/memory-objects.md describes the language, the predefined objects
 * and the machine model file format.
 */
#ifndef DSPROF_MEMOBJ_H
#define DSPROF_MEMOBJ_H

#include "base/base.h"
#include "experiment/experiment.h"

/* Cache levels of CPU `cpu` from SYSFS/devices/system/cpu/cpuN/cache
 * (sysfs_root NULL means /sys), in sysfs index order.  Returns how many
 * were filled (0 when sysfs says nothing, as in some containers). */
int ds_geometry_sysfs(const char *sysfs_root, int cpu, ds_cache_level *out, int max);
/* One CPUID query: leaf, sub-leaf -> EAX, EBX, ECX, EDX; false when the
 * CPU has no such instruction. */
typedef bool ds_cpuid_fn(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4]);
/* Cache levels from CPUID (fn NULL: this CPU's; tests give recorded
 * answers): Intel's leaf 4, AMD's 0x8000001D, else AMD's legacy leaves
 * 0x80000005/6.  A level whose associativity CPUID does not give has ways
 * and sets 0.  No shared-CPU lists.  Returns how many were filled. */
int ds_geometry_cpuid(ds_cpuid_fn *fn, void *ctx, ds_cache_level *out, int max);
/* This machine's cache levels: sysfs, else CPUID (virtual machines that
 * hide sysfs's cache directory); *source says which ("sysfs", "cpuid"),
 * NULL when neither told anything. */
int ds_geometry_here(ds_cache_level *out, int max, const char **source);

/* ---- machines ---- */

typedef struct ds_machine {
	char *source;             /* "sysfs", "cpuid", "experiment", or the model file's path */
	ds_cache_level caches[8];
	int ncaches;
	uint64_t page_size;       /* bytes */
	uint64_t huge_page_size;  /* bytes, 0 when unknown */
	int numa_nodes;           /* 0 when unknown */
	unsigned latency[5];      /* --sim's load latencies (cycles) of the L1, L2, last level,
				   * another core's modified copy, memory; 0: the model's */
	char **mobj_names;        /* memory objects the model file defines */
	char **mobj_exprs;
	size_t nmobjs;
} ds_machine;

/* This machine: sysfs, with the caches from CPUID when sysfs has none. */
int ds_machine_sysfs(ds_machine *m, ds_err *err);
/* The machine an experiment was recorded on, from its meta data. */
void ds_machine_from_meta(ds_machine *m, const ds_meta *meta);
/* A machine model file (format in docs/memory-objects.md); errors name the
 * file and line. */
int ds_machine_load(ds_machine *m, const char *path, ds_err *err);
/* Overrides like "L1D=32k:8:64,L2=1M:16:64" (size:ways:line). */
int ds_machine_override(ds_machine *m, const char *spec, ds_err *err);
void ds_machine_fini(ds_machine *m);
/* A level by name ("L1D", "L1I", "L2", "L3"), or NULL when the machine has none. */
const ds_cache_level *ds_machine_level(const ds_machine *m, const char *name);

/* This machine from a sysfs and a procfs tree other than /sys and /proc
 * (tests; NULL means the real one, and CPUID when it lists no caches).
 * ds_machine_sysfs is this with NULLs. */
int ds_machine_sysfs_at(ds_machine *m, const char *sysfs_root, const char *procfs_root,
			ds_err *err);
/* The machine constants expressions can name (L1D_LINE, ..., PAGE_SIZE,
 * HUGE_PAGE_SIZE), NULL-terminated. */
extern const char *const ds_machine_constants[];
/* A constant's value on m; false when m lacks it (no L3 cache, huge page
 * size unknown) or the name is not a constant. */
bool ds_machine_constant(const ds_machine *m, const char *name, int64_t *value);

/* ---- expressions ----
 * The memory-object language (docs/memory-objects.md): C's integer
 * operators and precedence over a sampled access's operands and the
 * machine's constants, in 64-bit signed arithmetic that wraps.  An
 * expression is compiled once (constants resolved and folded, into a small
 * bytecode) and then evaluated per sample without allocating.
 *
 * Unknown values are -1, the <unknown> index.  Evaluation that reads an
 * operand whose value is -1 stops with the result -1, unless the
 * expression compares that operand somewhere (it occurs inside an operand
 * of < <= > >= == !=): then it reads as -1 and the expression decides, as
 * in `VADDR>255 ? VADDR>>6 : -1`.  A division or modulo by zero stops with
 * -1 too.  MOBJ(name) in filters follows the same rule. */

/* ASITE and BLOCKOFF: the allocation site of the heap block the address
 * is in (its id: --view heap's column asite), and the offset in that
 * block (record --heap); -1 outside blocks. */
enum ds_operand { DS_VADDR, DS_PADDR, DS_THRID, DS_CPUID, DS_VIRTPC, DS_TSTAMP, DS_ASITE, DS_BLOCKOFF, DS_NOPERANDS };

/* Operands of filters that their caller defines (analyze/'s dimensions:
 * function, thread, field...): a name, maybe another name for it, and
 * whether its values are strings, which can only be compared (== or !=)
 * with string literals.  At most DS_MAX_FILTER_OPERANDS. */
typedef struct ds_filter_operand {
	const char *name;     /* "function" */
	const char *synonym;  /* "FUNC", or NULL */
	bool string;
} ds_filter_operand;
#define DS_MAX_FILTER_OPERANDS 32

/* One sampled access, as expressions read it. */
typedef struct ds_access {
	int64_t v[DS_NOPERANDS];       /* by enum ds_operand; -1 = unknown */
	/* Filters only: the caller's operands, by their index in the
	 * ds_filter_operand list.  op[i] is a number (-1 unknown) or, for a
	 * string operand, the id of its value among the filter's strings
	 * (ds_filter_string_id; -1: equal to none of them); alias[i] is the
	 * id of another name that value goes by (a type's name without the
	 * where that tells it from other definitions: "struct node" for
	 * "struct node (tu2.c:3)"), -1 when none.  A comparison with a string
	 * holds when either name is that string.  Only the operands the
	 * filter uses (ds_filter_ops_used) are read. */
	const int64_t *op;
	const int32_t *alias;
} ds_access;

/* What an expression reads (ds_expr_uses): bit (1u << op) for each
 * enum ds_operand, and MOBJ() (the operands of the memory objects a
 * filter's MOBJ() names are included). */
#define DS_USES_MOBJ  (1u << 11)

typedef struct ds_expr ds_expr;

/* Compile memory object NAME's expression against machine m.  m NULL
 * checks syntax and names only: every machine constant is accepted (the
 * result is only good for validating a definition).  Errors are one line
 * naming the object and the column: "mobj 'x': expected ')' at column 14". */
int ds_expr_compile(const char *name, const char *text, const ds_machine *m, ds_expr **out,
		    ds_err *err);
void ds_expr_free(ds_expr *e);
/* The index of one access: -1 when it is unknown. */
int64_t ds_expr_eval(const ds_expr *e, const ds_access *a);
unsigned ds_expr_uses(const ds_expr *e);
/* Whether the values are addresses with their low bits cleared (an
 * address operand masked with a negative constant, divided and multiplied
 * back, or shifted right and back): such indices print in hex. */
bool ds_expr_is_address(const ds_expr *e);

/* ---- memory objects ---- */

enum ds_mobj_origin {
	DS_MOBJ_PREDEFINED, /* from the machine's geometry: L1D_line, vpage, ... */
	DS_MOBJ_MACHINE,    /* defined by the machine: its model file, numa_node from sysfs */
	DS_MOBJ_USER,       /* the user's file (ds_mobj_user_path) */
	DS_MOBJ_OPTION,     /* the command line (--mobj NAME=EXPR) */
};

typedef struct ds_mobj {
	char *name;
	char *text;                /* the expression as written */
	enum ds_mobj_origin origin;
	ds_expr *code;             /* NULL when it does not compile for this machine */
	char *error;               /* then why, one line */
	bool hex;                  /* indices are addresses, printed in hex */
	bool needs_paddr;          /* reads PADDR: unknown in experiments without one */
} ds_mobj;

/* The memory objects of one machine.  The machine must outlive the set. */
typedef struct ds_mobjs {
	ds_mobj *v;
	size_t n;
	const ds_machine *machine;
} ds_mobjs;

/* The predefined objects m has (L1D_line L1D_set L2_line L2_set L3_line
 * L3_set vpage ppage vpage_2M ppage_2M), then m's own definitions, which
 * replace predefined ones of the same name. */
void ds_mobjs_init(ds_mobjs *s, const ds_machine *m);
void ds_mobjs_fini(ds_mobjs *s);
/* Add an object, replacing one of the same name.  Predefined names are
 * refused for DS_MOBJ_USER and DS_MOBJ_OPTION (a machine may redefine
 * them).  Syntax errors fail; an object whose constants this machine
 * lacks is kept with its error, except with DS_MOBJ_OPTION, where that
 * fails too. */
int ds_mobjs_add(ds_mobjs *s, const char *name, const char *text, enum ds_mobj_origin origin,
		 ds_err *err);
/* Add the objects of the user's file (path NULL: ds_mobj_user_path);
 * a missing file adds none. */
int ds_mobjs_add_user(ds_mobjs *s, const char *path, ds_err *err);
/* Parse the argument of --mobj, "NAME=EXPR" (malloc'd halves), checking
 * the name. */
int ds_mobj_parse_option(const char *arg, char **name, char **text, ds_err *err);
/* --mobj NAME=EXPR: parse and add with DS_MOBJ_OPTION. */
int ds_mobjs_add_option(ds_mobjs *s, const char *arg, ds_err *err);
/* The object NAME, ready to evaluate (its code is set); NULL with err
 * when there is none or this machine cannot evaluate it. */
const ds_mobj *ds_mobjs_find(const ds_mobjs *s, const char *name, ds_err *err);
/* An index as the object prints it: "<unknown>" for -1, else "0x7f12c040"
 * (hex objects) or "17". */
void ds_mobj_format(const ds_mobj *o, int64_t index, char *buf, size_t len);
/* Letters, digits and _, starting with a letter, at most 64 characters. */
bool ds_mobj_name_ok(const char *name);
/* Names the geometry defines on some machine (L1D_line, vpage_2M, ...):
 * users cannot define them. */
bool ds_mobj_predefined_name(const char *name);

/* ---- filters ----
 * The same language for --filter, plus the caller's operands (`ops`,
 * ds_filter_operand), string literals, which only those of strings can be
 * compared with (== or !=: function == "main"), and MOBJ(name), the index
 * of a memory object of objs.  A sample passes when the value is
 * non-zero; an unknown result (an unknown operand read, a division by
 * zero) does not pass.  Strings are interned at compile time, so
 * evaluation stays integer-only: callers map each value of a string
 * operand once to ds_filter_string_id and put the ids in ds_access.op.
 * Errors read "filter: expected ')' at column 14".  Filters are ds_expr
 * values: ds_expr_free and ds_expr_uses apply. */
int ds_filter_compile(const char *text, const ds_machine *m, const ds_mobjs *objs,
		      const ds_filter_operand *ops, size_t nops, ds_expr **out, ds_err *err);
bool ds_filter_match(const ds_expr *f, const ds_access *a);
/* The caller's operands the filter reads: bit i for ops[i]. */
uint32_t ds_filter_ops_used(const ds_expr *f);
/* The id of s among the filter's string literals, -1 when none equals it. */
int32_t ds_filter_string_id(const ds_expr *f, const char *s);
/* The i-th string literal the filter compares operand op (an index in
 * ops) with (function == "main": "main"), as its id; -1 past the last.
 * ds_filter_string gives an id's text (not NUL-terminated: *len bytes). */
int32_t ds_filter_compared(const ds_expr *f, size_t op, size_t i);
const char *ds_filter_string(const ds_expr *f, int32_t id, size_t *len);

/* ---- the user's definitions ----
 * One "NAME = EXPR" a line; blank lines and lines starting with # are kept
 * as they are.  Writes replace the file atomically (temporary file, then
 * rename). */

typedef struct ds_mobj_def {
	char *name, *text;
	int line;
} ds_mobj_def;

/* $DSPROF_MOBJ, else ~/.config/dsprof/mobj.  Malloc'd. */
int ds_mobj_user_path(char **out, ds_err *err);
/* The definitions in path; a missing file has none. */
int ds_mobj_file_read(const char *path, ds_mobj_def **defs, size_t *n, ds_err *err);
void ds_mobj_defs_free(ds_mobj_def *defs, size_t n);
/* Define NAME (its expression's syntax checked); an existing NAME needs force. */
int ds_mobj_file_define(const char *path, const char *name, const char *text, bool force,
			ds_err *err);
int ds_mobj_file_undefine(const char *path, const char *name, ds_err *err);

#endif
