/*
 * Symbols of an ELF file, chosen, placed and sized as perf 6.1 does
 * (tools/perf/util/symbol-elf.c: dso__load_sym, dso__load_sym_internal,
 * dso__synthesize_plt_symbols; symbol.c: dso__load), so that every sample
 * lands in the function `perf report` names:
 *
 *  - The table comes from the debug file's .symtab, else the file's own
 *    .symtab; the .dynsym of the same file is loaded after it (perf loads
 *    both and lets fixup_duplicate merge them).  A file with neither gets
 *    the .symtab of its MiniDebugInfo (.gnu_debugdata), which perf 6.1
 *    does not read, ahead of its .dynsym.
 *  - Kept: named, defined FUNC, GNU_IFUNC and OBJECT symbols, and NOTYPE
 *    labels that are not hidden/internal and sit in a section whose name
 *    contains "text" or "data"; never SHN_ABS or non-SHF_ALLOC ones, nor
 *    ARM mapping symbols ($a, $d, $t, $x).
 *  - Addresses become file offsets through the program header holding
 *    them, as perf keeps user symbols; the tree is built in that space.
 *  - After each table: symbols__fixup_end then symbols__fixup_duplicate.
 *  - Then, if the tables gave any symbol at all, name@plt entries for
 *    .rela.plt/.rel.plt, laid out over .plt after its header.  perf 6.1
 *    knows nothing of .plt.sec: on IBT-enabled binaries its PLT names are
 *    off (the calls go through .plt.sec), and we are off the same way.
 *  - Names are compared and shown in perf's demangled form.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <stdlib.h>
#include <string.h>

/* elf_sym__is_function, elf_sym__is_object and elf_sym__is_label. */
static bool wanted(const GElf_Sym *s, bool *is_label)
{
	int type = GELF_ST_TYPE(s->st_info), vis = GELF_ST_VISIBILITY(s->st_other);

	*is_label = false;
	if (s->st_name == 0 || s->st_shndx == SHN_UNDEF)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)
		return true;
	*is_label = type == STT_NOTYPE && s->st_shndx != SHN_ABS && vis != STV_HIDDEN &&
		    vis != STV_INTERNAL;
	return *is_label;
}

static bool arm_mapping_symbol(const ds_elf *e, const char *name)
{
	if (e->ehdr.e_machine != EM_ARM && e->ehdr.e_machine != EM_AARCH64)
		return false;
	return name[0] == '$' && name[1] && strchr("adtx", name[1]) &&
	       (name[2] == '\0' || name[2] == '.');
}

/* The section a symbol is defined in, from the runtime file when the
 * symbol file only has a NOBITS placeholder for it (debug files). */
static bool symbol_section(const ds_dso *d, const ds_elf *syms, const GElf_Sym *s,
			   GElf_Shdr *shdr, const ds_elf **names)
{
	Elf_Scn *scn = elf_getscn(syms->elf, s->st_shndx);

	*names = syms;
	if (!scn || !gelf_getshdr(scn, shdr))
		return false;
	if (shdr->sh_type != SHT_NOBITS || syms == &d->main)
		return true;
	*names = &d->main;
	scn = elf_getscn(d->main.elf, s->st_shndx);
	return scn && gelf_getshdr(scn, shdr);
}

static void add_named(ds_symtree *t, uint64_t start, uint64_t len, uint64_t vaddr,
		      const char *raw, uint8_t bind, uint8_t type)
{
	char *dem = ds_demangle_perf(raw);

	ds_symtree_add(t, start, len, vaddr, dem ? dem : raw, raw, bind, type);
	free(dem);
}

static bool add_elf_symbol(ds_dso *d, ds_symtree *t, const ds_elf *syms, size_t strndx,
			   GElf_Sym *s)
{
	const ds_elf *names;
	const char *name, *secname;
	GElf_Shdr shdr;
	bool is_label;
	uint64_t value = s->st_value, off;

	if (!wanted(s, &is_label))
		return false;
	name = elf_strptr(syms->elf, strndx, s->st_name);
	if (!name || arm_mapping_symbol(syms, name) || s->st_shndx == SHN_ABS)
		return false;
	if (!symbol_section(d, syms, s, &shdr, &names) || !(shdr.sh_flags & SHF_ALLOC))
		return false;
	if (is_label) {
		secname = ds_elf_section_name(names, &shdr);
		if (!secname || (!strstr(secname, "text") && !strstr(secname, "data")))
			return false;
	}
	/* ARM marks Thumb functions by setting bit 0 of the address. */
	if (syms->ehdr.e_machine == EM_ARM && GELF_ST_TYPE(s->st_info) == STT_FUNC && (value & 1))
		value--;
	if (!ds_dso_vaddr_to_offset(d, value, &off))
		off = value - (shdr.sh_addr - shdr.sh_offset);
	add_named(t, off, s->st_size, value, name, GELF_ST_BIND(s->st_info),
		  GELF_ST_TYPE(s->st_info));
	return true;
}

/* One pass of dso__load_sym_internal over .symtab or .dynsym.  Where perf
 * gives up on the rest of a table because one symbol names a section that
 * does not exist (a corrupt file), we skip that symbol only. */
static size_t load_table(ds_dso *d, ds_symtree *t, const ds_elf *syms, Elf_Scn *scn)
{
	GElf_Shdr shdr;
	Elf_Data *data;
	GElf_Sym s;
	size_t n, nr = 0;

	if (!gelf_getshdr(scn, &shdr) || shdr.sh_entsize == 0)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data)
		return 0;
	n = (shdr.sh_size < data->d_size ? shdr.sh_size : data->d_size) / shdr.sh_entsize;
	for (size_t i = 0; i < n; i++)
		if (gelf_getsym(data, (int)i, &s) && add_elf_symbol(d, t, syms, shdr.sh_link, &s))
			nr++;
	if (nr) {
		ds_symtree_fixup_end(t, false);
		ds_symtree_fixup_duplicate(t);
	}
	return nr;
}

static Elf_Scn *table(const ds_elf *e, const char *name, Elf64_Word type, size_t *index)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = ds_elf_section(e, name, &shdr, index);

	return scn && shdr.sh_type == type ? scn : NULL;
}

/* Where the PLT's first entry starts and how long entries are. */
static void plt_layout(const ds_elf *e, const GElf_Shdr *plt, uint64_t *header, uint64_t *entry)
{
	switch (e->ehdr.e_machine) {
	case EM_ARM:
		*header = 20;
		*entry = 12;
		break;
	case EM_AARCH64:
		*header = 32;
		*entry = 16;
		break;
	case EM_SPARC:
		*header = 48;
		*entry = 12;
		break;
	case EM_SPARCV9:
		*header = 128;
		*entry = 32;
		break;
	default:
		*header = *entry = plt->sh_entsize;
		break;
	}
}

typedef struct plt_ctx {
	ds_dso *d;
	ds_symtree *t;
	Elf_Data *dynsyms;
	size_t strndx;
	uint64_t off, vaddr, entry;
} plt_ctx;

static void add_plt_entry(plt_ctx *c, uint64_t r_info)
{
	GElf_Sym s;
	const char *name = NULL;
	char *dem, *disp, *raw;

	if (gelf_getsym(c->dynsyms, (int)GELF_R_SYM(r_info), &s))
		name = elf_strptr(c->d->main.elf, c->strndx, s.st_name);
	if (!name)
		name = "";
	dem = ds_demangle_perf(name);
	disp = ds_xasprintf("%s@plt", dem ? dem : name);
	raw = ds_xasprintf("%s@plt", name);
	ds_symtree_add(c->t, c->off, c->entry, c->vaddr, disp, raw, STB_GLOBAL, STT_FUNC);
	free(dem);
	free(disp);
	free(raw);
	c->off += c->entry;
	c->vaddr += c->entry;
}

static void synthesize_plt(ds_dso *d, ds_symtree *t)
{
	GElf_Shdr dynsh, relsh, pltsh;
	size_t dynidx, nrel;
	Elf_Scn *dyn, *rel;
	Elf_Data *reldata;
	uint64_t header;
	plt_ctx c = {.d = d, .t = t};

	dyn = table(&d->main, ".dynsym", SHT_DYNSYM, &dynidx);
	if (!dyn || !gelf_getshdr(dyn, &dynsh))
		return;
	rel = ds_elf_section(&d->main, ".rela.plt", &relsh, NULL);
	if (!rel)
		rel = ds_elf_section(&d->main, ".rel.plt", &relsh, NULL);
	if (!rel || relsh.sh_link != dynidx || relsh.sh_entsize == 0 ||
	    !ds_elf_section(&d->main, ".plt", &pltsh, NULL))
		return;
	reldata = elf_getdata(rel, NULL);
	c.dynsyms = elf_getdata(dyn, NULL);
	if (!reldata || !c.dynsyms)
		return;
	c.strndx = dynsh.sh_link;
	plt_layout(&d->main, &pltsh, &header, &c.entry);
	c.off = pltsh.sh_offset + header;
	c.vaddr = pltsh.sh_addr + header;
	nrel = (relsh.sh_size < reldata->d_size ? relsh.sh_size : reldata->d_size) / relsh.sh_entsize;
	for (size_t i = 0; i < nrel; i++) {
		GElf_Rela ra;
		GElf_Rel r;
		if (relsh.sh_type == SHT_RELA && gelf_getrela(reldata, (int)i, &ra))
			add_plt_entry(&c, ra.r_info);
		else if (relsh.sh_type == SHT_REL && gelf_getrel(reldata, (int)i, &r))
			add_plt_entry(&c, r.r_info);
	}
}

void ds_dso_load_symbols(ds_dso *d)
{
	ds_symtree t;
	const ds_elf *symtab_elf = NULL, *dyn_elf = &d->main;
	Elf_Scn *symtab = NULL, *dynsym;
	size_t nr = 0, ndyn = 0;

	ds_symtree_init(&t);
	if ((symtab = table(&d->debug, ".symtab", SHT_SYMTAB, NULL)) != NULL)
		symtab_elf = dyn_elf = &d->debug;
	else if ((symtab = table(&d->main, ".symtab", SHT_SYMTAB, NULL)) != NULL)
		symtab_elf = &d->main;
	else if (ds_dso_open_minidebug(d) &&
		 (symtab = table(&d->mini, ".symtab", SHT_SYMTAB, NULL)) != NULL)
		symtab_elf = &d->mini;
	if (symtab)
		nr = load_table(d, &t, symtab_elf, symtab);
	if ((dynsym = table(dyn_elf, ".dynsym", SHT_DYNSYM, NULL)) != NULL)
		ndyn = load_table(d, &t, dyn_elf, dynsym);
	if (nr + ndyn > 0)
		synthesize_plt(d, &t);

	if (symtab_elf == &d->debug)
		d->symsrc = ds_xasprintf("debug file %s", d->debug.path);
	else if (symtab_elf == &d->main)
		d->symsrc = ds_xstrdup("symtab");
	else if (symtab_elf == &d->mini)
		d->symsrc = ds_xstrdup(dynsym ? "dynsym+gnu_debugdata" : "gnu_debugdata");
	else if (dynsym)
		d->symsrc = ds_xstrdup("dynsym");
	ds_symtree_finish(&t, d);
}

void ds_dso_each_object(ds_dso *d, void (*fn)(void *ctx, const char *raw, uint64_t vaddr, uint64_t size),
			void *ctx)
{
	const ds_elf *e = &d->debug;
	Elf_Scn *scn = table(e, ".symtab", SHT_SYMTAB, NULL);
	GElf_Shdr shdr;
	Elf_Data *data;
	GElf_Sym s;
	size_t n;

	if (!scn)
		scn = table(e = &d->main, ".symtab", SHT_SYMTAB, NULL);
	if (!scn)
		scn = table(e = &d->main, ".dynsym", SHT_DYNSYM, NULL);
	if (!scn || !gelf_getshdr(scn, &shdr) || shdr.sh_entsize == 0 || !(data = elf_getdata(scn, NULL)))
		return;
	n = (shdr.sh_size < data->d_size ? shdr.sh_size : data->d_size) / shdr.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		const char *name;
		if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_OBJECT || !s.st_size ||
		    s.st_shndx == SHN_UNDEF || !(name = elf_strptr(e->elf, shdr.sh_link, s.st_name)) || !*name)
			continue;
		fn(ctx, name, s.st_value, s.st_size);
	}
}
