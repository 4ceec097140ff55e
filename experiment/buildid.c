/*
 * The HEADER_BUILD_ID feature: which file each sampled object was.
 *
 * The section is a run of perf's `struct perf_record_header_build_id`
 * (tools/lib/perf/include/perf/event.h), laid out as perf writes them
 * (write_buildid in tools/perf/util/build-id.c):
 *
 *   header (type 0, misc = cpumode | BUILD_ID_SIZE, size)   8 bytes
 *   pid (-1: the host)                                      4
 *   build_id: 20 bytes of id, its size, 3 reserved          24
 *   file name, NUL-terminated, padded with NULs to 64       size - 36
 *
 * Entries are not 8-byte aligned.  Pipe-mode files carry the same entries
 * as HEADER_BUILD_ID records, one per record.
 */
#include "experiment/experiment.h"
#include "experiment/perf_file.h"

#include <stdlib.h>
#include <string.h>

#define BID_FIXED 36          /* header, pid, build_id[24] */
#define BID_SIZE_MISC (1u << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte is valid */
#define HOST_PID (-1)

void ds_build_id_feature_put(ds_buf *out, const ds_build_id *ids, size_t n)
{
	static const char zeros[PF_NAME_ALIGN];

	for (size_t i = 0; i < n; i++) {
		size_t name = strlen(ids[i].path) + 1;
		size_t padded = (name + PF_NAME_ALIGN - 1) / PF_NAME_ALIGN * PF_NAME_ALIGN;
		struct perf_event_header h = {
			0, (uint16_t)((ids[i].kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
				      BID_SIZE_MISC),
			(uint16_t)(BID_FIXED + padded)};
		int32_t pid = HOST_PID;
		uint8_t bid[24] = {0};

		if (BID_FIXED + padded > UINT16_MAX)
			continue; /* a name no record can hold: perf could not read it either */
		memcpy(bid, ids[i].id, ids[i].size);
		bid[20] = ids[i].size;
		ds_buf_append(out, &h, sizeof h);
		ds_buf_append(out, &pid, 4);
		ds_buf_append(out, bid, sizeof bid);
		ds_buf_append(out, ids[i].path, name);
		ds_buf_append(out, zeros, padded - name);
	}
}

void ds_build_id_feature_parse(const void *data, size_t len, ds_build_id **ids, size_t *n)
{
	const uint8_t *p = data;
	size_t off = 0;

	while (len - off >= BID_FIXED) {
		struct perf_event_header h;
		const char *name;
		size_t namelen;
		ds_build_id e = {0};

		memcpy(&h, p + off, sizeof h);
		if (h.size < BID_FIXED + 1 || h.size > len - off)
			return;
		name = (const char *)p + off + BID_FIXED;
		namelen = strnlen(name, h.size - BID_FIXED);
		if (namelen == 0 || namelen == (size_t)h.size - BID_FIXED)
			return; /* no name, or one without its NUL */
		e.size = (h.misc & BID_SIZE_MISC) ? p[off + 12 + 20] : DS_BUILD_ID_MAX;
		if (e.size > DS_BUILD_ID_MAX)
			return;
		/* an id of no bytes says nothing: it would match every file
		 * without one (the archive took a missing copy for its own) */
		if (e.size == 0) {
			off += h.size;
			continue;
		}
		memcpy(e.id, p + off + 12, e.size);
		e.kernel = (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
			   (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_KERNEL;
		e.path = ds_xstrndup(name, namelen);
		*ids = ds_xrealloc(*ids, (*n + 1) * sizeof **ids);
		(*ids)[(*n)++] = e;
		off += h.size;
	}
}

void ds_build_ids_free(ds_build_id *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i].path);
	free(ids);
}

const ds_build_id *ds_build_id_find(const ds_build_id *ids, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ids[i].path, path) == 0)
			return &ids[i];
	return NULL;
}

void ds_build_id_hex(const uint8_t *id, size_t size, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < size; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * size] = 0;
}
