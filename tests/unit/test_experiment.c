/* Unit tests for experiment/: perf.data writing and validated reading, meta.json. */
#include "experiment/experiment.h"
#include "tests/unit/unit.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[64];

static char *tmp_path(const char *name)
{
	return ds_xasprintf("%s/%s", tmpdir, name);
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

static char *write_two_event_file(void)
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

	w = ds_pdw_create(path, ev, 2, &err);
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
	CHECK(ds_pdw_write(w, recs.p, recs.len, &err) == 0);
	CHECK(ds_pdw_finish(w, &info, &err) == 0);
	ds_buf_free(&recs);
	ds_buf_free(&mm);
	return path;
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

static size_t file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? (size_t)st.st_size : 0;
}

static int reopen_err(const char *path, ds_err *err)
{
	ds_perfdata *pd = NULL;
	ds_record r;
	uint64_t cur = 0;
	int rc = ds_perfdata_open(path, &pd, err);
	if (rc == 0) {
		while ((rc = ds_perfdata_next(pd, &cur, &r, err)) > 0)
			;
		ds_perfdata_close(pd);
	}
	return rc;
}

TEST(truncated_and_corrupt)
{
	char *path = write_two_event_file();
	size_t sz = file_size(path);
	ds_err err = {0};
	char *img, *t = tmp_path("cut.data");
	size_t len;
	int fd;

	img = ds_read_file(path, &len);
	CHECK(img && len == sz);
	/* cut in the middle of the data: the header says more than is there */
	fd = open(t, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(write(fd, img, 300) == 300);
	close(fd);
	CHECK(reopen_err(t, &err) < 0);
	CHECK(strstr(err.msg, "truncated at byte 300") != NULL);
	CHECK(err.kind == DS_EINPUT);

	/* a record whose size field is zero */
	{
		uint64_t data_off;
		memcpy(&data_off, img + 40, 8);
		img[data_off + 6] = 0;
		img[data_off + 7] = 0;
		fd = open(t, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		CHECK(write(fd, img, len) == (ssize_t)len);
		close(fd);
		CHECK(reopen_err(t, &err) < 0);
		CHECK(strstr(err.msg, "corrupt perf.data at byte") != NULL);
	}
	/* not perf.data at all */
	fd = open(t, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(write(fd, "\177ELF this is no perf data at all..", 35) == 35);
	close(fd);
	CHECK(reopen_err(t, &err) < 0);
	CHECK(strstr(err.msg, "not a perf.data file") != NULL);
	/* empty */
	fd = open(t, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	close(fd);
	CHECK(reopen_err(t, &err) < 0);
	CHECK(strstr(err.msg, "empty") != NULL);
	/* missing */
	CHECK(reopen_err("/nonexistent/perf.data", &err) < 0);
	CHECK(strstr(err.msg, "cannot open '/nonexistent/perf.data'") != NULL);
	free(img);
	free(t);
	free(path);
}

TEST(unfinished_recording_is_readable)
{
	/* data size 0 in the header: a recording killed before it finished */
	char *path = write_two_event_file();
	size_t len;
	char *img = ds_read_file(path, &len);
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
		ds_perfdata_close(pd);
	}
	free(img);
	free(t);
	free(path);
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
	put_sample(&b, 5, 0x1234, 1, 1, 10, 0, false, -1);
	CHECK(ds_perfdata_open_mem(b.p, b.len, "pipe", &pd, &err) == 0);
	if (pd) {
		CHECK(ds_perfdata_info(pd)->pipe_mode);
		CHECK_STR(ds_perfdata_event(pd, 0)->name, "piped-clock");
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
	w = ds_pdw_create(path, &ev, 1, &err);
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
	w = ds_pdw_create(path2, ev, 2, &err);
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
	CHECK(ds_meta_write(&m, path, &err) == 0);
	CHECK(ds_meta_read(&r, path, &err) == 0);
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

TEST(expdir)
{
	ds_err err = {0};
	char *dir = tmp_path("exp"), *pd, *mj, *f;
	bool moved;
	int fd;

	CHECK(ds_expdir_create(dir, &moved, &err) == 0);
	CHECK(!moved);
	f = ds_xasprintf("%s/perf.data", dir);
	fd = open(f, O_WRONLY | O_CREAT, 0644);
	close(fd);
	CHECK(ds_expdir_create(dir, &moved, &err) == 0); /* the first one becomes exp.old */
	CHECK(moved);
	{
		char *old = ds_xasprintf("%s.old/perf.data", dir);
		CHECK(access(old, F_OK) == 0);
		/* a recording that never started puts it back */
		ds_expdir_discard(dir, moved);
		CHECK(access(f, F_OK) == 0 && access(old, F_OK) != 0);
		CHECK(ds_expdir_create(dir, &moved, &err) == 0 && moved);
		free(old);
	}
	CHECK(ds_expdir_resolve(dir, &pd, &mj, &err) < 0); /* the new one has no perf.data yet */
	fd = open(f, O_WRONLY | O_CREAT, 0644);
	close(fd);
	CHECK(ds_expdir_resolve(dir, &pd, &mj, &err) == 0);
	CHECK(pd && strcmp(pd, f) == 0 && mj == NULL);
	free(pd);
	free(mj);
	{
		/* a directory that holds other things is not ours to move */
		char *other = tmp_path("other"), *x = tmp_path("other/x");
		mkdir(other, 0755);
		fd = open(x, O_WRONLY | O_CREAT, 0644);
		close(fd);
		CHECK(ds_expdir_create(other, &moved, &err) < 0);
		CHECK(strstr(err.msg, "not an experiment") != NULL);
		free(other);
		free(x);
	}
	free(f);
	free(dir);
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/dsprof-unit.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	RUN(roundtrip);
	RUN(truncated_and_corrupt);
	RUN(unfinished_recording_is_readable);
	RUN(pipe_mode);
	RUN(all_sample_fields);
	RUN(build_id_feature);
	RUN(rewrite_keeps_features);
	RUN(attr_names);
	RUN(meta_roundtrip);
	RUN(expdir);
	{
		char *cmd = ds_xasprintf("rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
		free(cmd);
	}
	return unit_done();
}
