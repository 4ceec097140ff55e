/* x86-64: sampled registers and Capstone decoding. */
#include "arch/arch.h"

#include <asm/perf_regs.h>
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>
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
	 RSP, RBP, RIP, x86_64_int_args, 6, X86_64_CALLER_SAVED, x86_64_dwarf_to_perf, NDWARF,
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

const int *ds_arch_int_args(const ds_arch *a, size_t *n)
{
	*n = a->nint_args;
	return a->int_args;
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

size_t ds_decode_text(ds_decoder *d, const uint8_t *code, size_t len, uint64_t addr,
		      char *text, size_t textlen)
{
	const uint8_t *p = code;
	size_t n = len;
	uint64_t a = addr;

	if (!cs_disasm_iter(d->cs, &p, &n, &a, d->insn)) {
		snprintf(text, textlen, "(bad)");
		return 0;
	}
	if (d->insn->op_str[0])
		snprintf(text, textlen, "%s %s", d->insn->mnemonic, d->insn->op_str);
	else
		snprintf(text, textlen, "%s", d->insn->mnemonic);
	return d->insn->size;
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
	m->address_only = in->id == X86_INS_LEA || in->id == X86_INS_NOP;
	m->read = !m->address_only && (op->access & CS_AC_READ);
	m->write = !m->address_only && (op->access & CS_AC_WRITE);
}

/* push and pop touch the stack without a memory operand: make it explicit,
 * so that a sample after one is the stack's. */
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
		return false;
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
	if (in->id == X86_INS_PUSH || in->id == X86_INS_POP)
		add_stack_access(out, in->id == X86_INS_PUSH);
	classify_flow(in, out);
	classify_move(d, in, out);
	classify_alu(in, out);
	return true;
}
