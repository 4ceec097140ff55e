/*
 * perf.data writer.
 *
 * The file is laid out as perf lays it out, so that `perf report -i` and
 * `perf script -i` read it without complaint:
 *
 *   header | ids of each attr | attrs (+ their ids sections) | data | feature index | features
 *
 * Records reach us already framed by the kernel; we only buffer them.  The
 * header's data size is rewritten on every flush, so a run that dies hard
 * leaves a file that is readable up to its last flush.
 */
#include "experiment/experiment.h"
#include "experiment/perf_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WRITE_BUF (4u << 20)
#define DIRECT_WRITE (64u << 10)

struct ds_pdw {
	int fd;
	char *path;
	struct pf_header hdr;
	ds_event *events; /* copies: names and ids are needed for EVENT_DESC */
	size_t nevents;
	uint64_t data_size;
	ds_buf pending;
};

static int pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	const char *c = p;
	while (n) {
		ssize_t k = pwrite(fd, c, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

static int io_fail(ds_pdw *w, ds_err *err, const char *what)
{
	return ds_err_set(err, DS_EENV, "cannot write '%s': %s while writing %s (is the disk full?)",
			  w->path, strerror(errno), what);
}

size_t ds_sample_id_size(const struct perf_event_attr *a)
{
	size_t n = 0;
	uint64_t t = a->sample_type;
	if (!a->sample_id_all)
		return 0;
	if (t & PERF_SAMPLE_TID) n += 8;
	if (t & PERF_SAMPLE_TIME) n += 8;
	if (t & PERF_SAMPLE_ID) n += 8;
	if (t & PERF_SAMPLE_STREAM_ID) n += 8;
	if (t & PERF_SAMPLE_CPU) n += 8;
	if (t & PERF_SAMPLE_IDENTIFIER) n += 8;
	return n;
}

void ds_sample_id_append(ds_buf *rec, const struct perf_event_attr *a, uint32_t pid,
			 uint32_t tid, uint64_t time, uint64_t id, uint32_t cpu)
{
	uint64_t t = a->sample_type;
	if (!a->sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID) {
		uint32_t v[2] = {pid, tid};
		ds_buf_append(rec, v, 8);
	}
	if (t & PERF_SAMPLE_TIME)
		ds_buf_append(rec, &time, 8);
	if (t & PERF_SAMPLE_ID)
		ds_buf_append(rec, &id, 8);
	if (t & PERF_SAMPLE_STREAM_ID)
		ds_buf_append(rec, &id, 8);
	if (t & PERF_SAMPLE_CPU) {
		uint32_t v[2] = {cpu, 0};
		ds_buf_append(rec, v, 8);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		ds_buf_append(rec, &id, 8);
}

ds_pdw *ds_pdw_create(ds_wdir *dir, const char *name, bool tmp, const ds_event *events, size_t nevents,
		      ds_err *err)
{
	ds_pdw *w;
	ds_buf head = {0};
	uint64_t off, ids_off;
	const size_t attr_sz = sizeof(struct perf_event_attr);
	int fd = tmp ? ds_wdir_create_tmp(dir, name, O_RDWR, err) : ds_wdir_create(dir, name, O_RDWR, err);

	if (fd < 0)
		return NULL;
	w = ds_xcalloc(1, sizeof *w);
	w->fd = fd;
	w->path = ds_wdir_join(dir, name);
	if (tmp) {
		char *t = ds_xasprintf("%s.tmp", w->path);
		free(w->path);
		w->path = t;
	}
	w->nevents = nevents;
	w->events = ds_xcalloc(nevents ? nevents : 1, sizeof *w->events);
	for (size_t i = 0; i < nevents; i++) {
		w->events[i] = events[i];
		w->events[i].name = ds_xstrdup(events[i].name);
		w->events[i].attr.size = attr_sz;
		w->events[i].ids = ds_xcalloc(events[i].nids ? events[i].nids : 1, sizeof(uint64_t));
		if (events[i].nids)
			memcpy(w->events[i].ids, events[i].ids, events[i].nids * sizeof(uint64_t));
	}

	/* ids arrays first, right after the header, then the attrs that point at them */
	ds_buf_append(&head, &w->hdr, sizeof w->hdr);
	ids_off = sizeof w->hdr;
	off = ids_off;
	for (size_t i = 0; i < nevents; i++) {
		ds_buf_append(&head, w->events[i].ids, w->events[i].nids * 8);
		off += w->events[i].nids * 8;
	}
	w->hdr.magic = PF_MAGIC;
	w->hdr.size = sizeof w->hdr;
	w->hdr.attr_size = attr_sz + sizeof(struct pf_section);
	w->hdr.attrs.offset = off;
	w->hdr.attrs.size = nevents * w->hdr.attr_size;
	for (size_t i = 0, io = ids_off; i < nevents; i++) {
		struct pf_section ids = {io, w->events[i].nids * 8};
		ds_buf_append(&head, &w->events[i].attr, attr_sz);
		ds_buf_append(&head, &ids, sizeof ids);
		io += ids.size;
	}
	while (head.len % 8)
		ds_buf_putc(&head, 0);
	w->hdr.data.offset = head.len;
	w->hdr.data.size = 0;
	memcpy(head.p, &w->hdr, sizeof w->hdr);
	if (pwrite_all(w->fd, head.p, head.len, 0) < 0) {
		char *made = tmp ? ds_xasprintf("%s.tmp", name) : ds_xstrdup(name);
		io_fail(w, err, "the header");
		ds_buf_free(&head);
		ds_pdw_abort(w);
		ds_wdir_unlink(dir, made, NULL);
		free(made);
		return NULL;
	}
	ds_buf_free(&head);
	return w;
}

/* n bytes of records into the file after those written. */
static int write_records(ds_pdw *w, const void *p, size_t n, ds_err *err)
{
	if (n && pwrite_all(w->fd, p, n, w->hdr.data.offset + w->data_size) < 0)
		return io_fail(w, err, "records");
	w->data_size += n;
	return 0;
}

static int write_pending(ds_pdw *w, ds_err *err)
{
	if (write_records(w, w->pending.p, w->pending.len, err))
		return -1;
	ds_buf_reset(&w->pending);
	return 0;
}

int ds_pdw_flush(ds_pdw *w, ds_err *err)
{
	if (write_pending(w, err))
		return -1;
	if (w->hdr.data.size != w->data_size) {
		w->hdr.data.size = w->data_size;
		if (pwrite_all(w->fd, &w->hdr, sizeof w->hdr, 0) < 0)
			return io_fail(w, err, "the header");
	}
	return 0;
}

int ds_pdw_write(ds_pdw *w, const void *data, size_t len, ds_err *err)
{
	/* a run of records this large (a ring buffer's, while recording) goes
	 * into the file from where it is: stack copies make hundreds of MB, and
	 * a copy of them more costs a memory-bound target its bandwidth */
	if (len >= DIRECT_WRITE)
		return write_pending(w, err) || write_records(w, data, len, err) ? -1 : 0;
	ds_buf_append(&w->pending, data, len);
	if (w->pending.len >= WRITE_BUF)
		return ds_pdw_flush(w, err);
	return 0;
}

uint64_t ds_pdw_data_size(const ds_pdw *w)
{
	return w->data_size + w->pending.len;
}

static void put_string(ds_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t padded = (uint32_t)((n + PF_NAME_ALIGN - 1) / PF_NAME_ALIGN * PF_NAME_ALIGN);
	static const char zeros[PF_NAME_ALIGN];
	ds_buf_append(b, &padded, 4);
	ds_buf_append(b, s, n);
	ds_buf_append(b, zeros, padded - n);
}

static void put_u32(ds_buf *b, uint32_t v) { ds_buf_append(b, &v, 4); }
static void put_u64(ds_buf *b, uint64_t v) { ds_buf_append(b, &v, 8); }

typedef struct feature {
	int bit;
	ds_buf data;
} feature;

static int cmp_feature(const void *a, const void *b)
{
	return ((const feature *)a)->bit - ((const feature *)b)->bit;
}

/* The sections of info->features_from that the others do not replace. */
static int carry_features(const ds_pdw_info *info, feature *feat, int nf)
{
	int n = nf;

	if (!info->features_from)
		return nf;
	for (int bit = 0; bit < PF_FEAT_BITS && n < PF_FEAT_BITS; bit++) {
		const void *p;
		size_t len;
		bool have = false;
		for (int i = 0; i < nf && !have; i++)
			have = feat[i].bit == bit;
		if (have || !(p = ds_perfdata_feature(info->features_from, bit, &len)))
			continue;
		feat[n].bit = bit;
		ds_buf_append(&feat[n++].data, p, len);
	}
	return n;
}

int ds_pdw_finish(ds_pdw *w, const ds_pdw_info *info, ds_err *err)
{
	feature feat[PF_FEAT_BITS];
	int nf = 0;
	ds_buf idx = {0}, all = {0};
	uint64_t off;
	int rc = -1;

	if (ds_pdw_flush(w, err))
		goto out;
	memset(feat, 0, sizeof feat);
#define FEAT(b) (feat[nf].bit = (b), &feat[nf++].data)
	if (info->nbuild_ids)
		ds_build_id_feature_put(FEAT(PF_FEAT_BUILD_ID), info->build_ids, info->nbuild_ids);
	if (info->hostname)
		put_string(FEAT(PF_FEAT_HOSTNAME), info->hostname);
	if (info->osrelease)
		put_string(FEAT(PF_FEAT_OSRELEASE), info->osrelease);
	if (info->version)
		put_string(FEAT(PF_FEAT_VERSION), info->version);
	if (info->arch)
		put_string(FEAT(PF_FEAT_ARCH), info->arch);
	if (info->nr_cpus_online) {
		ds_buf *b = FEAT(PF_FEAT_NRCPUS);
		put_u32(b, info->nr_cpus_avail ? info->nr_cpus_avail : info->nr_cpus_online);
		put_u32(b, info->nr_cpus_online);
	}
	if (info->cpudesc)
		put_string(FEAT(PF_FEAT_CPUDESC), info->cpudesc);
	if (info->cpuid)
		put_string(FEAT(PF_FEAT_CPUID), info->cpuid);
	if (info->total_mem_kb)
		put_u64(FEAT(PF_FEAT_TOTAL_MEM), info->total_mem_kb);
	if (info->argc > 0) {
		ds_buf *b = FEAT(PF_FEAT_CMDLINE);
		put_u32(b, (uint32_t)info->argc);
		for (int i = 0; i < info->argc; i++)
			put_string(b, info->argv[i]);
	}
	{
		ds_buf *b = FEAT(PF_FEAT_EVENT_DESC);
		put_u32(b, (uint32_t)w->nevents);
		put_u32(b, (uint32_t)sizeof(struct perf_event_attr));
		for (size_t i = 0; i < w->nevents; i++) {
			ds_buf_append(b, &w->events[i].attr, sizeof(struct perf_event_attr));
			put_u32(b, (uint32_t)w->events[i].nids);
			put_string(b, w->events[i].name);
			ds_buf_append(b, w->events[i].ids, w->events[i].nids * 8);
		}
	}
	if (info->first_sample_time || info->last_sample_time) {
		ds_buf *b = FEAT(PF_FEAT_SAMPLE_TIME);
		put_u64(b, info->first_sample_time);
		put_u64(b, info->last_sample_time);
	}
	if (info->clockid >= 0) {
		ds_buf *b = FEAT(PF_FEAT_CLOCKID);
		struct timespec res;
		put_u64(b, clock_getres(info->clockid, &res) == 0
				   ? (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec : 1);
		b = FEAT(PF_FEAT_CLOCK_DATA);
		put_u32(b, 1); /* version */
		put_u32(b, (uint32_t)info->clockid);
		put_u64(b, info->clock_wall_ns);
		put_u64(b, info->clock_ref_ns);
	}
#undef FEAT
	nf = carry_features(info, feat, nf);
	qsort(feat, (size_t)nf, sizeof *feat, cmp_feature);

	/* the index follows the data; features follow the index, in bit order */
	off = w->hdr.data.offset + w->data_size + (uint64_t)nf * sizeof(struct pf_section);
	for (int i = 0; i < nf; i++) {
		struct pf_section s = {off, feat[i].data.len};
		ds_buf_append(&idx, &s, sizeof s);
		ds_buf_append(&all, feat[i].data.p, feat[i].data.len);
		off += feat[i].data.len;
		w->hdr.features[feat[i].bit / 64] |= 1ull << (feat[i].bit % 64);
	}
	ds_buf_append(&idx, all.p, all.len);
	if (pwrite_all(w->fd, idx.p, idx.len, w->hdr.data.offset + w->data_size) < 0 ||
	    pwrite_all(w->fd, &w->hdr, sizeof w->hdr, 0) < 0) {
		io_fail(w, err, "the feature sections");
		goto out;
	}
	if (ftruncate(w->fd, (off_t)(w->hdr.data.offset + w->data_size + idx.len)) < 0 ||
	    fsync(w->fd) < 0) {
		io_fail(w, err, "the end of the file");
		goto out;
	}
	rc = 0;
out:
	for (int i = 0; i < nf; i++)
		ds_buf_free(&feat[i].data);
	ds_buf_free(&idx);
	ds_buf_free(&all);
	ds_pdw_abort(w);
	return rc;
}

void ds_pdw_abort(ds_pdw *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	for (size_t i = 0; i < w->nevents; i++) {
		free(w->events[i].name);
		free(w->events[i].ids);
	}
	free(w->events);
	ds_buf_free(&w->pending);
	free(w->path);
	free(w);
}
