/*
 * libdwarf over the sections we choose.
 *
 * libdwarf reads the sections through its object-access interface from
 * the ELF we already hold, and sees only the sections a reader names.
 * That keeps its work (and its exposure to corrupt input: the 20210528
 * release double-frees on a damaged .debug_rnglists, which it would
 * otherwise load with .debug_info) to the minimum, and lets libelf
 * decompress SHF_COMPRESSED and .zdebug sections.  It also means libdwarf
 * relocates nothing (its own ELF reader would, for relocatable objects):
 * the sections it gets are already relocated (reloc.c), as dwarfmap's own
 * readers of the same bytes need them to be.
 *
 * libdwarf gets no error handler, so it never aborts; callers check every
 * error return and free its Dwarf_Error.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <libdwarf.h>
#include <stdlib.h>
#include <string.h>

/* Index 0 stays empty, like ELF's null section. */
#define MAX_DSEC 24

typedef struct dsec {
	const char *name;
	const Dwarf_Small *data;
	size_t size;
} dsec;

struct ds_dwarf {
	dsec sec[MAX_DSEC];
	unsigned n;
	bool msb, is64;
	Dwarf_Obj_Access_Interface iface;
	Dwarf_Debug dbg;
};

static int obj_section_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *s, int *error)
{
	const ds_dwarf *o = obj;

	(void)error;
	if (i >= o->n)
		return DW_DLV_NO_ENTRY;
	memset(s, 0, sizeof *s);
	s->type = i ? SHT_PROGBITS : SHT_NULL;
	s->size = o->sec[i].size;
	s->name = o->sec[i].name;
	return DW_DLV_OK;
}

static Dwarf_Endianness obj_byte_order(void *obj)
{
	return ((const ds_dwarf *)obj)->msb ? DW_OBJECT_MSB : DW_OBJECT_LSB;
}

static Dwarf_Small obj_length_size(void *obj)
{
	(void)obj;
	return 4;
}

static Dwarf_Small obj_pointer_size(void *obj)
{
	return ((const ds_dwarf *)obj)->is64 ? 8 : 4;
}

static Dwarf_Unsigned obj_section_count(void *obj)
{
	return ((const ds_dwarf *)obj)->n;
}

static int obj_load_section(void *obj, Dwarf_Half i, Dwarf_Small **data, int *error)
{
	const ds_dwarf *o = obj;

	(void)error;
	if (i == 0 || i >= o->n)
		return DW_DLV_NO_ENTRY;
	*data = (Dwarf_Small *)o->sec[i].data; /* libdwarf's signature; it only reads */
	return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods obj_methods = {
	.get_section_info = obj_section_info,
	.get_byte_order = obj_byte_order,
	.get_length_size = obj_length_size,
	.get_pointer_size = obj_pointer_size,
	.get_section_count = obj_section_count,
	.load_section = obj_load_section,
};

static void add_section(ds_dso *d, ds_dwarf *o, ds_elf *e, const char *name)
{
	GElf_Shdr sh;

	o->sec[o->n].name = name;
	if ((o->sec[o->n].data = ds_dso_debug_section(d, e, name, &sh, &o->sec[o->n].size)))
		o->n++;
}

ds_dwarf *ds_dwarf_open(ds_dso *d, const char *const *sections, size_t n)
{
	ds_dwarf *o;
	Dwarf_Error e = NULL;
	ds_elf *elf = d->dwarf;
	int rc;

	if (!elf)
		return NULL;
	o = ds_xcalloc(1, sizeof *o);
	o->sec[0].name = "";
	o->n = 1;
	o->msb = elf->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	o->is64 = elf->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	for (size_t i = 0; i < n && o->n < MAX_DSEC; i++)
		add_section(d, o, elf, sections[i]);
	o->iface.object = o;
	o->iface.methods = &obj_methods;
	rc = dwarf_object_init_b(&o->iface, NULL, NULL, DW_GROUPNUMBER_ANY, &o->dbg, &e);
	if (rc != DW_DLV_OK) {
		if (rc == DW_DLV_ERROR) {
			ds_dso_set_note(d, "DWARF in '%s': cannot read the debug information: %s",
					elf->path, e ? dwarf_errmsg(e) : "unknown error");
			if (e)
				dwarf_dealloc_error(NULL, e);
		}
		free(o);
		return NULL;
	}
	return o;
}

Dwarf_Debug ds_dwarf_debug(const ds_dwarf *dw)
{
	return dw->dbg;
}

bool ds_dwarf_msb(const ds_dwarf *dw)
{
	return dw->msb;
}

const void *ds_dwarf_section(const ds_dwarf *dw, const char *name, size_t *size)
{
	for (unsigned i = 1; i < dw->n; i++)
		if (strcmp(dw->sec[i].name, name) == 0) {
			*size = dw->sec[i].size;
			return dw->sec[i].data;
		}
	*size = 0;
	return NULL;
}

void ds_dwarf_close(ds_dwarf *dw)
{
	Dwarf_Error e = NULL;

	if (!dw)
		return;
	dwarf_object_finish(dw->dbg, &e);
	free(dw);
}
