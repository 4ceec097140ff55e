/*
 * The perf.data file format (tools/perf/Documentation/perf.data-file-format.txt),
 * private to experiment/.  Only what dsprof reads or writes is named here.
 */
#ifndef DSPROF_PERF_FILE_H
#define DSPROF_PERF_FILE_H

#include <stdint.h>

#define PF_MAGIC 0x32454c4946524550ULL         /* "PERFILE2" read little-endian */
#define PF_MAGIC_SWAPPED 0x50455246494c4532ULL /* written by a big-endian host */

struct pf_section {
	uint64_t offset;
	uint64_t size;
};

struct pf_header {
	uint64_t magic;
	uint64_t size; /* of this header: 104 */
	uint64_t attr_size;
	struct pf_section attrs;
	struct pf_section data;
	struct pf_section event_types;
	uint64_t features[4]; /* HEADER_FEAT_BITS = 256 */
};

struct pf_pipe_header {
	uint64_t magic;
	uint64_t size; /* 16 */
};

/* Feature bits (tools/perf/util/header.h). */
enum {
	PF_FEAT_TRACING_DATA = 1,
	PF_FEAT_BUILD_ID = 2,
	PF_FEAT_HOSTNAME = 3,
	PF_FEAT_OSRELEASE = 4,
	PF_FEAT_VERSION = 5,
	PF_FEAT_ARCH = 6,
	PF_FEAT_NRCPUS = 7,
	PF_FEAT_CPUDESC = 8,
	PF_FEAT_CPUID = 9,
	PF_FEAT_TOTAL_MEM = 10,
	PF_FEAT_CMDLINE = 11,
	PF_FEAT_EVENT_DESC = 12,
	PF_FEAT_CACHE = 20,
	PF_FEAT_SAMPLE_TIME = 21,
	PF_FEAT_CLOCKID = 23,
	PF_FEAT_COMPRESSED = 27,
	PF_FEAT_CLOCK_DATA = 29,
	PF_FEAT_BITS = 256,
};

/* Records that perf itself writes (user-space types, >= 64). */
enum {
	PF_RECORD_HEADER_ATTR = 64,
	PF_RECORD_HEADER_EVENT_TYPE = 65,
	PF_RECORD_HEADER_TRACING_DATA = 66,
	PF_RECORD_HEADER_BUILD_ID = 67,
	PF_RECORD_FINISHED_ROUND = 68,
	PF_RECORD_ID_INDEX = 69,
	PF_RECORD_AUXTRACE_INFO = 70,
	PF_RECORD_AUXTRACE = 71,
	PF_RECORD_AUXTRACE_ERROR = 72,
	PF_RECORD_THREAD_MAP = 73,
	PF_RECORD_CPU_MAP = 74,
	PF_RECORD_STAT_CONFIG = 75,
	PF_RECORD_STAT = 76,
	PF_RECORD_STAT_ROUND = 77,
	PF_RECORD_EVENT_UPDATE = 78,
	PF_RECORD_TIME_CONV = 79,
	PF_RECORD_HEADER_FEATURE = 80,
	PF_RECORD_COMPRESSED = 81,
	PF_RECORD_FINISHED_INIT = 82,
	PF_RECORD_COMPRESSED2 = 83, /* u64 data size after the header, then zstd data, padded to 8 */
};

/* EVENT_UPDATE record sub-types (pipe mode carries event names this way). */
enum {
	PF_EVENT_UPDATE_UNIT = 0,
	PF_EVENT_UPDATE_SCALE = 1,
	PF_EVENT_UPDATE_NAME = 2,
	PF_EVENT_UPDATE_CPUS = 3,
};

/* Strings in feature sections: u32 length (with NUL, padded to 64) + bytes. */
#define PF_NAME_ALIGN 64

#endif
