/*
 * mkperf: write perf.data files with the kernel's and perf's layouts for
 * features this machine cannot record (no PMU, no tracefs), for tests.
 *
 *   mkperf mem OUT      a precise load event sampling ADDR, DATA_SRC and
 *                       WEIGHT, as `perf mem record` writes it: 300 user
 *                       samples on a heap line, 200 kernel samples on a kernel
 *                       line; every data source says load, of 90 cycles on
 *                       the heap line and 30 on the kernel one
 *   mkperf ibs OUT      AMD IBS op samples, data sources as the kernel decodes
 *                       them: 100 loads from local DRAM (300 cycles), 60 from
 *                       another node's (500, after a page walk), and two
 *                       threads on one line: 40 loads of another CCX's
 *                       modified copy (150) and 40 stores (L1, no latency)
 *   mkperf period OUT   `-c 10009` (no PERIOD field) with WEIGHT_STRUCT: 400
 *                       samples, weight 120 each (ins_lat 7, retire_lat 3 above)
 *   mkperf cache OUT    pipe mode with HEADER_CACHE (CPU 0: L1d 128-byte lines,
 *                       L2) and 250 samples with addresses on one line
 *   mkperf tracing OUT  pipe mode with a TRACING_DATA record (12-byte header,
 *                       then its payload) before 150 samples
 *   mkperf spe OUT MIDR Arm SPE records in AUXTRACE records, as perf record
 *                       -e arm_spe_0// writes them (a CPU's buffer, split in
 *                       two chunks inside a record; TIME_CONV; the thread in
 *                       context packets), recorded on a CPU with MIDR (hex):
 *                       100 loads from DRAM (300 cycles), 60 from another
 *                       socket (500, after a page walk), two threads on one
 *                       line: 40 loads from the other's core (150) and 40
 *                       stores; 20 branches
 *   mem, ibs and spe take OBJECT OFF1 OFF2 after their arguments: the
 *                       samples' instructions are then at those offsets of
 *                       OBJECT (mapped at 0x7f0000000000), the first group's
 *                       at OFF1, the second's at OFF2, and so on in turn
 *   mkperf buildid OUT OBJECT HEX OFFSET [pipe]
 *                       a recording of another machine: OBJECT mapped at
 *                       0x7f0000000000 from its start, 200 samples at OFFSET
 *                       in it, HEADER_BUILD_ID giving OBJECT the build-id HEX
 *                       (in pipe mode, a HEADER_BUILD_ID record before the
 *                       samples, as 'perf inject -b' writes it)
 *
 * Otherwise every sample lies in /opt/mkperf/prog, mapped at 0x400000 by
 * pid 42.
 */
#include "experiment/experiment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PID 42
#define PROG "/opt/mkperf/prog"
#define KERNEL_IP 0xffffffff81234560ull
#define KERNEL_LINE 0xffff888012345600ull
#define HEAP_LINE 0x5555deadbe00ull
#define OBJECT_BASE 0x7f0000000000ull

static void fix_size(ds_buf *b, size_t start)
{
	uint16_t size = (uint16_t)(b->len - start);
	memcpy(b->p + start + 6, &size, 2);
}

static void header(ds_buf *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {type, misc, 0};
	ds_buf_append(b, &h, sizeof h);
}

static void u64(ds_buf *b, uint64_t v)
{
	ds_buf_append(b, &v, 8);
}

static void map_object(ds_buf *b, const struct perf_event_attr *a, uint64_t id, const char *path,
		       uint64_t base, uint64_t len)
{
	size_t start = b->len;
	uint32_t pt[2] = {PID, PID}, dev[2] = {8, 1}, prot[2] = {5, 2};
	static const char zeros[8];
	header(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	ds_buf_append(b, pt, 8);
	u64(b, base);
	u64(b, len);
	u64(b, 0);
	ds_buf_append(b, dev, 8);
	u64(b, 1234);
	u64(b, 0);
	ds_buf_append(b, prot, 8);
	ds_buf_append(b, path, strlen(path));
	ds_buf_append(b, zeros, 8 - strlen(path) % 8); /* NUL-terminated, padded to 8 */
	ds_sample_id_append(b, a, PID, PID, 1, id, 0);
	fix_size(b, start);
}

/* The program the samples' instructions are in: PROG, or an OBJECT with
 * two offsets of instructions in it. */
static const char *object;
static uint64_t object_off[2];

static void mmap2(ds_buf *b, const struct perf_event_attr *a, uint64_t id)
{
	if (object)
		map_object(b, a, id, object, OBJECT_BASE, (object_off[0] > object_off[1] ? object_off[0] : object_off[1]) + 0x100000);
	else
		map_object(b, a, id, PROG, 0x400000, 0x10000);
}

/* The instruction of the samples of group g (or of PROG's address ip). */
static uint64_t code_at(int g, uint64_t ip)
{
	return object ? OBJECT_BASE + object_off[g % 2] : ip;
}

/* A sample of thread tid of process PID in the attr's sample_type order,
 * for the fields these files use. */
static void sample_of(ds_buf *b, const struct perf_event_attr *a, uint64_t id, uint32_t tid, uint16_t misc,
		      uint64_t ip, uint64_t time, uint64_t addr, uint64_t weight, uint64_t data_src)
{
	size_t start = b->len;
	uint64_t t = a->sample_type;
	header(b, PERF_RECORD_SAMPLE, misc);
	if (t & PERF_SAMPLE_IDENTIFIER) u64(b, id);
	if (t & PERF_SAMPLE_IP) u64(b, ip);
	if (t & PERF_SAMPLE_TID) u64(b, (uint64_t)tid << 32 | PID);
	if (t & PERF_SAMPLE_TIME) u64(b, time);
	if (t & PERF_SAMPLE_ADDR) u64(b, addr);
	if (t & PERF_SAMPLE_CPU) u64(b, 0);
	if (t & PERF_SAMPLE_PERIOD) u64(b, a->sample_period);
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) u64(b, weight);
	if (t & PERF_SAMPLE_DATA_SRC) u64(b, data_src);
	fix_size(b, start);
}

/* One of the main thread. */
static void sample(ds_buf *b, const struct perf_event_attr *a, uint64_t id, uint16_t misc, uint64_t ip,
		   uint64_t time, uint64_t addr, uint64_t weight, uint64_t data_src)
{
	sample_of(b, a, id, PID, misc, ip, time, addr, weight, data_src);
}

static void attr_init(struct perf_event_attr *a, uint64_t sample_type, uint64_t period)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_RAW;
	a->config = 0x1cd;
	a->precise_ip = 2;
	a->sample_period = period;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | sample_type;
	a->sample_id_all = 1;
	a->exclude_guest = 1;
}

static int write_file(const char *out, const char *name, const struct perf_event_attr *a, const ds_buf *recs,
		      const ds_build_id *ids, size_t nids, const char *cpuid)
{
	uint64_t id = 7;
	ds_event ev = {.name = (char *)name, .attr = *a, .ids = &id, .nids = 1};
	char *argv[] = {"perf", "record"};
	ds_pdw_info info = {.hostname = "elsewhere", .osrelease = "6.1.0-mkperf", .version = "6.1",
			    .arch = "x86_64", .cpudesc = "mkperf", .nr_cpus_online = 1, .nr_cpus_avail = 1,
			    .argc = 2, .argv = argv, .clockid = -1, .build_ids = ids, .nbuild_ids = nids,
			    .cpuid = cpuid};
	ds_err err = {0};
	const char *slash = strrchr(out, '/'), *file = slash ? slash + 1 : out;
	char *dir = slash ? ds_xstrndup(out, (size_t)(slash - out + (slash == out))) : ds_xstrdup(".");
	ds_wdir *d = ds_wdir_open(dir, &err);
	/* a file made anew, as dsprof makes every file */
	ds_pdw *w = d && !ds_wdir_unlink(d, file, &err) ? ds_pdw_create(d, file, false, &ev, 1, &err) : NULL;

	ds_wdir_close(d);
	free(dir);
	if (!w || ds_pdw_write(w, recs->p, recs->len, &err) || ds_pdw_finish(w, &info, &err)) {
		fprintf(stderr, "mkperf: %s\n", err.msg);
		return 1;
	}
	return 0;
}

/* data_src: a load (PERF_MEM_OP_LOAD) that hit L1 */
#define LOAD_L1 ((uint64_t)PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT | (uint64_t)PERF_MEM_LVL_L1 << PERF_MEM_LVL_SHIFT)

static int mem(const char *out)
{
	struct perf_event_attr a;
	ds_buf b = {0};
	uint64_t t = 1000;
	int rc;

	attr_init(&a, PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC, 2003);
	mmap2(&b, &a, 7);
	for (int i = 0; i < 500; i++) {
		bool kernel = i % 5 >= 3;
		sample(&b, &a, 7, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
		       kernel ? KERNEL_IP : code_at(i % 2, 0x401000 + (uint64_t)(i % 7) * 4), t += 1000,
		       (kernel ? KERNEL_LINE : HEAP_LINE) + (uint64_t)(i % 8) * 8, kernel ? 30 : 90, LOAD_L1);
	}
	rc = write_file(out, "cpu/mem-loads,ldlat=30/P", &a, &b, NULL, 0, NULL);
	ds_buf_free(&b);
	return rc;
}

/* data_src as the kernel decodes an AMD IBS op (arch/x86/events/amd/ibs.c,
 * perf_ibs_get_data_src): the level number, remote, snoop and TLB fields */
#define SRC(op, lvlnum, remote, snoop, tlb)                                                          \
	((uint64_t)(op) << PERF_MEM_OP_SHIFT | (uint64_t)(lvlnum) << PERF_MEM_LVLNUM_SHIFT |          \
	 (uint64_t)(remote) << PERF_MEM_REMOTE_SHIFT | (uint64_t)(snoop) << PERF_MEM_SNOOP_SHIFT |    \
	 (uint64_t)(tlb) << PERF_MEM_TLB_SHIFT)
#define IBS_LINE(n) (0x5555cafe0000ull + (n) * 64)

static int ibs(const char *out)
{
	struct perf_event_attr a;
	ds_buf b = {0};
	uint64_t t = 1000, hit = PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT;
	int rc;

	attr_init(&a, PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC, 100000);
	a.type = 11; /* the ibs_op PMU's dynamic type */
	a.config = 0;
	a.precise_ip = 0;
	mmap2(&b, &a, 7);
	for (int i = 0; i < 100; i++) /* local DRAM, 300 cycles */
		sample_of(&b, &a, 7, PID, PERF_RECORD_MISC_USER, code_at(0, 0x401000), t += 1000, IBS_LINE(0) + i % 8 * 8, 300,
			  SRC(PERF_MEM_OP_LOAD, PERF_MEM_LVLNUM_RAM, 0, PERF_MEM_SNOOP_NONE, hit));
	for (int i = 0; i < 60; i++) /* another node's DRAM, 500 cycles, after a page walk */
		sample_of(&b, &a, 7, PID, PERF_RECORD_MISC_USER, code_at(1, 0x401010), t += 1000, IBS_LINE(1) + i % 8 * 8, 500,
			  SRC(PERF_MEM_OP_LOAD, PERF_MEM_LVLNUM_RAM, PERF_MEM_REMOTE_REMOTE, PERF_MEM_SNOOP_NONE,
			      PERF_MEM_TLB_WK | PERF_MEM_TLB_HIT));
	for (int i = 0; i < 40; i++) { /* two threads on one line: another CCX's modified copy */
		uint32_t tid = PID + (uint32_t)(i % 2);
		sample_of(&b, &a, 7, tid, PERF_RECORD_MISC_USER, code_at(2, 0x401020), t += 1000, IBS_LINE(2) + (tid - PID) * 32,
			  150, SRC(PERF_MEM_OP_LOAD, PERF_MEM_LVLNUM_ANY_CACHE, PERF_MEM_REMOTE_REMOTE,
				   PERF_MEM_SNOOP_HITM, hit));
		sample_of(&b, &a, 7, tid, PERF_RECORD_MISC_USER, code_at(3, 0x401030), t += 1000, IBS_LINE(2) + (tid - PID) * 32,
			  0, SRC(PERF_MEM_OP_STORE, PERF_MEM_LVLNUM_L1, 0, PERF_MEM_SNOOP_NONE, hit));
	}
	rc = write_file(out, "ibs_op//", &a, &b, NULL, 0, NULL);
	ds_buf_free(&b);
	return rc;
}

/* ---- Arm SPE ---- */

/* an SPE packet: a header byte (or two), then a little-endian payload */
static void spe_packet(ds_buf *b, unsigned h, uint64_t v, unsigned len)
{
	uint8_t c = (uint8_t)h;
	ds_buf_append(b, &c, 1);
	ds_buf_append(b, &v, len);
}

enum { SPE_LOAD, SPE_STORE, SPE_BRANCH };

/* One SPE record: PC (EL0, non-secure), the operation, its events, the
 * data source, the thread, the data address and the total latency (in
 * the extended header form when ext), ended by the timestamp. */
static void spe_record(ds_buf *b, uint64_t pc, int op, unsigned events, unsigned source, uint32_t tid,
		       uint64_t va, unsigned latency, bool ext, uint64_t ts)
{
	spe_packet(b, 0xb0, pc | 1ull << 63, 8);
	spe_packet(b, op == SPE_BRANCH ? 0x4a : 0x49, op == SPE_STORE, 1);
	spe_packet(b, 0x52, events, 2);
	if (op == SPE_LOAD)
		spe_packet(b, 0x53, source, 2);
	spe_packet(b, 0x65, tid, 4);
	if (op != SPE_BRANCH) {
		spe_packet(b, 0xb2, va, 8);
		spe_packet(b, 0xb3, va - 0x5555c0000000ull, 8);
	}
	if (ext) {
		uint8_t x = 0x20;
		ds_buf_append(b, &x, 1);
	}
	spe_packet(b, 0x98, latency, 2);
	spe_packet(b, 0x71, ts, 8);
}

/* The events of a load that missed the L1 and the LLC, and a remote one */
#define SPE_EV_DRAM (1u << 1 | 1u << 2 | 1u << 3 | 1u << 4 | 1u << 8 | 1u << 9)
#define SPE_EV_REMOTE (SPE_EV_DRAM | 1u << 5 | 1u << 10)
#define SPE_EV_L1 (1u << 1 | 1u << 2 | 1u << 4)

static void auxtrace(ds_buf *b, const void *data, uint64_t size, uint64_t offset)
{
	size_t start = b->len;
	uint32_t idx_tid_cpu[4] = {0, UINT32_MAX, 0, 0};
	header(b, 71 /* AUXTRACE */, 0);
	u64(b, size);
	u64(b, offset);
	u64(b, 0x1234);
	ds_buf_append(b, idx_tid_cpu, 16);
	fix_size(b, start);
	ds_buf_append(b, data, size);
}

static int spe(const char *out, const char *midr)
{
	struct perf_event_attr a;
	ds_buf b = {0}, aux = {0};
	uint64_t ts = 1000, conv[6] = {0, 1, 0, 0, 0, 0}, info[4] = {4 /* ARM_SPE */, 8, 1};
	uint64_t id = 7, cut;
	size_t start;
	int rc;

	attr_init(&a, 0, 1024);
	a.type = 8; /* the arm_spe_0 PMU's dynamic type */
	a.config = 0;
	a.precise_ip = 0;
	mmap2(&b, &a, id);
	/* the second thread, which only context packets name */
	start = b.len;
	header(&b, PERF_RECORD_COMM, 0);
	{
		uint32_t pt[2] = {PID, PID + 1};
		char comm[8] = "worker";
		ds_buf_append(&b, pt, 8);
		ds_buf_append(&b, comm, 8);
	}
	ds_sample_id_append(&b, &a, PID, PID + 1, 1, id, 0);
	fix_size(&b, start);
	/* TIME_CONV: shift 0, mult 1, zero 0: a timestamp is its nanosecond */
	start = b.len;
	header(&b, 79, 0);
	ds_buf_append(&b, conv, sizeof conv);
	fix_size(&b, start);
	/* AUXTRACE_INFO: the type, then version 1's PMU type and per-CPU flag */
	start = b.len;
	header(&b, 70, 0);
	ds_buf_append(&b, info, 24);
	fix_size(&b, start);
	for (int i = 0; i < 100; i++)
		spe_record(&aux, code_at(0, 0x401000), SPE_LOAD, SPE_EV_DRAM, 0xe, PID, IBS_LINE(0) + i % 8 * 8, 300,
			   i % 2, ts += 1000);
	/* two chunks of the buffer, the cut a few bytes into the 101st record */
	cut = (aux.len + 5 + 7) / 8 * 8;
	for (int i = 0; i < 60; i++)
		spe_record(&aux, code_at(1, 0x401010), SPE_LOAD, SPE_EV_REMOTE, 0xd, PID, IBS_LINE(1) + i % 8 * 8, 500,
			   false, ts += 1000);
	for (int i = 0; i < 40; i++) {
		uint32_t tid = PID + (uint32_t)(i % 2);
		spe_record(&aux, code_at(2, 0x401020), SPE_LOAD, SPE_EV_L1 | 1u << 3, 0x9, tid,
			   IBS_LINE(2) + (tid - PID) * 32, 150, false, ts += 1000);
		spe_record(&aux, code_at(3, 0x401030), SPE_STORE, SPE_EV_L1, 0, tid, IBS_LINE(2) + (tid - PID) * 32, 0,
			   false, ts += 1000);
	}
	for (int i = 0; i < 20; i++)
		spe_record(&aux, code_at(0, 0x401040), SPE_BRANCH, 1u << 1, 0, PID, 0, 2, false, ts += 1000);
	while (aux.len % 8) /* padding packets, to the 8 bytes records keep */
		spe_packet(&aux, 0x00, 0, 0);
	auxtrace(&b, aux.p, cut, 0);
	auxtrace(&b, aux.p + cut, aux.len - cut, cut);
	rc = write_file(out, "arm_spe_0//", &a, &b, NULL, 0, midr);
	ds_buf_free(&aux);
	ds_buf_free(&b);
	return rc;
}

static int period(const char *out)
{
	struct perf_event_attr a;
	ds_buf b = {0};
	uint64_t t = 1000;
	int rc;

	attr_init(&a, PERF_SAMPLE_WEIGHT_STRUCT, 10009);
	mmap2(&b, &a, 7);
	for (int i = 0; i < 400; i++)
		sample(&b, &a, 7, PERF_RECORD_MISC_USER, 0x401000 + (uint64_t)(i % 3) * 16, t += 1000, 0,
		       120 | 7ull << 32 | 3ull << 48, 0);
	rc = write_file(out, "cycles", &a, &b, NULL, 0, NULL);
	ds_buf_free(&b);
	return rc;
}

/* ---- pipe mode ---- */

static void pipe_start(ds_buf *b, const struct perf_event_attr *a, uint64_t id)
{
	uint64_t magic = 0x32454c4946524550ull, sixteen = 16;
	size_t start;
	ds_buf_append(b, &magic, 8);
	ds_buf_append(b, &sixteen, 8);
	start = b->len;
	header(b, 64 /* HEADER_ATTR */, 0);
	ds_buf_append(b, a, sizeof *a);
	u64(b, id);
	fix_size(b, start);
}

/* perf's feature string: u32 length (NUL included, padded to 64), bytes */
static void feat_string(ds_buf *b, const char *s)
{
	char pad[64] = {0};
	uint32_t n = (uint32_t)((strlen(s) + 1 + 63) / 64 * 64);
	snprintf(pad, sizeof pad, "%s", s);
	ds_buf_append(b, &n, 4);
	ds_buf_append(b, pad, n);
}

static void cache_feature(ds_buf *b)
{
	static const struct {
		uint32_t v[4]; /* level, line, sets, ways */
		const char *type, *size, *map;
	} c[] = {
		{{1, 128, 64, 8}, "Data", "64K", "0"},
		{{1, 128, 64, 8}, "Instruction", "64K", "0"},
		{{2, 128, 1024, 16}, "Unified", "2048K", "0-3"},
		{{1, 128, 64, 8}, "Data", "64K", "1"},
	};
	uint32_t head[2] = {1, 4};
	size_t start = b->len;
	header(b, 80 /* HEADER_FEATURE */, 0);
	u64(b, 20 /* HEADER_CACHE */);
	ds_buf_append(b, head, 8);
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		ds_buf_append(b, c[i].v, 16);
		feat_string(b, c[i].type);
		feat_string(b, c[i].size);
		feat_string(b, c[i].map);
	}
	fix_size(b, start);
}

static int write_pipe(const char *out, const ds_buf *b)
{
	FILE *f = fopen(out, "wb");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f)) {
		perror(out);
		return 1;
	}
	return 0;
}

static int cache(const char *out)
{
	struct perf_event_attr a;
	ds_buf b = {0};
	uint64_t t = 1000;
	int rc;

	attr_init(&a, PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC, 1000);
	pipe_start(&b, &a, 7);
	cache_feature(&b);
	mmap2(&b, &a, 7);
	for (int i = 0; i < 250; i++)
		sample(&b, &a, 7, PERF_RECORD_MISC_USER, 0x401000, t += 1000, HEAP_LINE + (uint64_t)(i % 16) * 8,
		       0, LOAD_L1);
	rc = write_pipe(out, &b);
	ds_buf_free(&b);
	return rc;
}

static int tracing(const char *out)
{
	struct perf_event_attr a;
	ds_buf b = {0};
	uint64_t t = 1000;
	static const char payload[40] = "\x17\x08\x44tracing0.6";
	uint32_t size = sizeof payload;
	int rc;

	attr_init(&a, PERF_SAMPLE_PERIOD, 1000);
	pipe_start(&b, &a, 7);
	/* struct perf_record_header_tracing_data: header and a u32, 12 bytes;
	 * the data follows, padded to 8, and its size says so */
	header(&b, 66 /* HEADER_TRACING_DATA */, 0);
	ds_buf_append(&b, &size, 4);
	fix_size(&b, b.len - 12);
	ds_buf_append(&b, payload, size);
	mmap2(&b, &a, 7);
	for (int i = 0; i < 150; i++)
		sample(&b, &a, 7, PERF_RECORD_MISC_USER, 0x401000 + (uint64_t)(i % 5) * 8, t += 1000, 0, 0, 0);
	rc = write_pipe(out, &b);
	ds_buf_free(&b);
	return rc;
}

static bool parse_hex(const char *hex, ds_build_id *b)
{
	size_t n = strlen(hex);
	if (n % 2 || n == 0 || n / 2 > DS_BUILD_ID_MAX)
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		b->id[i] = (uint8_t)v;
	}
	b->size = (uint8_t)(n / 2);
	return true;
}

static int buildid(const char *out, const char *obj, const char *hex, const char *offset, bool pipe)
{
	struct perf_event_attr a;
	ds_build_id bid = {.path = (char *)obj};
	ds_buf b = {0}, feat = {0};
	uint64_t t = 1000, off = strtoull(offset, NULL, 0);
	uint32_t type = 67; /* HEADER_BUILD_ID: the feature's entry as a record */
	int rc;

	if (!parse_hex(hex, &bid)) {
		fprintf(stderr, "mkperf: '%s' is not a build-id in hex\n", hex);
		return 2;
	}
	attr_init(&a, PERF_SAMPLE_PERIOD, 1000);
	if (pipe) {
		pipe_start(&b, &a, 7);
		ds_build_id_feature_put(&feat, &bid, 1);
		memcpy(feat.p, &type, 4);
		ds_buf_append(&b, feat.p, feat.len);
	}
	map_object(&b, &a, 7, obj, OBJECT_BASE, off + 0x100000);
	for (int i = 0; i < 200; i++)
		sample(&b, &a, 7, PERF_RECORD_MISC_USER, OBJECT_BASE + off, t += 1000, 0, 0, 0);
	rc = pipe ? write_pipe(out, &b) : write_file(out, "cycles", &a, &b, &bid, 1, NULL);
	ds_buf_free(&feat);
	ds_buf_free(&b);
	return rc;
}

/* OBJECT OFF1 OFF2 at argv[at], when there */
static bool take_object(int argc, char **argv, int at)
{
	if (argc == at)
		return true;
	if (argc != at + 3)
		return false;
	object = argv[at];
	object_off[0] = strtoull(argv[at + 1], NULL, 0);
	object_off[1] = strtoull(argv[at + 2], NULL, 0);
	return true;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "mem") && take_object(argc, argv, 3))
		return mem(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "ibs") && take_object(argc, argv, 3))
		return ibs(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "spe") && take_object(argc, argv, 4))
		return spe(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "period"))
		return period(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "cache"))
		return cache(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "tracing"))
		return tracing(argv[2]);
	if ((argc == 6 || (argc == 7 && !strcmp(argv[6], "pipe"))) && !strcmp(argv[1], "buildid"))
		return buildid(argv[2], argv[3], argv[4], argv[5], argc == 7);
	fprintf(stderr, "usage: mkperf mem|ibs|period|cache|tracing OUT\n"
			"       mkperf mem|ibs OUT OBJECT OFF1 OFF2\n"
			"       mkperf spe OUT MIDR [OBJECT OFF1 OFF2]\n"
			"       mkperf buildid OUT OBJECT HEX OFFSET [pipe]\n");
	return 2;
}
