/*
 * Debug sections as their readers see them, relocations applied.
 *
 * In a linked file the linker has written every reference from one debug
 * section into another (a name's offset in .debug_str, a unit's abbreviation
 * table, its line table, a function's address).  In a relocatable object
 * (ET_REL: a .o, a kernel module) those fields are still relocations: with
 * RELA, as on x86-64, the bytes in the section are zero and the value is
 * in the relocation's addend, so an unrelocated .debug_info names every
 * member with the string at offset 0 of .debug_str.  So the sections of an
 * ET_REL file are read through a copy with their relocations applied, as
 * the linker would have, sections at address 0 (where a relocatable object
 * has them).
 *
 * Which relocations are applied is said below, per machine: those that
 * compilers put in debug and unwind sections.  A section whose relocations
 * include another type, or that belongs to another machine, is left out
 * with a note: a reader that sees no section says "no debug information",
 * while one that saw the bytes unrelocated would answer wrongly.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <stdlib.h>
#include <string.h>

typedef enum rkind {
	RK_NONE,  /* nothing to do */
	RK_ABS,   /* S + A */
	RK_PCREL, /* S + A - P */
	RK_ADD,   /* *P + (S + A): RISC-V's label differences, in pairs with RK_SUB */
	RK_SUB,   /* *P - (S + A) */
	RK_SET6,  /* the low 6 bits of a byte = S + A (RISC-V, DW_CFA_advance_loc) */
	RK_SUB6,  /* the low 6 bits of a byte -= S + A */
} rkind;

typedef struct rtype {
	uint32_t type;
	uint8_t size; /* bytes written */
	uint8_t kind; /* rkind */
} rtype;

/* The relocations GCC and Clang emit in .debug_* and .eh_frame: addresses
 * and section offsets (ABS), .eh_frame's PC-relative addresses (PCREL),
 * TLS variables' offsets in their block (treated as ABS: their section
 * offset, which is what they are in an object), and RISC-V's sums. */
static const rtype x86_64[] = {
	{R_X86_64_NONE, 0, RK_NONE},    {R_X86_64_64, 8, RK_ABS},
	{R_X86_64_PC32, 4, RK_PCREL},   {R_X86_64_32, 4, RK_ABS},
	{R_X86_64_32S, 4, RK_ABS},      {R_X86_64_DTPOFF64, 8, RK_ABS},
	{R_X86_64_DTPOFF32, 4, RK_ABS}, {R_X86_64_PC64, 8, RK_PCREL},
};
static const rtype i386[] = {
	{R_386_NONE, 0, RK_NONE},
	{R_386_32, 4, RK_ABS},
	{R_386_PC32, 4, RK_PCREL},
	{R_386_TLS_LDO_32, 4, RK_ABS},
};
static const rtype aarch64[] = {
	{R_AARCH64_NONE, 0, RK_NONE},     {R_AARCH64_ABS64, 8, RK_ABS},
	{R_AARCH64_ABS32, 4, RK_ABS},     {R_AARCH64_PREL64, 8, RK_PCREL},
	{R_AARCH64_PREL32, 4, RK_PCREL},  {R_AARCH64_TLS_DTPREL, 8, RK_ABS},
};
static const rtype arm[] = {
	{R_ARM_NONE, 0, RK_NONE},
	{R_ARM_ABS32, 4, RK_ABS},
	{R_ARM_REL32, 4, RK_PCREL},
	{R_ARM_TLS_LDO32, 4, RK_ABS},
};
static const rtype ppc64[] = {
	{R_PPC64_NONE, 0, RK_NONE},    {R_PPC64_ADDR64, 8, RK_ABS},
	{R_PPC64_ADDR32, 4, RK_ABS},   {R_PPC64_REL64, 8, RK_PCREL},
	{R_PPC64_REL32, 4, RK_PCREL},  {R_PPC64_DTPREL64, 8, RK_ABS},
};
static const rtype s390[] = {
	{R_390_NONE, 0, RK_NONE},       {R_390_64, 8, RK_ABS},
	{R_390_32, 4, RK_ABS},          {R_390_PC64, 8, RK_PCREL},
	{R_390_PC32, 4, RK_PCREL},      {R_390_TLS_LDO64, 8, RK_ABS},
	{R_390_TLS_LDO32, 4, RK_ABS},
};
static const rtype riscv[] = {
	{R_RISCV_NONE, 0, RK_NONE},          {R_RISCV_RELAX, 0, RK_NONE},
	{R_RISCV_64, 8, RK_ABS},             {R_RISCV_32, 4, RK_ABS},
	{R_RISCV_SET32, 4, RK_ABS},          {R_RISCV_SET16, 2, RK_ABS},
	{R_RISCV_SET8, 1, RK_ABS},           {R_RISCV_32_PCREL, 4, RK_PCREL},
	{R_RISCV_ADD64, 8, RK_ADD},          {R_RISCV_ADD32, 4, RK_ADD},
	{R_RISCV_ADD16, 2, RK_ADD},          {R_RISCV_ADD8, 1, RK_ADD},
	{R_RISCV_SUB64, 8, RK_SUB},          {R_RISCV_SUB32, 4, RK_SUB},
	{R_RISCV_SUB16, 2, RK_SUB},          {R_RISCV_SUB8, 1, RK_SUB},
	{R_RISCV_SET6, 1, RK_SET6},          {R_RISCV_SUB6, 1, RK_SUB6},
	{R_RISCV_TLS_DTPREL64, 8, RK_ABS},   {R_RISCV_TLS_DTPREL32, 4, RK_ABS},
};

typedef struct rmachine {
	uint16_t machine;
	const char *name;
	const rtype *types;
	size_t n;
} rmachine;

#define MACHINE(em, name, t) {em, name, t, sizeof t / sizeof t[0]}
static const rmachine machines[] = {
	MACHINE(EM_X86_64, "x86-64", x86_64), MACHINE(EM_386, "i386", i386),
	MACHINE(EM_AARCH64, "AArch64", aarch64), MACHINE(EM_ARM, "ARM", arm),
	MACHINE(EM_PPC64, "PowerPC64", ppc64), MACHINE(EM_S390, "s390", s390),
	MACHINE(EM_RISCV, "RISC-V", riscv),
};

static const rtype *find_type(const rmachine *m, uint32_t type)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->types[i].type == type)
			return &m->types[i];
	return NULL;
}

static uint64_t get(const uint8_t *p, unsigned n, bool msb)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? n - 1 - i : i] << (8 * i);
	return v;
}

static void put(uint8_t *p, unsigned n, bool msb, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		p[msb ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* One relocation section's entries applied to buf (the target's bytes);
 * NULL when done, else why not (static text, or written into why). */
static const char *apply(const ds_elf *e, const rmachine *m, Elf_Scn *rscn, const GElf_Shdr *rsh,
			 uint8_t *buf, size_t size, uint64_t base, char *why, size_t whysize)
{
	bool rela = rsh->sh_type == SHT_RELA, msb = e->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	Elf_Scn *symscn = elf_getscn(e->elf, rsh->sh_link);
	Elf_Data *rd = elf_getdata(rscn, NULL), *sd = symscn ? elf_getdata(symscn, NULL) : NULL;
	size_t n, entsize = gelf_fsize(e->elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);

	if (!rd || !sd || !entsize)
		return "its relocations or their symbol table cannot be read";
	n = rd->d_size / entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Rel rel;
		GElf_Sym sym = {0};
		const rtype *t;
		uint64_t s, a, v, old;
		uint32_t symi;

		if (rela ? !gelf_getrela(rd, (int)i, &r) : !gelf_getrel(rd, (int)i, &rel))
			return "its relocations cannot be read";
		if (!rela) {
			r.r_offset = rel.r_offset;
			r.r_info = rel.r_info;
		}
		if (!(t = find_type(m, (uint32_t)GELF_R_TYPE(r.r_info)))) {
			snprintf(why, whysize, "its relocations include type %u, which dsprof does not apply for %s",
				 (unsigned)GELF_R_TYPE(r.r_info), m->name);
			return why;
		}
		if (t->kind == RK_NONE)
			continue;
		if (r.r_offset > size || size - r.r_offset < t->size)
			return "a relocation lies outside the section";
		symi = (uint32_t)GELF_R_SYM(r.r_info);
		if (symi && !gelf_getsym(sd, (int)symi, &sym))
			return "a relocation names a symbol the symbol table lacks";
		/* an object's sections sit at 0: a defined symbol's value is its
		 * offset in its section; an undefined one has none */
		s = sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_COMMON ? 0 : sym.st_value;
		old = get(buf + r.r_offset, t->size, msb);
		a = rela ? (uint64_t)r.r_addend : old;
		switch (t->kind) {
		case RK_ABS: v = s + a; break;
		case RK_PCREL: v = s + a - (base + r.r_offset); break;
		case RK_ADD: v = old + s + a; break;
		case RK_SUB: v = old - (s + a); break;
		case RK_SET6: v = (old & ~0x3fu) | ((s + a) & 0x3f); break;
		default: v = (old & ~0x3fu) | ((old - (s + a)) & 0x3f); break; /* RK_SUB6 */
		}
		put(buf + r.r_offset, t->size, msb, v);
	}
	return NULL;
}

/* The next relocation section after rscn (NULL: from the start) that
 * applies to section index, or NULL. */
static Elf_Scn *next_relocations(const ds_elf *e, Elf_Scn *rscn, size_t index, GElf_Shdr *rsh)
{
	while ((rscn = elf_nextscn(e->elf, rscn)) != NULL)
		if (gelf_getshdr(rscn, rsh) && (rsh->sh_type == SHT_RELA || rsh->sh_type == SHT_REL) &&
		    rsh->sh_info == index)
			return rscn;
	return NULL;
}

/* The relocated copy of section scn (whose bytes are data), made once and
 * kept by e; data itself when nothing relocates it; NULL with a note when
 * it cannot be relocated. */
static const void *relocated(ds_dso *d, ds_elf *e, Elf_Scn *scn, const char *name, const void *data,
			     size_t size)
{
	size_t index = elf_ndxscn(scn);
	const rmachine *m = NULL;
	ds_relsec rs = {index, NULL, false};
	Elf_Scn *rscn;
	const char *why = NULL;
	char buf[160];
	GElf_Shdr sh, rsh;

	for (size_t i = 0; i < e->relocated.n; i++)
		if (e->relocated.v[i].index == index)
			return e->relocated.v[i].failed ? NULL : e->relocated.v[i].data;
	if (!(rscn = next_relocations(e, NULL, index, &rsh)))
		return data;
	for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++)
		if (machines[i].machine == e->ehdr.e_machine)
			m = &machines[i];
	if (!m) {
		snprintf(buf, sizeof buf, "dsprof applies no relocations for ELF machine %u",
			 (unsigned)e->ehdr.e_machine);
		why = buf;
	}
	rs.data = ds_xmalloc(size);
	memcpy(rs.data, data, size);
	gelf_getshdr(scn, &sh);
	for (; rscn && !why; rscn = next_relocations(e, rscn, index, &rsh))
		why = apply(e, m, rscn, &rsh, rs.data, size, sh.sh_addr, buf, sizeof buf);
	if (why) {
		ds_dso_set_note(d, "DWARF in '%s': cannot relocate %s (%s): it is left out", e->path, name,
				why);
		free(rs.data);
		rs.data = NULL;
		rs.failed = true;
	}
	ds_vec_push(&e->relocated, rs);
	return rs.data;
}

const void *ds_dso_debug_section(ds_dso *d, ds_elf *e, const char *name, GElf_Shdr *sh,
				 size_t *size)
{
	char *zname = ds_xasprintf(".z%s", name + 1);
	bool gnu_z = false;
	Elf_Scn *scn = ds_elf_section(e, name, sh, NULL);
	const void *data;

	if (!scn) {
		scn = ds_elf_section(e, zname, sh, NULL);
		gnu_z = scn != NULL;
	}
	free(zname);
	if (!scn)
		return NULL;
	if (!(data = ds_elf_section_inflated(scn, gnu_z, size))) {
		ds_dso_set_note(d, "DWARF in '%s': cannot read %s", e->path, name);
		return NULL;
	}
	if (e->ehdr.e_type != ET_REL)
		return data;
	return relocated(d, e, scn, name, data, *size);
}
