/*
 * The symbol table exactly as perf 6.1 builds it (tools/perf/util/symbol.c).
 *
 * perf keeps a dso's symbols in a red-black tree keyed by start address
 * and looks an address up by walking that tree (symbols__find).  Where
 * symbols overlap, which one the walk meets first depends on the shape of
 * the tree.  Overlaps are common: a zero-size _init is extended to the
 * next symbol before the name@plt entries are added, so it covers .plt,
 * and `perf report` attributes some PLT samples to _init.  To give the same
 * answers we build the same tree: the classic red-black insertion and
 * deletion (the kernel's lib/rbtree.c is the textbook algorithm, so the
 * same sequence of operations gives the same shape), driven by the same
 * sequence of inserts and erases as perf.
 *
 * Nodes live in a vector and link by index; -1 is the empty link.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <stdlib.h>
#include <string.h>

#define NIL (-1)

void ds_symtree_init(ds_symtree *t)
{
	memset(t, 0, sizeof *t);
	t->root = NIL;
}

void ds_symtree_free(ds_symtree *t)
{
	ds_vec_free(&t->n);
	ds_buf_free(&t->arena);
	t->root = NIL;
	t->live = 0;
}

static ds_psym *N(ds_symtree *t, int32_t i)
{
	return &t->n.v[i];
}

static bool is_red(ds_symtree *t, int32_t i)
{
	return i != NIL && N(t, i)->red;
}

static const char *name_of(ds_symtree *t, int32_t i)
{
	return t->arena.p + N(t, i)->name;
}

/* Put child where node was under node's parent. */
static void replace_child(ds_symtree *t, int32_t node, int32_t child)
{
	int32_t p = N(t, node)->parent;

	if (p == NIL)
		t->root = child;
	else if (N(t, p)->left == node)
		N(t, p)->left = child;
	else
		N(t, p)->right = child;
	if (child != NIL)
		N(t, child)->parent = p;
}

static void rotate_left(ds_symtree *t, int32_t x)
{
	int32_t y = N(t, x)->right;

	N(t, x)->right = N(t, y)->left;
	if (N(t, y)->left != NIL)
		N(t, N(t, y)->left)->parent = x;
	replace_child(t, x, y);
	N(t, y)->left = x;
	N(t, x)->parent = y;
}

static void rotate_right(ds_symtree *t, int32_t x)
{
	int32_t y = N(t, x)->left;

	N(t, x)->left = N(t, y)->right;
	if (N(t, y)->right != NIL)
		N(t, N(t, y)->right)->parent = x;
	replace_child(t, x, y);
	N(t, y)->right = x;
	N(t, x)->parent = y;
}

static void insert_fixup(ds_symtree *t, int32_t z)
{
	while (is_red(t, N(t, z)->parent)) {
		int32_t p = N(t, z)->parent, g = N(t, p)->parent;
		bool left = N(t, g)->left == p;
		int32_t u = left ? N(t, g)->right : N(t, g)->left;

		if (is_red(t, u)) {
			N(t, p)->red = false;
			N(t, u)->red = false;
			N(t, g)->red = true;
			z = g;
			continue;
		}
		if (left && z == N(t, p)->right) {
			z = p;
			rotate_left(t, z);
			p = N(t, z)->parent;
		} else if (!left && z == N(t, p)->left) {
			z = p;
			rotate_right(t, z);
			p = N(t, z)->parent;
		}
		N(t, p)->red = false;
		N(t, g)->red = true;
		if (left)
			rotate_right(t, g);
		else
			rotate_left(t, g);
	}
	N(t, t->root)->red = false;
}

void ds_symtree_add(ds_symtree *t, uint64_t start, uint64_t len, uint64_t vaddr,
		    const char *name, const char *raw, uint8_t bind, uint8_t type)
{
	ds_psym s = {
		.start = start,
		.end = len ? start + len : start,
		.vaddr = vaddr,
		.bind = bind,
		.type = type,
		.red = true,
		.left = NIL,
		.right = NIL,
		.parent = NIL,
	};
	int32_t z, x = t->root, y = NIL;

	if (t->n.n >= INT32_MAX)
		return;
	s.name = t->arena.len;
	ds_buf_append(&t->arena, name, strlen(name) + 1);
	s.raw = s.name;
	if (raw != name && strcmp(raw, name) != 0) {
		s.raw = t->arena.len;
		ds_buf_append(&t->arena, raw, strlen(raw) + 1);
	}
	z = (int32_t)t->n.n;
	ds_vec_push(&t->n, s);
	/* Equal keys go right, so they stay in insertion order. */
	while (x != NIL) {
		y = x;
		x = start < N(t, x)->start ? N(t, x)->left : N(t, x)->right;
	}
	N(t, z)->parent = y;
	if (y == NIL)
		t->root = z;
	else if (start < N(t, y)->start)
		N(t, y)->left = z;
	else
		N(t, y)->right = z;
	insert_fixup(t, z);
	t->live++;
}

static void erase_fixup(ds_symtree *t, int32_t x, int32_t xp)
{
	while (x != t->root && !is_red(t, x)) {
		bool left = N(t, xp)->left == x;
		int32_t w = left ? N(t, xp)->right : N(t, xp)->left;

		if (is_red(t, w)) {
			N(t, w)->red = false;
			N(t, xp)->red = true;
			if (left)
				rotate_left(t, xp);
			else
				rotate_right(t, xp);
			w = left ? N(t, xp)->right : N(t, xp)->left;
		}
		int32_t near = left ? N(t, w)->left : N(t, w)->right;
		int32_t far = left ? N(t, w)->right : N(t, w)->left;
		if (!is_red(t, near) && !is_red(t, far)) {
			N(t, w)->red = true;
			x = xp;
			xp = N(t, x)->parent;
			continue;
		}
		if (!is_red(t, far)) {
			N(t, near)->red = false;
			N(t, w)->red = true;
			if (left)
				rotate_right(t, w);
			else
				rotate_left(t, w);
			w = left ? N(t, xp)->right : N(t, xp)->left;
			far = left ? N(t, w)->right : N(t, w)->left;
		}
		N(t, w)->red = N(t, xp)->red;
		N(t, xp)->red = false;
		N(t, far)->red = false;
		if (left)
			rotate_left(t, xp);
		else
			rotate_right(t, xp);
		x = t->root;
	}
	if (x != NIL)
		N(t, x)->red = false;
}

static int32_t leftmost(ds_symtree *t, int32_t x)
{
	while (x != NIL && N(t, x)->left != NIL)
		x = N(t, x)->left;
	return x;
}

/* Unlink z; like rb_erase, a node with two children is replaced by its
 * in-order successor, which takes z's place and colour. */
static void erase(ds_symtree *t, int32_t z)
{
	int32_t x, xp, y = z;
	bool y_red = N(t, z)->red;

	if (N(t, z)->left == NIL || N(t, z)->right == NIL) {
		x = N(t, z)->left == NIL ? N(t, z)->right : N(t, z)->left;
		xp = N(t, z)->parent;
		replace_child(t, z, x);
	} else {
		y = leftmost(t, N(t, z)->right);
		y_red = N(t, y)->red;
		x = N(t, y)->right;
		if (N(t, y)->parent == z) {
			xp = y;
		} else {
			xp = N(t, y)->parent;
			replace_child(t, y, x);
			N(t, y)->right = N(t, z)->right;
			N(t, N(t, y)->right)->parent = y;
		}
		replace_child(t, z, y);
		N(t, y)->left = N(t, z)->left;
		N(t, N(t, y)->left)->parent = y;
		N(t, y)->red = N(t, z)->red;
	}
	if (!y_red && xp != NIL)
		erase_fixup(t, x, xp);
	else if (x != NIL)
		N(t, x)->red = false;
	N(t, z)->left = N(t, z)->right = N(t, z)->parent = NIL;
	t->live--;
}

static int32_t next(ds_symtree *t, int32_t x)
{
	int32_t p;

	if (N(t, x)->right != NIL)
		return leftmost(t, N(t, x)->right);
	p = N(t, x)->parent;
	while (p != NIL && N(t, p)->right == x) {
		x = p;
		p = N(t, p)->parent;
	}
	return p;
}

/* symbols__fixup_end: a zero-size symbol ends where the next one starts;
 * the last one ends a page past its page.  In kallsyms, a zero-size symbol
 * just before a kernel/module boundary gets one page instead. */
void ds_symtree_fixup_end(ds_symtree *t, bool is_kallsyms)
{
	int32_t prev, curr = leftmost(t, t->root);

	if (curr == NIL)
		return;
	for (int32_t nd = next(t, curr); nd != NIL; nd = next(t, nd)) {
		prev = curr;
		curr = nd;
		if (N(t, prev)->end != N(t, prev)->start)
			continue;
		if (is_kallsyms &&
		    !strchr(name_of(t, prev), '[') != !strchr(name_of(t, curr), '['))
			N(t, prev)->end = ((N(t, prev)->end + 4096) + 4095) / 4096 * 4096;
		else
			N(t, prev)->end = N(t, curr)->start;
	}
	if (N(t, curr)->end == N(t, curr)->start)
		N(t, curr)->end = (N(t, curr)->start + 4095) / 4096 * 4096 + 4096;
}

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* choose_best_symbol (with the x86 arch__choose_best_symbol): true when a
 * should stay and b go. */
static bool keep_first(ds_symtree *t, int32_t ia, int32_t ib)
{
	const ds_psym *a = N(t, ia), *b = N(t, ib);
	const char *na = name_of(t, ia), *nb = name_of(t, ib);
	bool sa = a->end != a->start, sb = b->end != b->start;
	size_t ua, ub, la, lb;

	if (sa != sb)
		return sa; /* a symbol with a size beats one without */
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	ua = underscores(na);
	ub = underscores(nb);
	if (ua != ub)
		return ua < ub;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return la > lb;
	/* kernel syscall aliases lose */
	if (strncmp(na, "SyS", 3) == 0 || strncmp(na, "compat_SyS", 10) == 0)
		return false;
	return true;
}

/* symbols__fixup_duplicate: of symbols sharing a start, keep the best. */
void ds_symtree_fixup_duplicate(ds_symtree *t)
{
	int32_t curr, nd = leftmost(t, t->root);

	while (nd != NIL) {
		curr = nd;
		for (;;) {
			nd = next(t, curr);
			if (nd == NIL || N(t, curr)->start != N(t, nd)->start)
				break;
			if (keep_first(t, curr, nd)) {
				erase(t, nd);
				continue;
			}
			erase(t, curr);
			break;
		}
	}
}

void ds_symtree_remove_name(ds_symtree *t, const char *name)
{
	int32_t nd = leftmost(t, t->root);

	while (nd != NIL) {
		int32_t cur = nd;
		nd = next(t, cur);
		if (strcmp(name_of(t, cur), name) == 0)
			erase(t, cur);
	}
}

/* In-order walk: sorted symbols, with each tree node's final index. */
static void fill(ds_symtree *t, ds_dso *d, int32_t *slot)
{
	int32_t i = 0;

	for (int32_t x = leftmost(t, t->root); x != NIL; x = next(t, x), i++) {
		const ds_psym *s = N(t, x);
		slot[x] = i;
		d->syms[i] = (ds_symbol){
			.name = d->names + s->name,
			.raw = d->names + s->raw,
			.start = s->vaddr,
			.size = s->end - s->start,
			.bind = s->bind,
			.type = s->type,
		};
		d->nodes[i] = (ds_symnode){.start = s->start, .end = s->end};
	}
}

void ds_symtree_finish(ds_symtree *t, ds_dso *d)
{
	size_t n = t->live ? t->live : 1;
	int32_t *slot = ds_xmalloc((t->n.n ? t->n.n : 1) * sizeof *slot);

	d->nsyms = t->live;
	d->syms = ds_xcalloc(n, sizeof *d->syms);
	d->nodes = ds_xcalloc(n, sizeof *d->nodes);
	d->names = ds_buf_steal(&t->arena);
	fill(t, d, slot);
	/* Links once every node has its final index. */
	for (int32_t x = leftmost(t, t->root); x != NIL; x = next(t, x)) {
		const ds_psym *s = N(t, x);
		d->nodes[slot[x]].left = s->left == NIL ? NIL : slot[s->left];
		d->nodes[slot[x]].right = s->right == NIL ? NIL : slot[s->right];
	}
	d->root = t->root == NIL ? NIL : slot[t->root];
	free(slot);
	ds_symtree_free(t);
}

const ds_symbol *ds_symtab_find(const ds_dso *d, uint64_t addr)
{
	int32_t n = d->root;

	while (n != NIL) {
		const ds_symnode *s = &d->nodes[n];
		if (addr < s->start)
			n = s->left;
		else if (addr > s->end || (addr == s->end && addr != s->start))
			n = s->right;
		else
			return &d->syms[n];
	}
	return NULL;
}
