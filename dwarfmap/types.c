/*
 * DWARF types through libdwarf, loaded on the first type query.
 *
 * One pass over every unit of .debug_info (and DWARF 4 .debug_types)
 * reads each type DIE into a flat "node": its kind, name, size, the DIE
 * offset of its target type, and its members, array dimensions or
 * parameters.  Nothing is resolved while reading, so the pass is a plain
 * walk; DIEs that cannot hold types (variables, parameters, call sites,
 * inlined copies) are skipped without reading their attributes, and
 * enumerators are never visited.  libdwarf walks the DIE tree and parses
 * the abbreviations; the attribute values are decoded here from the DIE's
 * bytes (see read_value), which makes the pass twice as fast as
 * dwarf_attrlist, an allocation per attribute, did.
 *
 * Then, in order:
 *   1. references become node indices (nodes come in DIE offset order, so
 *      a binary search finds them);
 *   2. DWARF 2/3 bit offsets (counted from the most significant bit of the
 *      storage unit) become bit positions from the start of the struct;
 *   3. each struct, union, class and enum gets a "shallow" hash: kind,
 *      name, size and its members' names, offsets and bit fields, without
 *      their types;
 *   4. a declaration (DW_AT_declaration) takes the definition of the same
 *      name when all definitions of that name agree;
 *   5. every node gets a "full" hash: the shallow one plus its members'
 *      types, where a type is hashed structurally down to the first struct,
 *      union, class or enum, whose shallow hash stands for it.  That stops
 *      at aggregates, so `struct node { struct node *next; }` hashes
 *      without recursing forever, and two types are merged when they have
 *      the same name and layout and their members the same types;
 *   6. one ds_type is made per distinct full hash (the first node with
 *      that hash is its representative), and every node, duplicates
 *      included, points to it: that is what ds_dso_type_at_die answers.
 *
 * Input may be anything: every libdwarf return is checked, every
 * Dwarf_Error and DIE freed, DIE nesting and type chains are bounded, a
 * sibling chain must move forward, and the first problem is kept as the
 * dso's note while the rest of the types still load.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <dwarf.h>
#include <libdwarf.h>
#include <stdlib.h>
#include <string.h>

/* Deeper DIE nesting than this is corrupt (real code nests a few levels:
 * unit, namespace, class, function, block). */
#define MAX_DIE_DEPTH 64
/* Chains of typedefs, qualifiers, pointers and arrays longer than this are
 * cycles in corrupt input. */
#define MAX_CHAIN 48
/* More dimensions than this are not C. */
#define MAX_DIMS 32

#define NO_REF UINT64_MAX
#define NO_NODE UINT32_MAX
/* .debug_types offsets live in their own space: tagged with the top bit. */
#define TYPES_SPACE (UINT64_C(1) << 63)

enum {
	NF_DECL = 1,      /* DW_AT_declaration */
	NF_SIZED = 2,     /* DW_AT_byte_size or DW_AT_bit_size was given */
	NF_SIG = 4,       /* target_ref is a type unit's signature */
	NF_SIZE_DONE = 8,
	NF_FULL_DONE = 16,
	NF_ON_STACK = 32,
	NF_VARARGS = 64,  /* a function type with `...` */
	NF_ATOMIC = 128,  /* DW_TAG_atomic_type */
};

enum {
	MF_BASE = 1,      /* DW_TAG_inheritance */
	MF_BITS = 2,      /* a bit field */
	MF_DW2_BITS = 4,  /* bit_offset counts from the storage unit's MSB */
	MF_SIG = 8,       /* type_ref is a type unit's signature */
	MF_VARARGS = 16,  /* the `...` of a variadic function type */
};

/* A member, or a parameter of a function type, as read. */
typedef struct rmem {
	const char *name;
	uint64_t type_ref;    /* DIE offset, NO_REF for none */
	uint64_t offset;      /* bytes: DW_AT_data_member_location */
	uint64_t bitpos;      /* bit fields: bits from the start of the struct */
	int64_t dw2_bit_offset;
	uint64_t byte_size;   /* DW_AT_byte_size of the storage unit, 0 when absent */
	uint32_t bit_size;
	uint32_t type;        /* resolved node, NO_NODE for void */
	uint32_t align;       /* DW_AT_alignment, 0 when absent */
	uint8_t flags;
} rmem;

/* A type DIE as read. */
typedef struct tnode {
	uint64_t off;         /* DIE offset (TYPES_SPACE for .debug_types) */
	uint64_t target_ref;
	uint64_t spec_ref;    /* DW_AT_specification: where the name is */
	uint64_t size;
	const char *name;
	uint64_t shallow, full;
	uint32_t first, count; /* rmems (members, parameters) or dims */
	uint32_t target;      /* resolved node, NO_NODE for void */
	uint32_t resolve;     /* a declaration's definition, NO_NODE */
	uint32_t canon;       /* its ds_type */
	uint32_t align, decl_line, decl_file; /* decl_file: interned + 1, 0 none */
	uint32_t qname;       /* the qualified name (scope::name) interned + 1, 0 when the
			       * name needs no scope */
	uint16_t flags;
	uint8_t kind;
} tnode;

typedef struct sigent {
	uint64_t sig;
	uint64_t off;
} sigent;

/* What a dso keeps: the types and the indexes over them. */
struct ds_typetab {
	ds_type *types;        /* [0] is void */
	size_t ntypes;
	ds_member *members;
	uint64_t *dims;
	uint64_t *die_off;     /* sorted DIE offsets of every type DIE ... */
	uint32_t *die_type;    /* ... and the ds_type each one maps to */
	size_t ndies;
	const ds_type **list;  /* ds_dso_type(): named definitions, by name */
	size_t nlist;
	const ds_type **names; /* every named type, by name, for lookups */
	size_t nnames;
	ds_hash *files;        /* decl_file names */
	ds_hash *qnames;       /* qualified names (C++: "a::Node") */
	char **wheres;         /* the `where` labels of definitions that share a name */
	size_t nwheres;
};

/* A section's bytes, as libdwarf sees them. */
typedef struct bytes {
	const uint8_t *p;
	size_t n;
} bytes;

/* An abbreviation's attributes and forms, as libdwarf parses them. */
typedef struct spec {
	uint16_t at, form;
	int64_t implicit;     /* DW_FORM_implicit_const */
} spec;

typedef struct abbrev {
	uint32_t first, count; /* in loader.specs */
} abbrev;

typedef struct loader {
	ds_dso *d;
	Dwarf_Debug dbg;
	bool is_info;         /* walking .debug_info (else .debug_types) */
	uint64_t space;       /* 0 or TYPES_SPACE */
	bool msb;
	uint8_t addr_size;
	uint8_t offset_size;  /* 4, or 8 in 64-bit DWARF */
	uint64_t cu_start;    /* the unit's header: CU-relative references count from it */
	uint64_t str_offsets_base;
	uint64_t cu_off;      /* the unit's DIE */
	int cu_version;
	bytes info, types, str, line_str, str_offsets;
	ds_hash *abbrev_at;   /* .debug_abbrev offset -> index in abbrevs */
	DS_VEC(abbrev) abbrevs;
	DS_VEC(spec) specs;
	ds_unit_files unit;   /* the unit's file names */
	DS_VEC(tnode) nodes;
	DS_VEC(rmem) rmems;
	DS_VEC(rmem) scratch; /* members of the structs being read (nested LIFO) */
	ds_vec_u64 dims;
	DS_VEC(sigent) sigs;    /* type unit signature -> type DIE */
	bool qualify;         /* the unit's language scopes names with "::" (C++, Rust) */
	ds_buf scope;         /* the enclosing namespaces and types: "a::Outer::" */
	size_t scope_from;    /* where in scope the names of the current types start */
	ds_hash *qnames;
	ds_hash *files;
	ds_progress prog;
	uint64_t total;
} loader;

/* ---- reading ---- */

static void dwarf_problem(loader *l, Dwarf_Error *e, const char *what)
{
	ds_dso_set_note(l->d, "DWARF in '%s': types: %s: %s", l->d->dwarf->path, what,
			*e ? dwarf_errmsg(*e) : "unknown error");
	if (*e)
		dwarf_dealloc_error(l->dbg, *e);
	*e = NULL;
}

static bool is_aggregate(uint8_t kind)
{
	return kind == DS_TYPE_STRUCT || kind == DS_TYPE_UNION || kind == DS_TYPE_CLASS ||
	       kind == DS_TYPE_ENUM;
}

/* The ds_type kind a type DIE becomes, or -1 for DIEs that are not types
 * dsprof models (Fortran strings, Ada sets, ...). */
static int tag_kind(Dwarf_Half tag)
{
	switch (tag) {
	case DW_TAG_base_type: return DS_TYPE_BASE;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: return DS_TYPE_POINTER;
	case DW_TAG_structure_type: return DS_TYPE_STRUCT;
	case DW_TAG_union_type: return DS_TYPE_UNION;
	case DW_TAG_class_type:
	case DW_TAG_interface_type: return DS_TYPE_CLASS;
	case DW_TAG_enumeration_type: return DS_TYPE_ENUM;
	case DW_TAG_array_type: return DS_TYPE_ARRAY;
	case DW_TAG_typedef: return DS_TYPE_TYPEDEF;
	case DW_TAG_const_type: return DS_TYPE_CONST;
	case DW_TAG_volatile_type: return DS_TYPE_VOLATILE;
	case DW_TAG_restrict_type: return DS_TYPE_RESTRICT;
	case DW_TAG_subroutine_type: return DS_TYPE_FUNCTION;
	case DW_TAG_atomic_type:
	case DW_TAG_unspecified_type:
	case DW_TAG_ptr_to_member_type: return DS_TYPE_OTHER;
	default: return -1;
	}
}

/* The attributes dsprof reads from type DIEs, members and subranges. */
typedef struct attrs {
	const char *name;
	uint64_t type_ref;
	bool type_sig;
	uint64_t spec_ref;
	bool has_byte_size, has_bit_size, has_bit_offset, has_data_bit_offset, has_location;
	uint64_t byte_size, bit_size, data_bit_offset, location;
	int64_t bit_offset;
	bool decl, has_decl_file;
	uint64_t align, decl_file, decl_line;
	bool has_count, has_upper, has_lower;
	int64_t count, upper, lower;
	uint64_t str_offsets_base;
	bool has_str_offsets_base;
	bool has_language;
	uint64_t language;
} attrs;

/* Attribute values are decoded here from the DIE's bytes, in the forms
 * libdwarf gives for its abbreviation: dwarf_attrlist makes and frees an
 * object per attribute, which was most of the time of a pass.  Every read
 * is bounds-checked; an error sticks. */
typedef struct reader {
	const uint8_t *p, *end;
	bool bad;
} reader;

static uint64_t rd_fixed(reader *r, unsigned n, bool msb)
{
	uint64_t v = 0;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v = msb ? v << 8 | r->p[i] : v | (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb(reader *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (r->p < r->end) {
		uint8_t b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static int64_t rd_sleb(reader *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	do {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~UINT64_C(0) << shift;
	return (int64_t)v;
}

static void rd_skip(reader *r, uint64_t n)
{
	if (n > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		r->p = r->end;
		return;
	}
	r->p += n;
}

/* A NUL-terminated string at offset off of a section, or NULL. */
static const char *section_string(const bytes *b, uint64_t off)
{
	if (!b->p || off >= b->n || !memchr(b->p + off, 0, b->n - off))
		return NULL;
	return (const char *)b->p + off;
}

enum val_class { V_NONE, V_UNSIGNED, V_SIGNED, V_STRING, V_REF, V_SIG, V_FLAG, V_BLOCK, V_SECOFF };

typedef struct val {
	enum val_class cls;
	uint64_t u;          /* UNSIGNED, REF (global offset in our space), SIG, FLAG, SECOFF */
	int64_t s;           /* SIGNED */
	const char *str;     /* STRING; NULL when it cannot be found */
	const uint8_t *block; /* BLOCK */
	uint64_t len;
} val;

static const char *strx(loader *l, uint64_t index)
{
	uint64_t pos = l->str_offsets_base + index * l->offset_size;
	reader r;

	if (!l->str_offsets.p || pos >= l->str_offsets.n)
		return NULL;
	r = (reader){l->str_offsets.p + pos, l->str_offsets.p + l->str_offsets.n, false};
	pos = rd_fixed(&r, l->offset_size, l->msb);
	return r.bad ? NULL : section_string(&l->str, pos);
}

/* One value in the given form; V_NONE for forms dsprof has no use for
 * (they are skipped).  False when the bytes run out or the form is
 * unknown: nothing after it can be found. */
static bool read_value(loader *l, reader *r, unsigned form, int64_t implicit, val *v)
{
	unsigned os = l->offset_size;
	const uint8_t *start;

	memset(v, 0, sizeof *v);
	switch (form) {
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1:
		v->u = rd_fixed(r, 1, l->msb);
		break;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		v->u = rd_fixed(r, 2, l->msb);
		break;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		v->u = rd_fixed(r, 3, l->msb);
		break;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		v->u = rd_fixed(r, 4, l->msb);
		break;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		v->u = rd_fixed(r, 8, l->msb);
		break;
	case DW_FORM_data16:
		rd_skip(r, 16);
		return !r->bad;
	case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
	case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_str_index:
	case DW_FORM_GNU_addr_index:
		v->u = rd_uleb(r);
		break;
	case DW_FORM_sdata:
		v->s = rd_sleb(r);
		v->cls = V_SIGNED;
		return !r->bad;
	case DW_FORM_implicit_const:
		v->s = implicit;
		v->cls = V_SIGNED;
		return true;
	case DW_FORM_flag_present:
		v->u = 1;
		v->cls = V_FLAG;
		return true;
	case DW_FORM_addr:
		rd_skip(r, l->addr_size);
		return !r->bad;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		v->u = rd_fixed(r, os, l->msb);
		break;
	case DW_FORM_ref_addr:
		/* DWARF 2 wrote these in the size of an address */
		v->u = rd_fixed(r, l->cu_version == 2 ? l->addr_size : os, l->msb);
		break;
	case DW_FORM_string:
		start = r->p;
		while (r->p < r->end && *r->p)
			r->p++;
		if (r->p == r->end)
			return r->bad = true, false;
		r->p++;
		v->str = (const char *)start;
		v->cls = V_STRING;
		return true;
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: case DW_FORM_block:
	case DW_FORM_exprloc:
		v->len = form == DW_FORM_block1 ? rd_fixed(r, 1, l->msb) :
			 form == DW_FORM_block2 ? rd_fixed(r, 2, l->msb) :
			 form == DW_FORM_block4 ? rd_fixed(r, 4, l->msb) : rd_uleb(r);
		v->block = r->p;
		rd_skip(r, v->len);
		v->cls = r->bad ? V_NONE : V_BLOCK;
		return !r->bad;
	case DW_FORM_indirect: {
		uint64_t f = rd_uleb(r);
		if (r->bad || f == DW_FORM_indirect || f == DW_FORM_implicit_const)
			return false;
		return read_value(l, r, (unsigned)f, 0, v);
	}
	default:
		return false;
	}
	if (r->bad)
		return false;
	switch (form) {
	case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
	case DW_FORM_ref_udata:
		v->u = (v->u + l->cu_start) | l->space;
		v->cls = V_REF;
		break;
	case DW_FORM_ref_addr:
		/* into .debug_info, also from a DWARF 4 type unit */
		v->cls = V_REF;
		break;
	case DW_FORM_ref_sig8:
		v->cls = V_SIG;
		break;
	case DW_FORM_flag:
		v->cls = V_FLAG;
		break;
	case DW_FORM_strp:
		v->str = section_string(&l->str, v->u);
		v->cls = V_STRING;
		break;
	case DW_FORM_line_strp:
		v->str = section_string(&l->line_str, v->u);
		v->cls = V_STRING;
		break;
	case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3:
	case DW_FORM_strx4: case DW_FORM_GNU_str_index:
		v->str = strx(l, v->u);
		v->cls = V_STRING;
		break;
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
	case DW_FORM_udata:
		v->cls = V_UNSIGNED;
		break;
	case DW_FORM_sec_offset:
		v->cls = V_SECOFF;
		break;
	default:
		/* addresses, list indexes, references into other files */
		break;
	}
	return true;
}

static bool is_constant(const val *v)
{
	return v->cls == V_UNSIGNED || v->cls == V_SIGNED;
}

static uint64_t as_unsigned(const val *v)
{
	return v->cls == V_SIGNED ? (uint64_t)v->s : v->u;
}

/* Bounds and bit offsets may be negative: DW_FORM_sdata and implicit_const
 * say so; fixed-size data forms are unsigned (an array bound of 200 is
 * one byte, 0xc8). */
static int64_t as_signed(const val *v)
{
	return v->cls == V_SIGNED ? v->s : (int64_t)v->u;
}

/* DW_AT_data_member_location as an expression: compilers write
 * DW_OP_plus_uconst N (DWARF 2/3) or a constant; anything else (virtual
 * bases, computed offsets) has no fixed offset. */
static bool expr_offset(const uint8_t *p, uint64_t n, uint64_t *out)
{
	reader r = {p + 1, p + n, false};

	if (n < 2 || (p[0] != DW_OP_plus_uconst && p[0] != DW_OP_constu))
		return false;
	*out = rd_uleb(&r);
	return !r.bad && r.p == r.end;
}

static void take_value(unsigned at, const val *v, attrs *t)
{
	switch (at) {
	case DW_AT_name:
		if (v->cls == V_STRING)
			t->name = v->str;
		break;
	case DW_AT_type:
		if (v->cls == V_REF || v->cls == V_SIG) {
			t->type_ref = v->u;
			t->type_sig = v->cls == V_SIG;
		}
		break;
	case DW_AT_specification:
		if (v->cls == V_REF)
			t->spec_ref = v->u;
		break;
	/* sizes and bounds can be expressions (variable-length types):
	 * only constants count */
	case DW_AT_byte_size:
		if ((t->has_byte_size = is_constant(v)))
			t->byte_size = as_unsigned(v);
		break;
	case DW_AT_bit_size:
		if ((t->has_bit_size = is_constant(v)))
			t->bit_size = as_unsigned(v);
		break;
	case DW_AT_data_bit_offset:
		if ((t->has_data_bit_offset = is_constant(v)))
			t->data_bit_offset = as_unsigned(v);
		break;
	case DW_AT_bit_offset:
		if ((t->has_bit_offset = is_constant(v)))
			t->bit_offset = as_signed(v);
		break;
	case DW_AT_alignment:
		if (is_constant(v))
			t->align = as_unsigned(v);
		break;
	case DW_AT_decl_file:
		if ((t->has_decl_file = is_constant(v)))
			t->decl_file = as_unsigned(v);
		break;
	case DW_AT_decl_line:
		if (is_constant(v))
			t->decl_line = as_unsigned(v);
		break;
	case DW_AT_data_member_location:
		if (is_constant(v) && as_signed(v) >= 0) {
			t->has_location = true;
			t->location = as_unsigned(v);
		} else if (v->cls == V_BLOCK) {
			t->has_location = expr_offset(v->block, v->len, &t->location);
		}
		break;
	case DW_AT_declaration:
		t->decl = v->cls == V_FLAG && v->u;
		break;
	case DW_AT_count:
		if ((t->has_count = is_constant(v)))
			t->count = as_signed(v);
		break;
	case DW_AT_upper_bound:
		if ((t->has_upper = is_constant(v)))
			t->upper = as_signed(v);
		break;
	case DW_AT_lower_bound:
		if ((t->has_lower = is_constant(v)))
			t->lower = as_signed(v);
		break;
	case DW_AT_str_offsets_base:
		if ((t->has_str_offsets_base = v->cls == V_SECOFF))
			t->str_offsets_base = v->u;
		break;
	case DW_AT_language:
		if ((t->has_language = is_constant(v)))
			t->language = as_unsigned(v);
		break;
	default:
		break;
	}
}

/* The attributes and forms of a DIE's abbreviation, parsed by libdwarf
 * once per abbreviation. */
static const abbrev *die_abbrev(loader *l, Dwarf_Die die)
{
	Dwarf_Off goff;
	Dwarf_Unsigned count, length, n;
	Dwarf_Abbrev ab;
	Dwarf_Error e = NULL;
	bool added;
	size_t i;

	if (dwarf_die_abbrev_global_offset(die, &goff, &count, &e) != DW_DLV_OK) {
		dwarf_problem(l, &e, "cannot find the abbreviation of a DIE");
		return NULL;
	}
	i = ds_hash_intern(l->abbrev_at, &goff, sizeof goff, &added);
	if (!added)
		return &l->abbrevs.v[i];
	ds_vec_push(&l->abbrevs, ((abbrev){(uint32_t)l->specs.n, 0}));
	if (dwarf_get_abbrev(l->dbg, goff, &ab, &length, &n, &e) != DW_DLV_OK) {
		dwarf_problem(l, &e, "cannot read an abbreviation");
		return &l->abbrevs.v[i];
	}
	for (Dwarf_Unsigned k = 0; k < n; k++) {
		Dwarf_Unsigned at, form;
		Dwarf_Signed implicit;
		Dwarf_Off aoff;
		if (dwarf_get_abbrev_entry_b(ab, k, true, &at, &form, &implicit, &aoff, &e) != DW_DLV_OK) {
			dwarf_problem(l, &e, "cannot read an abbreviation");
			break;
		}
		if (at == 0 && form == 0)
			break;
		ds_vec_push(&l->specs, ((spec){(uint16_t)at, (uint16_t)form, implicit}));
	}
	dwarf_dealloc(l->dbg, ab, DW_DLA_ABBREV);
	l->abbrevs.v[i].count = (uint32_t)(l->specs.n - l->abbrevs.v[i].first);
	return &l->abbrevs.v[i];
}

static bool read_attrs(loader *l, Dwarf_Die die, uint64_t off, attrs *t)
{
	const abbrev *ab = die_abbrev(l, die);
	const bytes *sec = l->is_info ? &l->info : &l->types;
	uint64_t pos = off & ~TYPES_SPACE;
	reader r;

	memset(t, 0, sizeof *t);
	t->type_ref = NO_REF;
	t->spec_ref = NO_REF;
	if (!ab)
		return false;
	if (!sec->p || pos >= sec->n) {
		ds_dso_set_note(l->d, "DWARF in '%s': types: a DIE lies outside its section",
				l->d->dwarf->path);
		return false;
	}
	r = (reader){sec->p + pos, sec->p + sec->n, false};
	rd_uleb(&r); /* the abbreviation code */
	for (uint32_t k = 0; k < ab->count; k++) {
		const spec *sp = &l->specs.v[ab->first + k];
		val v;
		if (!read_value(l, &r, sp->form, sp->implicit, &v)) {
			ds_dso_set_note(l->d, "DWARF in '%s': types: a DIE at 0x%llx is cut short or has an unknown form",
					l->d->dwarf->path, (unsigned long long)pos);
			return false;
		}
		take_value(sp->at, &v, t);
	}
	return true;
}

static uint64_t die_offset(loader *l, Dwarf_Die die)
{
	Dwarf_Off off;
	Dwarf_Error e = NULL;

	if (dwarf_dieoffset(die, &off, &e) != DW_DLV_OK) {
		dwarf_problem(l, &e, "cannot read a DIE offset");
		return NO_REF;
	}
	return off | l->space;
}

/* The unit's name for decl_file n, interned, as index + 1 (0: none). */
static uint32_t decl_file(loader *l, uint64_t n)
{
	const char *name = ds_unit_file(&l->unit, n);
	return name ? (uint32_t)ds_hash_intern(l->files, name, strlen(name) + 1, NULL) + 1 : 0;
}

/* ---- qualified names ----
 * In C++ (and Rust) a type's name is only unique with its scope: a::Node
 * and b::Node are two types.  The reader keeps the enclosing namespaces
 * and named classes as a prefix ("a::Outer::"); the part of it from
 * scope_from on qualifies the names of the types met.  Types local to a
 * function start a scope of their own: they are named as the function's
 * code names them (two of one name are told apart by their files). */

static void enter_scope(loader *l, const char *name)
{
	ds_buf_puts(&l->scope, name);
	ds_buf_puts(&l->scope, "::");
}

static void leave_scope(loader *l, size_t outer)
{
	l->scope.len = outer;
	if (l->scope.p)
		l->scope.p[outer] = 0;
}

/* scope::name, interned, as index + 1. */
static uint32_t qualified(loader *l, const char *name)
{
	size_t outer = l->scope.len;
	uint32_t i;

	ds_buf_puts(&l->scope, name);
	i = (uint32_t)ds_hash_intern(l->qnames, l->scope.p + l->scope_from,
				     l->scope.len - l->scope_from + 1, NULL) + 1;
	leave_scope(l, outer);
	return i;
}

static void read_die(loader *l, Dwarf_Die die, uint64_t off, int depth);

/* Visit each child of parent with fn; the sibling chain must move forward,
 * else corrupt DW_AT_sibling values could loop forever. */
static void for_children(loader *l, Dwarf_Die parent, int depth,
			 void (*fn)(loader *, Dwarf_Die, uint64_t, int, void *), void *arg)
{
	Dwarf_Die die = NULL, next;
	Dwarf_Error e = NULL;
	uint64_t last = 0;
	int rc;

	if (depth > MAX_DIE_DEPTH) {
		ds_dso_set_note(l->d, "DWARF in '%s': types: DIEs nested too deep",
				l->d->dwarf->path);
		return;
	}
	rc = dwarf_child(parent, &die, &e);
	if (rc == DW_DLV_ERROR)
		dwarf_problem(l, &e, "cannot read the children of a DIE");
	while (rc == DW_DLV_OK) {
		uint64_t off = die_offset(l, die);
		if (off == NO_REF || (last && off <= last)) {
			if (off != NO_REF)
				ds_dso_set_note(l->d, "DWARF in '%s': types: DIE siblings out of order",
						l->d->dwarf->path);
			dwarf_dealloc_die(die);
			return;
		}
		last = off;
		fn(l, die, off, depth, arg);
		rc = dwarf_siblingof_b(l->dbg, die, l->is_info, &next, &e);
		dwarf_dealloc_die(die);
		if (rc == DW_DLV_ERROR)
			dwarf_problem(l, &e, "cannot read the next DIE");
		die = next;
	}
}

static void read_member(loader *l, Dwarf_Die die, uint64_t off, bool base, bool in_struct)
{
	attrs a;
	rmem m = {0};

	if (!read_attrs(l, die, off, &a))
		return;
	/* A member without a location in a struct is a static member (C++),
	 * which has no place in the layout; so is a virtual base class,
	 * whose offset is an expression. */
	if (a.decl || (in_struct && !a.has_location && !a.has_data_bit_offset))
		return;
	m.name = a.name;
	m.type_ref = a.type_ref;
	m.offset = a.has_location ? a.location : 0;
	m.byte_size = a.has_byte_size ? a.byte_size : 0;
	m.align = a.align > UINT32_MAX ? 0 : (uint32_t)a.align;
	m.flags = (uint8_t)((base ? MF_BASE : 0) | (a.type_sig ? MF_SIG : 0));
	if (a.has_bit_size && a.bit_size > 0 && a.bit_size < UINT32_MAX) {
		m.bit_size = (uint32_t)a.bit_size;
		m.flags |= MF_BITS;
		if (a.has_data_bit_offset) {
			m.bitpos = a.data_bit_offset;
		} else {
			m.flags |= MF_DW2_BITS;
			m.dw2_bit_offset = a.has_bit_offset ? a.bit_offset : 0;
		}
	}
	ds_vec_push(&l->scratch, m);
}

static void read_param(loader *l, Dwarf_Die die, uint64_t off, bool varargs)
{
	attrs a;
	rmem m = {0};

	if (varargs) {
		m.type_ref = NO_REF;
		m.flags = MF_VARARGS;
		ds_vec_push(&l->scratch, m);
		return;
	}
	if (!read_attrs(l, die, off, &a))
		return;
	m.type_ref = a.type_ref;
	m.flags = a.type_sig ? MF_SIG : 0;
	ds_vec_push(&l->scratch, m);
}

typedef struct child_ctx {
	uint8_t kind;       /* of the parent type */
	size_t node;        /* its node */
	bool varargs;
} child_ctx;

static void type_child(loader *l, Dwarf_Die die, uint64_t off, int depth, void *arg)
{
	child_ctx *c = arg;
	Dwarf_Half tag;
	Dwarf_Error e = NULL;

	if (dwarf_tag(die, &tag, &e) != DW_DLV_OK) {
		dwarf_problem(l, &e, "cannot read a DIE tag");
		return;
	}
	switch (c->kind) {
	case DS_TYPE_STRUCT:
	case DS_TYPE_CLASS:
	case DS_TYPE_UNION:
		if (tag == DW_TAG_member || tag == DW_TAG_inheritance)
			read_member(l, die, off, tag == DW_TAG_inheritance, c->kind != DS_TYPE_UNION);
		else if (tag_kind(tag) >= 0)
			read_die(l, die, off, depth + 1); /* a nested type (C++) */
		else if (tag == DW_TAG_subprogram)
			/* GCC may put a parameter's type among a member
			 * function's parameters (const Local & of a local
			 * class's copy constructor) */
			read_die(l, die, off, depth + 1);
		break;
	case DS_TYPE_ARRAY:
		if (tag == DW_TAG_subrange_type && l->dims.n - l->nodes.v[c->node].first < MAX_DIMS) {
			attrs a;
			uint64_t n = 0;
			if (!read_attrs(l, die, off, &a))
				break;
			if (a.has_count)
				n = a.count > 0 ? (uint64_t)a.count : 0;
			else if (a.has_upper && a.upper >= (a.has_lower ? a.lower : 0))
				n = (uint64_t)(a.upper - (a.has_lower ? a.lower : 0)) + 1;
			ds_vec_push(&l->dims, n);
		}
		break;
	case DS_TYPE_FUNCTION:
		if (tag == DW_TAG_formal_parameter)
			read_param(l, die, off, false);
		else if (tag == DW_TAG_unspecified_parameters)
			c->varargs = true;
		break;
	default:
		break;
	}
}

/* Move the members the current struct pushed on the scratch stack (from
 * `from` up) to the permanent array. */
static void take_scratch(loader *l, tnode *n, size_t from)
{
	n->first = (uint32_t)l->rmems.n;
	n->count = (uint32_t)(l->scratch.n - from);
	for (size_t i = from; i < l->scratch.n; i++)
		ds_vec_push(&l->rmems, l->scratch.v[i]);
	l->scratch.n = from;
}

static void read_type(loader *l, Dwarf_Die die, uint64_t off, Dwarf_Half tag, int kind, int depth)
{
	attrs a;
	tnode n = {0};
	size_t idx, from = l->scratch.n;
	child_ctx c = {.kind = (uint8_t)kind};

	n.off = off;
	if (!read_attrs(l, die, off, &a))
		return;
	n.kind = (uint8_t)kind;
	n.name = a.name;
	n.target_ref = a.type_ref;
	n.spec_ref = a.spec_ref;
	n.flags = (uint16_t)((a.decl ? NF_DECL : 0) | (a.type_sig ? NF_SIG : 0) |
			     (tag == DW_TAG_atomic_type ? NF_ATOMIC : 0));
	if (a.has_byte_size) {
		n.size = a.byte_size;
		n.flags |= NF_SIZED;
	} else if (a.has_bit_size) {
		n.size = (a.bit_size + 7) / 8;
		n.flags |= NF_SIZED;
	} else if (kind == DS_TYPE_POINTER) {
		n.size = l->addr_size;
		n.flags |= NF_SIZED;
	}
	/* Names a reader sees for what has none in C: references and
	 * qualifiers print through them (ds_type_name). */
	if (tag == DW_TAG_reference_type)
		n.name = "&";
	else if (tag == DW_TAG_rvalue_reference_type)
		n.name = "&&";
	else if (tag == DW_TAG_atomic_type)
		n.name = "_Atomic";
	n.target = n.resolve = NO_NODE;
	if (a.name && l->scope.len > l->scope_from)
		n.qname = qualified(l, a.name);
	n.align = a.align > UINT32_MAX ? 0 : (uint32_t)a.align;
	n.decl_line = a.decl_line > UINT32_MAX ? 0 : (uint32_t)a.decl_line;
	if (a.has_decl_file && (is_aggregate((uint8_t)kind) || kind == DS_TYPE_TYPEDEF))
		n.decl_file = decl_file(l, a.decl_file);
	idx = l->nodes.n;
	ds_vec_push(&l->nodes, n);
	c.node = idx;
	if (kind == DS_TYPE_ARRAY)
		l->nodes.v[idx].first = (uint32_t)l->dims.n;
	/* Enumerators, and anything under other types, are of no use here. */
	if (kind == DS_TYPE_STRUCT || kind == DS_TYPE_UNION || kind == DS_TYPE_CLASS ||
	    kind == DS_TYPE_ARRAY || kind == DS_TYPE_FUNCTION) {
		/* the types a named class defines are in its scope */
		size_t outer = l->scope.len;
		if (l->qualify && a.name && kind != DS_TYPE_ARRAY && kind != DS_TYPE_FUNCTION)
			enter_scope(l, a.name);
		for_children(l, die, depth + 1, type_child, &c);
		leave_scope(l, outer);
	}
	if (kind == DS_TYPE_ARRAY) {
		l->nodes.v[idx].count = (uint32_t)(l->dims.n - l->nodes.v[idx].first);
	} else {
		if (c.varargs)
			read_param(l, die, off, true);
		take_scratch(l, &l->nodes.v[idx], from);
	}
	if (c.varargs)
		l->nodes.v[idx].flags |= NF_VARARGS;
}

static void die_child(loader *l, Dwarf_Die die, uint64_t off, int depth, void *arg)
{
	(void)arg;
	read_die(l, die, off, depth + 1);
}

static void namespace_children(loader *l, Dwarf_Die die, uint64_t off, int depth)
{
	size_t outer = l->scope.len;
	attrs a;

	if (l->qualify) {
		if (!read_attrs(l, die, off, &a))
			return;
		enter_scope(l, a.name ? a.name : "(anonymous namespace)");
	}
	for_children(l, die, depth, die_child, NULL);
	leave_scope(l, outer);
}

static void local_children(loader *l, Dwarf_Die die, int depth)
{
	size_t from = l->scope_from;

	l->scope_from = l->scope.len;
	for_children(l, die, depth, die_child, NULL);
	l->scope_from = from;
}

/* Types live at unit scope, in namespaces, in classes and in functions
 * (and their blocks); nothing else is worth descending into. */
static void read_die(loader *l, Dwarf_Die die, uint64_t off, int depth)
{
	Dwarf_Half tag;
	Dwarf_Error e = NULL;
	int kind;

	if (dwarf_tag(die, &tag, &e) != DW_DLV_OK) {
		dwarf_problem(l, &e, "cannot read a DIE tag");
		return;
	}
	kind = tag_kind(tag);
	if (kind >= 0) {
		read_type(l, die, off, tag, kind, depth);
		return;
	}
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_partial_unit:
	case DW_TAG_type_unit:
		for_children(l, die, depth, die_child, NULL);
		break;
	case DW_TAG_namespace:
		namespace_children(l, die, off, depth);
		break;
	case DW_TAG_subprogram:
	case DW_TAG_lexical_block:
		local_children(l, die, depth);
		break;
	default:
		break;
	}
}

/* Where the unit's DW_FORM_strx strings are indexed from (its
 * DW_AT_str_offsets_base, else just past the first table's header), and
 * whether its language scopes names. */
static void unit_attrs(loader *l, Dwarf_Die cu)
{
	attrs a;

	l->str_offsets_base = l->offset_size == 8 ? 16 : 8;
	l->qualify = false;
	leave_scope(l, 0);
	l->scope_from = 0;
	if (l->cu_off == NO_REF || !read_attrs(l, cu, l->cu_off, &a))
		return;
	if (a.has_str_offsets_base)
		l->str_offsets_base = a.str_offsets_base;
	l->qualify = a.has_language &&
		     (a.language == DW_LANG_C_plus_plus || a.language == DW_LANG_C_plus_plus_03 ||
		      a.language == DW_LANG_C_plus_plus_11 || a.language == DW_LANG_C_plus_plus_14 ||
		      a.language == DW_LANG_Rust);
}

static void read_units(loader *l, bool is_info)
{
	Dwarf_Unsigned hlen, typeoff, next = 0;
	Dwarf_Half ver, asize, lsize, esize, utype;
	Dwarf_Off abbrev_off;
	Dwarf_Sig8 sig;
	Dwarf_Error e = NULL;
	int rc;

	l->is_info = is_info;
	l->space = is_info ? 0 : TYPES_SPACE;
	for (;;) {
		uint64_t start = next; /* of this unit's header */
		Dwarf_Die cu = NULL;

		rc = dwarf_next_cu_header_d(l->dbg, is_info, &hlen, &ver, &abbrev_off, &asize, &lsize,
					    &esize, &sig, &typeoff, &next, &utype, &e);
		if (rc == DW_DLV_ERROR)
			dwarf_problem(l, &e, "cannot read a unit header");
		if (rc != DW_DLV_OK)
			return;
		if (!is_info || utype == DW_UT_type || utype == DW_UT_split_type) {
			sigent s;
			memcpy(&s.sig, sig.signature, sizeof s.sig);
			s.off = (start + typeoff) | l->space;
			ds_vec_push(&l->sigs, s);
		}
		rc = dwarf_siblingof_b(l->dbg, NULL, is_info, &cu, &e);
		if (rc == DW_DLV_ERROR)
			dwarf_problem(l, &e, "cannot read a unit");
		if (rc != DW_DLV_OK)
			continue;
		l->addr_size = (uint8_t)(asize ? asize : 8);
		l->offset_size = lsize == 8 ? 8 : 4;
		l->cu_version = ver;
		l->cu_start = start;
		l->cu_off = die_offset(l, cu);
		ds_unit_files_set(&l->unit, l->cu_off & ~TYPES_SPACE, is_info, ver);
		unit_attrs(l, cu);
		read_die(l, cu, l->cu_off, 0);
		dwarf_dealloc_die(cu);
		if (is_info)
			ds_progress_update(&l->prog, next, l->total);
	}
}

/* ---- resolving ---- */

static uint32_t find_node(const loader *l, uint64_t off)
{
	size_t lo = 0, hi = l->nodes.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->nodes.v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->nodes.n && l->nodes.v[lo].off == off ? (uint32_t)lo : NO_NODE;
}

static int sig_cmp(const void *a, const void *b)
{
	const sigent *x = a, *y = b;
	return x->sig < y->sig ? -1 : x->sig > y->sig;
}

static uint32_t resolve_ref(loader *l, uint64_t ref, bool sig)
{
	uint32_t n;

	if (ref == NO_REF)
		return NO_NODE;
	if (sig) {
		sigent key = {.sig = ref}, *s;
		s = l->sigs.n ? bsearch(&key, l->sigs.v, l->sigs.n, sizeof key, sig_cmp) : NULL;
		if (!s) {
			ds_dso_set_note(l->d, "DWARF in '%s': types: a type unit is missing",
					l->d->dwarf->path);
			return NO_NODE;
		}
		ref = s->off;
	}
	n = find_node(l, ref);
	if (n == NO_NODE)
		ds_dso_set_note(l->d, "DWARF in '%s': types: a type refers to DIE 0x%llx, which is not a type",
				l->d->dwarf->path, (unsigned long long)(ref & ~TYPES_SPACE));
	return n;
}

static void resolve_refs(loader *l)
{
	/* the qualified names stay where they are from now on */
	for (size_t i = 0; i < l->nodes.n; i++)
		if (l->nodes.v[i].qname)
			l->nodes.v[i].name = ds_hash_key(l->qnames, l->nodes.v[i].qname - 1, NULL);
	ds_sort(l->sigs.v, l->sigs.n, sizeof *l->sigs.v, sig_cmp);
	for (size_t i = 0; i < l->nodes.n; i++) {
		tnode *n = &l->nodes.v[i];
		n->target = resolve_ref(l, n->target_ref, n->flags & NF_SIG);
		/* a definition outside its class (struct Outer::Inner { ... })
		 * is named, with its scope, by the declaration in the class */
		if (n->spec_ref != NO_REF) {
			uint32_t s = find_node(l, n->spec_ref);
			if (s != NO_NODE && l->nodes.v[s].name)
				n->name = l->nodes.v[s].name;
		}
		if (n->kind == DS_TYPE_ARRAY)
			continue;
		for (uint32_t k = 0; k < n->count; k++) {
			rmem *m = &l->rmems.v[n->first + k];
			m->type = resolve_ref(l, m->type_ref, m->flags & MF_SIG);
		}
	}
}

static bool is_qualifier(const tnode *n)
{
	return n->kind == DS_TYPE_TYPEDEF || n->kind == DS_TYPE_CONST ||
	       n->kind == DS_TYPE_VOLATILE || n->kind == DS_TYPE_RESTRICT ||
	       (n->kind == DS_TYPE_OTHER && (n->flags & NF_ATOMIC));
}

/* Size of a bit field's storage unit from its type: through typedefs and
 * qualifiers to an integer or enum.  Not memoized, as sizes that depend on
 * declarations are only known later. */
static uint64_t storage_size(const loader *l, uint32_t i)
{
	for (int k = 0; i != NO_NODE && k < MAX_CHAIN; k++) {
		const tnode *n = &l->nodes.v[i];
		if (!is_qualifier(n))
			return n->size;
		i = n->target;
	}
	return 0;
}

/* DWARF 2/3 (and GCC's DWARF 4) give a bit field's storage unit
 * (data_member_location, byte_size) and the distance from the unit's most
 * significant bit to the field's; DWARF 4 data_bit_offset counts from the
 * start of the struct.  Both become the bit position from the start. */
static void convert_bits(loader *l)
{
	for (size_t i = 0; i < l->nodes.n; i++) {
		tnode *n = &l->nodes.v[i];
		if (n->kind != DS_TYPE_STRUCT && n->kind != DS_TYPE_CLASS && n->kind != DS_TYPE_UNION)
			continue;
		for (uint32_t k = 0; k < n->count; k++) {
			rmem *m = &l->rmems.v[n->first + k];
			int64_t unit, pos;
			if (!(m->flags & MF_DW2_BITS))
				continue;
			unit = (int64_t)(m->byte_size ? m->byte_size : storage_size(l, m->type)) * 8;
			if (l->msb)
				pos = (int64_t)m->offset * 8 + m->dw2_bit_offset;
			else
				pos = (int64_t)m->offset * 8 + unit - m->dw2_bit_offset - m->bit_size;
			if (pos < 0 || unit <= 0 || unit > 1024) {
				ds_dso_set_note(l->d, "DWARF in '%s': types: a bit field of '%s' lies outside its struct",
						l->d->dwarf->path, n->name ? n->name : "(anonymous)");
				pos = (int64_t)m->offset * 8;
			}
			m->bitpos = (uint64_t)pos;
		}
	}
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	return mix(h, s ? ds_hash_bytes(s, strlen(s)) : 0x51ed270b27a5d3ull);
}

/* Structs and classes are one name space in C++ (`class X;` declares what
 * `struct X {}` defines), unions and enums their own. */
static uint64_t kind_space(uint8_t kind)
{
	return kind == DS_TYPE_CLASS ? DS_TYPE_STRUCT : kind;
}

static void shallow_hashes(loader *l)
{
	for (size_t i = 0; i < l->nodes.n; i++) {
		tnode *n = &l->nodes.v[i];
		uint64_t h;
		if (!is_aggregate(n->kind))
			continue;
		h = mix(mix(kind_space(n->kind), n->size), (n->flags & NF_DECL) ? 1 : 2);
		h = mix(mix_str(h, n->name), n->align);
		if (n->kind != DS_TYPE_ENUM)
			for (uint32_t k = 0; k < n->count; k++) {
				const rmem *m = &l->rmems.v[n->first + k];
				h = mix_str(h, m->name);
				h = mix(h, m->offset);
				h = mix(h, m->bitpos);
				h = mix(h, ((uint64_t)m->bit_size << 8) | (m->flags & (MF_BASE | MF_BITS)));
				h = mix(h, m->align);
			}
		n->shallow = h;
	}
}

typedef struct name_ent {
	uint64_t key;   /* kind space and name */
	uint32_t node;
} name_ent;

static int name_ent_cmp(const void *a, const void *b)
{
	const name_ent *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* A declaration takes the definition of the same kind and name when every
 * definition of that name has one layout; with several, which one a
 * declaration means is unknown and it stays incomplete. */
static void resolve_declarations(loader *l)
{
	DS_VEC(name_ent) defs = {0};

	for (size_t i = 0; i < l->nodes.n; i++) {
		const tnode *n = &l->nodes.v[i];
		if (is_aggregate(n->kind) && n->name && !(n->flags & NF_DECL))
			ds_vec_push(&defs, ((name_ent){mix_str(kind_space(n->kind), n->name), (uint32_t)i}));
	}
	ds_sort(defs.v, defs.n, sizeof *defs.v, name_ent_cmp);
	for (size_t i = 0; i < l->nodes.n; i++) {
		tnode *n = &l->nodes.v[i];
		name_ent key;
		size_t lo = 0, hi = defs.n;
		if (!is_aggregate(n->kind) || !n->name || !(n->flags & NF_DECL))
			continue;
		key.key = mix_str(kind_space(n->kind), n->name);
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (defs.v[mid].key < key.key)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == defs.n || defs.v[lo].key != key.key)
			continue;
		bool one = true;
		for (size_t k = lo + 1; k < defs.n && defs.v[k].key == key.key; k++)
			one = one && l->nodes.v[defs.v[k].node].shallow ==
					     l->nodes.v[defs.v[lo].node].shallow;
		if (one && strcmp(l->nodes.v[defs.v[lo].node].name, n->name) == 0)
			n->resolve = defs.v[lo].node;
	}
	ds_vec_free(&defs);
}

static uint32_t follow(const loader *l, uint32_t i)
{
	if (i != NO_NODE && l->nodes.v[i].resolve != NO_NODE)
		return l->nodes.v[i].resolve;
	return i;
}

/* Sizes of the types whose size comes from another (typedefs, qualifiers,
 * arrays), through declarations resolved to their definitions. */
static uint64_t node_size(loader *l, uint32_t i, int depth)
{
	tnode *n;
	uint64_t size;

	i = follow(l, i);
	if (i == NO_NODE)
		return 0;
	n = &l->nodes.v[i];
	if (n->flags & (NF_SIZED | NF_SIZE_DONE))
		return n->size;
	if (depth > MAX_CHAIN || (n->flags & NF_ON_STACK))
		return 0;
	n->flags |= NF_ON_STACK;
	if (n->kind == DS_TYPE_ARRAY) {
		size = node_size(l, n->target, depth + 1);
		for (uint32_t k = 0; k < n->count; k++) {
			uint64_t dim = l->dims.v[n->first + k];
			size = dim && size > UINT64_MAX / dim ? 0 : size * dim;
		}
	} else if (is_qualifier(n)) {
		size = node_size(l, n->target, depth + 1);
	} else if (n->kind == DS_TYPE_OTHER && n->target != NO_NODE && !n->name) {
		/* a pointer to member: two words when it points to a method */
		size = l->nodes.v[n->target].kind == DS_TYPE_FUNCTION ? 16 : 8;
	} else {
		size = n->size;
	}
	n = &l->nodes.v[i];
	n->flags &= (uint16_t)~NF_ON_STACK;
	n->flags |= NF_SIZE_DONE;
	n->size = size;
	return size;
}

static uint64_t full_hash(loader *l, uint32_t i, int depth);

/* How a reference to node i hashes: aggregates by their shallow hash,
 * which is what breaks cycles; everything else by its structure. */
static uint64_t ref_hash(loader *l, uint32_t i, int depth)
{
	i = follow(l, i);
	if (i == NO_NODE)
		return 0x766f6964ull; /* void */
	if (is_aggregate(l->nodes.v[i].kind))
		return l->nodes.v[i].shallow;
	return full_hash(l, i, depth);
}

static uint64_t full_hash(loader *l, uint32_t i, int depth)
{
	tnode *n = &l->nodes.v[i];
	uint64_t h;

	if (n->flags & NF_FULL_DONE)
		return n->full;
	/* A cycle that does not pass through an aggregate is corrupt. */
	if (depth > MAX_CHAIN || (n->flags & NF_ON_STACK))
		return 0xc1c1e;
	n->flags |= NF_ON_STACK;
	if (is_aggregate(n->kind))
		h = n->shallow;
	else
		h = mix_str(mix(mix(n->kind, n->size), n->flags & (NF_VARARGS | NF_ATOMIC)), n->name);
	if (n->kind != DS_TYPE_ARRAY && n->kind != DS_TYPE_ENUM)
		for (uint32_t k = 0; k < n->count; k++)
			h = mix(h, ref_hash(l, l->rmems.v[n->first + k].type, depth + 1));
	else if (n->kind == DS_TYPE_ARRAY)
		for (uint32_t k = 0; k < n->count; k++)
			h = mix(h, l->dims.v[n->first + k]);
	if (n->kind != DS_TYPE_STRUCT && n->kind != DS_TYPE_UNION && n->kind != DS_TYPE_CLASS)
		h = mix(h, ref_hash(l, n->target, depth + 1));
	n = &l->nodes.v[i];
	n->flags &= (uint16_t)~NF_ON_STACK;
	n->flags |= NF_FULL_DONE;
	n->full = h;
	return h;
}

/* ---- building the types ---- */

typedef struct builder {
	loader *l;
	struct ds_typetab *tt;
	uint32_t *rep;          /* canonical type -> representative node */
} builder;

static const ds_type *canon_type(const builder *b, uint32_t node)
{
	node = follow(b->l, node);
	return &b->tt->types[node == NO_NODE ? 0 : b->l->nodes.v[node].canon];
}

/* One ds_type per distinct full hash; the hash table hands out dense
 * indexes in first-seen order, so index + 1 is the type (0 is void). */
static void canonicalize(builder *b)
{
	loader *l = b->l;
	ds_hash *h = ds_hash_new();
	size_t nmem = 0, ndim = 0;

	for (size_t i = 0; i < l->nodes.n; i++)
		full_hash(l, (uint32_t)i, 0);
	b->rep = ds_xmalloc((l->nodes.n + 1) * sizeof *b->rep);
	for (size_t i = 0; i < l->nodes.n; i++) {
		tnode *n = &l->nodes.v[i];
		bool added;
		/* a resolved declaration is its definition's type */
		if (n->resolve != NO_NODE)
			continue;
		n->canon = (uint32_t)ds_hash_intern(h, &n->full, sizeof n->full, &added) + 1;
		if (!added)
			continue;
		b->rep[n->canon] = (uint32_t)i;
		if (n->kind == DS_TYPE_ARRAY)
			ndim += n->count;
		else if (n->kind != DS_TYPE_ENUM)
			nmem += n->count;
	}
	b->tt->ntypes = ds_hash_count(h) + 1;
	ds_hash_free(h);
	b->tt->types = ds_xcalloc(b->tt->ntypes, sizeof *b->tt->types);
	b->tt->members = ds_xcalloc(nmem ? nmem : 1, sizeof *b->tt->members);
	b->tt->dims = ds_xcalloc(ndim ? ndim : 1, sizeof *b->tt->dims);
}

static void fill_types(builder *b)
{
	loader *l = b->l;
	struct ds_typetab *tt = b->tt;
	size_t nmem = 0, ndim = 0;

	tt->types[0].kind = DS_TYPE_VOID;
	tt->types[0].name = "void";
	for (size_t c = 1; c < tt->ntypes; c++) {
		const tnode *n = &l->nodes.v[b->rep[c]];
		ds_type *t = &tt->types[c];

		t->kind = n->kind;
		t->name = n->name;
		t->size = node_size(l, b->rep[c], 0);
		t->align = n->align;
		t->decl_line = n->decl_line;
		t->decl_file = n->decl_file ? ds_hash_key(l->files, n->decl_file - 1, NULL) : NULL;
		if (n->kind != DS_TYPE_STRUCT && n->kind != DS_TYPE_UNION && n->kind != DS_TYPE_CLASS &&
		    !(n->kind == DS_TYPE_ENUM && n->target == NO_NODE) && n->kind != DS_TYPE_BASE)
			t->target = canon_type(b, n->target);
		if (n->kind == DS_TYPE_ARRAY) {
			t->dims = tt->dims + ndim;
			t->ndims = n->count;
			if (n->count)
				memcpy(tt->dims + ndim, l->dims.v + n->first, n->count * sizeof *tt->dims);
			ndim += n->count;
			continue;
		}
		if (n->kind == DS_TYPE_ENUM)
			continue;
		t->members = tt->members + nmem;
		t->nmembers = n->count;
		for (uint32_t k = 0; k < n->count; k++) {
			const rmem *r = &l->rmems.v[n->first + k];
			ds_member *m = &tt->members[nmem++];
			m->name = r->name;
			m->type = (r->flags & MF_VARARGS) ? NULL : canon_type(b, r->type);
			if (r->flags & MF_BITS) {
				m->offset = r->bitpos / 8;
				m->bit_offset = (uint32_t)(r->bitpos % 8);
				m->bit_size = r->bit_size;
			} else {
				m->offset = r->offset;
			}
			m->base_class = r->flags & MF_BASE;
			m->align = r->align;
		}
	}
}

/* Every type DIE offset with the ds_type it maps to: nodes are in offset
 * order already. */
static void fill_die_map(builder *b)
{
	loader *l = b->l;
	struct ds_typetab *tt = b->tt;

	tt->ndies = l->nodes.n;
	tt->die_off = ds_xmalloc((l->nodes.n ? l->nodes.n : 1) * sizeof *tt->die_off);
	tt->die_type = ds_xmalloc((l->nodes.n ? l->nodes.n : 1) * sizeof *tt->die_type);
	for (size_t i = 0; i < l->nodes.n; i++) {
		uint32_t f = follow(l, (uint32_t)i);
		tt->die_off[i] = l->nodes.v[i].off;
		tt->die_type[i] = l->nodes.v[f].canon;
	}
}

/* Sorting thousands of names: the first eight bytes, as a big-endian
 * number, decide most comparisons without strcmp. */
typedef struct name_key {
	uint64_t prefix;
	const ds_type *t;
} name_key;

static uint64_t name_prefix(const char *s)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++) {
		v = v << 8 | (unsigned char)*s;
		s += *s != 0;
	}
	return v;
}

static int name_key_cmp(const void *a, const void *b)
{
	const name_key *x = a, *y = b;
	int c;

	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	c = strcmp(x->t->name, y->t->name);
	/* ties keep the order types were first met in (index order) */
	return c ? c : (x->t < y->t ? -1 : x->t > y->t);
}

static bool is_named_anonymous(const ds_type *t)
{
	return t->kind == DS_TYPE_TYPEDEF && t->target && !t->target->name &&
	       is_aggregate((uint8_t)t->target->kind);
}

/* The list: named struct, union, class and enum definitions, and typedef
 * names of anonymous ones.  The lookup index: every named type. */
static void fill_lists(builder *b, const bool *is_decl)
{
	struct ds_typetab *tt = b->tt;

	name_key *keys = ds_xmalloc(tt->ntypes * sizeof *keys);

	tt->list = ds_xmalloc(tt->ntypes * sizeof *tt->list);
	tt->names = ds_xmalloc(tt->ntypes * sizeof *tt->names);
	for (size_t c = 1; c < tt->ntypes; c++) {
		const ds_type *t = &tt->types[c];
		if (t->name && t->kind != DS_TYPE_POINTER && t->kind != DS_TYPE_OTHER && !is_decl[c])
			keys[tt->nnames++] = (name_key){name_prefix(t->name), t};
	}
	ds_sort(keys, tt->nnames, sizeof *keys, name_key_cmp);
	for (size_t i = 0; i < tt->nnames; i++)
		tt->names[i] = keys[i].t;
	free(keys);
	for (size_t i = 0; i < tt->nnames; i++)
		if (is_aggregate((uint8_t)tt->names[i]->kind) || is_named_anonymous(tt->names[i]))
			tt->list[tt->nlist++] = tt->names[i];
}

/* ---- definitions that share a name ----
 * The same struct in forty units is one type; but two different
 * definitions of one name (struct node in tu1.c and another in tu2.c)
 * are two types that nothing in their names tells apart.  Each such
 * definition gets a `where`: the file and line of its declaration, with
 * as few of the file's last path components as make the labels of that
 * name differ ("tu2.c:3"; "a/node.h:3" and "b/node.h:3"), and "#N", its
 * rank among them, when even whole paths do not (one header compiled
 * with different macros).  Types that differ only in what their pointer
 * members point to are one definition here (ds_type_same). */

/* The aggregate a listed type defines: itself, or the anonymous one a
 * typedef names. */
static ds_type *defined(const ds_type *t)
{
	return (ds_type *)(t->kind == DS_TYPE_TYPEDEF ? t->target : t);
}

/* Structs and classes are one name space, typedefs another. */
static int list_space(const ds_type *t)
{
	return t->kind == DS_TYPE_CLASS ? DS_TYPE_STRUCT : (int)t->kind;
}

/* The last `parts` components of path ("a/node.h" for 2). */
static const char *path_tail(const char *path, int parts)
{
	const char *p = path + strlen(path);

	while (p > path) {
		if (p[-1] == '/' && --parts == 0)
			break;
		p--;
	}
	return p;
}

static char *where_label(const ds_type *t, int parts, size_t rank)
{
	if (!t->decl_file)
		return ds_xasprintf("#%zu", rank + 1);
	if (parts < 0)
		return ds_xasprintf("%s:%u #%zu", path_tail(t->decl_file, 1), t->decl_line, rank + 1);
	return ds_xasprintf("%s:%u", path_tail(t->decl_file, parts), t->decl_line);
}

/* Labels for the distinct definitions reps[0..n) of one name. */
static void label_definitions(struct ds_typetab *tt, ds_type **reps, size_t n, char **labels)
{
	for (int parts = 1;; parts++) {
		bool unique = true, whole = true;
		for (size_t i = 0; i < n; i++) {
			labels[i] = where_label(reps[i], parts, i);
			whole &= !reps[i]->decl_file || path_tail(reps[i]->decl_file, parts) == reps[i]->decl_file;
		}
		for (size_t i = 0; i < n && unique; i++)
			for (size_t k = i + 1; k < n && unique; k++)
				unique = strcmp(labels[i], labels[k]) != 0;
		if (unique)
			break;
		for (size_t i = 0; i < n; i++)
			free(labels[i]);
		if (whole) {
			for (size_t i = 0; i < n; i++)
				labels[i] = where_label(reps[i], -1, i);
			break;
		}
	}
	tt->wheres = ds_xrealloc(tt->wheres, (tt->nwheres + n) * sizeof *tt->wheres);
	for (size_t i = 0; i < n; i++)
		tt->wheres[tt->nwheres++] = labels[i];
}

/* The listed types of one name space and name. */
static void label_run(struct ds_typetab *tt, const ds_type **run, size_t n)
{
	size_t nrep = 0;
	ds_type **reps = ds_xcalloc(n, sizeof *reps);
	size_t *cls = ds_xcalloc(n, sizeof *cls);
	char **labels;

	for (size_t i = 0; i < n; i++) {
		ds_type *t = defined(run[i]);
		size_t k;
		for (k = 0; k < nrep && !ds_type_same(reps[k], t); k++)
			;
		if (k == nrep)
			reps[nrep++] = t;
		cls[i] = k;
	}
	if (nrep > 1) {
		labels = ds_xcalloc(nrep, sizeof *labels);
		label_definitions(tt, reps, nrep, labels);
		for (size_t i = 0; i < n; i++)
			defined(run[i])->where = labels[cls[i]];
		free(labels);
	}
	free(reps);
	free(cls);
}

/* The list is sorted by name: the types of one name are side by side,
 * and each name space of them is a run. */
static void label_homonyms(struct ds_typetab *tt)
{
	const ds_type **run = ds_xcalloc(tt->nlist ? tt->nlist : 1, sizeof *run);

	for (size_t i = 0; i < tt->nlist;) {
		size_t j = i + 1;
		while (j < tt->nlist && strcmp(tt->list[j]->name, tt->list[i]->name) == 0)
			j++;
		for (size_t a = i; j - i > 1 && a < j; a++) {
			size_t n = 0;
			bool seen = false;
			for (size_t b = i; b < a && !seen; b++)
				seen = list_space(tt->list[b]) == list_space(tt->list[a]);
			if (seen)
				continue;
			for (size_t b = a; b < j; b++)
				if (list_space(tt->list[b]) == list_space(tt->list[a]))
					run[n++] = tt->list[b];
			if (n > 1)
				label_run(tt, run, n);
		}
		i = j;
	}
	free(run);
}

static void build(loader *l, struct ds_typetab *tt)
{
	builder b = {.l = l, .tt = tt};
	bool *is_decl;

	resolve_refs(l);
	convert_bits(l);
	shallow_hashes(l);
	resolve_declarations(l);
	canonicalize(&b);
	fill_types(&b);
	fill_die_map(&b);
	is_decl = ds_xcalloc(tt->ntypes, sizeof *is_decl);
	for (size_t c = 1; c < tt->ntypes; c++)
		is_decl[c] = l->nodes.v[b.rep[c]].flags & NF_DECL;
	fill_lists(&b, is_decl);
	label_homonyms(tt);
	free(is_decl);
	free(b.rep);
}

static void loader_free(loader *l)
{
	ds_vec_free(&l->nodes);
	ds_vec_free(&l->rmems);
	ds_vec_free(&l->scratch);
	ds_vec_free(&l->dims);
	ds_vec_free(&l->sigs);
	ds_vec_free(&l->abbrevs);
	ds_vec_free(&l->specs);
	ds_hash_free(l->abbrev_at);
	ds_buf_free(&l->scope);
}

static void load_types(ds_dso *d)
{
	static const char *const sections[] = {
		".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets",
		".debug_addr", ".debug_types",
	};
	struct ds_typetab *tt = ds_xcalloc(1, sizeof *tt);
	loader l = {.d = d, .unit = {.d = d, .who = "types"}};
	ds_dwarf *dw;

	d->types = tt;
	tt->files = l.files = ds_hash_new();
	tt->qnames = l.qnames = ds_hash_new();
	if (d->dwarf && !d->kallsyms) {
		/* without allocation records (see ds_unit_files); the global
		 * flag is restored as soon as the handles are gone */
		int old = dwarf_set_de_alloc_flag(0);
		dw = ds_dwarf_open(d, sections, sizeof sections / sizeof sections[0]);
		if (dw) {
			l.dbg = ds_dwarf_debug(dw);
			l.msb = d->dwarf->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
			l.info.p = ds_dwarf_section(dw, ".debug_info", &l.info.n);
			l.types.p = ds_dwarf_section(dw, ".debug_types", &l.types.n);
			l.str.p = ds_dwarf_section(dw, ".debug_str", &l.str.n);
			l.line_str.p = ds_dwarf_section(dw, ".debug_line_str", &l.line_str.n);
			l.str_offsets.p = ds_dwarf_section(dw, ".debug_str_offsets", &l.str_offsets.n);
			l.abbrev_at = ds_hash_new();
			l.total = l.info.n;
			if (d->progress)
				ds_progress_begin(&l.prog, "reading types");
			read_units(&l, true);
			if (l.types.p)
				read_units(&l, false);
			ds_progress_end(&l.prog);
			ds_unit_files_close(&l.unit);
			ds_dwarf_close(dw);
			l.dbg = NULL;
		}
		dwarf_set_de_alloc_flag(old);
	}
	build(&l, tt);
	loader_free(&l);
}

void ds_dso_free_types(ds_dso *d)
{
	struct ds_typetab *tt = d->types;

	if (!tt)
		return;
	free(tt->types);
	free(tt->members);
	free(tt->dims);
	free(tt->die_off);
	free(tt->die_type);
	free(tt->list);
	free(tt->names);
	ds_hash_free(tt->files);
	ds_hash_free(tt->qnames);
	for (size_t i = 0; i < tt->nwheres; i++)
		free(tt->wheres[i]);
	free(tt->wheres);
	free(tt);
	d->types = NULL;
}

static struct ds_typetab *typetab(ds_dso *d)
{
	if (!d->types)
		load_types(d);
	return d->types;
}

/* ---- queries ---- */

size_t ds_dso_ntypes(ds_dso *d)
{
	return typetab(d)->nlist;
}

const ds_type *ds_dso_type(ds_dso *d, size_t i)
{
	struct ds_typetab *tt = typetab(d);
	return i < tt->nlist ? tt->list[i] : NULL;
}

const ds_type *ds_dso_type_at_die(ds_dso *d, uint64_t die_offset)
{
	struct ds_typetab *tt = typetab(d);
	size_t lo = 0, hi = tt->ndies;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tt->die_off[mid] < die_offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == tt->ndies || tt->die_off[lo] != die_offset)
		return NULL;
	return &tt->types[tt->die_type[lo]];
}

/* How well a type of this kind answers a name without a prefix: a tag
 * first, then a typedef, then anything else of that name. */
static int name_rank(const ds_type *t)
{
	switch (t->kind) {
	case DS_TYPE_STRUCT: case DS_TYPE_CLASS: case DS_TYPE_UNION: return 0;
	case DS_TYPE_TYPEDEF: return 1;
	case DS_TYPE_ENUM: return 2;
	default: return 3;
	}
}

static bool kind_matches(const ds_type *t, const char *prefix)
{
	if (!prefix)
		return t->kind != DS_TYPE_POINTER;
	if (strcmp(prefix, "union") == 0)
		return t->kind == DS_TYPE_UNION;
	if (strcmp(prefix, "enum") == 0)
		return t->kind == DS_TYPE_ENUM;
	return t->kind == DS_TYPE_STRUCT || t->kind == DS_TYPE_CLASS;
}

/* The where a type is told apart by: its own, or for a typedef of an
 * anonymous aggregate, the aggregate's. */
static const char *where_of(const ds_type *t)
{
	const ds_type *s = t->kind == DS_TYPE_TYPEDEF ? ds_type_strip(t->target) : NULL;

	if (t->where)
		return t->where;
	return s && !s->name && is_aggregate((uint8_t)s->kind) ? s->where : NULL;
}

/* "struct node (tu2.c:3)": the name before " (", the where inside. */
static const char *split_where(const char *name, char **base)
{
	size_t n = strlen(name);
	const char *open = n && name[n - 1] == ')' ? strrchr(name, '(') : NULL;

	*base = NULL;
	if (!open || open == name || open[-1] != ' ')
		return NULL;
	*base = ds_xstrndup(name, (size_t)(open - 1 - name));
	return open + 1;
}

bool ds_name_tail(const char *q, size_t qlen, const char *want, size_t wlen)
{
	int depth = 0;

	if (qlen == wlen)
		return memcmp(q, want, wlen) == 0;
	if (qlen < wlen + 2 || memcmp(q + qlen - wlen, want, wlen) != 0 || memcmp(q + qlen - wlen - 2, "::", 2) != 0)
		return false;
	/* the "::" must be a scope's, not one inside template arguments */
	for (size_t i = 0; i < qlen - wlen - 2; i++)
		depth += (q[i] == '<' || q[i] == '(') - (q[i] == '>' || q[i] == ')');
	return depth == 0;
}

/* The types ds_dso_find_types answers so far: how many, and the best
 * rank of a name without a prefix. */
typedef struct found {
	const char *prefix, *where;
	size_t wlen, n, max;
	int best;
	const ds_type **out;
} found;

static void consider(found *f, const ds_type *t)
{
	const char *w = where_of(t);

	if (!kind_matches(t, f->prefix) ||
	    (f->where && (!w || strlen(w) != f->wlen || strncmp(w, f->where, f->wlen) != 0)))
		return;
	if (name_rank(t) < f->best) {
		f->best = name_rank(t);
		f->n = 0;
	}
	if (name_rank(t) == f->best && f->n++ < f->max)
		f->out[f->n - 1] = t;
}

size_t ds_dso_find_types(ds_dso *d, const char *name, const ds_type **out, size_t max)
{
	static const char *const prefixes[] = {"struct", "union", "class", "enum"};
	struct ds_typetab *tt = typetab(d);
	const char *where;
	char *base;
	size_t lo = 0, hi = tt->nnames;
	found f = {.max = max, .best = 4, .out = out};

	where = split_where(name, &base);
	if (where) {
		f.where = where;
		f.wlen = strlen(where) - 1;
		name = base;
	}
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t k = strlen(prefixes[i]);
		if (strncmp(name, prefixes[i], k) == 0 && name[k] == ' ') {
			f.prefix = prefixes[i];
			name += k + 1;
			break;
		}
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(tt->names[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < tt->nnames && strcmp(tt->names[hi]->name, name) == 0; hi++)
		consider(&f, tt->names[hi]);
	/* no type has that whole name: the types whose last scopes it is
	 * ("Node" names a::Node and b::Node) */
	for (size_t i = 0, whole = f.n; !whole && i < tt->nnames; i++)
		if (ds_name_tail(tt->names[i]->name, strlen(tt->names[i]->name), name, strlen(name)))
			consider(&f, tt->names[i]);
	free(base);
	return f.n;
}

const ds_type *ds_dso_find_type(ds_dso *d, const char *name)
{
	const ds_type *t = NULL;

	return ds_dso_find_types(d, name, &t, 1) ? t : NULL;
}

/* ---- one definition, wherever it comes from ---- */

static bool same_in(const ds_type *a, const ds_type *b, int depth);

static bool same_member_type(const ds_type *a, const ds_type *b, int depth)
{
	const ds_type *sa = ds_type_strip(a), *sb = ds_type_strip(b);
	ds_buf na = {0}, nb = {0};
	bool same;

	if (a == b)
		return true;
	if (!a || !b)
		return false;
	/* an anonymous struct or union is its members */
	if (sa && sb && !sa->name && !sb->name && is_aggregate((uint8_t)sa->kind) &&
	    !same_in(sa, sb, depth + 1))
		return false;
	ds_type_name(a, &na);
	ds_type_name(b, &nb);
	same = strcmp(ds_buf_str(&na), ds_buf_str(&nb)) == 0;
	ds_buf_free(&na);
	ds_buf_free(&nb);
	return same;
}

static bool same_in(const ds_type *a, const ds_type *b, int depth)
{
	if (a == b)
		return true;
	if (!a || !b || depth > MAX_CHAIN || a->kind != b->kind || a->size != b->size ||
	    a->nmembers != b->nmembers || !a->name != !b->name ||
	    (a->name && strcmp(a->name, b->name) != 0))
		return false;
	for (size_t i = 0; i < a->nmembers; i++) {
		const ds_member *x = &a->members[i], *y = &b->members[i];
		if (x->offset != y->offset || x->bit_offset != y->bit_offset ||
		    x->bit_size != y->bit_size || x->base_class != y->base_class ||
		    !x->name != !y->name || (x->name && strcmp(x->name, y->name) != 0) ||
		    !same_member_type(x->type, y->type, depth))
			return false;
	}
	return true;
}

bool ds_type_same(const ds_type *a, const ds_type *b)
{
	return same_in(a, b, 0);
}

const ds_type *ds_type_strip(const ds_type *t)
{
	for (int k = 0; t && k < MAX_CHAIN; k++) {
		if (t->kind != DS_TYPE_TYPEDEF && t->kind != DS_TYPE_CONST &&
		    t->kind != DS_TYPE_VOLATILE && t->kind != DS_TYPE_RESTRICT &&
		    !(t->kind == DS_TYPE_OTHER && t->name && strcmp(t->name, "_Atomic") == 0))
			return t;
		t = t->target;
	}
	return t;
}

/* ---- names in C syntax ---- */

static const char *tag_word(const ds_type *t)
{
	switch (t->kind) {
	case DS_TYPE_STRUCT: return "struct ";
	case DS_TYPE_UNION: return "union ";
	case DS_TYPE_CLASS: return "class ";
	case DS_TYPE_ENUM: return "enum ";
	default: return "";
	}
}

static void prepend(ds_buf *decl, const char *s)
{
	size_t n = strlen(s);
	ds_buf_reserve(decl, n + 1);
	memmove(decl->p + n, decl->p, decl->len + 1);
	memcpy(decl->p, s, n);
	decl->len += n;
}

/* Whether q is one of the words of out (the qualifiers put in front of
 * the type so far). */
static bool has_qualifier(const ds_buf *out, const char *q)
{
	const char *w = out->len ? out->p : "";
	while (*w) {
		size_t len = strcspn(w, " ");
		if (len == strlen(q) && !strncmp(w, q, len))
			return true;
		w += len;
		w += *w == ' ';
	}
	return false;
}

/* C declarations read inside out: the declarator `decl` grows around the
 * name as pointers, arrays and functions wrap it, and the innermost type
 * finally goes in front. */
static void c_name(const ds_type *t, ds_buf *decl, ds_buf *out, int depth)
{
	if (!t || depth > MAX_CHAIN) {
		ds_buf_puts(out, t ? "..." : "void");
		if (decl->len)
			ds_buf_printf(out, " %s", decl->p);
		return;
	}
	switch (t->kind) {
	case DS_TYPE_POINTER:
		prepend(decl, t->name ? t->name : "*");
		if (t->target && (t->target->kind == DS_TYPE_ARRAY || t->target->kind == DS_TYPE_FUNCTION)) {
			prepend(decl, "(");
			ds_buf_putc(decl, ')');
		}
		c_name(t->target, decl, out, depth + 1);
		return;
	case DS_TYPE_ARRAY:
		for (size_t i = 0; i < t->ndims; i++) {
			if (t->dims[i])
				ds_buf_printf(decl, "[%llu]", (unsigned long long)t->dims[i]);
			else
				ds_buf_puts(decl, "[]");
		}
		c_name(t->target, decl, out, depth + 1);
		return;
	case DS_TYPE_FUNCTION:
		ds_buf_putc(decl, '(');
		for (size_t i = 0; i < t->nmembers; i++) {
			ds_buf sub = {0};
			if (i)
				ds_buf_puts(decl, ", ");
			if (t->members[i].type)
				ds_type_name(t->members[i].type, &sub);
			else
				ds_buf_puts(&sub, "...");
			ds_buf_puts(decl, ds_buf_str(&sub));
			ds_buf_free(&sub);
		}
		ds_buf_puts(decl, t->nmembers ? ")" : "void)");
		c_name(t->target, decl, out, depth + 1);
		return;
	case DS_TYPE_CONST:
	case DS_TYPE_VOLATILE:
	case DS_TYPE_RESTRICT: {
		const char *q = t->kind == DS_TYPE_CONST ? "const" :
				t->kind == DS_TYPE_VOLATILE ? "volatile" : "restrict";
		/* a qualified pointer: the qualifier follows the star */
		if (t->target && t->target->kind == DS_TYPE_POINTER) {
			prepend(decl, decl->len ? " " : "");
			prepend(decl, q);
			c_name(t->target, decl, out, depth + 1);
			return;
		}
		/* a qualified array's elements are (C11 6.7.3): GCC says so
		 * twice, on the array and on its element type, and C once */
		if (!has_qualifier(out, q))
			ds_buf_printf(out, "%s ", q);
		c_name(t->target, decl, out, depth + 1);
		return;
	}
	default:
		break;
	}
	if (t->kind == DS_TYPE_OTHER && t->name && strcmp(t->name, "_Atomic") == 0) {
		ds_buf_puts(out, "_Atomic ");
		c_name(t->target, decl, out, depth + 1);
		return;
	}
	if (t->kind == DS_TYPE_OTHER && !t->name && t->target) { /* a pointer to member */
		prepend(decl, "::*");
		c_name(t->target, decl, out, depth + 1);
		return;
	}
	ds_buf_puts(out, tag_word(t));
	ds_buf_puts(out, t->name ? t->name : "{...}");
	if (decl->len)
		ds_buf_printf(out, " %s", decl->p);
}

void ds_type_name(const ds_type *t, ds_buf *out)
{
	ds_buf decl = {0};

	ds_buf_puts(&decl, "");
	c_name(t, &decl, out, 0);
	ds_buf_free(&decl);
}

void ds_type_ident(const ds_type *t, ds_buf *out)
{
	const ds_type *s = t && t->kind == DS_TYPE_TYPEDEF ? ds_type_strip(t->target) : NULL;
	const char *w = t ? where_of(t) : NULL;

	if (s && !s->name && t->name && is_aggregate((uint8_t)s->kind))
		ds_buf_puts(out, t->name);
	else
		ds_type_name(t, out);
	if (w)
		ds_buf_printf(out, " (%s)", w);
}

/* ---- member paths ---- */

/* A class without data, its bases' included (C++ gives it size 1). */
static bool empty_class(const ds_type *s, int depth)
{
	if (!s || (s->kind != DS_TYPE_STRUCT && s->kind != DS_TYPE_CLASS) || depth >= MAX_CHAIN)
		return false;
	for (size_t i = 0; i < s->nmembers; i++)
		if (!s->members[i].base_class || !empty_class(ds_type_strip(s->members[i].type), depth + 1))
			return false;
	return true;
}

/* The bytes member m occupies within its parent, [*lo, *hi): none for an
 * empty base class, which shares its address with the members after it
 * (std::vector's allocator base at offset 0 of _Vector_impl, beside
 * _M_start). */
static void member_span(const ds_member *m, uint64_t *lo, uint64_t *hi)
{
	const ds_type *s = ds_type_strip(m->type);

	if (m->base_class && empty_class(s, 0)) {
		*lo = *hi = m->offset;
		return;
	}

	if (m->bit_size) {
		*lo = m->offset;
		*hi = m->offset + (m->bit_offset + m->bit_size + 7) / 8;
		return;
	}
	*lo = m->offset;
	/* a flexible array member reaches past the end of its struct */
	if (s && s->kind == DS_TYPE_ARRAY && s->size == 0)
		*hi = UINT64_MAX;
	else
		*hi = m->offset + (s ? s->size : 0);
}

static bool covers(const ds_member *m, uint64_t offset)
{
	uint64_t lo, hi;
	member_span(m, &lo, &hi);
	return offset >= lo && offset < hi;
}

static bool path_in(const ds_type *t, uint64_t offset, uint32_t size, ds_buf *path,
		    const ds_member **leaf, int depth);

/* The size of the leaf an access at offset would reach inside m. */
static uint64_t leaf_size(const ds_member *m, uint64_t offset, uint32_t size)
{
	ds_buf scratch = {0};
	const ds_member *leaf = m;
	uint64_t n;

	if (!m->bit_size)
		path_in(m->type, offset - m->offset, size, &scratch, &leaf, 1);
	ds_buf_free(&scratch);
	n = ds_type_strip(leaf->type) ? ds_type_strip(leaf->type)->size : 0;
	return leaf->bit_size ? (leaf->bit_size + 7) / 8 : n;
}

/* In a union (or among a struct's members that share bytes), the member
 * for an access of `size` bytes: one of that size, else one whose
 * innermost member there has that size, else the first. */
static const ds_member *union_member(const ds_type *t, uint64_t offset, uint32_t size)
{
	const ds_member *first = NULL;

	for (size_t i = 0; i < t->nmembers; i++) {
		const ds_member *m = &t->members[i];
		const ds_type *s = ds_type_strip(m->type);
		if (!covers(m, offset))
			continue;
		if (!first)
			first = m;
		if (!m->bit_size && s && s->size == size)
			return m;
	}
	for (size_t i = 0; i < t->nmembers; i++)
		if (covers(&t->members[i], offset) && leaf_size(&t->members[i], offset, size) == size)
			return &t->members[i];
	return first;
}

/* In a struct, the member at offset; for bit fields sharing a byte, the
 * first whose bits cover it.  *before gets the last member starting at or
 * before offset, for holes. */
static const ds_member *struct_member(const ds_type *t, uint64_t offset, const ds_member **before)
{
	*before = NULL;
	for (size_t i = 0; i < t->nmembers; i++) {
		const ds_member *m = &t->members[i];
		if (covers(m, offset))
			return m;
		if (m->offset <= offset)
			*before = m;
	}
	return NULL;
}

/* Whether another member than m, not a bit field, covers offset too. */
static bool overlapped(const ds_type *t, const ds_member *m, uint64_t offset)
{
	for (size_t i = 0; i < t->nmembers; i++)
		if (&t->members[i] != m && !t->members[i].bit_size && covers(&t->members[i], offset))
			return true;
	return false;
}

static void add_component(ds_buf *path, const char *name)
{
	if (!name)
		return;
	if (path->len)
		ds_buf_putc(path, '.');
	ds_buf_puts(path, name);
}

static bool path_in(const ds_type *t, uint64_t offset, uint32_t size, ds_buf *path,
		    const ds_member **leaf, int depth)
{
	t = ds_type_strip(t);
	while (t && depth < MAX_CHAIN) {
		const ds_member *m, *before;

		if (t->kind == DS_TYPE_ARRAY) {
			const ds_type *elem = ds_type_strip(t->target);
			bool flexible = t->size == 0;
			if (!flexible && offset >= t->size)
				return false;
			for (size_t i = 0; i < t->ndims; i++)
				ds_buf_puts(path, "[]");
			if (!elem || elem->size == 0)
				return true;
			offset %= elem->size;
			t = elem;
			depth++;
			continue;
		}
		if (t->kind != DS_TYPE_STRUCT && t->kind != DS_TYPE_CLASS && t->kind != DS_TYPE_UNION)
			return offset < t->size;
		if (t->kind == DS_TYPE_UNION) {
			m = union_member(t, offset, size);
			before = NULL;
		} else {
			m = struct_member(t, offset, &before);
			/* members that share bytes ([[no_unique_address]]: an empty
			 * deleter beside the pointer of a std::unique_ptr) are chosen
			 * as a union's are */
			if (m && !m->bit_size && overlapped(t, m, offset))
				m = union_member(t, offset, size);
		}
		if (!m) {
			if (before) {
				add_component(path, before->name);
				*leaf = before;
			}
			return false;
		}
		add_component(path, m->name);
		*leaf = m;
		if (m->bit_size)
			return true;
		offset -= m->offset;
		t = ds_type_strip(m->type);
		depth++;
	}
	return false;
}

bool ds_type_member_path(const ds_type *t, uint64_t offset, uint32_t size, ds_buf *path,
			 const ds_member **leaf)
{
	const ds_member *l = NULL;
	bool ok;

	ds_buf_puts(path, "");
	ok = path_in(t, offset, size, path, &l, 0);
	if (leaf)
		*leaf = l;
	return ok;
}
