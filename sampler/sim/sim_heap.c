/*
 * The heap under the simulator (record --heap --sim): the tool replaces
 * the client's allocator, as Valgrind's heap tools do (its
 * vgpreload_dsprofsim-amd64-linux.so sends malloc, free, new, delete and
 * the rest here), and writes what each process allocates and frees into
 * its heap file, in the layout experiment/heapfile.h describes and the
 * native tracker (sampler/preload/heap.c) writes, with the logical clock's
 * times: the same records, from the same program, on every run.
 *
 * Valgrind runs one thread at a time, so nothing here is locked.  Each
 * thread's records go into a buffer of its own, written out as a chunk of
 * the file when it is full, before a fork or an exec, and at the end:
 * its times grow, as the reader wants them to within a chunk.  Anonymous
 * mmaps are not tracked (Valgrind's replacement leaves them to the
 * client): the blocks are the malloc family's and C++'s.
 */
#include "sim.h"

#include "pub_tool_clientstate.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"

#include "experiment/heapfile.h"

#define MAX_FRAMES 16

/* A live block: its size, for realloc and malloc_usable_size. */
typedef struct hblock {
	struct hblock *next;
	UWord addr;               /* the hash table's key */
	SizeT size;
} hblock;

/* A call stack seen: its site's id. */
typedef struct hsite {
	struct hsite *next;
	UWord hash;
	UInt id;
} hsite;

typedef struct hbuf {
	UChar *p;                 /* DS_HEAP_CHUNK bytes */
	UInt fill;
} hbuf;

static const HChar *dir;      /* the experiment's heap folder; NULL: not tracking */
static Int fd = -1;
static VgHashTable *blocks, *sites;
static UInt last_site;
static hbuf *bufs;            /* by ThreadId */
static Bool write_failed;

/* ---- the file ---- */

static void buf_write(hbuf *b)
{
	struct ds_heap_tally t;

	if (!b->p || !b->fill)
		return;
	VG_(memset)(b->p + b->fill, 0, DS_HEAP_CHUNK - b->fill);
	t = ds_heap_tally_of(b->p, b->fill);
	VG_(memcpy)(b->p + DS_HEAP_TALLY_AT, &t, sizeof t);
	if (fd >= 0 && !write_failed && VG_(write)(fd, b->p, DS_HEAP_CHUNK) != DS_HEAP_CHUNK) {
		write_failed = True;
		VG_(umsg)("dsprofsim: cannot write the heap file; heap records are lost from here on\n");
	}
	b->fill = 0;
}

static void put(ThreadId tid, const void *rec, UInt size)
{
	hbuf *b = &bufs[tid < VG_N_THREADS ? tid : 0];
	if (!b->p)
		b->p = VG_(malloc)("sim.heap.buf", DS_HEAP_CHUNK);
	if (b->fill + size > DS_HEAP_TALLY_AT)
		buf_write(b);
	VG_(memcpy)(b->p + b->fill, rec, size);
	b->fill += size;
}

void sim_heap_flush(void)
{
	for (UInt i = 0; dir && i < VG_N_THREADS; i++)
		buf_write(&bufs[i]);
}

/* Whether the client's executable is an ELF file without a program
 * interpreter (PT_INTERP): linked statically, it loads no preload, so its
 * allocator is not replaced and the tool sees none of its blocks.  (A
 * static program record starts itself is recorded without heap files;
 * this is one a process execs.) */
static Bool static_client(void)
{
	UChar eh[64];
	ULong phoff;
	UShort phentsize, phnum, i = 0;
	Bool interp = False;
	SysRes r;
	Int f;

	if (!VG_(args_the_exename))
		return False;
	r = VG_(open)(VG_(args_the_exename), VKI_O_RDONLY, 0);
	if (sr_isError(r))
		return False;
	f = (Int)sr_Res(r);
	if (VG_(read)(f, eh, sizeof eh) != (Int)sizeof eh || VG_(memcmp)(eh, "\177ELF", 4) != 0 || eh[4] != 2) {
		VG_(close)(f);
		return False;
	}
	VG_(memcpy)(&phoff, eh + 32, 8);
	VG_(memcpy)(&phentsize, eh + 54, 2);
	VG_(memcpy)(&phnum, eh + 56, 2);
	for (; i < phnum && !interp; i++) {
		UInt type = 0;
		if (VG_(lseek)(f, (Off64T)(phoff + (ULong)i * phentsize), VKI_SEEK_SET) < 0 ||
		    VG_(read)(f, &type, sizeof type) != (Int)sizeof type)
			break;
		interp = type == 3; /* PT_INTERP */
	}
	VG_(close)(f);
	return !interp && i == phnum;
}

Bool sim_heap_open(Int pid, Bool forked, ULong start)
{
	/* the image's, read when it starts: its forks run the same program
	 * (an exec starts the tool anew) */
	static Int is_static = -1;
	struct ds_heap_header h;
	static UChar page[DS_HEAP_HEADER];
	HChar path[VKI_PATH_MAX];
	SysRes r;

	if (!dir)
		return True;
	if (fd >= 0)
		VG_(close)(fd);
	fd = -1;
	if (is_static < 0)
		is_static = static_client();
	if (is_static)
		return True; /* no file: its samples say <no heap data> */
	for (UInt i = 0; i < VG_N_THREADS; i++)
		bufs[i].fill = 0; /* a fork's child: the parent's were written before it */
	/* a site's id is the file's */
	VG_(HT_destruct)(sites, VG_(free));
	sites = VG_(HT_construct)("sim.heap.sites");
	last_site = 0;
	VG_(snprintf)(path, sizeof path, "%s/%d-%llu.heap", dir, pid, start);
	r = VG_(open)(path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0644);
	fd = sr_isError(r) ? -1 : (Int)sr_Res(r);
	if (fd < 0)
		return False;
	VG_(memset)(&h, 0, sizeof h);
	VG_(memcpy)(h.magic, DS_HEAP_MAGIC, 8);
	h.version = DS_HEAP_VERSION;
	h.header_size = DS_HEAP_HEADER;
	h.chunk_size = DS_HEAP_CHUNK;
	h.pid = (UInt)pid;
	h.ppid = (UInt)VG_(getppid)();
	h.flags = DS_HEAP_F_LOGICAL | (forked ? DS_HEAP_F_FORKED : 0);
	h.start_ns = start;
	h.max_frames = MAX_FRAMES;
	h.mmap_min = 0;
	VG_(client_fname)(h.exe, sizeof h.exe, True);
	VG_(memset)(page, 0, sizeof page);
	VG_(memcpy)(page, &h, sizeof h);
	write_failed = VG_(write)(fd, page, sizeof page) != (Int)sizeof page;
	return !write_failed;
}

/* ---- records ---- */

static void event(ThreadId tid, UInt type, UInt fn, Addr addr, SizeT bytes, UInt site)
{
	struct ds_heap_event e;

	VG_(memset)(&e, 0, sizeof e);
	e.type = (UShort)type;
	e.size = sizeof e;
	e.fn = (UChar)fn;
	e.tid = (UInt)sim_lwp_of(tid);
	e.site = site;
	e.time = sim_time_of(tid);
	e.addr = addr;
	e.bytes = bytes;
	put(tid, &e, sizeof e);
}

/* The site of the allocation tid is making: its stack from the client's
 * call of the allocator (the first frame, the replacement function in
 * the preloaded library, left out), as return addresses. */
static UInt site_of(ThreadId tid)
{
	Addr ips[MAX_FRAMES + 1];
	UInt n = VG_(get_StackTrace)(tid, ips, MAX_FRAMES + 1, NULL, NULL, 0);
	UWord hash = 0xcbf29ce484222325ull;
	hsite *s;

	if (n < 2)
		return 0;
	for (UInt i = 1; i < n; i++) {
		ips[i] += 1; /* the last byte of the call: its return address */
		hash = (hash ^ ips[i]) * 0x100000001b3ull;
		hash ^= hash >> 29;
	}
	s = VG_(HT_lookup)(sites, hash);
	if (!s) {
		struct {
			struct ds_heap_site head;
			ULong frames[MAX_FRAMES];
		} rec;
		s = VG_(malloc)("sim.heap.site", sizeof *s);
		s->hash = hash;
		s->id = ++last_site;
		VG_(HT_add_node)(sites, s);
		rec.head.type = DS_HEAP_SITE;
		rec.head.size = (UShort)(8 + 8 * (n - 1));
		rec.head.site = s->id;
		for (UInt i = 1; i < n; i++)
			rec.frames[i - 1] = ips[i];
		put(tid, &rec, rec.head.size);
	}
	return s->id;
}

static void *allocated(ThreadId tid, void *p, SizeT n, UInt fn)
{
	hblock *b;
	if (!p)
		return NULL;
	b = VG_(malloc)("sim.heap.block", sizeof *b);
	b->addr = (UWord)p;
	b->size = n;
	VG_(HT_add_node)(blocks, b);
	event(tid, DS_HEAP_ALLOC, fn, (Addr)p, n, site_of(tid));
	return p;
}

static void *alloc(ThreadId tid, SizeT align, SizeT n, UInt fn, Bool zero)
{
	void *p = VG_(cli_malloc)(align, n);
	if (p && zero)
		VG_(memset)(p, 0, n);
	return allocated(tid, p, n, fn);
}

/* The block at p ends; its size, or -1 when p is no block. */
static Long ended(ThreadId tid, void *p, UInt fn)
{
	hblock *b = p ? VG_(HT_remove)(blocks, (UWord)p) : NULL;
	SizeT size;
	if (!b)
		return -1;
	size = b->size;
	VG_(free)(b);
	event(tid, DS_HEAP_FREE, fn, (Addr)p, 0, 0);
	return (Long)size;
}

static void *sh_malloc(ThreadId tid, SizeT n)
{
	return alloc(tid, VG_(clo_alignment), n, DS_HEAP_MALLOC, False);
}

static void *sh_memalign(ThreadId tid, SizeT align, SizeT n)
{
	return alloc(tid, align, n, DS_HEAP_MEMALIGN, False);
}

static void *sh_new_aligned(ThreadId tid, SizeT n, SizeT align)
{
	return alloc(tid, align, n, DS_HEAP_MALLOC, False);
}

static void *sh_calloc(ThreadId tid, SizeT nmemb, SizeT size)
{
	if (size && nmemb > ~(SizeT)0 / size)
		return NULL;
	return alloc(tid, VG_(clo_alignment), nmemb * size, DS_HEAP_CALLOC, True);
}

static void sh_free(ThreadId tid, void *p)
{
	if (ended(tid, p, DS_HEAP_FREE_FN) >= 0)
		VG_(cli_free)(p);
}

static void sh_free_aligned(ThreadId tid, void *p, SizeT align)
{
	sh_free(tid, p);
}

static void *sh_realloc(ThreadId tid, void *old, SizeT n)
{
	hblock *b;
	void *p;

	if (!old)
		return sh_malloc(tid, n);
	if (!(b = VG_(HT_lookup)(blocks, (UWord)old)))
		return NULL; /* no block of the client's: as memcheck, leave it */
	p = VG_(cli_malloc)(VG_(clo_alignment), n);
	if (!p)
		return NULL;
	VG_(memcpy)(p, old, b->size < n ? b->size : n);
	ended(tid, old, DS_HEAP_REALLOC);
	VG_(cli_free)(old);
	return allocated(tid, p, n, DS_HEAP_REALLOC);
}

static SizeT sh_usable_size(ThreadId tid, void *p)
{
	hblock *b = VG_(HT_lookup)(blocks, (UWord)p);
	return b ? b->size : 0;
}

void sim_heap_pre_clo_init(void)
{
	const HChar *d = VG_(getenv)("DSPROF_SIM_HEAP");
	if (!d || !*d)
		return;
	dir = d;
	VG_(needs_malloc_replacement)(sh_malloc, sh_malloc, sh_new_aligned, sh_malloc, sh_new_aligned,
				      sh_memalign, sh_calloc, sh_free, sh_free, sh_free_aligned, sh_free,
				      sh_free_aligned, sh_realloc, sh_usable_size, 0);
}

void sim_heap_post_clo_init(void)
{
	if (!dir)
		return;
	blocks = VG_(HT_construct)("sim.heap.blocks");
	sites = VG_(HT_construct)("sim.heap.sites");
	bufs = VG_(calloc)("sim.heap.bufs", VG_N_THREADS, sizeof *bufs);
}

void sim_heap_exit(ThreadId tid)
{
	if (!dir)
		return;
	event(tid, DS_HEAP_EXIT, 0, 0, 0, 0);
	sim_heap_flush();
	if (fd >= 0)
		VG_(close)(fd);
	fd = -1;
}

void sim_heap_exec(ThreadId tid)
{
	if (!dir)
		return;
	event(tid, DS_HEAP_ENDS, DS_HEAP_BY_EXEC, 0, 0, 0);
	sim_heap_flush();
}

Bool sim_heap_tracking(void)
{
	return dir != NULL;
}
