/* Unit tests for base/: hash table, 64-bit map, buffers, JSON, sanitizing, parsing, files. */
#include "base/base.h"
#include "tests/unit/unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

TEST(hash_interns_in_order)
{
	ds_hash *h = ds_hash_new();
	bool added;
	char key[32];
	size_t bad = 0;

	for (int i = 0; i < 100000; i++) {
		snprintf(key, sizeof key, "key-%d", i);
		if (ds_hash_intern(h, key, strlen(key), &added) != (size_t)i || !added)
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(ds_hash_count(h), 100000);
	CHECK_EQ_U64(ds_hash_intern(h, "key-777", 7, &added), 777);
	CHECK(!added);
	CHECK(ds_hash_find(h, "key-99999", 9) == 99999);
	CHECK(ds_hash_find(h, "key-100000", 10) == -1);
	{
		size_t len;
		const char *k = ds_hash_key(h, 42, &len);
		CHECK(len == 6 && memcmp(k, "key-42", 6) == 0);
	}
	ds_hash_free(h);
}

/* Keys that share their low bits (cache lines: multiples of 64), key 0,
 * growth past many doublings, and lookups of absent keys. */
TEST(u64map_lines)
{
	ds_u64map m = {0};
	bool added;
	size_t bad = 0;

	CHECK(ds_u64map_get(&m, 0) == DS_U64MAP_NONE);
	for (uint32_t i = 0; i < 200000; i++) {
		if (ds_u64map_put(&m, (uint64_t)i * 64, i, &added) != i || !added)
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(m.n, 200000);
	CHECK(ds_u64map_put(&m, 64 * 777, 5, &added) == 777 && !added);
	for (uint32_t i = 0; i < 200000; i++)
		bad += ds_u64map_get(&m, (uint64_t)i * 64) != i || ds_u64map_get(&m, (uint64_t)i * 64 + 1) != DS_U64MAP_NONE;
	CHECK_EQ_U64(bad, 0);
	CHECK(ds_u64map_get(&m, UINT64_MAX) == DS_U64MAP_NONE);
	ds_u64map_free(&m);
	CHECK(m.cap == 0 && ds_u64map_get(&m, 0) == DS_U64MAP_NONE);
}

/* Deleting keeps every other key findable: random puts and deletes of
 * keys that crowd into runs (multiples of 64, a small table), checked
 * against a plain array after every step. */
TEST(u64map_delete)
{
	enum { KEYS = 3000 };
	static uint32_t want[KEYS]; /* the value of key k * 64, or DS_U64MAP_NONE */
	ds_u64map m = {0};
	uint64_t x = 88172645463325252ull;
	size_t bad = 0, n = 0;

	for (size_t k = 0; k < KEYS; k++)
		want[k] = DS_U64MAP_NONE;
	for (uint32_t step = 0; step < 200000; step++) {
		size_t k;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		k = x % KEYS;
		if ((x >> 32) & 1) {
			bool was = want[k] != DS_U64MAP_NONE;
			bad += ds_u64map_del(&m, (uint64_t)k * 64) != was;
			n -= was;
			want[k] = DS_U64MAP_NONE;
		} else if (want[k] == DS_U64MAP_NONE) {
			ds_u64map_put(&m, (uint64_t)k * 64, step, NULL);
			want[k] = step;
			n++;
		}
		if (step % 997 == 0)
			for (size_t j = 0; j < KEYS; j++)
				bad += ds_u64map_get(&m, (uint64_t)j * 64) != want[j];
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(m.n, n);
	CHECK(!ds_u64map_del(&m, 1));
	ds_u64map_free(&m);
	CHECK(!ds_u64map_del(&m, 0));
}

TEST(hash_binary_keys)
{
	ds_hash *h = ds_hash_new();
	uint64_t a[2] = {1, 2}, b[2] = {1, 3};
	CHECK_EQ_U64(ds_hash_intern(h, a, sizeof a, NULL), 0);
	CHECK_EQ_U64(ds_hash_intern(h, b, sizeof b, NULL), 1);
	CHECK_EQ_U64(ds_hash_intern(h, "", 0, NULL), 2);
	CHECK(ds_hash_find(h, a, sizeof a) == 0);
	CHECK(ds_hash_find(h, a, 8) == -1); /* a prefix is another key */
	ds_hash_free(h);
}

TEST(buf_printf_grows)
{
	ds_buf b = {0};
	for (int i = 0; i < 1000; i++)
		ds_buf_printf(&b, "%d,", i);
	CHECK(b.len > 3000);
	CHECK(strncmp(b.p, "0,1,2,", 6) == 0);
	CHECK(strcmp(b.p + b.len - 4, "999,") == 0);
	ds_buf_free(&b);
}

TEST(sanitize_neutralizes_escapes)
{
	ds_buf b = {0};
	ds_sanitize(&b, "a\033[2Jb\x7f\xc2\x9b", false);
	CHECK_STR(ds_buf_str(&b), "a\\x1b[2Jb\\x7f\\xc2\\x9b");
	ds_buf_reset(&b);
	ds_sanitize(&b, "caf\xc3\xa9 \xff", false);
	CHECK_STR(ds_buf_str(&b), "caf\xc3\xa9 \\xff");
	ds_buf_reset(&b);
	ds_sanitize(&b, "caf\xc3\xa9", true);
	CHECK_STR(ds_buf_str(&b), "caf\\xc3\\xa9");
	ds_buf_reset(&b);
	ds_sanitize(&b, "\xed\xa0\x80", false); /* a UTF-16 surrogate is not UTF-8 */
	CHECK_STR(ds_buf_str(&b), "\\xed\\xa0\\x80");
	ds_buf_free(&b);
	CHECK_EQ_U64(ds_text_width("caf\xc3\xa9"), 4);
}

TEST(parse_u64)
{
	uint64_t v;
	CHECK(ds_parse_u64("250000", &v, false) && v == 250000);
	CHECK(ds_parse_u64("0x10", &v, false) && v == 16);
	CHECK(ds_parse_u64("4k", &v, true) && v == 4000);
	CHECK(ds_parse_u64("2M", &v, true) && v == 2000000);
	CHECK(!ds_parse_u64("4k", &v, false));
	CHECK(!ds_parse_u64("-1", &v, false));
	CHECK(!ds_parse_u64("", &v, false));
	CHECK(!ds_parse_u64("12x", &v, true));
	CHECK(!ds_parse_u64("99999999999999999999", &v, false));
	CHECK(!ds_parse_u64("18446744073709551615G", &v, true));
}

TEST(json_roundtrip)
{
	ds_buf b = {0};
	ds_jw w;
	ds_err err = {0};
	ds_json *j;

	ds_jw_init(&w, &b, true);
	ds_jw_obj_begin(&w);
	ds_jw_key(&w, "name");
	ds_jw_str(&w, "a\"b\\c\n\x01\xff");
	ds_jw_key(&w, "big");
	ds_jw_u64(&w, UINT64_MAX);
	ds_jw_key(&w, "neg");
	ds_jw_i64(&w, -5);
	ds_jw_key(&w, "list");
	ds_jw_arr_begin(&w);
	ds_jw_double(&w, 1.5);
	ds_jw_bool(&w, true);
	ds_jw_null(&w);
	ds_jw_arr_end(&w);
	ds_jw_key(&w, "empty");
	ds_jw_obj_begin(&w);
	ds_jw_obj_end(&w);
	ds_jw_obj_end(&w);

	j = ds_json_parse(b.p, b.len, "test", &err);
	CHECK(j != NULL);
	if (j) {
		uint64_t u;
		int64_t i;
		const ds_json *l = ds_json_get(j, "list");
		CHECK_STR(ds_json_get_str(j, "name"), "a\"b\\c\n\x01\xef\xbf\xbd");
		CHECK(ds_json_get_u64(j, "big", &u) && u == UINT64_MAX);
		CHECK(ds_json_get_i64(j, "neg", &i) && i == -5);
		CHECK(l && l->type == DS_JARR && l->n == 3 && l->items[0]->num == 1.5);
		CHECK(l && l->items[1]->type == DS_JBOOL && l->items[2]->type == DS_JNULL);
		CHECK(ds_json_get(j, "empty") && ds_json_get(j, "empty")->n == 0);
		ds_json_free(j);
	}
	ds_buf_free(&b);
}

TEST(json_errors_name_the_offset)
{
	static const char *const bad[] = {"{", "{\"a\":}", "[1,]", "\"abc", "{\"a\" 1}", "[1] x",
					  "tru", "\"\\x\"", "-", "[\"\\ud800\"]x"};
	ds_err err = {0};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ds_json *j = ds_json_parse(bad[i], strlen(bad[i]), "bad.json", &err);
		CHECK(j == NULL);
		CHECK(strstr(err.msg, "bad.json") && strstr(err.msg, "at byte"));
		ds_json_free(j);
	}
	{
		/* deep nesting is refused, not a stack overflow */
		char deep[5000];
		memset(deep, '[', sizeof deep);
		CHECK(ds_json_parse(deep, sizeof deep, "deep", &err) == NULL);
	}
	{
		ds_json *j = ds_json_parse("\"\\ud83d\\ude00\"", 14, "emoji", &err);
		CHECK(j && strcmp(j->str, "\xf0\x9f\x98\x80") == 0);
		ds_json_free(j);
	}
}

TEST(err_prefix)
{
	ds_err e = {0};
	CHECK(ds_err_set(&e, DS_EENV, "disk %s", "full") == -1);
	ds_err_prefix(&e, "cannot write '%s': ", "x");
	CHECK_STR(e.msg, "cannot write 'x': disk full");
	CHECK(e.kind == DS_EENV);
}

/* What is not a regular file is refused without waiting for a writer
 * (a FIFO with none would block open() forever), through symlinks too. */
TEST(open_regular_refuses_without_blocking)
{
	char *fifo = unit_tpath("fifo"), *link = unit_tpath("link"), *file = unit_tpath("file"), *want;
	ds_err e = {0};
	size_t len = 0;
	char *text;
	int fd;

	CHECK(mkfifo(fifo, 0600) == 0 && symlink("fifo", link) == 0 && unit_write_text("file", "abc"));
	CHECK(ds_open_regular(fifo, &e) == -1);
	want = ds_xasprintf("cannot read '%s': it is a FIFO, not a regular file", fifo);
	CHECK_STR(e.msg, want);
	free(want);
	CHECK(e.kind == DS_EINPUT);
	CHECK(ds_read_file_err(link, &len, &e) == NULL);
	CHECK(strstr(e.msg, "it is a FIFO, not a regular file") != NULL);
	CHECK(ds_fopen_regular(unit_tmp, &e) == NULL);
	CHECK(strstr(e.msg, "it is a directory, not a regular file") != NULL);
	CHECK(ds_open_regular("/dev/null", &e) == -1);
	CHECK(strstr(e.msg, "it is a character device") != NULL);
	CHECK(ds_read_file("/nonexistent/x", NULL) == NULL && errno == ENOENT);
	CHECK(ds_read_file_err("/nonexistent/x", NULL, &e) == NULL);
	CHECK_STR(e.msg, "cannot open '/nonexistent/x': No such file or directory");
	text = ds_read_file_err(file, &len, &e);
	CHECK(text && len == 3 && strcmp(text, "abc") == 0);
	free(text);
	fd = ds_open_regular(file, &e);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	unlink(fifo);
	unlink(link);
	unlink(file);
	free(fifo);
	free(link);
	free(file);
}

/* ---- writing files as root (base.h, "writing files") ---- */

/* Whether the file at path holds exactly text. */
static bool holds(const char *path, const char *text)
{
	char *got = ds_read_file(path, NULL);
	bool yes = got && strcmp(got, text) == 0;
	free(got);
	return yes;
}

/* A link or a file planted at a name dsprof makes is refused, never
 * written through; a stale name.tmp link is removed, not followed. */
TEST(wdir_never_writes_through_a_link)
{
	char *victim = unit_tpath("victim"), *d1 = unit_tpath("w1"), *link = unit_tpath("w1/meta.json");
	char *tmp = unit_tpath("w1/kallsyms.tmp"), *made = unit_tpath("w1/kallsyms");
	ds_err e = {0};
	ds_wdir *d;
	int fd;

	CHECK(unit_write_text("victim", "secret") && mkdir(d1, 0755) == 0 && symlink(victim, link) == 0 &&
	      symlink(victim, tmp) == 0);
	d = ds_wdir_open(d1, &e);
	CHECK(d != NULL);
	if (!d)
		goto out;
	CHECK(ds_wdir_create(d, "meta.json", O_WRONLY, &e) == -1);
	CHECK(strstr(e.msg, "a symbolic link is there, and dsprof never writes through one") != NULL);
	CHECK(ds_wdir_open_file(d, "meta.json", O_WRONLY | O_APPEND | O_CREAT, &e) == -1);
	CHECK(ds_wdir_write_file(d, "kallsyms", "k\n", 2, &e) == 0);
	CHECK(holds(made, "k\n") && holds(victim, "secret"));
	/* the replacement keeps no link: kallsyms is now a file of its own */
	CHECK(ds_wdir_write_file(d, "meta.json", "{}", 2, &e) == 0);
	CHECK(holds(link, "{}") && holds(victim, "secret"));
	fd = ds_wdir_create(d, "new", O_WRONLY, &e);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(ds_wdir_create(d, "new", O_WRONLY, &e) == -1);
	CHECK(strstr(e.msg, "something else already has that name") != NULL);
	CHECK(ds_wdir_create(d, "../escape", O_WRONLY, &e) == -1 && !unit_sh("test -e escape"));
	ds_wdir_close(d);
out:
	CHECK(unit_sh("rm -rf w1 victim"));
	free(victim);
	free(d1);
	free(link);
	free(tmp);
	free(made);
}

/* Directories: a link, another user's, one others may write in are
 * refused; a link inside a path is never followed. */
TEST(wdir_refuses_directories_of_others)
{
	char *real = unit_tpath("real"), *ln = unit_tpath("ln"), *theirs = unit_tpath("theirs");
	char *open_to_all = unit_tpath("open"), *deep = unit_tpath("deep"), *base = NULL;
	char *want = unit_tpath("deep/x/y/z"), *xdir = unit_tpath("deep/x/");
	ds_err e = {0};
	ds_wdir *d, *p, *sub;

	CHECK(mkdir(real, 0755) == 0 && symlink("real", ln) == 0 && mkdir(theirs, 0755) == 0 &&
	      mkdir(open_to_all, 0777) == 0 && chmod(open_to_all, 0777) == 0 && mkdir(deep, 0755) == 0 &&
	      unit_sh("ln -s ../real deep/a"));
	CHECK(ds_wdir_open(ln, &e) == NULL && strstr(e.msg, "it is a symbolic link") != NULL);
	CHECK(ds_wdir_open(open_to_all, &e) == NULL && strstr(e.msg, "every user may write in it") != NULL);
	if (geteuid() == 0) {
		CHECK(chown(theirs, 65534, 65534) == 0);
		CHECK(ds_wdir_open(theirs, &e) == NULL && strstr(e.msg, "it belongs to user 65534") != NULL);
	} else {
		unit_skip("another user's directory: needs root to give one away");
	}
	d = ds_wdir_open(deep, &e);
	CHECK(d && ds_wdir_sub(d, "a/b", true, &e) == NULL && strstr(e.msg, "it is a symbolic link") != NULL);
	CHECK(!unit_sh("test -e real/b"));
	sub = d ? ds_wdir_sub(d, "x/y/z", true, &e) : NULL;
	CHECK(sub && strcmp(ds_wdir_path(sub), want) == 0);
	ds_wdir_close(sub);
	ds_wdir_close(d);
	/* a parent: named entries of dsprof's own in it, no files */
	p = ds_wdir_parent(xdir, &base, &e);
	CHECK(p && base && strcmp(base, "x") == 0);
	CHECK(p && ds_wdir_create(p, "f", O_WRONLY, &e) == -1);
	ds_wdir_close(p);
	free(base);
	CHECK(ds_wdir_parent("/", &base, &e) == NULL && ds_wdir_parent("..", &base, &e) == NULL);
	p = ds_wdir_parent("dsprof.data", &base, &e);
	CHECK(p && strcmp(ds_wdir_path(p), ".") == 0 && strcmp(base, "dsprof.data") == 0);
	ds_wdir_close(p);
	free(base);
	CHECK(unit_sh("rm -rf real ln theirs open deep"));
	free(real);
	free(ln);
	free(theirs);
	free(open_to_all);
	free(deep);
	free(want);
	free(xdir);
}

/* A tree is removed through descriptors: a link in it goes, what it
 * points at stays. */
TEST(wdir_remove_never_follows)
{
	char *keep = unit_tpath("keep/precious"), *tree = unit_tpath("tree");
	ds_err e = {0};
	ds_wdir *d;

	CHECK(unit_sh("mkdir -p keep tree/a/b && echo x >keep/precious && echo y >tree/a/b/f && "
		      "ln -s ../../keep tree/a/out && ln -s %s tree/a/b/file", keep));
	d = ds_wdir_open(unit_tmp, &e);
	CHECK(d && ds_wdir_remove(d, "tree", &e) == 0);
	CHECK(access(tree, F_OK) != 0 && holds(keep, "x\n"));
	CHECK(d && ds_wdir_remove(d, "tree", &e) == 0); /* absent: done */
	ds_wdir_close(d);
	CHECK(unit_sh("rm -rf keep"));
	free(keep);
	free(tree);
}

/* Special files are refused without blocking; so are links where dsprof
 * wrote a file, and another user's file as output. */
TEST(wdir_special_files)
{
	char *fifo = unit_tpath("s/fifo"), *out = unit_tpath("s/out"), *ln = unit_tpath("s/ln"), *dir = unit_tpath("s");
	ds_err e = {0};
	ds_wdir *d;
	int fd;

	CHECK(unit_sh("mkdir s && mkfifo s/fifo && echo old >s/out && ln -s out s/ln"));
	d = ds_wdir_open(dir, &e);
	CHECK(d && ds_wdir_open_file(d, "fifo", O_RDWR | O_APPEND | O_CREAT, &e) == -1);
	CHECK(strstr(e.msg, "it is not a regular file") != NULL);
	CHECK(ds_open_own(ln, &e) == -1 && strstr(e.msg, "it is a symbolic link") != NULL);
	CHECK(ds_open_own(fifo, &e) == -1 && strstr(e.msg, "it is a FIFO") != NULL);
	CHECK(ds_create_output(fifo, &e) == -1 && strstr(e.msg, "it is not a regular file") != NULL);
	CHECK(ds_create_output(ln, &e) == -1 && strstr(e.msg, "it is a symbolic link") != NULL);
	CHECK(holds(out, "old\n"));
	fd = ds_create_output(out, &e);
	CHECK(fd >= 0 && write(fd, "new", 3) == 3);
	if (fd >= 0)
		close(fd);
	CHECK(holds(out, "new"));
	if (geteuid() == 0) {
		CHECK(chown(out, 65534, 65534) == 0);
		CHECK(ds_create_output(out, &e) == -1 && strstr(e.msg, "it belongs to another user") != NULL);
		CHECK(holds(out, "new"));
	} else {
		unit_skip("another user's file: needs root to give one away");
	}
	ds_wdir_close(d);
	CHECK(unit_sh("rm -rf s"));
	free(fifo);
	free(out);
	free(ln);
	free(dir);
}

int main(void)
{
	if (!unit_tmpdir("dsprof-base"))
		return 1;
	RUN(hash_interns_in_order);
	RUN(hash_binary_keys);
	RUN(u64map_lines);
	RUN(u64map_delete);
	RUN(buf_printf_grows);
	RUN(sanitize_neutralizes_escapes);
	RUN(parse_u64);
	RUN(json_roundtrip);
	RUN(json_errors_name_the_offset);
	RUN(err_prefix);
	RUN(open_regular_refuses_without_blocking);
	RUN(wdir_never_writes_through_a_link);
	RUN(wdir_refuses_directories_of_others);
	RUN(wdir_remove_never_follows);
	RUN(wdir_special_files);
	rmdir(unit_tmp);
	return unit_done();
}
