/*
 * Static layout of a type, as pahole prints it.
 *
 * pahole (dwarves 1.24) is the reference: its column layout, where it
 * finds holes and bit holes, when it draws a cache-line boundary and how
 * it sums a struct up are reproduced here, so that its users read the same
 * text and the test suite can compare the two.  That includes its
 * conventions: a bit field's offset is its storage unit's, aligned to the
 * unit's size; a member whose type is an empty struct of size 1 counts as
 * zero bytes (C++'s empty base optimization); anonymous structs and unions
 * are expanded in place, with their own holes, and so is an anonymous
 * struct behind a pointer member (with offsets relative to it).
 *
 * The text is written the way pahole writes it, into one buffer; at each
 * line that means something (a member, a hole, a boundary) a mark records
 * what, and at the end the buffer is cut into lines and the marks become
 * the rows' kinds and fields.
 *
 * Where pahole keeps counts in 8- and 16-bit fields (holes, padding) and
 * they wrap, this prints the true numbers.  What dsprof's types do not
 * carry (accessibility, methods, enumerators) is left out.
 */
#include "analyze/analyze.h"
#include "dwarfmap/dwarfmap.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* pahole's columns: the type name is padded to TYPE_SPACING, the offset
 * comment starts at TYPE_SPACING + NAME_SPACING (a union's two columns
 * earlier), and each nesting level takes a tab (8 columns) off the type. */
#define TYPE_SPACING 26
#define NAME_SPACING 23
#define UNION_NAME_SPACING 21
#define MAX_DEPTH 32
#define ADDR_SIZE 8

typedef struct mark {
	size_t pos;          /* in the text: the row is the line holding it */
	size_t path;         /* the row's path in printer.paths, NO_PATH for none */
	ds_layout_row row;
} mark;

#define NO_PATH SIZE_MAX

typedef struct printer {
	ds_buf text;
	DS_VEC(mark) marks;
	unsigned line_size;
	ds_hash *align_memo;  /* ds_type address -> index in align_val */
	ds_vec_u64 align_val;
	DS_VEC(mark) paddings; /* PADDING rows: each goes before the line at its pos */
	ds_layout_summary *sum; /* filled by the outermost struct */
	ds_buf scratch;      /* type names */
	ds_buf paths;        /* member paths, each ended by a NUL */
	const ds_type *open[MAX_DEPTH + 2]; /* the structs and unions being expanded */
	unsigned nopen;
	unsigned long expansions;
} printer;

/* What pahole's printing functions pass each other (its conf_fprintf). */
typedef struct conf {
	int indent;
	int type_spacing, name_spacing;
	uint64_t base_offset;
	bool rel_offset;      /* offsets of a struct behind a pointer: not rebased */
	bool union_member;
	bool first_member, last_member;
	bool emit_stats;
	const char *prefix, *suffix;
	uint64_t *cachelinep; /* the last cache line a boundary was drawn for */
	unsigned depth;
	size_t path;          /* the enclosing member's path in printer.paths (NO_PATH: none) */
	bool pointee;
} conf;

/* A member as pahole sees it. */
typedef struct pmember {
	const ds_member *m;
	uint64_t byte_offset; /* bit fields: of the storage unit, aligned to its size */
	uint64_t byte_size;
	uint64_t bit_offset;  /* from the start of the struct */
	uint32_t bitfield_offset, bitfield_size;
	int64_t hole, bit_hole;
	uint64_t hole_start, bit_hole_start;
} pmember;

/* A struct's members with pahole's holes (class__find_holes). */
typedef struct pclass {
	const ds_type *t;
	pmember *pm;          /* small, or allocated */
	pmember small[16];
	size_t n;
	int64_t pre_hole, pre_bit_hole, padding, bit_padding;
	uint64_t nr_holes, nr_bit_holes;
	bool packed;
} pclass;

static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";

static void out(printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(printer *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ds_buf_vprintf(&p->text, fmt, ap);
	va_end(ap);
}

static void out_tabs(printer *p, int n)
{
	if (n > (int)sizeof tabs - 1)
		n = (int)sizeof tabs - 1;
	if (n > 0)
		ds_buf_append(&p->text, tabs, (size_t)n);
}

/* The few formats members print with, without printf: a layout of
 * thousands of structs is mostly this. */
static inline void put(printer *p, const char *s)
{
	/* inlined, the length of a literal is known at compile time */
	ds_buf_append(&p->text, s, strlen(s));
}

static void put_spaces(printer *p, int n)
{
	if (n <= 0)
		return;
	ds_buf_reserve(&p->text, (size_t)n);
	memset(p->text.p + p->text.len, ' ', (size_t)n);
	p->text.len += (size_t)n;
	p->text.p[p->text.len] = 0;
}

/* "%-*s" */
static void put_left(printer *p, const char *s, int width)
{
	size_t n = strlen(s);
	ds_buf_append(&p->text, s, n);
	put_spaces(p, width - (int)n);
}

/* "%*llu" */
static void put_u64(printer *p, uint64_t v, int width)
{
	char digits[24];
	int n = 0;

	do
		digits[sizeof digits - 1 - n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < (int)sizeof digits);
	put_spaces(p, width - n);
	ds_buf_append(&p->text, digits + sizeof digits - n, (size_t)n);
}

static ds_layout_row *add_mark(printer *p, enum ds_lrow_kind kind, const conf *c)
{
	mark mk = {.pos = p->text.len, .path = NO_PATH};
	mk.row.kind = kind;
	mk.row.depth = c ? c->depth : 0;
	mk.row.pointee = c && c->pointee;
	ds_vec_push(&p->marks, mk);
	return &p->marks.v[p->marks.n - 1].row;
}

static bool is_struct(const ds_type *t)
{
	return t && (t->kind == DS_TYPE_STRUCT || t->kind == DS_TYPE_CLASS);
}

static bool is_union(const ds_type *t)
{
	return t && t->kind == DS_TYPE_UNION;
}

static bool is_void(const ds_type *t)
{
	return !t || t->kind == DS_TYPE_VOID;
}

static bool is_pointer(const ds_type *t)
{
	return t && t->kind == DS_TYPE_POINTER && !t->name; /* not a reference */
}

static uint64_t dims_product(const ds_type *t)
{
	uint64_t n = 1;
	for (size_t i = 0; i < t->ndims; i++)
		n *= t->dims[i];
	return n;
}

/* pahole's tag__size: an empty struct of size 1 is 0 bytes, and arrays
 * multiply their element's such size. */
static uint64_t psize(const ds_type *t, int depth)
{
	if (!t || depth > MAX_DEPTH)
		return 0;
	switch (t->kind) {
	case DS_TYPE_STRUCT:
	case DS_TYPE_CLASS:
	case DS_TYPE_UNION:
		return t->size == 1 && t->nmembers == 0 ? 0 : t->size;
	case DS_TYPE_ARRAY:
		return psize(t->target, depth + 1) * dims_product(t);
	case DS_TYPE_TYPEDEF:
	case DS_TYPE_CONST:
	case DS_TYPE_VOLATILE:
	case DS_TYPE_RESTRICT:
		return psize(t->target, depth + 1);
	default:
		return t->size;
	}
}

/* pahole's tag__natural_alignment, remembered per struct: a struct's is
 * its members' largest, and printing asks for it often. */
static uint64_t natural_alignment(printer *p, const ds_type *t, int depth)
{
	uint64_t a = 1;

	t = ds_type_strip(t);
	if (!t || depth > MAX_DEPTH)
		return 1;
	if (t->kind == DS_TYPE_POINTER)
		a = ADDR_SIZE;
	else if (t->kind == DS_TYPE_BASE || t->kind == DS_TYPE_ENUM)
		a = t->size;
	else if (is_struct(t) || is_union(t)) {
		bool added;
		size_t i;
		if (!p->align_memo)
			p->align_memo = ds_hash_new();
		i = ds_hash_intern(p->align_memo, &t, sizeof t, &added);
		if (!added) /* known, or being computed: a cycle in corrupt input */
			return p->align_val.v[i] ? p->align_val.v[i] : 1;
		ds_vec_push(&p->align_val, 0);
		a = 0;
		for (size_t k = 0; k < t->nmembers; k++) {
			uint64_t m = natural_alignment(p, t->members[k].type, depth + 1);
			if (m > a)
				a = m;
		}
		a = a ? a : 1;
		p->align_val.v[i] = a;
	} else if (t->kind == DS_TYPE_ARRAY)
		a = natural_alignment(p, t->target, depth + 1);
	return a ? a : 1;
}

uint64_t ds_type_alignment(const ds_type *t)
{
	printer p = {0};
	uint64_t a = natural_alignment(&p, t, 0);
	ds_hash_free(p.align_memo);
	ds_vec_free(&p.align_val);
	return a;
}

static void member_of(const ds_member *m, pmember *pm)
{
	memset(pm, 0, sizeof *pm);
	pm->m = m;
	if (!m->bit_size) {
		pm->byte_offset = m->offset;
		pm->byte_size = psize(m->type, 0);
		pm->bit_offset = m->offset * 8;
		return;
	}
	/* the storage unit: the bit field's type, aligned to its size */
	const ds_type *s = ds_type_strip(m->type);
	uint64_t unit = s ? psize(s, 0) : 0, pos = m->offset * 8 + m->bit_offset;
	pm->bitfield_size = m->bit_size;
	pm->bit_offset = pos;
	pm->byte_size = unit;
	if (unit) {
		pm->byte_offset = pos / (unit * 8) * unit;
		pm->bitfield_offset = (uint32_t)(pos - pm->byte_offset * 8);
	} else {
		pm->byte_offset = pos / 8;
	}
}

/* pahole's class__find_holes, over the members in declaration order. */
static void find_holes(pclass *c)
{
	const ds_type *t = c->t;
	uint64_t cur_end = t->size * 8, cur_size = 0, last_seen = 0;
	bool in_bitfield = false;
	pmember *last = NULL;

	for (size_t i = 0; i < c->n; i++) {
		pmember *pm = &c->pm[i];
		uint64_t start = pm->bit_offset, unit_bits = pm->byte_size * 8;
		uint64_t end = start + (pm->bitfield_size ? pm->bitfield_size : unit_bits);
		int64_t bit_holes = 0, byte_holes = 0;
		uint64_t bit_hole_start = last_seen;

		if (in_bitfield) {
			uint64_t bf_end = start < cur_end ? start : cur_end;
			bit_holes = (int64_t)bf_end - (int64_t)last_seen;
			last_seen = bf_end;
		}
		if (pm->bitfield_size) {
			uint64_t aligned = pm->byte_offset * 8;
			if (last_seen < aligned && aligned <= start) {
				byte_holes = (int64_t)pm->byte_offset - (int64_t)(last_seen / 8);
				last_seen = aligned;
			}
			bit_holes += (int64_t)start - (int64_t)last_seen;
		} else {
			byte_holes = (int64_t)(start / 8) - (int64_t)(last_seen / 8);
		}
		last_seen = end;
		if (pm->bitfield_size) {
			in_bitfield = true;
			if (end > cur_end || unit_bits > cur_size) {
				cur_size = unit_bits;
				cur_end = pm->byte_offset * 8 + cur_size;
				if (end > cur_end)
					cur_end += cur_size;
			}
		} else {
			in_bitfield = false;
			cur_size = 0;
			cur_end = end;
		}
		uint64_t hole_start = (pm->bitfield_size ? pm->byte_offset : start / 8) -
				      (uint64_t)byte_holes;
		if (last) {
			last->hole = byte_holes;
			last->bit_hole = bit_holes;
			last->hole_start = hole_start;
			last->bit_hole_start = bit_hole_start;
		} else {
			c->pre_hole = byte_holes;
			c->pre_bit_hole = bit_holes;
		}
		c->nr_bit_holes += bit_holes != 0;
		c->nr_holes += byte_holes != 0;
		last = pm;
	}
	if (in_bitfield) {
		uint64_t bf_end = t->size * 8 < cur_end ? t->size * 8 : cur_end;
		c->bit_padding = (int64_t)bf_end - (int64_t)last_seen;
		last_seen = bf_end;
	}
	c->padding = (int64_t)t->size - (int64_t)(last_seen / 8);
}

/* pahole's class__infer_packed_attributes, without its marking of other
 * structs found at unnatural offsets (which depends on printing order). */
static void infer_packed(printer *p, pclass *c)
{
	uint64_t max = 1;

	if (c->padding != 0 || c->nr_holes != 0)
		return;
	for (size_t i = 0; i < c->n; i++) {
		uint64_t a = natural_alignment(p, c->pm[i].m->type, 0);
		if (a == 1)
			continue;
		if (a > max)
			max = a;
		if (c->pm[i].byte_offset % a) {
			c->packed = true;
			return;
		}
	}
	if ((max != 1 && c->t->align == 1) || c->t->size % max)
		c->packed = true;
}

/* A struct's members and holes; p NULL: without the packed attribute. */
static void pclass_init(printer *p, pclass *c, const ds_type *t)
{
	memset(c, 0, sizeof *c);
	c->t = t;
	c->n = t->nmembers;
	c->pm = c->n <= sizeof c->small / sizeof c->small[0] ? c->small :
									 ds_xcalloc(c->n, sizeof *c->pm);
	for (size_t i = 0; i < c->n; i++)
		member_of(&t->members[i], &c->pm[i]);
	if (is_struct(t)) {
		find_holes(c);
		if (p)
			infer_packed(p, c);
	}
}

static void pclass_free(pclass *c)
{
	if (c->pm != c->small)
		free(c->pm);
}

/* ---- type names as pahole writes them (its tag__name) ---- */

static void ftype_text(ds_buf *b, const ds_type *f, const char *name, bool pointer,
		       int spacing, int depth);

static void pname(ds_buf *b, const ds_type *t, int depth)
{
	if (depth > MAX_DEPTH) {
		ds_buf_puts(b, "...");
		return;
	}
	if (is_void(t)) {
		ds_buf_puts(b, "void");
		return;
	}
	switch (t->kind) {
	case DS_TYPE_POINTER: {
		const ds_type *to = t->target;
		const char *cptr = "";
		if (is_void(to)) {
			ds_buf_printf(b, "void %s", t->name ? t->name : "*");
			return;
		}
		if (to->kind == DS_TYPE_CONST && is_pointer(to->target)) {
			cptr = "const ";
			to = to->target;
		}
		pname(b, to, depth + 1);
		ds_buf_printf(b, " %s%s", cptr, t->name ? t->name : "*");
		return;
	}
	case DS_TYPE_CONST:
	case DS_TYPE_VOLATILE:
		ds_buf_puts(b, t->kind == DS_TYPE_CONST ? "const " : "volatile ");
		pname(b, t->target, depth + 1);
		ds_buf_putc(b, ' ');
		return;
	case DS_TYPE_RESTRICT:
		pname(b, t->target, depth + 1);
		ds_buf_puts(b, " restrict ");
		return;
	case DS_TYPE_ARRAY:
		pname(b, t->target, depth + 1);
		return;
	case DS_TYPE_FUNCTION:
		ftype_text(b, t, NULL, false, 0, depth + 1);
		return;
	case DS_TYPE_OTHER:
		if (t->name && strcmp(t->name, "_Atomic") == 0) {
			ds_buf_puts(b, "_Atomic ");
			pname(b, t->target, depth + 1);
		} else if (!t->name) { /* a pointer to member */
			pname(b, t->target, depth + 1);
			ds_buf_puts(b, " ::*");
		} else {
			ds_buf_puts(b, t->name);
		}
		return;
	case DS_TYPE_STRUCT: ds_buf_puts(b, "struct "); break;
	case DS_TYPE_CLASS: ds_buf_puts(b, "class "); break;
	case DS_TYPE_UNION: ds_buf_puts(b, "union "); break;
	case DS_TYPE_ENUM: ds_buf_puts(b, "enum "); break;
	default: break;
	}
	if (t->name)
		ds_buf_puts(b, t->name);
	else if (t->kind == DS_TYPE_ENUM)
		ds_buf_puts(b, "{...}");
}

/* pahole's ftype__fprintf: "ret (*name)(params)". */
static void ftype_text(ds_buf *b, const ds_type *f, const char *name, bool pointer,
		       int spacing, int depth)
{
	ds_buf ret = {0};
	size_t nparams = 0;

	pname(&ret, f->target, depth + 1);
	ds_buf_printf(b, "%-*s (%s%s)(", spacing, ds_buf_str(&ret), pointer ? "*" : "",
		      name ? name : "");
	ds_buf_free(&ret);
	for (size_t i = 0; i < f->nmembers; i++) {
		const ds_type *pt = f->members[i].type;
		if (!pt) /* `...` */
			continue;
		if (nparams++)
			ds_buf_puts(b, ", ");
		if (is_pointer(pt) && pt->target && pt->target->kind == DS_TYPE_FUNCTION)
			ftype_text(b, pt->target, NULL, true, 0, depth + 1);
		else
			pname(b, pt, depth + 1);
	}
	if (!nparams)
		ds_buf_puts(b, "void)");
	else if (f->nmembers && !f->members[f->nmembers - 1].type)
		ds_buf_puts(b, ", ...)");
	else
		ds_buf_puts(b, ")");
}

/* ---- printing ---- */

static void print_struct(printer *p, const ds_type *t, const conf *c);
static void print_union(printer *p, const ds_type *t, const conf *c);

static void cacheline_boundary(printer *p, const conf *c, uint64_t offset)
{
	uint64_t line = offset / p->line_size;

	if (line <= *c->cachelinep)
		return;
	uint64_t pos = offset % p->line_size, bytes = offset - pos;
	ds_layout_row *r = add_mark(p, DS_LROW_CACHELINE, c);
	r->offset = bytes;
	r->line = line;
	if (pos == 0)
		out(p, "/* --- cacheline %llu boundary (%llu bytes) --- */\n",
		    (unsigned long long)line, (unsigned long long)bytes);
	else
		out(p, "/* --- cacheline %llu boundary (%llu bytes) was %llu byte%s ago --- */\n",
		    (unsigned long long)line, (unsigned long long)bytes, (unsigned long long)pos,
		    pos > 1 ? "s" : "");
	out_tabs(p, c->indent);
	*c->cachelinep = line;
}

/* The path of member name inside the enclosing one (NULL behind pointers). */
static size_t sub_path(printer *p, const conf *c, const char *name, unsigned brackets)
{
	size_t plen, nlen = name ? strlen(name) : 0, off = p->paths.len;
	char *d;

	if (c->pointee)
		return NO_PATH;
	plen = c->path == NO_PATH ? 0 : strlen(p->paths.p + c->path);
	/* reserve first: the parent's path is copied from the same buffer */
	ds_buf_reserve(&p->paths, plen + nlen + 2 * brackets + 2);
	d = p->paths.p + off;
	if (plen)
		memcpy(d, p->paths.p + c->path, plen);
	d += plen;
	if (plen && nlen)
		*d++ = '.';
	memcpy(d, name ? name : "", nlen);
	d += nlen;
	for (unsigned i = 0; i < brackets; i++, d += 2)
		memcpy(d, "[]", 2);
	*d++ = '\0';
	p->paths.len = (size_t)(d - p->paths.p);
	return off;
}

static void array_decl(printer *p, const ds_type *t, const char *name, conf *c);

/* Real types nest a few levels; corrupt DWARF can make a type contain itself,
 * or anonymous types that each hold the next one many times over. */
#define MAX_EXPANSIONS 65536

/* Whether an anonymous struct or union may be printed in place: not too deep,
 * not inside itself, and within the budget that keeps a corrupt graph of
 * types from expanding exponentially.  Otherwise it is printed by name. */
/* A struct, union or enum by name: its tag word, the name padded to the
 * type column (less the word's `width`), then the member's name. */
static void put_tagged(printer *p, const char *word, int width, const char *name, const conf *c)
{
	put(p, word);
	put_left(p, name, c->type_spacing - width);
	put(p, " ");
	put(p, c->suffix ? c->suffix : "");
}

static bool may_expand(const printer *p, const ds_type *t, unsigned depth)
{
	if (depth >= MAX_DEPTH - 1 || p->expansions >= MAX_EXPANSIONS)
		return false;
	for (unsigned i = 0; i < p->nopen; i++)
		if (p->open[i] == t)
			return false;
	return true;
}

static void expand(printer *p, const ds_type *t, const conf *c)
{
	p->open[p->nopen++] = t;
	p->expansions++;
	if (is_union(t))
		print_union(p, t, c);
	else
		print_struct(p, t, c);
	p->nopen--;
}

/* The function t points to through n > 1 pointers, or an array of
 * pointers to (t an array: its element's), with *stars the pointers: NULL
 * when t is neither.  GCC's __vtbl_ptr_type is such a pointer, named. */
static const ds_type *deep_function_pointer(const ds_type *t, int *stars)
{
	bool array = t && t->kind == DS_TYPE_ARRAY;

	if (array)
		t = t->target;
	*stars = 0;
	for (int depth = 0; t && depth < MAX_DEPTH; depth++, t = t->target) {
		if (t->kind == DS_TYPE_FUNCTION)
			return *stars > (array ? 0 : 1) ? t : NULL;
		if (t->kind != DS_TYPE_POINTER || (t->name && t->name[0] == '&'))
			return NULL;
		++*stars;
	}
	return NULL;
}

/* A member that is a pointer to a pointer to a function, or an array of
 * function pointers, declared as C declares it: void (**tab)(void),
 * int (*ops[3])(void), a C++ class's int (**_vptr.Base)(void).  pahole
 * writes them as no compiler reads them (void ()(void) * * tab). */
static bool deep_function_decl(printer *p, const ds_type *t, const char *name, const conf *c)
{
	int stars;
	const ds_type *f = deep_function_pointer(t, &stars);
	ds_buf decl = {0}, b = {0};

	if (!f)
		return false;
	for (int i = 1; i < stars; i++)
		ds_buf_putc(&decl, '*');
	ds_buf_puts(&decl, name ? name : "");
	for (size_t i = 0; t->kind == DS_TYPE_ARRAY && i < t->ndims; i++)
		if (t->dims[i])
			ds_buf_printf(&decl, "[%" PRIu64 "]", t->dims[i]);
		else
			ds_buf_puts(&decl, "[]");
	ftype_text(&b, f, ds_buf_str(&decl), true, c->type_spacing, 0);
	put(p, ds_buf_str(&b));
	ds_buf_free(&decl);
	ds_buf_free(&b);
	return true;
}

/* pahole's type__fprintf: a member's type and name, expanding anonymous
 * structs and unions (and those behind pointers) in place. */
static void type_decl(printer *p, const ds_type *t, const char *name, conf *c)
{
	conf tc = *c;
	char *ptr_name = NULL;
	ds_buf b = {0};

	/* a NULL name (an anonymous member's) leaves no suffix after "}" */
	if (is_struct(t) || is_union(t) || (t && t->kind == DS_TYPE_ENUM))
		tc.prefix = NULL, tc.suffix = name, tc.emit_stats = false;
	if (deep_function_decl(p, t, name, &tc))
		return;
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		if (is_void(t))
			break;
		if (is_pointer(t) && !is_void(t->target)) {
			const ds_type *to = t->target;
			if (to->kind == DS_TYPE_FUNCTION) {
				ftype_text(&b, to, name ? name : "", true, tc.type_spacing, 0);
				put(p, ds_buf_str(&b));
				goto done;
			}
			if ((is_struct(to) || is_union(to)) && !to->name && may_expand(p, to, tc.depth)) {
				ptr_name = ds_xasprintf("* %s", name ? name : "");
				name = ptr_name;
				tc.rel_offset = true;
				tc.pointee = true;
				tc.type_spacing -= 8;
				tc.prefix = NULL, tc.suffix = name, tc.emit_stats = false;
				t = to;
				continue;
			}
			break;
		}
		switch (t->kind) {
		case DS_TYPE_FUNCTION:
			ftype_text(&b, t, name ? name : "", false, tc.type_spacing, 0);
			put(p, ds_buf_str(&b));
			goto done;
		case DS_TYPE_CONST:
			put(p, "const ");
			tc.type_spacing -= 6;
			if (is_void(t->target))
				goto plain;
			t = t->target;
			continue;
		case DS_TYPE_ARRAY:
			array_decl(p, t, name, &tc);
			goto done;
		case DS_TYPE_STRUCT:
		case DS_TYPE_CLASS:
		case DS_TYPE_UNION:
			if (t->name || !may_expand(p, t, tc.depth)) {
				bool u = t->kind == DS_TYPE_UNION;
				const char *word = u ? "union " : t->kind == DS_TYPE_CLASS ? "class " : "struct ";
				/* pahole pads "class " as it pads "struct " */
				put_tagged(p, word, u ? 6 : 7, t->name ? t->name : "{...}", &tc);
			} else {
				tc.type_spacing -= 8;
				expand(p, t, &tc);
			}
			goto done;
		case DS_TYPE_ENUM:
			if (t->name) {
				put_tagged(p, "enum ", 5, t->name, &tc);
				goto done;
			}
			break;
		default:
			break;
		}
		break;
	}
plain:
	ds_buf_reset(&p->scratch);
	pname(&p->scratch, t, 0);
	put_left(p, ds_buf_str(&p->scratch), tc.type_spacing);
	put(p, " ");
	put(p, name ? name : "");
done:
	ds_buf_free(&b);
	free(ptr_name);
}

static void array_decl(printer *p, const ds_type *t, const char *name, conf *c)
{
	const ds_type *elem = t->target;
	bool single = c->last_member && c->first_member;

	/* pahole drops the const of a flexible array's elements */
	if (t->ndims && t->dims[0] == 0 && elem && elem->kind == DS_TYPE_CONST)
		elem = elem->target;
	type_decl(p, elem, name, c);
	for (size_t i = 0; i < t->ndims; i++) {
		if (t->dims[i] || !c->last_member || single || c->union_member) {
			put(p, "[");
			put_u64(p, t->dims[i], 0);
			put(p, "]");
		} else {
			put(p, "[]");
		}
	}
}

/* An anonymous struct or union (or an array of one) is printed inside the
 * member's line; so is one behind a pointer. */
static const ds_type *inline_aggregate(const ds_type *t)
{
	for (int k = 0; t && k < MAX_DEPTH; k++) {
		if (is_pointer(t) || t->kind == DS_TYPE_ARRAY || t->kind == DS_TYPE_CONST)
			t = t->target;
		else
			return (is_struct(t) || is_union(t)) && !t->name ? t : NULL;
	}
	return NULL;
}

/* The path prefix for an expanded member's members: "pts[]" for an array
 * of anonymous structs. */
static size_t nested_path(printer *p, const conf *c, const ds_member *m)
{
	const ds_type *t = m->type;
	unsigned brackets = 0;

	for (int k = 0; t && k < MAX_DEPTH && t->kind == DS_TYPE_ARRAY; k++) {
		brackets += (unsigned)t->ndims;
		t = t->target;
	}
	return sub_path(p, c, m->name, brackets);
}

/* The comment after a member, `spacing` columns on (at least one):
 * pahole's "%*s" then "/ * %5u %5u * /" (bit fields "%5u:%2u %2u"). */
static void offset_comment(printer *p, int spacing, uint64_t offset, const pmember *pm)
{
	put_spaces(p, spacing > 1 ? spacing : 1);
	put(p, "/* ");
	put_u64(p, offset, 5);
	if (pm->bitfield_size) {
		put(p, ":");
		put_u64(p, pm->bitfield_offset, 2);
		put(p, " ");
		put_u64(p, pm->byte_size, 2);
	} else {
		put(p, " ");
		put_u64(p, pm->byte_size, 5);
	}
	put(p, " */");
}

/* pahole's class_member__fprintf, after the caller's indentation. */
static void print_member(printer *p, const pmember *pm, bool union_member, conf *c)
{
	const ds_member *m = pm->m;
	const ds_type *t = m->type;
	conf sc = *c;
	uint64_t offset = pm->byte_offset;
	const char *name = m->base_class ? "<ancestor>" : m->name;
	bool aggregate = is_struct(t) || is_union(t) || (t && t->kind == DS_TYPE_ENUM && t->name);
	bool expanded = c->depth < MAX_DEPTH && inline_aggregate(t) != NULL;
	ds_layout_row *r;
	size_t start, mark_idx;

	if (!sc.rel_offset) {
		offset += sc.base_offset;
		if (!union_member)
			sc.base_offset = offset;
	}
	cacheline_boundary(p, c, offset);
	start = p->text.len;
	mark_idx = p->marks.n;
	r = add_mark(p, expanded ? DS_LROW_OPEN : DS_LROW_MEMBER, c);
	r->member = m;
	r->offset = offset;
	r->size = pm->byte_size;
	r->bit_offset = pm->bitfield_offset;
	r->bit_size = pm->bitfield_size;
	/* a member without a name (an anonymous struct or union, a bit-field
	 * filler, a base class) has no path of its own */
	if (m->name)
		p->marks.v[mark_idx].path = sub_path(p, c, m->name, 0);
	sc.union_member = union_member;
	sc.depth = c->depth + 1;
	sc.path = expanded ? nested_path(p, c, m) : NO_PATH;
	if (m->base_class)
		put(p, "/* ");
	if (aggregate) {
		type_decl(p, t, NULL, &sc);
		if (name) {
			if (!t->name)
				put(p, " ");
			put(p, name);
		}
	} else {
		type_decl(p, t, name, &sc);
	}
	if (m->bit_size) {
		put(p, ":");
		put_u64(p, m->bit_size, 0);
	}
	if (m->align)
		out(p, " __attribute__((__aligned__(%u)))", m->align);
	put(p, ";");
	if (expanded) {
		/* the member's own line is the closing one, after its type's */
		ds_layout_row *close = add_mark(p, DS_LROW_CLOSE, c);
		*close = p->marks.v[mark_idx].row;
		close->kind = DS_LROW_CLOSE;
		p->marks.v[p->marks.n - 1].path = p->marks.v[mark_idx].path;
	}
	if (expanded && (is_struct(t) || is_union(t))) {
		/* pahole's column: from the name and the type's attributes, not
		 * the member's own (which it prints nonetheless) */
		int slen = m->name ? (int)strlen(m->name) : -1;
		if (is_struct(t)) {
			pclass pc;
			pclass_init(p, &pc, t);
			if (pc.packed)
				slen += (int)sizeof("__attribute__((__packed__))");
			pclass_free(&pc);
		}
		if (t->align)
			slen += snprintf(NULL, 0, " __attribute__((__aligned__(%u)))", t->align);
		offset_comment(p, c->type_spacing + c->name_spacing - slen - 3, offset, pm);
		return;
	}
	int spacing = c->type_spacing + c->name_spacing - (int)(p->text.len - start);
	if (m->base_class) {
		put(p, " */");
		spacing -= 3;
	}
	offset_comment(p, spacing, offset, pm);
}

/* start: in bits for bit holes, bytes for holes, from the struct's start */
static void hole_line(printer *p, const conf *c, int64_t n, bool bits, uint64_t start)
{
	uint64_t base = c->rel_offset ? 0 : c->base_offset;
	ds_layout_row *r;

	put(p, "\n");
	out_tabs(p, c->indent);
	r = add_mark(p, bits ? DS_LROW_BIT_HOLE : DS_LROW_HOLE, c);
	if (bits) {
		r->offset = start / 8 + base;
		r->bit_offset = (uint32_t)(start % 8);
		r->bit_size = (uint32_t)n;
	} else {
		r->offset = start + base;
		r->size = (uint64_t)n;
	}
	out(p, "/* XXX %lld %s%s hole, try to pack */", (long long)n, bits ? "bit" : "byte",
	    n != 1 ? "s" : "");
}

typedef struct sums {
	uint64_t bytes, bits, holes, bit_holes, paddings, sum_paddings;
	uint64_t base_bytes; /* of base classes, which pahole leaves out of "sum members" */
	uint64_t forced, forced_holes, sum_forced_holes; /* members with their own alignment */
} sums;

/* Whether member i is an empty base class: it takes no room, the next
 * member having its address (std::allocator under std::vector's data). */
static bool empty_base(const pclass *pc, size_t i)
{
	const pmember *pm = &pc->pm[i], *next = i + 1 < pc->n ? &pc->pm[i + 1] : NULL;
	return pm->m->base_class && next && !next->bitfield_size && next->byte_offset == pm->byte_offset;
}

/* The bytes at the end of member i that the next member lies in: C++
 * places a derived class's members in its base class's tail padding
 * (struct P { long a; int b; }; struct Q : P { int c; } has c at 12), and
 * the next member over an empty base class. */
static uint64_t reused_tail(const pclass *pc, size_t i)
{
	const pmember *pm = &pc->pm[i], *next = i + 1 < pc->n ? &pc->pm[i + 1] : NULL;

	if (empty_base(pc, i))
		return pm->byte_size;
	if (!next || !is_struct(pm->m->type) || next->bitfield_size || next->byte_offset <= pm->byte_offset ||
	    next->byte_offset >= pm->byte_offset + pm->byte_size)
		return 0;
	return pm->byte_offset + pm->byte_size - next->byte_offset;
}

/* The name of member m in a remark: a base class by its type's. */
static const char *member_title(const ds_member *m)
{
	if (m->base_class)
		return m->type && m->type->name ? m->type->name : "a base class";
	return m->name ? m->name : "the next member";
}

/* pahole's __class__fprintf for structs and classes, with one departure:
 * a base class's bytes count in the check of the sizes against the
 * struct's (pahole leaves them out and cries "BRAIN FART ALERT" at every
 * derived class), and so does the tail padding of a member that the next
 * one lies in. */
static void print_struct(printer *p, const ds_type *t, const conf *cin)
{
	conf c = *cin;
	int indent = cin->indent;
	uint64_t cacheline = 0, last_size = 0;
	int newline = 0;
	sums s = {0};
	pclass pc;
	const pmember *last = NULL;
	bool first_base = true, top = cin->emit_stats;
	uint64_t reused;

	pclass_init(p, &pc, t);
	if (indent > (int)sizeof tabs - 1)
		indent = (int)sizeof tabs - 1;
	if (!c.cachelinep)
		c.cachelinep = &cacheline;
	c.indent = indent + 1;
	if (top)
		add_mark(p, DS_LROW_BEGIN, NULL);
	if (c.prefix)
		out(p, "%s ", c.prefix);
	out(p, "%s%s%s", t->kind == DS_TYPE_CLASS ? "class" : "struct", t->name ? " " : "",
	    t->name ? t->name : "");
	for (size_t i = 0; i < t->nmembers; i++) {
		const ds_type *b = t->members[i].type;
		if (!t->members[i].base_class)
			continue;
		out(p, "%s %s", first_base ? " :" : ",", b && b->name ? b->name : "");
		first_base = false;
	}
	put(p, " {\n");
	if (pc.pre_bit_hole > 0) {
		if (!newline++)
			put(p, "\n");
		out_tabs(p, c.indent);
		add_mark(p, DS_LROW_BIT_HOLE, &c)->bit_size = (uint32_t)pc.pre_bit_hole;
		out(p, "/* XXX %lld bit%s hole, try to pack */\n", (long long)pc.pre_bit_hole,
		    pc.pre_bit_hole != 1 ? "s" : "");
		s.bit_holes += (uint64_t)pc.pre_bit_hole;
	}
	if (pc.pre_hole > 0) {
		ds_layout_row *r;
		if (!newline++)
			put(p, "\n");
		out_tabs(p, c.indent);
		r = add_mark(p, DS_LROW_HOLE, &c);
		r->offset = c.rel_offset ? 0 : c.base_offset;
		r->size = (uint64_t)pc.pre_hole;
		out(p, "/* XXX %lld byte%s hole, try to pack */\n", (long long)pc.pre_hole,
		    pc.pre_hole != 1 ? "s" : "");
		s.holes += (uint64_t)pc.pre_hole;
	}
	for (size_t i = 0; i < pc.n; i++) {
		const pmember *pm = &pc.pm[i];
		const ds_member *m = pm->m;

		if (m->align) {
			/* the hole before it is what its alignment forced */
			int64_t forced_hole = last ? last->hole : pc.pre_hole;
			if (forced_hole != 0) {
				s.forced_holes++;
				s.sum_forced_holes += (uint64_t)forced_hole;
			}
			s.forced++;
		}
		if (last && !m->base_class && last_size != 0) {
			if (last->bit_hole != 0 && pm->bitfield_size) {
				uint64_t filler = (uint64_t)last->bit_hole;
				if (last->byte_offset != pm->byte_offset) {
					put(p, "\n");
					out_tabs(p, c.indent);
					add_mark(p, DS_LROW_COMMENT, &c);
					put(p, "/* Force alignment to the next boundary: */\n");
					filler = 0;
				}
				out_tabs(p, c.indent);
				add_mark(p, DS_LROW_COMMENT, &c);
				type_decl(p, m->type, "", &c);
				out(p, ":%llu;\n", (unsigned long long)filler);
			}
			if (pm->byte_offset < last->byte_offset ||
			    (pm->byte_offset == last->byte_offset && last->bitfield_size == 0 &&
			     pm->bitfield_size != 0)) {
				if (!newline++)
					put(p, "\n");
				out_tabs(p, c.indent);
				add_mark(p, DS_LROW_COMMENT, &c);
				put(p, "/* Bitfield combined with previous fields */\n");
			} else {
				int64_t cc = (int64_t)pm->byte_offset - (int64_t)last->byte_offset;
				if (cc > 0 && (uint64_t)cc < last_size) {
					if (!newline++)
						put(p, "\n");
					out_tabs(p, c.indent);
					add_mark(p, DS_LROW_COMMENT, &c);
					put(p, "/* Bitfield combined with next fields */\n");
				}
			}
		}
		if (newline) {
			put(p, "\n");
			newline = 0;
		}
		c.last_member = i + 1 == pc.n;
		c.first_member = last == NULL;
		out_tabs(p, c.indent);
		print_member(p, pm, false, &c);
		reused = reused_tail(&pc, i);
		if (is_struct(m->type)) {
			pclass mc;
			pclass_init(NULL, &mc, m->type);
			if (mc.padding > 0) {
				bool empty = empty_base(&pc, i);
				uint64_t pad = (uint64_t)mc.padding, wasted = empty || reused >= pad ? 0 : pad - reused;
				if (wasted) {
					s.paddings++;
					s.sum_paddings += wasted;
				}
				if (!newline++)
					put(p, "\n");
				put(p, "\n");
				out_tabs(p, c.indent);
				add_mark(p, DS_LROW_COMMENT, &c);
				if (empty)
					put(p, "/* empty: it takes no room */");
				else if (!reused)
					out(p, "/* XXX last struct has %llu byte%s of padding */", (unsigned long long)pad,
					    pad != 1 ? "s" : "");
				else if (!wasted)
					out(p, "/* its tail padding (%llu byte%s) holds %s */", (unsigned long long)pad,
					    pad != 1 ? "s" : "", member_title(pc.pm[i + 1].m));
				else
					out(p, "/* XXX last struct has %llu bytes of padding; its last %llu hold %s */",
					    (unsigned long long)pad, (unsigned long long)reused,
					    member_title(pc.pm[i + 1].m));
			}
			pclass_free(&mc);
		}
		if (pm->bit_hole != 0) {
			if (!newline++)
				put(p, "\n");
			hole_line(p, &c, pm->bit_hole, true, pm->bit_hole_start);
			s.bit_holes += (uint64_t)pm->bit_hole;
		}
		if (pm->hole > 0) {
			if (!newline++)
				put(p, "\n");
			hole_line(p, &c, pm->hole, false, pm->hole_start);
			s.holes += (uint64_t)pm->hole;
		}
		put(p, "\n");
		if (m->base_class) {
			s.base_bytes += pm->byte_size - reused;
			continue;
		}
		if (pm->bitfield_size)
			s.bits += pm->bitfield_size;
		else
			s.bytes += pm->byte_size - reused;
		if (!last || last_size == 0 || last->byte_offset != pm->byte_offset)
			last_size = pm->byte_size;
		else if (last->bitfield_size == 0 && pm->bitfield_size != 0)
			last_size = pm->byte_size;
		last = pm;
	}
	/* pahole shows what the compiler's alignment rounding added at the end
	 * as fillers of the last member's type, when that is large */
	if (pc.padding != 0 && t->align == 0 && last) {
		uint64_t size = psize(last->m->type, 0);
		if (size && !(size & (size - 1)) && pc.padding > ADDR_SIZE) {
			put(p, "\n");
			out_tabs(p, c.indent);
			add_mark(p, DS_LROW_COMMENT, &c);
			put(p, "/* Force padding: */\n");
			for (uint64_t added = 0; added < (uint64_t)pc.padding; added += size) {
				out_tabs(p, c.indent);
				add_mark(p, DS_LROW_COMMENT, &c);
				type_decl(p, last->m->type, "", &c);
				out(p, ":%llu;\n", (unsigned long long)(size * 8));
			}
		}
	}
	/* tail padding: a row without text (pahole counts it in the summary,
	 * or for a struct inside another, in the "last struct has" remark) */
	if (pc.padding > 0) {
		mark mk = {.pos = p->text.len, .path = NO_PATH};
		mk.row.kind = DS_LROW_PADDING;
		mk.row.depth = c.depth;
		mk.row.pointee = c.pointee;
		mk.row.offset = (c.rel_offset ? 0 : c.base_offset) + t->size - (uint64_t)pc.padding;
		mk.row.size = (uint64_t)pc.padding;
		ds_vec_push(&p->paddings, mk);
	}
	if (top) {
		uint64_t total = psize(t, 0), L = p->line_size, lastline;
		lastline = (c.base_offset + t->size) % L;
		put(p, "\n");
		out_tabs(p, c.indent);
		add_mark(p, DS_LROW_SUMMARY, NULL);
		put(p, "/* size: ");
		put_u64(p, t->size, 0);
		put(p, ", cachelines: ");
		put_u64(p, (total + L - 1) / L, 0);
		put(p, ", members: ");
		put_u64(p, t->nmembers, 0);
		put(p, " */\n");
		if (s.holes > 0 || s.bit_holes > 0) {
			if (s.bytes > 0) {
				out_tabs(p, c.indent);
				out(p, "/* sum members: %llu", (unsigned long long)s.bytes);
				if (s.holes > 0)
					out(p, ", holes: %llu, sum holes: %llu", (unsigned long long)pc.nr_holes,
					    (unsigned long long)s.holes);
				put(p, " */\n");
			}
			if (s.bits > 0) {
				out_tabs(p, c.indent);
				out(p, "/* sum bitfield members: %llu bits", (unsigned long long)s.bits);
				if (s.bit_holes > 0)
					out(p, ", bit holes: %llu, sum bit holes: %llu bits",
					    (unsigned long long)pc.nr_bit_holes, (unsigned long long)s.bit_holes);
				else
					out(p, " (%llu bytes)", (unsigned long long)(s.bits / 8));
				put(p, " */\n");
			}
		}
		if (pc.padding > 0) {
			out_tabs(p, c.indent);
			put(p, "/* padding: ");
			put_u64(p, (uint64_t)pc.padding, 0);
			put(p, " */\n");
		}
		if (s.paddings > 0) {
			out_tabs(p, c.indent);
			out(p, "/* paddings: %llu, sum paddings: %llu */\n", (unsigned long long)s.paddings,
			    (unsigned long long)s.sum_paddings);
		}
		if (pc.bit_padding > 0) {
			out_tabs(p, c.indent);
			out(p, "/* bit_padding: %lld bits */\n", (long long)pc.bit_padding);
		}
		if (s.forced > 0) {
			out_tabs(p, c.indent);
			out(p, "/* forced alignments: %llu", (unsigned long long)s.forced);
			if (s.forced_holes > 0)
				out(p, ", forced holes: %llu, sum forced holes: %llu",
				    (unsigned long long)s.forced_holes, (unsigned long long)s.sum_forced_holes);
			put(p, " */\n");
		}
		if (lastline) {
			out_tabs(p, c.indent);
			put(p, "/* last cacheline: ");
			put_u64(p, lastline, 0);
			put(p, " bytes */\n");
		}
		*p->sum = (ds_layout_summary){
			.size = t->size, .cachelines = (total + L - 1) / L, .members = t->nmembers,
			.sum_members = s.bytes, .holes = pc.nr_holes, .sum_holes = s.holes,
			.sum_bitfield_bits = s.bits, .bit_holes = pc.nr_bit_holes,
			.sum_bit_holes = s.bit_holes,
			.padding = pc.padding > 0 ? (uint64_t)pc.padding : 0,
			.bit_padding = pc.bit_padding > 0 ? (uint64_t)pc.bit_padding : 0,
			.paddings = s.paddings, .sum_paddings = s.sum_paddings, .last_cacheline = lastline,
		};
		int64_t diff = (int64_t)(t->size * 8) -
			       (int64_t)((s.base_bytes + s.bytes) * 8 + s.bits + s.holes * 8 + s.bit_holes +
					 (uint64_t)pc.padding * 8 + (uint64_t)pc.bit_padding);
		if (diff && t->nmembers) {
			put(p, "\n");
			out_tabs(p, c.indent);
			out(p, "/* BRAIN FART ALERT! %llu bytes != %llu (member bytes) + %llu (member bits) + %llu (byte holes) + %llu (bit holes), diff = %lld bits */\n",
			    (unsigned long long)t->size, (unsigned long long)s.bytes, (unsigned long long)s.bits,
			    (unsigned long long)s.holes, (unsigned long long)s.bit_holes, (long long)diff);
		}
	}
	if (top)
		add_mark(p, DS_LROW_END, NULL);
	out_tabs(p, indent);
	put(p, "}");
	if (pc.packed)
		put(p, " __attribute__((__packed__))");
	if (c.suffix)
		out(p, " %s", c.suffix);
	if (t->align && !pc.packed)
		out(p, " __attribute__((__aligned__(%u)))", t->align);
	pclass_free(&pc);
}

/* pahole's union__fprintf: no holes, and every member starts from the
 * same cache line. */
static void print_union(printer *p, const ds_type *t, const conf *cin)
{
	conf c = *cin;
	uint64_t cacheline = 0, initial;
	int indent = cin->indent;
	pclass pc;

	pclass_init(p, &pc, t);
	if (indent > (int)sizeof tabs - 1)
		indent = (int)sizeof tabs - 1;
	if (!c.cachelinep)
		c.cachelinep = &cacheline;
	c.indent = indent + 1;
	if (c.emit_stats)
		add_mark(p, DS_LROW_BEGIN, NULL);
	if (c.prefix)
		out(p, "%s ", c.prefix);
	out(p, "union%s%s {\n", t->name ? " " : "", t->name ? t->name : "");
	initial = *c.cachelinep;
	for (size_t i = 0; i < pc.n; i++) {
		c.union_member = true;
		out_tabs(p, c.indent);
		print_member(p, &pc.pm[i], true, &c);
		put(p, "\n");
		*c.cachelinep = initial;
	}
	if (c.emit_stats)
		add_mark(p, DS_LROW_END, NULL);
	out_tabs(p, indent);
	out(p, "}%s%s", c.suffix ? " " : "", c.suffix ? c.suffix : "");
	pclass_free(&pc);
}

/* ---- rows ---- */

/* Cut the text into lines (in place: the rows point into it); each mark
 * gives the line it falls in its kind and fields (the last mark of a line
 * wins), other lines are blank or comments. */
static void make_rows(printer *p, ds_layout *l)
{
	DS_VEC(ds_layout_row) rows = {0};
	size_t mi = 0, pi = 0, pos = 0;
	size_t len = p->text.len;
	char *text, *paths;
	bool in_summary = false;

	/* the paths go after the text, in the same allocation */
	ds_buf_append(&p->text, p->paths.p ? p->paths.p : "", p->paths.len);
	text = ds_buf_steal(&p->text);
	paths = text + len;
	l->text_buf = text;
	while (pos < len) {
		char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		ds_layout_row r = {.kind = in_summary ? DS_LROW_SUMMARY : DS_LROW_COMMENT};
		bool marked = false;

		for (; pi < p->paddings.n && p->paddings.v[pi].pos == pos; pi++)
			ds_vec_push(&rows, p->paddings.v[pi].row);
		for (; mi < p->marks.n && p->marks.v[mi].pos <= end; mi++) {
			r = p->marks.v[mi].row;
			r.path = p->marks.v[mi].path == NO_PATH ? NULL : paths + p->marks.v[mi].path;
			marked = true;
		}
		if (!marked && end == pos)
			r.kind = DS_LROW_BLANK;
		if (r.kind == DS_LROW_SUMMARY)
			in_summary = true;
		else if (r.kind == DS_LROW_END)
			in_summary = false;
		text[end] = '\0';
		r.text = text + pos;
		ds_vec_push(&rows, r);
		pos = end + 1;
	}
	l->rows = rows.v;
	l->nrows = rows.n;
}

ds_layout *ds_layout_build(const ds_type *t, unsigned line_size, ds_err *err)
{
	const ds_type *s = ds_type_strip(t);
	printer p = {.line_size = line_size ? line_size : 64};
	conf c = {.type_spacing = TYPE_SPACING, .name_spacing = NAME_SPACING, .emit_stats = true,
		  .path = NO_PATH};
	ds_layout *l;

	if (!is_struct(s) && !is_union(s)) {
		ds_buf name = {0};
		ds_type_name(t, &name);
		ds_err_set(err, DS_EINPUT, "'%s' is not a struct, union or class", ds_buf_str(&name));
		ds_buf_free(&name);
		return NULL;
	}
	l = ds_xcalloc(1, sizeof *l);
	l->type = s;
	l->line_size = p.line_size;
	ds_buf_reserve(&p.text, 64 * (s->nmembers + 8));
	if (!s->name && t->kind == DS_TYPE_TYPEDEF && t->name) {
		l->typedef_name = t->name;
		c.prefix = "typedef";
		c.suffix = t->name;
	}
	p.sum = &l->sum;
	if (is_union(s)) {
		c.name_spacing = UNION_NAME_SPACING;
		l->sum.size = s->size;
		l->sum.cachelines = (psize(s, 0) + p.line_size - 1) / p.line_size;
		l->sum.members = s->nmembers;
	}
	expand(&p, s, &c);
	put(&p, ";\n");
	make_rows(&p, l);
	ds_buf_free(&p.scratch);
	ds_buf_free(&p.paths);
	ds_vec_free(&p.marks);
	ds_vec_free(&p.paddings);
	ds_hash_free(p.align_memo);
	ds_vec_free(&p.align_val);
	return l;
}

void ds_layout_free(ds_layout *l)
{
	if (!l)
		return;
	free(l->rows);
	free(l->text_buf);
	free(l);
}

void ds_layout_text(const ds_layout *l, ds_buf *out_text)
{
	for (size_t i = 0; i < l->nrows; i++)
		if (l->rows[i].text) {
			ds_buf_puts(out_text, l->rows[i].text);
			ds_buf_putc(out_text, '\n');
		}
}
