#!/bin/sh
# dsprof layout against pahole (dwarves): the same structs with the same
# sizes, member offsets and sizes, holes, bit holes, padding and cache
# lines, on the test programs, on a program that includes many system
# headers (thousands of structs), and on dsprof itself.
. "$TOP/tests/lib.sh"

if ! command -v pahole >/dev/null 2>&1; then
	skip "layout: pahole is not installed (Debian package dwarves)"
	exit 0
fi

# Both outputs become comparable lines, one block per type: its name, then
# for each member its nesting depth, name, offset, bit offset and size, the
# hole, boundary and remark lines, and the summary lines.  Type names are
# left out (pahole's spelling of some, like function pointers, is its own).
# pahole's lines that dsprof does not print, each for a reason:
#   ", static members: N": static members have no place in a layout, so
#     dsprof's types leave them out;
#   enumerators of an anonymous enum member (dsprof prints "enum {...}");
#   the access (public, private...) of a C++ base class;
#   and pahole names a C++ type without its namespaces and enclosing
#     classes (Node, not a::Node), which dsprof adds.
# A block in which pahole met a type it does not know (it prints "<ERROR";
# dwarves 1.24 does not know C11's _Atomic, DW_TAG_atomic_type), or that
# it gets wrong (a hole of 65535 bytes or so, a negative hole in 16 bits,
# where a member lies under the last one: after an empty base class, which
# shares its address with the next member, as in std::vector's _Vector_impl,
# or in a base class's tail padding), is left out of the comparison and
# counted.  pahole's "BRAIN FART ALERT" at a derived class, whose base
# classes it leaves out of its sum, is not compared: dsprof counts them.
cat >norm.awk <<'EOF'
# -v skips=FILE: the names of the blocks left out go there; -v drop=FILE:
# the blocks of the names there are left out (the other side's), and
# those of the same name with other base classes: pahole prints a name
# once (std::vector's _Vector_impl of its first element type only), so
# that when it got that one wrong the others have nothing to compare with
BEGIN {
	if (drop != "")
		while ((getline l < drop) > 0) {
			dropped[l] = 1
			sub(/ : .*/, "", l)
			dropped_bare[l] = 1
		}
}
function flush(   bare) {
	bname = block; sub(/\|.*/, "", bname)
	bare = bname; sub(/ : .*/, "", bare)
	if (block != "" && !bad && !(bname in dropped) && !(bare in dropped_bare))
		print block
	if (bad) {
		errors++
		if (skips != "") print bname > skips
	}
	block = ""; bad = 0; ancestor = 0; empty_base = 0; remark_after = 0
}
function member_name(s,   n) {
	sub(/[ \t]*\/\*[^*]*\*\/[ \t]*$/, "", s)   # the offset comment
	gsub(/ __attribute__\(\([^)]*\)\)\)?\)?/, "", s)
	sub(/;[ \t]*$/, "", s)
	sub(/:[0-9]+$/, "", s)                      # bit field width
	while (s ~ /\[[0-9]*\]$/) sub(/\[[0-9]*\]$/, "", s)
	# a function pointer, (*f), or as dsprof declares a pointer to one or
	# an array of them, (**f), (*f[3]), (**_vptr.Base)
	if (s ~ /\(\*+[A-Za-z_0-9.]*(\[[0-9]*\])*\)/) {
		match(s, /\(\*+[A-Za-z_0-9.]*(\[[0-9]*\])*\)/)
		s = substr(s, RSTART + 1, RLENGTH - 2)
		gsub(/^\*+|\[.*$/, "", s)
		return s
	}
	n = split(s, w, /[ \t*&]+/)
	return n ? w[n] : ""
}
# s without what comes before its last "::" outside template arguments
function unscope(s,   i, c, d, last) {
	d = 0; last = 0
	for (i = 1; i < length(s); i++) {
		c = substr(s, i, 1)
		if (c == "<") d++
		else if (c == ">") d--
		else if (!d && substr(s, i, 2) == "::") last = i + 1
	}
	return last ? substr(s, last + 1) : s
}
# split s at sep outside template arguments, into a[1..n]; returns n
function split_top(s, a, sep,   i, c, d, n, from) {
	d = 0; n = 0; from = 1
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "<") d++
		else if (c == ">") d--
		else if (!d && substr(s, i, length(sep)) == sep) {
			a[++n] = substr(s, from, i - from)
			from = i + length(sep)
			i = from - 1
		}
	}
	a[++n] = substr(s, from)
	return n
}
/^(struct|union|class|typedef)/ {
	flush(); name = $0; sub(/ \{.*$/, "", name)
	gsub(/(public|protected|private|virtual) /, "", name)  # C++ base classes' access
	# dsprof qualifies C++ names by their namespaces and enclosing classes
	# (a::Node, std::_Vector_base<T>::_Vector_impl), and those of their
	# base classes; pahole prints them unqualified
	if (name !~ /^typedef/) {
		tag = name; sub(/ .*/, "", tag)
		nparts = split_top(substr(name, length(tag) + 2), part, " : ")
		name = tag " " unscope(part[1])
		nb = nparts > 1 ? split_top(part[2], base, ", ") : 0
		for (b = 1; b <= nb; b++)
			name = name (b == 1 ? " : " : ", ") unscope(base[b])
	}
	block = name; next
}
/^}/ { if ($0 ~ /^} [A-Za-z_]/) { t = $0; sub(/^} /, "", t); sub(/;.*$/, "", t); block = block " = " t }
       flush(); next }
block == "" { next }
/<ERROR/ { bad = 1; next }
/XXX 65[0-9][0-9][0-9] bytes hole/ { bad = 1; next }  # pahole's wrong hole: a member under the last one
/<ancestor>/ { ancestor = 1 }
/BRAIN FART ALERT/ && ancestor { next }  # pahole's false alarm at a derived class
{
	line = $0
	depth = match(line, /[^\t]/) - 1
	if (line ~ /\/\* +[0-9]+(: *[0-9]+)? +[0-9]+ \*\/$/) {
		c = line; sub(/^.*\/\* +/, "", c); sub(/ \*\/$/, "", c); gsub(/: +/, ":", c); gsub(/ +/, " ", c)
		# after an empty base class (no room): pahole remarks on its byte of
		# padding and counts it among the paddings, dsprof says it is empty
		remark_after = line ~ /<ancestor>/ && c ~ / 0$/
		if (remark_after) empty_base = 1
		block = block "|" depth " " member_name(line) " " c
		next
	}
	gsub(/^[ \t]+|[ \t]+$/, "", line)
	sub(/, static members: [0-9]+/, "", line)
	if (remark_after && line ~ /^\/\*/) { remark_after = 0; next }
	if (empty_base && line ~ /^\/\* paddings: /) next
	if (line ~ /^\/\*/) { block = block "|" depth " " line; next }
	if (line ~ /:[0-9]+;$/) { sub(/^.*[ \t]/, "", line); block = block "|" depth " filler " line }
}
END { flush(); if (errors) print "ERRORS " errors > "/dev/stderr" }
EOF

# compare NAME BINARY [PAHOLE_ARGS...]: dsprof layout (default, then --all)
# against pahole --show_private_classes (dsprof's default includes the
# structs defined inside functions, which pahole prints only with that
# option), then against pahole -a.
compare() {
	label=$1 bin=$2
	pahole --show_private_classes "$bin" >"$label.ph" 2>"$label.ph.err"
	"$DSPROF" layout --line 64 "$bin" >"$label.ds" 2>"$label.ds.err"
	check_eq "layout $label: dsprof layout succeeds" "$?" 0
	awk -v skips="$label.ph.names" -f norm.awk "$label.ph" 2>"$label.ph.skip" | sort -u >"$label.ph.n"
	awk -v drop="$label.ph.names" -f norm.awk "$label.ds" | sort -u >"$label.ds.n"
	n=$(wc -l <"$label.ph.n")
	skipped=$(awk '{ print $2 }' "$label.ph.skip")
	if cmp -s "$label.ph.n" "$label.ds.n"; then
		ok "layout $label: $n structs agree with pahole${skipped:+ ($skipped that pahole cannot print left out)}"
		echo "$n" >>counts
	else
		not_ok "layout $label: differs from pahole on $(diff "$label.ph.n" "$label.ds.n" | grep -c '^[<>]') of $n structs: $(diff "$label.ph.n" "$label.ds.n" | head -4 | cut -c1-600)"
	fi
	pahole -a --show_private_classes "$bin" >"$label.pha" 2>/dev/null
	"$DSPROF" layout --all --line 64 "$bin" >"$label.dsa" 2>/dev/null
	awk -v skips="$label.pha.names" -f norm.awk "$label.pha" 2>/dev/null | sort -u >"$label.pha.n"
	awk -v drop="$label.pha.names" -f norm.awk "$label.dsa" | sort -u >"$label.dsa.n"
	n=$(wc -l <"$label.pha.n")
	if cmp -s "$label.pha.n" "$label.dsa.n"; then
		ok "layout --all $label: $n types agree with pahole -a"
	else
		not_ok "layout --all $label: differs from pahole -a: $(diff "$label.pha.n" "$label.dsa.n" | head -4 | cut -c1-600)"
	fi
}

: >counts
for p in "$PROGS"/*; do
	[ -x "$p" ] || continue
	compare "$(basename "$p")" "$p"
done
compare dsprof "$DSPROF"

# Many system headers in one program, with every type they declare kept:
# the C library, the libraries dsprof uses, and the kernel's UAPI headers
# that have several structs each (and that compile together).
LIBC_HEADERS="stdio.h stdlib.h string.h pthread.h signal.h time.h sys/socket.h sys/stat.h \
	sys/resource.h sys/epoll.h sys/uio.h sys/mman.h sys/ucontext.h sys/sysinfo.h \
	sys/statvfs.h netinet/in.h netinet/ip.h netinet/tcp.h netinet/udp.h arpa/inet.h netdb.h \
	dirent.h termios.h regex.h glob.h search.h link.h elf.h gelf.h libdwarf.h \
	capstone/capstone.h ncurses.h papi.h zlib.h lzma.h"
KERNEL_HEADERS="\
	linux/acrn.h linux/android/binder.h linux/auto_dev-ioctl.h linux/auto_fs.h linux/ax25.h \
	linux/batadv_packet.h linux/bpf.h linux/btf.h linux/btrfs.h linux/btrfs_tree.h \
	linux/can/netlink.h linux/cdrom.h linux/cec-funcs.h linux/cec.h linux/chio.h \
	linux/comedi.h linux/cryptouser.h linux/dcbnl.h linux/dccp.h linux/dlm_device.h \
	linux/dm-ioctl.h linux/dvb/dmx.h linux/dvb/frontend.h linux/ethtool.h linux/f2fs.h \
	linux/fanotify.h linux/fb.h linux/fd.h linux/firewire-cdev.h linux/fpga-dfl.h linux/fs.h \
	linux/fscrypt.h linux/fsl_hypervisor.h linux/fuse.h linux/gfs2_ondisk.h linux/gpio.h \
	linux/hiddev.h linux/hyperv.h linux/i2o-dev.h linux/icmp.h linux/idxd.h \
	linux/if_arcnet.h linux/if_bridge.h linux/if_link.h linux/if_packet.h linux/if_pppox.h \
	linux/if_xdp.h linux/in.h linux/inet_diag.h linux/input.h linux/io_uring.h linux/ip_vs.h \
	linux/ipmi.h linux/ipv6.h linux/isst_if.h linux/kd.h linux/kvm.h linux/media.h \
	linux/minix_fs.h linux/ndctl.h linux/netfilter/nfnetlink_queue.h \
	linux/netfilter/x_tables.h linux/netfilter/xt_hashlimit.h linux/netfilter/xt_set.h \
	linux/netfilter_ipv4/ip_tables.h linux/netfilter_ipv6/ip6_tables.h linux/netlink.h \
	linux/nfsd/cld.h linux/nilfs2_api.h linux/nilfs2_ondisk.h linux/nl80211.h \
	linux/omap3isp.h linux/omapfb.h linux/openvswitch.h linux/perf_event.h linux/pfkeyv2.h \
	linux/pfrut.h linux/pkt_cls.h linux/pkt_sched.h linux/ppp_defs.h linux/pps.h \
	linux/psp-sev.h linux/ptp_clock.h linux/raid/md_p.h linux/rds.h linux/rio_mport_cdev.h \
	linux/rkisp1-config.h linux/rtnetlink.h linux/scc.h linux/scif_ioctl.h linux/sctp.h \
	linux/sed-opal.h linux/sev-guest.h linux/smc_diag.h linux/soundcard.h \
	linux/switchtec_ioctl.h linux/tee.h linux/time_types.h linux/tipc.h linux/tipc_config.h \
	linux/tls.h linux/ublk_cmd.h linux/uhid.h linux/usb/audio.h linux/usb/cdc.h \
	linux/usb/ch9.h linux/usb/functionfs.h linux/usb/raw_gadget.h linux/usb/video.h \
	linux/usbdevice_fs.h linux/userfaultfd.h linux/v4l2-controls.h linux/v4l2-subdev.h \
	linux/vboxguest.h linux/vduse.h linux/vfio.h linux/vhost_types.h linux/videodev2.h \
	linux/virtio_crypto.h linux/virtio_gpio.h linux/virtio_gpu.h linux/virtio_iommu.h \
	linux/virtio_mem.h linux/virtio_net.h linux/virtio_ring.h linux/virtio_scsi.h \
	linux/virtio_snd.h linux/vt.h linux/wireless.h linux/x25.h linux/xdp_diag.h linux/xfrm.h \
	mtd/inftl-user.h mtd/mtd-abi.h mtd/nftl-user.h mtd/ubi-user.h rdma/bnxt_re-abi.h \
	rdma/cxgb4-abi.h rdma/efa-abi.h rdma/hns-abi.h rdma/ib_user_ioctl_verbs.h \
	rdma/ib_user_verbs.h rdma/irdma-abi.h rdma/mlx4-abi.h rdma/mlx5-abi.h rdma/mthca-abi.h \
	rdma/ocrdma-abi.h rdma/qedr-abi.h rdma/rdma_user_cm.h rdma/rdma_user_rxe.h \
	rdma/siw-abi.h rdma/vmw_pvrdma-abi.h sound/asequencer.h sound/asoc.h sound/asound.h \
	sound/compress_offload.h sound/compress_params.h sound/emu10k1.h sound/firewire.h \
	sound/hdsp.h sound/hdspm.h sound/sfnt_info.h sound/skl-tplg-interface.h \
	"
for h in $LIBC_HEADERS $KERNEL_HEADERS; do
	echo "#include <$h>"
done >hdrs.c
echo 'int main(void) { return 0; }' >>hdrs.c
if gcc -g -O2 -fno-eliminate-unused-debug-types -I/usr/include/libdwarf -o hdrs hdrs.c 2>hdrs.err; then
	compare headers ./hdrs
else
	not_ok "layout: the system-headers program does not build: $(head -c 300 hdrs.err)"
fi

check_ge "layout: structs compared in all" "$(awk '{ s += $1 } END { print s }' counts)" 2000

# Another cache-line size: pahole -c.
pahole --show_private_classes -c 128 "$DSPROF" 2>/dev/null | awk -f norm.awk 2>/dev/null | sort -u >c128.ph
"$DSPROF" layout --line 128 "$DSPROF" | awk -f norm.awk | sort -u >c128.ds
check "layout --line 128: agrees with pahole -c 128 ($(wc -l <c128.ph) structs)" cmp -s c128.ph c128.ds

# Types by name, as pahole -C prints them.
pahole -C ds_err "$DSPROF" >one.ph 2>/dev/null
"$DSPROF" layout "$DSPROF" ds_err >one.ds
check "layout TYPE: struct ds_err as pahole -C prints it" cmp -s one.ph one.ds
"$DSPROF" layout "$DSPROF" 'struct ds_err' >one2.ds
check "layout 'struct TYPE' names the same type" cmp -s one.ds one2.ds

# An experiment's program: the command it recorded.
"$DSPROF" record -q -o exp -- "$PROGS/selftime" 1 >/dev/null 2>&1
"$DSPROF" layout "$PROGS/selftime" >bin.ds
"$DSPROF" layout -i exp --all >exp.ds
check_eq "layout -i --all: exits 0" "$?" 0
# without the metric columns (18 characters for one event) and their header
grep -v '^#' exp.ds | sed -E 's/^.{18}//' >exp.text
"$DSPROF" layout --all "$PROGS/selftime" >bin.all
check "layout -i --all: the experiment's program, every type" cmp -s bin.all exp.text
check_contains "layout -i: the event heads the metric columns" exp.ds '^# +cpu-clock'

# With an experiment, members show their samples: dsfields' stream puts
# them all on struct particle.mass.
if gcc -std=gnu11 -O2 -g -fno-omit-frame-pointer -pthread -o dsf "$TOP/tests/programs/dsfields.c"; then
	"$DSPROF" record -q -o stream -- ./dsf stream >/dev/null
	"$DSPROF" layout -i stream >hot.ds 2>hot.err
	check_eq "layout -i: the hottest sampled type first" "$(grep -m1 -o 'struct [a-z_]* {' hot.ds)" "struct particle {"
	mass=$(awk '/\tdouble +mass;/ { print $1 }' hot.ds)
	total=$(awk '/struct particle {/ { print $1 }' hot.ds)
	check_ge "layout -i: struct particle has samples" "${total:-0}" 20
	check_eq "layout -i: mass has all of them" "${mass:-x}" "${total:-y}"
	check_contains "layout -i: mass's share" hot.ds '^ +[0-9]+ +100\.0% 	double +mass;'
	check_contains "layout -i: an unsampled member shows 0" hot.ds '^ +0 +0\.0% 	double +x;'
	check_contains "layout -i: comment lines have no metrics" hot.ds '^ {18}	/\* size: 128, cachelines: 2, members: 9 \*/'
	"$DSPROF" layout -i stream entry >cold.ds
	check_contains "layout -i TYPE: an unsampled type, with zeros" cold.ds '^ +0 +0\.0% 	int +val;'
else
	not_ok "layout -i: cannot build dsfields"
fi

# Errors: one line, exit 1.
"$DSPROF" layout "$PROGS/selftime" no_such_type >/dev/null 2>err.txt
check_eq "unknown type: exit 1" "$?" 1
check_eq "unknown type: one line" "$(wc -l <err.txt)" 1
check_contains "unknown type: names it" err.txt "no type 'no_such_type'"
cp "$PROGS/selftime" stripped && strip -g stripped
"$DSPROF" layout ./stripped >/dev/null 2>err.txt
check_eq "no DWARF: exit 1" "$?" 1
check_contains "no DWARF: says why" err.txt 'built without -g\?'
head -c 3000 "$PROGS/selftime" >truncated
"$DSPROF" layout ./truncated >/dev/null 2>err.txt
check_eq "truncated binary: exit 1" "$?" 1
check_contains "truncated binary: says so" err.txt "^dsprof: cannot read './truncated': truncated at byte 3000 \(its section headers end at byte [0-9]+\)$"
# a DWARF 5 line table whose file names a directory the table lacks (found
# by fuzz_elf): libdwarf 20210528 crashes on it; dsprof leaves it out
"$DSPROF" layout "$TOP/tests/fuzz/regressions/fuzz_elf/dwarf5-file-dir-out-of-range" >bad.txt 2>bad.err
check_eq "corrupt line table: no crash, the layouts" "$?" 0
check_contains "corrupt line table: a note says so" bad.err "^dsprof: note: DWARF in .*: a unit's line table is corrupt: its file names are left out$"
# .debug_info overwritten after its first unit header: the types that can
# be read are printed, the rest is one note
cp "$PROGS/selftime" corrupt
off=$(readelf -SW corrupt | awk '$2 == ".debug_info" { print $5; exit }')
head -c 300 /dev/zero | tr '\0' '\377' | dd of=corrupt bs=1 seek=$((0x$off + 40)) conv=notrunc 2>/dev/null
"$DSPROF" layout ./corrupt >/dev/null 2>err.txt
check_eq "corrupt DWARF: exit 0 with what could be read" "$?" 0
check_contains "corrupt DWARF: one note" err.txt "^dsprof: note: DWARF in './corrupt': "
check_eq "corrupt DWARF: only that note" "$(wc -l <err.txt)" 1
"$DSPROF" layout --line 0 "$PROGS/selftime" >/dev/null 2>err.txt
check_eq "bad --line: exit 1" "$?" 1
"$DSPROF" layout >/dev/null 2>err.txt
check_eq "no binary: exit 1" "$?" 1
check_contains "no binary: says what to give" err.txt 'give a binary'
"$DSPROF" layout -i ./no-such-dir >/dev/null 2>err.txt
check_eq "no experiment: exit 1" "$?" 1
check_eq "no experiment: one line" "$(wc -l <err.txt)" 1

# C++ derived classes: the base class counts in the sizes' sum (pahole's
# "BRAIN FART ALERT" at every derived class is not repeated), a member in
# its base's tail padding is said to be there, and an empty base class
# takes no room.  Pointers to function pointers (a class's virtual table
# pointer) and arrays of function pointers are declared as C declares them.
cat >derived.cc <<'EOF'
struct A { long a; };
struct B : A { long b; };
struct P { long a; int b; P() : a(0), b(0) {} };
struct Q : P { int c; };
struct Empty { };
struct E : Empty { long e; };
struct V { virtual ~V() {} long v; };
struct ops { void (*cb)(int); void (**tab)(void); int (*arr[3])(void); };
ops table;
int main() { B b; b.a = 1; b.b = 2; Q q; q.c = 3; E e; e.e = 4; V v; v.v = 5;
	return (int)(b.a + b.b + q.c + e.e + v.v) + (table.cb != 0); }
EOF
if g++ -O0 -g -o derived derived.cc 2>derived.err; then
	"$DSPROF" layout ./derived >derived.ds
	check_eq "derived classes: no false alarm at their sizes" "$(grep -c 'BRAIN FART' derived.ds)" 0
	check_contains "derived classes: a member in the base's tail padding" derived.ds \
		'/\* its tail padding \(4 bytes\) holds c \*/'
	check_contains "derived classes: an empty base" derived.ds '/\* empty: it takes no room \*/'
	check_eq "derived classes: reused padding is not counted as padding" \
		"$(grep -c 'paddings:' derived.ds)" 0
	# pointers to function pointers and arrays of them, as C declares them
	check_contains "a class's virtual table pointer" derived.ds '^	int +\(\*\*_vptr\.V\)\(void\); '
	check_contains "a pointer to function pointers" derived.ds '^	void +\(\*\*tab\)\(void\); '
	check_contains "an array of function pointers" derived.ds '^	int +\(\*arr\[3\]\)\(void\); '
else
	not_ok "layout: the derived classes' program does not build: $(head -c 300 derived.err)"
fi

# Reading types and printing every layout frees all it took, libdwarf's
# allocations included (the sanitizer runs cannot see into libdwarf; see
# tests/lsan.supp).
if ldd "$DSPROF" | grep -q libasan; then
	skip "valgrind leak check: Valgrind cannot run a sanitizer build (the plain build runs it)"
elif command -v valgrind >/dev/null 2>&1; then
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9 \
		"$DSPROF" layout --all "$PROGS/dsfields" >/dev/null 2>vg.txt
	check_eq "valgrind: no leak reading types and layouts" "$?" 0
else
	not_ok "valgrind is not installed ('make deps' installs it)"
fi
