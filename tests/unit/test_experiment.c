/* Unit tests for experiment/: perf.data writing and validated reading, meta.json. */
#include "experiment/experiment.h"
#include "experiment/heapfile.h"
#include "tests/unit/unit.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

static char tmpdir[64];

static char *tmp_path(const char *name)
{
	return ds_xasprintf("%s/%s", tmpdir, name);
}

/* The test's directory, open for writing. */
static ds_wdir *tmp_wdir(void)
{
	ds_err err = {0};
	ds_wdir *d = ds_wdir_open(tmpdir, &err);
	CHECK(d != NULL);
	return d;
}

/* A perf.data writer at path (in the test's directory), replacing a file
 * there: the writer makes its file anew. */
static ds_pdw *pdw_at(const char *path, const ds_event *ev, size_t n, ds_err *err)
{
	ds_wdir *d = tmp_wdir();
	const char *name = strrchr(path, '/') + 1;
	ds_pdw *w = d && !ds_wdir_unlink(d, name, err) ? ds_pdw_create(d, name, false, ev, n, err) : NULL;

	ds_wdir_close(d);
	return w;
}

/* m as the test directory's meta.json, which is path. */
static int meta_write_at(const ds_meta *m, const char *path, ds_err *err)
{
	ds_wdir *d = tmp_wdir();
	int rc = d ? ds_meta_write(m, d, err) : -1;

	CHECK(strcmp(strrchr(path, '/') + 1, "meta.json") == 0);
	ds_wdir_close(d);
	return rc;
}

static void attr_for(struct perf_event_attr *a, uint64_t extra)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = 250000;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | extra;
	a->sample_id_all = 1;
}

/* A sample record laid out for attr_for() attrs (+ADDR +CALLCHAIN when asked). */
static void put_sample(ds_buf *b, uint64_t id, uint64_t ip, uint32_t pid, uint32_t tid,
		       uint64_t time, uint64_t addr, bool with_addr, int nchain)
{
	size_t start = b->len;
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0};
	uint32_t pt[2] = {pid, tid}, cpu[2] = {1, 0};
	uint64_t period = 250000;
	ds_buf_append(b, &h, sizeof h);
	ds_buf_append(b, &id, 8);
	ds_buf_append(b, &ip, 8);
	ds_buf_append(b, pt, 8);
	ds_buf_append(b, &time, 8);
	if (with_addr)
		ds_buf_append(b, &addr, 8);
	ds_buf_append(b, cpu, 8);
	ds_buf_append(b, &period, 8);
	if (nchain >= 0) {
		uint64_t nr = (uint64_t)nchain + 1, user = (uint64_t)PERF_CONTEXT_USER;
		ds_buf_append(b, &nr, 8);
		ds_buf_append(b, &user, 8);
		for (int i = 0; i < nchain; i++) {
			uint64_t ret = ip + 0x100 * (uint64_t)(i + 1);
			ds_buf_append(b, &ret, 8);
		}
	}
	((struct perf_event_header *)(b->p + start))->size = (uint16_t)(b->len - start);
}

/* The two-event file, with more cpu-clock samples at the given times
 * after its three. */
static char *write_event_file(const uint64_t *more, size_t nmore)
{
	ds_event ev[2];
	uint64_t ids0[2] = {11, 12}, ids1[2] = {21, 22};
	ds_buf recs = {0}, mm = {0};
	ds_err err = {0};
	ds_pdw *w;
	char *path = tmp_path("two.data");
	char *argv[] = {"dsprof", "record", "x"};
	ds_pdw_info info = {.hostname = "host1", .osrelease = "6.1", .version = "dsprof test",
			    .arch = "x86_64", .cpudesc = "cpu", .nr_cpus_online = 2, .argc = 3,
			    .argv = argv, .clockid = 1, .first_sample_time = 100, .last_sample_time = 300};

	memset(ev, 0, sizeof ev);
	ev[0].name = "cpu-clock";
	attr_for(&ev[0].attr, PERF_SAMPLE_CALLCHAIN);
	ev[0].ids = ids0;
	ev[0].nids = 2;
	ev[1].name = "page-faults";
	attr_for(&ev[1].attr, PERF_SAMPLE_ADDR);
	ev[1].attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	ev[1].ids = ids1;
	ev[1].nids = 2;

	w = pdw_at(path, ev, 2, &err);
	CHECK(w != NULL);
	if (!w)
		return path;
	/* an MMAP2 record with a trailer, as the kernel writes them */
	{
		struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, gen;
			uint32_t prot, flags;
		} m = {{PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 0}, 7, 7, 0x400000, 0x1000, 0, 8, 1, 99, 0, 5, 2};
		ds_buf_append(&mm, &m, sizeof m);
		ds_buf_append(&mm, "/bin/prog\0\0\0\0\0\0", 16);
		ds_sample_id_append(&mm, &ev[0].attr, 7, 7, 50, 11, 0);
		((struct perf_event_header *)mm.p)->size = (uint16_t)mm.len;
		CHECK(ds_pdw_write(w, mm.p, mm.len, &err) == 0);
	}
	put_sample(&recs, 11, 0x400010, 7, 7, 100, 0, false, 2);
	put_sample(&recs, 22, 0x400020, 7, 8, 200, 0xdead000, true, -1);
	put_sample(&recs, 12, 0x400030, 7, 8, 300, 0, false, 0);
	for (size_t i = 0; i < nmore; i++)
		put_sample(&recs, 11, 0x400040, 7, 7, more[i], 0, false, 0);
	CHECK(ds_pdw_write(w, recs.p, recs.len, &err) == 0);
	CHECK(ds_pdw_finish(w, &info, &err) == 0);
	ds_buf_free(&recs);
	ds_buf_free(&mm);
	return path;
}

static char *write_two_event_file(void)
{
	return write_event_file(NULL, 0);
}

TEST(roundtrip)
{
	char *path = write_two_event_file();
	ds_perfdata *pd = NULL;
	ds_err err = {0};
	ds_record r;
	uint64_t cur = 0;
	int n = 0, samples = 0, mmaps = 0;

	CHECK(ds_perfdata_open(path, &pd, &err) == 0);
	if (!pd) {
		printf("# %s\n", err.msg);
		free(path);
		return;
	}
	CHECK_EQ_U64(ds_perfdata_nevents(pd), 2);
	CHECK_STR(ds_perfdata_event(pd, 0)->name, "cpu-clock");
	CHECK_STR(ds_perfdata_event(pd, 1)->name, "page-faults");
	CHECK_STR(ds_perfdata_info(pd)->hostname, "host1");
	CHECK_STR(ds_perfdata_info(pd)->cmdline, "dsprof record x");
	CHECK_EQ_U64(ds_perfdata_info(pd)->first_sample_time, 100);
	CHECK(ds_perfdata_info(pd)->clockid == 1);
	while (ds_perfdata_next(pd, &cur, &r, &err) > 0) {
		n++;
		if (r.kind == DS_REC_MMAP) {
			mmaps++;
			CHECK_STR(r.u.mmap.filename, "/bin/prog");
			CHECK_EQ_U64(r.u.mmap.ino, 99);
			CHECK_EQ_U64(r.time, 50);
			CHECK(r.evidx == 0);
		}
		if (r.kind == DS_REC_SAMPLE) {
			samples++;
			if (samples == 1) {
				CHECK(r.evidx == 0);
				CHECK_EQ_U64(r.u.sample.nr_callchain, 3);
				CHECK_EQ_U64(r.u.sample.callchain[2], 0x400210);
			} else if (samples == 2) {
				CHECK(r.evidx == 1);
				CHECK_EQ_U64(r.u.sample.addr, 0xdead000);
				CHECK_EQ_U64(r.u.sample.tid, 8);
				CHECK_EQ_U64(r.u.sample.period, 250000);
			} else {
				CHECK(r.evidx == 0);
				CHECK_EQ_U64(r.u.sample.time, 300);
			}
		}
	}
	CHECK_EQ_U64(n, 4);
	CHECK_EQ_U64(samples, 3);
	CHECK_EQ_U64(mmaps, 1);
	ds_perfdata_close(pd);
	free(path);
}

/* Every record of an image, read once: samples per event, and the notes. */
typedef struct readout {
	int rc;           /* open's */
	int samples[2];
	char notes[2048]; /* the damage notes, one a line */
	ds_perfdata_damage dmg;
} readout;

static readout read_image(const void *img, size_t len)
{
	readout o = {0};
	ds_perfdata *pd = NULL;
	ds_err err = {0};
	ds_record r;
	uint64_t cur = 0;
	size_t n;
	char **notes;

	o.rc = ds_perfdata_open_mem(img, len, "img", &pd, &err);
	if (o.rc) {
		snprintf(o.notes, sizeof o.notes, "%s", err.msg);
		return o;
	}
	while (ds_perfdata_next(pd, &cur, &r, &err) > 0)
		if (r.kind == DS_REC_SAMPLE && r.evidx >= 0 && r.evidx < 2)
			o.samples[r.evidx]++;
	o.dmg = *ds_perfdata_damage_of(pd);
	o.dmg.samples = o.dmg.bad_samples = NULL;
	notes = ds_perfdata_damage_notes(pd, 0, &n);
	for (size_t i = 0; i < n; i++) {
		size_t used = strlen(o.notes);
		snprintf(o.notes + used, sizeof o.notes - used, "%s\n", notes[i]);
		free(notes[i]);
	}
	free(notes);
	ds_perfdata_close(pd);
	return o;
}

static uint64_t img64(const char *img, size_t off)
{
	uint64_t v;
	memcpy(&v, img + off, 8);
	return v;
}

/* Data offset of the k-th record of the two-event file (0: the mmap). */
static uint64_t record_at(const char *img, int k)
{
	uint64_t off = img64(img, 40);
	for (int i = 0; i < k; i++) {
		uint16_t size;
		memcpy(&size, img + off + 6, 2);
		off += size;
	}
	return off;
}

#define HAS(o, text) (strstr((o).notes, (text)) != NULL)

/* The two-event file's bytes, to damage. */
static char *two_event_image(size_t *len)
{
	char *path = write_two_event_file();
	char *img = ds_read_file(path, len);
	free(path);
	return img;
}

/* A cut file: every whole record before the cut is read, the cut and the
 * feature sections after it are named; a file cut inside its attrs is
 * refused. */
TEST(salvage_cut)
{
	size_t len;
	char *img = two_event_image(&len);
	uint64_t s3 = record_at(img, 3), end = img64(img, 40) + img64(img, 48);
	readout o = read_image(img, s3 + 20);

	CHECK(o.rc == 0);
	CHECK_EQ_U64(o.samples[0], 1);
	CHECK_EQ_U64(o.samples[1], 1);
	CHECK_EQ_U64(o.dmg.bytes_cut, end - s3);
	CHECK(HAS(o, "is cut short: ") && HAS(o, "bytes of records are missing at its end"));
	CHECK(HAS(o, "feature sections outside the file were not read: hostname, osrelease"));
	/* the time it held, at the rate of the data before it */
	CHECK(HAS(o, "it held roughly the last"));
	o = read_image(img, 300);
	CHECK(o.rc != 0 && strstr(o.notes, "truncated at byte 300"));
	free(img);
}

/* A cut whose estimate of the time it held would not fit a count of
 * nanoseconds (a header claiming exabytes of data): no estimate, and no
 * undefined conversion (fuzz_session found it). */
TEST(salvage_cut_time_overflow)
{
	size_t len;
	char *img = two_event_image(&len);
	uint64_t s2 = record_at(img, 2), s3 = record_at(img, 3), t = 1000000000, size = 1ull << 62;
	readout o;

	memcpy(img + s2 + 32, &t, 8); /* the second sample's time */
	memcpy(img + 48, &size, 8);
	o = read_image(img, s3 + 20);
	CHECK(o.rc == 0);
	CHECK_EQ_U64(o.samples[0] + o.samples[1], 2);
	CHECK(HAS(o, "is cut short: "));
	CHECK(!HAS(o, "it held roughly"));
	free(img);
}

/* A corrupt record in the middle: skipped, and reading goes on after it. */
TEST(salvage_corrupt_record)
{
	size_t len;
	char *img = two_event_image(&len);
	uint64_t s2 = record_at(img, 2), s3 = record_at(img, 3);
	readout o;

	img[s2 + 6] = img[s2 + 7] = 0; /* size 0 */
	o = read_image(img, len);
	CHECK(o.rc == 0);
	CHECK_EQ_U64(o.samples[0], 2);
	CHECK_EQ_U64(o.samples[1], 0);
	CHECK_EQ_U64(o.dmg.corrupt_stretches, 1);
	CHECK_EQ_U64(o.dmg.bytes_corrupt, s3 - s2);
	CHECK(HAS(o, "bytes of corrupt records in 1 place"));
	/* the time between the records either side (300 - 100 ns) */
	CHECK(HAS(o, "they held about 200 ns"));
	free(img);
}

/* A corrupt record, and right after it a record of another CPU a little
 * earlier than the last before it (records are not in time order across
 * CPUs): the stretch's time runs to the first record later than that. */
TEST(salvage_corrupt_record_unordered)
{
	static const uint64_t more[] = {400};
	char *path = write_event_file(more, 1);
	size_t len;
	char *img = ds_read_file(path, &len);
	uint64_t s2 = record_at(img, 2), s3 = record_at(img, 3), t = 90;
	readout o;

	free(path);
	img[s2 + 6] = img[s2 + 7] = 0; /* size 0 */
	memcpy(img + s3 + 32, &t, 8);  /* the third sample's time: before the first's (100) */
	o = read_image(img, len);
	CHECK(o.rc == 0);
	CHECK_EQ_U64(o.dmg.corrupt_stretches, 1);
	CHECK(HAS(o, "they held about 300 ns")); /* 400 - 100 */
	free(img);
}

/* A corrupt record after which every record is earlier than the latest
 * before it (another CPU's buffer, flushed later): the stretch's time is
 * estimated at the rate of the data, never left out (e2e/salvage met it). */
TEST(salvage_corrupt_record_none_later)
{
	size_t len;
	char *img = two_event_image(&len);
	uint64_t s2 = record_at(img, 2), s3 = record_at(img, 3), t = 50;
	readout o;

	img[s2 + 6] = img[s2 + 7] = 0; /* size 0 */
	memcpy(img + s3 + 32, &t, 8);  /* the last sample's time: before the first's (100) */
	o = read_image(img, len);
	CHECK(o.rc == 0);
	CHECK_EQ_U64(o.dmg.corrupt_stretches, 1);
	CHECK(HAS(o, "bytes of corrupt records in 1 place, skipped; reading went on at the next sound "
		     "records (they held about "));
	free(img);
}

/* Read every record of an image: its samples, how many of them are
 * 8-aligned in memory, and how many carry the call chain put_sample gives
 * two frames (read in place, through an aligned pointer). */
static void aligned_samples(const void *img, size_t len, int *samples, int *aligned, int *chains,
			    unsigned *stretches)
{
	ds_perfdata *pd = NULL;
	ds_err err = {0};
	ds_record r;
	uint64_t cur = 0;

	*samples = *aligned = *chains = 0;
	CHECK(ds_perfdata_open_mem(img, len, "img", &pd, &err) == 0);
	while (pd && ds_perfdata_next(pd, &cur, &r, &err) > 0) {
		const ds_sample *sm = &r.u.sample;
		if (r.kind != DS_REC_SAMPLE)
			continue;
		(*samples)++;
		*aligned += (uintptr_t)r.raw % 8 == 0;
		if (sm->nr_callchain == 3 && (uintptr_t)sm->callchain % 8 == 0 &&
		    sm->callchain[0] == (uint64_t)PERF_CONTEXT_USER && sm->callchain[2] == sm->ip + 0x200)
			(*chains)++;
	}
	*stretches = pd ? ds_perfdata_damage_of(pd)->corrupt_stretches : 0;
	ds_perfdata_close(pd);
}

/* The two-event file with n bytes put before its first sample (the data
 * section's size grown by n), in *out. */
static void insert_before_samples(const void *bytes, size_t n, ds_buf *out)
{
	size_t len;
	char *img = two_event_image(&len);
	uint64_t s1 = record_at(img, 1), end = img64(img, 40) + img64(img, 48), size = img64(img, 48) + n;

	ds_buf_append(out, img, s1);
	ds_buf_append(out, bytes, n);
	ds_buf_append(out, img + s1, end - s1);
	memcpy(out->p + 48, &size, 8);
	free(img);
}

/* Junk of odd length before the samples: reading resumes after it, and the
 * records there are read 8-aligned all the same (their u64 fields, call
 * chains included, are read in place: fuzz_session found them misaligned). */
TEST(salvage_resync_misaligned)
{
	ds_buf b = {0};
	int samples, aligned, chains;
	unsigned stretches;

	insert_before_samples("\xff\xff\xff", 3, &b);
	aligned_samples(b.p, b.len, &samples, &aligned, &chains, &stretches);
	CHECK_EQ_U64(samples, 3);
	CHECK_EQ_U64(aligned, 3);
	CHECK_EQ_U64(chains, 1);
	CHECK_EQ_U64(stretches, 1);
	ds_buf_free(&b);
}

/* A record of perf's own type range of odd length and too long to pad (its
 * u16 size at the most): skipped and counted, and the samples after it are
 * read 8-aligned (fuzz_perfdata found them not). */
TEST(salvage_unpaddable_record)
{
	struct perf_event_header h = {127, 0, 65535};
	char *rec = calloc(1, 65535);
	ds_buf b = {0};
	int samples, aligned, chains;
	unsigned stretches;
	readout o;

	memcpy(rec, &h, sizeof h);
	insert_before_samples(rec, 65535, &b);
	aligned_samples(b.p, b.len, &samples, &aligned, &chains, &stretches);
	CHECK_EQ_U64(samples, 3);
	CHECK_EQ_U64(aligned, 3);
	CHECK_EQ_U64(chains, 1);
	CHECK_EQ_U64(stretches, 0);
	o = read_image(b.p, b.len);
	CHECK(o.rc == 0);
	CHECK_EQ_U64(o.dmg.bytes_unaligned, 65535);
	CHECK(HAS(o, "65535 bytes of records in 'img' are of no type the kernel or perf writes"));
	ds_buf_free(&b);
	free(rec);
}

/* Only the last byte missing, or one bit flipped in a feature section's
 * size: every sample is intact, the one feature is named. */
TEST(salvage_features)
{
	size_t len;
	char *img = two_event_image(&len);
	uint64_t table = img64(img, 40) + img64(img, 48);
	readout o = read_image(img, len - 1);

	CHECK(o.rc == 0);
	CHECK_EQ_U64(o.samples[0] + o.samples[1], 3);
	CHECK(HAS(o, "feature sections outside the file were not read: clock_data "));
	/* the first feature is the hostname: a flipped size bit puts it outside */
	img[table + 8 + 5] ^= 0x10;
	o = read_image(img, len);
	CHECK_EQ_U64(o.samples[0] + o.samples[1], 3);
	CHECK(HAS(o, "were not read: hostname "));
	CHECK(!HAS(o, "osrelease"));
	free(img);
}

/* A flipped bit in an attr's sample_type: its samples' fields no longer end
 * where their records do; they are dropped and the attr is named. */
TEST(salvage_bad_attr)
{
	size_t len;
	char *img = two_event_image(&len);
	uint64_t attrs = img64(img, 24), type;
	readout o;

	memcpy(&type, img + attrs + offsetof(struct perf_event_attr, sample_type), 8);
	type ^= PERF_SAMPLE_ADDR;
	memcpy(img + attrs + offsetof(struct perf_event_attr, sample_type), &type, 8);
	o = read_image(img, len);
	CHECK(o.rc == 0);
	CHECK_EQ_U64(o.samples[0], 0);
	CHECK_EQ_U64(o.samples[1], 1);
	CHECK(HAS(o, "attr 0 (cpu-clock): 2 of 2 samples do not match its sample_type: the attr is corrupt"));
	free(img);
}

TEST(unfinished_recording_is_readable)
{
	/* data size 0 in the header: a recording killed before it finished */
	size_t len;
	char *img = two_event_image(&len);
	uint64_t zero = 0, data_off, data_size;
	ds_perfdata *pd = NULL;
	ds_err err = {0};
	ds_record r;
	uint64_t cur = 0;
	int samples = 0, rc;
	char *t = tmp_path("unfinished.data");
	int fd;

	memcpy(&data_off, img + 40, 8);
	memcpy(&data_size, img + 48, 8);
	memcpy(img + 48, &zero, 8);
	fd = open(t, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	/* the data and a half-written record after it, no feature sections */
	CHECK(write(fd, img, data_off + data_size) == (ssize_t)(data_off + data_size));
	CHECK(write(fd, img + data_off, 20) == 20);
	close(fd);
	CHECK(ds_perfdata_open(t, &pd, &err) == 0);
	if (pd) {
		CHECK(ds_perfdata_info(pd)->data_size_recovered);
		while ((rc = ds_perfdata_next(pd, &cur, &r, &err)) > 0)
			samples += r.kind == DS_REC_SAMPLE;
		CHECK(rc == 0);
		CHECK_EQ_U64(samples, 3);
		{
			size_t n;
			char **notes = ds_perfdata_damage_notes(pd, 0, &n);
			CHECK(n == 1 && strstr(notes[0], "did not finish cleanly: its last 20 bytes are not a whole record"));
			for (size_t i = 0; i < n; i++)
				free(notes[i]);
			free(notes);
		}
		ds_perfdata_close(pd);
	}
	free(img);
	free(t);
}

/* perf record -z: the records are one zstd stream cut into COMPRESSED
 * records (and COMPRESSED2, with its data size and padding), with records
 * that span two of them; a stream cut short loses only what it lacks. */
static void put_compressed(ds_buf *b, uint32_t type, const char *z, size_t n)
{
	struct perf_event_header h = {type, 0, 0};
	size_t start = b->len;
	uint64_t n64 = n, zero = 0;
	ds_buf_append(b, &h, sizeof h);
	if (type == 83)
		ds_buf_append(b, &n64, 8);
	ds_buf_append(b, z, n);
	if (type == 83)
		ds_buf_append(b, &zero, (8 - b->len % 8) % 8);
	h.size = (uint16_t)(b->len - start);
	memcpy(b->p + start, &h, sizeof h); /* COMPRESSED records are not 8-aligned */
}

TEST(compressed_records)
{
	ds_buf recs = {0}, file = {0};
	ds_event ev = {0};
	uint64_t id = 5;
	char *z, *path = tmp_path("z.data"), *img;
	size_t zn, cut[4] = {0}, len;
	ds_pdw *w;
	ds_err err = {0};
	ds_pdw_info info = {.clockid = -1};
	readout o;

	ev.name = "cpu-clock";
	attr_for(&ev.attr, 0);
	ev.ids = &id;
	ev.nids = 1;
	for (int i = 0; i < 300; i++)
		put_sample(&recs, 5, 0x400000 + (uint64_t)i, 1, 1, 1000 + (uint64_t)i, 0, false, -1);
	/* three flushes of one stream, as perf pushes its ring buffers, each
	 * ending inside a record */
	{
		ZSTD_CCtx *cc = ZSTD_createCCtx();
		size_t in_cut[4] = {0, recs.len / 3 + 13, 2 * recs.len / 3 + 29, recs.len};
		zn = ZSTD_compressBound(recs.len) + 64;
		z = malloc(zn);
		cut[0] = 0;
		for (int i = 0; i < 3; i++) {
			ZSTD_inBuffer in = {recs.p + in_cut[i], in_cut[i + 1] - in_cut[i], 0};
			ZSTD_outBuffer out = {z, zn, cut[i]};
			size_t r;
			do
				r = ZSTD_compressStream2(cc, &out, &in, ZSTD_e_flush);
			while (r && !ZSTD_isError(r));
			CHECK(!ZSTD_isError(r));
			cut[i + 1] = out.pos;
		}
		ZSTD_freeCCtx(cc);
	}
	put_compressed(&file, 81, z, cut[1]);
	put_compressed(&file, 81, z + cut[1], cut[2] - cut[1]);
	put_compressed(&file, 83, z + cut[2], cut[3] - cut[2]);
	w = pdw_at(path, &ev, 1, &err);
	CHECK(w && ds_pdw_write(w, file.p, file.len, &err) == 0 && ds_pdw_finish(w, &info, &err) == 0);
	img = ds_read_file(path, &len);
	o = read_image(img, len);
	CHECK(o.rc == 0);
	CHECK_EQ_U64(o.samples[0], 300);
	CHECK_STR(o.notes, "");
	free(img);

	/* without the last piece: the samples before it, the partial one counted */
	file.len = 0;
	put_compressed(&file, 81, z, cut[1]);
	put_compressed(&file, 81, z + cut[1], cut[2] - cut[1]);
	w = pdw_at(path, &ev, 1, &err);
	CHECK(w && ds_pdw_write(w, file.p, file.len, &err) == 0 && ds_pdw_finish(w, &info, &err) == 0);
	img = ds_read_file(path, &len);
	o = read_image(img, len);
	CHECK(o.rc == 0);
	CHECK(o.samples[0] > 100 && o.samples[0] < 300);
	CHECK(o.dmg.bytes_cut > 0 && o.dmg.bytes_cut < 64);
	free(img);

	/* a middle piece that is not zstd: what follows it cannot be decoded */
	file.len = 0;
	put_compressed(&file, 81, z, cut[1]);
	memset(z + cut[1], 0xa5, cut[2] - cut[1]);
	put_compressed(&file, 81, z + cut[1], cut[2] - cut[1]);
	put_compressed(&file, 83, z + cut[2], cut[3] - cut[2]);
	w = pdw_at(path, &ev, 1, &err);
	CHECK(w && ds_pdw_write(w, file.p, file.len, &err) == 0 && ds_pdw_finish(w, &info, &err) == 0);
	img = ds_read_file(path, &len);
	o = read_image(img, len);
	CHECK(o.rc == 0);
	CHECK(o.samples[0] < 120);
	CHECK(o.dmg.bytes_undecoded > cut[3] - cut[1]);
	CHECK(HAS(o, "compressed (zstd) records in 'img' do not decompress"));
	free(img);

	/* junk of odd length inside the compressed records, or a sound record
	 * of perf's own of odd length: the samples after it are read 8-aligned
	 * all the same (fuzz_perfdata found them not) */
	for (int odd = 0; odd < 2; odd++) {
		struct perf_event_header h = {127, 0, 13};
		ds_buf junked = {0};
		int samples, aligned, chains;
		unsigned stretches;
		/* inside a record, or between two */
		size_t half = odd ? recs.len / 300 * 150 : recs.len / 2 - recs.len / 2 % 64;
		ds_buf_append(&junked, recs.p, half);
		if (odd) {
			ds_buf_append(&junked, &h, sizeof h);
			ds_buf_append(&junked, "12345", 5);
		} else {
			ds_buf_append(&junked, "\xff\xff\xff", 3);
		}
		ds_buf_append(&junked, recs.p + half, recs.len - half);
		zn = ZSTD_compress(z, ZSTD_compressBound(recs.len) + 64, junked.p, junked.len, 1);
		CHECK(!ZSTD_isError(zn) && zn < UINT16_MAX - 16);
		file.len = 0;
		put_compressed(&file, 83, z, zn);
		w = pdw_at(path, &ev, 1, &err);
		CHECK(w && ds_pdw_write(w, file.p, file.len, &err) == 0 && ds_pdw_finish(w, &info, &err) == 0);
		img = ds_read_file(path, &len);
		aligned_samples(img, len, &samples, &aligned, &chains, &stretches);
		CHECK(samples >= 299 + odd && aligned == samples);
		CHECK_EQ_U64(stretches, !odd);
		free(img);
		ds_buf_free(&junked);
	}
	free(z);
	free(path);
	ds_buf_free(&recs);
	ds_buf_free(&file);
}

/* The samples of img read in a child whose address space may grow by
 * `room` bytes more than it has (ulimit -v): 0 when all n were read and
 * nothing noted, 1 when fewer were read and the note names the limit, 2
 * otherwise. */
static int read_with_room(const char *img, size_t len, uint64_t room, int n)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		unsigned long long pages = 0;
		FILE *f = fopen("/proc/self/statm", "r");
		struct rlimit as;
		readout o;
		if (!f || fscanf(f, "%llu", &pages) != 1)
			_exit(2);
		fclose(f);
		as.rlim_cur = as.rlim_max = pages * (uint64_t)sysconf(_SC_PAGESIZE) + room;
		if (setrlimit(RLIMIT_AS, &as) != 0)
			_exit(2);
		o = read_image(img, len);
		if (o.rc == 0 && o.samples[0] == n && !o.notes[0])
			_exit(0);
		_exit(o.rc == 0 && o.samples[0] < n && o.dmg.bytes_no_room && HAS(o, "(ulimit -v); raise it") ? 1 : 2);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}

/* The step of the copy's reservation, 256 x (data + 4096) halved, that is
 * at least `least` and as small as can be; 0 when the first is below it. */
static uint64_t reservation_step(uint64_t data, uint64_t least)
{
	uint64_t c = (data + 4096) * 256;

	if (c < least)
		return 0;
	while (c / 2 >= least)
		c /= 2;
	return c;
}

/* The copy of decompressed records takes address space for 256 times the
 * compressed data (the ratio past which a stream is taken as corrupt);
 * under ulimit -v it takes what the limit leaves, and when that is too
 * little the records it could not hold are named with the limit, never
 * taken as undecodable.  Each child is given the step it should get and
 * 16 MiB for the rest of the reading (less than the step, so that it
 * cannot get the step above). */
TEST(compressed_records_under_ulimit)
{
	enum { N = 1200000, CHUNK = 1 << 18 };
	const uint64_t slack = 16 << 20;
	ds_buf recs = {0}, file = {0};
	ds_event ev = {0};
	uint64_t id = 5, fits, short_of;
	char *path, *img, *z;
	ZSTD_CCtx *cc;
	ds_err err = {0};
	ds_pdw_info info = {.clockid = -1};
	ds_pdw *w;
	size_t len;
	bool flushed = true;

#if defined(__SANITIZE_ADDRESS__)
	unit_skip("ulimit -v leaves AddressSanitizer no room for its shadow memory");
	return;
#endif
	path = tmp_path("zlimit.data");
	z = malloc(1 << 16);
	cc = ZSTD_createCCtx();
	ev.name = "cpu-clock";
	attr_for(&ev.attr, 0);
	ev.ids = &id;
	ev.nids = 1;
	for (int i = 0; i < N; i++)
		put_sample(&recs, 5, 0x401000, 1, 1, 1000 + (uint64_t)i, 0, false, -1);
	for (size_t at = 0; at < recs.len; at += CHUNK) {
		size_t end = at + CHUNK < recs.len ? at + CHUNK : recs.len, r;
		ZSTD_inBuffer in = {recs.p + at, end - at, 0};
		ZSTD_outBuffer out = {z, (1 << 16) - 64, 0};
		do
			r = ZSTD_compressStream2(cc, &out, &in, ZSTD_e_flush);
		while (r && !ZSTD_isError(r) && out.pos < out.size);
		flushed &= !ZSTD_isError(r) && r == 0;
		put_compressed(&file, 83, z, out.pos);
	}
	ZSTD_freeCCtx(cc);
	CHECK(flushed);
	fits = reservation_step(file.len, 2 * (uint64_t)recs.len);
	short_of = reservation_step(file.len, recs.len / 4);
	/* both below the first step, and larger than the slack */
	CHECK(fits && fits < (file.len + 4096) * 256 && short_of < recs.len / 2 && short_of > slack);
	w = pdw_at(path, &ev, 1, &err);
	CHECK(w && ds_pdw_write(w, file.p, file.len, &err) == 0 && ds_pdw_finish(w, &info, &err) == 0);
	img = ds_read_file(path, &len);
	CHECK(img != NULL);
	if (img) {
		CHECK_EQ_U64(read_with_room(img, len, fits + slack, N), 0);
		CHECK_EQ_U64(read_with_room(img, len, short_of + slack, N), 1);
	}
	free(img);
	free(z);
	free(path);
	ds_buf_free(&recs);
	ds_buf_free(&file);
}

/* perf's string in a feature: u32 length (padded to 64, NUL included), bytes. */
static void put_feat_string(ds_buf *b, const char *str)
{
	char pad[64] = {0};
	uint32_t n = (uint32_t)((strlen(str) + 1 + 63) / 64 * 64);
	ds_buf_append(b, &n, 4);
	snprintf(pad, sizeof pad, "%s", str);
	ds_buf_append(b, pad, n);
}

/* A HEADER_FEATURE record with HEADER_CACHE version 1 (level, line, sets,
 * ways, type, size, cpulist), as perf record writes it in a pipe. */
static void put_cache_feature(ds_buf *b)
{
	static const struct {
		uint32_t v[4];
		const char *type, *size, *map;
	} c[] = {
		{{1, 64, 64, 12}, "Data", "48K", "0-1"},
		{{1, 64, 64, 8}, "Instruction", "32K", "0-1"},
		{{1, 64, 64, 12}, "Data", "48K", "2-3"},
		{{2, 64, 2048, 16}, "Unified", "2048K", "0-1"},
	};
	struct perf_event_header h = {80, 0, 0};
	size_t start = b->len;
	uint64_t bit = 20;
	uint32_t head[2] = {1, 4};
	ds_buf_append(b, &h, sizeof h);
	ds_buf_append(b, &bit, 8);
	ds_buf_append(b, head, 8);
	for (size_t i = 0; i < 4; i++) {
		ds_buf_append(b, c[i].v, 16);
		put_feat_string(b, c[i].type);
		put_feat_string(b, c[i].size);
		put_feat_string(b, c[i].map);
	}
	((struct perf_event_header *)(b->p + start))->size = (uint16_t)(b->len - start);
}

/* A pipe-mode image: header, HEADER_ATTR, EVENT_UPDATE name, then kernel records. */
TEST(pipe_mode)
{
	ds_buf b = {0};
	struct perf_event_attr a;
	uint64_t magic = 0x32454c4946524550ULL, sixteen = 16, id = 5;
	ds_perfdata *pd = NULL;
	ds_err err = {0};
	ds_record r;
	uint64_t cur = 0;
	int samples = 0;

	attr_for(&a, 0);
	ds_buf_append(&b, &magic, 8);
	ds_buf_append(&b, &sixteen, 8);
	{
		struct perf_event_header h = {64, 0, (uint16_t)(8 + sizeof a + 8)};
		ds_buf_append(&b, &h, sizeof h);
		ds_buf_append(&b, &a, sizeof a);
		ds_buf_append(&b, &id, 8);
	}
	{
		struct perf_event_header h = {78, 0, 8 + 16 + 16};
		uint64_t type = 2;
		ds_buf_append(&b, &h, sizeof h);
		ds_buf_append(&b, &type, 8);
		ds_buf_append(&b, &id, 8);
		ds_buf_append(&b, "piped-clock\0\0\0\0", 16);
	}
	put_cache_feature(&b);
	{
		/* the tracing data follows the record, outside its size */
		struct perf_event_header h = {66, 0, 16};
		uint32_t size[2] = {24, 0};
		ds_buf_append(&b, &h, sizeof h);
		ds_buf_append(&b, size, 8);
		ds_buf_append(&b, "tracing data, 24 bytes..", 24);
	}
	put_sample(&b, 5, 0x1234, 1, 1, 10, 0, false, -1);
	CHECK(ds_perfdata_open_mem(b.p, b.len, "pipe", &pd, &err) == 0);
	if (pd) {
		const ds_perfdata_header_info *in = ds_perfdata_info(pd);
		ds_meta m;
		CHECK(in->pipe_mode);
		CHECK_STR(ds_perfdata_event(pd, 0)->name, "piped-clock");
		/* CPU 0's levels; the L1d of CPUs 2-3 is another core's */
		CHECK_EQ_U64(in->ncaches, 3);
		CHECK(in->caches[0].level == 1 && !strcmp(in->caches[0].type, "Data"));
		CHECK_EQ_U64(in->caches[0].size, 48 << 10);
		CHECK_EQ_U64(in->caches[0].line, 64);
		CHECK_EQ_U64(in->caches[0].ways, 12);
		CHECK_EQ_U64(in->caches[0].sets, 64);
		CHECK_STR(in->caches[0].shared_cpus, "0-1");
		CHECK(in->caches[2].level == 2 && in->caches[2].size == 2u << 20);
		ds_meta_from_perfdata(&m, pd, "import");
		CHECK_EQ_U64(m.ncaches, 3);
		CHECK_STR(m.cache_source, "perf.data");
		ds_meta_fini(&m);
		while (ds_perfdata_next(pd, &cur, &r, &err) > 0)
			if (r.kind == DS_REC_SAMPLE) {
				samples++;
				CHECK_EQ_U64(r.u.sample.ip, 0x1234);
			}
		CHECK_EQ_U64(samples, 1);
		ds_perfdata_close(pd);
	} else {
		printf("# %s\n", err.msg);
	}
	/* text a pipe mixed in after the last record: not a cut */
	{
		static const char text[] = "[ perf record: Woken up 1 times to write data ]\n";
		readout o;
		ds_buf_append(&b, text, sizeof text - 1);
		o = read_image(b.p, b.len);
		CHECK_EQ_U64(o.samples[0], 1);
		CHECK_EQ_U64(o.dmg.bytes_trailing, sizeof text - 1);
		CHECK(HAS(o, "'img' ends with 48 bytes that are not records"));
		CHECK(!HAS(o, "is cut short"));
	}
	ds_buf_free(&b);
}

/* Every sample field perf mem / perf c2c / perf record -d can write, in
 * the ABI's order, parsed back at the right offsets. */
TEST(all_sample_fields)
{
	struct perf_event_attr a;
	ds_event ev = {0};
	uint64_t id = 7;
	ds_buf b = {0};
	ds_pdw *w;
	ds_perfdata *pd = NULL;
	ds_err err = {0};
	ds_record r;
	uint64_t cur = 0;
	char *path = tmp_path("fields.data");
	ds_pdw_info info = {.clockid = -1};

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_RAW;
	a.config = 0x1cd;
	a.precise_ip = 2;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
			PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
			PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE;
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	a.sample_regs_user = 0x3;  /* two registers */
	a.sample_regs_intr = 0x1;  /* one */
	a.sample_stack_user = 16;
	a.sample_id_all = 1;
	ev.name = "mem-loads";
	ev.attr = a;
	ev.ids = &id;
	ev.nids = 1;

	{
		struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0};
		uint64_t v[] = {
			7, 0x401000, 0x0000000800000008ull /* pid 8 tid 8 */, 123, 0xdead0, 7, 7, 1,
			1000,
			55, 66, 7,                     /* read: value, time_enabled, id */
			2, (uint64_t)PERF_CONTEXT_USER, 0x401000,
		};
		uint32_t raw_size = 4;
		uint64_t after_raw[] = {
			1, 3 /* hw_idx */, 0x10, 0x20, 0 /* one branch */,
			2 /* abi 64 */, 0xaaaa, 0xbbbb,
			16, 0x1111, 0x2222, 12 /* stack: size, data, dyn_size */,
			77 /* weight */, 0x12345 /* data_src */, 0 /* transaction */,
			2, 0xcccc /* regs_intr */,
			0x7000 /* phys */, 1 /* cgroup */, 4096, 2097152,
		};
		ds_buf_append(&b, &h, sizeof h);
		ds_buf_append(&b, v, sizeof v);
		ds_buf_append(&b, &raw_size, 4);
		ds_buf_append(&b, "rawd", 4); /* 4 + 4 bytes: the sample stays aligned */
		ds_buf_append(&b, after_raw, sizeof after_raw);
		((struct perf_event_header *)b.p)->size = (uint16_t)b.len;
	}
	w = pdw_at(path, &ev, 1, &err);
	CHECK(w && ds_pdw_write(w, b.p, b.len, &err) == 0 && ds_pdw_finish(w, &info, &err) == 0);
	CHECK(ds_perfdata_open(path, &pd, &err) == 0);
	if (pd && ds_perfdata_next(pd, &cur, &r, &err) == 1 && r.kind == DS_REC_SAMPLE) {
		const ds_sample *sm = &r.u.sample;
		CHECK_EQ_U64(sm->ip, 0x401000);
		CHECK_EQ_U64(sm->addr, 0xdead0);
		CHECK_EQ_U64(sm->period, 1000);
		CHECK_EQ_U64(sm->nr_callchain, 2);
		CHECK(sm->regs_abi == 2 && sm->regs && sm->regs[1] == 0xbbbb);
		CHECK(sm->stack && sm->stack_size == 12);
		/* the whole field (size, 16 bytes, dyn_size) for a rewrite that drops it */
		CHECK(sm->stack_field && sm->stack_field + 8 == sm->stack);
		CHECK_EQ_U64(sm->stack_field_len, 32);
		CHECK_EQ_U64(sm->weight, 77);
		CHECK_EQ_U64(sm->data_src, 0x12345);
		CHECK_EQ_U64(sm->phys_addr, 0x7000);
		CHECK_EQ_U64(sm->data_page_size, 4096);
		CHECK_EQ_U64(sm->code_page_size, 2097152);
	} else {
		CHECK(!"the sample parses");
		printf("# %s\n", err.msg);
	}
	ds_perfdata_close(pd);
	ds_buf_free(&b);
	free(path);
}

/* HEADER_BUILD_ID as perf writes it: 36 fixed bytes, the name padded to 64. */
TEST(build_id_feature)
{
	static const ds_build_id ids[] = {
		{"[kernel.kallsyms]", {0x85, 0xc7, 0xe4}, 20, true},
		{"/usr/lib/x86_64-linux-gnu/libc.so.6", {0x93, 0xac, 0x61, 0xec}, 20, false},
		{"/opt/short-id", {1, 2, 3, 4, 5, 6, 7, 8}, 8, false},
	};
	ds_buf b = {0};
	ds_build_id *got = NULL;
	size_t n = 0;
	char hex[2 * DS_BUILD_ID_MAX + 1];

	ds_build_id_feature_put(&b, ids, 3);
	CHECK_EQ_U64(b.len, 3 * (36 + 64));
	CHECK_EQ_U64(((const struct perf_event_header *)b.p)->size, 100);
	CHECK_EQ_U64(((const struct perf_event_header *)b.p)->misc,
		     PERF_RECORD_MISC_KERNEL | (1u << 15));
	ds_build_id_feature_parse(b.p, b.len, &got, &n);
	CHECK_EQ_U64(n, 3);
	if (n == 3) {
		CHECK_STR(got[0].path, "[kernel.kallsyms]");
		CHECK(got[0].kernel && !got[1].kernel);
		CHECK_EQ_U64(got[1].size, 20);
		CHECK(memcmp(got[1].id, ids[1].id, 20) == 0);
		CHECK_EQ_U64(got[2].size, 8);
		CHECK(ds_build_id_find(got, n, "/opt/short-id") == &got[2]);
		CHECK(ds_build_id_find(got, n, "/opt/other") == NULL);
		ds_build_id_hex(got[2].id, got[2].size, hex);
		CHECK_STR(hex, "0102030405060708");
	}
	ds_build_ids_free(got, n);
	/* a section cut inside its second entry keeps the first */
	got = NULL;
	n = 0;
	ds_build_id_feature_parse(b.p, 100 + 50, &got, &n);
	CHECK_EQ_U64(n, 1);
	ds_build_ids_free(got, n);
	/* an id of no bytes is none: the entry is skipped, the next one read */
	b.p[32] = 0;
	got = NULL;
	n = 0;
	ds_build_id_feature_parse(b.p, b.len, &got, &n);
	CHECK_EQ_U64(n, 2);
	if (n == 2)
		CHECK_STR(got[0].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	ds_build_ids_free(got, n);
	/* an entry whose name lacks its NUL ends the section */
	memset(b.p + 36, 'x', 64);
	got = NULL;
	n = 0;
	ds_build_id_feature_parse(b.p, b.len, &got, &n);
	CHECK_EQ_U64(n, 0);
	ds_build_ids_free(got, n);
	ds_buf_free(&b);
}

/* A rewrite keeps the other file's feature sections and replaces the
 * build-ids and the event descriptions with its own. */
TEST(rewrite_keeps_features)
{
	char *path = write_two_event_file(), *path2 = tmp_path("rewritten.data");
	static const ds_build_id ids[] = {{"/bin/prog", {0xaa, 0xbb}, 2, false}};
	ds_perfdata *pd = NULL, *pd2 = NULL;
	ds_err err = {0};
	ds_event ev[2];
	ds_pdw *w;
	ds_pdw_info info = {.clockid = -1, .build_ids = ids, .nbuild_ids = 1};
	const ds_build_id *got;
	size_t n;

	CHECK(ds_perfdata_open(path, &pd, &err) == 0);
	if (!pd) {
		free(path);
		free(path2);
		return;
	}
	ds_perfdata_build_ids(pd, &n);
	CHECK_EQ_U64(n, 0);
	ev[0] = *ds_perfdata_event(pd, 0);
	ev[1] = *ds_perfdata_event(pd, 1);
	ev[0].name = "renamed";
	info.features_from = pd;
	w = pdw_at(path2, ev, 2, &err);
	{
		struct perf_event_header fr = {68 /* FINISHED_ROUND */, 0, 8};
		CHECK(w && ds_pdw_write(w, &fr, sizeof fr, &err) == 0 && ds_pdw_finish(w, &info, &err) == 0);
	}
	CHECK(ds_perfdata_open(path2, &pd2, &err) == 0);
	if (pd2) {
		CHECK_STR(ds_perfdata_info(pd2)->hostname, "host1");
		CHECK_STR(ds_perfdata_info(pd2)->cmdline, "dsprof record x");
		CHECK_EQ_U64(ds_perfdata_info(pd2)->last_sample_time, 300);
		CHECK_STR(ds_perfdata_event(pd2, 0)->name, "renamed");
		got = ds_perfdata_build_ids(pd2, &n);
		CHECK(n == 1 && strcmp(got[0].path, "/bin/prog") == 0 && got[0].size == 2);
	}
	ds_perfdata_close(pd2);
	ds_perfdata_close(pd);
	free(path);
	free(path2);
}

/* perf record -c 10009: no PERIOD field, the attr's period is each
 * sample's; WEIGHT_STRUCT: the weight is the low 32 bits (the latency),
 * ins_lat and retire_lat above it. */
TEST(fixed_period_weight_struct)
{
	struct perf_event_attr a;
	ds_event ev = {0};
	uint64_t id = 3, cur = 0;
	ds_buf b = {0};
	ds_pdw *w;
	ds_perfdata *pd = NULL;
	ds_err err = {0};
	ds_record r;
	char *path = tmp_path("period.data");
	ds_pdw_info info = {.clockid = -1};
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 4 * 8};
	uint64_t v[4] = {3, 0x401000, 77, 120 | 7ull << 32 | 3ull << 48};

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.sample_period = 10009;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_WEIGHT_STRUCT;
	ev.name = "cycles";
	ev.attr = a;
	ev.ids = &id;
	ev.nids = 1;
	ds_buf_append(&b, &h, sizeof h);
	ds_buf_append(&b, v, sizeof v);
	w = pdw_at(path, &ev, 1, &err);
	CHECK(w && ds_pdw_write(w, b.p, b.len, &err) == 0 && ds_pdw_finish(w, &info, &err) == 0);
	CHECK(ds_perfdata_open(path, &pd, &err) == 0);
	if (pd && ds_perfdata_next(pd, &cur, &r, &err) == 1 && r.kind == DS_REC_SAMPLE) {
		CHECK_EQ_U64(r.u.sample.period, 10009);
		CHECK_EQ_U64(r.u.sample.weight, 120);
		CHECK_EQ_U64(r.u.sample.time, 77);
	} else {
		CHECK(!"the sample parses");
	}
	ds_perfdata_close(pd);
	ds_buf_free(&b);
	free(path);
}

/* Arm SPE packets, as the Arm ARM lays them out: each op's fields, the
 * extended header, alignment and padding, a record cut short, a byte that
 * is no packet, and the data sources perf derives. */
typedef struct spe_seen {
	ds_spe_op ops[4];
	int n;
} spe_seen;

static void spe_keep(const ds_spe_op *op, void *ctx)
{
	spe_seen *s = ctx;
	if (s->n < 4)
		s->ops[s->n] = *op;
	s->n++;
}

static size_t spe_put(uint8_t *b, size_t at, unsigned h, uint64_t v, unsigned len)
{
	b[at++] = (uint8_t)h;
	for (unsigned i = 0; i < len; i++)
		b[at++] = (uint8_t)(v >> 8 * i);
	return at;
}

TEST(spe_packets)
{
	uint8_t b[256];
	size_t n = 0, used;
	uint64_t bad = 0, src;
	spe_seen seen = {0};

	/* a user load: PC (EL0, non-secure), LD, events, source DRAM, context,
	 * VA, PA, latency in the extended form, timestamp */
	n = spe_put(b, n, 0xb0, 0x401234ull | 1ull << 63, 8);
	n = spe_put(b, n, 0x49, 0, 1);
	n = spe_put(b, n, 0x52, 1u << 2 | 1u << 3 | 1u << 8 | 1u << 9 | 1u << 5, 2);
	n = spe_put(b, n, 0x53, 0xe, 2);
	n = spe_put(b, n, 0x65, 4242, 4);
	n = spe_put(b, n, 0xb2, 0x5555cafe0008ull | 0x3aull << 56, 8); /* a tag in the top byte */
	n = spe_put(b, n, 0xb3, 0x1234000ull, 8);
	b[n++] = 0x20;
	n = spe_put(b, n, 0x98, 321, 2);
	n = spe_put(b, n, 0x71, 99, 8);
	/* padding, then an alignment packet to 16 bytes, then a byte that is
	 * no packet */
	b[n++] = 0x00;
	while (n % 16)
		b[n++] = 0x00;
	b[n++] = 0x20;
	b[n++] = 0x00;
	while (n % 4)
		b[n++] = 0x00;
	b[n++] = 0xff;
	/* a kernel store (EL1): PC and data address get their top byte back */
	n = spe_put(b, n, 0xb0, 0x00ffffc000001000ull | 1ull << 63 | 1ull << 61, 8);
	n = spe_put(b, n, 0x49, 1, 1);
	n = spe_put(b, n, 0xb2, 0x00ffff8000000040ull, 8);
	b[n++] = 0x01; /* END: no timestamp */
	/* a branch, cut inside its PC */
	n = spe_put(b, n, 0x4a, 0, 1);
	n = spe_put(b, n, 0xb0, 0x401300ull | 1ull << 63, 8) - 3;
	used = ds_spe_decode(b, n, spe_keep, &seen, &bad);
	CHECK_EQ_U64(seen.n, 2);
	CHECK_EQ_U64(bad, 1);
	CHECK_EQ_U64(used, n - 8); /* the branch (8 bytes so far) waits for the next chunk */
	CHECK_EQ_U64(seen.ops[0].kind, DS_SPE_LOAD);
	CHECK_EQ_U64(seen.ops[0].pc, 0x401234);
	CHECK(!seen.ops[0].kernel);
	CHECK_EQ_U64(seen.ops[0].va, 0x5555cafe0008ull);
	CHECK_EQ_U64(seen.ops[0].pa, 0x1234000ull);
	CHECK_EQ_U64(seen.ops[0].latency, 321);
	CHECK_EQ_U64(seen.ops[0].context, 4242);
	CHECK_EQ_U64(seen.ops[0].ts, 99);
	CHECK_EQ_U64(seen.ops[1].kind, DS_SPE_STORE);
	CHECK(seen.ops[1].kernel);
	CHECK_EQ_U64(seen.ops[1].pc, 0xffffffc000001000ull);
	CHECK_EQ_U64(seen.ops[1].va, 0xffffff8000000040ull);
	CHECK(!seen.ops[1].has_ts);
	/* data sources: Neoverse N1's packet says DRAM; another CPU's events
	 * say an LLC miss; both say the page walk */
	src = ds_spe_data_src(&seen.ops[0], 0x410fd0c0);
	CHECK_EQ_U64(src >> PERF_MEM_LVLNUM_SHIFT & 0xf, PERF_MEM_LVLNUM_RAM);
	CHECK_EQ_U64(src >> PERF_MEM_OP_SHIFT & 0x1f, PERF_MEM_OP_LOAD);
	CHECK_EQ_U64(src >> PERF_MEM_TLB_SHIFT & 0x7f, PERF_MEM_TLB_WK | PERF_MEM_TLB_HIT);
	src = ds_spe_data_src(&seen.ops[0], 0x410fd0b0);
	CHECK_EQ_U64(src >> PERF_MEM_LVL_SHIFT & 0x3fff, PERF_MEM_LVL_L3 | PERF_MEM_LVL_MISS);
	CHECK_EQ_U64(src >> PERF_MEM_LVLNUM_SHIFT & 0xf, PERF_MEM_LVLNUM_NA);
	/* a Neoverse store: the level is not known */
	src = ds_spe_data_src(&seen.ops[1], 0x410fd0c0);
	CHECK_EQ_U64(src >> PERF_MEM_LVL_SHIFT & 0x3fff, PERF_MEM_LVL_NA);
	CHECK_EQ_U64(src >> PERF_MEM_OP_SHIFT & 0x1f, PERF_MEM_OP_STORE);
}

TEST(attr_names)
{
	struct perf_event_attr a = {0};
	char *n;
	a.type = PERF_TYPE_HW_CACHE;
	a.config = PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
		   (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	n = ds_attr_name(&a);
	CHECK_STR(n, "L1-dcache-load-misses");
	free(n);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	n = ds_attr_name(&a);
	CHECK_STR(n, "page-faults");
	free(n);
	CHECK(ds_attr_precise(&a));
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	CHECK(!ds_attr_precise(&a));
	a.type = PERF_TYPE_RAW;
	a.config = 0x1cd;
	n = ds_attr_name(&a);
	CHECK_STR(n, "r1cd");
	free(n);
	/* a name perf prints for a file without names: modifiers from the attr */
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_guest = 1;
	n = ds_attr_perf_name(&a);
	CHECK_STR(n, "cycles");
	free(n);
	a.precise_ip = 2;
	n = ds_attr_perf_name(&a);
	CHECK_STR(n, "cycles:ppH");
	free(n);
	a.precise_ip = 0;
	a.exclude_kernel = a.exclude_hv = 1;
	n = ds_attr_perf_name(&a);
	CHECK_STR(n, "cycles:uH");
	free(n);
}

TEST(meta_roundtrip)
{
	ds_meta m, r;
	ds_err err = {0};
	char *path = tmp_path("meta.json");
	char *argv[] = {"dsprof", "record", "--", "./a b"};

	ds_meta_init(&m);
	m.argv = argv;
	m.argc = 4;
	m.host = "h\"ost";
	m.backend = "perf_event";
	m.ncaches = 1;
	m.caches[0].level = 1;
	snprintf(m.caches[0].type, sizeof m.caches[0].type, "Data");
	m.caches[0].line = 64;
	m.caches[0].size = 49152;
	m.samples = 12345678901ull;
	m.exit_status = 139;
	m.start_wall = 1700000000.25;
	CHECK(meta_write_at(&m, path, &err) == 0);
	CHECK(ds_meta_read(&r, path, &err) == 0);
	/* what the writer writes for unknown (ncpus, page_size 0) reads back
	 * as unknown, without a note */
	CHECK_EQ_U64(r.nproblems, 0);
	CHECK(r.ncpus == 0 && r.page_size == 0);
	CHECK_STR(r.host, "h\"ost");
	CHECK(r.argc == 4 && strcmp(r.argv[3], "./a b") == 0);
	CHECK(r.ncaches == 1 && r.caches[0].line == 64 && r.caches[0].size == 49152);
	CHECK_EQ_U64(r.samples, 12345678901ull);
	CHECK(r.exit_status == 139);
	CHECK(r.start_wall == 1700000000.25);
	CHECK(r.target == NULL && r.attach_pid == -1);
	ds_meta_fini(&r);
	{
		/* a JSON file that is not ours */
		int fd = open(path, O_WRONLY | O_TRUNC);
		CHECK(write(fd, "{\"a\": 1}", 8) == 8);
		close(fd);
		CHECK(ds_meta_read(&r, path, &err) < 0);
		CHECK(strstr(err.msg, "not a dsprof meta.json") != NULL);
		ds_meta_fini(&r);
	}
	free(path);
}

/* A meta.json with one value replaced: read, with what (if anything) it says. */
static bool read_edited(const char *good, const char *from, const char *to, ds_meta *r, char *said,
			size_t saidlen)
{
	char *path = tmp_path("edited.json"), *p = strstr(good, from);
	ds_buf b = {0};
	ds_err err = {0};
	bool ok;
	FILE *f;

	ds_buf_append(&b, good, (size_t)(p - good));
	ds_buf_puts(&b, to);
	ds_buf_puts(&b, p + strlen(from));
	f = fopen(path, "w");
	fputs(ds_buf_str(&b), f);
	fclose(f);
	ok = ds_meta_read(r, path, &err) == 0;
	snprintf(said, saidlen, "%s", ok && r->nproblems ? r->problems[0] : err.msg);
	ds_buf_free(&b);
	free(path);
	return ok;
}

/* Values that cannot be: one line each naming the field and the value, the
 * field unknown, everything else read. */
TEST(meta_values_checked)
{
	static const struct {
		const char *from, *to, *says;
	} cases[] = {
		{"\"page_size\": 4096", "\"page_size\": 3",
		 "meta.json: page_size 3 is not a power of two from 4096 to 1073741824 (or 0, unknown); taken as unknown"},
		{"\"page_size\": 4096", "\"page_size\": 12288",
		 "meta.json: page_size 12288 is not a power of two from 4096 to 1073741824 (or 0, unknown); taken as unknown"},
		{"\"line\": 64", "\"line\": 48",
		 "meta.json: caches[0].line 48 is not a power of two from 8 to 4096; taken as unknown"},
		{"\"ncpus\": 8", "\"ncpus\": -5",
		 "meta.json: ncpus -5 is not a whole number from 1 to 65536 (or 0, unknown); taken as unknown"},
		{"\"ncpus\": 8", "\"ncpus\": \"8\"",
		 "meta.json: ncpus \"8\" is not a whole number from 1 to 65536 (or 0, unknown); taken as unknown"},
		{"\"ns\": 1000", "\"ns\": 1e308",
		 "meta.json: start.ns 1e+308 is not a whole number from 0 to 2^64-1; taken as unknown"},
		{"\"wall\": 1700000000.25", "\"wall\": 1e308",
		 "meta.json: start.wall 1e+308 is not a time in Unix seconds from 0 to 1e+11; taken as unknown"},
		{"\"wall\": 1700000000.25", "\"wall\": -1",
		 "meta.json: start.wall -1 is not a time in Unix seconds from 0 to 1e+11; taken as unknown"},
		{"\"ns\": 2000", "\"ns\": 500", "meta.json: end.ns 500 is before start.ns 1000; taken as unknown"},
		{"\"sets\": 64", "\"sets\": 63",
		 "meta.json: caches[0].sets 63 does not make the size: 12 ways x 63 sets x 64-byte lines is not 49152 "
		 "bytes; taken as unknown"},
		{"\"ways\": 12", "\"ways\": 100000",
		 "meta.json: caches[0].ways 100000 is not a whole number from 1 to 65536 (or 0, unknown); taken as unknown"},
		{"\"level\": 1", "\"level\": 9",
		 "meta.json: caches[0].level 9 is not a whole number from 1 to 4; taken as unknown"},
		{"\"type\": \"Data\"", "\"type\": \"Dada\"",
		 "meta.json: caches[0].type \"Dada\" is not Data, Instruction or Unified; taken as unknown"},
		{"\"huge_page_size\": 2097152", "\"huge_page_size\": 4096",
		 "meta.json: huge_page_size 4096 is not a power of two from 8192 to 17179869184 (or 0, unknown); taken as unknown"},
		{"\"exit_status\": 139", "\"exit_status\": 1000",
		 "meta.json: exit_status 1000 is not a whole number from -1 to 255; taken as unknown"},
		{"\"callchains\": true", "\"callchains\": 1", "meta.json: callchains 1 is not true or false; taken as unknown"},
		{"\"clock\": \"monotonic\"", "\"clock\": \"sundial\"",
		 "meta.json: clock \"sundial\" is not monotonic, perf or logical; taken as unknown"},
		{"\"host\": \"h\"", "\"host\": 7", "meta.json: host 7 is not a string; taken as unknown"},
	};
	ds_meta m, r;
	ds_err err = {0};
	ds_buf good = {0};
	char *path = tmp_path("meta.json"), said[1024];

	ds_meta_init(&m);
	m.host = "h";
	m.ncpus = 8;
	m.page_size = 4096;
	m.huge_page_size = 2097152;
	m.clock = "monotonic";
	m.callchains = true;
	m.ncaches = 1;
	m.caches[0] = (ds_cache_level){.level = 1, .type = "Data", .size = 49152, .line = 64, .ways = 12, .sets = 64};
	m.start_wall = 1700000000.25;
	m.end_wall = 1700000001.5;
	m.start_ns = 1000;
	m.end_ns = 2000;
	m.exit_status = 139;
	CHECK(meta_write_at(&m, path, &err) == 0);
	good.p = ds_read_file(path, &good.len);
	CHECK(ds_meta_read(&r, path, &err) == 0 && r.nproblems == 0);
	ds_meta_fini(&r);
	for (size_t i = 0; good.p && i < sizeof cases / sizeof cases[0]; i++) {
		bool ok = strstr(good.p, cases[i].from) && read_edited(good.p, cases[i].from, cases[i].to, &r, said,
									  sizeof said);
		CHECK(ok);
		CHECK_STR(said, cases[i].says);
		CHECK(r.nproblems == 1);
		/* the rest is read */
		CHECK_STR(r.host ? r.host : "", strstr(cases[i].to, "host") ? "" : "h");
		CHECK(r.exit_status == (strstr(cases[i].to, "exit_status") ? -1 : 139));
		ds_meta_fini(&r);
	}
	/* 0 is unknown, as an import of another machine's recording writes it */
	CHECK(read_edited(good.p, "\"page_size\": 4096", "\"page_size\": 0", &r, said, sizeof said) &&
	      r.nproblems == 0 && r.page_size == 0);
	ds_meta_fini(&r);
	CHECK(read_edited(good.p, "\"ncpus\": 8", "\"ncpus\": 0", &r, said, sizeof said) && r.nproblems == 0 &&
	      r.ncpus == 0);
	ds_meta_fini(&r);
	/* each field is unknown, not the value that cannot be */
	CHECK(read_edited(good.p, "\"page_size\": 4096", "\"page_size\": 3", &r, said, sizeof said) &&
	      r.page_size == 0 && r.ncpus == 8);
	ds_meta_fini(&r);
	CHECK(read_edited(good.p, "\"line\": 64", "\"line\": 48", &r, said, sizeof said) && r.ncaches == 0);
	ds_meta_fini(&r);
	CHECK(read_edited(good.p, "\"sets\": 64", "\"sets\": 63", &r, said, sizeof said) && r.ncaches == 1 &&
	      r.caches[0].sets == 0 && r.caches[0].ways == 12);
	ds_meta_fini(&r);
	CHECK(read_edited(good.p, "\"wall\": 1700000000.25", "\"wall\": 1e308", &r, said, sizeof said) &&
	      r.start_wall == 0 && r.end_wall == 1700000001.5);
	ds_meta_fini(&r);
	CHECK(read_edited(good.p, "\"ns\": 2000", "\"ns\": 500", &r, said, sizeof said) && r.end_ns == 0 &&
	      r.start_ns == 1000);
	ds_meta_fini(&r);
	free(good.p);
	free(path);
}

/* A complete experiment in dir: what record leaves (meta.json last). */
static void make_complete(const char *dir)
{
	ds_meta meta;
	ds_err err = {0};
	ds_wdir *d = ds_wdir_open(dir, &err);
	int fd = d ? ds_wdir_open_file(d, "perf.data", O_WRONLY | O_CREAT, &err) : -1;

	CHECK(fd >= 0);
	close(fd);
	ds_meta_init(&meta);
	CHECK(d && ds_meta_write(&meta, d, &err) == 0);
	CHECK(d && ds_expdir_complete(d, &err) == 0);
	ds_wdir_close(d);
}

/* ds_expdir_create made dir (its handle closed at once). */
static bool created(const char *dir, ds_expdir_prev *prev, ds_err *err)
{
	ds_wdir *d = ds_expdir_create(dir, prev, err);

	ds_wdir_close(d);
	return d != NULL;
}

static bool has(const char *dir, const char *name)
{
	char *p = ds_xasprintf("%s/%s", dir, name);
	bool yes = access(p, F_OK) == 0;
	free(p);
	return yes;
}

TEST(expdir)
{
	ds_err err = {0};
	char *dir = tmp_path("exp"), *old = tmp_path("exp.old"), *pd, *mj;
	ds_expdir_prev prev;
	ds_expdir_mark_info mk;

	CHECK(created(dir, &prev, &err));
	CHECK(!prev.moved && !prev.said[0]);
	/* marked unfinished until complete */
	CHECK(ds_expdir_mark(dir, &mk) && mk.pid == getpid() && mk.boot_id[0]);
	make_complete(dir);
	CHECK(!ds_expdir_mark(dir, &mk));
	CHECK(created(dir, &prev, &err)); /* the first one becomes exp.old */
	CHECK(prev.moved && has(old, "meta.json"));
	{
		char *want = ds_xasprintf("moved the previous experiment '%s' to '%s'", dir, old);
		CHECK_STR(prev.said, want);
		free(want);
	}
	/* a recording that never started puts it back */
	CHECK(ds_expdir_discard(dir, &prev));
	CHECK(has(dir, "meta.json") && access(old, F_OK) != 0);
	CHECK(created(dir, &prev, &err) && prev.moved);
	CHECK(ds_expdir_resolve(dir, &pd, &mj, &err) < 0); /* the new one has no perf.data yet */
	/* it fails: unfinished.  The next one removes it and keeps the last complete one */
	CHECK(created(dir, &prev, &err) && !prev.moved);
	CHECK(strstr(prev.said, "a recording that never ended") && strstr(prev.said, "keeps the last complete"));
	CHECK(has(old, "meta.json") && !has(dir, "meta.json"));
	{
		char *p = ds_xasprintf("%s/perf.data", dir);
		int fd = open(p, O_WRONLY | O_CREAT, 0644);
		close(fd);
		CHECK(ds_expdir_resolve(dir, &pd, &mj, &err) == 0);
		CHECK(pd && strcmp(pd, p) == 0 && mj == NULL);
		free(pd);
		free(mj);
		free(p);
	}
	{
		char *p = ds_expdir_previous(dir);
		CHECK(p && strcmp(p, old) == 0);
		free(p);
	}
	/* complete again: the next moves it, replacing the older */
	make_complete(dir);
	CHECK(created(dir, &prev, &err) && prev.moved);
	CHECK(strstr(prev.said, "replacing the older one there") != NULL);
	make_complete(dir);
	{
		/* what dsprof did not make is never moved or removed */
		char *x = ds_xasprintf("%s/thesis.tex", old), *other = tmp_path("other"), *y = tmp_path("other/x");
		int fd = open(x, O_WRONLY | O_CREAT, 0644);
		close(fd);
		CHECK(!created(dir, &prev, &err));
		CHECK(strstr(err.msg, "holds 'thesis.tex', which dsprof does not write") != NULL);
		CHECK(has(old, "thesis.tex") && has(dir, "meta.json"));
		mkdir(other, 0755);
		fd = open(y, O_WRONLY | O_CREAT, 0644);
		close(fd);
		CHECK(!created(other, &prev, &err));
		CHECK(strstr(err.msg, "it exists and holds 'x'") != NULL);
		free(x);
		free(other);
		free(y);
	}
	free(old);
	free(dir);
}


/* ---- heap files' tallies ---- */

/* Append record rec (size bytes) at *at of chunk p. */
static void heap_put(unsigned char *p, size_t *at, const void *rec, size_t size)
{
	memcpy(p + *at, rec, size);
	*at += size;
}

/* Whether path now holds the n bytes p. */
static bool heap_write(const char *path, const unsigned char *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	bool ok = fd >= 0 && write(fd, p, n) == (ssize_t)n;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* A heap file of four chunks, summed by record's count: one with a tally
 * that says what it holds, one without (its records are read), one whose
 * tally says more than its records (the tally is taken: the chunk is not
 * read), and one cut short.  A reading skips the tallies and takes one
 * out of its place for damage. */
TEST(heap_tallies)
{
	char *dir = tmp_path("heapexp"), *hd = ds_xasprintf("%s/heap", dir), *path = ds_xasprintf("%s/1-1.heap", hd);
	size_t size = DS_HEAP_HEADER + 3 * DS_HEAP_CHUNK + 512, at;
	unsigned char *file = ds_xcalloc(1, size), *c;
	struct ds_heap_header h = {.version = DS_HEAP_VERSION, .header_size = DS_HEAP_HEADER,
				   .chunk_size = DS_HEAP_CHUNK, .pid = 1, .ppid = 1, .start_ns = 1};
	struct ds_heap_base b = {DS_HEAP_BASE, sizeof b, 7, 1000, 1ull << 32};
	struct ds_heap_salloc a1 = {DS_HEAP_SALLOC, sizeof a1, 10, 1, 64, 0x1000};
	struct ds_heap_salloc a2 = {DS_HEAP_SALLOC, sizeof a2, 20, 1, 32, 0x2000};
	struct ds_heap_sfree f1 = {DS_HEAP_SFREE, sizeof f1, 30, 0x1000};
	struct ds_heap_event e = {.type = DS_HEAP_ALLOC, .size = sizeof e, .tid = 7, .site = 1, .time = 2000,
				  .addr = 0x3000, .bytes = 16};
	struct {
		struct ds_heap_site head;
		uint64_t frame;
	} s = {{DS_HEAP_SITE, sizeof s, 1}, 0x401000};
	struct ds_heap_tally t, more = {DS_HEAP_TALLY, sizeof more, 5, 0, 0};
	ds_heap_totals tot;
	ds_heapfile *f;
	ds_heap_cursor cur = {0};
	ds_heap_rec r;
	ds_err err = {0};
	int n = 0, other = 0;

	memcpy(h.magic, DS_HEAP_MAGIC, 8);
	memcpy(file, &h, sizeof h);
	/* chunk 0: a site, two allocations and a free, tallied */
	c = file + DS_HEAP_HEADER;
	at = 0;
	heap_put(c, &at, &b, sizeof b);
	heap_put(c, &at, &s, sizeof s);
	heap_put(c, &at, &a1, sizeof a1);
	heap_put(c, &at, &a2, sizeof a2);
	heap_put(c, &at, &f1, sizeof f1);
	t = ds_heap_tally_of(c, (uint32_t)at);
	CHECK(t.allocs == 2 && t.frees == 1 && t.sites == 1);
	memcpy(c + DS_HEAP_TALLY_AT, &t, sizeof t);
	/* chunk 1: a whole allocation record, no tally: where it would be,
	 * other bytes (a site record, unread past the records' end) */
	c += DS_HEAP_CHUNK;
	at = 0;
	heap_put(c, &at, &e, sizeof e);
	memcpy(c + DS_HEAP_TALLY_AT, &s, sizeof s);
	/* chunk 2: the same, with a tally of five allocations */
	c += DS_HEAP_CHUNK;
	at = 0;
	heap_put(c, &at, &e, sizeof e);
	memcpy(c + DS_HEAP_TALLY_AT, &more, sizeof more);
	/* chunk 3, cut short: one more */
	c += DS_HEAP_CHUNK;
	at = 0;
	heap_put(c, &at, &e, sizeof e);

	CHECK(mkdir(dir, 0755) == 0 && mkdir(hd, 0755) == 0);
	CHECK(heap_write(path, file, size));
	CHECK(ds_heap_count(dir, &tot, &err) == 0);
	CHECK_EQ_U64(tot.files, 1);
	CHECK_EQ_U64(tot.allocs, 2 + 1 + 5 + 1);
	CHECK_EQ_U64(tot.frees, 1);
	CHECK_EQ_U64(tot.stacks, 1);
	CHECK_EQ_U64(tot.cut, 1);
	CHECK_EQ_U64(tot.bad_bytes, 0);

	/* a reading takes every record, tallies not among them */
	CHECK(ds_heapfile_open(path, &f, &err) == 0);
	while (ds_heapfile_next(f, &cur, &r)) {
		other += r.type != DS_HEAP_SITE && r.type != DS_HEAP_ALLOC && r.type != DS_HEAP_FREE;
		n++;
	}
	CHECK_EQ_U64(n, 4 + 3);
	CHECK_EQ_U64(other, 0);
	CHECK_EQ_U64(ds_heapfile_bad_bytes(f), 0);
	ds_heapfile_close(f);

	/* a tally out of its place (right after chunk 1's record) ends the chunk's records */
	memcpy(file + DS_HEAP_HEADER + DS_HEAP_CHUNK + sizeof e, &more, sizeof more);
	CHECK(heap_write(path, file, size));
	CHECK(ds_heapfile_open(path, &f, &err) == 0);
	memset(&cur, 0, sizeof cur);
	n = 0;
	while (ds_heapfile_next(f, &cur, &r))
		n++;
	CHECK_EQ_U64(n, 4 + 3);
	CHECK_EQ_U64(ds_heapfile_bad_bytes(f), DS_HEAP_CHUNK - sizeof e);
	ds_heapfile_close(f);

	/* files of the versions before tallies are read; a later one is not */
	for (uint32_t v = 1; v <= DS_HEAP_VERSION + 1; v++) {
		struct ds_heap_header *hp = (struct ds_heap_header *)file;
		int rc;
		hp->version = v;
		CHECK(heap_write(path, file, size));
		rc = ds_heapfile_open(path, &f, &err);
		if (v <= DS_HEAP_VERSION)
			CHECK(rc == 0);
		else
			CHECK(rc < 0 && err.kind == DS_EINPUT);
		ds_heapfile_close(rc == 0 ? f : NULL);
	}
	free(file);
	free(path);
	free(hd);
	free(dir);
}

/* An image's end record (version 4) comes out as it went in: how the
 * image ended and the signal; a header's flags say whether the tracker
 * lost its file to the program. */
TEST(heap_ends)
{
	char *path = tmp_path("ends.heap");
	size_t size = DS_HEAP_HEADER + DS_HEAP_CHUNK, at = 0;
	unsigned char *file = ds_xcalloc(1, size);
	struct ds_heap_header h = {.version = DS_HEAP_VERSION, .header_size = DS_HEAP_HEADER,
				   .chunk_size = DS_HEAP_CHUNK, .pid = 2, .flags = DS_HEAP_F_TAKEN};
	struct ds_heap_event e = {.type = DS_HEAP_ENDS, .size = sizeof e, .fn = DS_HEAP_BY_SIGNAL, .tid = 2,
				  .time = 5, .bytes = 15};
	ds_heapfile *f;
	ds_heap_cursor cur = {0};
	ds_heap_rec r;
	ds_err err = {0};

	memcpy(h.magic, DS_HEAP_MAGIC, 8);
	memcpy(file, &h, sizeof h);
	heap_put(file + DS_HEAP_HEADER, &at, &e, sizeof e);
	CHECK(heap_write(path, file, size));
	CHECK(ds_heapfile_open(path, &f, &err) == 0);
	CHECK(!ds_heapfile_info(f)->lost);
	CHECK(ds_heapfile_next(f, &cur, &r) == 1);
	CHECK_EQ_U64(r.type, DS_HEAP_ENDS);
	CHECK_EQ_U64(r.fn, DS_HEAP_BY_SIGNAL);
	CHECK_EQ_U64(r.bytes, 15);
	CHECK(ds_heapfile_next(f, &cur, &r) == 0);
	CHECK_EQ_U64(ds_heapfile_bad_bytes(f), 0);
	ds_heapfile_close(f);
	((struct ds_heap_header *)file)->flags |= DS_HEAP_F_LOST;
	CHECK(heap_write(path, file, size));
	CHECK(ds_heapfile_open(path, &f, &err) == 0);
	CHECK(ds_heapfile_info(f)->lost);
	ds_heapfile_close(f);
	free(file);
	free(path);
}


/* A member added to a group whose index's last line has no newline (cut
 * short, or edited by hand) gets a line of its own: the group reads after
 * as before, with both members. */
TEST(group_add_after_cut_line)
{
	ds_err err = {0};
	char *g = tmp_path("group-cut"), *index = tmp_path("group-cut/group"), *run1 = tmp_path("group-cut/run.1"), *path = NULL, *note = NULL;
	static const char cut[] = "dsprof-group 1\nrun.1\trun\t1";
	ds_group_member *mv = NULL;
	size_t n = 0;
	int64_t got = 0;
	FILE *f;

	CHECK(ds_group_make(g, &err) == 0);
	CHECK(mkdir(run1, 0755) == 0);
	CHECK((f = fopen(index, "w")) && fwrite(cut, 1, sizeof cut - 1, f) == sizeof cut - 1 && fclose(f) == 0);
	CHECK(ds_group_reserve(g, "run", 0, NULL, &path, &got, &err) == 0 && got == 2);
	CHECK(path && ds_group_add(g, path, "run", got, &err) == 0);
	CHECK(ds_group_members(g, &mv, &n, &note, &err) == 0);
	CHECK_EQ_U64(n, 2);
	CHECK(n == 2 && !strcmp(mv[0].name, "run.1") && !strcmp(mv[1].name, "run.2") && mv[1].id == 2);
	CHECK(note == NULL);
	ds_group_members_free(mv, n);
	free(note);
	free(path);
	free(run1);
	free(index);
	free(g);
}
int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/dsprof-unit.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	RUN(roundtrip);
	RUN(salvage_cut);
	RUN(salvage_cut_time_overflow);
	RUN(salvage_corrupt_record);
	RUN(salvage_corrupt_record_unordered);
	RUN(salvage_corrupt_record_none_later);
	RUN(salvage_resync_misaligned);
	RUN(salvage_unpaddable_record);
	RUN(salvage_features);
	RUN(salvage_bad_attr);
	RUN(unfinished_recording_is_readable);
	RUN(compressed_records);
	RUN(compressed_records_under_ulimit);
	RUN(pipe_mode);
	RUN(all_sample_fields);
	RUN(build_id_feature);
	RUN(rewrite_keeps_features);
	RUN(fixed_period_weight_struct);
	RUN(spe_packets);
	RUN(attr_names);
	RUN(meta_roundtrip);
	RUN(meta_values_checked);
	RUN(expdir);
	RUN(heap_tallies);
	RUN(heap_ends);
	RUN(group_add_after_cut_line);
	{
		char *cmd = ds_xasprintf("rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
		free(cmd);
	}
	return unit_done();
}
