#!/usr/bin/env bash
# compare.sh: rdmalab decode against tshark on one sim-written capture.
#
# In one run it makes (or reuses) a capture of at least a million packets
# written by the simulator (captures/bench/gencap), times
#
#   rdmalab decode --json FILE >/dev/null
#   tshark -r FILE -T json >/dev/null          (the ratio's yardstick)
#   tshark -r FILE -T fields -e ... >/dev/null  (a second line: the fields
#                                                the parity tests compare)
#
# and prints the packets per second of each and the ratios; then the
# maximum resident set size of rdmalab decode --json on a capture of about
# 1 GiB (made too when the first is smaller). Goals (issue 5): --json at
# least 20 times tshark -T json's packets per second, and under 100 MB
# resident on 1 GiB.
#
# Usage: captures/bench/compare.sh [-n PACKETS] [-r RUNS] [-t TSHARK_RUNS] [-d DIR] [-f]
#   -n  packets in the capture (default 1000000)
#   -r  timed runs of rdmalab, the median is printed (default 3)
#   -t  timed runs of each tshark mode (default 1: -T json takes minutes)
#   -d  where captures and the binary go (default $TMPDIR/rdmalab-bench);
#       captures already there are reused
#   -f  make the captures again
# Needs go, tshark and GNU time (/usr/bin/time). Times are wall seconds of
# the whole process, output to /dev/null.
set -euo pipefail

packets=1000000 runs=3 truns=1 force=0
dir=${TMPDIR:-/tmp}/rdmalab-bench
while getopts "n:r:t:d:f" o; do
	case $o in
	n) packets=$OPTARG ;;
	r) runs=$OPTARG ;;
	t) truns=$OPTARG ;;
	d) dir=$OPTARG ;;
	f) force=1 ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
for tool in go tshark /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "compare.sh: $tool is not installed" >&2; exit 1; }
done
mkdir -p "$dir"

echo "building rdmalab and gencap ..."
(cd "$root" && go build -o "$dir/rdmalab" . && go build -o "$dir/gencap" ./captures/bench/gencap)

# capture N FILE: make FILE with N sim-written packets unless it is there.
capture() {
	if [ "$force" = 1 ] || [ ! -s "$2" ]; then
		echo "writing $2 ($1 packets) ..."
		"$dir/gencap" -packets "$1" -o "$2.tmp"
		mv "$2.tmp" "$2"
	fi
}

# count FILE: its packets, as rdmalab counts them.
count() { "$dir/rdmalab" decode --json "$1" | wc -l; }

# timeit RUNS CMD...: the median wall seconds and the largest resident set
# (KiB) of RUNS runs, output to /dev/null.
timeit() {
	local n=$1; shift
	local out secs=() rss=0
	for ((i = 0; i < n; i++)); do
		out=$(/usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1)
		secs+=("${out% *}")
		rss=$(( ${out#* } > rss ? ${out#* } : rss ))
	done
	printf '%s\n' "${secs[@]}" | sort -g | awk -v rss="$rss" '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)], rss }'
}

rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k * 1024 / 1e6 }'; }

file=$dir/sim-$packets.pcap
capture "$packets" "$file"
size=$(stat -c %s "$file")
n=$(count "$file")
echo
echo "capture: $file: $n packets, $(mb $((size / 1024))) MB, written by the simulator (gencap)"

fields=(-e frame.number -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.bth.destqp
	-e infiniband.reth.va -e infiniband.reth.r_key -e infiniband.reth.dmalen
	-e infiniband.aeth.syndrome -e infiniband.aeth.msn -e infiniband.invariant.crc
	-e rpcordma.xid -e rpcordma.msg_type -e rpcordma.rdma_handle -e rpcordma.rdma_length)

read -r ours ours_rss < <(timeit "$runs" "$dir/rdmalab" decode --json "$file")
read -r tjson _ < <(timeit "$truns" tshark -r "$file" -T json)
read -r tfields _ < <(timeit "$truns" tshark -r "$file" -T fields "${fields[@]}")

ours_pps=$(rate "$n" "$ours") tjson_pps=$(rate "$n" "$tjson") tfields_pps=$(rate "$n" "$tfields")
printf '%-44s %9s s %10s packets/s  (median of %d)\n' "rdmalab decode --json" "$ours" "$ours_pps" "$runs"
printf '%-44s %9s s %10s packets/s  (median of %d)\n' "tshark -T json" "$tjson" "$tjson_pps" "$truns"
printf '%-44s %9s s %10s packets/s  (median of %d)\n' "tshark -T fields ($((${#fields[@]} / 2)) fields)" "$tfields" "$tfields_pps" "$truns"
r=$(ratio "$ours_pps" "$tjson_pps")
verdict=$(awk -v r="$r" 'BEGIN { print (r >= 20 ? "met" : "NOT met") }')
echo "ratio: rdmalab decode --json / tshark -T json = ${r}x  (goal >= 20x: $verdict)"
echo "second line: rdmalab decode --json / tshark -T fields = $(ratio "$ours_pps" "$tfields_pps")x"

# Resident memory on about 1 GiB: the capture above when it is that big,
# otherwise a bigger one with the same traffic.
gib=$((1 << 30))
big=$file
if [ "$size" -lt $((gib * 9 / 10)) ]; then
	bigpackets=$(awk -v n="$packets" -v s="$size" -v g="$gib" 'BEGIN { printf "%d", n * g / s + 1 }')
	big=$dir/sim-$bigpackets.pcap
	capture "$bigpackets" "$big"
fi
read -r _ rss < <(timeit 1 "$dir/rdmalab" decode --json "$big")
verdict=$(awk -v k="$rss" 'BEGIN { print (k * 1024 < 100e6 ? "met" : "NOT met") }')
echo "max RSS of rdmalab decode --json on $(mb $(($(stat -c %s "$big") / 1024))) MB ($big): $(mb "$rss") MB  (goal < 100 MB: $verdict)"
echo "max RSS of rdmalab decode --json on the ${packets}-packet capture: $(mb "$ours_rss") MB"
