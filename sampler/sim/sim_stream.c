/*
 * The per-process stream: perf records for the attrs dsprof defines
 * (sim_proto.h), buffered and appended to DIR/PID.stream.
 *
 * Records are built in the buffer in place, exactly as perf.data wants
 * them, so that dsprof copies them without parsing more than the header.
 * Side-band records carry the sample_id trailer of event 0 (the attrs set
 * sample_id_all): TID, TIME, CPU, IDENTIFIER.
 */
#include "sim.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_vki.h"

#define BUF_SIZE (512 * 1024)
/* Room for the largest record: a sample with the deepest call chain, or
 * a mapping with the longest path. */
#define MAX_RECORD (128 + 8 * (SIM_MAX_STACK + 2) + VKI_PATH_MAX)
#define FLUSH_MS 200

static UChar buf[BUF_SIZE];
static UInt used;
static Int fd = -1;
static UInt last_flush_ms;
static Bool write_failed;

Bool sim_stream_open(const HChar *dir, Int pid)
{
	HChar path[VKI_PATH_MAX];
	SysRes r;

	VG_(snprintf)(path, sizeof path, "%s/%d.stream", dir, pid);
	r = VG_(open)(path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_APPEND, 0644);
	if (sr_isError(r))
		return False;
	fd = (Int)sr_Res(r);
	used = 0;
	last_flush_ms = VG_(read_millisecond_timer)();
	return True;
}

void sim_stream_flush(void)
{
	UInt done = 0;

	while (fd >= 0 && done < used && !write_failed) {
		Int n = VG_(write)(fd, buf + done, (Int)(used - done));
		if (n <= 0) {
			/* the disk is full or the directory went away: dsprof
			 * reports what arrived; the program runs on */
			write_failed = True;
			VG_(message)(Vg_UserMsg, "dsprofsim: cannot write the stream; samples are lost from here on\n");
			break;
		}
		done += (UInt)n;
	}
	used = 0;
	last_flush_ms = VG_(read_millisecond_timer)();
}

Bool sim_stream_due(void)
{
	return VG_(read_millisecond_timer)() - last_flush_ms >= FLUSH_MS;
}

void sim_stream_close(void)
{
	sim_stream_flush();
	if (fd >= 0)
		VG_(close)(fd);
	fd = -1;
}

/* Space for a record of at most MAX_RECORD bytes. */
static UChar *reserve(void)
{
	if (used + MAX_RECORD > BUF_SIZE)
		sim_stream_flush();
	return buf + used;
}

static UChar *put64(UChar *p, ULong v)
{
	VG_(memcpy)(p, &v, 8);
	return p + 8;
}

static UChar *put32x2(UChar *p, UInt a, UInt b)
{
	VG_(memcpy)(p, &a, 4);
	VG_(memcpy)(p + 4, &b, 4);
	return p + 8;
}

/* A NUL-terminated string padded to 8 bytes. */
static UChar *put_str(UChar *p, const HChar *s, SizeT max)
{
	SizeT n = VG_(strlen)(s);
	SizeT padded;

	if (n >= max)
		n = max - 1;
	padded = (n + 1 + 7) & ~(SizeT)7;
	VG_(memset)(p, 0, padded);
	VG_(memcpy)(p, s, n);
	return p + padded;
}

static UChar *put_sample_id(UChar *p, Int pid, Int tid, ULong time)
{
	p = put32x2(p, (UInt)pid, (UInt)tid);
	p = put64(p, time);
	p = put32x2(p, 0, 0);
	return put64(p, SIM_ID(0));
}

/* Fill in the header of the record that starts at rec and ends at end. */
static void finish(UChar *rec, UChar *end, UInt type, UShort misc)
{
	struct perf_event_header h;

	h.type = type;
	h.misc = misc;
	h.size = (UShort)(end - rec);
	VG_(memcpy)(rec, &h, sizeof h);
	used += h.size;
}

void sim_emit_sample(UInt slot, Int pid, Int tid, ULong time, Addr ip, Addr addr, ULong period,
		     ULong weight, ULong data_src, const Addr *chain, UInt nchain, Addr sp)
{
	UChar *rec = reserve(), *p = rec + sizeof(struct perf_event_header);

	p = put64(p, SIM_ID(slot));
	p = put64(p, ip);
	p = put32x2(p, (UInt)pid, (UInt)tid);
	p = put64(p, time);
	p = put64(p, addr);
	p = put32x2(p, 0, 0); /* cpu */
	p = put64(p, period);
	if (chain) {
		p = put64(p, (ULong)nchain + 1);
		p = put64(p, (ULong)PERF_CONTEXT_USER);
		for (UInt i = 0; i < nchain; i++)
			p = put64(p, chain[i]);
		p = put64(p, PERF_SAMPLE_REGS_ABI_64); /* SIM_REGS_USER: sp, ip */
		p = put64(p, sp);
		p = put64(p, ip);
	}
	p = put64(p, weight);
	p = put64(p, data_src);
	finish(rec, p, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
}

void sim_emit_comm(Int pid, Int tid, ULong time, const HChar *comm, Bool exec)
{
	UChar *rec = reserve(), *p = rec + sizeof(struct perf_event_header);

	p = put32x2(p, (UInt)pid, (UInt)tid);
	p = put_str(p, comm, 16); /* the kernel's TASK_COMM_LEN */
	p = put_sample_id(p, pid, tid, time);
	finish(rec, p, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
}

void sim_emit_mmap2(Int pid, Int tid, ULong time, Addr start, ULong len, ULong pgoff, ULong dev,
		    ULong ino, UInt prot, Bool shared, const HChar *filename)
{
	UChar *rec = reserve(), *p = rec + sizeof(struct perf_event_header);
	/* Valgrind keeps device numbers in the kernel's 32-bit encoding */
	UInt maj = (UInt)((dev >> 8) & 0xfff), min = (UInt)((dev & 0xff) | ((dev >> 12) & 0xfff00));
	UShort misc = PERF_RECORD_MISC_USER;

	p = put32x2(p, (UInt)pid, (UInt)tid);
	p = put64(p, start);
	p = put64(p, len);
	p = put64(p, pgoff);
	p = put32x2(p, maj, min);
	p = put64(p, ino);
	p = put64(p, 0); /* ino_generation */
	p = put32x2(p, prot, shared ? VKI_MAP_SHARED : VKI_MAP_PRIVATE);
	p = put_str(p, filename, VKI_PATH_MAX);
	p = put_sample_id(p, pid, tid, time);
	if (!(prot & VKI_PROT_EXEC))
		misc |= PERF_RECORD_MISC_MMAP_DATA;
	finish(rec, p, PERF_RECORD_MMAP2, misc);
}

void sim_emit_task(UInt type, Int pid, Int ppid, Int tid, Int ptid, ULong time)
{
	UChar *rec = reserve(), *p = rec + sizeof(struct perf_event_header);

	tl_assert(type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT);
	p = put32x2(p, (UInt)pid, (UInt)ppid);
	p = put32x2(p, (UInt)tid, (UInt)ptid);
	p = put64(p, time);
	p = put_sample_id(p, pid, tid, time);
	finish(rec, p, type, 0);
}

void sim_emit_stats(const struct sim_rec_stats *s)
{
	UChar *rec = reserve();

	VG_(memcpy)(rec, s, sizeof *s);
	finish(rec, rec + sizeof *s, SIM_REC_STATS, 0);
}
