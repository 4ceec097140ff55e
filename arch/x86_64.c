/* x86-64: sampled registers and Capstone decoding. */
#include "arch/arch.h"

#include <asm/perf_regs.h>
#include <capstone/capstone.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct ds_arch {
	const char *name;
	uint64_t sample_regs;
	const char *const *reg_names;
	unsigned nreg_names;
	cs_arch cs_arch;
	cs_mode cs_mode;
	int dwarf_sp, dwarf_fp, dwarf_ip;
	const int *int_args;
	size_t nint_args;
	int int_return;
	uint64_t caller_saved;
	const int8_t *dwarf_to_perf;   /* perf register of each DWARF register, -1 */
	unsigned ndwarf;
	const char *const *dwarf_names;
	int (*dwarf_of_cs)(unsigned cs_reg);
};

static const char *const x86_64_regs[PERF_REG_X86_64_MAX] = {
	[PERF_REG_X86_AX] = "ax", [PERF_REG_X86_BX] = "bx", [PERF_REG_X86_CX] = "cx",
	[PERF_REG_X86_DX] = "dx", [PERF_REG_X86_SI] = "si", [PERF_REG_X86_DI] = "di",
	[PERF_REG_X86_BP] = "bp", [PERF_REG_X86_SP] = "sp", [PERF_REG_X86_IP] = "ip",
	[PERF_REG_X86_FLAGS] = "flags", [PERF_REG_X86_CS] = "cs", [PERF_REG_X86_SS] = "ss",
	[PERF_REG_X86_R8] = "r8", [PERF_REG_X86_R9] = "r9", [PERF_REG_X86_R10] = "r10",
	[PERF_REG_X86_R11] = "r11", [PERF_REG_X86_R12] = "r12", [PERF_REG_X86_R13] = "r13",
	[PERF_REG_X86_R14] = "r14", [PERF_REG_X86_R15] = "r15",
};

/* DS, ES, FS and GS are not sampled for 64-bit tasks: the kernel rejects them. */
#define X86_64_SAMPLE_REGS                                                              \
	(((1ull << PERF_REG_X86_64_MAX) - 1) &                                          \
	 ~((1ull << PERF_REG_X86_DS) | (1ull << PERF_REG_X86_ES) | (1ull << PERF_REG_X86_FS) | \
	   (1ull << PERF_REG_X86_GS)))

/* DWARF register numbers, System V x86-64 psABI figure 3.36. */
enum { RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, R8, R9, R10, R11, R12, R13, R14, R15, RIP, NDWARF };

static const int8_t x86_64_dwarf_to_perf[NDWARF] = {
	[RAX] = PERF_REG_X86_AX, [RDX] = PERF_REG_X86_DX, [RCX] = PERF_REG_X86_CX,
	[RBX] = PERF_REG_X86_BX, [RSI] = PERF_REG_X86_SI, [RDI] = PERF_REG_X86_DI,
	[RBP] = PERF_REG_X86_BP, [RSP] = PERF_REG_X86_SP, [R8] = PERF_REG_X86_R8,
	[R9] = PERF_REG_X86_R9, [R10] = PERF_REG_X86_R10, [R11] = PERF_REG_X86_R11,
	[R12] = PERF_REG_X86_R12, [R13] = PERF_REG_X86_R13, [R14] = PERF_REG_X86_R14,
	[R15] = PERF_REG_X86_R15, [RIP] = PERF_REG_X86_IP,
};

static const char *const x86_64_dwarf_names[NDWARF] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11",
	"r12", "r13", "r14", "r15", "rip",
};

/* The full register a Capstone register is part of (eax, ax, al and ah
 * are all rax), as a DWARF number; DS_REG_NONE for others. */
static int x86_64_dwarf_of_cs(unsigned r)
{
	switch (r) {
	case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX: case X86_REG_AL: case X86_REG_AH: return RAX;
	case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL: case X86_REG_DH: return RDX;
	case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: case X86_REG_CL: case X86_REG_CH: return RCX;
	case X86_REG_RBX: case X86_REG_EBX: case X86_REG_BX: case X86_REG_BL: case X86_REG_BH: return RBX;
	case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL: return RSI;
	case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL: return RDI;
	case X86_REG_RBP: case X86_REG_EBP: case X86_REG_BP: case X86_REG_BPL: return RBP;
	case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL: return RSP;
	case X86_REG_R8: case X86_REG_R8D: case X86_REG_R8W: case X86_REG_R8B: return R8;
	case X86_REG_R9: case X86_REG_R9D: case X86_REG_R9W: case X86_REG_R9B: return R9;
	case X86_REG_R10: case X86_REG_R10D: case X86_REG_R10W: case X86_REG_R10B: return R10;
	case X86_REG_R11: case X86_REG_R11D: case X86_REG_R11W: case X86_REG_R11B: return R11;
	case X86_REG_R12: case X86_REG_R12D: case X86_REG_R12W: case X86_REG_R12B: return R12;
	case X86_REG_R13: case X86_REG_R13D: case X86_REG_R13W: case X86_REG_R13B: return R13;
	case X86_REG_R14: case X86_REG_R14D: case X86_REG_R14W: case X86_REG_R14B: return R14;
	case X86_REG_R15: case X86_REG_R15D: case X86_REG_R15W: case X86_REG_R15B: return R15;
	case X86_REG_RIP: case X86_REG_EIP: case X86_REG_IP: return RIP;
	default: return DS_REG_NONE;
	}
}

/* System V AMD64 ABI: rdi, rsi, rdx, rcx, r8, r9 carry the first integer
 * arguments; rax, rcx, rdx, rsi, rdi and r8-r11 do not survive a call. */
static const int x86_64_int_args[] = {RDI, RSI, RDX, RCX, R8, R9};
#define X86_64_CALLER_SAVED                                                             \
	((1ull << RAX) | (1ull << RCX) | (1ull << RDX) | (1ull << RSI) | (1ull << RDI) | \
	 (1ull << R8) | (1ull << R9) | (1ull << R10) | (1ull << R11))

static const ds_arch arches[] = {
	{"x86_64", X86_64_SAMPLE_REGS, x86_64_regs, PERF_REG_X86_64_MAX, CS_ARCH_X86, CS_MODE_64,
	 RSP, RBP, RIP, x86_64_int_args, 6, RAX, X86_64_CALLER_SAVED, x86_64_dwarf_to_perf, NDWARF,
	 x86_64_dwarf_names, x86_64_dwarf_of_cs},
};

const ds_arch *ds_arch_host(void)
{
	return &arches[0];
}

const ds_arch *ds_arch_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
		if (strcmp(arches[i].name, name) == 0)
			return &arches[i];
	return NULL;
}

const char *ds_arch_name(const ds_arch *a)
{
	return a->name;
}

uint64_t ds_arch_sample_regs(const ds_arch *a)
{
	return a->sample_regs;
}

int ds_arch_dwarf_sp(const ds_arch *a)
{
	return a->dwarf_sp;
}

int ds_arch_dwarf_fp(const ds_arch *a)
{
	return a->dwarf_fp;
}

int ds_arch_dwarf_ip(const ds_arch *a)
{
	return a->dwarf_ip;
}

int ds_arch_perf_reg(const ds_arch *a, int reg)
{
	return reg >= 0 && (unsigned)reg < a->ndwarf ? a->dwarf_to_perf[reg] : -1;
}

bool ds_arch_sampled_reg(const ds_arch *a, uint64_t mask, const uint64_t *regs, int reg, uint64_t *v)
{
	int perf = ds_arch_perf_reg(a, reg);

	if (perf < 0 || perf >= 64 || !regs || !(mask & (1ull << perf)))
		return false;
	*v = regs[__builtin_popcountll(mask & ((1ull << perf) - 1))];
	return true;
}

const int *ds_arch_int_args(const ds_arch *a, size_t *n)
{
	*n = a->nint_args;
	return a->int_args;
}

int ds_arch_int_return(const ds_arch *a)
{
	return a->int_return;
}

uint64_t ds_arch_caller_saved(const ds_arch *a)
{
	return a->caller_saved;
}

const char *ds_arch_reg_name(const ds_arch *a, int reg)
{
	return reg >= 0 && (unsigned)reg < a->ndwarf ? a->dwarf_names[reg] : NULL;
}

const char *ds_arch_perf_reg_name(const ds_arch *a, unsigned reg)
{
	return reg < a->nreg_names ? a->reg_names[reg] : NULL;
}

struct ds_decoder {
	const ds_arch *arch;
	csh cs;
	cs_insn *insn;
};

ds_decoder *ds_decoder_new(const ds_arch *a, ds_err *err)
{
	ds_decoder *d = ds_xcalloc(1, sizeof *d);
	cs_err e = cs_open(a->cs_arch, a->cs_mode, &d->cs);
	if (e != CS_ERR_OK) {
		ds_err_set(err, DS_EENV, "cannot start the %s decoder: %s", a->name, cs_strerror(e));
		free(d);
		return NULL;
	}
	d->arch = a;
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	return d;
}

void ds_decoder_free(ds_decoder *d)
{
	if (!d)
		return;
	if (d->insn)
		cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

/* ---- decoding for backtracking and type tracking ---- */

static uint64_t reg_bit(int r)
{
	return r >= 0 && r < 64 ? 1ull << r : 0;
}

static bool in_group(const cs_insn *in, uint8_t g)
{
	for (uint8_t i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == g)
			return true;
	return false;
}

static void classify_flow(const cs_insn *in, ds_insn *out)
{
	const cs_x86 *x = &in->detail->x86;
	bool direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;

	out->flow = DS_FLOW_NEXT;
	if (direct)
		out->target = (uint64_t)x->operands[0].imm;
	if (in_group(in, CS_GRP_CALL)) {
		out->flow = direct ? DS_FLOW_CALL : DS_FLOW_INDIRECT_CALL;
	} else if (in_group(in, CS_GRP_RET) || in_group(in, CS_GRP_IRET)) {
		out->flow = DS_FLOW_RET;
	} else if (in_group(in, CS_GRP_JUMP)) {
		if (!direct)
			out->flow = DS_FLOW_INDIRECT_JUMP;
		else
			out->flow = in->id == X86_INS_JMP ? DS_FLOW_JUMP : DS_FLOW_COND;
	} else if (in->id == X86_INS_SYSCALL || in->id == X86_INS_SYSENTER) {
		out->flow = DS_FLOW_SYSCALL;
	} else if (in->id == X86_INS_UD2 || in->id == X86_INS_HLT || in->id == X86_INS_INT3) {
		out->flow = DS_FLOW_STOP;
	}
}

static void add_memop(const ds_decoder *d, const cs_insn *in, const cs_x86_op *op, ds_insn *out)
{
	ds_memop *m;
	if (out->nmem >= DS_MAX_MEMOPS)
		return;
	m = &out->mem[out->nmem++];
	m->base = d->arch->dwarf_of_cs(op->mem.base);
	m->index = d->arch->dwarf_of_cs(op->mem.index);
	m->scale = op->mem.scale;
	m->disp = op->mem.disp;
	m->size = op->size;
	m->rip_relative = m->base == RIP;
	if (m->rip_relative)
		m->base = DS_REG_NONE; /* the address is static: next instruction + disp */
	m->segment = op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS;
	m->fs = op->mem.segment == X86_REG_FS;
	m->address_only = in->id == X86_INS_LEA || in->id == X86_INS_NOP;
	m->read = !m->address_only && (op->access & CS_AC_READ);
	m->write = !m->address_only && (op->access & CS_AC_WRITE);
}

/* push, pop, call and ret touch the stack without a memory operand: make
 * it explicit (after the operand they have, as `push [mem]` and `call
 * [mem]` do), so that a sample there, or after a push, is the stack's. */
static void add_stack_access(ds_insn *out, bool push)
{
	ds_memop *m;
	if (out->nmem >= DS_MAX_MEMOPS)
		return;
	m = &out->mem[out->nmem++];
	memset(m, 0, sizeof *m);
	m->base = RSP;
	m->index = DS_REG_NONE;
	m->scale = 1;
	m->disp = push ? -8 : 0; /* from the stack pointer before the instruction */
	m->size = 8;
	m->read = !push;
	m->write = push;
}

static bool is_mov(unsigned id)
{
	switch (id) {
	case X86_INS_MOV: case X86_INS_MOVABS: case X86_INS_MOVZX: case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		return true;
	default:
		return false;
	}
}

static bool is_cmov(unsigned id)
{
	switch (id) {
	case X86_INS_CMOVA: case X86_INS_CMOVAE: case X86_INS_CMOVB: case X86_INS_CMOVBE:
	case X86_INS_CMOVE: case X86_INS_CMOVG: case X86_INS_CMOVGE: case X86_INS_CMOVL:
	case X86_INS_CMOVLE: case X86_INS_CMOVNE: case X86_INS_CMOVNO: case X86_INS_CMOVNP:
	case X86_INS_CMOVNS: case X86_INS_CMOVO: case X86_INS_CMOVP: case X86_INS_CMOVS:
		return true;
	default:
		return false;
	}
}

/* What the instruction does to its destination register, for tracking. */
static void classify_move(const ds_decoder *d, const cs_insn *in, ds_insn *out)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];
	uint64_t gpr_written = out->regs_written & ~reg_bit(RIP) & ~reg_bit(RSP);

	out->move = DS_MOVE_NONE;
	out->dst = out->src = DS_REG_NONE;
	if (x->op_count == 2 && a->type == X86_OP_REG) {
		out->dst = d->arch->dwarf_of_cs(a->reg);
		out->move_size = a->size;
	}
	if (x->op_count == 2 && (is_mov(in->id) || in->id == X86_INS_LEA) && out->dst != DS_REG_NONE) {
		if (in->id == X86_INS_LEA) {
			out->move = DS_MOVE_LEA;
		} else if (b->type == X86_OP_REG) {
			out->move = DS_MOVE_REG;
			out->src = d->arch->dwarf_of_cs(b->reg);
		} else if (b->type == X86_OP_MEM) {
			out->move = DS_MOVE_LOAD;
		} else if (b->type == X86_OP_IMM) {
			out->move = DS_MOVE_IMM;
			out->imm = b->imm;
		}
		return;
	}
	if (x->op_count == 2 && is_cmov(in->id) && out->dst != DS_REG_NONE && b->type == X86_OP_REG &&
	    a->size == 8) {
		out->move = DS_MOVE_SELECT;
		out->src = d->arch->dwarf_of_cs(b->reg);
		return;
	}
	if (x->op_count == 2 && is_mov(in->id) && a->type == X86_OP_MEM && b->type == X86_OP_REG) {
		out->move = DS_MOVE_STORE;
		out->src = d->arch->dwarf_of_cs(b->reg);
		out->move_size = a->size;
		return;
	}
	if (x->op_count == 2 && (in->id == X86_INS_ADD || in->id == X86_INS_SUB) &&
	    out->dst != DS_REG_NONE && b->type == X86_OP_IMM) {
		out->move = DS_MOVE_ADD_IMM;
		out->imm = in->id == X86_INS_ADD ? b->imm : -b->imm;
		return;
	}
	if (x->op_count == 2 && in->id == X86_INS_ADD && out->dst != DS_REG_NONE && b->type == X86_OP_REG) {
		out->move = DS_MOVE_ADD_REG;
		out->src = d->arch->dwarf_of_cs(b->reg);
		return;
	}
	if (x->op_count == 2 && in->id == X86_INS_ADD && out->dst != DS_REG_NONE && b->type == X86_OP_MEM &&
	    a->size == 8) {
		out->move = DS_MOVE_ADD_LOAD;
		return;
	}
	if (gpr_written) {
		out->move = DS_MOVE_OTHER;
		if (out->dst == DS_REG_NONE)
			out->dst = __builtin_ctzll(gpr_written);
	}
}

static void classify_alu(const cs_insn *in, ds_insn *out)
{
	const cs_x86 *x = &in->detail->x86;
	int64_t imm;

	out->alu = DS_ALU_NONE;
	if (x->op_count != 2 || x->operands[1].type != X86_OP_IMM)
		return;
	imm = x->operands[1].imm;
	switch (in->id) {
	case X86_INS_ADD: out->alu = DS_ALU_ADD; break;
	case X86_INS_SUB: out->alu = DS_ALU_ADD; imm = -imm; break;
	case X86_INS_AND: out->alu = DS_ALU_AND; break;
	case X86_INS_OR: out->alu = DS_ALU_OR; break;
	case X86_INS_XOR: out->alu = DS_ALU_XOR; break;
	case X86_INS_TEST: out->alu = DS_ALU_TEST; break;
	case X86_INS_SHR: case X86_INS_SAR: out->alu = DS_ALU_SHR; break;
	case X86_INS_SHL: out->alu = DS_ALU_SHL; break;
	default: return;
	}
	out->alu_imm = imm;
}

/* ---- VEX and EVEX instructions Capstone 4 does not know ----
 * Capstone 4.0.2 (Debian 12) rejects some AVX-512 instructions that glibc's
 * string functions run on every AVX-512 machine: kmovd/kmovq and the
 * compares into mask registers (vpcmp[u]b ...).  A function holding one
 * could not be decoded at all, so samples in memcmp or strlen got no
 * trigger.  These instructions are regular: prefix, opcode, ModRM, SIB,
 * displacement, immediate; this decodes their length and memory operand
 * and says conservatively what they write. */

/* x86 encoding order (rax rcx rdx rbx rsp rbp rsi rdi r8..r15) to DWARF. */
static int dwarf_of_enc(unsigned r)
{
	static const int8_t map[8] = {RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI};
	return r < 8 ? map[r] : (int)r;
}

typedef struct vex {
	unsigned map;          /* 1: 0F, 2: 0F38, 3: 0F3A */
	uint8_t opcode;
	bool evex, w, r, x, b; /* r, x, b: the register-number extensions, un-inverted */
	unsigned pp, vl;       /* vl: vector bytes */
	bool broadcast;
	size_t prefix_len;
} vex;

static bool vex_prefix(const uint8_t *c, size_t len, vex *v)
{
	memset(v, 0, sizeof *v);
	if (len >= 3 && c[0] == 0xc5) {
		v->r = !(c[1] & 0x80);
		v->map = 1;
		v->pp = c[1] & 3;
		v->vl = c[1] & 4 ? 32 : 16;
		v->prefix_len = 2;
	} else if (len >= 4 && c[0] == 0xc4) {
		v->r = !(c[1] & 0x80), v->x = !(c[1] & 0x40), v->b = !(c[1] & 0x20);
		v->map = c[1] & 0x1f;
		v->w = c[2] & 0x80;
		v->pp = c[2] & 3;
		v->vl = c[2] & 4 ? 32 : 16;
		v->prefix_len = 3;
	} else if (len >= 5 && c[0] == 0x62 && (c[2] & 4)) {
		v->evex = true;
		v->r = !(c[1] & 0x80), v->x = !(c[1] & 0x40), v->b = !(c[1] & 0x20);
		v->map = c[1] & 3;
		v->w = c[2] & 0x80;
		v->pp = c[2] & 3;
		v->vl = 16u << ((c[3] >> 5) & 3);
		v->broadcast = c[3] & 0x10;
		v->prefix_len = 4;
	} else {
		return false;
	}
	if (v->map < 1 || v->map > 3)
		return false;
	v->opcode = c[v->prefix_len];
	return true;
}

static bool vex_has_imm8(const vex *v)
{
	if (v->map == 3)
		return true;
	return v->map == 1 && ((v->opcode >= 0x70 && v->opcode <= 0x73) || v->opcode == 0xc2 ||
			       (v->opcode >= 0xc4 && v->opcode <= 0xc6));
}

/* Gathers and scatters address memory through a vector of indexes. */
static bool vex_vsib(const vex *v)
{
	return v->map == 2 && ((v->opcode >= 0x90 && v->opcode <= 0x93) ||
			       (v->opcode >= 0xa0 && v->opcode <= 0xa3) || v->opcode == 0xc6 ||
			       v->opcode == 0xc7);
}

static bool decode_vex(const uint8_t *c, size_t len, uint64_t addr, ds_insn *out)
{
	vex v;
	size_t p;
	unsigned mod, reg, rm;
	ds_memop *m = &out->mem[0];

	if (!vex_prefix(c, len, &v) || vex_vsib(&v) || (v.map == 1 && v.opcode == 0x77))
		return false;
	p = v.prefix_len + 1;
	if (p >= len)
		return false;
	mod = c[p] >> 6, reg = (c[p] >> 3) & 7, rm = c[p] & 7;
	p++;
	memset(out, 0, sizeof *out);
	out->addr = addr;
	out->flow = DS_FLOW_NEXT;
	out->dst = out->src = DS_REG_NONE;
	if (mod != 3) {
		int64_t disp = 0;
		m->base = m->index = DS_REG_NONE;
		m->scale = 1;
		if (rm == 4) {
			uint8_t sib;
			if (p >= len)
				return false;
			sib = c[p++];
			m->scale = 1 << (sib >> 6);
			if (((sib >> 3) & 7) != 4 || v.x)
				m->index = dwarf_of_enc(((sib >> 3) & 7) | (v.x ? 8u : 0));
			if ((sib & 7) == 5 && mod == 0)
				mod = 2; /* no base: a 32-bit displacement */
			else
				m->base = dwarf_of_enc((sib & 7) | (v.b ? 8u : 0));
		} else if (rm == 5 && mod == 0) {
			m->rip_relative = true;
			mod = 2;
		} else {
			m->base = dwarf_of_enc(rm | (v.b ? 8u : 0));
		}
		if (mod == 1) {
			if (p + 1 > len)
				return false;
			/* EVEX scales a one-byte displacement by the memory operand's
			 * size: the whole vector, or one element when broadcast
			 * (the full-vector forms, which are the ones decoded here) */
			disp = (int8_t)c[p++];
			if (v.evex)
				disp *= v.broadcast ? (v.w ? 8 : 4) : (int64_t)v.vl;
		} else if (mod == 2) {
			int32_t d32;
			if (p + 4 > len)
				return false;
			memcpy(&d32, c + p, 4);
			disp = d32;
			p += 4;
		}
		m->disp = disp;
		m->size = v.evex && v.broadcast ? (v.w ? 8 : 4) : v.vl;
		m->read = true;
		out->nmem = 1;
		out->regs_read = reg_bit(m->base) | reg_bit(m->index);
	}
	if (vex_has_imm8(&v))
		p++;
	if (p > len || p > 15)
		return false;
	out->len = (uint32_t)p;
	/* what they write: kmov and the compares into mask registers write no
	 * general-purpose register but kmov's r32/r64 form; anything else may */
	if (!v.evex && v.map == 1 && v.opcode >= 0x90 && v.opcode <= 0x93) {
		if (out->nmem) {
			static const uint32_t kmov_size[2][2] = {{2, 8}, {1, 4}}; /* [66 prefix][W] */
			m->size = v.pp <= 1 ? kmov_size[v.pp][v.w] : (v.w ? 8 : 4);
			m->read = v.opcode == 0x90;
			m->write = v.opcode == 0x91;
		}
		if (v.opcode == 0x93) {
			out->dst = dwarf_of_enc(reg | (v.r ? 8u : 0));
			out->regs_written = reg_bit(out->dst);
			out->move = DS_MOVE_OTHER;
		}
	} else if (!(v.evex && v.map == 3 && (v.opcode & 0xfe) == 0x3e) &&
		   !(v.evex && v.map == 3 && (v.opcode & 0xfe) == 0x1e) &&
		   !(!v.evex && v.map == 1 && (v.opcode == 0x98 || v.opcode == 0x99))) {
		out->regs_written = 0xffffull & ~reg_bit(RSP);
	}
	return true;
}

bool ds_decode(ds_decoder *d, const uint8_t *code, size_t len, uint64_t addr, ds_insn *out)
{
	const uint8_t *p = code;
	size_t n = len;
	uint64_t a = addr;
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0;
	const cs_insn *in = d->insn;

	memset(out, 0, sizeof *out);
	if (!cs_disasm_iter(d->cs, &p, &n, &a, d->insn))
		return decode_vex(code, len, addr, out);
	out->addr = addr;
	out->len = in->size;
	if (cs_regs_access(d->cs, in, rr, &nr, rw, &nw) == CS_ERR_OK) {
		for (uint8_t i = 0; i < nr; i++)
			out->regs_read |= reg_bit(d->arch->dwarf_of_cs(rr[i]));
		for (uint8_t i = 0; i < nw; i++)
			out->regs_written |= reg_bit(d->arch->dwarf_of_cs(rw[i]));
	}
	for (uint8_t i = 0; i < in->detail->x86.op_count; i++) {
		const cs_x86_op *op = &in->detail->x86.operands[i];
		if (op->type == X86_OP_MEM) {
			add_memop(d, in, op, out);
			out->regs_read |= reg_bit(d->arch->dwarf_of_cs(op->mem.base)) |
					  reg_bit(d->arch->dwarf_of_cs(op->mem.index));
		}
	}
	classify_flow(in, out);
	if (in->id == X86_INS_PUSH || in->id == X86_INS_POP)
		add_stack_access(out, in->id == X86_INS_PUSH);
	else if (out->flow == DS_FLOW_CALL || out->flow == DS_FLOW_INDIRECT_CALL)
		add_stack_access(out, true); /* the return address */
	else if (in_group(in, CS_GRP_RET))
		add_stack_access(out, false);
	classify_move(d, in, out);
	classify_alu(in, out);
	return true;
}

size_t ds_decode_text(ds_decoder *d, const uint8_t *code, size_t len, uint64_t addr,
		      char *text, size_t textlen)
{
	const uint8_t *p = code;
	size_t n = len;
	uint64_t a = addr;

	if (!cs_disasm_iter(d->cs, &p, &n, &a, d->insn)) {
		ds_insn in;
		vex v;
		static const char *const maps[] = {"", "0f", "0f38", "0f3a"};
		if (decode_vex(code, len, addr, &in) && vex_prefix(code, len, &v)) {
			/* the family when it is one of those glibc uses, and the
			 * encoding, for the reader to look up */
			const char *fam = v.map == 1 && (v.opcode & 0xfc) == 0x90 ? "kmov "
					  : v.map == 1 && (v.opcode & 0xfe) == 0x98 ? "ktest "
					  : v.map == 3 && (v.opcode & 0xde) == 0x1e ? "vpcmp "
										   : "";
			snprintf(text, textlen, "%s(%s %s %02x, unknown to Capstone 4)", fam,
				 v.evex ? "evex" : "vex", maps[v.map], v.opcode);
			return in.len;
		}
		snprintf(text, textlen, "(bad)");
		return 0;
	}
	if (d->insn->op_str[0])
		snprintf(text, textlen, "%s %s", d->insn->mnemonic, d->insn->op_str);
	else
		snprintf(text, textlen, "%s", d->insn->mnemonic);
	return d->insn->size;
}
