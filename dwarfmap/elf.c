/*
 * ELF access through libelf.  Every file dwarfmap reads may be truncated
 * or hostile, so nothing here trusts a header field without libelf having
 * checked it against the image: sections come from elf_getdata (which
 * bounds-checks), strings from elf_strptr (which checks termination), and
 * notes from gelf_getnote.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file cut short (an interrupted copy, a full disk) still parses as ELF,
 * but its section headers, at the end of the file, lie past it: say so,
 * rather than "no symbols" or "no DWARF" later.  (Segments are not
 * checked: debug files may keep the sizes of segments they do not hold.) */
static int check_truncated(ds_elf *e, const char *label, ds_err *err)
{
	size_t size = 0;
	uint64_t shnum = e->ehdr.e_shnum ? e->ehdr.e_shnum : 1, need; /* 0: the count is in header 0 */

	if (!e->ehdr.e_shoff || !elf_rawfile(e->elf, &size))
		return 0;
	if (__builtin_add_overflow(e->ehdr.e_shoff, shnum * e->ehdr.e_shentsize, &need))
		need = UINT64_MAX;
	if (need <= size)
		return 0;
	return ds_err_set(err, DS_EINPUT,
			  "cannot read '%s': truncated at byte %zu (its section headers end at byte %llu)", label,
			  size, (unsigned long long)need);
}

static int finish_open(ds_elf *e, const char *label, ds_err *err)
{
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &e->ehdr)) {
		ds_err_set(err, DS_EINPUT, "cannot read '%s': not an ELF file", label);
		ds_elf_close(e);
		return -1;
	}
	if (check_truncated(e, label, err)) {
		ds_elf_close(e);
		return -1;
	}
	if (elf_getshdrstrndx(e->elf, &e->shstrndx) != 0)
		e->shstrndx = 0;
	return 0;
}

int ds_elf_open_file(ds_elf *e, const char *path, ds_err *err)
{
	memset(e, 0, sizeof *e);
	e->fd = ds_open_regular(path, err);
	if (e->fd < 0)
		return -1;
	e->path = ds_xstrdup(path);
	elf_version(EV_CURRENT);
	e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	return finish_open(e, path, err);
}

int ds_elf_open_mem(ds_elf *e, void *mem, size_t size, const char *label, ds_err *err)
{
	memset(e, 0, sizeof *e);
	e->fd = -1;
	e->mem = mem;
	e->path = ds_xstrdup(label);
	elf_version(EV_CURRENT);
	e->elf = elf_memory(mem, size);
	return finish_open(e, label, err);
}

void ds_elf_close(ds_elf *e)
{
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e->mem);
	free(e->path);
	for (size_t i = 0; i < e->relocated.n; i++)
		free(e->relocated.v[i].data);
	ds_vec_free(&e->relocated);
	memset(e, 0, sizeof *e);
	e->fd = -1;
}

bool ds_elf_is_open(const ds_elf *e)
{
	return e->elf != NULL;
}

const char *ds_elf_section_name(const ds_elf *e, const GElf_Shdr *shdr)
{
	if (!e->shstrndx)
		return NULL;
	return elf_strptr(e->elf, e->shstrndx, shdr->sh_name);
}

Elf_Scn *ds_elf_section(const ds_elf *e, const char *name, GElf_Shdr *shdr, size_t *index)
{
	Elf_Scn *scn = NULL;

	if (!e->elf)
		return NULL;
	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		const char *s;
		if (!gelf_getshdr(scn, shdr))
			continue;
		s = ds_elf_section_name(e, shdr);
		if (s && strcmp(s, name) == 0) {
			if (index)
				*index = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

const void *ds_elf_section_data(Elf_Scn *scn, size_t *size)
{
	GElf_Shdr shdr;
	Elf_Data *data;

	if (!scn || !gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS)
		return NULL;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return NULL;
	*size = data->d_size;
	return data->d_buf;
}

const void *ds_elf_section_inflated(Elf_Scn *scn, bool gnu_z, size_t *size)
{
	GElf_Shdr shdr;
	Elf_Data *data;

	if (!scn || !gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS)
		return NULL;
	/* libelf clears SHF_COMPRESSED once it has inflated the section */
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return NULL;
	/* A .zdebug section is compressed while it starts with "ZLIB" and the
	 * size; elf_compress_gnu refuses one it has already inflated. */
	if (gnu_z && (data = elf_getdata(scn, NULL)) && data->d_buf && data->d_size >= 12 &&
	    memcmp(data->d_buf, "ZLIB", 4) == 0 && elf_compress_gnu(scn, 0, 0) < 0)
		return NULL;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || !data->d_size)
		return NULL;
	*size = data->d_size;
	return data->d_buf;
}

/* Scan one block of notes for the GNU build-id. */
static size_t note_build_id(Elf_Data *data, uint8_t *out, size_t cap)
{
	GElf_Nhdr nh;
	size_t off = 0, next, name_off, desc_off;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && nh.n_descsz > 0) {
			size_t n = nh.n_descsz < cap ? nh.n_descsz : cap;
			memcpy(out, (const uint8_t *)data->d_buf + desc_off, n);
			return n;
		}
		off = next;
	}
	return 0;
}

size_t ds_elf_build_id(const ds_elf *e, uint8_t *out, size_t cap)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	GElf_Phdr ph;
	size_t n, nph;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		Elf_Data *data;
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf && (n = note_build_id(data, out, cap)) > 0)
			return n;
	}
	/* Images without section headers still have their PT_NOTE. */
	if (elf_getphdrnum(e->elf, &nph) != 0)
		return 0;
	for (size_t i = 0; i < nph; i++) {
		Elf_Data *data;
		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(e->elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (data && data->d_buf && (n = note_build_id(data, out, cap)) > 0)
			return n;
	}
	return 0;
}

size_t ds_build_id_of_file(const char *path, uint8_t *id, size_t cap)
{
	ds_elf e;
	ds_err err;
	size_t n;

	if (ds_elf_open_file(&e, path, &err) < 0)
		return 0;
	n = ds_elf_build_id(&e, id, cap);
	ds_elf_close(&e);
	return n;
}

/* Notes outside an ELF file: 4-byte words namesz, descsz, type, then the
 * name and the descriptor, each padded to 4 bytes. */
size_t ds_build_id_of_notes(const void *notes, size_t len, uint8_t *id, size_t cap)
{
	const uint8_t *p = notes;
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t w[3];
		uint64_t name, desc;
		memcpy(w, p + off, sizeof w);
		name = ((uint64_t)w[0] + 3) & ~3ull;
		desc = ((uint64_t)w[1] + 3) & ~3ull;
		if (name > len - off - 12 || desc > len - off - 12 - name)
			return 0;
		if (w[2] == NT_GNU_BUILD_ID && w[0] == 4 && memcmp(p + off + 12, "GNU", 4) == 0 && w[1]) {
			size_t n = w[1] < cap ? w[1] : cap;
			memcpy(id, p + off + 12 + name, n);
			return n;
		}
		off += 12 + name + desc;
	}
	return 0;
}

bool ds_elf_has_dwarf(const ds_elf *e)
{
	static const char *const names[] = {".debug_line", ".zdebug_line"};
	GElf_Shdr shdr;

	for (size_t i = 0; i < 2; i++)
		if (ds_elf_section(e, names[i], &shdr, NULL) && shdr.sh_type != SHT_NOBITS &&
		    shdr.sh_size > 0)
			return true;
	return false;
}
