/*
 * Demangling.  The C++ runtime's __cxa_demangle does the real work; on top
 * of it we apply what `perf report` shows, since dsprof and perf must name
 * every function the same way:
 *
 *  - perf demangles with libiberty and no options (DMGL_NO_OPTS), which
 *    prints a function without its return type, parameter list,
 *    cv/ref-qualifiers and "[clone .xxx]" suffix: "ns::A<int>::f", not
 *    "ns::A<int>::f(int) const".  Enclosing functions of local names keep
 *    their parameters ("f<int>(int)::S::m") and special names such as
 *    thunks are printed whole, exactly as libiberty does.
 *  - Rust's legacy mangling is C++-compatible; the demangled path ends in a
 *    "::h" + 16 hex digit hash that is dropped, and "$LT$"-style escapes
 *    are decoded.
 *  - OCaml names ("camlModule__fn_12") are decoded as perf's
 *    demangle-ocaml.c does.
 */
#include "dwarfmap/dwarfmap_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define RUST_HASH_LEN 19 /* "::h" + 16 hex digits */

static bool rust_hash_at(const char *s)
{
	bool seen[16] = {false};
	int distinct = 0;

	if (strncmp(s, "::h", 3) != 0)
		return false;
	for (int i = 3; i < RUST_HASH_LEN; i++) {
		int c = s[i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (v < 0)
			return false;
		if (!seen[v]) {
			seen[v] = true;
			distinct++;
		}
	}
	/* Real hashes use between 5 and 15 of the 16 digits; anything else
	 * is more likely a C++ name that happens to end in "::h...". */
	return s[RUST_HASH_LEN] == '\0' && distinct >= 5 && distinct <= 15;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode one "$...$" escape at *in; false when it is not one. */
static bool rust_unescape(const char **in, char **out)
{
	static const struct {
		const char *seq;
		char c;
	} esc[] = {
		{"$C$", ','}, {"$SP$", '@'}, {"$BP$", '*'}, {"$RF$", '&'}, {"$LT$", '<'},
		{"$GT$", '>'}, {"$LP$", '('}, {"$RP$", ')'},
	};
	const char *s = *in;

	for (size_t i = 0; i < sizeof esc / sizeof esc[0]; i++) {
		size_t n = strlen(esc[i].seq);
		if (strncmp(s, esc[i].seq, n) == 0) {
			*(*out)++ = esc[i].c;
			*in = s + n;
			return true;
		}
	}
	if (s[1] == 'u' && hexval(s[2]) >= 0 && hexval(s[3]) >= 0 && s[4] == '$') {
		int c = hexval(s[2]) * 16 + hexval(s[3]);
		if (c < 0x20 || c > 0x7e)
			return false;
		*(*out)++ = (char)c;
		*in = s + 5;
		return true;
	}
	return false;
}

/* A demangled legacy Rust path without its hash and with escapes decoded,
 * in place; false (s unchanged in meaning) when it does not look like one. */
static bool rust_legacy(char *s)
{
	size_t len = strlen(s);
	const char *in, *end;
	char *out, *tmp;

	if (len <= RUST_HASH_LEN || !rust_hash_at(s + len - RUST_HASH_LEN))
		return false;
	end = s + len - RUST_HASH_LEN;
	tmp = ds_xmalloc(len + 1);
	out = tmp;
	for (in = s; in < end;) {
		if (*in == '$') {
			if (!rust_unescape(&in, &out)) {
				free(tmp);
				return false;
			}
		} else if (*in == '_' && (in == s || in[-1] == ':') && in[1] == '$') {
			/* the mangler's underscore before a leading escape */
			in++;
		} else if (in[0] == '.' && in[1] == '.') {
			*out++ = ':';
			*out++ = ':';
			in += 2;
		} else if (*in == '.') {
			*out++ = '-';
			in++;
		} else if (isalnum((unsigned char)*in) || *in == '_' || *in == ':') {
			*out++ = *in++;
		} else {
			free(tmp);
			return false;
		}
	}
	*out = '\0';
	memcpy(s, tmp, (size_t)(out - tmp) + 1);
	free(tmp);
	return true;
}

static char *ocaml_demangle(const char *raw)
{
	size_t len = strlen(raw), j = 0;
	char *out;

	if (strncmp(raw, "caml", 4) != 0 || !isupper((unsigned char)raw[4]))
		return NULL;
	out = ds_xmalloc(len + 1);
	for (size_t i = 4; i < len;) {
		if (raw[i] == '_' && raw[i + 1] == '_') {
			out[j++] = '.';
			i += 2;
		} else if (raw[i] == '$' && isxdigit((unsigned char)raw[i + 1]) &&
			   isxdigit((unsigned char)raw[i + 2])) {
			char hx[3] = {raw[i + 1], raw[i + 2], 0};
			out[j++] = (char)strtol(hx, NULL, 16);
			i += 3;
		} else {
			out[j++] = raw[i++];
		}
	}
	out[j] = '\0';
	return out;
}

char *ds_demangle(const char *raw)
{
	int status = 0;
	char *d;

	if (!raw || strncmp(raw, "_Z", 2) != 0)
		return NULL;
	d = __cxa_demangle(raw, NULL, NULL, &status);
	if (!d || status != 0) {
		free(d);
		return NULL;
	}
	rust_legacy(d);
	return d;
}

/* ---- perf's (libiberty DMGL_NO_OPTS) form of a demangled C++ name ---- */

static bool has_suffix(const char *s, size_t len, const char *suf)
{
	size_t n = strlen(suf);
	return len >= n && memcmp(s + len - n, suf, n) == 0;
}

/* Drop " [clone .xxx]" suffixes and trailing cv/ref/noexcept qualifiers. */
static size_t strip_tail(const char *s, size_t len)
{
	static const char *const quals[] = {
		" const", " volatile", " restrict", " &&", " &", " noexcept", " transaction_safe",
	};
	bool again = true;

	while (again) {
		again = false;
		if (len && s[len - 1] == ']') {
			for (size_t i = len; i-- > 0;) {
				if (strncmp(s + i, " [clone ", 8) == 0) {
					len = i;
					again = true;
					break;
				}
			}
		}
		for (size_t i = 0; i < sizeof quals / sizeof quals[0]; i++) {
			if (has_suffix(s, len, quals[i])) {
				len -= strlen(quals[i]);
				again = true;
			}
		}
	}
	return len;
}

/* Index of the '(' matching the ')' at s[close], or -1. */
static long match_open_paren(const char *s, size_t close)
{
	int depth = 0;

	for (size_t i = close + 1; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return (long)i;
	}
	return -1;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* Whether an "operator" token starts at s[i] (not "operators" or "my_operator"). */
static bool operator_at(const char *s, size_t i)
{
	return strncmp(s + i, "operator", 8) == 0 && (i == 0 || !ident_char(s[i - 1])) &&
	       !ident_char(s[i + 8]);
}

/* Where the name starts after a return type: just past the last space at
 * bracket depth 0 before any operator token.  Spaces inside template
 * arguments, "(anonymous namespace)" or "{lambda(int)#1}" do not count. */
static size_t name_start(const char *s, size_t len)
{
	size_t start = 0;
	int depth = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (depth == 0 && operator_at(s, i))
			break;
		if (c == '<' || c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0)
			depth--;
		else if (c == ' ' && depth == 0)
			start = i + 1;
	}
	return start;
}

static bool special_name(const char *s)
{
	static const char *const prefixes[] = {
		"vtable for ", "VTT for ", "construction vtable for ", "typeinfo for ",
		"typeinfo name for ", "typeinfo fn for ", "non-virtual thunk to ",
		"virtual thunk to ", "covariant return thunk to ", "guard variable for ",
		"TLS init function for ", "TLS wrapper function for ", "reference temporary #",
		"hidden alias for ", "transaction clone for ", "non-transaction clone for ",
	};
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (ds_str_has_prefix(s, prefixes[i]))
			return true;
	return false;
}

static char *cxx_short(char *full)
{
	size_t len = strlen(full), start;
	long open;

	if (special_name(full))
		return full;
	len = strip_tail(full, len);
	if (len && full[len - 1] == ')') {
		open = match_open_paren(full, len - 1);
		/* "(anonymous namespace)" alone, or garbage: keep everything */
		if (open <= 0)
			return full;
		len = (size_t)open;
	}
	start = name_start(full, len);
	memmove(full, full + start, len - start);
	full[len - start] = '\0';
	return full;
}

/* libiberty without DMGL_PARAMS stops after the encoding and ignores what
 * follows, so "_Z3fooi@@VERS_1" shows as "foo" in perf; __cxa_demangle
 * rejects the whole name, so retry without the version suffix. */
static char *cxa_demangle_prefix(const char *raw)
{
	const char *at = strchr(raw, '@');
	int status = 0;
	char *d, *cut;

	d = __cxa_demangle(raw, NULL, NULL, &status);
	if (d && status == 0)
		return d;
	free(d);
	if (!at)
		return NULL;
	cut = ds_xstrndup(raw, (size_t)(at - raw));
	d = __cxa_demangle(cut, NULL, NULL, &status);
	free(cut);
	if (d && status == 0)
		return d;
	free(d);
	return NULL;
}

char *ds_demangle_perf(const char *raw)
{
	char *d;

	if (!raw)
		return NULL;
	if (strncmp(raw, "_Z", 2) != 0)
		return ocaml_demangle(raw);
	d = cxa_demangle_prefix(raw);
	if (!d)
		return NULL;
	if (rust_legacy(d))
		return d;
	return cxx_short(d);
}
