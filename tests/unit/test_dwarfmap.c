/*
 * dwarfmap: symbols, lines and code of real ELF files, built here with gcc
 * and objcopy where a test needs a particular layout (stripped binaries,
 * debug files, MiniDebugInfo, aliases), plus hostile input.
 */
#include "dwarfmap/dwarfmap.h"
#include "tests/unit/unit.h"
#include "tests/unit/unit_dso.h"

#include <elf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* The mapping of this process holding addr: its file and file offset. */
static bool self_map(const void *addr, char *path, size_t pathsz, uint64_t *offset)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	while (f && !found && fgets(line, sizeof line, f)) {
		unsigned long lo, hi, pgoff;
		int pos = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &lo, &hi, &pgoff, &pos) < 3 || !pos)
			continue;
		if ((uintptr_t)addr < lo || (uintptr_t)addr >= hi)
			continue;
		snprintf(path, pathsz, "%s", line + pos);
		path[strcspn(path, "\n")] = '\0';
		*offset = (uintptr_t)addr - lo + pgoff;
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

static const ds_symbol *find_named(const ds_dso *d, const char *name)
{
	for (size_t i = 0; i < ds_dso_nsymbols(d); i++)
		if (strcmp(ds_dso_symbol(d, i)->name, name) == 0)
			return ds_dso_symbol(d, i);
	return NULL;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suf);
	return s && a >= b && strcmp(s + a - b, suf) == 0;
}

/* ---- the running test binary ---- */

static const int probe_first_line = __LINE__ + 1;
__attribute__((noinline, noclone, used)) static int probe_target(int x)
{
	volatile int y = x;
	return y * 7 + 3;
}
static const int probe_last_line = __LINE__ - 1;

static int (*volatile probe_ptr)(int) = probe_target;

static bool probe_vaddr(ds_dso *d, uint64_t *vaddr)
{
	char path[4096];
	uint64_t off;

	return self_map((const void *)(uintptr_t)probe_ptr, path, sizeof path, &off) &&
	       ds_dso_file_to_vaddr(d, off, vaddr);
}

TEST(self_symbols)
{
	ds_err err;
	ds_dso *d = ds_dso_open("/proc/self/exe", NULL, &err);
	const ds_symbol *s;
	uint64_t va = 0;
	size_t idsize = 0;
	bool sorted = true;

	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(probe_ptr(1) == 10);
	CHECK(probe_vaddr(d, &va));
	s = ds_dso_symbol_at(d, va);
	CHECK_STR(s ? s->name : NULL, "probe_target");
	CHECK(s && s->start == va && s->size > 0 && s->type == STT_FUNC && s->bind == STB_LOCAL);
	CHECK_STR(ds_dso_symbol_source(d), "symtab");
	CHECK(ds_dso_build_id(d, &idsize) != NULL && idsize == 20);
	CHECK_STR(ds_dso_path(d), "/proc/self/exe");
	CHECK(ds_dso_nsymbols(d) > 10);
	for (size_t i = 1; i < ds_dso_nsymbols(d); i++)
		sorted = sorted && ds_dso_symbol(d, i - 1)->start <= ds_dso_symbol(d, i)->start;
	CHECK(sorted);
	CHECK(ds_dso_symbol(d, ds_dso_nsymbols(d)) == NULL);
	CHECK(ds_dso_symbol_at(d, 0) == NULL);
	CHECK(ds_dso_note(d) == NULL);
	ds_dso_close(d);
}

TEST(self_lines_and_code)
{
	ds_err err;
	ds_dso *d = ds_dso_open("/proc/self/exe", NULL, &err);
	const char *file = NULL;
	const uint8_t *code;
	unsigned line = 0;
	uint64_t va = 0;
	size_t avail = 0;

	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_STR(ds_dso_debug_file(d), "/proc/self/exe");
	CHECK(probe_vaddr(d, &va));
	CHECK(ds_dso_line_at(d, va, &file, &line));
	CHECK(ends_with(file, "tests/unit/test_dwarfmap.c"));
	CHECK((int)line >= probe_first_line && (int)line <= probe_last_line);
	/* a second query uses the loaded table */
	CHECK(ds_dso_line_at(d, va + 1, &file, &line) && ends_with(file, "test_dwarfmap.c"));
	CHECK(!ds_dso_line_at(d, 0, &file, &line));
	code = ds_dso_code_at(d, va, &avail);
	CHECK(code != NULL && avail >= 8);
	CHECK(code && memcmp(code, (const void *)(uintptr_t)probe_ptr, 8) == 0);
	CHECK(ds_dso_code_at(d, 0, &avail) == NULL);
	ds_dso_close(d);
}

TEST(build_id_mismatch_note)
{
	static const uint8_t other[20] = {1, 2, 3};
	ds_dso_opts o = {.build_id = other, .build_id_size = sizeof other};
	ds_err err;
	ds_dso *d = ds_dso_open("/proc/self/exe", &o, &err);

	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(ds_dso_note(d) && ds_str_has_prefix(ds_dso_note(d), "build-id differs from the recording"));
	CHECK(ds_dso_nsymbols(d) > 10);
	ds_dso_close(d);
}

TEST(libc_dynsym)
{
	char path[4096], *root = unit_tpath("noroot");
	ds_dso_opts o = {.debug_root = root};
	const ds_symbol *s;
	uint64_t off, va = 0;
	ds_err err;
	ds_dso *d = NULL;

	CHECK(self_map((const void *)(uintptr_t)getpid, path, sizeof path, &off));
	CHECK(strstr(path, "libc.so") != NULL);
	d = ds_dso_open(path, &o, &err);
	free(root);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_STR(ds_dso_symbol_source(d), "dynsym");
	CHECK(ds_dso_file_to_vaddr(d, off, &va));
	s = ds_dso_symbol_at(d, va);
	/* glibc's getpid is a weak alias of __getpid; perf shows the global */
	CHECK(s && (strcmp(s->name, "__getpid") == 0 || strcmp(s->name, "getpid") == 0));
	CHECK(s && s->start == va);
	CHECK(find_named(d, "qsort") != NULL);
	ds_dso_close(d);
}

/* ---- separate debug files ---- */

static const char tiny_c[] =
	"#include <stdio.h>\n"
	"static int __attribute__((noinline)) tiny_func(int x) { return x * 3 + puts(\"hi\"); }\n"
	"int main(int argc, char **argv) { (void)argv; return tiny_func(argc); }\n";

static void check_tiny(ds_dso *d)
{
	const ds_symbol *s = find_named(d, "tiny_func"), *plt = find_named(d, "puts@plt");
	const char *file = NULL;
	unsigned line = 0;

	CHECK(s != NULL);
	CHECK(s && ds_dso_symbol_at(d, s->start) == s);
	CHECK(s && ds_dso_line_at(d, s->start, &file, &line));
	CHECK(ends_with(file, "/tiny.c"));
	CHECK_EQ_U64(line, 2);
	CHECK(plt && plt->size == 16 && plt->type == STT_FUNC);
	CHECK_STR(plt ? plt->raw : NULL, "puts@plt");
}

TEST(debuglink)
{
	ds_err err;
	ds_dso *d;

	CHECK(unit_write_text("tiny.c", tiny_c));
	CHECK(unit_sh("gcc -O1 -g -o a.out tiny.c && objcopy --only-keep-debug a.out a.debug && "
		 "objcopy --strip-all --add-gnu-debuglink=a.debug a.out"));
	d = unit_open_dso("a.out", &err);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(ds_str_has_prefix(ds_dso_symbol_source(d), "debug file ") &&
	      ends_with(ds_dso_symbol_source(d), "/a.debug"));
	CHECK(ends_with(ds_dso_debug_file(d), "/a.debug"));
	check_tiny(d);
	ds_dso_close(d);
}

TEST(debuglink_crc)
{
	ds_err err;
	ds_dso *d;

	CHECK(unit_sh("gcc -O1 -g -Wl,--build-id=none -o c.out tiny.c && "
		 "objcopy --only-keep-debug c.out c.debug && "
		 "objcopy --strip-all --add-gnu-debuglink=c.debug c.out"));
	d = unit_open_dso("c.out", &err);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(ds_dso_build_id(d, NULL) == NULL);
	CHECK(ends_with(ds_dso_symbol_source(d), "/c.debug"));
	check_tiny(d);
	ds_dso_close(d);

	/* a debug file from another build has another CRC: not used */
	CHECK(unit_sh("gcc -O0 -g -Wl,--build-id=none -o other.out tiny.c && "
		 "objcopy --only-keep-debug other.out c.debug"));
	d = unit_open_dso("c.out", &err);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_STR(ds_dso_symbol_source(d), "dynsym");
	CHECK(ds_dso_debug_file(d) == NULL);
	CHECK(ds_dso_note(d) && strstr(ds_dso_note(d), "ignoring debug file") != NULL);
	CHECK(find_named(d, "tiny_func") == NULL);
	ds_dso_close(d);
}

TEST(build_id_debug_dir)
{
	const uint8_t *id;
	size_t n = 0;
	ds_buf dir = {0}, file = {0};
	ds_dso_opts o = {0};
	ds_err err;
	ds_dso *d;

	CHECK(unit_sh("gcc -O1 -g -o b.out tiny.c && objcopy --only-keep-debug b.out b.debug && "
		 "objcopy --strip-all b.out"));
	d = unit_open_dso("b.out", &err);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_STR(ds_dso_symbol_source(d), "dynsym");
	id = ds_dso_build_id(d, &n);
	CHECK(id && n == 20);
	if (id && n == 20) {
		ds_buf_printf(&dir, "root/.build-id/%02x", id[0]);
		ds_buf_printf(&file, "%s/", ds_buf_str(&dir));
		for (size_t i = 1; i < n; i++)
			ds_buf_printf(&file, "%02x", id[i]);
		ds_buf_puts(&file, ".debug");
	}
	ds_dso_close(d);
	CHECK(unit_sh("mkdir -p %s && cp b.debug %s", ds_buf_str(&dir), ds_buf_str(&file)));
	o.debug_root = unit_tpath("root");
	{
		char *p = unit_tpath("b.out");
		d = ds_dso_open(p, &o, &err);
		free(p);
	}
	free((char *)o.debug_root);
	CHECK(d != NULL);
	if (d) {
		CHECK(strstr(ds_dso_symbol_source(d), "/root/.build-id/") != NULL);
		check_tiny(d);
		ds_dso_close(d);
	}
	ds_buf_free(&dir);
	ds_buf_free(&file);
}

/* An archived debug file (ds_dso_opts.debug_file) is taken when its
 * build-id matches, before any debug root; one of another build is not. */
TEST(given_debug_file)
{
	ds_dso_opts o = {.debug_root = "/nonexistent"};
	char *exe, *dbg, *other;
	ds_err err;
	ds_dso *d;

	CHECK(unit_sh("gcc -O1 -g -o g.out tiny.c && objcopy --only-keep-debug g.out g.debug && "
		      "objcopy --strip-all g.out && gcc -O2 -g -o o.out tiny.c && "
		      "objcopy --only-keep-debug o.out o.debug"));
	exe = unit_tpath("g.out");
	dbg = unit_tpath("g.debug");
	other = unit_tpath("o.debug");
	o.debug_file = dbg;
	d = ds_dso_open(exe, &o, &err);
	CHECK(d != NULL);
	if (d) {
		CHECK_STR(ds_dso_separate_debug_file(d), dbg);
		check_tiny(d);
		ds_dso_close(d);
	}
	o.debug_file = other;
	d = ds_dso_open(exe, &o, &err);
	CHECK(d != NULL);
	if (d) {
		CHECK(ds_dso_separate_debug_file(d) == NULL);
		CHECK(ds_dso_note(d) && strstr(ds_dso_note(d), "ignoring debug file") != NULL);
		ds_dso_close(d);
	}
	free(exe);
	free(dbg);
	free(other);
}

/* Build-ids without opening an object: a file's note, and a block of notes
 * as /sys/kernel/notes shows the kernel's. */
TEST(build_id_readers)
{
	uint8_t id[20], blob[64] = {0};
	uint32_t *w = (uint32_t *)blob;
	ds_err err;
	ds_dso *d = ds_dso_open("/proc/self/exe", NULL, &err);
	size_t n = ds_build_id_of_file("/proc/self/exe", id, sizeof id), m = 0;
	const uint8_t *want = d ? ds_dso_build_id(d, &m) : NULL;

	CHECK(n == 20 && want && m == 20 && memcmp(id, want, 20) == 0);
	ds_dso_close(d);
	CHECK_EQ_U64(ds_build_id_of_file("/nonexistent", id, sizeof id), 0);
	/* a note of another kind, then the GNU build-id note with 8 bytes */
	w[0] = 6, w[1] = 4, w[2] = 1;
	memcpy(blob + 12, "Linux", 6);
	w[6] = 4, w[7] = 8, w[8] = 3 /* NT_GNU_BUILD_ID */;
	memcpy(blob + 36, "GNU", 4);
	memcpy(blob + 40, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	CHECK_EQ_U64(ds_build_id_of_notes(blob, 48, id, sizeof id), 8);
	CHECK(id[0] == 1 && id[7] == 8);
	/* cut short inside its descriptor: none */
	CHECK_EQ_U64(ds_build_id_of_notes(blob, 44, id, sizeof id), 0);
}

TEST(minidebuginfo)
{
	static const char src[] =
		"static volatile int v;\n"
		"static void __attribute__((noinline)) mini_static(void) { v++; }\n"
		"int main(void) { mini_static(); return v - 1; }\n";
	const ds_symbol *s;
	ds_err err;
	ds_dso *d;

	if (!unit_have("xz")) {
		unit_skip("xz is not installed");
		return;
	}
	CHECK(unit_write_text("m.c", src));
	CHECK(unit_sh("gcc -O2 -g -o m m.c && objcopy --only-keep-debug m m.dbg && "
		 "objcopy -S --keep-symbol=mini_static m.dbg mini && xz -f mini && "
		 "objcopy --strip-all --add-section .gnu_debugdata=mini.xz m"));
	d = unit_open_dso("m", &err);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_STR(ds_dso_symbol_source(d), "dynsym+gnu_debugdata");
	s = find_named(d, "mini_static");
	CHECK(s != NULL && s->size > 0);
	CHECK(s && ds_dso_symbol_at(d, s->start) == s);
	CHECK(ds_dso_debug_file(d) == NULL);
	ds_dso_close(d);

	/* a .gnu_debugdata that is not xz is noted, not fatal */
	CHECK(unit_write_text("junk.xz", "not xz at all"));
	CHECK(unit_sh("objcopy --strip-all m m2 && objcopy --remove-section .gnu_debugdata "
		 "--add-section .gnu_debugdata=junk.xz m2"));
	d = unit_open_dso("m2", &err);
	CHECK(d != NULL);
	if (d) {
		CHECK_STR(ds_dso_symbol_source(d), "dynsym");
		CHECK(ds_dso_note(d) && strstr(ds_dso_note(d), ".gnu_debugdata") != NULL);
		ds_dso_close(d);
	}
}

/* ---- perf's choice among symbols at one address ---- */

TEST(perf_aliases)
{
	static const char src[] =
		"static volatile long sink;\n"
		"__attribute__((noinline)) void impl_a(void) { sink += 1; }\n"
		"void impl_a_longer_alias(void) __attribute__((alias(\"impl_a\")));\n"
		"__attribute__((noinline)) void gb(void) { sink += 2; }\n"
		"void wk_very_long_name(void) __attribute__((weak, alias(\"gb\")));\n"
		"static __attribute__((used, noinline)) void loc_very_long_name(void) { sink += 3; }\n"
		"void gl(void) __attribute__((alias(\"loc_very_long_name\")));\n"
		"__attribute__((noinline)) void __uu(void) { sink += 4; }\n"
		"void vv(void) __attribute__((alias(\"__uu\")));\n"
		"__asm__(\".text\\n.globl asmfn\\n.type asmfn,@function\\n"
		".globl asmfn_label_zero_size_longer\\nasmfn:\\nasmfn_label_zero_size_longer:\\n"
		"ret\\n.size asmfn, .-asmfn\\n\");\n"
		"void asmfn(void);\n"
		"int main(void) { impl_a(); gb(); gl(); vv(); asmfn(); return 0; }\n";
	/* alias -> the name perf 6.1 reports for its address */
	static const char *const expect[][2] = {
		{"impl_a", "impl_a_longer_alias"}, /* equal rank: the longer name */
		{"wk_very_long_name", "gb"},       /* global beats weak */
		{"loc_very_long_name", "gl"},      /* global beats local */
		{"__uu", "vv"},                    /* fewer leading underscores */
		{"asmfn_label_zero_size_longer", "asmfn"}, /* a size beats none */
	};
	ds_err err;
	ds_dso *d;

	CHECK(unit_write_text("al.c", src));
	CHECK(unit_sh("gcc -O2 -g -o al al.c"));
	d = unit_open_dso("al", &err);
	CHECK(d != NULL);
	if (!d)
		return;
	for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
		uint64_t a = unit_nm_addr("al", expect[i][0]);
		const ds_symbol *s = a ? ds_dso_symbol_at(d, a) : NULL;
		CHECK(a != 0 && a == unit_nm_addr("al", expect[i][1]));
		CHECK_STR(s ? s->name : NULL, expect[i][1]);
	}
	ds_dso_close(d);
}

/* perf extends a zero-size _init up to the next symbol before adding the
 * PLT entries, and its tree walk then finds _init for some PLT addresses;
 * whatever perf answers, an address is never left without a symbol.
 * (A stripped PIE alone has no defined symbols, and perf then makes no
 * PLT entries either.) */
TEST(plt_covered)
{
	ds_err err;
	ds_dso *d = unit_open_dso("a.out", &err);
	const ds_symbol *plt;

	CHECK(d != NULL);
	if (!d)
		return;
	plt = find_named(d, "puts@plt");
	CHECK(plt != NULL);
	CHECK(plt && ds_dso_symbol_at(d, plt->start) != NULL);
	CHECK(plt && ds_dso_symbol_at(d, plt->start + plt->size - 1) != NULL);
	ds_dso_close(d);
}

TEST(cxx_names)
{
	static const char src[] =
		"namespace ns { template <class T> struct A {\n"
		"  __attribute__((noinline)) static T f(T x) { volatile T s = x; return s; } }; }\n"
		"int main(int argc, char **) { return ns::A<int>::f(argc); }\n";
	const ds_symbol *s = NULL;
	const char *cxx;
	char *full;
	ds_err err;
	ds_dso *d;

	full = ds_demangle("_ZN2ns1AIiE1fEi");
	CHECK_STR(full, "ns::A<int>::f(int)");
	free(full);
	full = ds_demangle("_ZN1r4spin17h1bc749a643ba9812E");
	CHECK_STR(full, "r::spin");
	free(full);
	CHECK(ds_demangle("main") == NULL);
	CHECK(ds_demangle("_Zgarbage") == NULL);
	CHECK(ds_demangle(NULL) == NULL);

	cxx = unit_have("g++") ? "g++" : unit_have("clang++") ? "clang++" : NULL;
	if (!cxx) {
		unit_skip("no C++ compiler");
		return;
	}
	CHECK(unit_write_text("cx.cc", src));
	CHECK(unit_sh("%s -O2 -o cx cx.cc", cxx));
	d = unit_open_dso("cx", &err);
	CHECK(d != NULL);
	if (!d)
		return;
	for (size_t i = 0; i < ds_dso_nsymbols(d); i++)
		if (strcmp(ds_dso_symbol(d, i)->raw, "_ZN2ns1AIiE1fEi") == 0)
			s = ds_dso_symbol(d, i);
	/* perf shows names without parameter lists */
	CHECK_STR(s ? s->name : NULL, "ns::A<int>::f");
	ds_dso_close(d);
}

/* Line tables of relocatable objects, where the file names (in
 * .debug_line_str) and addresses are relocations, little- and big-endian:
 * a function's first line at its offset in the object's .text. */
TEST(object_lines)
{
	static const char src[] = "int first(int x) { return x * 3; }\n"
				  "int second(int x)\n"
				  "{\n"
				  "\treturn x + 7;\n"
				  "}\n";
	static const char *const cc[] = {"gcc", "clang --target=powerpc64-linux-gnu",
					 "clang --target=s390x-linux-gnu"};
	const char *file = NULL;
	unsigned line = 0;

	CHECK(unit_write_text("objlines.c", src));
	for (size_t i = 0; i < sizeof cc / sizeof cc[0]; i++) {
		uint64_t fn;
		ds_dso *d;

		if (i > 0 && !unit_have("clang")) {
			unit_skip("clang is not installed");
			return;
		}
		CHECK(unit_sh("%s -O2 -g -c -o objlines.o objlines.c", cc[i]));
		d = unit_open_dso("objlines.o", NULL);
		fn = unit_nm_addr("objlines.o", "second");
		CHECK(d && fn > 0);
		CHECK(d && ds_dso_line_at(d, fn, &file, &line));
		CHECK(file && ends_with(file, "/objlines.c"));
		CHECK(line >= 2 && line <= 4);
		CHECK(d && ds_dso_note(d) == NULL);
		ds_dso_close(d);
	}
}

/* A sequence whose last line is at its end address (GCC's f.cold: the line
 * after abort()) covers no code past it: main, of a unit built without
 * -g and linked after it, has no line. */
TEST(sequence_end)
{
	static const char a[] = "#include <stdlib.h>\n"
				"__attribute__((noinline)) int f(int x)\n"
				"{\n"
				"\tif (x > 5)\n"
				"\t\tabort();\n"
				"\treturn x * 2;\n"
				"}\n";
	static const char b[] = "int f(int);\n"
				"int main(int argc, char **argv) { (void)argv; return f(argc); }\n";
	const char *file = NULL;
	unsigned line = 0;
	uint64_t cold, fmain;
	ds_dso *d;

	CHECK(unit_write_text("seqa.c", a) && unit_write_text("seqb.c", b));
	CHECK(unit_sh("gcc -O2 -g -c seqa.c && gcc -O2 -c seqb.c && gcc -o seq seqa.o seqb.o"));
	d = unit_open_dso("seq", NULL);
	cold = unit_nm_addr("seq", "f.cold");
	fmain = unit_nm_addr("seq", "main");
	/* the layout the case needs: the cold part right before main */
	CHECK(d && cold > 0 && fmain > cold);
	CHECK(d && ds_dso_line_at(d, cold, &file, &line) && ends_with(file, "/seqa.c"));
	CHECK(d && !ds_dso_line_at(d, fmain, &file, &line));
	ds_dso_close(d);
}

TEST(vdso)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo = 0, hi = 0;
	char line[512];
	const ds_symbol *s;
	ds_err err;
	ds_dso *d;

	while (f && fgets(line, sizeof line, f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	if (f)
		fclose(f);
	CHECK(base != 0 && base == lo && hi > lo);
	if (!base || base != lo)
		return;
	d = ds_dso_open_mem((const void *)base, hi - lo, "[vdso]", &err);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_STR(ds_dso_path(d), "[vdso]");
	CHECK_STR(ds_dso_symbol_source(d), "dynsym");
	s = find_named(d, "__vdso_clock_gettime");
	CHECK(s != NULL);
	CHECK(s && ds_dso_code_at(d, s->start, &(size_t){0}) != NULL);
	CHECK(ds_dso_debug_file(d) == NULL);
	ds_dso_close(d);
}

/* ---- kallsyms ---- */

TEST(kallsyms)
{
	static const char text[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 T startup_64\n"
		"ffffffff81000100 t helper\n"
		"ffffffff81000200 W weakfn\n"
		"ffffffff81000300 d some_data\n"
		"ffffffff81000380 A abs_sym\n"
		"ffffffff81000400 T last_kernel\n"
		"this line is garbage\n"
		"ffffffffc0000000 t mod_fn\t[mymod]\n"
		"ffffffffc0000100 T mod_fn2\t[mymod]\n";
	const ds_symbol *s;
	uint64_t va = 0;
	ds_err err;
	char *p = unit_tpath("kallsyms");
	ds_dso *d;

	CHECK(unit_write_text("kallsyms", text));
	d = ds_dso_open_kallsyms(p, false, &err);
	free(p);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_STR(ds_dso_symbol_source(d), "kallsyms");
	CHECK_EQ_U64(ds_dso_nsymbols(d), 7);
	CHECK(ds_dso_file_to_vaddr(d, 0xffffffff81000150ull, &va) && va == 0xffffffff81000150ull);
	/* _text never got a size, startup_64 did: the sized one stays */
	s = ds_dso_symbol_at(d, 0xffffffff81000050ull);
	CHECK_STR(s ? s->name : NULL, "startup_64");
	s = ds_dso_symbol_at(d, va);
	CHECK(s && strcmp(s->name, "helper") == 0 && s->type == STT_FUNC && s->bind == STB_LOCAL &&
	      s->size == 0x100);
	s = ds_dso_symbol_at(d, 0xffffffff81000210ull);
	CHECK(s && strcmp(s->name, "weakfn") == 0 && s->bind == STB_WEAK);
	s = ds_dso_symbol_at(d, 0xffffffff81000390ull);
	CHECK(s && strcmp(s->name, "some_data") == 0 && s->type == STT_OBJECT);
	/* the last kernel symbol before the modules gets up to a page */
	s = ds_dso_symbol_at(d, 0xffffffff81001fffull);
	CHECK_STR(s ? s->name : NULL, "last_kernel");
	CHECK(ds_dso_symbol_at(d, 0xffffffff81002000ull) == NULL);
	s = ds_dso_symbol_at(d, 0xffffffffc0000010ull);
	CHECK_STR(s ? s->name : NULL, "mod_fn");
	s = ds_dso_symbol_at(d, 0xffffffffc0001fffull);
	CHECK_STR(s ? s->name : NULL, "mod_fn2");
	CHECK(ds_dso_symbol_at(d, 0x1000) == NULL);
	CHECK(!ds_dso_line_at(d, 0xffffffff81000150ull, &(const char *){NULL}, &(unsigned){0}));
	CHECK(ds_dso_code_at(d, 0xffffffff81000150ull, &(size_t){0}) == NULL);
	ds_dso_close(d);
}

TEST(kallsyms_hidden)
{
	ds_err err;
	char *p = unit_tpath("kallsyms0");
	ds_dso *d;

	CHECK(unit_write_text("kallsyms0", "0000000000000000 T _text\n0000000000000000 t helper\n"));
	d = ds_dso_open_kallsyms(p, false, &err);
	free(p);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_EQ_U64(ds_dso_nsymbols(d), 0);
	CHECK_STR(ds_dso_symbol_source(d), "kallsyms (addresses hidden)");
	CHECK(ds_dso_symbol_at(d, 0) == NULL);
	ds_dso_close(d);

	d = ds_dso_open_kallsyms("/nonexistent/kallsyms", false, &err);
	CHECK(d == NULL && err.kind == DS_EINPUT);
	CHECK_STR(err.msg, "cannot open '/nonexistent/kallsyms': No such file or directory");
}

/* The subset an experiment keeps resolves its addresses as the whole file
 * does, however the file reads: a NUL byte inside a line (a corrupt copy)
 * ends that name, not the file, for both readers. */
TEST(kallsyms_subset_nul)
{
	static const char text[] = "ffffffff81000000 T _text\n"
				   "ffffffff81000100 t bro\0ken\n"
				   "ffffffff81000200 T after_nul\n"
				   "ffffffff81000300 T last\n";
	const uint64_t addrs[] = {0xffffffff81000110ull, 0xffffffff81000210ull};
	char *whole = unit_tpath("ks-nul"), *part = unit_tpath("ks-nul-subset");
	ds_buf kept = {0};
	ds_err err;
	ds_dso *d, *s;

	CHECK(unit_write_file("ks-nul", text, sizeof text - 1));
	CHECK(ds_kallsyms_subset(whole, addrs, 2, &kept, &err) == 0);
	CHECK(unit_write_file("ks-nul-subset", kept.p, kept.len));
	ds_buf_free(&kept);
	d = ds_dso_open_kallsyms(whole, false, &err);
	s = ds_dso_open_kallsyms(part, false, &err);
	CHECK(d && s);
	for (size_t i = 0; d && s && i < 2; i++) {
		const ds_symbol *a = ds_dso_symbol_at(d, addrs[i]), *b = ds_dso_symbol_at(s, addrs[i]);
		CHECK(a && b && strcmp(a->name, b->name) == 0 && a->start == b->start && a->size == b->size);
	}
	CHECK_STR(s && ds_dso_symbol_at(s, addrs[1]) ? ds_dso_symbol_at(s, addrs[1])->name : NULL, "after_nul");
	ds_dso_close(d);
	ds_dso_close(s);
	free(whole);
	free(part);
}

/* ---- bad input ---- */

TEST(open_errors)
{
	char rnd[4096];
	ds_err err;
	ds_dso *d;

	d = ds_dso_open("/nonexistent/x", NULL, &err);
	CHECK(d == NULL && err.kind == DS_EINPUT);
	CHECK_STR(err.msg, "cannot open '/nonexistent/x': No such file or directory");
	d = ds_dso_open(unit_tmp, NULL, &err);
	CHECK(d == NULL && err.kind == DS_EINPUT && strstr(err.msg, "not a regular file"));

	srand(7);
	for (size_t i = 0; i < sizeof rnd; i++)
		rnd[i] = (char)(rand() & 0xff);
	CHECK(unit_write_file("random.bin", rnd, sizeof rnd));
	d = unit_open_dso("random.bin", &err);
	CHECK(d == NULL && err.kind == DS_EINPUT && ends_with(err.msg, "random.bin': not an ELF file"));
	CHECK(unit_write_file("empty.bin", "", 0));
	d = unit_open_dso("empty.bin", &err);
	CHECK(d == NULL && err.kind == DS_EINPUT);
	d = ds_dso_open_mem(rnd, sizeof rnd, "[junk]", &err);
	CHECK(d == NULL && err.kind == DS_EINPUT);
}

static char *read_tmp(const char *name, size_t *len)
{
	char *p = unit_tpath(name), *data = ds_read_file(p, len);
	free(p);
	return data;
}

/* Open, query everything, close: the file may be any garbage. */
static bool exercise(const char *name)
{
	ds_err err;
	ds_dso *d = unit_open_dso(name, &err);
	const char *file;
	unsigned line;
	size_t avail;
	bool ok = true;

	if (!d)
		return err.kind == DS_EINPUT && err.msg[0] != '\0';
	for (size_t i = 0; i < ds_dso_nsymbols(d); i++) {
		const ds_symbol *s = ds_dso_symbol(d, i);
		ok = ok && s->name && s->raw;
		ds_dso_symbol_at(d, s->start);
		ds_dso_line_at(d, s->start, &file, &line);
		ds_dso_code_at(d, s->start, &avail);
	}
	ds_dso_line_at(d, 0x1000, &file, &line);
	ds_dso_close(d);
	return ok;
}

TEST(malformed)
{
	size_t len = 0;
	char *elf;
	bool all = true;

	CHECK(unit_sh("gcc -O1 -g -o a.out.full tiny.c"));
	elf = read_tmp("a.out.full", &len);
	CHECK(elf && len > 4096);
	if (!elf)
		return;
	CHECK(unit_write_file("trunc.out", elf, 100));
	CHECK(exercise("trunc.out"));

	/* section headers "beyond" the end of the file */
	{
		char *bad = ds_xmalloc(len);
		uint64_t shoff = 0x7ffffff0;
		memcpy(bad, elf, len);
		memcpy(bad + offsetof(Elf64_Ehdr, e_shoff), &shoff, sizeof shoff);
		CHECK(unit_write_file("shoff.out", bad, len));
		free(bad);
	}
	CHECK(exercise("shoff.out"));

	/* garbage line table: no lines, a note, no crash */
	CHECK(unit_write_file("garbage.bin", elf + 64, 512));
	CHECK(unit_sh("objcopy --update-section .debug_line=garbage.bin a.out.full badline.out"));
	{
		ds_err err;
		ds_dso *d = unit_open_dso("badline.out", &err);
		const ds_symbol *s = d ? find_named(d, "tiny_func") : NULL;
		const char *file;
		unsigned line;
		CHECK(s != NULL);
		CHECK(s && !ds_dso_line_at(d, s->start, &file, &line));
		CHECK(d && ds_dso_note(d) != NULL);
		ds_dso_close(d);
	}

	/* random corruption of a real binary, many times over */
	srand(11);
	for (int round = 0; round < 150; round++) {
		char *bad = ds_xmalloc(len);
		memcpy(bad, elf, len);
		for (int k = 0; k < 16; k++)
			bad[(size_t)rand() % len] = (char)(rand() & 0xff);
		all = unit_write_file("fuzz.out", bad, len) && exercise("fuzz.out") && all;
		free(bad);
	}
	CHECK(all);
	free(elf);
}

int main(void)
{
	if (!unit_tmpdir("dsprof-dwarfmap"))
		return 1;
	RUN(self_symbols);
	RUN(self_lines_and_code);
	RUN(build_id_mismatch_note);
	RUN(libc_dynsym);
	RUN(debuglink);
	RUN(debuglink_crc);
	RUN(build_id_debug_dir);
	RUN(given_debug_file);
	RUN(build_id_readers);
	RUN(minidebuginfo);
	RUN(perf_aliases);
	RUN(plt_covered);
	RUN(cxx_names);
	RUN(object_lines);
	RUN(sequence_end);
	RUN(vdso);
	RUN(kallsyms);
	RUN(kallsyms_hidden);
	RUN(kallsyms_subset_nul);
	RUN(open_errors);
	RUN(malformed);
	unit_sh("rm -rf '%s'", unit_tmp);
	return unit_done();
}
