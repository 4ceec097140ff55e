/*
 * The perf.data reader's insides, shared by pdread.c (header, attrs,
 * features, record decoding) and pdscan.c (the walk that finds where the
 * whole records are, decompresses zstd records, and counts what is lost).
 */
#ifndef DSPROF_PDREAD_INT_H
#define DSPROF_PDREAD_INT_H

#include "experiment/experiment.h"
#include "experiment/perf_file.h"

#include <string.h>

/* A stretch of the data that holds no readable record: skipped. */
typedef struct pd_gap {
	uint64_t off, end; /* data offsets, [off, end) */
} pd_gap;

struct ds_perfdata {
	char *label;
	const unsigned char *img;
	size_t size;
	bool mapped;
	const unsigned char *released; /* pages of the mapping before this were let go (pd_release) */
	uint64_t data_off;      /* where the data section starts in the file */
	const unsigned char *data; /* the records: in the file, or `own` when decompressed */
	uint64_t data_size;
	uint64_t bytes_whole;   /* bytes of whole records in the data as the file has it */
	unsigned char *own;     /* the data copied, zstd records decompressed (mmap'd) */
	uint64_t own_size;      /* bytes mapped at own */
	DS_VEC(pd_gap) gaps;    /* sorted; the last may run to data_size (a cut) */
	ds_vec_u64 sideband;    /* offsets of the records that are not samples, in order, when
				 * the records are read in place and have no gaps */
	bool sideband_ok;       /* and then sideband lists them all */
	DS_VEC(ds_event) events;
	ds_hash *id_index; /* sample id -> event index */
	DS_VEC(int) id_event;
	int id_pos;        /* u64 index of the id in a sample, -1 when none */
	int is_pos;        /* u64 index from the end in other records, -1 when none */
	bool sample_id_all;
	ds_perfdata_header_info info;
	struct pf_section feat[PF_FEAT_BITS]; /* where each feature section is; size 0 when absent */
	ds_build_id *build_ids; /* HEADER_BUILD_ID */
	size_t nbuild_ids;
	ds_perfdata_damage dmg;
	/* counting: records before `counted` were counted once into dmg */
	uint64_t counted;
	uint64_t gap_time_before; /* latest record time before the last gap crossed; 0 none pending */
	uint64_t gap_bytes_open;  /* bytes of the gaps crossed since no record later than that came */
};

static inline uint64_t rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* Bytes a record at `off` of [d, d + size) spans with the payload some
 * records carry after their size (AUXTRACE, TRACING_DATA); 0 when its
 * header cannot be a record's. */
uint64_t pd_extent(const unsigned char *d, uint64_t size, uint64_t off);
/* Find the whole records of the data: decompress zstd records into
 * pd->own, and list the stretches no record can be read from. */
void pd_scan(ds_perfdata *pd);
/* Count a record (ok: it matched its type), a gap, or the end, the first
 * time a pass reaches it in order (see ds_perfdata_damage). */
void pd_count_record(ds_perfdata *pd, uint64_t off, uint64_t end, const ds_record *r, bool ok);
void pd_count_gap(ds_perfdata *pd, const pd_gap *g);
void pd_count_end(ds_perfdata *pd, uint64_t off);
/* A pass in order has read the file's mapping up to `at`: let the pages
 * well behind it go (see pdread.c). */
void pd_release(ds_perfdata *pd, const unsigned char *at);
/* The gap starting at data offset off, or NULL. */
const pd_gap *pd_gap_at(const ds_perfdata *pd, uint64_t off);
/* A feature's name as perf prints it ("hostname", "cache", ...). */
const char *pd_feature_name(int bit);

#endif
