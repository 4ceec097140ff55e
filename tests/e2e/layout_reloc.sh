#!/bin/sh
# dsprof layout of relocatable objects (gcc -c, ld -r, kernel modules)
# against pahole, whole outputs: every type's text identical.  In such an
# object the DWARF's references between sections (names in .debug_str,
# abbreviation tables, line tables, addresses) are relocations still; read
# unrelocated, a RELA object's members are all named by the string at
# offset 0 of .debug_str.
. "$TOP/tests/lib.sh"

if ! command -v pahole >/dev/null 2>&1; then
	skip "layout_reloc: pahole is not installed (Debian package dwarves)"
	exit 0
fi
SRC="$TOP/tests/programs/objtypes.c"

# Each type's text on one line, sorted: the two print the same types in
# different orders.
blocks() {
	awk '/^(struct|union|class|typedef)/ && b == "" { b = $0; next }
	     b != "" { b = b "\001" $0; if ($0 ~ /^}/) { print b; b = "" } }' "$1" | sort
}

# same LABEL OBJECT [SED]: `dsprof layout --all` prints every type exactly as
# `pahole -a --show_private_classes` does, and `dsprof layout` as
# `pahole --show_private_classes`, with no note; SED, when given, is applied
# to both texts first (to leave out a documented difference).
same() {
	label=$1 obj=$2 fix=${3:-}
	for mode in all default; do
		if [ "$mode" = all ]; then
			pahole -a --show_private_classes "$obj" >"$label.ph" 2>/dev/null
			"$DSPROF" layout --all "$obj" >"$label.ds" 2>"$label.err"
		else
			pahole --show_private_classes "$obj" >"$label.ph" 2>/dev/null
			"$DSPROF" layout "$obj" >"$label.ds" 2>"$label.err"
		fi
		rc=$?
		[ -n "$fix" ] && sed -i -E "$fix" "$label.ph" "$label.ds"
		blocks "$label.ph" >"$label.ph.b"
		blocks "$label.ds" >"$label.ds.b"
		n=$(wc -l <"$label.ph.b")
		if [ "$rc" -ne 0 ] || [ -s "$label.err" ]; then
			not_ok "layout $label ($mode): status $rc: $(head -c 300 "$label.err")"
		elif [ "$n" -eq 0 ]; then
			not_ok "layout $label ($mode): pahole prints no types"
		elif cmp -s "$label.ph.b" "$label.ds.b"; then
			ok "layout $label ($mode): all $n types as pahole prints them"
		else
			not_ok "layout $label ($mode): $(comm -23 "$label.ph.b" "$label.ds.b" | wc -l) of $n types differ from pahole's: $(diff "$label.ph.b" "$label.ds.b" | head -2 | tr '\001' '\n' | head -30)"
		fi
	done
}

# On 32-bit machines pahole takes a pointer's natural alignment from the
# unit's address size (4) and dsprof's layouts as 8 (analyze/layout.c's
# ADDR_SIZE, right for 64-bit machines), so dsprof infers __packed__ on
# structs of pointers that pahole does not (and then, as pahole does for a
# packed struct, leaves out its __aligned__).  Linked 32-bit binaries differ
# alike: it is not a matter of relocations, and the attributes of a type's
# closing line are left out of the comparison there.
NOPACKED='s/^(}[^;]*) __attribute__\(\((__packed__|__aligned__\([0-9]+\))\)\)/\1/'

# GCC's objects for this machine, in the forms the readers meet: DWARF 5
# (.debug_line_str, .debug_rnglists, .debug_loclists), DWARF 4
# (.debug_ranges, .debug_loc), compressed sections (relocations apply to
# the inflated bytes), and i386's REL relocations (addends in the bytes).
gcc -O2 -g -c -o gcc5.o "$SRC" && same gcc-dwarf5 gcc5.o
gcc -O2 -gdwarf-4 -c -o gcc4.o "$SRC" && same gcc-dwarf4 gcc4.o
gcc -O2 -g -gz -c -o gccz.o "$SRC" && same gcc-compressed gccz.o
if gcc -m32 -ffreestanding -O2 -g -c -o gcc32.o "$SRC" 2>gcc32.err; then
	same gcc-i386 gcc32.o "$NOPACKED"
else
	not_ok "layout_reloc: gcc -m32 cannot build objtypes.c: $(head -c 300 gcc32.err)"
fi
# Clang's DWARF 5 names through .debug_str_offsets and addresses through
# .debug_addr, both relocated.
clang -O2 -g -c -o clang.o "$SRC" && same clang-dwarf5 clang.o

# What ld -r makes (as a kernel module is made): several units, each with
# its abbreviations, names and line table at an offset the relocations
# give.  dsfields.c includes the C library's headers: many more types.
gcc -O2 -g -c -Dmain=dsfields_main -o dsfields.o "$TOP/tests/programs/dsfields.c"
ld -r -o combined.o gcc5.o dsfields.o && same ld-r combined.o

# Other machines, from Clang (no C library needed: objtypes.c is
# freestanding), big-endian ones (ppc64, s390x) among them.  ARM is 32-bit
# (see NOPACKED).
for target in aarch64-linux-gnu powerpc64le-linux-gnu powerpc64-linux-gnu s390x-linux-gnu \
	riscv64-linux-gnu arm-linux-gnueabihf; do
	if clang --target="$target" -ffreestanding -O2 -g -c -o "$target.o" "$SRC" 2>"$target.cc"; then
		case $target in
		arm-*) same "$target" "$target.o" "$NOPACKED" ;;
		*) same "$target" "$target.o" ;;
		esac
	else
		not_ok "layout_reloc: clang cannot build for $target: $(head -c 200 "$target.cc")"
	fi
done

# A kernel module (an ld -r of its units, with the kernel's headers: many
# structs, members aligned as struct rcu_head is), when kernel headers to
# build one against are installed (Debian: linux-headers-amd64).
KDIR=/lib/modules/$(uname -r)/build
[ -f "$KDIR/Makefile" ] || KDIR=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1)
if [ -n "$KDIR" ] && [ -f "$KDIR/Makefile" ]; then
	mkdir kmod
	cat >kmod/dsdemo.c <<'EOF'
#include <linux/module.h>
#include <linux/list.h>
#include <linux/slab.h>

struct dsdemo_item {
	struct list_head link;
	u8 kind;
	u64 key;
	char label[20];
	struct rcu_head rcu;
};

static LIST_HEAD(dsdemo_items);

static int __init dsdemo_init(void)
{
	struct dsdemo_item *it = kzalloc(sizeof(*it), GFP_KERNEL);

	if (!it)
		return -ENOMEM;
	list_add(&it->link, &dsdemo_items);
	return 0;
}

static void __exit dsdemo_exit(void)
{
	struct dsdemo_item *it, *n;

	list_for_each_entry_safe(it, n, &dsdemo_items, link)
		kfree_rcu(it, rcu);
}

module_init(dsdemo_init);
module_exit(dsdemo_exit);
MODULE_LICENSE("GPL");
EOF
	echo 'obj-m := dsdemo.o' >kmod/Makefile
	if make -C "$KDIR" M="$PWD/kmod" modules >kmod.log 2>&1 && [ -f kmod/dsdemo.ko ]; then
		same kernel-module kmod/dsdemo.ko
	else
		not_ok "layout_reloc: a kernel module does not build against $KDIR: $(tail -3 kmod.log)"
	fi
else
	skip "layout_reloc: kernel module: no kernel headers to build one (Debian package linux-headers-amd64)"
fi

# A machine whose relocations dsprof does not apply: no types rather than
# wrong ones, and a note that says why.
clang --target=mips64el-linux-gnuabi64 -ffreestanding -O2 -g -c -o mips.o "$SRC"
"$DSPROF" layout --all mips.o >mips.ds 2>mips.err
check_eq "unsupported machine: exit 0" "$?" 0
check_eq "unsupported machine: no types" "$(wc -c <mips.ds)" 0
check_contains "unsupported machine: a note says why" mips.err \
	"^dsprof: note: DWARF in 'mips.o': cannot relocate \.debug_info \(dsprof applies no relocations for ELF machine 8\): it is left out$"
check_eq "unsupported machine: one note" "$(wc -l <mips.err)" 1

# A relocation outside its section (a corrupt object): the same.
cp gcc5.o corrupt.o
off=$(readelf -SW corrupt.o | awk '$2 == ".rela.debug_info" { print $5; exit }')
printf '\377\377\377\377\377\377\377\177' | dd of=corrupt.o bs=1 seek=$((0x$off)) conv=notrunc 2>/dev/null
"$DSPROF" layout --all corrupt.o >corrupt.ds 2>corrupt.err
check_eq "corrupt relocation: exit 0" "$?" 0
check_eq "corrupt relocation: no types" "$(wc -c <corrupt.ds)" 0
check_contains "corrupt relocation: a note says so" corrupt.err \
	"^dsprof: note: DWARF in 'corrupt.o': cannot relocate \.debug_info \(a relocation lies outside the section\): it is left out$"
