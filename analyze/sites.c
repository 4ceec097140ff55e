/*
 * Naming unique instructions: the function, instruction, disassembly and
 * source line of a site, as rows of code are named, so that every view and
 * dimension names them the same way.  What they name is looked up once
 * per site (ds_site_resolve).
 */
#include "analyze/analyze_int.h"

#include <inttypes.h>

fkey site_fkey(ds_session *s, size_t i)
{
	const site *st;
	fkey k = {0, 0, 0};
	ds_site_resolve(s, i, false);
	st = &s->sites.v[i];
	k.dso = st->dso;
	if (st->sym) {
		k.known = 1;
		k.start = st->sym->start;
	}
	return k;
}

bool fkey_eq(const fkey *a, const fkey *b)
{
	return a->dso == b->dso && a->known == b->known && a->start == b->start;
}

const char *site_fname(const ds_session *s, size_t i)
{
	const site *st = &s->sites.v[i];
	if (st->sym)
		return st->sym->name;
	return s->dsos.v[st->dso].kernel ? "[kernel]" : "[unknown]";
}

void site_label(ds_session *s, size_t i, ds_buf *name)
{
	const site *st;

	ds_site_resolve(s, i, false);
	st = &s->sites.v[i];
	ds_buf_reset(name);
	if (st->sym)
		ds_buf_printf(name, "%s+0x%" PRIx64, st->sym->name, st->vaddr - st->sym->start);
	else
		ds_buf_printf(name, "%s 0x%" PRIx64, site_fname(s, i), st->has_vaddr ? st->vaddr : st->off);
}

size_t site_disasm(ds_session *s, size_t i, char *text, size_t n)
{
	const site *st = &s->sites.v[i];
	const dso_ent *d = &s->dsos.v[st->dso];
	const uint8_t *code;
	size_t avail;

	text[0] = 0;
	if (!st->has_vaddr || d->kernel || !d->dso)
		return 0;
	code = ds_dso_code_at(d->dso, st->vaddr, &avail);
	if (!code)
		return 0;
	if (!s->dec && !(s->dec = ds_decoder_new(ds_arch_host(), NULL)))
		return 0;
	return ds_decode_text(s->dec, code, avail, st->vaddr, text, n);
}

void site_line_name(ds_session *s, size_t i, ds_buf *key, ds_buf *name)
{
	const site *st;

	ds_site_resolve(s, i, true);
	st = &s->sites.v[i];
	ds_buf_reset(key);
	ds_buf_reset(name);
	if (st->file) {
		const char *base = strrchr(st->file, '/');
		ds_buf_printf(key, "L%s:%u", st->file, st->line);
		ds_buf_printf(name, "%s:%u", base ? base + 1 : st->file, st->line);
	} else {
		/* no line table: one row per function, so the time is not lost */
		fkey k = site_fkey(s, i);
		ds_buf_printf(key, "F%u:%u:%" PRIx64, k.dso, k.known, k.start);
		ds_buf_printf(name, "%s (no line info)", site_fname(s, i));
	}
}
