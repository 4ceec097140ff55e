/*
 * Separate debug information: the debug file found by build-id or by
 * .gnu_debuglink, and the MiniDebugInfo some distributions embed as an
 * xz-compressed ELF in .gnu_debugdata.
 *
 * A debug file is only trusted when it provably belongs to the binary: its
 * build-id equals the binary's, or (for binaries without one) its CRC32
 * equals the one .gnu_debuglink records.  A stale debug file would put
 * every sample in the wrong function, which is worse than having none.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <limits.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* Decompressed MiniDebugInfo is a symbol table, a few MB at most; refuse
 * anything that inflates past this rather than exhaust memory. */
#define MINIDEBUG_MAX (256u << 20)

typedef struct debuglink {
	const char *name;
	uint32_t crc;
} debuglink;

static uint32_t file_crc32(const ds_elf *e)
{
	size_t size = 0;
	const char *p = elf_rawfile(e->elf, &size);
	uLong crc = crc32(0L, Z_NULL, 0);

	while (p && size) {
		uInt n = size > UINT_MAX ? UINT_MAX : (uInt)size;
		crc = crc32(crc, (const Bytef *)p, n);
		p += n;
		size -= n;
	}
	return (uint32_t)crc;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* A debug file is worth having when it adds symbols or lines. */
static bool useful(const ds_elf *e)
{
	GElf_Shdr shdr;
	Elf_Scn *symtab = ds_elf_section(e, ".symtab", &shdr, NULL);

	return (symtab && shdr.sh_type == SHT_SYMTAB) || ds_elf_has_dwarf(e);
}

/* Open path as d's debug file if it matches d; link is NULL when the path
 * came from the build-id. */
static bool try_debug(ds_dso *d, const char *path, const debuglink *link)
{
	uint8_t id[sizeof d->build_id];
	size_t idlen;
	bool match;
	ds_elf e;

	if (same_file(path, d->path) || ds_elf_open_file(&e, path, NULL) < 0)
		return false;
	idlen = ds_elf_build_id(&e, id, sizeof id);
	if (d->build_id_size && idlen)
		match = idlen == d->build_id_size && memcmp(id, d->build_id, idlen) == 0;
	else
		match = link && file_crc32(&e) == link->crc;
	if (!match) {
		ds_dso_set_note(d, "ignoring debug file '%s': it does not match '%s'", path, d->path);
		ds_elf_close(&e);
		return false;
	}
	if (!useful(&e)) {
		ds_elf_close(&e);
		return false;
	}
	d->debug = e;
	return true;
}

static bool by_build_id(ds_dso *d, const char *root)
{
	ds_buf p = {0};
	bool ok;

	if (d->build_id_size < 2)
		return false;
	ds_buf_printf(&p, "%s/.build-id/%02x/", root, d->build_id[0]);
	for (size_t i = 1; i < d->build_id_size; i++)
		ds_buf_printf(&p, "%02x", d->build_id[i]);
	ds_buf_puts(&p, ".debug");
	ok = try_debug(d, ds_buf_str(&p), NULL);
	ds_buf_free(&p);
	return ok;
}

/* .gnu_debuglink: a file name, NUL, padding to 4 bytes, then the CRC32 in
 * the file's byte order. */
static bool read_debuglink(const ds_dso *d, debuglink *link)
{
	GElf_Shdr shdr;
	size_t size, len, at;
	const char *p = ds_elf_section_data(ds_elf_section(&d->main, ".gnu_debuglink", &shdr, NULL),
					    &size);
	const uint8_t *c;

	if (!p)
		return false;
	len = strnlen(p, size);
	at = (len + 4) & ~(size_t)3;
	if (len == 0 || len == size || strchr(p, '/') || at + 4 > size)
		return false;
	c = (const uint8_t *)p + at;
	if (d->main.ehdr.e_ident[EI_DATA] == ELFDATA2MSB)
		link->crc = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
	else
		link->crc = (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 | (uint32_t)c[1] << 8 | c[0];
	link->name = p;
	return true;
}

static bool by_debuglink(ds_dso *d, const char *root)
{
	char *real = realpath(d->path, NULL), *slash, *dir;
	const char *fmts[] = {"%s/%s", "%s/.debug/%s", "%s%s/%s"};
	debuglink link;
	bool ok = false;

	if (!real || !read_debuglink(d, &link)) {
		free(real);
		return false;
	}
	slash = strrchr(real, '/');
	dir = ds_xstrndup(real, slash ? (size_t)(slash - real) : 0);
	for (size_t i = 0; i < 3 && !ok; i++) {
		char *path = i < 2 ? ds_xasprintf(fmts[i], dir, link.name)
				   : ds_xasprintf(fmts[i], root, dir, link.name);
		ok = try_debug(d, path, &link);
		free(path);
	}
	free(dir);
	free(real);
	return ok;
}

void ds_dso_find_debug_file(ds_dso *d, const char *debug_root, const char *first)
{
	const char *root = debug_root ? debug_root : "/usr/lib/debug";

	if ((!first || !try_debug(d, first, NULL)) && !by_build_id(d, root))
		by_debuglink(d, root);
}

static bool xz_decode(const uint8_t *in, size_t inlen, ds_buf *out)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r;

	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
		return false;
	s.next_in = in;
	s.avail_in = inlen;
	do {
		ds_buf_reserve(out, 1 << 16);
		s.next_out = (uint8_t *)out->p + out->len;
		s.avail_out = out->cap - out->len - 1;
		r = lzma_code(&s, LZMA_FINISH);
		out->len = out->cap - 1 - s.avail_out;
	} while (r == LZMA_OK && out->len < MINIDEBUG_MAX);
	lzma_end(&s);
	return r == LZMA_STREAM_END;
}

bool ds_dso_open_minidebug(ds_dso *d)
{
	GElf_Shdr shdr;
	size_t size;
	const uint8_t *p = ds_elf_section_data(ds_elf_section(&d->main, ".gnu_debugdata", &shdr, NULL),
					       &size);
	ds_buf out = {0};
	ds_err err;
	char *label;
	int rc;

	if (!p)
		return false;
	if (!xz_decode(p, size, &out)) {
		ds_dso_set_note(d, "cannot decompress .gnu_debugdata of '%s'", d->path);
		ds_buf_free(&out);
		return false;
	}
	label = ds_xasprintf("%s .gnu_debugdata", d->path);
	size = out.len;
	rc = ds_elf_open_mem(&d->mini, ds_buf_steal(&out), size, label, &err);
	free(label);
	if (rc < 0) {
		ds_dso_set_note(d, "%s", err.msg);
		return false;
	}
	return true;
}
