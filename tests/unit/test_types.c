/*
 * dwarfmap types: programs compiled here with gcc and clang, at -O0 and
 * -O2, with DWARF 4 and 5, and their types read back: layouts, bit fields,
 * arrays, anonymous members, typedefs, cycles, C++ base classes,
 * deduplication across compilation units, member paths, the layout rows
 * built from them, and corrupt DWARF.
 */
#include "analyze/analyze.h"
#include "dwarfmap/dwarfmap.h"
#include "tests/unit/unit.h"
#include "tests/unit/unit_dso.h"

#include <stdlib.h>
#include <string.h>

static const char types_c[] =
	"struct holes { char a; int b; char c; double d; short e; };\n"
	"struct anon { int x; union { int i; float f; struct { short s1, s2; }; }; char tail; };\n"
	"struct bits { unsigned a:3; unsigned b:5; unsigned :0; unsigned c:20; char d;\n"
	"              unsigned long e:40; int f:2; };\n"
	"struct flex { int n; char data[]; };\n"
	"struct md { int m[3][4][5]; char c; };\n"
	"typedef struct { int a; char b; } tdanon;\n"
	"struct node { struct node *next; int v; };\n"
	"enum color { RED, GREEN, BLUE };\n"
	"struct cell { int x, y; };\n"
	"struct grid { int w; struct cell cells[8]; };\n"
	"struct inner { int c; };\n"
	"struct mid { long pad; struct inner b; };\n"
	"struct outer { char pad[16]; struct mid a; };\n"
	"union u { long l; int i; short s; };\n"
	"struct withu { int k; union u u; };\n"
	"struct nest { int k; struct { long w; char c; } t; union { int i; short s; } u; };\n"
	"struct holes g_holes; struct anon g_anon; struct bits g_bits; struct flex *g_flex;\n"
	"struct md g_md; tdanon g_td; struct node g_node; enum color g_color;\n"
	"struct grid g_grid; struct outer g_outer; struct withu g_withu; struct nest g_nest;\n"
	"int main(void) { return g_node.v; }\n";

/* A second unit that defines struct node again, and a third that only
 * declares it: one type for all three. */
static const char second_c[] =
	"struct node { struct node *next; int v; };\n"
	"struct conflict { int a; };\n"
	"struct node g_node2; struct conflict g_conflict1;\n";
static const char third_c[] =
	"struct node;\n"
	"struct conflict { long a; };\n"
	"struct node *g_node_ptr; struct conflict g_conflict2;\n";

static const char cxx_cc[] =
	"struct Base { int b; virtual ~Base() {} };\n"
	"class Derived : public Base { public: long d; static int s; };\n"
	"int Derived::s;\n"
	"Derived g_derived;\n"
	"namespace a { struct Node { long x, y; }; }\n"
	"namespace b { struct Node { char pad[40]; long y; }; }\n"
	"struct Outer { struct Inner; int k; };\n"
	"struct Outer::Inner { long z; };\n"
	"namespace { struct Hidden { int q; }; }\n"
	"namespace n1 { namespace n2 { template <class T> struct Item { T v; }; } }\n"
	"a::Node g_an; b::Node g_bn; Outer g_outer; Outer::Inner g_inner; Hidden g_hidden;\n"
	"n1::n2::Item<double> g_item;\n"
	"int local() { struct Local { int l; } x = {1}; return x.l; }\n"
	"int main() { return (int)g_derived.d + local() + g_hidden.q; }\n";

/* Definitions of one name that differ, and the where that tells them
 * apart: two headers of one file name in two directories, one header
 * compiled with two macros, typedefs of two anonymous structs; and types
 * whose only difference is what their pointers point to, which stay one
 * definition for their names. */
static const char hom1_c[] =
	"#define TWICE_T int\n"
	"#include \"a/node.h\"\n"
	"#include \"twice.h\"\n"
	"typedef struct { int p; } anon_t;\n"
	"struct list { struct node *head; };\n"
	"struct node g_n1; struct twice g_t1; anon_t g_a1; struct list g_l1;\n"
	"int main(void) { return 0; }\n";
static const char hom2_c[] =
	"#define TWICE_T long\n"
	"#include \"b/node.h\"\n"
	"#include \"twice.h\"\n"
	"typedef struct { long p, q; } anon_t;\n"
	"struct list { struct node *head; };\n"
	"struct node g_n2; struct twice g_t2; anon_t g_a2; struct list g_l2;\n";
static const char node_a_h[] = "struct node { int v; };\n";
static const char node_b_h[] = "struct node { long pad, v; };\n";
static const char twice_h[] =
	"struct twice { TWICE_T v; };\n";

static const ds_member *member(const ds_type *t, const char *name)
{
	for (size_t i = 0; t && i < t->nmembers; i++)
		if (t->members[i].name && strcmp(t->members[i].name, name) == 0)
			return &t->members[i];
	return NULL;
}

static char *type_name(const ds_type *t)
{
	ds_buf b = {0};
	ds_type_name(t, &b);
	return ds_buf_steal(&b);
}

static char *ident(const ds_type *t)
{
	ds_buf b = {0};
	ds_type_ident(t, &b);
	return ds_buf_steal(&b);
}

static char *path_at(const ds_type *t, uint64_t offset, uint32_t size, bool *ok)
{
	ds_buf b = {0};
	*ok = ds_type_member_path(t, offset, size, &b, NULL);
	return ds_buf_steal(&b);
}

#define CHECK_PATH(t, off, size, want_ok, want)                   \
	do {                                                      \
		bool in_;                                         \
		char *p_ = path_at((t), (off), (size), &in_);      \
		CHECK_STR(p_, (want));                            \
		CHECK(in_ == (want_ok));                          \
		free(p_);                                         \
	} while (0)

#define CHECK_NAME(t, want)                 \
	do {                                \
		char *n_ = type_name(t);    \
		CHECK_STR(n_, (want));      \
		free(n_);                   \
	} while (0)

static void check_holes(ds_dso *d)
{
	const ds_type *t = ds_dso_find_type(d, "struct holes");
	static const uint64_t offs[] = {0, 4, 8, 16, 24};

	CHECK(t && t->kind == DS_TYPE_STRUCT && t->size == 32 && t->nmembers == 5);
	if (!t || t->nmembers != 5)
		return;
	for (size_t i = 0; i < 5; i++)
		CHECK_EQ_U64(t->members[i].offset, offs[i]);
	/* GCC says "short int", Clang "short" */
	CHECK(t->members[4].type->kind == DS_TYPE_BASE && t->members[4].type->size == 2 &&
	      strncmp(t->members[4].type->name, "short", 5) == 0);
	CHECK(t->decl_file && strstr(t->decl_file, "types.c") && t->decl_line == 1);
	CHECK(ds_dso_find_type(d, "holes") == t);
	CHECK(ds_dso_find_type(d, "union holes") == NULL);
	CHECK_PATH(t, 2, 1, false, "a"); /* in the hole after a */
	CHECK_PATH(t, 17, 1, true, "d");
	CHECK_PATH(t, 40, 1, false, "e");
}

static void check_anon_and_bits(ds_dso *d)
{
	const ds_type *t = ds_dso_find_type(d, "struct anon");
	const ds_type *u = t && t->nmembers == 3 ? ds_type_strip(t->members[1].type) : NULL;
	const ds_type *b = ds_dso_find_type(d, "struct bits");
	const ds_member *m;

	CHECK(t && t->size == 12 && u && u->kind == DS_TYPE_UNION && !t->members[1].name);
	CHECK(u && u->nmembers == 3 && u->members[2].type->kind == DS_TYPE_STRUCT &&
	      !u->members[2].name);
	/* a 2-byte access in the union: no member has that size, the anonymous
	 * struct's s2 does */
	CHECK_PATH(t, 6, 2, true, "s2");
	CHECK_PATH(t, 4, 4, true, "i");
	CHECK(b && b->size == 16 && b->nmembers == 6);
	m = member(b, "a");
	CHECK(m && m->offset == 0 && m->bit_offset == 0 && m->bit_size == 3);
	m = member(b, "b");
	CHECK(m && m->offset == 0 && m->bit_offset == 3 && m->bit_size == 5);
	m = member(b, "c");
	CHECK(m && m->offset == 4 && m->bit_offset == 0 && m->bit_size == 20);
	m = member(b, "d");
	CHECK(m && m->offset == 7 && m->bit_size == 0);
	m = member(b, "e");
	CHECK(m && m->offset == 8 && m->bit_offset == 0 && m->bit_size == 40);
	m = member(b, "f");
	CHECK(m && m->offset == 13 && m->bit_offset == 0 && m->bit_size == 2);
	CHECK_PATH(b, 0, 1, true, "a");
	CHECK_PATH(b, 5, 1, true, "c");
	CHECK_PATH(b, 13, 1, true, "f");
	CHECK_PATH(b, 14, 1, false, "f");
}

static void check_arrays(ds_dso *d)
{
	const ds_type *f = ds_dso_find_type(d, "struct flex");
	const ds_type *md = ds_dso_find_type(d, "struct md");
	const ds_type *g = ds_dso_find_type(d, "struct grid");
	const ds_member *m;

	m = member(f, "data");
	CHECK(f && f->size == 4 && m && m->type->kind == DS_TYPE_ARRAY && m->type->ndims == 1 &&
	      m->type->dims[0] == 0 && m->type->size == 0);
	if (m)
		CHECK_NAME(m->type, "char []");
	CHECK_PATH(f, 100, 1, true, "data[]"); /* a flexible array reaches past the end */
	m = member(md, "m");
	CHECK(m && m->type->ndims == 3 && m->type->dims[0] == 3 && m->type->dims[1] == 4 &&
	      m->type->dims[2] == 5 && m->type->size == 240);
	if (m)
		CHECK_NAME(m->type, "int [3][4][5]");
	CHECK_PATH(md, 100, 4, true, "m[][][]");
	CHECK_PATH(g, 32, 4, true, "cells[].y");
	CHECK_PATH(g, 4 + 8 * 7, 4, true, "cells[].x");
}

static void check_named(ds_dso *d)
{
	const ds_type *td = ds_dso_find_type(d, "tdanon");
	const ds_type *n = ds_dso_find_type(d, "struct node");
	const ds_type *c = ds_dso_find_type(d, "enum color");
	const ds_type *o = ds_dso_find_type(d, "struct outer");
	const ds_type *w = ds_dso_find_type(d, "struct withu");
	bool listed = false, sorted = true;

	CHECK(td && td->kind == DS_TYPE_TYPEDEF && ds_type_strip(td)->kind == DS_TYPE_STRUCT &&
	      !ds_type_strip(td)->name && ds_type_strip(td)->nmembers == 2);
	for (size_t i = 0; i < ds_dso_ntypes(d); i++) {
		listed = listed || ds_dso_type(d, i) == td;
		if (i)
			sorted = sorted && strcmp(ds_dso_type(d, i - 1)->name, ds_dso_type(d, i)->name) <= 0;
	}
	CHECK(listed);
	CHECK(sorted);
	CHECK(ds_dso_type(d, ds_dso_ntypes(d)) == NULL);
	/* the cycle: next points to the very same type */
	CHECK(n && n->nmembers == 2 && n->members[0].type->kind == DS_TYPE_POINTER &&
	      n->members[0].type->target == n);
	if (n)
		CHECK_NAME(n->members[0].type, "struct node *");
	CHECK(c && c->kind == DS_TYPE_ENUM && c->size == 4);
	CHECK_PATH(o, 24, 4, true, "a.b.c");
	CHECK_PATH(w, 8, 8, true, "u.l");
	CHECK_PATH(w, 8, 4, true, "u.i");
	CHECK_PATH(w, 8, 2, true, "u.s");
	CHECK_PATH(w, 8, 1, true, "u.l"); /* no size matches: the first */
	CHECK(ds_type_strip(NULL) == NULL);
}

/* Expanded members: the OPEN and CLOSE rows of a named one carry its path,
 * of one without a name none; a struct inside has its tail padding row,
 * at its depth, with no text. */
static void check_nested_layout(ds_dso *d)
{
	const ds_type *t = ds_dso_find_type(d, "struct nest"), *a = ds_dso_find_type(d, "struct anon");
	ds_err err;
	ds_layout *l = t ? ds_layout_build(t, 64, &err) : NULL, *la = a ? ds_layout_build(a, 64, &err) : NULL;
	size_t opens = 0, paddings = 0;

	CHECK(l && la);
	for (size_t i = 0; l && i < l->nrows; i++) {
		const ds_layout_row *r = &l->rows[i];
		if (r->kind == DS_LROW_OPEN || r->kind == DS_LROW_CLOSE) {
			opens += r->kind == DS_LROW_OPEN;
			CHECK(r->path && (!strcmp(r->path, "t") || !strcmp(r->path, "u")) && r->depth == 0);
		}
		if (r->kind == DS_LROW_PADDING) {
			/* t's, inside it, then struct nest's own after u */
			paddings++;
			CHECK(paddings == 1 ? r->offset == 17 && r->size == 7 && r->depth == 1
					    : r->offset == 28 && r->size == 4 && r->depth == 0);
			CHECK(!r->text);
		}
		if (r->kind == DS_LROW_MEMBER && r->offset == 16)
			CHECK_STR(r->path, "t.c");
	}
	CHECK_EQ_U64(opens, 2);
	CHECK_EQ_U64(paddings, 2);
	for (size_t i = 0; la && i < la->nrows; i++)
		if (la->rows[i].kind == DS_LROW_OPEN || la->rows[i].kind == DS_LROW_CLOSE)
			CHECK(la->rows[i].path == NULL);
	ds_layout_free(l);
	ds_layout_free(la);
}

/* The layout rows of struct holes: pahole's holes, padding and summary. */
static void check_layout(ds_dso *d)
{
	const ds_type *t = ds_dso_find_type(d, "struct holes");
	const ds_type *tb = ds_dso_find_type(d, "struct md");
	ds_err err;
	ds_layout *l = t ? ds_layout_build(t, 64, &err) : NULL;
	ds_layout *lb = tb ? ds_layout_build(tb, 64, &err) : NULL;
	size_t members = 0, holes = 0, padding = 0, lines = 0;

	CHECK(l && lb);
	if (!l || !lb) {
		ds_layout_free(l);
		ds_layout_free(lb);
		return;
	}
	for (size_t i = 0; i < l->nrows; i++) {
		const ds_layout_row *r = &l->rows[i];
		members += r->kind == DS_LROW_MEMBER;
		if (r->kind == DS_LROW_HOLE) {
			holes++;
			CHECK(r->offset == (holes == 1 ? 1 : 9) && r->size == (holes == 1 ? 3 : 7));
		}
		if (r->kind == DS_LROW_PADDING)
			padding = r->size;
		if (r->kind == DS_LROW_MEMBER && r->offset == 16)
			CHECK_STR(r->path, "d");
	}
	CHECK_EQ_U64(members, 5);
	CHECK_EQ_U64(holes, 2);
	CHECK_EQ_U64(padding, 6);
	CHECK(l->sum.size == 32 && l->sum.holes == 2 && l->sum.sum_holes == 10 &&
	      l->sum.sum_members == 16 && l->sum.padding == 6 && l->sum.cachelines == 1 &&
	      l->sum.last_cacheline == 32);
	CHECK_STR(l->rows[0].text, "struct holes {");
	CHECK_STR(l->rows[l->nrows - 1].text, "};");
	for (size_t i = 0; i < lb->nrows; i++)
		lines += lb->rows[i].kind == DS_LROW_CACHELINE;
	CHECK_EQ_U64(lines, 1); /* "cacheline 3 boundary (192 bytes) was 48 bytes ago" */
	CHECK(lb->sum.cachelines == 4 && lb->sum.last_cacheline == 52);
	ds_layout_free(l);
	ds_layout_free(lb);
	CHECK(ds_layout_build(ds_dso_find_type(d, "enum color"), 64, &err) == NULL &&
	      strstr(err.msg, "not a struct"));
	check_nested_layout(d);
}

static void check_program(const char *cc, const char *opt, int dwarf, const char *extra)
{
	char *label = ds_xasprintf("%s %s -gdwarf-%d%s", cc, opt, dwarf, extra);
	ds_dso *d;

	unit_current = label;
	if (!unit_sh("%s %s -g -gdwarf-%d%s -o types.out types.c", cc, opt, dwarf, extra)) {
		CHECK(!"the test program builds");
		free(label);
		return;
	}
	d = unit_open_dso("types.out", NULL);
	CHECK(d != NULL);
	if (d) {
		check_holes(d);
		check_anon_and_bits(d);
		check_arrays(d);
		check_named(d);
		check_layout(d);
		CHECK(ds_dso_note(d) == NULL);
		ds_dso_close(d);
	}
	unit_current = "";
	free(label);
}

TEST(programs)
{
	static const char *const ccs[] = {"gcc", "clang"};
	static const char *const opts[] = {"-O0", "-O2"};

	CHECK(unit_write_text("types.c", types_c));
	for (size_t c = 0; c < 2; c++) {
		if (!unit_have(ccs[c])) {
			unit_skip(ccs[c]);
			continue;
		}
		for (size_t o = 0; o < 2; o++)
			for (int v = 4; v <= 5; v++)
				check_program(ccs[c], opts[o], v, "");
	}
	/* types in type units, referred to by signature: DWARF 4's
	 * .debug_types and DWARF 5's type units in .debug_info */
	check_program("gcc", "-O0", 4, " -fdebug-types-section");
	check_program("gcc", "-O0", 5, " -fdebug-types-section");
}

/* DIE offsets of the structure DIEs called name, from readelf. */
static size_t struct_dies(const char *bin, const char *name, uint64_t *out, size_t max)
{
	char *cmd = ds_xasprintf("readelf --debug-dump=info -W '%s/%s'", unit_tmp, bin);
	FILE *p = popen(cmd, "r");
	char line[1024];
	unsigned long long off = 0;
	bool in_struct = false;
	size_t n = 0;

	while (p && fgets(line, sizeof line, p)) {
		char *at = strstr(line, "><"), *nm;
		if (at && strstr(line, "Abbrev Number")) {
			in_struct = strstr(line, "DW_TAG_structure_type") != NULL;
			sscanf(at + 2, "%llx", &off);
		} else if (in_struct && (nm = strstr(line, "DW_AT_name")) != NULL) {
			char *colon = strrchr(nm, ':');
			if (colon && strncmp(colon + 2, name, strlen(name)) == 0 &&
			    (colon[2 + strlen(name)] == '\n' || colon[2 + strlen(name)] == '\r') && n < max)
				out[n++] = off;
			in_struct = false;
		}
	}
	if (p)
		pclose(p);
	free(cmd);
	return n;
}

TEST(dedup)
{
	uint64_t offs[4];
	size_t n, nodes = 0, conflicts = 0;
	ds_dso *d;

	CHECK(unit_write_text("types.c", types_c) && unit_write_text("second.c", second_c) &&
	      unit_write_text("third.c", third_c));
	CHECK(unit_sh("gcc -O2 -g -o multi.out types.c second.c third.c"));
	d = unit_open_dso("multi.out", NULL);
	CHECK(d != NULL);
	if (!d)
		return;
	for (size_t i = 0; i < ds_dso_ntypes(d); i++) {
		const ds_type *t = ds_dso_type(d, i);
		nodes += strcmp(t->name, "node") == 0;
		conflicts += strcmp(t->name, "conflict") == 0;
	}
	CHECK_EQ_U64(nodes, 1);
	CHECK_EQ_U64(conflicts, 2); /* two layouts of one name are two types */
	/* ... each with where it is declared; struct node, one definition,
	 * needs none */
	{
		const ds_type *c[3] = {NULL, NULL, NULL};
		char *n1, *n2;
		CHECK_EQ_U64(ds_dso_find_types(d, "struct conflict", c, 3), 2);
		CHECK(c[0] && c[1] && c[0]->where && c[1]->where);
		CHECK(ds_dso_find_type(d, "struct node") && !ds_dso_find_type(d, "struct node")->where);
		if (c[0] && c[1] && c[0]->where && c[1]->where) {
			bool first_second = strcmp(c[0]->where, "second.c:2") == 0;
			CHECK_STR(first_second ? c[0]->where : c[1]->where, "second.c:2");
			CHECK_STR(first_second ? c[1]->where : c[0]->where, "third.c:2");
			CHECK(ds_dso_find_type(d, "struct conflict (third.c:2)") == (first_second ? c[1] : c[0]));
			CHECK(ds_dso_find_type(d, "conflict (second.c:2)") == (first_second ? c[0] : c[1]));
			CHECK(ds_dso_find_type(d, "struct conflict (fourth.c:2)") == NULL);
			n1 = ident(first_second ? c[1] : c[0]);
			CHECK_STR(n1, "struct conflict (third.c:2)");
			free(n1);
		}
		n2 = ident(ds_dso_find_type(d, "struct node"));
		CHECK_STR(n2, "struct node");
		free(n2);
		CHECK(!ds_type_same(c[0], c[1]));
	}
	n = struct_dies("multi.out", "node", offs, 4);
	CHECK_EQ_U64(n, 3); /* two definitions and a declaration */
	for (size_t i = 0; i < n; i++)
		CHECK(ds_dso_type_at_die(d, offs[i]) == ds_dso_find_type(d, "struct node"));
	CHECK(ds_dso_type_at_die(d, 0) == NULL);
	CHECK(ds_dso_type_at_die(d, UINT64_MAX) == NULL);
	ds_dso_close(d);
}

/* C++ names with their scopes: namespaces, enclosing classes (also of a
 * class defined out of its class), anonymous namespaces, templates; a
 * type local to a function goes by its own name. */
static void check_cxx_names(const char *cxx)
{
	static const char *const names[] = {
		"struct a::Node", "struct b::Node", "struct Outer::Inner", "struct (anonymous namespace)::Hidden",
		"struct n1::n2::Item<double>", "struct Local",
	};
	ds_dso *d;

	unit_current = cxx;
	CHECK(unit_sh("%s -O0 -g -o cxxn.out cxx.cc", cxx));
	d = unit_open_dso("cxxn.out", NULL);
	CHECK(d != NULL);
	for (size_t i = 0; d && i < sizeof names / sizeof names[0]; i++) {
		const ds_type *t = ds_dso_find_type(d, names[i]);
		unit_current = names[i];
		CHECK(t != NULL);
		if (t) {
			char *n = ident(t);
			CHECK_STR(n, names[i]);
			free(n);
		}
	}
	unit_current = cxx;
	if (d) {
		const ds_type *two[3] = {NULL, NULL, NULL};
		/* no type goes by a bare name, but the bare name finds each it ends */
		CHECK_EQ_U64(ds_dso_find_types(d, "struct Node", two, 3), 2);
		CHECK(two[0] && two[1] && two[0]->size + two[1]->size == 64);
		CHECK(ds_dso_find_type(d, "Inner") && ds_dso_find_type(d, "Inner")->size == 8);
		CHECK(ds_dso_find_type(d, "n2::Item<double>") && ds_dso_find_type(d, "n2::Item<double>")->size == 8);
		CHECK(ds_dso_find_type(d, "Hidden") && ds_dso_find_type(d, "Hidden")->size == 4);
		CHECK(ds_dso_find_type(d, "union Node") == NULL);
		CHECK(ds_dso_find_type(d, "ode") == NULL);
		CHECK(ds_dso_find_type(d, "a::Node") && ds_dso_find_type(d, "a::Node")->size == 16);
		CHECK(ds_dso_find_type(d, "b::Node") && ds_dso_find_type(d, "b::Node")->size == 48);
		CHECK(!ds_dso_find_type(d, "a::Node") || !ds_dso_find_type(d, "a::Node")->where);
	}
	ds_dso_close(d);
	unit_current = "cxx";
}

/* A C++ name's last scopes, and no "::" of template arguments. */
TEST(name_tail)
{
	static const struct {
		const char *q, *want;
		bool tail;
	} cases[] = {
		{"a::b::Node", "Node", true},
		{"a::b::Node", "b::Node", true},
		{"a::b::Node", "a::b::Node", true},
		{"a::b::Node", "::Node", false},
		{"a::b::Node", "ode", false},
		{"a::b::Node", "c::Node", false},
		{"Node", "Node", true},
		{"S<char const*, ns::Cmp>::Node", "Node", true},
		{"S<char const*, ns::Cmp>::Node", "S<char const*, ns::Cmp>::Node", true},
		{"S<ns::Cmp>", "Cmp>", false},
		{"f(ns::X)::Local", "Local", true},
		{"(anonymous namespace)::Hidden", "Hidden", true},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unit_current = cases[i].want;
		CHECK(ds_name_tail(cases[i].q, strlen(cases[i].q), cases[i].want, strlen(cases[i].want)) ==
		      cases[i].tail);
	}
	unit_current = "name_tail";
}

/* Names of qualified types, built by hand as GCC's DWARF has them: a
 * const array of const elements (static const short t[409]) is named with
 * one const, as C declares it. */
TEST(qualified_names)
{
	static const uint64_t dims[] = {409};
	ds_type sh = {.kind = DS_TYPE_BASE, .name = "short int", .size = 2};
	ds_type csh = {.kind = DS_TYPE_CONST, .target = &sh};
	ds_type arr = {.kind = DS_TYPE_ARRAY, .target = &csh, .dims = dims, .ndims = 1, .size = 818};
	ds_type carr = {.kind = DS_TYPE_CONST, .target = &arr};
	ds_type vcarr = {.kind = DS_TYPE_VOLATILE, .target = &carr};
	ds_type ch = {.kind = DS_TYPE_BASE, .name = "char", .size = 1};
	ds_type cch = {.kind = DS_TYPE_CONST, .target = &ch};
	ds_type pcch = {.kind = DS_TYPE_POINTER, .target = &cch, .size = 8};
	ds_type cpcch = {.kind = DS_TYPE_CONST, .target = &pcch};
	ds_type cpcch_arr = {.kind = DS_TYPE_ARRAY, .target = &cpcch, .dims = dims, .ndims = 1};
	ds_type c_cpcch_arr = {.kind = DS_TYPE_CONST, .target = &cpcch_arr};

	CHECK_NAME(&carr, "const short int [409]");
	CHECK_NAME(&arr, "const short int [409]");
	CHECK_NAME(&vcarr, "volatile const short int [409]");
	CHECK_NAME(&cpcch, "const char *const");
	/* the array's const is its const pointers', said after their star */
	CHECK_NAME(&c_cpcch_arr, "const char *const [409]");
}

TEST(cxx)
{
	const ds_type *t;
	ds_dso *d;

	if (!unit_have("g++")) {
		unit_skip("g++ is not installed");
		return;
	}
	CHECK(unit_write_text("cxx.cc", cxx_cc));
	CHECK(unit_sh("g++ -O0 -g -o cxx.out cxx.cc"));
	d = unit_open_dso("cxx.out", NULL);
	CHECK(d != NULL);
	if (!d)
		return;
	t = ds_dso_find_type(d, "class Derived");
	CHECK(t && t->kind == DS_TYPE_CLASS && t->size == 24);
	/* the base class and d; the static member has no place */
	CHECK(t && t->nmembers == 2 && t->members[0].base_class && t->members[0].offset == 0 &&
	      t->members[0].type == ds_dso_find_type(d, "Base") && !t->members[1].base_class &&
	      t->members[1].offset == 16);
	CHECK(ds_dso_find_type(d, "struct Derived") == t); /* struct and class are one name space */
	ds_dso_close(d);
	check_cxx_names("g++");
	if (unit_have("clang++"))
		check_cxx_names("clang++"); /* Clang defines Outer::Inner out of its class */
}

/* A class defined in a function, with a copy constructor: GCC -O2 puts the
 * const type of its parameter (const Local &) among the constructor's
 * declaration's children, where the reference to it must find it. */
TEST(member_function_types)
{
	static const char src[] =
		"struct Base { virtual ~Base() {} virtual void f() = 0; int y; };\n"
		"void use(Base *b) { b->f(); }\n"
		"int g(int v) {\n"
		"	struct Local : Base { int x; void f() override { x++; } };\n"
		"	Local a;\n"
		"	a.x = v;\n"
		"	Local b = a;\n"
		"	use(&a);\n"
		"	use(&b);\n"
		"	return a.x + b.x;\n"
		"}\n"
		"int main(int argc, char **argv) { (void)argv; return g(argc); }\n";
	const ds_type *t;
	ds_dso *d;

	if (!unit_have("g++")) {
		unit_skip("g++ is not installed");
		return;
	}
	CHECK(unit_write_text("local.cc", src));
	CHECK(unit_sh("g++ -O2 -g -o local.out local.cc"));
	d = unit_open_dso("local.out", NULL);
	CHECK(d != NULL);
	if (!d)
		return;
	t = ds_dso_find_type(d, "Local");
	CHECK(t && t->size == 16 && t->nmembers == 2);
	CHECK(ds_dso_note(d) == NULL);
	if (ds_dso_note(d))
		printf("# %s\n", ds_dso_note(d));
	ds_dso_close(d);
}

TEST(homonyms)
{
	const ds_type *n[3] = {NULL, NULL, NULL}, *t[3] = {NULL, NULL, NULL}, *a[3] = {NULL, NULL, NULL};
	const ds_type *l;
	ds_dso *d, *d2;

	CHECK(unit_sh("mkdir -p a b"));
	CHECK(unit_write_text("hom1.c", hom1_c) && unit_write_text("hom2.c", hom2_c) &&
	      unit_write_text("a/node.h", node_a_h) && unit_write_text("b/node.h", node_b_h) &&
	      unit_write_text("twice.h", twice_h));
	CHECK(unit_sh("gcc -O0 -g -o hom.out hom1.c hom2.c"));
	d = unit_open_dso("hom.out", NULL);
	d2 = unit_open_dso("hom.out", NULL);
	CHECK(d && d2);
	if (!d || !d2) {
		ds_dso_close(d);
		ds_dso_close(d2);
		return;
	}
	/* the same file name in two directories: the directory tells */
	CHECK_EQ_U64(ds_dso_find_types(d, "node", n, 3), 2);
	if (n[0] && n[1] && n[0]->where && n[1]->where) {
		CHECK_STR(n[0]->size == 4 ? n[0]->where : n[1]->where, "a/node.h:1");
		CHECK_STR(n[0]->size == 4 ? n[1]->where : n[0]->where, "b/node.h:1");
	} else {
		CHECK(!"both nodes have a where");
	}
	/* one header, two macros: the same file and line, told apart by rank */
	CHECK_EQ_U64(ds_dso_find_types(d, "struct twice", t, 3), 2);
	if (t[0] && t[1] && t[0]->where && t[1]->where) {
		CHECK_STR(t[0]->where, "twice.h:1 #1");
		CHECK_STR(t[1]->where, "twice.h:1 #2");
		CHECK(t[0]->size == 4 && t[1]->size == 8);
		CHECK(ds_dso_find_type(d, "struct twice (twice.h:1 #2)") == t[1]);
	} else {
		CHECK(!"both twices have a where");
	}
	/* typedefs of two anonymous structs: the structs carry the where */
	CHECK_EQ_U64(ds_dso_find_types(d, "anon_t", a, 3), 2);
	if (a[0] && a[1]) {
		char *i0 = ident(a[0]), *i1 = ident(a[1]);
		CHECK_STR(i0, "anon_t (hom1.c:4)");
		CHECK_STR(i1, "anon_t (hom2.c:4)");
		CHECK(ds_dso_find_type(d, "anon_t (hom2.c:4)") == a[1]);
		free(i0);
		free(i1);
	}
	/* struct list differs only in what head points to: one name, no where */
	l = ds_dso_find_type(d, "struct list");
	CHECK(l && !l->where);
	/* two handles on one binary: the same definitions */
	CHECK(n[0] && ds_type_same(n[0], ds_dso_find_type(d2, n[0]->size == 4 ? "node (a/node.h:1)" : "node (b/node.h:1)")));
	CHECK(n[0] && !ds_type_same(n[0], ds_dso_find_type(d2, n[0]->size == 4 ? "node (b/node.h:1)" : "node (a/node.h:1)")));
	ds_dso_close(d);
	ds_dso_close(d2);
}

static bool section_range(const char *bin, const char *name, size_t *off, size_t *size)
{
	char *cmd = ds_xasprintf("readelf -S -W '%s/%s'", unit_tmp, bin);
	FILE *p = popen(cmd, "r");
	char line[512];
	bool found = false;

	while (p && fgets(line, sizeof line, p)) {
		char sec[64], type[64];
		unsigned long long addr, o, sz;
		char *b = strchr(line, ']');
		if (!b || sscanf(b + 1, "%63s %63s %llx %llx %llx", sec, type, &addr, &o, &sz) != 5 ||
		    strcmp(sec, name) != 0)
			continue;
		*off = o;
		*size = sz;
		found = true;
	}
	if (p)
		pclose(p);
	free(cmd);
	return found;
}

/* Everything a caller may ask of the types, on a file that may be garbage;
 * true when the file still had types, *noted when it got a note. */
static bool exercise(const char *name, bool *noted)
{
	ds_dso *d = unit_open_dso(name, NULL);
	ds_err err;
	bool any;

	if (!d)
		return false;
	any = ds_dso_ntypes(d) > 0;
	for (size_t i = 0; i < ds_dso_ntypes(d); i++) {
		const ds_type *t = ds_dso_type(d, i), *s = ds_type_strip(t);
		ds_buf b = {0};
		ds_type_name(t, &b);
		for (uint64_t off = 0; s && off <= s->size + 1 && off < 256; off++) {
			ds_buf_reset(&b);
			ds_type_member_path(t, off, 4, &b, NULL);
		}
		ds_buf_free(&b);
		ds_layout_free(ds_layout_build(t, 64, &err));
	}
	for (uint64_t off = 0; off < 4096; off++)
		ds_dso_type_at_die(d, off);
	ds_dso_find_type(d, "struct node");
	*noted = ds_dso_note(d) != NULL;
	ds_dso_close(d);
	return any;
}

TEST(malformed)
{
	static const char *const sections[] = {".debug_info", ".debug_abbrev", ".debug_str"};
	size_t len = 0;
	char *elf, *p;
	int rounds = 0, typed = 0, noted = 0;

	CHECK(unit_write_text("types.c", types_c));
	CHECK(unit_sh("gcc -O2 -g -o good.out types.c"));
	p = unit_tpath("good.out");
	elf = ds_read_file(p, &len);
	free(p);
	CHECK(elf != NULL);
	if (!elf)
		return;
	srand(7);
	for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
		size_t off, size;
		if (!section_range("good.out", sections[s], &off, &size) || off + size > len) {
			CHECK(!"the section is found");
			continue;
		}
		for (int round = 0; round < 120; round++, rounds++) {
			char *bad = ds_xmalloc(len);
			FILE *f;
			memcpy(bad, elf, len);
			for (int k = 0; k < 1 + round % 8; k++)
				bad[off + (size_t)rand() % size] = (char)(rand() & 0xff);
			p = unit_tpath("bad.out");
			f = fopen(p, "wb");
			if (f) {
				fwrite(bad, 1, len, f);
				fclose(f);
			}
			free(p);
			free(bad);
			bool note = false;
			typed += exercise("bad.out", &note);
			noted += note;
		}
	}
	/* still here: no crash, no hang; most files keep most types, and the
	 * damage is reported */
	CHECK(rounds == 360);
	printf("# %d of %d corrupt files still had types, %d got a note\n", typed, rounds, noted);
	CHECK(typed > rounds / 2 && noted > rounds / 4);
	free(elf);
}

TEST(no_types)
{
	ds_dso *d;

	CHECK(unit_write_text("plain.c", "int main(void) { return 0; }\n"));
	CHECK(unit_sh("gcc -O2 -o plain.out plain.c"));
	d = unit_open_dso("plain.out", NULL);
	CHECK(d && ds_dso_ntypes(d) == 0 && ds_dso_find_type(d, "int") == NULL &&
	      ds_dso_type_at_die(d, 0x2d) == NULL);
	ds_dso_close(d);
}

int main(void)
{
	if (!unit_tmpdir("dsprof-types"))
		return 1;
	RUN(programs);
	RUN(dedup);
	RUN(name_tail);
	RUN(qualified_names);
	RUN(cxx);
	RUN(member_function_types);
	RUN(homonyms);
	RUN(malformed);
	RUN(no_types);
	unit_sh("rm -rf '%s'", unit_tmp);
	return unit_done();
}
