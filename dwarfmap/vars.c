/*
 * Variables from DWARF: globals and statics with their addresses, and for
 * every function, lexical block and inlined call that covers code, the
 * parameters and locals with their locations.  Loaded on the first query.
 *
 * One pass over .debug_info (libdwarf) collects
 *  - globals: variables whose location is a static address (DW_OP_addr,
 *    DW_OP_addrx) or an offset in the TLS block, wherever they are declared,
 *    and const tables declared with their value only, placed by their
 *    symbols;
 *  - scopes: each subprogram, lexical block and inlined subroutine with PC
 *    ranges, its variables, and for subprograms the frame base;
 *  - a record of every type, variable and function DIE (name, type,
 *    abstract origin or specification, byte size, array counts).  The walk
 *    meets DIEs in file order, so the records come sorted by offset: after
 *    the pass, names and types behind DW_AT_abstract_origin and
 *    DW_AT_specification, and sizes behind DW_AT_type, resolve by binary
 *    search instead of random access into .debug_info.
 * Location expressions are copied; location lists stay in their sections
 * and are read when a query names the pc.
 *
 * libdwarf never reads the list sections (.debug_ranges, .debug_rnglists,
 * .debug_loc, .debug_loclists): the 20210528 release parses the DWARF 5
 * ones as soon as it loads .debug_info and double-frees on a damaged one.
 * A second handle, opened over them and no .debug_info (libdwarf loads a
 * section only when asked), gives their bytes, which are read here through
 * a bounds-checked reader, as is .debug_addr for DW_OP_addrx and the
 * DW_LLE_*x entries.
 *
 * A scope lookup is a binary search among the scopes' PC intervals (sorted
 * by start, each linked to the interval that encloses it), a walk out to the
 * innermost interval holding the pc, then the scope's DIE parents up to its
 * subprogram.
 *
 * The DWARF may be anything: every libdwarf return is checked, the walk
 * only moves forward through .debug_info, and nesting, chains, expressions
 * and lists are bounded; the first problem becomes the dso's note.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <dwarf.h>
#include <limits.h>
#include <libdwarf.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define NO_SIZE UINT64_MAX
/* Namespaces, classes, functions and blocks nest a few dozen deep. */
#define MAX_DEPTH 128
/* typedef/cv/array chains and abstract-origin/specification chains */
#define MAX_CHAIN 16
/* Entries read from one location or range list. */
#define MAX_LIST 100000
/* GNU location views inside DWARF 5 lists (-gvariable-location-views=incompat5). */
#define LLE_GNU_view_pair 0x09

typedef struct ds_vars ds_vars;

/* ---- what a load keeps ---- */

/* One compilation unit: what its attributes' forms and its lists need. */
typedef struct vcu {
	uint64_t base;     /* DW_AT_low_pc: base address of its lists */
	uint64_t addr_base, loclists_base, rnglists_base;
	bool has_addr_base, has_loclists_base, has_rnglists_base;
	uint16_t version;
	uint8_t addr_size, offset_size;
} vcu;

enum { LS_NONE, LS_EXPR, LS_LIST, LS_CONST };

/* Where a location comes from, kept until a query names the pc. */
typedef struct locsrc {
	uint64_t at;  /* LS_EXPR: offset in the copied expressions; LS_LIST: of the list */
	uint32_t len; /* LS_EXPR: the expression's length */
	uint32_t cu;
	uint8_t kind; /* LS_CONST: DW_AT_const_value, a value without storage */
} locsrc;

typedef struct vscope {
	const char *function;
	uint64_t func;      /* the DIE that names the (inlined) function */
	uint64_t entry;     /* subprograms: entry pc (DW_AT_low_pc), 0 when unknown */
	locsrc frame_base;  /* subprograms */
	uint32_t fname;     /* the function's name while loading (interned), NONE */
	uint32_t parent;    /* the enclosing scope; NONE for a subprogram */
	uint32_t sub;       /* the subprogram whose frame this is */
	uint32_t first, n;  /* its variables in vars */
	uint32_t file;      /* inlined calls: DW_AT_call_file's name (interned), NONE */
	uint32_t line;      /* inlined calls: DW_AT_call_line, 0 unknown (and other scopes) */
} vscope;

/* A variable while loading, and a scope's variable for good. */
typedef struct lvar {
	ds_var v;
	locsrc loc;
	uint64_t origin; /* the DIE that names and types it when it does not */
	uint64_t func;   /* globals: the DIE naming the function of a static, 0 */
	uint32_t name;   /* its name (interned), NONE */
	uint32_t fname;  /* globals: its function's name (interned), NONE */
	uint32_t scope;
} lvar;

/* A PC interval of a scope; `up` is the interval enclosing it. */
typedef struct vival {
	uint64_t lo, hi;
	uint32_t scope, up;
} vival;

/* From `start` to the next segment, addresses belong to global `var`. */
typedef struct gseg {
	uint64_t start;
	uint32_t var;
} gseg;

struct ds_vars {
	ds_dwarf *lists; /* the list sections and .debug_addr, read here */
	const uint8_t *loc, *loclists, *ranges, *rnglists, *addr;
	size_t loc_size, loclists_size, ranges_size, rnglists_size, addr_size;
	bool msb;
	DS_VEC(vcu) cus;
	ds_buf exprs;    /* every location expression, copied */
	ds_hash *names;
	DS_VEC(ds_var) globals; /* static addresses by address, then TLS by offset */
	size_t naddr;
	DS_VEC(gseg) segs;
	DS_VEC(vscope) scopes;
	DS_VEC(lvar) vars;   /* grouped by scope */
	DS_VEC(vival) ivals; /* by start */
};

/* ---- list sections and .debug_addr ---- */

static uint64_t max_addr(const vcu *cu)
{
	return cu->addr_size >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * cu->addr_size)) - 1;
}

/* Entry idx of the CU's .debug_addr table. */
static bool addr_index(const ds_vars *vs, const vcu *cu, uint64_t idx, uint64_t *out)
{
	ds_rd r;

	if (!cu->has_addr_base || idx > vs->addr_size / cu->addr_size)
		return false;
	r = ds_rd_at(vs->addr, vs->addr_size, cu->addr_base, vs->msb);
	ds_rd_skip(&r, idx * cu->addr_size);
	*out = ds_rd_uint(&r, cu->addr_size);
	return !r.bad;
}

/* DW_FORM_loclistx / rnglistx: entry idx of the offsets table at base,
 * which holds offsets from base. */
static bool list_index(const ds_vars *vs, const vcu *cu, const uint8_t *sec, size_t size,
		       uint64_t base, uint64_t idx, uint64_t *out)
{
	ds_rd r;
	uint64_t rel;

	if (idx > size / cu->offset_size)
		return false;
	r = ds_rd_at(sec, size, base, vs->msb);
	ds_rd_skip(&r, idx * cu->offset_size);
	rel = ds_rd_uint(&r, cu->offset_size);
	if (r.bad || rel > UINT64_MAX - base)
		return false;
	*out = base + rel;
	return true;
}

typedef struct lentry {
	uint64_t lo, hi;
	const uint8_t *expr; /* location lists: the entry's expression */
	size_t len;
	bool is_default;     /* DW_LLE_default_location */
} lentry;

/* Reading one range or location list: DWARF 4 .debug_ranges/.debug_loc
 * (address pairs relative to the base, base-selection entries), DWARF 5
 * .debug_rnglists/.debug_loclists (DW_RLE_ and DW_LLE_ entries). */
typedef struct liter {
	ds_rd r;
	const ds_vars *vs;
	const vcu *cu;
	uint64_t base;
	bool v5, loc;
	unsigned n;
} liter;

static liter list_open(const ds_vars *vs, const vcu *cu, const uint8_t *sec, size_t size,
		       uint64_t off, bool loc)
{
	liter it = {ds_rd_at(sec, size, off, vs->msb), vs, cu, cu->base, cu->version >= 5, loc, 0};
	return it;
}

static bool v4_next(liter *it, lentry *e)
{
	for (;;) {
		uint64_t lo = ds_rd_uint(&it->r, it->cu->addr_size);
		uint64_t hi = ds_rd_uint(&it->r, it->cu->addr_size);

		if (it->r.bad || ++it->n > MAX_LIST || (lo == 0 && hi == 0))
			return false;
		if (lo == max_addr(it->cu)) {
			it->base = hi;
			continue;
		}
		e->lo = it->base + lo;
		e->hi = it->base + hi;
		if (it->loc) {
			e->len = ds_rd_uint(&it->r, 2);
			e->expr = it->r.p;
			ds_rd_skip(&it->r, e->len);
		}
		return !it->r.bad;
	}
}

/* DW_LLE_ and DW_RLE_ codes agree up to offset_pair; the location lists
 * insert default_location (5) before the rest, which the range lists
 * number one lower. */
static bool v5_next(liter *it, lentry *e)
{
	ds_rd *r = &it->r;

	for (;;) {
		unsigned code = (unsigned)ds_rd_uint(r, 1);
		uint64_t a, b;

		if (r->bad || ++it->n > MAX_LIST || code == DW_LLE_end_of_list)
			return false;
		if (!it->loc && code > DW_RLE_start_length)
			return false;
		if (!it->loc && code >= DW_RLE_base_address)
			code++;
		switch (code) {
		case DW_LLE_base_addressx:
			if (!addr_index(it->vs, it->cu, ds_rd_uleb(r), &it->base))
				return false;
			continue;
		case DW_LLE_base_address:
			it->base = ds_rd_uint(r, it->cu->addr_size);
			continue;
		case LLE_GNU_view_pair:
			ds_rd_uleb(r);
			ds_rd_uleb(r);
			continue;
		case DW_LLE_startx_endx:
			a = ds_rd_uleb(r);
			b = ds_rd_uleb(r);
			if (!addr_index(it->vs, it->cu, a, &e->lo) ||
			    !addr_index(it->vs, it->cu, b, &e->hi))
				return false;
			break;
		case DW_LLE_startx_length:
			a = ds_rd_uleb(r);
			b = ds_rd_uleb(r);
			if (!addr_index(it->vs, it->cu, a, &e->lo))
				return false;
			e->hi = e->lo + b;
			break;
		case DW_LLE_offset_pair:
			e->lo = it->base + ds_rd_uleb(r);
			e->hi = it->base + ds_rd_uleb(r);
			break;
		case DW_LLE_default_location:
			e->is_default = true;
			break;
		case DW_LLE_start_end:
			e->lo = ds_rd_uint(r, it->cu->addr_size);
			e->hi = ds_rd_uint(r, it->cu->addr_size);
			break;
		case DW_LLE_start_length:
			e->lo = ds_rd_uint(r, it->cu->addr_size);
			e->hi = e->lo + ds_rd_uleb(r);
			break;
		default:
			return false;
		}
		if (it->loc) {
			e->len = ds_rd_uleb(r);
			e->expr = r->p;
			ds_rd_skip(r, e->len);
		}
		return !r->bad;
	}
}

/* The next entry of the list; false at its end or where it is malformed. */
static bool list_next(liter *it, lentry *e)
{
	memset(e, 0, sizeof *e);
	return it->v5 ? v5_next(it, e) : v4_next(it, e);
}

/* ---- location expressions ---- */

typedef struct dwop {
	uint8_t code;
	uint64_t a, b;       /* operands; signed ones sign-extended */
	const uint8_t *blk;  /* entry_value, implicit_value: the block */
	uint64_t blen;
} dwop;

/* Operations without operands: DW_OP_deref (0x06) to DW_OP_call_frame_cfa
 * (0x9c) but for the reserved 0x07 and those with operands, which
 * read_op decodes first. */
static bool no_operands(uint8_t code)
{
	return (code >= DW_OP_deref && code <= DW_OP_call_frame_cfa && code != 0x07) ||
	       code == DW_OP_stack_value || code == DW_OP_GNU_push_tls_address ||
	       code == DW_OP_GNU_uninit;
}

/* Decode one operation and its operands; false for an unknown one or a
 * truncated expression. */
static bool read_op(ds_rd *r, const vcu *cu, dwop *o)
{
	unsigned ref = cu->version < 3 ? cu->addr_size : cu->offset_size;

	memset(o, 0, sizeof *o);
	o->code = (uint8_t)ds_rd_uint(r, 1);
	switch (o->code) {
	case DW_OP_addr:
		o->a = ds_rd_uint(r, cu->addr_size);
		break;
	case DW_OP_const1u: case DW_OP_pick: case DW_OP_deref_size: case DW_OP_xderef_size:
		o->a = ds_rd_uint(r, 1);
		break;
	case DW_OP_const1s:
		o->a = (uint64_t)(int8_t)ds_rd_uint(r, 1);
		break;
	case DW_OP_const2u: case DW_OP_call2:
		o->a = ds_rd_uint(r, 2);
		break;
	case DW_OP_const2s: case DW_OP_skip: case DW_OP_bra:
		o->a = (uint64_t)(int16_t)ds_rd_uint(r, 2);
		break;
	case DW_OP_const4u: case DW_OP_call4: case DW_OP_GNU_parameter_ref:
		o->a = ds_rd_uint(r, 4);
		break;
	case DW_OP_const4s:
		o->a = (uint64_t)(int32_t)ds_rd_uint(r, 4);
		break;
	case DW_OP_const8u: case DW_OP_const8s:
		o->a = ds_rd_uint(r, 8);
		break;
	case DW_OP_constu: case DW_OP_plus_uconst: case DW_OP_regx: case DW_OP_piece:
	case DW_OP_addrx: case DW_OP_constx: case DW_OP_convert: case DW_OP_reinterpret:
	case DW_OP_GNU_addr_index: case DW_OP_GNU_const_index: case DW_OP_GNU_convert:
	case DW_OP_GNU_reinterpret:
		o->a = ds_rd_uleb(r);
		break;
	case DW_OP_consts: case DW_OP_fbreg:
		o->a = (uint64_t)ds_rd_sleb(r);
		break;
	case DW_OP_bregx:
		o->a = ds_rd_uleb(r);
		o->b = (uint64_t)ds_rd_sleb(r);
		break;
	case DW_OP_bit_piece: case DW_OP_regval_type: case DW_OP_GNU_regval_type:
		o->a = ds_rd_uleb(r);
		o->b = ds_rd_uleb(r);
		break;
	case DW_OP_call_ref: case DW_OP_GNU_variable_value:
		o->a = ds_rd_uint(r, ref);
		break;
	case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer:
		o->a = ds_rd_uint(r, ref);
		o->b = (uint64_t)ds_rd_sleb(r);
		break;
	case DW_OP_deref_type: case DW_OP_xderef_type: case DW_OP_GNU_deref_type:
		o->a = ds_rd_uint(r, 1);
		o->b = ds_rd_uleb(r);
		break;
	case DW_OP_const_type: case DW_OP_GNU_const_type:
		o->a = ds_rd_uleb(r);
		o->blen = ds_rd_uint(r, 1);
		o->blk = r->p;
		ds_rd_skip(r, o->blen);
		break;
	case DW_OP_implicit_value: case DW_OP_entry_value: case DW_OP_GNU_entry_value:
		o->blen = ds_rd_uleb(r);
		o->blk = r->p;
		ds_rd_skip(r, o->blen);
		break;
	default:
		if (o->code >= DW_OP_breg0 && o->code <= DW_OP_breg31)
			o->a = (uint64_t)ds_rd_sleb(r);
		else if (!no_operands(o->code))
			return false;
		break;
	}
	return !r->bad;
}

/* What a location is evaluated against. */
typedef struct ectx {
	ds_dso *d;
	const ds_vars *vs;
	const vcu *cu;
	uint64_t pc;
	bool at_pc;          /* false: no pc (statics), nothing pc-dependent */
	const vscope *sub;   /* the frame's subprogram: frame base, entry pc */
} ectx;

static ds_loc mkloc(enum ds_loc_kind kind, int reg, int64_t offset, uint64_t addr)
{
	return (ds_loc){kind, reg, offset, addr};
}

static bool reg_number(uint64_t r, int *out)
{
	if (r > INT_MAX)
		return false;
	*out = (int)r;
	return true;
}

/* The register a lone DW_OP_regN / DW_OP_regx names. */
static bool op_register(const dwop *o, int *reg)
{
	if (o->code >= DW_OP_reg0 && o->code <= DW_OP_reg31) {
		*reg = o->code - DW_OP_reg0;
		return true;
	}
	return o->code == DW_OP_regx && reg_number(o->a, reg);
}

static ds_loc eval_expr(const ectx *c, const uint8_t *p, size_t len);
static ds_loc loc_at(const ectx *c, const locsrc *ls);

static ds_loc cfa_loc(const ectx *c, int64_t off)
{
	ds_cfa cfa;

	if (!c->at_pc || !ds_dso_cfa_at(c->d, c->pc, &cfa))
		return mkloc(DS_LOC_COMPLEX, 0, 0, 0);
	return mkloc(DS_LOC_MEM, cfa.cfa_reg, cfa.cfa_offset + off, 0);
}

/* DW_OP_fbreg off: the subprogram's frame base, a register value plus a
 * constant, then off.  A frame base that is itself DW_OP_fbreg would loop:
 * it is evaluated without a subprogram. */
static ds_loc frame_loc(const ectx *c, int64_t off)
{
	ectx fc = *c;
	ds_loc fb;

	if (!c->sub || !c->at_pc)
		return mkloc(DS_LOC_COMPLEX, 0, 0, 0);
	fc.sub = NULL;
	fc.cu = &c->vs->cus.v[c->sub->frame_base.cu];
	fb = loc_at(&fc, &c->sub->frame_base);
	if (fb.kind == DS_LOC_MEM) /* DW_OP_bregN k, DW_OP_call_frame_cfa: the address */
		return mkloc(DS_LOC_MEM, fb.reg, fb.offset + off, 0);
	if (fb.kind == DS_LOC_REG) /* DW_OP_regN: the register's value */
		return mkloc(DS_LOC_MEM, fb.reg, off, 0);
	return mkloc(fb.kind == DS_LOC_NONE ? DS_LOC_NONE : DS_LOC_COMPLEX, 0, 0, 0);
}

/* A location of one operation. */
static ds_loc single_loc(const ectx *c, const dwop *o)
{
	int reg;
	uint64_t a;

	if (op_register(o, &reg))
		return mkloc(DS_LOC_REG, reg, 0, 0);
	if (o->code >= DW_OP_breg0 && o->code <= DW_OP_breg31)
		return mkloc(DS_LOC_MEM, o->code - DW_OP_breg0, (int64_t)o->a, 0);
	switch (o->code) {
	case DW_OP_bregx:
		if (reg_number(o->a, &reg))
			return mkloc(DS_LOC_MEM, reg, (int64_t)o->b, 0);
		break;
	case DW_OP_fbreg:
		return frame_loc(c, (int64_t)o->a);
	case DW_OP_call_frame_cfa:
		return cfa_loc(c, 0);
	case DW_OP_addr:
		return mkloc(DS_LOC_ADDR, 0, 0, o->a);
	case DW_OP_addrx: case DW_OP_GNU_addr_index:
		if (addr_index(c->vs, c->cu, o->a, &a))
			return mkloc(DS_LOC_ADDR, 0, 0, a);
		break;
	case DW_OP_implicit_value: case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer:
		return mkloc(DS_LOC_IMPLICIT, 0, 0, 0);
	}
	return mkloc(DS_LOC_COMPLEX, 0, 0, 0);
}

/* The value a constant-pushing operation pushes. */
static bool const_value(const ectx *c, const dwop *o, uint64_t *v)
{
	if (o->code >= DW_OP_lit0 && o->code <= DW_OP_lit31) {
		*v = o->code - DW_OP_lit0;
		return true;
	}
	switch (o->code) {
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
	case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
	case DW_OP_constu: case DW_OP_consts: case DW_OP_addr:
		*v = o->a;
		return true;
	case DW_OP_constx: case DW_OP_GNU_const_index:
		return addr_index(c->vs, c->cu, o->a, v);
	}
	return false;
}

/* An expression using the value a register had on entry to the function
 * (DW_OP_entry_value): dsprof cannot know it, except at the entry itself,
 * where DW_OP_entry_value(DW_OP_regN) is register N. */
static ds_loc entry_value_loc(const ectx *c, const dwop *first, size_t n, uint8_t last)
{
	ds_rd r = ds_rd_at(first->blk, first->blen, 0, c->vs->msb);
	dwop inner;
	int reg;

	if (first->code != DW_OP_entry_value && first->code != DW_OP_GNU_entry_value)
		return mkloc(DS_LOC_NONE, 0, 0, 0);
	if (!c->at_pc || !c->sub || !c->sub->entry || c->pc != c->sub->entry ||
	    !read_op(&r, c->cu, &inner) || !ds_rd_done(&r) || !op_register(&inner, &reg))
		return mkloc(DS_LOC_NONE, 0, 0, 0);
	if (n == 1) /* the entry value is an address */
		return mkloc(DS_LOC_MEM, reg, 0, 0);
	if (n == 2 && last == DW_OP_stack_value)
		return mkloc(DS_LOC_REG, reg, 0, 0);
	return mkloc(DS_LOC_NONE, 0, 0, 0);
}

static ds_loc eval_expr(const ectx *c, const uint8_t *p, size_t len)
{
	ds_rd r = ds_rd_at(p, len, 0, c->vs->msb);
	dwop o, first = {0}, second = {0};
	size_t n = 0, npieces = 0;
	bool entry = false;
	uint8_t last = 0;
	uint64_t v;

	while (!ds_rd_done(&r)) {
		if (!read_op(&r, c->cu, &o))
			return mkloc(DS_LOC_COMPLEX, 0, 0, 0);
		/* the value is not yet initialized there: the location stands */
		if (o.code == DW_OP_GNU_uninit)
			continue;
		if (n == 0)
			first = o;
		else if (n == 1)
			second = o;
		last = o.code;
		entry |= o.code == DW_OP_entry_value || o.code == DW_OP_GNU_entry_value;
		npieces += o.code == DW_OP_piece || o.code == DW_OP_bit_piece;
		n++;
	}
	/* an empty expression, or pieces none of which has a location */
	if (n == npieces)
		return mkloc(DS_LOC_NONE, 0, 0, 0);
	if (npieces) /* an object in parts, some perhaps available */
		return mkloc(DS_LOC_COMPLEX, 0, 0, 0);
	if (entry)
		return entry_value_loc(c, &first, n, last);
	if (n == 1)
		return single_loc(c, &first);
	if (n == 2 && (second.code == DW_OP_form_tls_address ||
		       second.code == DW_OP_GNU_push_tls_address) && const_value(c, &first, &v))
		return mkloc(DS_LOC_TLS, 0, (int64_t)v, 0);
	if (last == DW_OP_stack_value)
		return mkloc(DS_LOC_IMPLICIT, 0, 0, 0);
	return mkloc(DS_LOC_COMPLEX, 0, 0, 0);
}

/* The entry of the location list at off that covers the pc, else its
 * default location, else nothing: the variable is not available there. */
static ds_loc list_loc(const ectx *c, uint64_t off)
{
	bool v5 = c->cu->version >= 5;
	liter it = list_open(c->vs, c->cu, v5 ? c->vs->loclists : c->vs->loc,
			     v5 ? c->vs->loclists_size : c->vs->loc_size, off, true);
	lentry e, def = {0};

	while (list_next(&it, &e)) {
		if (e.is_default)
			def = e;
		else if (c->pc >= e.lo && c->pc < e.hi)
			return eval_expr(c, e.expr, e.len);
	}
	if (def.is_default)
		return eval_expr(c, def.expr, def.len);
	return mkloc(DS_LOC_NONE, 0, 0, 0);
}

static ds_loc loc_at(const ectx *c, const locsrc *ls)
{
	switch (ls->kind) {
	case LS_EXPR:
		if (ls->len == 0) /* optimized out */
			break;
		return eval_expr(c, (const uint8_t *)c->vs->exprs.p + ls->at, ls->len);
	case LS_LIST:
		if (c->at_pc)
			return list_loc(c, ls->at);
		return mkloc(DS_LOC_COMPLEX, 0, 0, 0);
	case LS_CONST:
		return mkloc(DS_LOC_IMPLICIT, 0, 0, 0);
	}
	return mkloc(DS_LOC_NONE, 0, 0, 0);
}

/* ---- loading: DIE records ---- */

/* What the pass keeps of a type, variable or function DIE. */
typedef struct dent {
	uint64_t off;
	uint64_t type;   /* DW_AT_type, 0 when none */
	uint64_t origin; /* DW_AT_abstract_origin or DW_AT_specification */
	uint64_t size;   /* DW_AT_byte_size, NO_SIZE when absent */
	uint64_t count;  /* arrays: elements in all dimensions, NO_SIZE when unknown */
	uint32_t name;   /* variables and functions: interned, NONE */
	uint16_t tag;
	uint8_t addr_size;
} dent;

typedef struct loader {
	ds_dso *d;
	ds_vars *vs;
	Dwarf_Debug dbg;
	uint32_t cu;       /* the CU being read, in vs->cus */
	ds_unit_files unit; /* its file names */
	uint64_t last_off; /* the last DIE met: the walk only moves forward */
	DS_VEC(dent) dies; /* by offset */
	DS_VEC(lvar) globals;
	DS_VEC(lvar) vars;
	DS_VEC(lvar) consts; /* declared with a value and no location, outside functions */
	size_t array;      /* the array DIE whose dimensions are being read, or SIZE_MAX */
	size_t array_dims;
	bool names_only;   /* reading a DIE out of the walk: its name, type and origin */
} loader;

/* The attributes of one DIE that matter here. */
typedef struct dattrs {
	const char *name; /* libdwarf's, valid while the handle is open */
	uint64_t type, origin;
	uint64_t low, high, ranges;
	uint64_t byte_size, count, upper, lower;
	uint64_t addr_base, loclists_base, rnglists_base;
	locsrc loc, frame_base;
	Dwarf_Half ranges_form;
	bool has_low, has_high, high_is_offset, has_ranges;
	bool has_size, has_count, has_upper, has_lower;
	bool has_addr_base, has_loclists_base, has_rnglists_base;
	bool declaration, has_const;
	uint64_t file, line;  /* DW_AT_call_file, DW_AT_call_line; 0 none */
} dattrs;

static void dwarf_problem(loader *l, Dwarf_Error *e, const char *what)
{
	ds_dso_set_note(l->d, "DWARF in '%s': %s: %s", l->d->dwarf->path, what,
			*e ? dwarf_errmsg(*e) : "unknown error");
	if (*e)
		dwarf_dealloc_error(l->dbg, *e);
	*e = NULL;
}

static void problem(loader *l, const char *what)
{
	ds_dso_set_note(l->d, "DWARF in '%s': %s", l->d->dwarf->path, what);
}

static const vcu *cur_cu(const loader *l)
{
	return &l->vs->cus.v[l->cu];
}

static uint32_t intern(loader *l, const char *s)
{
	size_t i;

	if (!s)
		return NONE;
	i = ds_hash_intern(l->vs->names, s, strlen(s) + 1, NULL);
	return i < NONE ? (uint32_t)i : NONE;
}

/* Constant forms only: a bound or size given by an expression or a
 * reference (variable-length arrays) is unknown here. */
static bool attr_const(loader *l, Dwarf_Attribute at, Dwarf_Half form, uint64_t *out)
{
	Dwarf_Error e = NULL;
	Dwarf_Unsigned u = 0;
	Dwarf_Signed s = 0;
	int rc;

	switch (form) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
	case DW_FORM_udata:
		rc = dwarf_formudata(at, &u, &e);
		*out = u;
		break;
	case DW_FORM_sdata: case DW_FORM_implicit_const:
		rc = dwarf_formsdata(at, &s, &e);
		*out = (uint64_t)s;
		break;
	default:
		return false;
	}
	if (rc == DW_DLV_ERROR)
		dwarf_problem(l, &e, "bad constant");
	return rc == DW_DLV_OK;
}

/* A DIE reference as an offset in .debug_info.  Type units named by
 * signature and DIEs of a supplementary file (dwz's .gnu_debugaltlink)
 * are not followed: their offsets are not in this .debug_info. */
static bool attr_ref(loader *l, Dwarf_Attribute at, Dwarf_Half form, uint64_t *out)
{
	Dwarf_Error e = NULL;
	Dwarf_Off off = 0;
	int rc;

	if (form == DW_FORM_ref_sig8 || form == DW_FORM_ref_sup4 || form == DW_FORM_ref_sup8 ||
	    form == DW_FORM_GNU_ref_alt)
		return false;
	rc = dwarf_global_formref(at, &off, &e);
	if (rc == DW_DLV_ERROR)
		dwarf_problem(l, &e, "bad DIE reference");
	*out = off;
	return rc == DW_DLV_OK;
}

/* An offset into another section, or an index into its offsets table. */
static bool attr_offset(loader *l, Dwarf_Attribute at, Dwarf_Half form, uint64_t *out)
{
	Dwarf_Error e = NULL;
	Dwarf_Unsigned u = 0;
	Dwarf_Off off = 0;
	int rc;

	switch (form) {
	case DW_FORM_sec_offset:
		rc = dwarf_global_formref(at, &off, &e);
		u = off;
		break;
	case DW_FORM_data4: case DW_FORM_data8: case DW_FORM_loclistx: case DW_FORM_rnglistx:
		rc = dwarf_formudata(at, &u, &e);
		break;
	default:
		return false;
	}
	if (rc == DW_DLV_ERROR)
		dwarf_problem(l, &e, "bad section offset");
	*out = u;
	return rc == DW_DLV_OK;
}

static bool attr_addr(loader *l, Dwarf_Attribute at, uint64_t *out)
{
	Dwarf_Error e = NULL;
	Dwarf_Addr a = 0;
	int rc = dwarf_formaddr(at, &a, &e);

	if (rc == DW_DLV_ERROR)
		dwarf_problem(l, &e, "bad address");
	*out = a;
	return rc == DW_DLV_OK;
}

static void keep_expr(loader *l, const void *p, uint64_t len, locsrc *ls)
{
	if (len > UINT32_MAX) {
		problem(l, "location expression too long");
		return;
	}
	ls->kind = LS_EXPR;
	ls->at = l->vs->exprs.len;
	ls->len = (uint32_t)len;
	ds_buf_append(&l->vs->exprs, p, len);
}

/* DW_AT_location, DW_AT_frame_base: an expression, or a location list by
 * offset (DW_FORM_sec_offset; data4/data8 before DWARF 4) or by index. */
static void attr_loc(loader *l, Dwarf_Attribute at, Dwarf_Half form, locsrc *ls)
{
	const vcu *cu = cur_cu(l);
	const ds_vars *vs = l->vs;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned len = 0;
	Dwarf_Ptr p = NULL;
	Dwarf_Block *blk = NULL;
	uint64_t v;

	ls->cu = l->cu;
	switch (form) {
	case DW_FORM_exprloc:
		if (dwarf_formexprloc(at, &len, &p, &e) == DW_DLV_OK)
			keep_expr(l, p, len, ls);
		else
			dwarf_problem(l, &e, "bad location expression");
		return;
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: case DW_FORM_block:
		if (dwarf_formblock(at, &blk, &e) == DW_DLV_OK) {
			keep_expr(l, blk->bl_data, blk->bl_len, ls);
			dwarf_dealloc(l->dbg, blk, DW_DLA_BLOCK);
		} else {
			dwarf_problem(l, &e, "bad location expression");
		}
		return;
	case DW_FORM_data4: case DW_FORM_data8:
		if (cu->version >= 4)
			return; /* a constant, not a list */
		/* fall through */
	case DW_FORM_sec_offset:
		if (attr_offset(l, at, form, &ls->at))
			ls->kind = LS_LIST;
		return;
	case DW_FORM_loclistx:
		if (!attr_offset(l, at, form, &v))
			return;
		if (cu->has_loclists_base && list_index(vs, cu, vs->loclists, vs->loclists_size,
							cu->loclists_base, v, &ls->at))
			ls->kind = LS_LIST;
		else
			problem(l, "location list index out of range");
		return;
	}
}

static void attr_high(loader *l, Dwarf_Attribute at, Dwarf_Half form, dattrs *a)
{
	if (form == DW_FORM_addr || dwarf_addr_form_is_indexed(form)) {
		a->has_high = attr_addr(l, at, &a->high);
	} else {
		a->has_high = attr_const(l, at, form, &a->high);
		a->high_is_offset = true;
	}
}

static void read_attr(loader *l, Dwarf_Attribute at, dattrs *a)
{
	Dwarf_Half num = 0, form = 0;
	Dwarf_Error e = NULL;
	char *s = NULL;
	Dwarf_Bool flag = 0;

	if (dwarf_whatattr(at, &num, &e) != DW_DLV_OK || dwarf_whatform(at, &form, &e) != DW_DLV_OK) {
		dwarf_problem(l, &e, "bad attribute");
		return;
	}
	if (l->names_only && num != DW_AT_name && num != DW_AT_type &&
	    num != DW_AT_abstract_origin && num != DW_AT_specification)
		return;
	switch (num) {
	case DW_AT_name:
		if (dwarf_formstring(at, &s, &e) == DW_DLV_OK)
			a->name = s;
		else
			dwarf_problem(l, &e, "bad name");
		break;
	case DW_AT_type:
		attr_ref(l, at, form, &a->type);
		break;
	case DW_AT_abstract_origin: case DW_AT_specification:
		attr_ref(l, at, form, &a->origin);
		break;
	case DW_AT_declaration:
		if (dwarf_formflag(at, &flag, &e) == DW_DLV_OK)
			a->declaration = flag != 0;
		else
			dwarf_problem(l, &e, "bad flag");
		break;
	case DW_AT_const_value:
		a->has_const = true;
		break;
	case DW_AT_location:
		attr_loc(l, at, form, &a->loc);
		break;
	case DW_AT_frame_base:
		attr_loc(l, at, form, &a->frame_base);
		break;
	case DW_AT_low_pc:
		a->has_low = attr_addr(l, at, &a->low);
		break;
	case DW_AT_high_pc:
		attr_high(l, at, form, a);
		break;
	case DW_AT_ranges:
		a->has_ranges = attr_offset(l, at, form, &a->ranges);
		a->ranges_form = form;
		break;
	case DW_AT_byte_size:
		a->has_size = attr_const(l, at, form, &a->byte_size);
		break;
	case DW_AT_call_file:
		if (!attr_const(l, at, form, &a->file) || a->file > UINT32_MAX)
			a->file = 0;
		break;
	case DW_AT_call_line:
		if (!attr_const(l, at, form, &a->line) || a->line > UINT32_MAX)
			a->line = 0;
		break;
	case DW_AT_count:
		a->has_count = attr_const(l, at, form, &a->count);
		break;
	case DW_AT_upper_bound:
		a->has_upper = attr_const(l, at, form, &a->upper);
		break;
	case DW_AT_lower_bound:
		a->has_lower = attr_const(l, at, form, &a->lower);
		break;
	case DW_AT_addr_base: case DW_AT_GNU_addr_base:
		a->has_addr_base = attr_offset(l, at, form, &a->addr_base);
		break;
	case DW_AT_loclists_base:
		a->has_loclists_base = attr_offset(l, at, form, &a->loclists_base);
		break;
	case DW_AT_rnglists_base:
		a->has_rnglists_base = attr_offset(l, at, form, &a->rnglists_base);
		break;
	}
}

static bool read_attrs(loader *l, Dwarf_Die die, dattrs *a)
{
	Dwarf_Attribute *list = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error e = NULL;
	int rc = dwarf_attrlist(die, &list, &n, &e);

	memset(a, 0, sizeof *a);
	if (rc == DW_DLV_ERROR) {
		dwarf_problem(l, &e, "cannot read a DIE's attributes");
		return false;
	}
	if (rc == DW_DLV_NO_ENTRY)
		return true;
	for (Dwarf_Signed i = 0; i < n; i++) {
		read_attr(l, list[i], a);
		dwarf_dealloc_attribute(list[i]);
	}
	dwarf_dealloc(l->dbg, list, DW_DLA_LIST);
	if (a->has_high && a->high_is_offset) {
		a->has_high = a->has_low;
		a->high += a->low;
	}
	return true;
}

static size_t record(loader *l, uint64_t off, Dwarf_Half tag, const dattrs *a, bool named)
{
	dent e = {
		.off = off,
		.type = a->type,
		.origin = a->origin,
		.size = a->has_size ? a->byte_size : NO_SIZE,
		.count = NO_SIZE,
		.name = named ? intern(l, a->name) : NONE,
		.tag = tag,
		.addr_size = cur_cu(l)->addr_size,
	};
	ds_vec_push(&l->dies, e);
	return l->dies.n - 1;
}

/* ---- loading: scopes ---- */

static bool in_image(const ds_dso *d, uint64_t addr)
{
	uint64_t off;
	return d->segs.n == 0 || ds_dso_vaddr_to_offset(d, addr, &off);
}

/* Code the linker discarded keeps address 0 (or a tombstone) in the
 * DWARF; its ranges would shadow real code. */
static bool add_range(loader *l, uint32_t scope, uint64_t lo, uint64_t hi)
{
	if (lo >= hi || !in_image(l->d, lo))
		return false;
	ds_vec_push(&l->vs->ivals, ((vival){lo, hi, scope, NONE}));
	return true;
}

static bool add_range_list(loader *l, uint32_t scope, const dattrs *a)
{
	const vcu *cu = cur_cu(l);
	ds_vars *vs = l->vs;
	bool v5 = cu->version >= 5;
	const uint8_t *sec = v5 ? vs->rnglists : vs->ranges;
	size_t size = v5 ? vs->rnglists_size : vs->ranges_size;
	uint64_t off = a->ranges;
	bool any = false;
	liter it;
	lentry e;

	if (a->ranges_form == DW_FORM_rnglistx &&
	    !(cu->has_rnglists_base &&
	      list_index(vs, cu, sec, size, cu->rnglists_base, a->ranges, &off))) {
		problem(l, "range list index out of range");
		return false;
	}
	it = list_open(vs, cu, sec, size, off, false);
	while (list_next(&it, &e))
		any = add_range(l, scope, e.lo, e.hi) || any;
	if (it.r.bad)
		problem(l, "malformed range list");
	return any;
}

/* A scope for a DIE with PC ranges, or NONE when it covers no code. */
static uint32_t open_scope(loader *l, const dattrs *a, uint32_t parent, uint64_t func)
{
	ds_vars *vs = l->vs;
	uint32_t s = (uint32_t)vs->scopes.n;
	vscope sc = {.func = func, .fname = NONE, .parent = parent,
		     .sub = parent == NONE ? s : vs->scopes.v[parent].sub};
	bool any = false;

	if (vs->scopes.n >= NONE)
		return NONE;
	if (a->has_low && a->has_high)
		any = add_range(l, s, a->low, a->high);
	if (a->has_ranges)
		any = add_range_list(l, s, a) || any;
	if (!any)
		return NONE;
	if (parent == NONE) {
		sc.entry = a->has_low ? a->low : 0;
		sc.frame_base = a->frame_base;
		sc.frame_base.cu = l->cu;
	}
	sc.file = a->file ? intern(l, ds_unit_file(&l->unit, a->file)) : NONE;
	sc.line = (uint32_t)a->line;
	ds_vec_push(&vs->scopes, sc);
	return s;
}

/* ---- loading: the walk ---- */

static void walk_children(loader *l, Dwarf_Die die, int depth, uint32_t scope, uint64_t func);

/* A variable's location when it is static: an address in the image, or
 * an offset in the TLS block.  Variables of discarded or non-allocated
 * sections (GNU link warnings, say) sit at address 0, in no image's data. */
static bool static_loc(loader *l, const locsrc *ls, ds_loc *out)
{
	ectx c = {.d = l->d, .vs = l->vs, .cu = &l->vs->cus.v[ls->cu]};

	if (ls->kind != LS_EXPR)
		return false;
	*out = loc_at(&c, ls);
	return out->kind == DS_LOC_TLS ||
	       (out->kind == DS_LOC_ADDR && out->addr && in_image(l->d, out->addr));
}

static void visit_var(loader *l, Dwarf_Die die, uint64_t off, Dwarf_Half tag, uint32_t scope,
		      uint64_t func)
{
	dattrs a;
	lvar v = {0};
	bool by_symbol;

	if (!read_attrs(l, die, &a))
		return;
	record(l, off, tag, &a, true);
	/* outside functions, a value and no location: a table its symbol may
	 * place (place_consts) */
	by_symbol = a.has_const && a.loc.kind == LS_NONE && scope == NONE && !func;
	if (a.declaration && !by_symbol)
		return; /* the definition, elsewhere, has the location */
	v.v.die = off;
	v.v.type_die = a.type;
	v.v.param = tag == DW_TAG_formal_parameter;
	v.loc = a.loc;
	v.loc.cu = l->cu;
	if (by_symbol) {
		v.origin = a.origin;
		v.name = intern(l, a.name);
		v.fname = NONE;
		v.scope = NONE;
		ds_vec_push(&l->consts, v);
		return;
	}
	if (a.has_const && v.loc.kind == LS_NONE)
		v.loc.kind = LS_CONST;
	v.origin = a.origin;
	v.func = func;
	v.name = intern(l, a.name);
	v.fname = NONE;
	v.scope = scope;
	v.v.global = static_loc(l, &v.loc, &v.v.loc);
	if (v.v.global)
		ds_vec_push(&l->globals, v);
	if (scope != NONE)
		ds_vec_push(&l->vars, v);
}

static void visit_function(loader *l, Dwarf_Die die, uint64_t off, int depth)
{
	dattrs a;

	if (!read_attrs(l, die, &a))
		return;
	record(l, off, DW_TAG_subprogram, &a, true);
	walk_children(l, die, depth, open_scope(l, &a, NONE, off), off);
}

/* Lexical blocks and inlined subroutines: scopes inside a function that
 * covers code; an inlined subroutine's function is its abstract origin. */
static void visit_block(loader *l, Dwarf_Die die, Dwarf_Half tag, int depth, uint32_t scope,
			uint64_t func)
{
	dattrs a;

	if (!read_attrs(l, die, &a))
		return;
	if (tag == DW_TAG_inlined_subroutine)
		func = a.origin;
	if (scope != NONE) {
		uint32_t s = open_scope(l, &a, scope, func);
		/* A lexical block without ranges (its code merged or gone) leaves
		 * its variables to the enclosing scope, as gdb does; an inlined
		 * call without code has no scope for its callee's. */
		if (s != NONE || tag == DW_TAG_inlined_subroutine)
			scope = s;
	}
	walk_children(l, die, depth, scope, func);
}

static void visit_type(loader *l, Dwarf_Die die, uint64_t off, Dwarf_Half tag, int depth)
{
	dattrs a;
	size_t i, saved = l->array, saved_dims = l->array_dims;

	if (!read_attrs(l, die, &a))
		return;
	i = record(l, off, tag, &a, false);
	switch (tag) {
	case DW_TAG_array_type:
		l->dies.v[i].count = 1;
		l->array = i;
		l->array_dims = 0;
		walk_children(l, die, depth, NONE, 0);
		if (l->array_dims == 0)
			l->dies.v[i].count = NO_SIZE;
		l->array = saved;
		l->array_dims = saved_dims;
		break;
	case DW_TAG_structure_type: case DW_TAG_union_type: case DW_TAG_class_type:
		/* nested types, member functions, static members */
		l->array = SIZE_MAX;
		walk_children(l, die, depth, NONE, 0);
		l->array = saved;
		break;
	}
}

/* One dimension of the array being read: DW_AT_count, or the bounds
 * (lower defaults to 0, C's; an upper bound of -1 is an empty array). */
static void visit_subrange(loader *l, Dwarf_Die die)
{
	dattrs a;
	uint64_t n = NO_SIZE, *count;

	if (l->array == SIZE_MAX || !read_attrs(l, die, &a))
		return;
	count = &l->dies.v[l->array].count;
	l->array_dims++;
	if (a.has_count)
		n = a.count;
	else if (a.has_upper)
		n = a.upper + 1 < a.lower ? 0 : a.upper + 1 - a.lower;
	if (n == NO_SIZE || *count == NO_SIZE || (n && *count > NO_SIZE / n - 1))
		*count = NO_SIZE;
	else
		*count *= n;
}

static bool is_type_tag(Dwarf_Half tag)
{
	switch (tag) {
	case DW_TAG_base_type: case DW_TAG_pointer_type: case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: case DW_TAG_ptr_to_member_type: case DW_TAG_typedef:
	case DW_TAG_const_type: case DW_TAG_volatile_type: case DW_TAG_restrict_type:
	case DW_TAG_atomic_type: case DW_TAG_immutable_type: case DW_TAG_packed_type:
	case DW_TAG_shared_type: case DW_TAG_enumeration_type: case DW_TAG_array_type:
	case DW_TAG_structure_type: case DW_TAG_union_type: case DW_TAG_class_type:
	case DW_TAG_unspecified_type: case DW_TAG_subroutine_type:
		return true;
	}
	return false;
}

/* One DIE; false when the walk must stop (it went backwards). */
static bool visit(loader *l, Dwarf_Die die, int depth, uint32_t scope, uint64_t func)
{
	Dwarf_Half tag = 0;
	Dwarf_Off off = 0;
	Dwarf_Error e = NULL;

	if (dwarf_tag(die, &tag, &e) != DW_DLV_OK || dwarf_dieoffset(die, &off, &e) != DW_DLV_OK) {
		dwarf_problem(l, &e, "cannot read a DIE");
		return false;
	}
	if (off <= l->last_off) {
		problem(l, "DIE tree points backwards");
		return false;
	}
	l->last_off = off;
	if (is_type_tag(tag)) {
		visit_type(l, die, off, tag, depth);
		return true;
	}
	switch (tag) {
	case DW_TAG_subprogram:
		visit_function(l, die, off, depth);
		break;
	case DW_TAG_lexical_block: case DW_TAG_inlined_subroutine:
		visit_block(l, die, tag, depth, scope, func);
		break;
	case DW_TAG_variable: case DW_TAG_formal_parameter:
		visit_var(l, die, off, tag, scope, func);
		break;
	case DW_TAG_subrange_type:
		visit_subrange(l, die);
		break;
	case DW_TAG_namespace: case DW_TAG_module:
		walk_children(l, die, depth, NONE, 0);
		break;
	}
	return true;
}

static void walk_children(loader *l, Dwarf_Die die, int depth, uint32_t scope, uint64_t func)
{
	Dwarf_Die child = NULL;
	Dwarf_Error e = NULL;
	int rc;

	if (depth >= MAX_DEPTH) {
		problem(l, "DIEs nested too deeply");
		return;
	}
	rc = dwarf_child(die, &child, &e);
	while (rc == DW_DLV_OK) {
		Dwarf_Die next = NULL;

		rc = DW_DLV_NO_ENTRY;
		if (visit(l, child, depth + 1, scope, func))
			rc = dwarf_siblingof_b(l->dbg, child, true, &next, &e);
		dwarf_dealloc_die(child);
		child = next;
	}
	if (rc == DW_DLV_ERROR)
		dwarf_problem(l, &e, "cannot read a DIE");
}

/* A CU's context from its DIE; false when its header is unusable. */
static bool open_cu(loader *l, Dwarf_Die cu, Dwarf_Half version, Dwarf_Half asize,
		    Dwarf_Half osize)
{
	vcu c = {.version = version, .addr_size = (uint8_t)asize, .offset_size = (uint8_t)osize};
	dattrs a;

	if ((asize != 4 && asize != 8) || (osize != 4 && osize != 8) || l->vs->cus.n >= NONE) {
		problem(l, "unsupported compilation unit header");
		return false;
	}
	/* The bases first: reading DW_AT_location needs them. */
	l->cu = (uint32_t)l->vs->cus.n;
	ds_vec_push(&l->vs->cus, c);
	if (!read_attrs(l, cu, &a))
		return false;
	l->vs->cus.v[l->cu].base = a.has_low ? a.low : 0;
	l->vs->cus.v[l->cu].addr_base = a.addr_base;
	l->vs->cus.v[l->cu].has_addr_base = a.has_addr_base;
	l->vs->cus.v[l->cu].loclists_base = a.loclists_base;
	l->vs->cus.v[l->cu].has_loclists_base = a.has_loclists_base;
	l->vs->cus.v[l->cu].rnglists_base = a.rnglists_base;
	l->vs->cus.v[l->cu].has_rnglists_base = a.has_rnglists_base;
	return true;
}

static void walk_cus(loader *l, uint64_t info_size)
{
	Dwarf_Unsigned hlen, typeoff, next;
	Dwarf_Half ver, asize, osize, esize, utype;
	Dwarf_Off abbrev, off;
	Dwarf_Sig8 sig;
	Dwarf_Error e = NULL;
	ds_progress prog = {0}; /* shows nothing unless begun */
	int rc;

	if (l->d->progress)
		ds_progress_begin(&prog, "reading variables");
	for (;;) {
		Dwarf_Die cu = NULL;

		rc = dwarf_next_cu_header_d(l->dbg, true, &hlen, &ver, &abbrev, &asize, &osize,
					    &esize, &sig, &typeoff, &next, &utype, &e);
		if (rc == DW_DLV_ERROR)
			dwarf_problem(l, &e, "cannot read a compilation unit header");
		if (rc != DW_DLV_OK)
			break;
		rc = dwarf_siblingof_b(l->dbg, NULL, true, &cu, &e);
		if (rc == DW_DLV_ERROR)
			dwarf_problem(l, &e, "cannot read a compilation unit");
		if (rc != DW_DLV_OK)
			continue;
		if (dwarf_dieoffset(cu, &off, &e) != DW_DLV_OK)
			dwarf_problem(l, &e, "cannot read a compilation unit");
		else if (off > l->last_off && open_cu(l, cu, ver, asize, osize)) {
			l->last_off = off;
			ds_unit_files_set(&l->unit, off, true, ver);
			walk_children(l, cu, 0, NONE, 0);
		}
		dwarf_dealloc_die(cu);
		ds_progress_update(&prog, next, info_size);
	}
	ds_progress_end(&prog);
}

/* ---- loading: resolving names, types and sizes ---- */

static const dent *find_dent(const loader *l, uint64_t off)
{
	size_t lo = 0, hi = l->dies.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->dies.v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->dies.n && l->dies.v[lo].off == off ? &l->dies.v[lo] : NULL;
}

/* A DIE the pass did not record (a C++ static member declared as
 * DW_TAG_member, say): read it directly. */
static bool read_dent(loader *l, uint64_t off, dent *out)
{
	Dwarf_Die die = NULL;
	Dwarf_Error e = NULL;
	dattrs a;
	int rc = dwarf_offdie_b(l->dbg, off, true, &die, &e);
	bool ok;

	if (rc != DW_DLV_OK) {
		if (rc == DW_DLV_ERROR)
			dwarf_problem(l, &e, "bad DIE reference");
		return false;
	}
	l->names_only = true;
	ok = read_attrs(l, die, &a);
	l->names_only = false;
	dwarf_dealloc_die(die);
	if (!ok)
		return false;
	*out = (dent){.off = off, .type = a.type, .origin = a.origin, .name = intern(l, a.name)};
	return true;
}

/* Complete a name and a type from the chain of abstract origins and
 * specifications starting at DIE origin. */
static void resolve(loader *l, uint64_t origin, uint32_t *name, uint64_t *type)
{
	for (int i = 0; i < MAX_CHAIN && origin && (*name == NONE || (type && !*type)); i++) {
		dent tmp;
		const dent *e = find_dent(l, origin);

		if (!e && !read_dent(l, origin, &tmp))
			return;
		if (!e)
			e = &tmp;
		if (*name == NONE)
			*name = e->name;
		if (type && !*type)
			*type = e->type;
		origin = e->origin;
	}
}

/* Bytes of the type at DIE off: its DW_AT_byte_size, through typedefs
 * and qualifiers, pointers of the address size, arrays as element size
 * times elements; 0 when unknown. */
static uint64_t type_size(const loader *l, uint64_t off, int depth)
{
	const dent *e = depth < MAX_CHAIN ? find_dent(l, off) : NULL;
	uint64_t elem;

	if (!e)
		return 0;
	if (e->size != NO_SIZE)
		return e->size;
	switch (e->tag) {
	case DW_TAG_pointer_type: case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type:
		return e->addr_size;
	case DW_TAG_typedef: case DW_TAG_const_type: case DW_TAG_volatile_type:
	case DW_TAG_restrict_type: case DW_TAG_atomic_type: case DW_TAG_immutable_type:
	case DW_TAG_packed_type: case DW_TAG_shared_type: case DW_TAG_enumeration_type:
		return type_size(l, e->type, depth + 1);
	case DW_TAG_array_type:
		elem = type_size(l, e->type, depth + 1);
		if (e->count == NO_SIZE || (e->count && elem > UINT64_MAX / e->count))
			return 0;
		return elem * e->count;
	}
	return 0;
}

static uint32_t function_name(loader *l, uint64_t func)
{
	uint32_t name = NONE;

	resolve(l, func, &name, NULL);
	return name;
}

/* Name, type and size; false for a variable without a name. */
static bool complete_var(loader *l, lvar *v)
{
	resolve(l, v->origin, &v->name, &v->v.type_die);
	v->v.size = type_size(l, v->v.type_die, 0);
	return v->name != NONE;
}

/* Names and types through origins, sizes, function names.  Reading a DIE
 * the walk did not record interns names, so this comes before any name
 * becomes a pointer. */
static void resolve_all(loader *l)
{
	ds_vars *vs = l->vs;

	for (size_t i = 0; i < l->globals.n; i++) {
		lvar *v = &l->globals.v[i];
		if (complete_var(l, v))
			v->fname = function_name(l, v->func);
	}
	for (size_t s = 0; s < vs->scopes.n; s++)
		vs->scopes.v[s].fname = function_name(l, vs->scopes.v[s].func);
	for (size_t i = 0; i < l->vars.n; i++)
		complete_var(l, &l->vars.v[i]);
	for (size_t i = 0; i < l->consts.n; i++)
		complete_var(l, &l->consts.v[i]);
}

static const char *name_str(const ds_vars *vs, uint32_t name)
{
	return name == NONE ? NULL : ds_hash_key(vs->names, name, NULL);
}

/* ---- loading: constants placed by their symbols ----
 * A C++ const table at namespace scope (internal linkage, a constant
 * initializer: CRC tables, lookup tables) is declared in the DWARF with
 * DW_AT_const_value and no location, though the program reads it from
 * .rodata.  Its symbol places it: a data object whose last name component
 * is the declaration's name and whose size is its type's.  Where several
 * declarations share a name, the first of that size gives the type. */

typedef struct placing {
	loader *l;
	uint32_t *first; /* by name: the first declaration's index in consts, NONE */
	uint32_t *next;  /* by declaration: the next of its name, NONE */
	size_t n;
} placing;

static void place_one(void *ctx, const char *raw, uint64_t vaddr, uint64_t size)
{
	placing *p = ctx;
	char *dem = ds_demangle(raw);
	const char *name = dem ? dem : raw, *last = name;
	int64_t id;

	for (const char *c = name; (c = strstr(c, "::")) != NULL; c += 2)
		last = c + 2;
	id = ds_hash_find(p->l->vs->names, last, strlen(last) + 1);
	if (id >= 0 && (size_t)id < p->n && p->first[id] != NONE && in_image(p->l->d, vaddr)) {
		for (uint32_t i = p->first[id]; i != NONE; i = p->next[i]) {
			lvar v = p->l->consts.v[i];
			if (v.v.size != size)
				continue;
			v.v.loc = mkloc(DS_LOC_ADDR, 0, 0, vaddr);
			v.v.global = true;
			ds_vec_push(&p->l->globals, v);
			break;
		}
	}
	free(dem);
}

static void place_consts(loader *l)
{
	placing p = {.l = l, .n = ds_hash_count(l->vs->names)};

	if (!l->consts.n || l->consts.n >= NONE)
		return;
	p.first = ds_xmalloc(p.n * sizeof *p.first);
	p.next = ds_xmalloc(l->consts.n * sizeof *p.next);
	for (size_t i = 0; i < p.n; i++)
		p.first[i] = NONE;
	for (size_t i = l->consts.n; i-- > 0;) {
		uint32_t name = l->consts.v[i].name;
		p.next[i] = NONE;
		if (name != NONE && name < p.n) {
			p.next[i] = p.first[name];
			p.first[name] = (uint32_t)i;
		}
	}
	ds_dso_each_object(l->d, place_one, &p);
	free(p.first);
	free(p.next);
}

/* ---- loading: the lookup structures ---- */

static int cmp_global(const void *pa, const void *pb)
{
	const ds_var *a = pa, *b = pb;
	uint64_t ka = a->loc.kind == DS_LOC_ADDR ? a->loc.addr : (uint64_t)a->loc.offset;
	uint64_t kb = b->loc.kind == DS_LOC_ADDR ? b->loc.addr : (uint64_t)b->loc.offset;

	if (a->loc.kind != b->loc.kind)
		return a->loc.kind == DS_LOC_ADDR ? -1 : 1;
	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->die < b->die ? -1 : a->die > b->die;
}

static bool same_global(const ds_var *a, const ds_var *b)
{
	return a->loc.kind == b->loc.kind && a->loc.addr == b->loc.addr &&
	       a->loc.offset == b->loc.offset && strcmp(a->name, b->name) == 0;
}

static void build_globals(loader *l)
{
	ds_vars *vs = l->vs;
	size_t k = 0;

	for (size_t i = 0; i < l->globals.n; i++) {
		lvar *v = &l->globals.v[i];
		if (v->name == NONE)
			continue;
		v->v.name = name_str(vs, v->name);
		v->v.function = name_str(vs, v->fname);
		ds_vec_push(&vs->globals, v->v);
	}
	ds_sort(vs->globals.v, vs->globals.n, sizeof *vs->globals.v, cmp_global);
	/* One definition seen twice (C++ inline variables in every CU, say):
	 * the sort put the largest first. */
	for (size_t i = 0; i < vs->globals.n; i++)
		if (k == 0 || !same_global(&vs->globals.v[k - 1], &vs->globals.v[i]))
			vs->globals.v[k++] = vs->globals.v[i];
	vs->globals.n = k;
	while (vs->naddr < k && vs->globals.v[vs->naddr].loc.kind == DS_LOC_ADDR)
		vs->naddr++;
}

static uint64_t global_end(const ds_var *g)
{
	return g->size > UINT64_MAX - g->loc.addr ? UINT64_MAX : g->loc.addr + g->size;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return a < b ? -1 : a > b;
}

/* A binary heap of globals, smallest first (then the earliest). */
typedef struct gheap {
	const ds_var *g;
	DS_VEC(uint32_t) h;
} gheap;

static bool gh_less(const gheap *q, uint32_t a, uint32_t b)
{
	if (q->g[a].size != q->g[b].size)
		return q->g[a].size < q->g[b].size;
	return a < b;
}

static void gh_push(gheap *q, uint32_t v)
{
	size_t i = q->h.n;

	ds_vec_push(&q->h, v);
	while (i > 0 && gh_less(q, q->h.v[i], q->h.v[(i - 1) / 2])) {
		uint32_t t = q->h.v[i];
		q->h.v[i] = q->h.v[(i - 1) / 2];
		q->h.v[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void gh_pop(gheap *q)
{
	size_t i = 0;

	q->h.v[0] = q->h.v[--q->h.n];
	for (;;) {
		size_t m = i, c = 2 * i + 1;
		if (c < q->h.n && gh_less(q, q->h.v[c], q->h.v[m]))
			m = c;
		if (c + 1 < q->h.n && gh_less(q, q->h.v[c + 1], q->h.v[m]))
			m = c + 1;
		if (m == i)
			return;
		uint32_t t = q->h.v[i];
		q->h.v[i] = q->h.v[m];
		q->h.v[m] = t;
		i = m;
	}
}

/* Cut the address space at every start and end of a global; each piece
 * belongs to the smallest global holding it, so overlapping globals
 * (aliases, a member array inside a larger object) resolve to the most
 * specific one by one binary search. */
static void build_segments(ds_vars *vs)
{
	const ds_var *g = vs->globals.v;
	DS_VEC(uint64_t) pts = {0};
	gheap q = {g, {0}};
	size_t j = 0;

	for (size_t i = 0; i < vs->naddr; i++)
		if (g[i].size) {
			ds_vec_push(&pts, g[i].loc.addr);
			ds_vec_push(&pts, global_end(&g[i]));
		}
	ds_sort(pts.v, pts.n, sizeof *pts.v, cmp_u64);
	for (size_t i = 0; i < pts.n; i++) {
		uint64_t p = pts.v[i];
		uint32_t v;

		if (i && pts.v[i - 1] == p)
			continue;
		for (; j < vs->naddr && g[j].loc.addr <= p; j++)
			if (g[j].size && global_end(&g[j]) > p)
				gh_push(&q, (uint32_t)j);
		while (q.h.n && global_end(&g[q.h.v[0]]) <= p)
			gh_pop(&q);
		v = q.h.n ? q.h.v[0] : NONE;
		if (vs->segs.n == 0 || vs->segs.v[vs->segs.n - 1].var != v)
			ds_vec_push(&vs->segs, ((gseg){p, v}));
	}
	ds_vec_free(&pts);
	ds_vec_free(&q.h);
}

/* Scope variables grouped by scope, in DIE order within each. */
static void build_scope_vars(loader *l)
{
	ds_vars *vs = l->vs;
	size_t *at = ds_xcalloc(vs->scopes.n + 1, sizeof *at);

	for (size_t s = 0; s < vs->scopes.n; s++)
		vs->scopes.v[s].function = name_str(vs, vs->scopes.v[s].fname);
	for (size_t i = 0; i < l->vars.n; i++) {
		lvar *v = &l->vars.v[i];
		if (v->name == NONE)
			v->scope = NONE;
		else
			at[v->scope + 1]++;
	}
	for (size_t s = 0; s < vs->scopes.n; s++) {
		vs->scopes.v[s].first = (uint32_t)at[s];
		vs->scopes.v[s].n = (uint32_t)at[s + 1];
		at[s + 1] += at[s];
	}
	ds_vec_reserve(&vs->vars, at[vs->scopes.n]);
	vs->vars.n = at[vs->scopes.n];
	for (size_t i = 0; i < l->vars.n; i++) {
		lvar *v = &l->vars.v[i];
		if (v->scope == NONE)
			continue;
		v->v.name = name_str(vs, v->name);
		v->v.function = vs->scopes.v[v->scope].function;
		vs->vars.v[at[v->scope]++] = *v;
	}
	free(at);
}

static int cmp_ival(const void *pa, const void *pb)
{
	const vival *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi > b->hi ? -1 : 1;
	return a->scope < b->scope ? -1 : a->scope > b->scope; /* outer scopes come first */
}

/* Sort the intervals by start, longest first, and link each to the
 * interval that encloses it.  Proper DWARF nests scopes; an interval that
 * sticks out of its encloser is cut to it so that the nesting holds. */
static void build_intervals(ds_vars *vs)
{
	DS_VEC(uint32_t) stack = {0};

	ds_sort(vs->ivals.v, vs->ivals.n, sizeof *vs->ivals.v, cmp_ival);
	for (size_t i = 0; i < vs->ivals.n; i++) {
		vival *iv = &vs->ivals.v[i];

		while (stack.n && vs->ivals.v[stack.v[stack.n - 1]].hi <= iv->lo)
			stack.n--;
		if (stack.n) {
			iv->up = stack.v[stack.n - 1];
			if (iv->hi > vs->ivals.v[iv->up].hi)
				iv->hi = vs->ivals.v[iv->up].hi;
		}
		ds_vec_push(&stack, (uint32_t)i);
	}
	ds_vec_free(&stack);
}

/* ---- loading ---- */

/* libdwarf opens a handle only over sections it counts as DWARF proper,
 * which the DWARF 5 list sections are not: .debug_abbrev, never loaded
 * through this handle, makes it one. */
static void open_lists(ds_dso *d, ds_vars *vs)
{
	static const char *const sections[] = {
		".debug_loc", ".debug_loclists", ".debug_ranges", ".debug_rnglists", ".debug_addr",
		".debug_abbrev",
	};

	vs->lists = ds_dwarf_open(d, sections, sizeof sections / sizeof sections[0]);
	if (!vs->lists)
		return;
	vs->loc = ds_dwarf_section(vs->lists, ".debug_loc", &vs->loc_size);
	vs->loclists = ds_dwarf_section(vs->lists, ".debug_loclists", &vs->loclists_size);
	vs->ranges = ds_dwarf_section(vs->lists, ".debug_ranges", &vs->ranges_size);
	vs->rnglists = ds_dwarf_section(vs->lists, ".debug_rnglists", &vs->rnglists_size);
	vs->addr = ds_dwarf_section(vs->lists, ".debug_addr", &vs->addr_size);
}

static void load_vars(ds_dso *d)
{
	/* .debug_addr too: libdwarf resolves DW_FORM_addrx attributes with it */
	static const char *const sections[] = {
		".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
		".debug_str_offsets", ".debug_addr",
	};
	ds_vars *vs = ds_xcalloc(1, sizeof *vs);
	loader l = {.d = d, .vs = vs, .array = SIZE_MAX, .unit = {.d = d, .who = "variables"}};
	ds_dwarf *dw;
	size_t info_size = 0;

	d->vars = vs;
	vs->names = ds_hash_new();
	if (d->kallsyms || !d->dwarf)
		return;
	vs->msb = d->dwarf->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	open_lists(d, vs);
	dw = ds_dwarf_open(d, sections, sizeof sections / sizeof sections[0]);
	if (dw) {
		l.dbg = ds_dwarf_debug(dw);
		ds_dwarf_section(dw, ".debug_info", &info_size);
		walk_cus(&l, info_size);
		ds_unit_files_close(&l.unit);
		resolve_all(&l);
		ds_dwarf_close(dw);
		place_consts(&l);
		build_globals(&l);
		build_scope_vars(&l);
	}
	build_segments(vs);
	build_intervals(vs);
	ds_vec_free(&l.dies);
	ds_vec_free(&l.globals);
	ds_vec_free(&l.vars);
	ds_vec_free(&l.consts);
}

static ds_vars *vars_of(ds_dso *d)
{
	if (!d->vars)
		load_vars(d);
	return d->vars;
}

void ds_dso_free_vars(ds_dso *d)
{
	ds_vars *vs = d->vars;

	if (!vs)
		return;
	ds_dwarf_close(vs->lists);
	ds_vec_free(&vs->cus);
	ds_buf_free(&vs->exprs);
	ds_hash_free(vs->names);
	ds_vec_free(&vs->globals);
	ds_vec_free(&vs->segs);
	ds_vec_free(&vs->scopes);
	ds_vec_free(&vs->vars);
	ds_vec_free(&vs->ivals);
	free(vs);
	d->vars = NULL;
}

/* ---- queries ---- */

size_t ds_dso_nglobals(ds_dso *d)
{
	return vars_of(d)->globals.n;
}

const ds_var *ds_dso_global(ds_dso *d, size_t i)
{
	ds_vars *vs = vars_of(d);
	return i < vs->globals.n ? &vs->globals.v[i] : NULL;
}

const ds_var *ds_dso_global_at(ds_dso *d, uint64_t vaddr, uint64_t *offset)
{
	ds_vars *vs = vars_of(d);
	size_t lo = 0, hi = vs->segs.n;
	const ds_var *g;

	/* the last segment starting at or below vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (vs->segs.v[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || vs->segs.v[lo - 1].var == NONE)
		return NULL;
	g = &vs->globals.v[vs->segs.v[lo - 1].var];
	if (offset)
		*offset = vaddr - g->loc.addr;
	return g;
}

const ds_var *ds_dso_tls_at(ds_dso *d, int64_t tpoff, uint64_t *offset)
{
	if (!d->tls_exec || tpoff < d->tls_base || tpoff >= d->tls_base + (int64_t)d->tls_size)
		return NULL;
	return ds_dso_tls_var(d, (uint64_t)(tpoff - d->tls_base), offset);
}

const ds_var *ds_dso_tls_var(ds_dso *d, uint64_t block_off, uint64_t *offset)
{
	ds_vars *vs;
	size_t lo, hi;
	int64_t at = (int64_t)block_off;
	const ds_var *g;

	if (block_off >> 40)
		return NULL;
	vs = vars_of(d);
	lo = vs->naddr;
	hi = vs->globals.n;
	/* the last thread-local starting at or below it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (vs->globals.v[mid].loc.offset <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == vs->naddr)
		return NULL;
	g = &vs->globals.v[lo - 1];
	if ((uint64_t)(at - g->loc.offset) >= (g->size ? g->size : 1))
		return NULL;
	if (offset)
		*offset = (uint64_t)(at - g->loc.offset);
	return g;
}

/* The innermost scope whose ranges hold pc, or NONE.  The last interval
 * starting at or below pc is either it or nested in it (intervals nest),
 * so the answer is on the way out from there. */
static uint32_t innermost(const ds_vars *vs, uint64_t pc)
{
	size_t lo = 0, hi = vs->ivals.n;
	uint32_t i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (vs->ivals.v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NONE;
	for (i = (uint32_t)(lo - 1); i != NONE && pc >= vs->ivals.v[i].hi; i = vs->ivals.v[i].up)
		;
	return i == NONE ? NONE : vs->ivals.v[i].scope;
}

size_t ds_dso_vars_at(ds_dso *d, uint64_t pc, ds_var *out, size_t max)
{
	ds_vars *vs = vars_of(d);
	size_t n = 0;

	/* parents precede their children, so the walk out ends */
	for (uint32_t s = innermost(vs, pc); s != NONE; s = vs->scopes.v[s].parent) {
		const vscope *sc = &vs->scopes.v[s];
		ectx c = {.d = d, .vs = vs, .pc = pc, .at_pc = true, .sub = &vs->scopes.v[sc->sub]};

		for (uint32_t i = sc->first; i < sc->first + sc->n; i++, n++) {
			const lvar *v = &vs->vars.v[i];
			if (n >= max)
				continue;
			c.cu = &vs->cus.v[v->loc.cu];
			out[n] = v->v;
			out[n].loc = loc_at(&c, &v->loc);
		}
	}
	return n;
}

bool ds_dso_inline_call_at(ds_dso *d, uint64_t pc, const char **file, unsigned *line)
{
	ds_vars *vs = vars_of(d);
	uint32_t call = NONE;

	/* the outermost inlined call: the one no other inlined call holds */
	for (uint32_t s = innermost(vs, pc); s != NONE; s = vs->scopes.v[s].parent)
		if (vs->scopes.v[s].line)
			call = s;
	if (call == NONE || vs->scopes.v[call].file == NONE)
		return false;
	*file = ds_hash_key(vs->names, vs->scopes.v[call].file, NULL);
	*line = vs->scopes.v[call].line;
	return true;
}
