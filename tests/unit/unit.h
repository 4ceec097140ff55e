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
#include <stdio.h>
#include <string.h>

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

static inline int unit_done(void)
{
	if (unit_checks == 0) {
		printf("not ok - no checks ran\n");
		return 1;
	}
	return unit_failures > 100 ? 100 : unit_failures;
}

#endif
