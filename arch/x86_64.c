/* x86-64: sampled registers and Capstone decoding. */
#include "arch/arch.h"

#include <asm/perf_regs.h>
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

struct ds_arch {
	const char *name;
	uint64_t sample_regs;
	const char *const *reg_names;
	unsigned nreg_names;
	cs_arch cs_arch;
	cs_mode cs_mode;
	int dwarf_sp, dwarf_fp;
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

static const ds_arch arches[] = {
	/* DWARF numbers rsp 7 and rbp 6 (System V x86-64 psABI, figure 3.36) */
	{"x86_64", X86_64_SAMPLE_REGS, x86_64_regs, PERF_REG_X86_64_MAX, CS_ARCH_X86, CS_MODE_64, 7, 6},
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

const char *ds_arch_perf_reg_name(const ds_arch *a, unsigned reg)
{
	return reg < a->nreg_names ? a->reg_names[reg] : NULL;
}

struct ds_decoder {
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
