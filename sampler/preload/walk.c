/*
 * The heap tracker's stack walk by call-frame information (walk.h).
 *
 * libunwind's unw_backtrace, which the tracker used for every stack of
 * code built without frame pointers, takes about 5 ns a frame and 12 more
 * a call, most of the tracker's cost on such code (LevelDB's db_bench:
 * 0.34 s of its 2.9 million allocations' 0.55).  Most frames of compiled
 * code follow one pattern: the CFA is the stack pointer (or the frame
 * pointer) plus a constant, the return address is just below it, and rbp
 * is saved at a constant offset from it or not at all.  Such a rule is
 * read once per return address from .eh_frame (LSB 10.6; the rows as in
 * DWARF 5, 6.4) and kept; a walk is then a lookup and two loads a frame.
 * The reading is a small interpreter of the CFA instructions that follows
 * only rsp, rbp and the return address and gives up on anything else.
 *
 * The sections are read from the loaded objects' memory, found with
 * dl_iterate_phdr, within the segment that holds .eh_frame_hdr.
 */
#include "sampler/preload/walk.h"

#include <link.h>
#include <stddef.h>
#include <string.h>

/* how a rule finds the CFA, or why there is none to follow (0: an empty
 * slot's, none) */
enum { HOW_RSP = 1, HOW_RBP, HOW_END, HOW_NO };

/* DWARF register numbers of x86-64 (psABI 3.6.2) */
enum { REG_RBP = 6, REG_RSP = 7, REG_RA = 16 };

/* what a register's rule is, of those the walk follows */
enum { R_SAME, R_OFFSET, R_UNDEF, R_OTHER };

typedef struct row {
	uint64_t cfa_reg;
	int64_t cfa_off;
	int cfa_expr;
	int rbp, ra;         /* R_* */
	int64_t rbp_off, ra_off;
} row;

/* GCC nests remember_state a level or two deep */
#define STATES 8
/* a function's rows are a few hundred instructions at most */
#define MAX_OPS 4096

typedef struct rd {
	const uint8_t *p, *end;
	int bad;
} rd;

static uint8_t u8(rd *r)
{
	if (r->p >= r->end) {
		r->bad = 1;
		return 0;
	}
	return *r->p++;
}

static uint64_t fixed(rd *r, int n)
{
	uint64_t v = 0;
	if (r->end - r->p < n) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, (size_t)n); /* little-endian */
	r->p += n;
	return v;
}

static uint64_t uleb(rd *r)
{
	uint64_t v = 0;
	for (int s = 0; s < 64; s += 7) {
		uint8_t b = u8(r);
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

/* skip an expression's block: its length, then its bytes */
static void skip_block(rd *r)
{
	uint64_t n = uleb(r);
	if (n > (uint64_t)(r->end - r->p))
		r->bad = 1;
	else
		r->p += n;
}

static int64_t sleb(rd *r)
{
	uint64_t v = 0;
	for (int s = 0; s < 64; s += 7) {
		uint8_t b = u8(r);
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80)) {
			if (s + 7 < 64 && (b & 0x40))
				v |= ~0ull << (s + 7);
			return (int64_t)v;
		}
	}
	r->bad = 1;
	return 0;
}

/* A pointer in the DW_EH_PE encoding enc: absolute, or relative to where
 * it is (pcrel) or to base (datarel).  Indirect pointers are not read. */
static uintptr_t eh_ptr(rd *r, uint8_t enc, uintptr_t base)
{
	uintptr_t at = (uintptr_t)r->p;
	uint64_t v;

	switch (enc & 0x0f) {
	case 0x00:
	case 0x04:
	case 0x0c: v = fixed(r, 8); break;
	case 0x01: v = uleb(r); break;
	case 0x02: v = fixed(r, 2); break;
	case 0x03: v = fixed(r, 4); break;
	case 0x09: v = (uint64_t)sleb(r); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)fixed(r, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)fixed(r, 4); break;
	default: r->bad = 1; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += at; break;
	case 0x30: v += base; break;
	default: r->bad = 1; return 0;
	}
	if (enc & 0x80)
		r->bad = 1;
	return (uintptr_t)v;
}

/* ---- CIEs and FDEs ---- */

typedef struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	int z;                      /* FDEs have augmentation data */
	const uint8_t *ins, *end;   /* its initial instructions */
} cie;

/* The CIE at p, in [lo, hi). */
static int parse_cie(const uint8_t *p, const uint8_t *hi, cie *c)
{
	rd r = {p, hi, 0};
	uint64_t len = fixed(&r, 4);
	const char *aug;
	size_t alen;
	uint8_t version;

	if (r.bad || len == 0 || len == 0xffffffff || len > (uint64_t)(hi - r.p))
		return 0;
	r.end = c->end = r.p + len;
	if (fixed(&r, 4) != 0)
		return 0;
	version = u8(&r);
	if (version != 1 && version != 3)
		return 0;
	aug = (const char *)r.p;
	alen = strnlen(aug, (size_t)(r.end - r.p));
	if (alen == (size_t)(r.end - r.p))
		return 0;
	r.p += alen + 1;
	c->code_align = uleb(&r);
	c->data_align = sleb(&r);
	if ((version == 1 ? u8(&r) : uleb(&r)) != REG_RA)
		return 0;
	c->fde_enc = 0;
	c->z = aug[0] == 'z';
	if (c->z) {
		uint64_t n = uleb(&r);
		const uint8_t *data_end = r.p + n;
		if (r.bad || n > (uint64_t)(r.end - r.p))
			return 0;
		for (size_t i = 1; i < alen; i++) {
			uint8_t enc;
			switch (aug[i]) {
			case 'R': c->fde_enc = u8(&r); break;
			case 'L': u8(&r); break;
			case 'P': /* the personality routine: only its size matters */
				enc = u8(&r);
				eh_ptr(&r, enc & 0x0f, 0);
				break;
			default: return 0; /* 'S', a signal frame, among others */
			}
		}
		r.p = data_end;
	} else if (alen) {
		return 0;
	}
	c->ins = r.p;
	return !r.bad;
}

/* The FDE at p, in [lo, hi), if it covers pc: its CIE, its first address
 * and its instructions. */
static int parse_fde(const uint8_t *p, const uint8_t *lo, const uint8_t *hi, uintptr_t pc, cie *c,
		     uintptr_t *start, rd *ins)
{
	rd r = {p, hi, 0};
	uint64_t len = fixed(&r, 4), id;
	const uint8_t *idp = r.p;
	uintptr_t range;

	if (r.bad || len == 0 || len == 0xffffffff || len > (uint64_t)(hi - r.p))
		return 0;
	r.end = r.p + len;
	id = fixed(&r, 4);
	if (id == 0 || id > (uint64_t)(idp - lo) || !parse_cie(idp - id, hi, c))
		return 0;
	*start = eh_ptr(&r, c->fde_enc, 0);
	range = eh_ptr(&r, c->fde_enc & 0x0f, 0);
	if (r.bad || pc < *start || pc - *start >= range)
		return 0;
	if (c->z) {
		uint64_t n = uleb(&r);
		if (r.bad || n > (uint64_t)(r.end - r.p))
			return 0;
		r.p += n;
	}
	*ins = r;
	return 1;
}

/* ---- the rows ---- */

static void set_reg(row *w, uint64_t reg, int rule, int64_t off)
{
	if (reg == REG_RBP)
		w->rbp = rule, w->rbp_off = off;
	else if (reg == REG_RA)
		w->ra = rule, w->ra_off = off;
}

static void restore_reg(row *w, const row *init, uint64_t reg)
{
	if (reg == REG_RBP)
		w->rbp = init->rbp, w->rbp_off = init->rbp_off;
	else if (reg == REG_RA)
		w->ra = init->ra, w->ra_off = init->ra_off;
}

/* A factored offset: v times the CIE's alignment factor, wrapping (a
 * hostile factor must not overflow; read_rule rejects what does not fit). */
static int64_t factored(uint64_t v, int64_t align)
{
	return (int64_t)(v * (uint64_t)align);
}

/* Run the instructions of r on row w, from address *loc, until the row
 * of pc (a row begins where the address passes pc).  0: an instruction
 * the walk does not read. */
static int run(rd *r, const cie *c, uintptr_t *loc, uintptr_t pc, row *w, const row *init)
{
	row states[STATES];
	int depth = 0;

	for (int ops = 0; r->p < r->end && ops < MAX_OPS; ops++) {
		uint8_t op = u8(r);
		uint64_t reg, delta = 0;

		switch (op >> 6) {
		case 1: delta = op & 0x3f; break;
		case 2: set_reg(w, op & 0x3f, R_OFFSET, factored(uleb(r), c->data_align)); continue;
		case 3: restore_reg(w, init, op & 0x3f); continue;
		default:
			switch (op) {
			case 0x00: continue;                                  /* nop */
			case 0x02: delta = u8(r); break;                      /* advance_loc1 */
			case 0x03: delta = fixed(r, 2); break;                /* advance_loc2 */
			case 0x04: delta = fixed(r, 4); break;                /* advance_loc4 */
			case 0x05:                                            /* offset_extended */
				reg = uleb(r);
				set_reg(w, reg, R_OFFSET, factored(uleb(r), c->data_align));
				continue;
			case 0x06: restore_reg(w, init, uleb(r)); continue;   /* restore_extended */
			case 0x07: set_reg(w, uleb(r), R_UNDEF, 0); continue; /* undefined */
			case 0x08: set_reg(w, uleb(r), R_SAME, 0); continue;  /* same_value */
			case 0x09:                                            /* register */
			case 0x14:                                            /* val_offset */
			case 0x15:                                            /* val_offset_sf */
				/* a rule the walk does not follow: the register, then
				 * one LEB128 operand, signed or not (the same bytes) */
				reg = uleb(r);
				uleb(r);
				set_reg(w, reg, R_OTHER, 0);
				continue;
			case 0x0a:                                            /* remember_state */
				if (depth == STATES)
					return 0;
				states[depth++] = *w;
				continue;
			case 0x0b:                                            /* restore_state */
				if (!depth)
					return 0;
				*w = states[--depth];
				continue;
			case 0x0c:                                            /* def_cfa */
				w->cfa_reg = uleb(r);
				w->cfa_off = (int64_t)uleb(r);
				w->cfa_expr = 0;
				continue;
			case 0x0d: w->cfa_reg = uleb(r); w->cfa_expr = 0; continue; /* def_cfa_register */
			case 0x0e: w->cfa_off = (int64_t)uleb(r); continue;        /* def_cfa_offset */
			case 0x0f:                                            /* def_cfa_expression */
				w->cfa_expr = 1;
				skip_block(r);
				continue;
			case 0x10:                                            /* expression */
			case 0x16:                                            /* val_expression */
				reg = uleb(r);
				set_reg(w, reg, R_OTHER, 0);
				skip_block(r);
				continue;
			case 0x11:                                            /* offset_extended_sf */
				reg = uleb(r);
				set_reg(w, reg, R_OFFSET, factored((uint64_t)sleb(r), c->data_align));
				continue;
			case 0x12:                                            /* def_cfa_sf */
				w->cfa_reg = uleb(r);
				w->cfa_off = factored((uint64_t)sleb(r), c->data_align);
				w->cfa_expr = 0;
				continue;
			case 0x13: w->cfa_off = factored((uint64_t)sleb(r), c->data_align); continue; /* def_cfa_offset_sf */
			case 0x2e: uleb(r); continue;                         /* GNU_args_size */
			case 0x2f:                                            /* GNU_negative_offset_extended */
				reg = uleb(r);
				set_reg(w, reg, R_OFFSET, factored(0 - uleb(r), c->data_align));
				continue;
			default: return 0; /* set_loc among them */
			}
		}
		if (r->bad)
			return 0;
		*loc += delta * c->code_align;
		if (*loc > pc)
			return 1;
	}
	return !r->bad && r->p >= r->end; /* the last row; not: too many instructions */
}

/* The row at pc, from the FDE that covers it. */
static int row_at(const uint8_t *fde, const uint8_t *lo, const uint8_t *hi, uintptr_t pc, row *w)
{
	cie c;
	rd ins, init_ins;
	uintptr_t loc;
	row init = {.cfa_reg = REG_RSP, .rbp = R_SAME, .ra = R_SAME};

	if (!parse_fde(fde, lo, hi, pc, &c, &loc, &ins))
		return 0;
	init_ins = (rd){c.ins, c.end, 0};
	/* a CIE's instructions set the initial row: no address passes pc */
	if (!run(&init_ins, &c, &(uintptr_t){0}, UINTPTR_MAX, &init, &init))
		return 0;
	*w = init;
	return run(&ins, &c, &loc, pc, w, &init);
}

/* ---- finding the FDE ---- */

typedef struct find {
	uintptr_t pc;
	const uint8_t *hdr, *lo, *hi; /* .eh_frame_hdr, and the segment that holds it */
} find;

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	find *q = arg;
	const ElfW(Phdr) *eh = NULL;
	int in = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t at = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && q->pc >= at && q->pc - at < ph->p_memsz)
			in = 1;
		else if (ph->p_type == PT_GNU_EH_FRAME)
			eh = ph;
	}
	if (!in)
		return 0;
	if (!eh)
		return 1;
	q->hdr = (const uint8_t *)(info->dlpi_addr + eh->p_vaddr);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *at = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		if (ph->p_type == PT_LOAD && q->hdr >= at && (size_t)(q->hdr - at) < ph->p_filesz) {
			q->lo = at;
			q->hi = at + ph->p_filesz;
		}
	}
	return 1;
}

/* The rule at return address ra, into *out. */
static void read_rule(uintptr_t ra, ds_walk_rule *out)
{
	find q = {.pc = ra - 1};
	rd r;
	uint64_t count;
	const int32_t *table;
	size_t a, b;
	row w;

	*out = (ds_walk_rule){.ra = ra, .how = HOW_NO};
	dl_iterate_phdr(find_object, &q);
	if (!q.lo)
		return;
	r = (rd){q.hdr, q.hi, 0};
	/* version 1; a binary search table of (start, FDE) pairs of signed
	 * 4-byte offsets from the header, as every linker writes it */
	if (u8(&r) != 1)
		return;
	{
		uint8_t frame_enc = u8(&r), count_enc = u8(&r), table_enc = u8(&r);
		if (table_enc != 0x3b || r.bad)
			return;
		eh_ptr(&r, frame_enc, (uintptr_t)q.hdr);
		count = eh_ptr(&r, count_enc, (uintptr_t)q.hdr);
	}
	if (r.bad || count == 0 || count > (uint64_t)(q.hi - r.p) / 8 || ((uintptr_t)r.p & 3))
		return;
	table = (const int32_t *)r.p;
	if ((uintptr_t)q.hdr + table[0] > q.pc)
		return;
	for (a = 0, b = count; b - a > 1;) { /* the last start <= pc */
		size_t m = a + (b - a) / 2;
		if ((uintptr_t)q.hdr + table[2 * m] <= q.pc)
			a = m;
		else
			b = m;
	}
	{
		const uint8_t *fde = q.hdr + table[2 * a + 1];
		if (fde < q.lo || fde >= q.hi || !row_at(fde, q.lo, q.hi, q.pc, &w))
			return;
	}
	if (w.ra == R_UNDEF) { /* the outermost frame: _start, a thread's start */
		out->how = HOW_END;
		return;
	}
	if (w.cfa_expr || (w.cfa_reg != REG_RSP && w.cfa_reg != REG_RBP) || w.ra != R_OFFSET ||
	    (w.rbp != R_SAME && w.rbp != R_OFFSET) || w.cfa_off != (int32_t)w.cfa_off ||
	    w.ra_off != (int8_t)w.ra_off || w.rbp_off != (int16_t)w.rbp_off || (w.rbp == R_OFFSET && !w.rbp_off))
		return;
	out->cfa_off = (int32_t)w.cfa_off;
	out->ra_off = (int8_t)w.ra_off;
	out->rbp_off = w.rbp == R_OFFSET ? (int16_t)w.rbp_off : 0;
	out->how = w.cfa_reg == REG_RSP ? HOW_RSP : HOW_RBP;
}

/* ---- the walk ---- */

static const ds_walk_rule *rule_of(ds_walk_cache *c, uintptr_t ra)
{
	ds_walk_rule *s = &c->slot[(ra * 0x9e3779b97f4a7c15ull) >> (64 - DS_WALK_BITS)];
	if (s->ra != ra)
		read_rule(ra, s);
	return s;
}

/* a word of the stack above sp (and below hi) */
#define ON_STACK(a, sp, hi) ((a) >= (sp) && (a) <= (hi) - 8 && !((a) & 7))

__attribute__((no_sanitize_address)) int ds_walk(ds_walk_cache *c, uintptr_t ra, uintptr_t sp, uintptr_t rbp,
						  uintptr_t hi, void **f, int max)
{
	int n = 0;

	while (n < max) {
		const ds_walk_rule *r = rule_of(c, ra);
		uintptr_t cfa, at;

		f[n++] = (void *)ra;
		if (r->how == HOW_END)
			return n;
		if (r->how == HOW_RSP)
			cfa = sp + (uintptr_t)(intptr_t)r->cfa_off;
		else if (r->how == HOW_RBP)
			cfa = rbp + (uintptr_t)(intptr_t)r->cfa_off;
		else
			return -1;
		if (cfa <= sp || cfa > hi)
			return -1;
		at = cfa + (uintptr_t)(intptr_t)r->ra_off;
		if (!ON_STACK(at, sp, hi))
			return -1;
		if (r->rbp_off) {
			uintptr_t s = cfa + (uintptr_t)(intptr_t)r->rbp_off;
			if (!ON_STACK(s, sp, hi))
				return -1;
			rbp = *(const uintptr_t *)s;
		}
		ra = *(const uintptr_t *)at;
		sp = cfa;
	}
	return n;
}
