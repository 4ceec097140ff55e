/*
 * base/: the small kit every dsprof module may use.
 *
 * Errors that reach the user, growable buffers and arrays, a hash table with
 * byte-string keys, a JSON writer and reader, text sanitizing for terminals,
 * and progress lines for long work.  Nothing here knows about profiling.
 *
 * Ownership: every ..._free or ..._fini releases what the matching ..._new or ..._init
 * made; pointers returned by lookups stay owned by the container.
 */
#ifndef DSPROF_BASE_H
#define DSPROF_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DSPROF_VERSION "0.1.0"

/* ---- errors ------------------------------------------------------------
 * A failing function fills a ds_err and returns -1 (or NULL).  The message is
 * one line naming what failed, where, and what to do; the kind is the exit
 * status the command line uses for it. */
enum ds_err_kind {
	DS_OK = 0,
	DS_EINPUT = 1, /* usage or input file errors */
	DS_EENV = 2,   /* the machine or its permissions */
};

typedef struct ds_err {
	int kind;
	char msg[1024];
} ds_err;

int ds_err_set(ds_err *e, int kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int ds_err_vset(ds_err *e, int kind, const char *fmt, va_list ap);
/* Prefix an existing message: "cannot open 'x': " + old message. */
int ds_err_prefix(ds_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- memory ------------------------------------------------------------
 * Allocation failure is not an error the profiler can do anything useful
 * about; these abort with a message instead of returning NULL. */
void *ds_xmalloc(size_t n);
void *ds_xcalloc(size_t n, size_t size);
void *ds_xrealloc(void *p, size_t n);
char *ds_xstrdup(const char *s);
char *ds_xstrndup(const char *s, size_t n);
char *ds_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Growable array of any element type: DS_VEC(int) v = {0}; ds_vec_push(&v, 3); */
#define DS_VEC(T)            \
	struct {             \
		T *v;        \
		size_t n;    \
		size_t cap;  \
	}
#define ds_vec_reserve(vec, want)                                                   \
	do {                                                                        \
		if ((want) > (vec)->cap) {                                          \
			size_t nc_ = (vec)->cap ? (vec)->cap * 2 : 8;               \
			while (nc_ < (want))                                        \
				nc_ *= 2;                                           \
			(vec)->v = ds_xrealloc((vec)->v, nc_ * sizeof(*(vec)->v)); \
			(vec)->cap = nc_;                                           \
		}                                                                   \
	} while (0)
#define ds_vec_push(vec, item)                      \
	do {                                        \
		ds_vec_reserve((vec), (vec)->n + 1); \
		(vec)->v[(vec)->n++] = (item);      \
	} while (0)
#define ds_vec_free(vec)                 \
	do {                             \
		free((vec)->v);          \
		(vec)->v = NULL;         \
		(vec)->n = (vec)->cap = 0; \
	} while (0)

typedef DS_VEC(uint32_t) ds_vec_u32;
typedef DS_VEC(uint64_t) ds_vec_u64;

/* qsort and qsort_r for arrays that may be empty: an empty DS_VEC's v is
 * NULL, and qsort(NULL, 0, ...) is undefined behaviour (glibc declares the
 * pointer nonnull).  Every sort in dsprof goes through these, as every
 * copy of a possibly empty array checks its count first. */
void ds_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *));
void ds_sort_r(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
	       void *arg);

/* ---- byte buffer / string builder -------------------------------------- */
typedef struct ds_buf {
	char *p;    /* always NUL-terminated when len > 0 or after any append */
	size_t len;
	size_t cap;
} ds_buf;

void ds_buf_reserve(ds_buf *b, size_t extra);
void ds_buf_append(ds_buf *b, const void *data, size_t n);
void ds_buf_puts(ds_buf *b, const char *s);
void ds_buf_putc(ds_buf *b, char c);
void ds_buf_printf(ds_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ds_buf_vprintf(ds_buf *b, const char *fmt, va_list ap);
void ds_buf_reset(ds_buf *b);
void ds_buf_free(ds_buf *b);
/* The contents as a C string ("" when empty); owned by the buffer. */
const char *ds_buf_str(ds_buf *b);
/* Hand the contents to the caller (malloc'd, NUL-terminated) and reset. */
char *ds_buf_steal(ds_buf *b);

/* ---- hash table --------------------------------------------------------
 * Keys are byte strings (copied into the table's arena); each key maps to a
 * dense index 0..n-1 in insertion order, so callers keep their values in a
 * parallel DS_VEC.  Lookups are O(1); the table never deletes. */
typedef struct ds_hash ds_hash;

ds_hash *ds_hash_new(void);
void ds_hash_free(ds_hash *h);
/* Index of key, or -1. */
int64_t ds_hash_find(const ds_hash *h, const void *key, size_t len);
/* Index of key, inserting it (with the next index) when absent; *added tells which. */
size_t ds_hash_intern(ds_hash *h, const void *key, size_t len, bool *added);
size_t ds_hash_count(const ds_hash *h);
/* The stored key of index i. */
const void *ds_hash_key(const ds_hash *h, size_t i, size_t *len);
uint64_t ds_hash_bytes(const void *p, size_t n);

/* ---- map on 64-bit keys ------------------------------------------------
 * 64-bit keys to 32-bit values, for per-sample lookups (cache lines):
 * open addressing on one multiplication, a few times faster than ds_hash's
 * byte keys, which matters at ten million samples.  Zero it to start. */
typedef struct ds_u64map {
	struct {
		uint64_t key;
		uint32_t val; /* DS_U64MAP_NONE: an empty slot */
	} *slot;              /* key and value together: one cache miss a probe */
	size_t cap, n;        /* cap: a power of two, or 0 */
} ds_u64map;
#define DS_U64MAP_NONE UINT32_MAX
/* The value of key, or DS_U64MAP_NONE. */
uint32_t ds_u64map_get(const ds_u64map *m, uint64_t key);
/* The value of key, after storing val (not DS_U64MAP_NONE) for it when
 * absent (then *added, when given, is true). */
uint32_t ds_u64map_put(ds_u64map *m, uint64_t key, uint32_t val, bool *added);
/* Store val for key, whether or not it had one. */
void ds_u64map_set(ds_u64map *m, uint64_t key, uint32_t val);
/* Take key out; false when it was not there. */
bool ds_u64map_del(ds_u64map *m, uint64_t key);
void ds_u64map_free(ds_u64map *m);

/* ---- text --------------------------------------------------------------
 * Untrusted text (symbol names, paths, comm) is made safe for a terminal:
 * control characters, DEL, C1 controls and invalid UTF-8 become \xNN, so an
 * escape sequence in a symbol name cannot move the cursor.  Valid UTF-8 is
 * kept unless ascii_only. */
void ds_sanitize(ds_buf *out, const char *s, bool ascii_only);
/* Length (1..4) of the valid UTF-8 sequence starting at s, 0 when invalid. */
size_t ds_utf8_len(const char *s);
/* Display width in columns of sanitized text (UTF-8 code points count one). */
size_t ds_text_width(const char *s);
bool ds_str_has_prefix(const char *s, const char *prefix);
/* A size for people, in units of 1024: "8 MB", "1.5 KB", "48 B" (n bytes
 * of out at most). */
void ds_size_text(char *out, size_t n, uint64_t v);
/* Parse an unsigned integer (decimal or 0x hex) with an optional k/M/G
 * suffix when allow_suffix; returns false on garbage or overflow. */
bool ds_parse_u64(const char *s, uint64_t *out, bool allow_suffix);
/* This process's vDSO image (the kernel's, the same for every process on
 * this boot): its address and size; false when there is none. */
bool ds_self_vdso(const void **image, size_t *size);
/* Trim ASCII whitespace in place; returns s. */
char *ds_trim(char *s);

/* The file execvp would run for cmd: cmd itself when it has a '/', else
 * the first executable regular file of that name in $PATH; malloc'd, NULL
 * when there is none. */
char *ds_find_command(const char *cmd);

/* ---- files --------------------------------------------------------------
 * Every file dsprof reads is opened here.  A path may name a FIFO, a device
 * or a socket (a perf.data mapping, a symlinked meta.json or kallsyms), whose
 * open or read would wait forever: such a file is refused, without blocking,
 * with one line naming it.  errno stays meaningful on failure (ENOENT ...). */

/* A read-only, close-on-exec descriptor of the regular file at path, or -1
 * with err: "cannot open 'PATH': REASON" or "cannot read 'PATH': it is a
 * FIFO, not a regular file". */
int ds_open_regular(const char *path, ds_err *err);
/* The same as a stdio stream. */
FILE *ds_fopen_regular(const char *path, ds_err *err);
/* A whole file into a malloc'd, NUL-terminated string; NULL with err. */
char *ds_read_file_err(const char *path, size_t *len, ds_err *err);
/* The rest of the open file fd (path names it in messages), which is
 * closed, as ds_read_file_err reads a file. */
char *ds_read_fd(int fd, const char *path, size_t *len, ds_err *err);
/* The same without a message, for procfs and sysfs. */
char *ds_read_file(const char *path, size_t *len);
/* First line of a small file without the newline, or NULL. */
char *ds_read_line(const char *path);
/* The same for a file dsprof wrote itself (in an experiment, a group, an
 * archive): the last component of path is not followed when it is a
 * symbolic link (ELOOP: "it is a symbolic link"), nor is name of
 * ds_open_regular_at, whose dirfd may be AT_FDCWD. */
int ds_open_own(const char *path, ds_err *err);
int ds_open_regular_at(int dirfd, const char *name, ds_err *err);
FILE *ds_fopen_own(const char *path, ds_err *err);
char *ds_read_own(const char *path, size_t *len, ds_err *err);
/* The address-space limit (ulimit -v) in MiB, rounded down but at least
 * 1; 0 when there is none: what a message names when a map fails. */
unsigned long long ds_as_limit_mib(void);
/* size bytes of the open file fd (path names it in messages) mapped
 * read-only and private, or NULL with err: a refusal names the limit it
 * hit (ulimit -v against the file's size) and what to do.  fd stays open. */
const void *ds_map_file(int fd, const char *path, size_t size, ds_err *err);

/* ---- writing files -------------------------------------------------------
 * dsprof runs as root, often in directories other users may write in
 * (/tmp) or own.  Every file it writes is made here, relative to a
 * directory it holds open (a ds_wdir), so that what it writes goes where
 * it meant whatever happens to the path meanwhile:
 *   - a name is opened without following a symbolic link, and a file is
 *     made anew (O_EXCL): a link or a file planted at the name is refused,
 *     never written through;
 *   - a FIFO, socket or device is never opened;
 *   - files are written only in directories of this process's user that
 *     no other user may write in; a directory of another user is used
 *     only to make or rename entries of dsprof's own in it (/tmp);
 *   - renames and removals happen inside one open directory, and a tree
 *     is removed through descriptors, never following a link.
 * A name given to these functions is one path component, but where a
 * function says "path". */
typedef struct ds_wdir ds_wdir;

/* The existing directory at path, to write in.  Refused with one line
 * naming why and what to do: a symbolic link, not a directory, another
 * user's, or writable by users other than its owner. */
ds_wdir *ds_wdir_open(const char *path, ds_err *err);
/* The directory that holds path (followed as given: the user named it),
 * to make and rename entries of dsprof's own in; *base is path's last
 * component (malloc'd).  Nothing is written in it. */
ds_wdir *ds_wdir_parent(const char *path, char **base, ds_err *err);
/* The directory `path` (one or more components, each opened without
 * following links) under d: made when absent and make; an existing one
 * checked as ds_wdir_open checks.  Its path is d's path/path. */
ds_wdir *ds_wdir_sub(ds_wdir *d, const char *path, bool make, ds_err *err);
/* The same, only for a directory made now: an existing one is EEXIST. */
ds_wdir *ds_wdir_make(ds_wdir *d, const char *name, ds_err *err);
/* A new private directory (mode 0700) in $TMPDIR or /tmp, named after what. */
ds_wdir *ds_wdir_temp(const char *what, ds_err *err);
void ds_wdir_close(ds_wdir *d);
int ds_wdir_fd(const ds_wdir *d);
const char *ds_wdir_path(const ds_wdir *d);
/* "PATH/name" (malloc'd), for messages and for readers. */
char *ds_wdir_join(const ds_wdir *d, const char *name);
/* Whether d's directory is still at its path (the path's last component
 * names the directory d holds): false once it was moved or replaced. */
bool ds_wdir_in_place(const ds_wdir *d);

/* A new file in d: O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644; flags adds
 * O_WRONLY or O_RDWR, O_APPEND.  -1 with err when the name is taken. */
int ds_wdir_create(ds_wdir *d, const char *name, int flags, ds_err *err);
/* name in d (made when absent if flags has O_CREAT): an existing one must
 * be a regular file of this user, and is opened without following a link
 * or blocking. */
int ds_wdir_open_file(ds_wdir *d, const char *name, int flags, ds_err *err);
/* The file name.tmp in d, made anew (a stale one, left by a killed run,
 * is removed first): written, then ds_wdir_commit_tmp renames it over
 * name, so that a reader never sees a half-written file. */
int ds_wdir_create_tmp(ds_wdir *d, const char *name, int flags, ds_err *err);
int ds_wdir_commit_tmp(ds_wdir *d, const char *name, ds_err *err);
/* name, replaced at once by n bytes at p (through name.tmp, synced). */
int ds_wdir_write_file(ds_wdir *d, const char *name, const void *p, size_t n, ds_err *err);
/* Copy the regular file `from` (any path, read as ds_open_regular reads)
 * into d as name, through name.tmp. */
int ds_wdir_copy_in(ds_wdir *d, const char *name, const char *from, ds_err *err);
/* from_name of `from` as to_name in d: a hard link, else a copy. */
int ds_wdir_share(ds_wdir *from, const char *from_name, ds_wdir *d, const char *to_name, ds_err *err);
/* A symbolic link name -> target in d, replacing a link of that name. */
int ds_wdir_symlink(ds_wdir *d, const char *target, const char *name, ds_err *err);
int ds_wdir_rename(ds_wdir *d, const char *from, const char *to, ds_err *err);
/* Remove the file (not a directory) name; absent is success. */
int ds_wdir_unlink(ds_wdir *d, const char *name, ds_err *err);
/* Remove name and, when it is a directory, everything under it, through
 * descriptors; a link is removed, never followed.  Only a tree of this
 * user's is removed.  Absent is success. */
int ds_wdir_remove(ds_wdir *d, const char *name, ds_err *err);

/* A file the user named for output (report --output, tui --dump):
 * created or truncated, but never through a symbolic link, never a FIFO
 * or device, never another user's file. */
int ds_create_output(const char *path, ds_err *err);
FILE *ds_fcreate_output(const char *path, ds_err *err);

/* ---- JSON --------------------------------------------------------------- */
typedef struct ds_jw {
	ds_buf *out;
	int depth;
	bool need_comma[64];
	bool pretty;
	bool after_key;
} ds_jw;

void ds_jw_init(ds_jw *w, ds_buf *out, bool pretty);
void ds_jw_obj_begin(ds_jw *w);
void ds_jw_obj_end(ds_jw *w);
void ds_jw_arr_begin(ds_jw *w);
void ds_jw_arr_end(ds_jw *w);
void ds_jw_key(ds_jw *w, const char *key);
void ds_jw_str(ds_jw *w, const char *s); /* NULL writes null */
void ds_jw_u64(ds_jw *w, uint64_t v);
void ds_jw_i64(ds_jw *w, int64_t v);
void ds_jw_double(ds_jw *w, double v);
void ds_jw_bool(ds_jw *w, bool v);
void ds_jw_null(ds_jw *w);
/* A number already formatted by the caller ("12", "0.003"): written as is. */
void ds_jw_number_text(ds_jw *w, const char *text);
/* JSON string escaping of arbitrary bytes (invalid UTF-8 becomes U+FFFD). */
void ds_json_escape(ds_buf *out, const char *s);

enum ds_json_type { DS_JNULL, DS_JBOOL, DS_JNUM, DS_JSTR, DS_JARR, DS_JOBJ };
typedef struct ds_json ds_json;
struct ds_json {
	enum ds_json_type type;
	bool b;
	double num;
	bool is_int;   /* the literal was an integer that fits int64/uint64 */
	int64_t i64;
	uint64_t u64;
	char *str;     /* DS_JSTR: value; object members: key */
	ds_json **items; /* DS_JARR elements, DS_JOBJ members (each has key in ->key) */
	size_t n;
	char *key;
};

/* Parse a whole document; on error fills err (kind DS_EINPUT) naming the
 * byte offset, with `what` as the file name in the message. */
ds_json *ds_json_parse(const char *text, size_t len, const char *what, ds_err *err);
void ds_json_free(ds_json *j);
const ds_json *ds_json_get(const ds_json *obj, const char *key);
const char *ds_json_get_str(const ds_json *obj, const char *key);
bool ds_json_get_u64(const ds_json *obj, const char *key, uint64_t *out);
bool ds_json_get_i64(const ds_json *obj, const char *key, int64_t *out);
bool ds_json_get_double(const ds_json *obj, const char *key, double *out);

/* ---- progress ----------------------------------------------------------
 * One self-overwriting line on stderr, only when stderr is a terminal and
 * the work has lasted long enough to be worth showing. */
typedef struct ds_progress {
	bool tty;
	bool shown;
	double start;
	double delay;      /* seconds before the first line */
	double last;
	const char *what;
} ds_progress;

void ds_progress_begin(ds_progress *p, const char *what);
/* The same, for work whose output may mix with the line (a profiled
 * command's): nothing is shown before `delay` seconds. */
void ds_progress_begin_after(ds_progress *p, const char *what, double delay);
/* done of total (a percentage), or with total 0 a count and the time
 * since the beginning. */
void ds_progress_update(ds_progress *p, uint64_t done, uint64_t total);
void ds_progress_end(ds_progress *p);
double ds_now(void); /* monotonic seconds */

#endif
