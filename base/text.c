/* Text helpers: terminal sanitizing, number parsing and printing, trimming. */
#include "base/base.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid.
 * Overlong forms, surrogates and code points above U+10FFFF are invalid. */
size_t ds_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0;
		if (c == 0xed && s[1] >= 0xa0)
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0;
		if (c == 0xf4 && s[1] >= 0x90)
			return 0;
		return 4;
	}
	return 0;
}

void ds_sanitize(ds_buf *out, const char *s, bool ascii_only)
{
	const unsigned char *p = (const unsigned char *)s;
	ds_buf_reserve(out, strlen(s));
	while (*p) {
		size_t n = ds_utf8_len((const char *)p);
		bool c1 = n == 2 && p[0] == 0xc2 && p[1] < 0xa0; /* U+0080..U+009F */
		if (n == 1 && *p >= 0x20 && *p != 0x7f) {
			ds_buf_putc(out, (char)*p);
		} else if (n > 1 && !c1 && !ascii_only) {
			ds_buf_append(out, p, n);
		} else {
			size_t k = n ? n : 1;
			for (size_t i = 0; i < k; i++)
				ds_buf_printf(out, "\\x%02x", p[i]);
			p += k;
			continue;
		}
		p += n;
	}
	ds_buf_append(out, "", 0); /* terminated even when s is empty */
}

size_t ds_text_width(const char *s)
{
	size_t w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p & 0xc0) != 0x80)
			w++;
	return w;
}

bool ds_str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool ds_parse_u64(const char *s, uint64_t *out, bool allow_suffix)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return false;
	if (allow_suffix && *end) {
		switch (*end) {
		case 'k': case 'K': mul = 1000; break;
		case 'M': mul = 1000000; break;
		case 'G': mul = 1000000000; break;
		default: return false;
		}
		end++;
	}
	if (*end)
		return false;
	if (mul > 1 && v > UINT64_MAX / mul)
		return false;
	*out = (uint64_t)v * mul;
	return true;
}

char *ds_trim(char *s)
{
	char *e;
	while (isspace((unsigned char)*s))
		memmove(s, s + 1, strlen(s));
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

bool ds_self_vdso(const void **image, size_t *size)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char *maps, *l;
	bool found = false;

	if (!base || !(maps = ds_read_file("/proc/self/maps", NULL)))
		return false;
	/* the mapping that starts at the vDSO's ELF header gives its size */
	for (l = maps; l && *l && !found; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long start, end;
		if (sscanf(l, "%llx-%llx", &start, &end) == 2 && start == base) {
			*image = (const void *)base;
			*size = (size_t)(end - start);
			found = true;
		}
	}
	free(maps);
	return found;
}

void ds_size_text(char *out, size_t n, uint64_t v)
{
	static const char *const units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
	int u = 0;
	uint64_t scale = 1;

	/* the next unit from what one decimal would round to 1024 of this */
	while (u < 6 && (double)v / (double)scale >= 1023.95)
		scale *= 1024, u++;
	if (v % scale == 0)
		snprintf(out, n, "%" PRIu64 " %s", v / scale, units[u]);
	else
		snprintf(out, n, "%.1f %s", (double)v / (double)scale, units[u]);
}
