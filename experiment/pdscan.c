/*
 * Where the whole records of a perf.data are, and what the file lost.
 *
 * A record is read when its header is sound (a known type range, a size
 * that covers the header, is a multiple of 8 for the kernel's records and
 * stays inside the data) and the header after it is sound too, or the data
 * ends exactly there.  When the next header is not sound, reading resumes
 * at the next offset where a run of sound headers starts (or stops when
 * there is none: a cut), and the record before stands if that run starts
 * past its end.  (A corrupt size that happens to land on a sound header
 * cannot be told from a true one; the record's own fields then fail to
 * match its type, and it is dropped and counted.)  The stretches skipped are kept as gaps, so
 * that every pass over the records skips the same bytes, and counted.
 *
 * Records compressed by `perf record -z` (PERF_RECORD_COMPRESSED, and
 * COMPRESSED2 with its data size) are pieces of one zstd stream, and a
 * record may span two of them: the data is decompressed once, here, into
 * memory, and read from there.  The same copy is made when a record is not
 * 8-aligned in memory (after a record of perf's own that is no multiple of 8
 * bytes long, a pipe's TRACING_DATA; or where reading resumed after a
 * corrupt stretch), so that every record is 8-aligned as the kernel wrote
 * them and their u64 fields can be read in place.
 */
#include "experiment/pdread_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <zstd.h>

/* Sound headers a resync wants in a row (or the end of the data). */
#define RESYNC_RUN 4
/* Decompressed data past this many times the data's size is taken as a
 * corrupt stream (perf's ratios are below 20); the address space reserved
 * for the copy. */
#define MAX_RATIO 256

/* The record at off of the `have` bytes of data seen so far: 1 with *ext
 * when it is whole and its header sound, 0 when more bytes are needed to
 * tell, -1 when its header cannot be a record's. */
static int header_at(const unsigned char *d, uint64_t have, uint64_t off, uint64_t *ext)
{
	uint32_t type;
	uint16_t sz;
	uint64_t extra = 0;

	if (have - off < 8)
		return 0;
	type = rd32(d + off);
	memcpy(&sz, d + off + 6, 2);
	/* the kernel's types are below 64, perf's own below 128 */
	if (type == 0 || type >= 128 || sz < 8 || (type < PF_RECORD_HEADER_ATTR && sz % 8))
		return -1;
	if (sz > have - off)
		return 0;
	/* payloads that follow the record, outside its size */
	if (type == PF_RECORD_AUXTRACE && sz >= 16)
		extra = rd64(d + off + 8);
	else if (type == PF_RECORD_HEADER_TRACING_DATA && sz >= 12)
		extra = rd32(d + off + 8);
	if (extra > have - off - sz)
		return 0;
	*ext = sz + extra;
	return 1;
}

uint64_t pd_extent(const unsigned char *d, uint64_t size, uint64_t off)
{
	uint64_t ext;
	return off <= size && header_at(d, size, off, &ext) == 1 ? ext : 0;
}

/* The first offset from `from` where RESYNC_RUN sound headers follow each
 * other (or run to the end); size when there is none. */
static uint64_t resync(const unsigned char *d, uint64_t size, uint64_t from)
{
	for (uint64_t q = from; q + 8 <= size; q++) {
		uint64_t p = q;
		int k;
		for (k = 0; k < RESYNC_RUN && p < size; k++) {
			uint64_t e = pd_extent(d, size, p);
			if (!e)
				break;
			p += e;
		}
		if (k == RESYNC_RUN || p == size)
			return q;
	}
	return size;
}

/* Whether the bytes from off to the end are the start of a record cut
 * short (a sound header whose size runs past the end, or less than a
 * header), rather than bytes that are no record at all. */
static bool cut_record(const unsigned char *d, uint64_t size, uint64_t off)
{
	uint32_t type;
	uint16_t sz;
	if (size - off < 8)
		return true;
	type = rd32(d + off);
	memcpy(&sz, d + off + 6, 2);
	return type && type < 128 && sz >= 8 && sz > size - off;
}

/* List the gaps of [d, d + size) in pd->gaps and count their bytes; the
 * bytes of whole records go to *whole.  Says whether the records must be
 * copied before they are read: zstd records are in it, or a record is not
 * 8-aligned (its u64 fields could not be read in place). */
static bool find_gaps(ds_perfdata *pd, const unsigned char *d, uint64_t size, uint64_t *whole)
{
	uint64_t off = 0;
	bool copy = false;

	pd->sideband.n = 0;
	pd->gaps.n = 0;
	while (off < size) {
		uint64_t ext = pd_extent(d, size, off), next, bad;
		pd_release(pd, d + off);
		if (ext) {
			uint32_t type = rd32(d + off);
			if (type != PERF_RECORD_SAMPLE)
				ds_vec_push(&pd->sideband, off);
			/* a record not 8-aligned in memory: after a record of odd
			 * length, a resync inside a corrupt stretch, a data section
			 * at an odd offset */
			copy |= type == PF_RECORD_COMPRESSED || type == PF_RECORD_COMPRESSED2 || ext % 8 ||
				(uintptr_t)(d + off) % 8;
		}
		if (ext && (off + ext == size || pd_extent(d, size, off + ext))) {
			*whole += ext;
			off += ext;
			continue;
		}
		/* this record or the next is corrupt: this one stands when the
		 * next sound run starts past its end */
		next = resync(d, size, off + 1);
		bad = off;
		if (ext && next >= off + ext) {
			*whole += ext;
			bad = off + ext;
		}
		ds_vec_push(&pd->gaps, ((pd_gap){bad, next}));
		if (next == size && cut_record(d, size, bad)) {
			pd->dmg.bytes_cut += size - bad;
		} else if (next == size) {
			pd->dmg.bytes_trailing += size - bad;
		} else {
			pd->dmg.bytes_corrupt += next - bad;
			pd->dmg.corrupt_stretches++;
		}
		off = next;
	}
	return copy;
}

const pd_gap *pd_gap_at(const ds_perfdata *pd, uint64_t off)
{
	size_t lo = 0, hi = pd->gaps.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pd->gaps.v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pd->gaps.n && pd->gaps.v[lo].off == off ? &pd->gaps.v[lo] : NULL;
}

/* The copy: written once, front to back, into address space reserved for
 * the most it may hold, so that it never moves while it grows (a gigabyte
 * moved, or read back after it was written, costs more than decoding it);
 * its records are checked as they arrive, while they are in the cache, so
 * that the gaps need a pass of their own only when a header is not sound. */
typedef struct growing {
	unsigned char *p;
	uint64_t len, cap;
	uint64_t checked; /* the records before this offset are whole and sound */
	bool unsound;
	bool unaligned; /* a record of odd length among them (inflated as it is) */
	bool limited;   /* cap is less than the most the data may hold */
} growing;

/* Reserve the most the copy may hold, or, when the address space is
 * limited (ulimit -v), as much of it as the limit allows down to the
 * data's own size: a copy that then fills is noted with the limit. */
static void reserve(growing *g, uint64_t data_size)
{
	uint64_t least = data_size + 4096;

	for (g->cap = least * MAX_RATIO; g->cap >= least; g->cap /= 2) {
		g->p = mmap(NULL, g->cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			    -1, 0);
		if (g->p != MAP_FAILED) {
			g->limited = g->cap < least * MAX_RATIO;
			madvise(g->p, g->cap, MADV_HUGEPAGE);
			return;
		}
	}
	g->p = NULL;
	g->cap = 0;
	g->limited = true;
}

/* Whether a record could not be copied because the limited reservation is full. */
static bool out_of_room(const growing *g)
{
	return g->limited && g->len == g->cap;
}

static void check_new(growing *g)
{
	uint64_t ext;
	int r;
	while (!g->unsound && (r = header_at(g->p, g->len, g->checked, &ext)))
		if (r < 0)
			g->unsound = true;
		else {
			g->unaligned |= ext % 8 != 0;
			g->checked += ext;
		}
}

/* Append n bytes (NULL: zeros); false when the reservation is full. */
static bool put(growing *g, const void *src, uint64_t n)
{
	if (n > g->cap - g->len)
		return false;
	if (src)
		memcpy(g->p + g->len, src, n);
	else
		memset(g->p + g->len, 0, n);
	g->len += n;
	return true;
}

/* Whether a record can be copied so that the next one starts 8-aligned:
 * not one of perf's own of odd length whose u16 size has no room for the
 * padding (no type perf writes is that long; such a record is skipped, and
 * counted, rather than leave every record after it unaligned). */
static bool alignable(const unsigned char *r, uint64_t ext)
{
	uint16_t sz;
	memcpy(&sz, r + 6, 2);
	return !(ext % 8) || rd32(r) < PF_RECORD_HEADER_ATTR || sz + (8 - sz % 8) % 8 <= UINT16_MAX;
}

/* Copy a record so that the next one starts 8-aligned: a record of perf's
 * own whose length is no multiple of 8 (a pipe's TRACING_DATA header is 12
 * bytes, some older HEADER_FEATUREs are odd) gets zeros after its size, or
 * after its payload, and a size that says so.  The record is alignable(). */
static bool append_aligned(growing *g, const unsigned char *r, uint64_t ext)
{
	uint16_t sz;
	uint64_t start = g->len, pad_sz, pad_ext;

	memcpy(&sz, r + 6, 2);
	pad_sz = (8 - sz % 8) % 8;
	if (!(ext % 8) || rd32(r) < PF_RECORD_HEADER_ATTR)
		return put(g, r, ext);
	pad_ext = (8 - (ext + pad_sz) % 8) % 8;
	if (!put(g, r, sz) || !put(g, NULL, pad_sz) || !put(g, r + sz, ext - sz) || !put(g, NULL, pad_ext))
		return false;
	sz = (uint16_t)(sz + pad_sz);
	memcpy(g->p + start + 6, &sz, 2);
	/* a payload grows by the padding after it */
	if (pad_ext && rd32(r) == PF_RECORD_HEADER_TRACING_DATA) {
		uint32_t n = rd32(r + 8) + (uint32_t)pad_ext;
		memcpy(g->p + start + 8, &n, 4);
	} else if (pad_ext) {
		uint64_t n = rd64(r + 8) + pad_ext;
		memcpy(g->p + start + 8, &n, 8);
	}
	return true;
}

/* Feed one compressed record to the stream, a block at a time; -1 when it
 * does not decode or the reservation is full. */
static int inflate_into(ZSTD_DStream *z, const unsigned char *src, size_t n, growing *g)
{
	ZSTD_inBuffer in = {src, n, 0};

	if (g->len == g->cap)
		return -1;
	for (;;) {
		size_t room = g->cap - g->len < ZSTD_DStreamOutSize() ? g->cap - g->len : ZSTD_DStreamOutSize();
		ZSTD_outBuffer o = {g->p + g->len, room, 0};
		size_t r = ZSTD_decompressStream(z, &o, &in);
		if (ZSTD_isError(r))
			return -1;
		g->len += o.pos;
		check_new(g);
		if (in.pos == in.size && o.pos < o.size)
			return 0;
		if (g->len == g->cap)
			return -1;
	}
}

/* The data with every compressed record replaced by what it holds (when
 * `inflate`; else copied as it is), and every record 8-aligned, in pd->own. */
static void copy_records(ds_perfdata *pd, growing *g, bool inflate)
{
	unsigned char *old = pd->own;
	uint64_t old_size = pd->own_size;
	ZSTD_DStream *z = ZSTD_createDStream();
	uint64_t off = 0;
	bool broken = !z || ZSTD_isError(ZSTD_initDStream(z));

	/* address space only: pages are taken as they are written */
	reserve(g, pd->data_size);
	while (off < pd->data_size) {
		const pd_gap *gap = pd_gap_at(pd, off);
		uint64_t ext;
		uint32_t type;
		uint16_t sz;

		if (gap) {
			off = gap->end;
			continue;
		}
		pd_release(pd, pd->data + off);
		ext = pd_extent(pd->data, pd->data_size, off);
		type = rd32(pd->data + off);
		memcpy(&sz, pd->data + off + 6, 2);
		if (inflate && (type == PF_RECORD_COMPRESSED || type == PF_RECORD_COMPRESSED2)) {
			const unsigned char *src = pd->data + off + 8;
			uint64_t n = sz - 8u;
			if (type == PF_RECORD_COMPRESSED2) {
				/* header, u64 data size, data, padding to 8 */
				n = sz >= 16 ? rd64(pd->data + off + 8) : UINT64_MAX;
				src += 8;
				if (n > sz - 16u)
					broken = true;
			}
			if (!broken && inflate_into(z, src, n, g) < 0)
				broken = true;
			if (broken && out_of_room(g))
				pd->dmg.bytes_no_room += ext;
			else if (broken)
				pd->dmg.bytes_undecoded += ext;
			pd->info.compressed = true;
		} else if (!alignable(pd->data + off, ext)) {
			pd->dmg.bytes_unaligned += ext;
		} else if (append_aligned(g, pd->data + off, ext)) {
			check_new(g);
		} else if (out_of_room(g)) {
			pd->dmg.bytes_no_room += ext;
		} else {
			pd->dmg.bytes_undecoded += ext;
		}
		off += ext;
	}
	ZSTD_freeDStream(z);
	pd->own = g->p;
	pd->own_size = g->cap;
	pd->data = g->p;
	pd->data_size = g->len;
	if (old)
		munmap(old, old_size);
}

void pd_scan(ds_perfdata *pd)
{
	uint64_t inner = 0;
	growing g = {0};

	if (!find_gaps(pd, pd->data, pd->data_size, &pd->bytes_whole)) {
		/* read in place: the side-band records are where the scan saw them */
		pd->sideband_ok = !pd->gaps.n;
		return;
	}
	copy_records(pd, &g, true);
	/* the decompressed stream may hold damage, or end inside a record (a
	 * cut file); reading resumes after damage where it can, maybe not
	 * 8-aligned: then the records are copied once more, aligned, without
	 * the damage (compressed records inside decompressed data are not
	 * perf's: they stay as they are) */
	pd->gaps.n = 0;
	if ((g.unsound || g.unaligned || g.checked != pd->data_size) && find_gaps(pd, pd->data, pd->data_size, &inner)) {
		growing again = {0};
		copy_records(pd, &again, false);
		pd->gaps.n = 0;
	}
}

/* ---- counting, on the first pass over every record ---- */

static void saw_time(ds_perfdata *pd, uint64_t t)
{
	ds_perfdata_damage *d = &pd->dmg;
	if (!t)
		return;
	if (!d->first_time || t < d->first_time)
		d->first_time = t;
	if (t > d->last_time)
		d->last_time = t;
	/* a gap ends at the first record after it that is later than the
	 * latest before it: records of different CPUs are not in time order,
	 * so the next one may be a little earlier */
	if (pd->gap_time_before && t > pd->gap_time_before) {
		d->gap_time += t - pd->gap_time_before;
		pd->gap_time_before = 0;
		pd->gap_bytes_open = 0;
	}
}

void pd_count_gap(ds_perfdata *pd, const pd_gap *g)
{
	if (g->off != pd->counted)
		return;
	pd->counted = g->end;
	pd->gap_time_before = pd->dmg.last_time;
	pd->gap_bytes_open += g->end - g->off;
	pd->dmg.complete = pd->counted >= pd->data_size;
}

void pd_count_record(ds_perfdata *pd, uint64_t off, uint64_t end, const ds_record *r, bool ok)
{
	ds_perfdata_damage *d = &pd->dmg;

	if (off != pd->counted)
		return;
	pd->counted = end;
	d->complete = end >= pd->data_size;
	if (r->type == PF_RECORD_AUXTRACE && r->size >= 16)
		d->aux_bytes += rd64((const unsigned char *)r->raw + 8);
	else if (r->type == PF_RECORD_AUXTRACE_INFO && r->size >= 12)
		d->aux_type = rd32((const unsigned char *)r->raw + 8);
	if (r->kind == DS_REC_SAMPLE) {
		if (r->evidx < 0) {
			d->orphan_samples++;
			return;
		}
		d->samples[r->evidx]++;
		d->bad_samples[r->evidx] += !ok;
	} else if (!ok) {
		d->bad_records++;
	}
	if (ok)
		saw_time(pd, r->time);
}

void pd_count_end(ds_perfdata *pd, uint64_t off)
{
	if (off == pd->counted)
		pd->dmg.complete = true;
}

const ds_perfdata_damage *ds_perfdata_damage_of(const ds_perfdata *pd)
{
	return &pd->dmg;
}

/* ---- notes ---- */

static const char *const feature_names[] = {
	[1] = "tracing_data", [2] = "build_id", [3] = "hostname", [4] = "osrelease",
	[5] = "version", [6] = "arch", [7] = "nrcpus", [8] = "cpudesc", [9] = "cpuid",
	[10] = "total_mem", [11] = "cmdline", [12] = "event_desc", [13] = "cpu_topology",
	[14] = "numa_topology", [15] = "branch_stack", [16] = "pmu_mappings",
	[17] = "group_desc", [18] = "auxtrace", [19] = "stat", [20] = "cache",
	[21] = "sample_time", [22] = "mem_topology", [23] = "clockid", [24] = "dir_format",
	[25] = "bpf_prog_info", [26] = "bpf_btf", [27] = "compressed", [28] = "cpu_pmu_caps",
	[29] = "clock_data", [30] = "hybrid_topology", [31] = "pmu_caps",
};

const char *pd_feature_name(int bit)
{
	static char other[32];
	if (bit > 0 && (size_t)bit < sizeof feature_names / sizeof *feature_names && feature_names[bit])
		return feature_names[bit];
	snprintf(other, sizeof other, "feature %d", bit);
	return other;
}

static void fmt_duration(ds_buf *b, uint64_t ns)
{
	if (ns >= 1000000000ull)
		ds_buf_printf(b, "%.1f s", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		ds_buf_printf(b, "%.1f ms", (double)ns / 1e6);
	else if (ns >= 1000ull)
		ds_buf_printf(b, "%.1f us", (double)ns / 1e3);
	else
		ds_buf_printf(b, "%llu ns", (unsigned long long)ns);
}

/* The time `bytes` of data held, at the rate of the whole records read
 * (their time span over their bytes); false when it cannot be told (no
 * span, no records, more nanoseconds than a count holds). */
static bool time_at_data_rate(const ds_perfdata *pd, uint64_t bytes, uint64_t *ns)
{
	const ds_perfdata_damage *d = &pd->dmg;
	double held;

	if (d->last_time <= d->first_time || !pd->bytes_whole)
		return false;
	held = (double)(d->last_time - d->first_time) * (double)bytes / (double)pd->bytes_whole;
	if (held >= 0x1p64)
		return false;
	*ns = (uint64_t)held;
	return true;
}

/* The time of corrupt stretches after which no record was later than the
 * latest before them (the next CPU's buffer, flushed after this one's,
 * begins earlier, and the latest came before the stretch): at the rate of
 * the data, as for a cut; small enough to add to the measured time. */
static uint64_t open_gap_time(const ds_perfdata *pd)
{
	uint64_t ns = 0;

	return time_at_data_rate(pd, pd->gap_bytes_open, &ns) && ns < (1ull << 63) ? ns : 0;
}

/* The time a cut took with it: up to the recorded end when something knows
 * it, else at the rate of the data before the cut. */
static void cut_time(const ds_perfdata *pd, uint64_t recorded_end, ds_buf *b)
{
	const ds_perfdata_damage *d = &pd->dmg;
	uint64_t end = recorded_end > pd->info.last_sample_time ? recorded_end : pd->info.last_sample_time;
	uint64_t held;

	if (!d->last_time)
		return;
	if (end > d->last_time) {
		ds_buf_puts(b, "; it held the last ");
		fmt_duration(b, end - d->last_time);
		ds_buf_puts(b, " of the recording (up to its recorded end)");
	} else if (time_at_data_rate(pd, d->bytes_cut, &held)) {
		ds_buf_puts(b, "; it held roughly the last ");
		fmt_duration(b, held);
		ds_buf_puts(b, " of the recording (at the rate of the data before it)");
	}
}

char **ds_perfdata_damage_notes(const ds_perfdata *pd, uint64_t recorded_end, size_t *n)
{
	const ds_perfdata_damage *d = &pd->dmg;
	uint64_t gap_time = d->gap_time + open_gap_time(pd); /* corrupt stretches' */
	DS_VEC(char *) v = {0};
	ds_buf b = {0};
	bool any = false;

	if (pd->info.data_size_recovered && !d->bytes_cut) {
		ds_buf_puts(&b, "the recording did not finish cleanly (its header gives no data size); every "
				"record up to the end of the file was read");
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	if (d->bytes_cut) {
		if (pd->info.data_size_recovered)
			ds_buf_printf(&b, "the recording did not finish cleanly: its last %llu bytes are not a "
					  "whole record; every whole record before them was read",
				      (unsigned long long)d->bytes_cut);
		else
			ds_buf_printf(&b, "'%s' is cut short: %llu bytes of records are missing at its end; "
					  "every whole record before the cut was read",
				      pd->label, (unsigned long long)d->bytes_cut);
		cut_time(pd, recorded_end, &b);
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	if (d->bytes_trailing) {
		ds_buf_printf(&b, "'%s' ends with %llu bytes that are not records (nor a record cut short: "
				  "text mixed into a pipe?); every record before them was read",
			      pd->label, (unsigned long long)d->bytes_trailing);
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	if (d->bytes_corrupt) {
		ds_buf_printf(&b, "'%s' holds %llu bytes of corrupt records in %u place%s, skipped; reading "
				  "went on at the next sound records",
			      pd->label, (unsigned long long)d->bytes_corrupt, d->corrupt_stretches,
			      d->corrupt_stretches == 1 ? "" : "s");
		if (gap_time) {
			ds_buf_puts(&b, " (they held about ");
			fmt_duration(&b, gap_time);
			ds_buf_puts(&b, " of the recording)");
		}
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	if (d->bytes_undecoded) {
		ds_buf_printf(&b, "%llu bytes of compressed (zstd) records in '%s' do not decompress; the "
				  "records they held are lost",
			      (unsigned long long)d->bytes_undecoded, pd->label);
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	if (d->bytes_no_room) {
		unsigned long long limit = ds_as_limit_mib();
		ds_buf_printf(&b, "%llu bytes of records in '%s' were not read: their decompressed data "
				  "outgrew the address space dsprof could reserve",
			      (unsigned long long)d->bytes_no_room, pd->label);
		if (limit)
			ds_buf_printf(&b, " under the limit of %llu MiB (ulimit -v); raise it "
					  "('ulimit -v unlimited')", limit);
		else
			ds_buf_puts(&b, "; free memory and read it again");
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	if (d->bytes_unaligned) {
		ds_buf_printf(&b, "%llu bytes of records in '%s' are of no type the kernel or perf writes (odd "
				  "length, too long to pad); skipped",
			      (unsigned long long)d->bytes_unaligned, pd->label);
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	for (size_t e = 0; e < pd->events.n && d->samples; e++) {
		unsigned long long bad = d->bad_samples[e], all = d->samples[e];
		if (!bad)
			continue;
		ds_buf_printf(&b, "attr %zu (%s): %llu of %llu samples do not match its sample_type", e,
			      pd->events.v[e].name, bad, all);
		ds_buf_puts(&b, bad == all ? ": the attr is corrupt"
					   : " (their fields do not end where the record does) and were dropped");
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	if (d->orphan_samples) {
		ds_buf_printf(&b, "%llu samples name an event id the header does not describe and were dropped",
			      (unsigned long long)d->orphan_samples);
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	if (d->bad_records) {
		ds_buf_printf(&b, "%llu side-band records (mmap, comm, fork, exit, lost, throttle) are too "
				  "short for their type and were dropped",
			      (unsigned long long)d->bad_records);
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	if (d->aux_bytes) {
		/* perf's enum auxtrace_type */
		static const char *const kinds[] = {"", "Intel PT", "Intel BTS", "CoreSight ETM", "Arm SPE",
						    "s390 CPU-MF", "HiSilicon PTT"};
		const char *kind = d->aux_type < sizeof kinds / sizeof kinds[0] ? kinds[d->aux_type] : "";
		if (d->aux_type == 4)
			ds_buf_printf(&b, "'%s' holds %llu bytes of Arm SPE records (an AUX area), which are no "
					  "samples until 'dsprof import' decodes them",
				      pd->label, (unsigned long long)d->aux_bytes);
		else
			ds_buf_printf(&b, "'%s' holds %llu bytes of %s%sAUX trace, which dsprof does not decode: "
					  "the samples are the other events'",
				      pd->label, (unsigned long long)d->aux_bytes, kind, *kind ? " " : "");
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	for (int bit = 0; bit < PF_FEAT_BITS; bit++) {
		if (!(d->features_lost[bit / 64] & (1ull << (bit % 64))))
			continue;
		ds_buf_puts(&b, any ? ", " : "feature sections outside the file were not read: ");
		ds_buf_puts(&b, pd_feature_name(bit));
		any = true;
	}
	if (any) {
		ds_buf_puts(&b, " (what they describe is unknown)");
		ds_vec_push(&v, ds_buf_steal(&b));
	}
	ds_buf_free(&b);
	*n = v.n;
	if (!v.n) {
		ds_vec_free(&v);
		return NULL;
	}
	return v.v;
}
