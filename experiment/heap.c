/*
 * Reading heap files (experiment/heapfile.h): the header, then the records
 * of every chunk, each checked before it is handed out.  A file cut short
 * (the recording killed while the kernel still held its pages, a disk that
 * filled) or damaged is read as far as its records are whole; what could
 * not be read is counted, for a note.
 */
#include "experiment/experiment.h"
#include "experiment/heapfile.h"
#include "experiment/pdread_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct ds_heapfile {
	char *path;
	const unsigned char *p;
	size_t size;
	ds_heap_info info;
	uint64_t bad_bytes;   /* of records that were not whole or not sound */
	bool cut;             /* its last chunk is not whole */
};

static uint16_t rd16(const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

int ds_heapfile_open(const char *path, ds_heapfile **out, ds_err *err)
{
	struct ds_heap_header h;
	struct stat st;
	ds_heapfile *f;
	int fd = ds_open_own(path, err);
	const void *p;

	*out = NULL;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof h) {
		close(fd);
		return ds_err_set(err, DS_EINPUT, "'%s' is no heap file: %s", path,
				  st.st_size < (off_t)sizeof h ? "too short for its header" : strerror(errno));
	}
	p = ds_map_file(fd, path, (size_t)st.st_size, err);
	close(fd);
	if (!p)
		return -1;
	memcpy(&h, p, sizeof h);
	if (memcmp(h.magic, DS_HEAP_MAGIC, 8) != 0 || h.version < 1 || h.version > DS_HEAP_VERSION ||
	    h.header_size != DS_HEAP_HEADER || h.chunk_size != DS_HEAP_CHUNK) {
		munmap((void *)p, (size_t)st.st_size);
		return ds_err_set(err, DS_EINPUT, "'%s' is no heap file of this dsprof (magic, version or layout "
				  "differ)", path);
	}
	f = ds_xcalloc(1, sizeof *f);
	f->path = ds_xstrdup(path);
	f->p = p;
	f->size = (size_t)st.st_size;
	f->info.pid = h.pid;
	f->info.ppid = h.ppid;
	f->info.start = h.start_ns;
	f->info.forked = (h.flags & DS_HEAP_F_FORKED) != 0;
	f->info.logical = (h.flags & DS_HEAP_F_LOGICAL) != 0;
	f->info.lost = (h.flags & DS_HEAP_F_LOST) != 0;
	f->info.max_frames = h.max_frames;
	f->info.mmap_min = h.mmap_min;
	f->cut = ((size_t)st.st_size - DS_HEAP_HEADER) % DS_HEAP_CHUNK != 0;
	h.exe[sizeof h.exe - 1] = 0;
	f->info.exe = ds_xstrdup(h.exe);
	*out = f;
	return 0;
}

void ds_heapfile_close(ds_heapfile *f)
{
	if (!f)
		return;
	munmap((void *)f->p, f->size);
	free(f->info.exe);
	free(f->path);
	free(f);
}

const ds_heap_info *ds_heapfile_info(const ds_heapfile *f)
{
	return &f->info;
}

const char *ds_heapfile_path(const ds_heapfile *f)
{
	return f->path;
}

uint64_t ds_heapfile_size(const ds_heapfile *f)
{
	return f->size;
}

uint64_t ds_heapfile_bad_bytes(const ds_heapfile *f)
{
	return f->bad_bytes;
}

bool ds_heapfile_cut(const ds_heapfile *f)
{
	return f->cut;
}

void ds_heapfile_drop(ds_heapfile *f, uint64_t off, uint64_t len)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), lo = (off + page - 1) / page * page, hi = off + len;

	if (hi > f->size)
		hi = f->size;
	hi = hi / page * page;
	if (lo < hi)
		madvise((void *)(f->p + lo), (size_t)(hi - lo), MADV_DONTNEED);
}

/* A short record's address and function. */
static bool addr_fn(ds_heap_rec *r, uint64_t v)
{
	r->addr = v & ((1ull << DS_HEAP_ADDR_BITS) - 1);
	r->fn = (unsigned)(v >> DS_HEAP_ADDR_BITS);
	return r->fn < DS_HEAP_NFN;
}

/* Whether the record at off (of its chunk, which ends at end) is sound;
 * fills r.  A short record is read against the cursor's base, which must
 * be its chunk's. */
static bool record_at(const ds_heapfile *f, size_t off, size_t end, const ds_heap_cursor *c,
		      ds_heap_rec *r)
{
	const unsigned char *p = f->p + off;
	uint16_t type, size;

	if (end - off < 8)
		return false;
	type = rd16(p);
	size = rd16(p + 2);
	if (size < 8 || size % 8 || size > end - off)
		return false;
	/* not the frames: a site sets the ones it has, and clearing all of
	 * them took two thirds of the time of a pass over a file */
	memset(r, 0, offsetof(ds_heap_rec, frames));
	r->type = type;
	r->size = size;
	if (type == DS_HEAP_SITE) {
		struct ds_heap_site s;
		size_t n = (size_t)(size - sizeof s) / 8;
		if (n < 1 || n > DS_HEAP_MAX_FRAMES)
			return false;
		memcpy(&s, p, sizeof s);
		r->site = s.site;
		r->nframes = (unsigned)n;
		memcpy(r->frames, p + sizeof s, n * 8);
		return s.site != 0;
	}
	if (type == DS_HEAP_ALLOC || type == DS_HEAP_FREE || type == DS_HEAP_EXIT || type == DS_HEAP_ENDS) {
		struct ds_heap_event e;
		if (size != sizeof e)
			return false;
		memcpy(&e, p, sizeof e);
		if (e.fn >= DS_HEAP_NFN)
			return false;
		r->fn = e.fn;
		r->tid = e.tid;
		r->site = e.site;
		r->time = e.time;
		r->addr = e.addr;
		r->bytes = e.bytes;
		return true;
	}
	if (type == DS_HEAP_BASE)
		return size == sizeof(struct ds_heap_base);
	if (type == DS_HEAP_TALLY)
		return size == sizeof(struct ds_heap_tally) &&
		       (off - DS_HEAP_HEADER) % DS_HEAP_CHUNK == DS_HEAP_TALLY_AT;
	if (type != DS_HEAP_SALLOC && type != DS_HEAP_SFREE)
		return false;
	if (c->base_chunk != (off - DS_HEAP_HEADER) / DS_HEAP_CHUNK * DS_HEAP_CHUNK + DS_HEAP_HEADER + 1)
		return false; /* no base before it in its chunk */
	r->tid = c->base_tid;
	r->time = c->base_time + (uint64_t)((unsigned __int128)rd32(p + 4) * c->base_mult >> 32);
	if (type == DS_HEAP_SFREE) {
		r->type = DS_HEAP_FREE;
		return size == sizeof(struct ds_heap_sfree) && addr_fn(r, rd64(p + 8));
	}
	r->type = DS_HEAP_ALLOC;
	r->site = rd32(p + 8);
	r->bytes = rd32(p + 12);
	return size == sizeof(struct ds_heap_salloc) && addr_fn(r, rd64(p + 16));
}

/* The next record before limit (a chunk's end, or the file's). */
static int next_before(ds_heapfile *f, ds_heap_cursor *c, ds_heap_rec *r, size_t limit)
{
	size_t off = c->off < DS_HEAP_HEADER ? DS_HEAP_HEADER : (size_t)c->off;

	if (limit > f->size)
		limit = f->size;
	while (off < limit) {
		size_t chunk = DS_HEAP_HEADER + (off - DS_HEAP_HEADER) / DS_HEAP_CHUNK * DS_HEAP_CHUNK;
		size_t end = chunk + DS_HEAP_CHUNK;
		if (end > f->size)
			end = f->size;
		if (end - off >= 2 && rd16(f->p + off) == DS_HEAP_END) {
			off = chunk + DS_HEAP_CHUNK; /* the chunk's end */
			continue;
		}
		if (!record_at(f, off, end, c, r)) {
			/* not whole, or not sound: the rest of the chunk is lost */
			f->bad_bytes += end - off;
			off = chunk + DS_HEAP_CHUNK;
			continue;
		}
		off += r->size;
		if (r->type == DS_HEAP_BASE) {
			c->base_tid = rd32(f->p + off - r->size + 4);
			c->base_time = rd64(f->p + off - r->size + 8);
			c->base_mult = rd64(f->p + off - r->size + 16);
			c->base_chunk = chunk + 1;
			continue;
		}
		if (r->type == DS_HEAP_TALLY)
			continue;
		c->off = off;
		return 1;
	}
	c->off = off;
	return 0;
}

int ds_heapfile_next(ds_heapfile *f, ds_heap_cursor *c, ds_heap_rec *r)
{
	return next_before(f, c, r, f->size);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ds_heap_list(const char *dir, char ***paths, size_t *n, ds_err *err)
{
	char *hd = ds_xasprintf("%s/heap", dir);
	DS_VEC(char *) v = {0};
	struct dirent *e;
	DIR *d = opendir(hd);

	*paths = NULL;
	*n = 0;
	if (!d) {
		int rc = errno == ENOENT || errno == ENOTDIR ? 0
			 : ds_err_set(err, DS_EENV, "cannot read '%s': %s", hd, strerror(errno));
		free(hd);
		return rc;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 5 && strcmp(e->d_name + len - 5, ".heap") == 0)
			ds_vec_push(&v, ds_xasprintf("%s/%s", hd, e->d_name));
	}
	closedir(d);
	free(hd);
	ds_sort(v.v, v.n, sizeof *v.v, cmp_str);
	*paths = v.v;
	*n = v.n;
	return 0;
}

/* The tally at the end of the whole chunk at off, if it has one (a chunk
 * cut short, or of a file of version 2 or older, has none). */
static bool tally_of(const ds_heapfile *f, size_t off, struct ds_heap_tally *t)
{
	struct ds_heap_tally c;

	if (f->size - off < DS_HEAP_CHUNK)
		return false;
	memcpy(&c, f->p + off + DS_HEAP_TALLY_AT, sizeof c);
	if (c.type != DS_HEAP_TALLY || c.size != sizeof c ||
	    (uint64_t)c.allocs + c.frees + c.sites > DS_HEAP_CHUNK / 8)
		return false;
	*t = c;
	return true;
}

/* Each chunk is summed from its tally, a page of it read, and read whole
 * only without one: record's summary of a malloc-heavy program's half a
 * gigabyte took it a third of a second longer than the program. */
int ds_heap_count(const char *dir, ds_heap_totals *t, ds_err *err)
{
	char **paths;
	size_t n;

	memset(t, 0, sizeof *t);
	if (ds_heap_list(dir, &paths, &n, err))
		return -1;
	for (size_t i = 0; i < n; i++) {
		ds_heapfile *f;
		if (!ds_heapfile_open(paths[i], &f, NULL)) {
			t->files++;
			for (size_t off = DS_HEAP_HEADER; off < f->size; off += DS_HEAP_CHUNK) {
				struct ds_heap_tally tl = {0};
				ds_heap_rec r;
				ds_heap_cursor cursor = {.off = off};
				if (!tally_of(f, off, &tl))
					while (next_before(f, &cursor, &r, off + DS_HEAP_CHUNK))
						ds_heap_tally_add(&tl, r.type);
				t->allocs += tl.allocs;
				t->frees += tl.frees;
				t->stacks += tl.sites;
			}
			t->bad_bytes += f->bad_bytes;
			t->cut += f->cut;
			ds_heapfile_close(f);
		}
		free(paths[i]);
	}
	free(paths);
	return 0;
}
