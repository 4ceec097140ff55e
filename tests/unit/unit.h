/*
 * A minimal unit-test harness.  Each CHECK prints "ok - ..." or
 * "not ok - ..." (TAP style); tests/run.sh counts those lines.  A test
 * binary's exit status is the number of failures (capped), so a crash is
 * also a failure.
 *
 *   TEST(name) { CHECK(x == 1); CHECK_EQ_U64(a, b); CHECK_STR(s, "x"); }
 *   int main(void) { RUN(name); return unit_done(); }
 */
#ifndef DSPROF_UNIT_H
#define DSPROF_UNIT_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static int unit_failures;
static int unit_checks;
static const char *unit_current = "";

static inline void unit_report(int ok, const char *file, int line, const char *expr,
			       const char *detail)
{
	unit_checks++;
	if (ok) {
		printf("ok - %s: %s\n", unit_current, expr);
	} else {
		unit_failures++;
		printf("not ok - %s: %s (%s:%d)%s%s\n", unit_current, expr, file, line,
		       detail ? ": " : "", detail ? detail : "");
	}
	fflush(stdout);
}

#define TEST(name) static void test_##name(void)
#define RUN(name)                       \
	do {                            \
		unit_current = #name;   \
		test_##name();          \
	} while (0)

#define CHECK(cond) unit_report(!!(cond), __FILE__, __LINE__, #cond, NULL)

#define CHECK_EQ_U64(a, b)                                                                 \
	do {                                                                               \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
		char d_[96];                                                               \
		snprintf(d_, sizeof d_, "%llu != %llu", a_, b_);                           \
		unit_report(a_ == b_, __FILE__, __LINE__, #a " == " #b, a_ == b_ ? NULL : d_); \
	} while (0)

#define CHECK_STR(a, b)                                                                 \
	do {                                                                            \
		const char *a_ = (a), *b_ = (b);                                        \
		int ok_ = a_ && b_ && strcmp(a_, b_) == 0;                              \
		char d_[512];                                                           \
		snprintf(d_, sizeof d_, "'%.240s' != '%.240s'", a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
		unit_report(ok_, __FILE__, __LINE__, #a " == " #b, ok_ ? NULL : d_);     \
	} while (0)

/* ---- scratch files and shell commands ---- */

/* The test's private scratch directory ("" until unit_tmpdir made it). */
static char unit_tmp[64];

/* Make the scratch directory /tmp/PREFIX-XXXXXX; false when it cannot. */
static inline bool unit_tmpdir(const char *prefix)
{
	snprintf(unit_tmp, sizeof unit_tmp, "/tmp/%s-XXXXXX", prefix);
	if (mkdtemp(unit_tmp))
		return true;
	perror("mkdtemp");
	return false;
}

/* Run a shell command inside the scratch directory, output discarded. */
static inline bool unit_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline bool unit_sh(const char *fmt, ...)
{
	ds_buf cmd = {0};
	va_list ap;
	int rc;

	ds_buf_printf(&cmd, "cd '%s' && ( ", unit_tmp);
	va_start(ap, fmt);
	ds_buf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	ds_buf_puts(&cmd, " ) >/dev/null 2>&1");
	rc = system(ds_buf_str(&cmd));
	ds_buf_free(&cmd);
	return rc == 0;
}

static inline bool unit_have(const char *tool)
{
	return unit_sh("command -v %s", tool);
}

/* A skipped check, with the reason (the runner counts and shows these). */
static inline void unit_skip(const char *why)
{
	printf("skip - %s: %s\n", unit_current, why);
	fflush(stdout);
}

/* ---- big inputs: a sample in make test, all in make check ---- */

/* Whether to check all of a big input (tests/run.sh --full, as make check
 * runs the suite), not a sample of it. */
static inline bool unit_full(void)
{
	const char *f = getenv("DSPROF_TEST_FULL");
	return f && strcmp(f, "1") == 0;
}

/* The step that checks about want of n items, every step-th one: 1 (all
 * of them) under --full or when there are no more than want. */
static inline size_t unit_step(size_t n, size_t want)
{
	return unit_full() || want == 0 || n <= want ? 1 : (n + want - 1) / want;
}

/* CHECK with its name said: "WHAT: checked of total ITEMS" and, for a
 * sample, "(sampled; make check runs all)", so that no "ok" line claims
 * more than was checked. */
#define CHECK_SAMPLED(cond, checked, total, items)                                              \
	do {                                                                                    \
		size_t c_ = (checked), t_ = (total);                                            \
		char n_[256];                                                                   \
		snprintf(n_, sizeof n_, "%s: %zu of %zu %s%s", #cond, c_, t_, items,             \
			 c_ < t_ ? " (sampled; make check runs all)" : "");                     \
		unit_report(!!(cond), __FILE__, __LINE__, n_, NULL);                            \
	} while (0)

/* NAME inside the scratch directory (malloc'd). */
static inline char *unit_tpath(const char *name)
{
	return ds_xasprintf("%s/%s", unit_tmp, name);
}

/* Write n bytes to NAME inside the scratch directory. */
static inline bool unit_write_file(const char *name, const void *data, size_t n)
{
	char *p = unit_tpath(name);
	FILE *f = fopen(p, "wb");
	bool ok = f && fwrite(data, 1, n, f) == n;

	if (f)
		ok = fclose(f) == 0 && ok;
	free(p);
	return ok;
}

static inline bool unit_write_text(const char *name, const char *text)
{
	return unit_write_file(name, text, strlen(text));
}

/* The address nm reports for symbol NAME of scratch file BIN (aliases
 * included), 0 when absent. */
static inline uint64_t unit_nm_addr(const char *bin, const char *name)
{
	char *cmd = ds_xasprintf("nm -P '%s/%s' 2>/dev/null", unit_tmp, bin);
	FILE *p = popen(cmd, "r");
	char line[1024], sym[512], type[8];
	unsigned long long v;
	uint64_t addr = 0;

	while (p && fgets(line, sizeof line, p))
		if (sscanf(line, "%511s %7s %llx", sym, type, &v) == 3 && strcmp(sym, name) == 0)
			addr = v;
	if (p)
		pclose(p);
	free(cmd);
	return addr;
}

static inline int unit_done(void)
{
	if (unit_checks == 0) {
		printf("not ok - no checks ran\n");
		return 1;
	}
	return unit_failures > 100 ? 100 : unit_failures;
}

#endif
