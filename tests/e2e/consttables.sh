#!/bin/sh
# C++ const tables at namespace scope (internal linkage, a constant
# initializer: CRC and lookup tables, LevelDB's crc32c among them) and
# constexpr static members: the DWARF declares them with their value and
# no location, though the program reads them from .rodata.  Their symbols
# place them: every load is the table's, named with its type.
. "$TOP/tests/lib.sh"

cat >ct.cc <<'EOF2'
#include <cstdint>
#include <cstdio>
#include <cstdlib>
namespace codec {
namespace {
const uint32_t kTable[256] = {
#define R(i) (uint32_t)((i) * 2654435761u)
#define R4(i) R(i), R(i + 1), R(i + 2), R(i + 3)
#define R16(i) R4(i), R4(i + 4), R4(i + 8), R4(i + 12)
#define R64(i) R16(i), R16(i + 16), R16(i + 32), R16(i + 48)
	R64(0), R64(64), R64(128), R64(192)};
}
struct Shift {
	static constexpr uint16_t kSteps[64] = {
#define S(i) (uint16_t)((i) * 40503u)
#define S4(i) S(i), S(i + 1), S(i + 2), S(i + 3)
#define S16(i) S4(i), S4(i + 4), S4(i + 8), S4(i + 12)
		S16(0), S16(16), S16(32), S16(48)};
};
__attribute__((noinline)) uint32_t mix(const unsigned char *p, size_t n)
{
	uint32_t h = 0;
	for (size_t i = 0; i < n; i++)
		h = (h >> 8) ^ kTable[(h ^ p[i]) & 0xff] ^ Shift::kSteps[p[i] & 63];
	return h;
}
}
int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000;
	unsigned char *buf = (unsigned char *)malloc(n);
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)(i * 7);
	printf("%u\n", codec::mix(buf, n));
	free(buf);
	return 0;
}
EOF2
N=1000
# rows CXX: the data objects of mix's simulated loads, "name,loads"
rows() {
	"$DSPROF" record -q -o "exp-$1" --sim -c 1 -e sim:loads -- "./ct-$1" $N >/dev/null 2>"ct-$1.err" ||
		not_ok "record ct-$1: $(head -n 1 "ct-$1.err")"
	"$DSPROF" report -i "exp-$1" --view dataobjects --filter 'FUNC == "codec::mix"' -f csv 2>>"ct-$1.err" |
		cut -d, -f1,5 >"ct-$1.rows"
}
for cxx in g++ clang++; do
	if ! $cxx -std=c++17 -O2 -g -o "ct-$cxx" ct.cc 2>ct.err; then
		not_ok "$cxx cannot build the const-table program: $(head -c 300 ct.err)"
		continue
	fi
	rows "$cxx"
	check_contains "$cxx: every load of the anonymous namespace's table is kTable's" "ct-$cxx.rows" \
		"^kTable \(const uint32_t \[256\]\),$N\$"
done
# GCC declares the constexpr member the same way; Clang keeps no DIE of it
check_contains "g++: every load of the constexpr member is kSteps's" ct-g++.rows \
	"^kSteps \(const uint16_t \[64\]\),$N\$"
