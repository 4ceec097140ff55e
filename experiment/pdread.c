/*
 * perf.data reader.
 *
 * The file is mapped read-only and every structure is bounds-checked before
 * it is used.  Both the file layout (PERFILE2 with attrs and feature
 * sections) and the pipe layout (`perf record -o -`, attrs as HEADER_ATTR
 * records) are accepted.  Only a file whose header or attrs cannot be read
 * is refused: a damaged one is read as far as it is whole (pdscan.c finds
 * the whole records and counts what is lost), a feature section outside the
 * file is left unread, and a sample whose fields do not end where its
 * record does is dropped and counted against its event.
 */
#include "experiment/pdread_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Newer than our kernel headers: a u64 per branch entry follows the stack. */
#define BRANCH_COUNTERS_BIT (1ull << 19)
/* Newer than our kernel headers: the sample's AUX area snapshot (u64 size, data). */
#define SAMPLE_AUX_BIT (1ull << 20)
/* Every sample_type bit whose field this reader knows the size of. */
#define SAMPLE_KNOWN_BITS ((1ull << 25) - 1)

static int corrupt(const ds_perfdata *pd, ds_err *err, uint64_t off, const char *what)
{
	return ds_err_set(err, DS_EINPUT,
			  "cannot read '%s': corrupt perf.data at byte %llu: %s",
			  pd->label, (unsigned long long)off, what);
}

static int truncated(const ds_perfdata *pd, ds_err *err, uint64_t have, uint64_t want)
{
	return ds_err_set(err, DS_EINPUT,
			  "cannot read '%s': truncated at byte %llu (expected %llu); "
			  "the recording was cut short or the copy is incomplete",
			  pd->label, (unsigned long long)have, (unsigned long long)want);
}

static bool in_file(const ds_perfdata *pd, uint64_t off, uint64_t len)
{
	return off <= pd->size && len <= pd->size - off;
}

/* ---- attrs and ids ---- */

static void add_event(ds_perfdata *pd, const unsigned char *attr_bytes, size_t sz,
		      const unsigned char *ids, size_t nids)
{
	ds_event ev = {0};
	size_t ours = sizeof ev.attr;
	memcpy(&ev.attr, attr_bytes, sz < ours ? sz : ours);
	ev.attr.size = (uint32_t)ours;
	ev.nids = nids;
	ev.ids = ds_xcalloc(nids ? nids : 1, 8);
	memcpy(ev.ids, ids, nids * 8);
	ds_vec_push(&pd->events, ev);
}

/* A perf_event_attr at p (file offset off, for messages) whose own size
 * field says how long it is, within limit bytes. */
static int attr_len(const ds_perfdata *pd, const unsigned char *p, uint64_t limit, uint64_t off,
		    size_t *sz, ds_err *err)
{
	uint32_t s;
	if (limit < PERF_ATTR_SIZE_VER0)
		return corrupt(pd, err, off, "event attribute is too short");
	s = rd32(p + offsetof(struct perf_event_attr, size));
	if (s == 0)
		s = PERF_ATTR_SIZE_VER0;
	if (s < PERF_ATTR_SIZE_VER0 || s > 4096 || s > limit)
		return corrupt(pd, err, off, "event attribute has an impossible size");
	*sz = s;
	return 0;
}

static int index_ids(ds_perfdata *pd, ds_err *err)
{
	if (pd->events.n == 0)
		return ds_err_set(err, DS_EINPUT, "cannot read '%s': the file describes no events",
				  pd->label);
	pd->id_index = ds_hash_new();
	pd->dmg.samples = ds_xcalloc(pd->events.n, sizeof *pd->dmg.samples);
	pd->dmg.bad_samples = ds_xcalloc(pd->events.n, sizeof *pd->dmg.bad_samples);
	pd->sample_id_all = pd->events.v[0].attr.sample_id_all;
	for (size_t i = 0; i < pd->events.n; i++) {
		const ds_event *e = &pd->events.v[i];
		for (size_t k = 0; k < e->nids; k++) {
			bool added;
			ds_hash_intern(pd->id_index, &e->ids[k], 8, &added);
			if (added)
				ds_vec_push(&pd->id_event, (int)i);
		}
	}
	/* perf requires the id at one place in every record; so do we */
	{
		uint64_t t = pd->events.v[0].attr.sample_type;
		if (t & PERF_SAMPLE_IDENTIFIER) {
			pd->id_pos = 0;
			pd->is_pos = 1;
		} else if (t & PERF_SAMPLE_ID) {
			int pos = 0;
			if (t & PERF_SAMPLE_IP) pos++;
			if (t & PERF_SAMPLE_TID) pos++;
			if (t & PERF_SAMPLE_TIME) pos++;
			if (t & PERF_SAMPLE_ADDR) pos++;
			pd->id_pos = pos;
			pos = 1;
			if (t & PERF_SAMPLE_CPU) pos++;
			if (t & PERF_SAMPLE_STREAM_ID) pos++;
			pd->is_pos = pos;
		} else {
			pd->id_pos = pd->is_pos = -1;
		}
	}
	if (pd->events.n > 1 && pd->id_pos < 0)
		return ds_err_set(err, DS_EINPUT,
				  "cannot read '%s': %zu events but samples carry no event id "
				  "(recorded without PERF_SAMPLE_ID)", pd->label, pd->events.n);
	for (size_t i = 1; i < pd->events.n; i++) {
		uint64_t a = pd->events.v[0].attr.sample_type, b = pd->events.v[i].attr.sample_type;
		if ((a & PERF_SAMPLE_IDENTIFIER) != (b & PERF_SAMPLE_IDENTIFIER) ||
		    (!(a & PERF_SAMPLE_IDENTIFIER) &&
		     (a & (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID)) !=
			     (b & (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID))))
			return ds_err_set(err, DS_EINPUT,
					  "cannot read '%s': events place their sample ids differently",
					  pd->label);
	}
	return 0;
}

static int event_of_id(const ds_perfdata *pd, uint64_t id)
{
	int64_t k;
	if (pd->events.n == 1)
		return 0;
	k = ds_hash_find(pd->id_index, &id, 8);
	if (k >= 0)
		return pd->id_event.v[k];
	return id == 0 ? 0 : -1; /* synthesized records carry id 0 */
}

/* ---- features ---- */

static char *feat_string(const unsigned char *p, uint64_t len, uint64_t *used)
{
	uint32_t n;
	if (len < 4)
		return NULL;
	n = rd32(p);
	if (n > len - 4)
		return NULL;
	*used = 4 + (uint64_t)n;
	return ds_xstrndup((const char *)p + 4, strnlen((const char *)p + 4, n));
}

/* A size as sysfs writes it ("32K", "1024K", "16M"). */
static uint64_t cache_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K': return v << 10;
	case 'M': return v << 20;
	case 'G': return v << 30;
	default: return v;
	}
}

/* A level as meta.json holds it (experiment/meta.c reads it back): one
 * that cannot be is none, and a count of sets or ways that cannot be, or
 * that does not make the size, is unknown; else an import wrote what every
 * report of it then calls impossible. */
static bool cache_sound(ds_cache_level *c)
{
	bool typed = !strcmp(c->type, "Data") || !strcmp(c->type, "Instruction") || !strcmp(c->type, "Unified");

	if (c->level < 1 || c->level > 4 || !typed || c->size < 1 || c->size > 1ull << 40 || c->line < 8 ||
	    c->line > 4096 || (c->line & (c->line - 1)))
		return false;
	if (c->ways > 1u << 16)
		c->ways = 0;
	if (c->sets > 1u << 30 || (c->ways && c->sets && (uint64_t)c->ways * c->sets * c->line != c->size))
		c->sets = 0;
	return true;
}

/* HEADER_CACHE: u32 version (1, or 2 with a u32 instance id after the
 * level), u32 count, then per cache u32 level, [id,] line size, sets, ways
 * and the strings type, size and the cpulist that shares it.  Kept: the
 * levels CPU 0 uses (a cpulist naming CPU 0 starts with 0), as meta.json
 * keeps them. */
static void feat_cache(ds_perfdata_header_info *in, const unsigned char *p, uint64_t len)
{
	uint32_t version, n;
	uint64_t off = 8, used;

	if (len < 8)
		return;
	version = rd32(p);
	n = rd32(p + 4);
	if (version != 1 && version != 2)
		return;
	in->ncaches = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v[5], nv = version == 2 ? 5 : 4;
		char *str[3] = {0};
		int k;
		if (len - off < nv * 4ull)
			return;
		for (uint32_t j = 0; j < nv; j++)
			v[j] = rd32(p + off + 4 * j);
		off += nv * 4ull;
		for (k = 0; k < 3 && (str[k] = feat_string(p + off, len - off, &used)); k++)
			off += used;
		if (k == 3 && (str[2][0] == '0' && (!str[2][1] || str[2][1] == ',' || str[2][1] == '-')) &&
		    in->ncaches < (int)(sizeof in->caches / sizeof *in->caches)) {
			ds_cache_level *c = &in->caches[in->ncaches++];
			memset(c, 0, sizeof *c);
			c->level = (int)v[0];
			c->line = v[nv - 3];
			c->sets = v[nv - 2];
			c->ways = v[nv - 1];
			snprintf(c->type, sizeof c->type, "%s", str[0]);
			c->size = cache_size(str[1]);
			snprintf(c->shared_cpus, sizeof c->shared_cpus, "%s", str[2]);
			in->ncaches -= !cache_sound(c);
		}
		for (int j = 0; j < 3; j++)
			free(str[j]);
		if (k < 3)
			return;
	}
}

static void parse_feature(ds_perfdata *pd, int bit, const unsigned char *p, uint64_t len)
{
	ds_perfdata_header_info *in = &pd->info;
	uint64_t used = 0;
	char **dst = NULL;

	switch (bit) {
	case PF_FEAT_HOSTNAME: dst = &in->hostname; break;
	case PF_FEAT_OSRELEASE: dst = &in->osrelease; break;
	case PF_FEAT_VERSION: dst = &in->version; break;
	case PF_FEAT_ARCH: dst = &in->arch; break;
	case PF_FEAT_CPUDESC: dst = &in->cpudesc; break;
	case PF_FEAT_CPUID: dst = &in->cpuid; break;
	case PF_FEAT_BUILD_ID:
		ds_build_id_feature_parse(p, len, &pd->build_ids, &pd->nbuild_ids);
		return;
	case PF_FEAT_NRCPUS:
		if (len >= 8) {
			in->nr_cpus_avail = rd32(p);
			in->nr_cpus_online = rd32(p + 4);
		}
		/* more than meta.json takes (experiment/meta.c): unknown */
		if (in->nr_cpus_online > 65536)
			in->nr_cpus_online = 0;
		return;
	case PF_FEAT_TOTAL_MEM:
		if (len >= 8)
			in->total_mem_kb = rd64(p);
		return;
	case PF_FEAT_SAMPLE_TIME:
		/* a last sample before the first: neither is known */
		if (len >= 16 && rd64(p) <= rd64(p + 8)) {
			in->first_sample_time = rd64(p);
			in->last_sample_time = rd64(p + 8);
		}
		return;
	case PF_FEAT_CLOCK_DATA:
		if (len >= 24) {
			in->clockid = (int)rd32(p + 4);
			in->clock_wall_ns = rd64(p + 8);
			in->clock_ref_ns = rd64(p + 16);
		}
		return;
	case PF_FEAT_CMDLINE:
		if (len >= 4) {
			uint32_t n = rd32(p);
			uint64_t off = 4;
			ds_buf b = {0};
			for (uint32_t i = 0; i < n && off < len; i++) {
				char *s = feat_string(p + off, len - off, &used);
				if (!s)
					break;
				if (i)
					ds_buf_putc(&b, ' ');
				ds_buf_puts(&b, s);
				free(s);
				off += used;
			}
			free(in->cmdline);
			in->cmdline = ds_buf_steal(&b);
		}
		return;
	case PF_FEAT_CACHE:
		feat_cache(in, p, len);
		return;
	case PF_FEAT_EVENT_DESC:
		/* names for the attrs, matched by their first id (or by order) */
		if (len >= 8) {
			uint32_t n = rd32(p), asz = rd32(p + 4);
			uint64_t off = 8;
			if (asz < PERF_ATTR_SIZE_VER0 || asz > 4096)
				return;
			for (uint32_t i = 0; i < n; i++) {
				uint32_t nids;
				char *name;
				if (len - off < (uint64_t)asz + 4)
					return;
				off += asz;
				nids = rd32(p + off);
				off += 4;
				name = feat_string(p + off, len - off, &used);
				if (!name)
					return;
				off += used;
				if ((uint64_t)nids > (len - off) / 8) {
					free(name);
					return;
				}
				size_t target = i;
				if (nids) {
					uint64_t id0 = rd64(p + off);
					for (size_t e = 0; e < pd->events.n; e++)
						if (pd->events.v[e].nids && pd->events.v[e].ids[0] == id0)
							target = e;
				}
				if (target < pd->events.n && !pd->events.v[target].name)
					pd->events.v[target].name = name;
				else
					free(name);
				off += (uint64_t)nids * 8;
			}
		}
		return;
	default:
		return;
	}
	if (dst) {
		char *s = feat_string(p, len, &used);
		if (s) {
			free(*dst);
			*dst = s;
		}
	}
}

/* The feature sections: each one inside the file is read, each one
 * outside it (a cut file, a corrupt size or offset) is named as lost. */
static void read_features(ds_perfdata *pd, const struct pf_header *h)
{
	uint64_t off = h->data.offset + h->data.size;
	bool lost = off < h->data.offset; /* a size that wraps around */

	for (int bit = 0; bit < PF_FEAT_BITS; bit++) {
		struct pf_section sec;
		if (!(h->features[bit / 64] & (1ull << (bit % 64))))
			continue;
		if (lost || !in_file(pd, off, sizeof sec)) {
			pd->dmg.features_lost[bit / 64] |= 1ull << (bit % 64);
			continue;
		}
		memcpy(&sec, pd->img + off, sizeof sec);
		off += sizeof sec;
		if (!in_file(pd, sec.offset, sec.size)) {
			pd->dmg.features_lost[bit / 64] |= 1ull << (bit % 64);
		} else {
			pd->feat[bit] = sec;
			parse_feature(pd, bit, pd->img + sec.offset, sec.size);
		}
	}
}

static int parse_file_header(ds_perfdata *pd, ds_err *err)
{
	struct pf_header h;
	uint64_t nattrs, off, avail;

	if (pd->size < sizeof h)
		return truncated(pd, err, pd->size, sizeof h);
	memcpy(&h, pd->img, sizeof h);
	if (h.size < sizeof h)
		return corrupt(pd, err, 8, "header size is smaller than the PERFILE2 header");
	if (h.attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct pf_section) || h.attr_size > 4096)
		return corrupt(pd, err, 16, "impossible attribute size");
	if (h.attrs.size % h.attr_size)
		return corrupt(pd, err, 24, "attribute section is not a whole number of attributes");
	if (!in_file(pd, h.attrs.offset, h.attrs.size))
		return truncated(pd, err, pd->size, h.attrs.offset + h.attrs.size);
	nattrs = h.attrs.size / h.attr_size;
	off = h.attrs.offset;
	for (uint64_t i = 0; i < nattrs; i++) {
		size_t sz;
		struct pf_section ids;
		if (attr_len(pd, pd->img + off, h.attrs.offset + h.attrs.size - off, off, &sz, err))
			return -1;
		if (off + sz + sizeof ids > h.attrs.offset + h.attrs.size)
			return corrupt(pd, err, off, "attribute runs past the attribute section");
		memcpy(&ids, pd->img + off + sz, sizeof ids);
		if (ids.size % 8 || !in_file(pd, ids.offset, ids.size))
			return corrupt(pd, err, off + sz, "attribute ids lie outside the file");
		add_event(pd, pd->img + off, sz, pd->img + ids.offset, ids.size / 8);
		off += sz + sizeof ids;
	}
	if (h.data.offset < sizeof h)
		return corrupt(pd, err, 40, "the data section starts inside the header");
	/* what lies past the end of the file is lost, the rest is read */
	pd->data_off = h.data.offset < pd->size ? h.data.offset : pd->size;
	pd->data = pd->img + pd->data_off;
	avail = pd->size - pd->data_off;
	if (h.data.size == 0 && avail) {
		/* a recording that never finished: read what is there */
		pd->data_size = avail;
		pd->info.data_size_recovered = true;
		return 0;
	}
	if (h.data.size > avail || h.data.offset > pd->size) {
		pd->data_size = avail;
		pd->dmg.bytes_cut = h.data.offset > pd->size ? h.data.size : h.data.size - avail;
	} else {
		pd->data_size = h.data.size;
	}
	read_features(pd, &h);
	return 0;
}

/* A pipe's EVENT_UPDATE record naming an event (by one of its ids). */
static void event_update_name(ds_perfdata *pd, const unsigned char *r, uint16_t size)
{
	uint64_t id = rd64(r + 16);
	for (size_t e = 0; e < pd->events.n; e++) {
		ds_event *ev = &pd->events.v[e];
		for (size_t k = 0; k < ev->nids; k++)
			if (ev->ids[k] == id && !ev->name)
				ev->name = ds_xstrndup((const char *)r + 24, strnlen((const char *)r + 24, size - 24u));
	}
}

/* Pipe mode: attrs, names and features arrive as records before the
 * kernel's; a HEADER_ATTR that cannot be read is left out (its samples
 * then name no event and are counted as such).  Build-ids may come later
 * too ('perf inject -b' puts each before the first sample that needs it). */
static void parse_pipe_header(ds_perfdata *pd)
{
	uint64_t off = 0;
	bool kernel = false;

	pd->info.pipe_mode = true;
	pd->data_off = sizeof(struct pf_pipe_header);
	pd->data = pd->img + pd->data_off;
	pd->data_size = pd->size - pd->data_off;
	pd_scan(pd);
	while (off < pd->data_size) {
		const pd_gap *g = pd_gap_at(pd, off);
		const unsigned char *r = pd->data + off;
		uint64_t ext;
		uint32_t type;
		uint16_t size;
		size_t sz;
		ds_err ignored = {0};

		if (g) {
			off = g->end;
			continue;
		}
		ext = pd_extent(pd->data, pd->data_size, off);
		if (!ext)
			break;
		type = rd32(r);
		memcpy(&size, r + 6, 2);
		if (type == PF_RECORD_HEADER_BUILD_ID) {
			ds_build_id_feature_parse(r, size, &pd->build_ids, &pd->nbuild_ids);
		} else if (kernel || type < PF_RECORD_HEADER_ATTR) {
			kernel = true; /* kernel records: the attrs are all known by now */
		} else if (type == PF_RECORD_HEADER_ATTR) {
			if (attr_len(pd, r + 8, size - 8u, off, &sz, &ignored) == 0)
				add_event(pd, r + 8, sz, r + 8 + sz, (size - 8 - sz) / 8);
		} else if (type == PF_RECORD_EVENT_UPDATE && size >= 24 &&
			   rd64(r + 8) == PF_EVENT_UPDATE_NAME) {
			event_update_name(pd, r, size);
		} else if (type == PF_RECORD_HEADER_FEATURE && size >= 16) {
			parse_feature(pd, (int)rd64(r + 8), r + 16, size - 16u);
		}
		off += ext;
	}
}

static int open_image(ds_perfdata *pd, ds_err *err)
{
	uint64_t magic;

	pd->info.clockid = -1;
	if (pd->size < 16)
		return ds_err_set(err, DS_EINPUT,
				  "cannot read '%s': %zu bytes is too short for a perf.data file",
				  pd->label, pd->size);
	magic = rd64(pd->img);
	if (magic == PF_MAGIC_SWAPPED)
		return ds_err_set(err, DS_EINPUT,
				  "cannot read '%s': recorded on a big-endian machine; convert it there "
				  "with 'perf inject' or analyze it on that machine", pd->label);
	if (magic != PF_MAGIC)
		return ds_err_set(err, DS_EINPUT,
				  "cannot read '%s': not a perf.data file (no PERFILE2 magic)", pd->label);
	if (rd64(pd->img + 8) == sizeof(struct pf_pipe_header)) {
		parse_pipe_header(pd);
	} else {
		if (parse_file_header(pd, err))
			return -1;
		pd_scan(pd);
	}
	for (size_t i = 0; i < pd->events.n; i++)
		if (!pd->events.v[i].name)
			pd->events.v[i].name = ds_attr_perf_name(&pd->events.v[i].attr);
	return index_ids(pd, err);
}

/* pd->img holds the file; `mapped`: mapped from it, ours to unmap. */
static int open_mem(const void *data, size_t size, const char *label, bool mapped, ds_perfdata **out,
		    ds_err *err)
{
	ds_perfdata *pd = ds_xcalloc(1, sizeof *pd);
	pd->label = ds_xstrdup(label);
	pd->img = data;
	pd->size = size;
	pd->mapped = mapped;
	pd->released = pd->img;
	if (open_image(pd, err)) {
		ds_perfdata_close(pd);
		return -1;
	}
	*out = pd;
	return 0;
}

int ds_perfdata_open_mem(const void *data, size_t size, const char *label, ds_perfdata **out,
			 ds_err *err)
{
	return open_mem(data, size, label, false, out, err);
}

int ds_perfdata_open(const char *path, ds_perfdata **out, ds_err *err)
{
	int fd = ds_open_regular(path, err);
	struct stat st;
	const void *img;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return ds_err_set(err, DS_EENV, "cannot open '%s': %s", path, strerror(errno));
	}
	if (st.st_size == 0) {
		close(fd);
		return ds_err_set(err, DS_EINPUT,
				  "cannot read '%s': the file is empty (the recording never started?)",
				  path);
	}
	img = ds_map_file(fd, path, (size_t)st.st_size, err);
	close(fd);
	if (!img)
		return -1;
	madvise((void *)img, (size_t)st.st_size, MADV_SEQUENTIAL);
	return open_mem(img, (size_t)st.st_size, path, true, out, err); /* unmaps it on failure */
}

void ds_perfdata_close(ds_perfdata *pd)
{
	if (!pd)
		return;
	for (size_t i = 0; i < pd->events.n; i++) {
		free(pd->events.v[i].name);
		free(pd->events.v[i].ids);
	}
	ds_vec_free(&pd->events);
	ds_hash_free(pd->id_index);
	ds_vec_free(&pd->id_event);
	if (pd->mapped)
		munmap((void *)pd->img, pd->size);
	if (pd->own)
		munmap(pd->own, pd->own_size);
	ds_vec_free(&pd->gaps);
	ds_vec_free(&pd->sideband);
	free(pd->dmg.samples);
	free(pd->dmg.bad_samples);
	free(pd->info.hostname);
	free(pd->info.osrelease);
	free(pd->info.version);
	free(pd->info.arch);
	free(pd->info.cpudesc);
	free(pd->info.cpuid);
	free(pd->info.cmdline);
	ds_build_ids_free(pd->build_ids, pd->nbuild_ids);
	free(pd->label);
	free(pd);
}

size_t ds_perfdata_nevents(const ds_perfdata *pd) { return pd->events.n; }
const ds_event *ds_perfdata_event(const ds_perfdata *pd, size_t i) { return &pd->events.v[i]; }
const ds_perfdata_header_info *ds_perfdata_info(const ds_perfdata *pd) { return &pd->info; }
uint64_t ds_perfdata_data_size(const ds_perfdata *pd) { return pd->data_size; }
uint64_t ds_perfdata_cursor_pos(const ds_perfdata *pd, uint64_t cursor) { (void)pd; return cursor; }

const void *ds_perfdata_image(const ds_perfdata *pd, size_t *size)
{
	*size = pd->size;
	return pd->img;
}

const ds_build_id *ds_perfdata_build_ids(const ds_perfdata *pd, size_t *n)
{
	*n = pd->nbuild_ids;
	return pd->build_ids;
}

const void *ds_perfdata_feature(const ds_perfdata *pd, int bit, size_t *len)
{
	if (bit < 0 || bit >= PF_FEAT_BITS || !pd->feat[bit].size)
		return NULL;
	*len = pd->feat[bit].size;
	return pd->img + pd->feat[bit].offset;
}

/* ---- records ---- */

typedef struct rdr {
	const unsigned char *p, *end;
	bool bad;
} rdr;

static uint64_t take64(rdr *r)
{
	uint64_t v = 0;
	if (r->end - r->p < 8) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	memcpy(&v, r->p, 8);
	r->p += 8;
	return v;
}

static const unsigned char *take(rdr *r, uint64_t n)
{
	const unsigned char *p = r->p;
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return NULL;
	}
	r->p += n;
	return p;
}

/* A sample's fields, in the kernel's order (perf_output_sample).  Returns
 * -1 when they do not fit the record: evidx is -1 when the sample names no
 * event, else the sample does not match its event's attr (its fields do
 * not end where the record does; with sample_type bits this reader does
 * not know, only running past the end is seen). */
static int parse_sample(const ds_perfdata *pd, ds_record *rec, const unsigned char *body, size_t len)
{
	rdr r = {body, body + len, false};
	ds_sample *s = &rec->u.sample;
	const struct perf_event_attr *a;
	uint64_t t, id = 0;
	int ev;

	rec->evidx = -1;
	if (pd->id_pos >= 0) {
		if ((size_t)(pd->id_pos + 1) * 8 > len)
			return -1;
		id = rd64(body + pd->id_pos * 8);
	}
	ev = event_of_id(pd, id);
	if (ev < 0)
		return -1;
	rec->evidx = ev;
	a = &pd->events.v[ev].attr;
	t = a->sample_type;
	memset(s, 0, sizeof *s);
	s->type = t;
	s->id = id;
	/* a fixed period is the attr's, unless the sample says otherwise */
	if (!a->freq)
		s->period = a->sample_period;
	if (t & PERF_SAMPLE_IDENTIFIER) take64(&r);
	if (t & PERF_SAMPLE_IP) s->ip = take64(&r);
	if (t & PERF_SAMPLE_TID) {
		uint64_t v = take64(&r);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (t & PERF_SAMPLE_TIME) s->time = take64(&r);
	if (t & PERF_SAMPLE_ADDR) s->addr = take64(&r);
	if (t & PERF_SAMPLE_ID) take64(&r);
	if (t & PERF_SAMPLE_STREAM_ID) take64(&r);
	if (t & PERF_SAMPLE_CPU) s->cpu = (uint32_t)take64(&r);
	if (t & PERF_SAMPLE_PERIOD) s->period = take64(&r);
	if (t & PERF_SAMPLE_READ) {
		uint64_t rf = a->read_format, per = 1;
		if (rf & PERF_FORMAT_ID) per++;
		if (rf & PERF_FORMAT_LOST) per++;
		if (rf & PERF_FORMAT_GROUP) {
			uint64_t nr = take64(&r);
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) take64(&r);
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) take64(&r);
			if (nr > len / 8 / per)
				r.bad = true;
			else
				take(&r, nr * per * 8);
		} else {
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) take64(&r);
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) take64(&r);
			take(&r, per * 8);
		}
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = take64(&r);
		if (nr > len / 8)
			r.bad = true;
		else {
			s->callchain = (const uint64_t *)take(&r, nr * 8);
			s->nr_callchain = s->callchain ? nr : 0;
		}
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t n = 0;
		const unsigned char *p = take(&r, 4);
		if (p)
			n = rd32(p);
		take(&r, n);
		/* raw data is padded so that the sample stays u64-aligned */
		while (!r.bad && ((uintptr_t)(r.p - body) % 8))
			take(&r, 1);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = take64(&r), per = 3;
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			take64(&r);
		if (a->branch_sample_type & BRANCH_COUNTERS_BIT)
			per = 4;
		if (nr > len / 8 / per)
			r.bad = true;
		else
			take(&r, nr * per * 8);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		s->regs_abi = take64(&r);
		if (s->regs_abi) {
			s->regs_mask = a->sample_regs_user;
			s->regs = (const uint64_t *)take(&r, (uint64_t)__builtin_popcountll(s->regs_mask) * 8);
			if (!s->regs)
				s->regs_abi = 0;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		const unsigned char *field = r.p;
		uint64_t n = take64(&r);
		if (n > len) {
			r.bad = true;
		} else if (n) {
			s->stack = take(&r, n);
			s->stack_size = take64(&r);
			if (s->stack_size > n)
				s->stack_size = n; /* never more than was copied */
			if (!s->stack)
				s->stack_size = 0;
		}
		s->stack_field = field;
		s->stack_field_len = (uint32_t)(r.p - field);
	}
	if (t & PERF_SAMPLE_WEIGHT) {
		s->weight = take64(&r);
	} else if (t & PERF_SAMPLE_WEIGHT_STRUCT) {
		/* u32 latency, u16 instruction latency, u16 retire latency */
		s->weight = (uint32_t)take64(&r);
	}
	if (t & PERF_SAMPLE_DATA_SRC) s->data_src = take64(&r);
	if (t & PERF_SAMPLE_TRANSACTION) take64(&r);
	if (t & PERF_SAMPLE_REGS_INTR) {
		if (take64(&r))
			take(&r, (uint64_t)__builtin_popcountll(a->sample_regs_intr) * 8);
	}
	if (t & PERF_SAMPLE_PHYS_ADDR) s->phys_addr = take64(&r);
	if (t & PERF_SAMPLE_CGROUP) take64(&r);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE) s->data_page_size = take64(&r);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE) s->code_page_size = take64(&r);
	if (t & SAMPLE_AUX_BIT) {
		uint64_t n = take64(&r);
		if (n > len)
			r.bad = true;
		else
			take(&r, n);
	}
	if (r.bad || (!(t & ~SAMPLE_KNOWN_BITS) && r.p != r.end))
		return -1;
	rec->time = s->time;
	rec->cpu = s->cpu;
	return 0;
}

/* The sample_id trailer of a non-sample record: which event, when, where. */
static void parse_trailer(const ds_perfdata *pd, ds_record *rec, const unsigned char *body,
			  size_t len, size_t fixed)
{
	const struct perf_event_attr *a;
	uint64_t id = 0, t;
	size_t n;
	rdr r;

	rec->evidx = -1;
	if (!pd->sample_id_all) {
		rec->evidx = pd->events.n == 1 ? 0 : -1;
		return;
	}
	if (pd->is_pos > 0 && len >= fixed + (size_t)pd->is_pos * 8)
		id = rd64(body + len - (size_t)pd->is_pos * 8);
	rec->evidx = event_of_id(pd, id);
	if (rec->evidx < 0)
		return;
	a = &pd->events.v[rec->evidx].attr;
	n = ds_sample_id_size(a);
	if (len < fixed + n)
		return;
	r.p = body + len - n;
	r.end = body + len;
	r.bad = false;
	t = a->sample_type;
	if (t & PERF_SAMPLE_TID) take64(&r);
	if (t & PERF_SAMPLE_TIME) rec->time = take64(&r);
	if (t & PERF_SAMPLE_ID) take64(&r);
	if (t & PERF_SAMPLE_STREAM_ID) take64(&r);
	if (t & PERF_SAMPLE_CPU) rec->cpu = (uint32_t)take64(&r);
}

/* A NUL-terminated string starting at p inside [p, end). */
static const char *record_string(const unsigned char *p, const unsigned char *end)
{
	if (p >= end || !memchr(p, 0, (size_t)(end - p)))
		return NULL;
	return (const char *)p;
}

/* Decode the record at data offset off: 1 when it matches its type, 0
 * when it does not (dropped). */
static int decode(ds_perfdata *pd, uint64_t off, ds_record *rec)
{
	const unsigned char *h = pd->data + off, *body;
	uint32_t type = rd32(h);
	uint16_t size;
	size_t blen;

	memcpy(&size, h + 6, 2);
	memset(rec, 0, sizeof *rec);
	rec->offset = pd->own ? off : pd->data_off + off;
	rec->type = type;
	memcpy(&rec->misc, h + 4, 2);
	rec->raw = h;
	rec->size = size;
	rec->evidx = -1;
	body = h + 8;
	blen = size - 8u;

	switch (type) {
	case PERF_RECORD_SAMPLE:
		rec->kind = DS_REC_SAMPLE;
		return parse_sample(pd, rec, body, blen) == 0;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		ds_rec_mmap *m = &rec->u.mmap;
		size_t fixed = type == PERF_RECORD_MMAP ? 32 : 64;
		if (blen < fixed + 1)
			return 0;
		rec->kind = DS_REC_MMAP;
		m->pid = rd32(body);
		m->tid = rd32(body + 4);
		m->start = rd64(body + 8);
		m->len = rd64(body + 16);
		m->pgoff = rd64(body + 24);
		m->mmap2 = type == PERF_RECORD_MMAP2;
		if (m->mmap2) {
			if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				m->has_build_id = true;
				m->build_id_size = body[32] > 20 ? 20 : body[32];
				memcpy(m->build_id, body + 36, 20);
			} else {
				m->maj = rd32(body + 32);
				m->min = rd32(body + 36);
				m->ino = rd64(body + 40);
				m->ino_generation = rd64(body + 48);
			}
			m->prot = rd32(body + 56);
			m->flags = rd32(body + 60);
		}
		m->executable = !(rec->misc & PERF_RECORD_MISC_MMAP_DATA);
		m->filename = record_string(body + fixed, body + blen);
		if (!m->filename)
			return 0;
		parse_trailer(pd, rec, body, blen, fixed + strlen(m->filename) + 1);
		return 1;
	}
	case PERF_RECORD_COMM:
		if (blen < 9)
			return 0;
		rec->kind = DS_REC_COMM;
		rec->u.comm.pid = rd32(body);
		rec->u.comm.tid = rd32(body + 4);
		rec->u.comm.exec = rec->misc & PERF_RECORD_MISC_COMM_EXEC;
		rec->u.comm.comm = record_string(body + 8, body + blen);
		if (!rec->u.comm.comm)
			return 0;
		parse_trailer(pd, rec, body, blen, 8 + strlen(rec->u.comm.comm) + 1);
		return 1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (blen < 24)
			return 0;
		rec->kind = type == PERF_RECORD_FORK ? DS_REC_FORK : DS_REC_EXIT;
		rec->u.task.pid = rd32(body);
		rec->u.task.ppid = rd32(body + 4);
		rec->u.task.tid = rd32(body + 8);
		rec->u.task.ptid = rd32(body + 12);
		rec->u.task.time = rd64(body + 16);
		parse_trailer(pd, rec, body, blen, 24);
		if (!rec->time)
			rec->time = rec->u.task.time;
		return 1;
	case PERF_RECORD_LOST:
		if (blen < 16)
			return 0;
		rec->kind = DS_REC_LOST;
		rec->u.lost.id = rd64(body);
		rec->u.lost.lost = rd64(body + 8);
		parse_trailer(pd, rec, body, blen, 16);
		return 1;
	case PERF_RECORD_LOST_SAMPLES:
		if (blen < 8)
			return 0;
		rec->kind = DS_REC_LOST_SAMPLES;
		rec->u.lost.lost = rd64(body);
		parse_trailer(pd, rec, body, blen, 8);
		return 1;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (blen < 24)
			return 0;
		rec->kind = type == PERF_RECORD_THROTTLE ? DS_REC_THROTTLE : DS_REC_UNTHROTTLE;
		rec->u.throttle.time = rd64(body);
		rec->u.throttle.id = rd64(body + 8);
		rec->u.throttle.stream_id = rd64(body + 16);
		parse_trailer(pd, rec, body, blen, 24);
		if (!rec->time)
			rec->time = rec->u.throttle.time;
		return 1;
	default:
		rec->kind = DS_REC_OTHER;
		if (type < PF_RECORD_HEADER_ATTR)
			parse_trailer(pd, rec, body, blen, 0);
		return 1;
	}
}

/* Released in steps this large: one madvise per step, and the pages just
 * read (which the caller may still look at) are never among them. */
#define RELEASE_STEP (4u << 20)

/* The mapping's pages are the file's: a pass in order lets go of those it
 * left behind, so that a recording larger than memory is read in a window
 * of it, not in its size of resident memory.  Nothing is lost: the mapping
 * is read-only and private, so a page let go is the file's page again when
 * it is next touched (from the page cache while memory lasts). */
void pd_release(ds_perfdata *pd, const unsigned char *at)
{
	uintptr_t page, to;

	if (!pd->mapped || at < pd->img || at > pd->img + pd->size)
		return;
	if (at < pd->released) { /* a new pass: madvise wants a page's start */
		pd->released = pd->img;
		return;
	}
	if ((uintptr_t)(at - pd->released) < 2 * RELEASE_STEP)
		return;
	page = (uintptr_t)sysconf(_SC_PAGESIZE);
	to = ((uintptr_t)at - RELEASE_STEP) & ~(page - 1);
	madvise((void *)pd->released, to - (uintptr_t)pd->released, MADV_DONTNEED);
	pd->released = (const unsigned char *)to;
}

int ds_perfdata_next(ds_perfdata *pd, uint64_t *cursor, ds_record *rec, ds_err *err)
{
	(void)err; /* damage is counted, never an error */
	for (;;) {
		uint64_t off = *cursor, ext;
		const pd_gap *g;
		int ok;

		if (off >= pd->data_size) {
			pd_count_end(pd, off);
			return 0;
		}
		if (pd->gaps.n && (g = pd_gap_at(pd, off))) {
			pd_count_gap(pd, g);
			*cursor = g->end;
			continue;
		}
		pd_release(pd, pd->data + off);
		/* the scan found a whole record at every offset a pass reaches */
		ext = pd_extent(pd->data, pd->data_size, off);
		if (!ext)
			return 0;
		*cursor = off + ext;
		/* the next header, from memory while the caller works on this one */
		__builtin_prefetch(pd->data + *cursor);
		ok = decode(pd, off, rec);
		pd_count_record(pd, off, *cursor, rec, ok);
		if (ok)
			return 1;
	}
}

int ds_perfdata_next_nonsample(ds_perfdata *pd, uint64_t *cursor, ds_record *rec, ds_err *err)
{
	if (pd->sideband_ok) {
		/* the scan listed them: no sample's header is read again (each
		 * one a miss, on an experiment larger than the cache) */
		size_t lo = 0, hi = pd->sideband.n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (pd->sideband.v[mid] < *cursor)
				lo = mid + 1;
			else
				hi = mid;
		}
		*cursor = lo < pd->sideband.n ? pd->sideband.v[lo] : pd->data_size;
		return ds_perfdata_next(pd, cursor, rec, err);
	}
	/* a sample's size is in its header, and the scan vouched for it */
	while (*cursor + 8 <= pd->data_size && !(pd->gaps.n && pd_gap_at(pd, *cursor))) {
		const unsigned char *h = pd->data + *cursor;
		uint16_t size;
		memcpy(&size, h + 6, 2);
		if (rd32(h) != PERF_RECORD_SAMPLE || size < 8 || size > pd->data_size - *cursor)
			break;
		*cursor += size;
	}
	return ds_perfdata_next(pd, cursor, rec, err);
}
