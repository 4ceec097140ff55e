/*
 * Call-frame information: how to find the caller's frame at an instruction.
 *
 * The CFI is a list of entries: CIEs (what many functions share: alignment
 * factors, the return-address column, initial rules) and FDEs (one range of
 * code, its CIE, and instructions that build a table of rules row by row).
 * .eh_frame (LSB) and .debug_frame (DWARF 5, 6.4) lay them out a little
 * differently: .eh_frame points from an FDE back to its CIE relatively,
 * marks CIEs with id 0 and encodes addresses as the CIE's augmentation
 * says; .debug_frame uses absolute CIE offsets, id ~0 and plain addresses.
 *
 * The first query walks every entry once and keeps a table of FDE ranges
 * sorted by start; a query is then a binary search and a run of one FDE's
 * instructions (after its CIE's) up to the address.  Only two columns
 * matter to an unwinder here, the CFA and the return address, so the
 * interpreter tracks those and skips the operands of everything else.
 *
 * The bytes come straight from the file and may be anything: every read
 * goes through a bounds-checked reader whose error sticks, every entry must
 * fit its section, every walk moves forward, and the state stack and the
 * number of instructions per query are capped.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <dwarf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* DW_EH_PE bits that libdwarf's dwarf.h lacks. */
#define EH_PE_signed 0x08
#define EH_PE_indirect 0x80

/* GCC nests DW_CFA_remember_state a level or two deep. */
#define MAX_STATES 32
/* Real FDEs hold up to a few thousand instructions; this bounds the time
 * one query may take on a hostile file of megabytes of them. */
#define MAX_OPS (1u << 20)

typedef struct fde_ref {
	uint64_t start, end;
	size_t off; /* of the FDE in its section */
} fde_ref;

typedef struct cfi_sec {
	const uint8_t *data;
	size_t size;
	uint64_t addr;     /* sh_addr: the base of pc-relative pointers */
	bool eh;           /* .eh_frame layout */
	bool msb;
	uint8_t addr_size; /* from the ELF class; .debug_frame v4 CIEs say their own */
	DS_VEC(fde_ref) fdes; /* sorted by start */
} cfi_sec;

/* .eh_frame of the object, then .debug_frame of the object and of its
 * debug file: the first that has an FDE for an address answers. */
struct ds_cfi {
	cfi_sec sec[3];
	size_t n;
	ds_u64map memo;            /* vaddr -> its row in frames, asked before */
	DS_VEC(ds_frame) frames;   /* cfa DS_CFA_UNSET: none there */
	struct interp *in;         /* the interpreter's scratch space */
};

/* ---- reading (ds_rd, dwarfmap_int.h) ---- */

/* An unsigned LEB128 operand used as a signed offset: one beyond INT64_MAX
 * can only be garbage, and refusing it keeps the arithmetic defined. */
static int64_t rd_uleb_off(ds_rd *r)
{
	uint64_t v = ds_rd_uleb(r);

	if (v > INT64_MAX)
		r->bad = true;
	return r->bad ? 0 : (int64_t)v;
}

/* A DW_EH_PE-encoded value by its format (the low four bits). */
static uint64_t rd_eh_value(ds_rd *r, uint8_t enc, uint8_t addr_size)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		return ds_rd_uint(r, addr_size);
	case EH_PE_signed:
		if (addr_size == 4)
			return (uint64_t)(int64_t)(int32_t)ds_rd_uint(r, 4);
		return ds_rd_uint(r, addr_size);
	case DW_EH_PE_uleb128:
		return ds_rd_uleb(r);
	case DW_EH_PE_udata2:
		return ds_rd_uint(r, 2);
	case DW_EH_PE_udata4:
		return ds_rd_uint(r, 4);
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return ds_rd_uint(r, 8);
	case DW_EH_PE_sleb128:
		return (uint64_t)ds_rd_sleb(r);
	case DW_EH_PE_sdata2:
		return (uint64_t)(int64_t)(int16_t)ds_rd_uint(r, 2);
	case DW_EH_PE_sdata4:
		return (uint64_t)(int64_t)(int32_t)ds_rd_uint(r, 4);
	}
	r->bad = true;
	return 0;
}

/* A code address (an FDE's start, DW_CFA_set_loc): absolute or relative to
 * the field itself, the two forms linkers write for code.  The others are
 * refused: datarel needs the GOT's address, which this module does not
 * look for, and no toolchain uses textrel, funcrel, aligned or indirect
 * for code addresses. */
static bool rd_eh_addr(ds_rd *r, const cfi_sec *s, uint8_t enc, uint8_t addr_size, uint64_t *addr)
{
	uint64_t here = s->addr + (uint64_t)(r->p - s->data);
	uint64_t v = rd_eh_value(r, enc, addr_size);

	switch (enc & (0x70 | EH_PE_indirect)) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		v += here;
		break;
	default:
		return false;
	}
	if (addr_size == 4)
		v &= UINT32_MAX;
	*addr = v;
	return !r->bad;
}

/* ---- entries ---- */

enum { ENT_BAD, ENT_EMPTY, ENT_CIE, ENT_FDE };

/* One CIE or FDE; body starts after its CIE id or pointer. */
typedef struct entry {
	size_t next;     /* offset of the entry after it */
	const uint8_t *body, *end;
	uint64_t cie_off; /* FDE: its CIE */
} entry;

/* The entry at off: ENT_BAD when its length runs past the section (the
 * walk cannot go on), ENT_EMPTY for the zero terminator or an entry too
 * short to hold an id (the walk steps over it, as readelf does). */
static int read_entry(const cfi_sec *s, uint64_t off, entry *e)
{
	ds_rd r = {.msb = s->msb};
	uint64_t len, id;
	unsigned osz = 4;
	const uint8_t *idp;

	if (off >= s->size)
		return ENT_BAD;
	r.p = s->data + off;
	r.end = s->data + s->size;
	len = ds_rd_uint(&r, 4);
	/* 64-bit DWARF: the id or CIE pointer grows to 8 bytes too (readelf
	 * reads .eh_frame so as well; no toolchain writes it there). */
	if (len == 0xffffffff) {
		len = ds_rd_uint(&r, 8);
		osz = 8;
	}
	if (!ds_rd_has(&r, len))
		return ENT_BAD;
	e->end = r.p + len;
	e->next = (size_t)(e->end - s->data);
	r.end = e->end;
	idp = r.p;
	id = ds_rd_uint(&r, osz);
	e->body = r.p;
	if (r.bad)
		return ENT_EMPTY;
	if (s->eh) {
		/* Relative to the pointer itself; a wrap gives an offset
		 * beyond the section, which read_entry then refuses. */
		e->cie_off = (uint64_t)(idp - s->data) - id;
		return id == 0 ? ENT_CIE : ENT_FDE;
	}
	e->cie_off = id;
	return id == (osz == 4 ? UINT32_MAX : UINT64_MAX) ? ENT_CIE : ENT_FDE;
}

typedef struct cie {
	uint64_t code_align, ra_reg;
	int64_t data_align;
	uint8_t fde_enc; /* how FDEs encode their addresses */
	uint8_t addr_size, seg_size;
	bool aug_data; /* 'z': FDEs carry augmentation data (the LSDA) */
	bool signal;   /* 'S': the code is a signal trampoline */
	const uint8_t *insns, *end; /* initial instructions */
} cie;

/* The augmentation: "" (plain DWARF) or 'z' and letters that say what the
 * augmentation data holds.  The data's length lets us skip what we do not
 * need (personality, LSDA encoding), but an unknown letter may change how
 * the FDEs read, so it makes the CIE unusable, as in GCC's unwinder. */
static bool read_augmentation(ds_rd *r, const char *aug, cie *c)
{
	ds_rd data = {.msb = r->msb};
	uint64_t len;
	uint8_t enc;

	if (aug[0] == '\0')
		return true;
	if (aug[0] != 'z')
		return false;
	c->aug_data = true;
	len = ds_rd_uleb(r);
	if (!ds_rd_has(r, len))
		return false;
	data.p = r->p;
	data.end = r->p + len;
	r->p += len;
	for (const char *a = aug + 1; *a; a++) {
		switch (*a) {
		case 'R':
			c->fde_enc = (uint8_t)ds_rd_uint(&data, 1);
			break;
		case 'L':
			ds_rd_uint(&data, 1);
			break;
		case 'P':
			enc = (uint8_t)ds_rd_uint(&data, 1);
			if ((enc & 0x70) == DW_EH_PE_aligned)
				return false;
			rd_eh_value(&data, enc, c->addr_size);
			break;
		case 'S':
			c->signal = true;
			break;
		case 'B': /* AArch64: return address signed with the B key */
		case 'G': /* AArch64: MTE-tagged frame */
			break;
		default:
			return false;
		}
	}
	return !data.bad;
}

static bool parse_cie(const cfi_sec *s, uint64_t off, cie *c)
{
	entry e;
	ds_rd r = {.msb = s->msb};
	const char *aug;
	uint8_t version;

	if (read_entry(s, off, &e) != ENT_CIE)
		return false;
	r.p = e.body;
	r.end = e.end;
	version = (uint8_t)ds_rd_uint(&r, 1);
	aug = (const char *)r.p;
	while (ds_rd_uint(&r, 1) != 0)
		;
	c->addr_size = s->addr_size;
	c->seg_size = 0;
	if (version >= 4) {
		c->addr_size = (uint8_t)ds_rd_uint(&r, 1);
		c->seg_size = (uint8_t)ds_rd_uint(&r, 1);
	}
	c->code_align = ds_rd_uleb(&r);
	c->data_align = ds_rd_sleb(&r);
	c->ra_reg = version == 1 ? ds_rd_uint(&r, 1) : ds_rd_uleb(&r);
	c->fde_enc = DW_EH_PE_absptr;
	c->aug_data = false;
	c->signal = false;
	if (r.bad || (version != 1 && version != 3 && version != 4) ||
	    (c->addr_size != 4 && c->addr_size != 8) || !read_augmentation(&r, aug, c))
		return false;
	c->insns = r.p;
	c->end = e.end;
	return true;
}

typedef struct fde {
	uint64_t start, end;
	const uint8_t *insns, *insns_end;
} fde;

static bool parse_fde(const cfi_sec *s, const entry *e, const cie *c, fde *f)
{
	ds_rd r = {e->body, e->end, s->msb, false};
	uint64_t range;

	ds_rd_skip(&r, c->seg_size);
	if (!rd_eh_addr(&r, s, c->fde_enc, c->addr_size, &f->start))
		return false;
	/* The length takes the format of the start, never its application. */
	range = rd_eh_value(&r, c->fde_enc, c->addr_size);
	if (c->aug_data)
		ds_rd_skip(&r, ds_rd_uleb(&r));
	if (r.bad || range == 0 || range > UINT64_MAX - f->start)
		return false;
	f->end = f->start + range;
	f->insns = r.p;
	f->insns_end = e->end;
	return true;
}

/* ---- the index ---- */

/* FDEs of code the linker discarded keep address 0 in .debug_frame, as
 * line tables do; they would shadow real code. */
static bool in_image(const ds_dso *d, uint64_t addr)
{
	uint64_t off;
	return d->segs.n == 0 || ds_dso_vaddr_to_offset(d, addr, &off);
}

static int fde_cmp(const void *a, const void *b)
{
	const fde_ref *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void index_section(const ds_dso *d, cfi_sec *s)
{
	/* FDEs come in runs sharing a CIE: parse it once per run. */
	uint64_t cie_off = UINT64_MAX;
	bool cie_ok = false;
	entry e;
	cie c;
	fde f;
	int kind;

	/* Every entry is at least its 4-byte length long: the walk ends. */
	for (size_t off = 0; off < s->size; off = e.next) {
		kind = read_entry(s, off, &e);
		if (kind == ENT_BAD)
			break;
		if (kind != ENT_FDE)
			continue;
		if (e.cie_off != cie_off) {
			cie_off = e.cie_off;
			cie_ok = parse_cie(s, cie_off, &c);
		}
		if (cie_ok && parse_fde(s, &e, &c, &f) && in_image(d, f.start))
			ds_vec_push(&s->fdes, ((fde_ref){f.start, f.end, off}));
	}
	ds_sort(s->fdes.v, s->fdes.n, sizeof *s->fdes.v, fde_cmp);
}

static void add_section(ds_dso *d, ds_elf *e, const char *name, bool eh)
{
	cfi_sec *s = &d->cfi->sec[d->cfi->n];
	GElf_Shdr sh;

	if (!ds_elf_is_open(e) || !(s->data = ds_dso_debug_section(d, e, name, &sh, &s->size)))
		return;
	s->addr = sh.sh_addr;
	s->eh = eh;
	s->msb = e->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	s->addr_size = e->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	index_section(d, s);
	d->cfi->n++;
}

static void load_cfi(ds_dso *d)
{
	d->cfi = ds_xcalloc(1, sizeof *d->cfi);
	add_section(d, &d->main, ".eh_frame", true);
	add_section(d, &d->main, ".debug_frame", false);
	add_section(d, &d->debug, ".debug_frame", false);
}

void ds_dso_free_cfi(ds_dso *d)
{
	if (!d->cfi)
		return;
	for (size_t i = 0; i < d->cfi->n; i++)
		ds_vec_free(&d->cfi->sec[i].fdes);
	ds_u64map_free(&d->cfi->memo);
	ds_vec_free(&d->cfi->frames);
	free(d->cfi->in);
	free(d->cfi);
	d->cfi = NULL;
}

/* The FDE whose range holds vaddr, or NULL. */
static const fde_ref *find_fde(const cfi_sec *s, uint64_t vaddr)
{
	size_t lo = 0, hi = s->fdes.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->fdes.v[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || vaddr >= s->fdes.v[lo - 1].end)
		return NULL;
	return &s->fdes.v[lo - 1];
}

/* ---- the instructions ---- */

/* The rows of the table, for the registers an unwinder needs (ds_frame,
 * dwarfmap_int.h); rules for higher-numbered registers are read and
 * dropped. */
typedef struct interp {
	const cfi_sec *s;
	const cie *c;
	uint64_t vaddr;
	uint64_t loc; /* address of the current row; never beyond vaddr */
	ds_frame cur;
	ds_frame init; /* after the CIE's instructions: what DW_CFA_restore restores */
	ds_frame saved[MAX_STATES];
	size_t depth;
	unsigned ops;
	bool cfa_fp_seen; /* some row of the FDE defines the CFA by fp_reg */
	bool cfa_moved;   /* some row of the FDE moves the CFA from the CIE's */
	bool cfa_expr_seen; /* some row of the FDE computes it (PLT entries) */
	bool bad_reg;     /* a CFA register no machine has */
	int fp_reg;
} interp;

enum { RUN_GO, RUN_STOP, RUN_BAD };

/* Move to the next row; stop when it starts beyond vaddr, since the
 * current row is then the one that holds it. */
static int advance(interp *in, uint64_t units)
{
	uint64_t delta;

	if (__builtin_mul_overflow(units, in->c->code_align, &delta) || delta > in->vaddr - in->loc)
		return RUN_STOP;
	in->loc += delta;
	return RUN_GO;
}

static int set_loc(interp *in, ds_rd *r)
{
	uint64_t loc;

	if (!rd_eh_addr(r, in->s, in->c->fde_enc, in->c->addr_size, &loc))
		return RUN_BAD;
	if (loc > in->vaddr)
		return RUN_STOP;
	in->loc = loc;
	return RUN_GO;
}

static int64_t factored(interp *in, ds_rd *r, int64_t v)
{
	int64_t off;

	if (__builtin_mul_overflow(v, in->c->data_align, &off))
		r->bad = true;
	return r->bad ? 0 : off;
}

static void set_rule(interp *in, uint64_t reg, uint8_t kind, int64_t n)
{
	if (reg < DS_FRAME_NREGS)
		in->cur.reg[reg] = (ds_frame_rule){kind, n, NULL, 0};
}

/* DW_CFA_expression and DW_CFA_val_expression: the block stays in the
 * section, which outlives every rule read from it. */
static void set_expr_rule(interp *in, ds_rd *r, uint64_t reg, uint8_t kind)
{
	uint64_t len = ds_rd_uleb(r);
	const uint8_t *p = r->p;

	ds_rd_skip(r, len);
	if (!r->bad && reg < DS_FRAME_NREGS)
		in->cur.reg[reg] = (ds_frame_rule){kind, 0, p, (uint32_t)len};
}

static void restore(interp *in, uint64_t reg)
{
	if (reg < DS_FRAME_NREGS)
		in->cur.reg[reg] = in->init.reg[reg];
}

static int push_state(interp *in)
{
	if (in->depth == MAX_STATES)
		return RUN_BAD;
	in->saved[in->depth++] = in->cur;
	return RUN_GO;
}

/* DW_CFA_restore_state restores the register rules; the CFA rule is
 * restored with them, as GCC's and LLVM's unwinders do. */
static int pop_state(interp *in)
{
	if (in->depth == 0)
		return RUN_BAD;
	in->cur = in->saved[--in->depth];
	return RUN_GO;
}

static void def_cfa(interp *in, uint64_t reg, int64_t off)
{
	if (reg > INT_MAX)
		in->bad_reg = true;
	in->cur.cfa = DS_CFA_REG;
	in->cur.cfa_reg = reg > INT_MAX ? INT_MAX : (int)reg;
	in->cur.cfa_off = off;
	in->cur.cfa_expr = NULL;
	in->cfa_moved = true;
	if (reg == (uint64_t)in->fp_reg)
		in->cfa_fp_seen = true;
}

/* The opcodes whose high two bits are zero. */
static int step_extended(interp *in, ds_rd *r, uint8_t op)
{
	uint64_t reg, len;

	switch (op) {
	case DW_CFA_nop:
	case DW_CFA_GNU_window_save: /* AArch64 negate_ra_state: same place */
		break;
	case DW_CFA_set_loc:
		return set_loc(in, r);
	case DW_CFA_advance_loc1:
		return advance(in, ds_rd_uint(r, 1));
	case DW_CFA_advance_loc2:
		return advance(in, ds_rd_uint(r, 2));
	case DW_CFA_advance_loc4:
		return advance(in, ds_rd_uint(r, 4));
	case DW_CFA_MIPS_advance_loc8:
		return advance(in, ds_rd_uint(r, 8));
	case DW_CFA_offset_extended:
		reg = ds_rd_uleb(r);
		set_rule(in, reg, DS_RULE_OFFSET, factored(in, r, rd_uleb_off(r)));
		break;
	case DW_CFA_offset_extended_sf:
		reg = ds_rd_uleb(r);
		set_rule(in, reg, DS_RULE_OFFSET, factored(in, r, ds_rd_sleb(r)));
		break;
	case DW_CFA_GNU_negative_offset_extended:
		reg = ds_rd_uleb(r);
		set_rule(in, reg, DS_RULE_OFFSET, factored(in, r, -rd_uleb_off(r)));
		break;
	case DW_CFA_restore_extended:
		restore(in, ds_rd_uleb(r));
		break;
	case DW_CFA_undefined:
		set_rule(in, ds_rd_uleb(r), DS_RULE_UNDEF, 0);
		break;
	case DW_CFA_same_value:
		set_rule(in, ds_rd_uleb(r), DS_RULE_SAME, 0);
		break;
	case DW_CFA_register:
		reg = ds_rd_uleb(r);
		len = ds_rd_uleb(r);
		set_rule(in, reg, DS_RULE_REG, len > INT32_MAX ? INT32_MAX : (int64_t)len);
		break;
	case DW_CFA_val_offset:
		reg = ds_rd_uleb(r);
		set_rule(in, reg, DS_RULE_VAL_OFFSET, factored(in, r, rd_uleb_off(r)));
		break;
	case DW_CFA_val_offset_sf:
		reg = ds_rd_uleb(r);
		set_rule(in, reg, DS_RULE_VAL_OFFSET, factored(in, r, ds_rd_sleb(r)));
		break;
	case DW_CFA_expression:
		reg = ds_rd_uleb(r);
		set_expr_rule(in, r, reg, DS_RULE_EXPR);
		break;
	case DW_CFA_val_expression:
		reg = ds_rd_uleb(r);
		set_expr_rule(in, r, reg, DS_RULE_VAL_EXPR);
		break;
	case DW_CFA_remember_state:
		return push_state(in);
	case DW_CFA_restore_state:
		return pop_state(in);
	case DW_CFA_def_cfa:
		reg = ds_rd_uleb(r);
		def_cfa(in, reg, rd_uleb_off(r));
		break;
	case DW_CFA_def_cfa_sf:
		reg = ds_rd_uleb(r);
		def_cfa(in, reg, factored(in, r, ds_rd_sleb(r)));
		break;
	case DW_CFA_def_cfa_register:
		/* Keeps the offset; replaces an expression, as readelf does. */
		def_cfa(in, ds_rd_uleb(r), in->cur.cfa_off);
		break;
	case DW_CFA_def_cfa_offset:
		in->cur.cfa_off = rd_uleb_off(r);
		in->cfa_moved = true;
		break;
	case DW_CFA_def_cfa_offset_sf:
		in->cur.cfa_off = factored(in, r, ds_rd_sleb(r));
		in->cfa_moved = true;
		break;
	case DW_CFA_def_cfa_expression:
		len = ds_rd_uleb(r);
		in->cur.cfa_expr = r->p;
		in->cur.cfa_len = (uint32_t)len;
		ds_rd_skip(r, len);
		in->cur.cfa = DS_CFA_EXPR;
		in->cfa_expr_seen = true;
		break;
	case DW_CFA_GNU_args_size:
		ds_rd_uleb(r);
		break;
	default: /* unknown: its operands cannot be skipped */
		return RUN_BAD;
	}
	return r->bad ? RUN_BAD : RUN_GO;
}

static int step(interp *in, ds_rd *r)
{
	uint8_t op = (uint8_t)ds_rd_uint(r, 1);

	switch (op & 0xc0) {
	case DW_CFA_advance_loc:
		return advance(in, op & 0x3f);
	case DW_CFA_offset:
		set_rule(in, op & 0x3f, DS_RULE_OFFSET, factored(in, r, rd_uleb_off(r)));
		return r->bad ? RUN_BAD : RUN_GO;
	case DW_CFA_restore:
		restore(in, op & 0x3f);
		return RUN_GO;
	}
	return step_extended(in, r, op);
}

/* Each instruction takes at least one byte, so the loop ends at the end
 * of the block; MAX_OPS only bounds the time on a huge one. */
static int run(interp *in, const uint8_t *p, const uint8_t *end)
{
	ds_rd r = {p, end, in->s->msb, false};
	int rc = RUN_GO;

	while (rc == RUN_GO && r.p < r.end) {
		if (++in->ops > MAX_OPS)
			return RUN_BAD;
		rc = step(in, &r);
	}
	return rc;
}

/* The row at vaddr from the FDE at off (which the index vouched for), in
 * *in; false when the CFI is malformed or defines no CFA there. */
static bool row_at(const cfi_sec *s, size_t off, uint64_t vaddr, interp *in)
{
	entry e;
	cie c;
	fde f;
	int rc;

	if (read_entry(s, off, &e) != ENT_FDE || !parse_cie(s, e.cie_off, &c) ||
	    !parse_fde(s, &e, &c, &f))
		return false;
	in->s = s;
	in->c = &c;
	in->vaddr = vaddr;
	in->loc = f.start;
	in->cur.ra_reg = c.ra_reg >= DS_FRAME_NREGS ? -1 : (int)c.ra_reg;
	in->cur.signal = c.signal;
	in->cur.addr_size = c.addr_size;
	in->cur.msb = s->msb;
	rc = run(in, c.insns, c.end);
	in->init = in->cur;
	in->cfa_fp_seen = in->cfa_moved = in->cfa_expr_seen = false; /* the FDE's own rows */
	if (rc == RUN_GO)
		rc = run(in, f.insns, f.insns_end);
	in->c = NULL; /* c lives in this frame */
	return rc != RUN_BAD && !in->bad_reg && in->cur.cfa != DS_CFA_UNSET;
}

/* The FDE covering vaddr in any of the dso's CFI sections, and its section. */
static const fde_ref *fde_at(ds_dso *d, uint64_t vaddr, const cfi_sec **sec)
{
	if (d->kallsyms)
		return NULL;
	if (!d->cfi)
		load_cfi(d);
	for (size_t i = 0; i < d->cfi->n; i++) {
		const fde_ref *f = find_fde(&d->cfi->sec[i], vaddr);
		if (f) {
			*sec = &d->cfi->sec[i];
			return f;
		}
	}
	return NULL;
}

/* The interpreter's state is large (MAX_STATES rows): it lives on the heap
 * of the dso, not on the stack. */
static interp *scratch(ds_dso *d)
{
	if (!d->cfi->in)
		d->cfi->in = ds_xmalloc(sizeof *d->cfi->in);
	memset(d->cfi->in, 0, sizeof *d->cfi->in);
	return d->cfi->in;
}

const ds_frame *ds_dso_frame_at(ds_dso *d, uint64_t vaddr)
{
	const cfi_sec *sec;
	const fde_ref *f;
	uint32_t i;
	interp *in;

	if (d->cfi && (i = ds_u64map_get(&d->cfi->memo, vaddr)) != DS_U64MAP_NONE)
		return d->cfi->frames.v[i].cfa == DS_CFA_UNSET ? NULL : &d->cfi->frames.v[i];
	if (!(f = fde_at(d, vaddr, &sec)))
		return NULL;
	i = (uint32_t)d->cfi->frames.n;
	ds_u64map_put(&d->cfi->memo, vaddr, i, NULL);
	in = scratch(d);
	if (!row_at(sec, f->off, vaddr, in))
		in->cur.cfa = DS_CFA_UNSET;
	in->cur.ruled = 0;
	for (int r = 0; r < DS_FRAME_NREGS; r++)
		if (in->cur.reg[r].kind != DS_RULE_SAME)
			in->cur.ruled |= 1ull << r;
	ds_vec_push(&d->cfi->frames, in->cur);
	return in->cur.cfa == DS_CFA_UNSET ? NULL : &d->cfi->frames.v[i];
}

bool ds_dso_cfa_at(ds_dso *d, uint64_t vaddr, ds_cfa *out)
{
	const ds_frame *fr = ds_dso_frame_at(d, vaddr);
	const ds_frame_rule *ra;

	if (!fr || fr->cfa != DS_CFA_REG || fr->ra_reg < 0)
		return false;
	ra = &fr->reg[fr->ra_reg];
	out->cfa_reg = fr->cfa_reg;
	out->cfa_offset = fr->cfa_off;
	out->ra_saved = ra->kind == DS_RULE_OFFSET;
	out->ra_offset = out->ra_saved ? ra->n : 0;
	return true;
}

bool ds_dso_keeps_frame_pointers(ds_dso *d, int fp_reg)
{
	size_t with = 0, all = 0;
	const cfi_sec *s;

	if (d->kallsyms)
		return false;
	if (!d->cfi)
		load_cfi(d);
	if (!d->cfi->n)
		return false;
	s = &d->cfi->sec[0];
	/* Functions that make a frame: those whose CFA moves.  A leaf that
	 * needs no stack has none in either build; PLT entries and
	 * hand-written code compute theirs. */
	for (size_t i = 0; i < s->fdes.n; i++) {
		interp *in = scratch(d);
		in->fp_reg = fp_reg;
		if (!row_at(s, s->fdes.v[i].off, s->fdes.v[i].end - 1, in) || !in->cfa_moved ||
		    in->cfa_expr_seen)
			continue;
		all++;
		with += in->cfa_fp_seen;
	}
	return all && with * 2 >= all;
}

bool ds_dso_fde_range(ds_dso *d, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	const cfi_sec *sec;
	const fde_ref *f = fde_at(d, vaddr, &sec);
	if (!f)
		return false;
	*start = f->start;
	*end = f->end;
	return true;
}
