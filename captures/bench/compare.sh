#!/usr/bin/env bash
# compare.sh: rdmalab decode and replay against tshark on one sim-written
# capture, every output beside its tshark equivalent, in one run.
#
# It makes (or reuses) a capture of at least a million packets written by
# the simulator (captures/bench/gencap) and times, output to /dev/null:
#
#   rdmalab decode FILE            tshark -r FILE
#   rdmalab decode -V FILE         tshark -r FILE -V
#   rdmalab decode --json FILE     tshark -r FILE -T json
#   rdmalab decode --json FILE     tshark -r FILE -T fields -e ... (14 fields)
#   rdmalab decode --json FILE     tshark -r FILE -T fields -e ... (14
#     | cat                          fields) | cat: into a pipe, as a script
#                                  reading the output sees them
#   rdmalab decode -T fields ...   tshark -r FILE -T fields -e ... (when
#                                  rdmalab has -T fields)
#   rdmalab decode --rpc FILE      tshark -r FILE -q -z rpc,srt,100003,3
#   rdmalab replay --text FILE     (no tshark equivalent: the time to the
#                                  first step, the whole run, its memory)
#
# For each pair: the packets per second of both (of the minimum and median
# wall time over the runs, and of the median CPU time, which a loaded
# machine does not inflate), the ratios, and the largest resident set.
# Each round also runs the floor (captures/bench/floor: read every record,
# parse to the BTH, check every ICRC, on one goroutine), and a column gives
# each decode mode's rate over the floor's.
# tshark -V and -T json take minutes on a million packets: with -s they run
# on the first S packets instead (editcap), their rate stands for the whole
# file (their resident set then does not). With -b OLD the same rdmalab
# commands also run with the binary OLD, and a column gives new/old.
#
# The runs of a row are interleaved, so that a host whose speed drifts
# (a shared machine: the same run anywhere from 0.63 s to 0.94 s within
# an hour) slows both sides of a ratio alike: round i runs this
# checkout's rdmalab and OLD's (with -b), taking turns going first, and
# the floor, while i < RUNS, then tshark while i < TSHARK_RUNS. new/old
# is the median of the runs' own ratios (OLD's time over the new one's,
# of wall and of CPU), not a ratio of medians; xfloor is too, and so is
# the tshark ratio when TSHARK_RUNS equals RUNS (else: of the medians).
#
# Then the same for the traffic people capture, each a real capture
# repeated as fresh flows (captures/bench/repeat) to -m frames: the
# kernel's NFSv3 over Soft-RoCE and rping (captures/testdata), and 1 KB
# verbs SENDs (a public RoCEv2 capture, from ../shared/public-captures
# when it is there): lines, -Y, -T fields of five fields and, for NFS,
# --rpc, each beside tshark's.
#
# Goals (issue 13): every output at least 20 times tshark's (-V 10 times),
# default, --json and --rpc at a million packets a second or more and
# within 1.5x of the floor (xfloor 0.67 or more), under
# 100 MB resident on about 1 GB in every mode, the first replay step in
# under 0.3 s.
#
# Usage: captures/bench/compare.sh [-n PACKETS] [-r RUNS] [-t TSHARK_RUNS]
#                                  [-s SLICE] [-m SHAPE_PACKETS] [-b OLD_BINARY]
#                                  [-d DIR] [-f] [-h]
#   -n  packets in the capture (default 1000000)
#   -r  timed runs of each rdmalab command, and pairs with OLD (default 3)
#   -t  timed runs of each tshark mode, among the first rdmalab runs
#       (default 1; equal to -r, the tshark ratio is per run too)
#   -s  tshark -V and -T json on the first SLICE packets (default 0: all)
#   -b  an older rdmalab binary to time beside this checkout's
#   -m  frames in each shape's capture (default 200000; 0: no shape rows)
#   -d  where captures and the binary go (default $TMPDIR/rdmalab-bench);
#       captures already there are reused
#   -f  make the captures again
#   -h  this text
# Needs go, tshark, python3, editcap (with -s) and GNU time (/usr/bin/time). Times
# are of the whole process: wall seconds, and CPU seconds (user + system).
set -euo pipefail

packets=1000000 runs=3 truns=1 slice=0 old= force=0 pipe=0 shapen=200000
dir=${TMPDIR:-/tmp}/rdmalab-bench
# usage: this header's text, without its comment marks.
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while getopts "n:r:t:s:m:b:d:fh" o; do
	case $o in
	n) packets=$OPTARG ;;
	r) runs=$OPTARG ;;
	t) truns=$OPTARG ;;
	s) slice=$OPTARG ;;
	m) shapen=$OPTARG ;;
	b) old=$OPTARG ;;
	d) dir=$OPTARG ;;
	f) force=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

for v in "-n $packets" "-r $runs" "-t $truns"; do
	[[ ${v#* } =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: ${v% *} takes a count of 1 or more, not '${v#* }'" >&2; exit 2; }
done
[[ $slice =~ ^[0-9]+$ ]] || { echo "compare.sh: -s takes a count of packets, not '$slice'" >&2; exit 2; }
[[ $shapen =~ ^[0-9]+$ ]] || { echo "compare.sh: -m takes a count of packets, not '$shapen'" >&2; exit 2; }

root=$(cd "$(dirname "$0")/../.." && pwd)
for tool in go tshark python3 /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "compare.sh: $tool is not installed" >&2; exit 1; }
done
if [ "$slice" != 0 ]; then
	command -v editcap >/dev/null || { echo "compare.sh: editcap is not installed (-s needs it)" >&2; exit 1; }
fi
if [ -n "$old" ] && [ ! -x "$old" ]; then
	echo "compare.sh: $old is not an executable" >&2
	exit 1
fi
mkdir -p "$dir"

echo "building rdmalab, gencap and floor ..."
(cd "$root" && go build -o "$dir/rdmalab" . && go build -o "$dir/gencap" ./captures/bench/gencap &&
	go build -o "$dir/floor" ./captures/bench/floor && go build -o "$dir/repeat" ./captures/bench/repeat)
new=$dir/rdmalab
floors=() # every floor run, once's lines

# capture N FILE: make FILE with N sim-written packets unless it is there.
capture() {
	if [ "$force" = 1 ] || [ ! -s "$2" ]; then
		echo "writing $2 ($1 packets) ..."
		"$dir/gencap" -q -packets "$1" -o "$2.tmp"
		mv "$2.tmp" "$2"
	fi
}

# count FILE: its packets, as tshark counts them.
count() { tshark -r "$1" -T fields -e frame.number 2>/dev/null | wc -l; }

# once CMD...: one run of CMD, output to /dev/null (with pipe=1, through
# cat: the times are then the pipeline's): its wall seconds, CPU seconds
# (user + system) and largest resident set (KiB), on one line.
once() {
	local out w u s m
	if [ "$pipe" = 1 ]; then
		set -- sh -c '"$@" | cat' sh "$@"
	fi
	out=$(/usr/bin/time -f '%e %U %S %M' "$@" 2>&1 >/dev/null) || {
		echo "compare.sh: $* failed:" >&2
		tail -3 <<<"$out" >&2
		return 1
	}
	read -r w u s m <<<"$(tail -1 <<<"$out")"
	awk -v w="$w" -v u="$u" -v s="$s" -v m="$m" 'BEGIN { print w, u + s, m }'
}

# median: the median of the numbers on stdin, one a line (of an even count,
# the lower middle one).
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# summary RUN...: of runs (once's lines), the minimum and median wall
# seconds, the largest resident set (KiB) and the median CPU seconds.
summary() {
	local cpu
	cpu=$(printf '%s\n' "$@" | awk '{ print $2 }' | median)
	printf '%s\n' "$@" | sort -g | awk -v cpu="$cpu" '{ a[NR] = $1; if ($3 > m) m = $3 } END { print a[1], a[int((NR + 1) / 2)], m + 0, cpu }'
}

# medratio I J [K [D]]: the median over the lines on stdin of K (default
# 1) times field I over field J, to D decimals (default 1), with its x;
# lines with either field 0 (a run under the clock's 10 ms) are left out,
# and none left gives -.
medratio() {
	awk -v i="$1" -v j="$2" -v k="${3:-1}" '$i > 0 && $j > 0 { print k * $i / $j }' | median |
		awk -v d="${4:-1}" '{ if ($1 == "") print "-"; else printf "%.*fx\n", d, $1 }'
}

# firststep CMD...: the wall seconds until CMD's first step (a line that
# starts with a frame number).
firststep() {
	python3 - "$@" <<-'EOF'
		import re, subprocess, sys, time
		t = time.monotonic()
		p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
		while True:
		    l = p.stdout.readline()
		    if not l or re.match(rb"^ *[0-9]+  ", l):
		        break
		print("%.3f" % (time.monotonic() - t))
		p.kill(); p.wait()
	EOF
}

rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.1fx", a / b; else print "-" }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k * 1024 / 1e6 }'; }
kpps() { awk -v r="$1" 'BEGIN { printf "%.0f k", r / 1000 }'; }

file=$dir/sim-$packets.pcap
capture "$packets" "$file"
size=$(stat -c %s "$file")
n=$(count "$file")
echo
echo "capture: $file: $n packets, $(mb $((size / 1024))) MB, written by the simulator (gencap)"

sfile=$file sn=$n
if [ "$slice" != 0 ] && [ "$slice" -lt "$n" ]; then
	sfile=$dir/sim-$packets-first$slice.pcap
	[ -s "$sfile" ] && [ "$force" = 0 ] || editcap -r "$file" "$sfile" "1-$slice"
	sn=$slice
	echo "tshark -V and -T json on the first $sn packets ($sfile)"
fi

fields=(-e frame.number -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.bth.destqp
	-e infiniband.reth.va -e infiniband.reth.r_key -e infiniband.reth.dmalen
	-e infiniband.aeth.syndrome -e infiniband.aeth.msn -e infiniband.invariant.crc
	-e rpcordma.xid -e rpcordma.msg_type -e rpcordma.rdma_handle -e rpcordma.rdma_length)
nf=$((${#fields[@]} / 2))

# hasfields BINARY: whether its decode has -T fields.
hasfields() { "$1" decode -h 2>&1 | grep -q -- '-T fields'; }
# skipold: the row has no old column (the old binary lacks its mode).
skipold=0

printf '\n%-30s %-30s %8s %8s %8s %8s %8s %6s %6s %6s %8s %6s' "rdmalab" "tshark" "rdmalab" "(min)" "cpu" "tshark" "cpu" "ratio" "cpu" "RSS MB" "tsharkMB" "xfloor"
[ -n "$old" ] && printf ' %8s %8s %7s %6s' "old" "cpu" "new/old" "cpu"
printf '\n'

# tworuns I ARGS...: round I's runs of this rdmalab and, with -b, the old
# one (else o is empty), with ARGS: r and o, once's lines. They take turns
# going first, so that neither gains from its place in the round.
tworuns() {
	local i=$1; shift
	o=
	if [ -z "$old" ] || [ "$skipold" = 1 ]; then
		r=$(once "$new" "$@")
	elif ((i % 2 == 0)); then
		r=$(once "$new" "$@")
		o=$(once "$old" "$@")
	else
		o=$(once "$old" "$@")
		r=$(once "$new" "$@")
	fi
}

# oldcols: the old binary's columns, from the caller's pr (its runs) and
# po (its runs beside the new one's): its rates and new/old.
oldcols() {
	local _a pmed _c pcpu
	read -r _a pmed _c pcpu < <(summary "${pr[@]}")
	printf ' %8s %8s %7s %6s' "$(kpps "$(rate "$n" "$pmed")")" "$(kpps "$(rate "$n" "$pcpu")")" \
		"$(printf '%s\n' "${po[@]}" | medratio 1 4)" "$(printf '%s\n' "${po[@]}" | medratio 2 5)"
}

# pair LABEL TLABEL TFILE TN "RDMALAB ARGS" TSHARK ARGS...: one row, its
# runs interleaved: rdmalab and the old one (-b, tworuns), the floor,
# then tshark (the first -t rounds).
pair() {
	local label=$1 tlabel=$2 tf=$3 tn=$4 args=$5; shift 5
	local i r o t f nr=() pr=() tr=() po=() tno=() fno=()
	for ((i = 0; i < runs || i < truns; i++)); do
		if ((i < runs)); then
			# shellcheck disable=SC2086
			tworuns "$i" $args "$file"
			nr+=("$r")
			if [ -n "$o" ]; then pr+=("$o") po+=("$o $r"); fi
			f=$(once "$dir/floor" "$file")
			floors+=("$f") fno+=("$f $r")
		fi
		if ((i < truns)); then
			t=$(once tshark -r "$tf" "$@")
			tr+=("$t")
			if ((i < runs)); then tno+=("$t $r"); fi
		fi
	done
	local omin omed orss ocpu tmin tmed trss tcpu
	read -r omin omed orss ocpu < <(summary "${nr[@]}")
	read -r tmin tmed trss tcpu < <(summary "${tr[@]}")
	local op tp oc tc wr cr k
	op=$(rate "$n" "$omed") tp=$(rate "$tn" "$tmed") oc=$(rate "$n" "$ocpu") tc=$(rate "$tn" "$tcpu")
	wr=$(ratio "$op" "$tp") cr=$(ratio "$oc" "$tc")
	if [ "$truns" -eq "$runs" ]; then
		# rdmalab's rate over tshark's, run by run: n/r over tn/t.
		k=$(awk -v n="$n" -v tn="$tn" 'BEGIN { printf "%.17g", n / tn }')
		wr=$(printf '%s\n' "${tno[@]}" | medratio 1 4 "$k")
		cr=$(printf '%s\n' "${tno[@]}" | medratio 2 5 "$k")
	fi
	# xfloor: rdmalab's rate over the floor's, run by run.
	printf '%-30s %-30s %8s %8s %8s %8s %8s %6s %6s %6s %8s %6s' "$label" "$tlabel" "$(kpps "$op")" "$(kpps "$(rate "$n" "$omin")")" \
		"$(kpps "$oc")" "$(kpps "$tp")" "$(kpps "$tc")" "$wr" "$cr" "$(mb "$orss")" "$(mb "$trss")" \
		"$(printf '%s\n' "${fno[@]}" | medratio 1 4 1 2)"
	if [ -n "$old" ] && [ "$skipold" = 1 ]; then
		printf ' %8s %8s %7s %6s' - - - -
	elif [ -n "$old" ]; then
		oldcols
	fi
	printf '\n'
}

# replayrow: replay's row, no tshark twin: the time to the first step and
# the whole run, interleaved with the old one's (-b) as in pair.
replayrow() {
	local i r o nr=() pr=() po=() fs=() ofs=()
	for ((i = 0; i < runs; i++)); do
		tworuns "$i" replay --text "$file"
		nr+=("$r")
		if [ -n "$o" ]; then pr+=("$o") po+=("$o $r"); fi
		if [ -n "$old" ] && ((i % 2 == 1)); then ofs+=("$(firststep "$old" replay --text "$file")"); fi
		fs+=("$(firststep "$new" replay --text "$file")")
		if [ -n "$old" ] && ((i % 2 == 0)); then ofs+=("$(firststep "$old" replay --text "$file")"); fi
	done
	local rmin rmed rrss rcpu first
	read -r rmin rmed rrss rcpu < <(summary "${nr[@]}")
	first=$(printf '%s\n' "${fs[@]}" | median)
	printf '%-30s %-30s %8s %8s %8s %8s %8s %6s %6s %6s %8s %6s' "replay --text" "(first step ${first} s)" "$(kpps "$(rate "$n" "$rmed")")" \
		"$(kpps "$(rate "$n" "$rmin")")" "$(kpps "$(rate "$n" "$rcpu")")" "-" "-" "-" "-" "$(mb "$rrss")" "-" "-"
	if [ -n "$old" ]; then
		local _a _b prss _d
		read -r _a _b prss _d < <(summary "${pr[@]}")
		oldcols
		printf '  (old: first step %s s, %s MB)' "$(printf '%s\n' "${ofs[@]}" | median)" "$(mb "$prss")"
	fi
	printf '\n'
}

pair "decode" "-r" "$file" "$n" "decode"
pair "decode -V" "-V$([ "$sn" != "$n" ] && echo " (first $sn)")" "$sfile" "$sn" "decode -V" -V
pair "decode --json" "-T json$([ "$sn" != "$n" ] && echo " (first $sn)")" "$sfile" "$sn" "decode --json" -T json
pair "decode --json" "-T fields ($nf fields)" "$file" "$n" "decode --json" -T fields "${fields[@]}"
pipe=1
pair "decode --json | cat" "-T fields ($nf fields) | cat" "$file" "$n" "decode --json" -T fields "${fields[@]}"
pipe=0
if hasfields "$new"; then
	if [ -n "$old" ] && ! hasfields "$old"; then skipold=1; fi
	pair "decode -T fields ($nf fields)" "-T fields ($nf fields)" "$file" "$n" "decode -T fields ${fields[*]}" -T fields "${fields[@]}"
	skipold=0
fi
pair "decode --rpc" "-q -z rpc,srt,100003,3" "$file" "$n" "decode --rpc" -q -z rpc,srt,100003,3

replayrow
floorrate=$(kpps "$(rate "$n" "$(summary "${floors[@]}" | awk '{ print $2 }')")") nfloors=${#floors[@]}

# shape NAME CAPTURE: CAPTURE repeated as fresh flows to -m frames, and
# its rows.
shape() {
	local name=$1 src=$2
	file=$dir/$name-$shapen.pcap
	if [ "$force" = 1 ] || [ ! -s "$file" ]; then
		"$dir/repeat" -n "$shapen" -o "$file" "$src" >/dev/null
	fi
	n=$(count "$file")
	local five=(-e frame.number -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.bth.destqp -e rpcordma.xid)
	local y='infiniband.bth.opcode==4||rpcordma' # no blanks: pair splits its rdmalab words at them
	pair "$name: decode" "-r" "$file" "$n" "decode"
	pair "$name: decode -Y" "-Y" "$file" "$n" "decode -Y $y" -Y "$y"
	pair "$name: decode -T fields (5)" "-T fields (5)" "$file" "$n" "decode -T fields ${five[*]}" -T fields "${five[@]}"
	if [ "$name" = nfs3 ]; then
		pair "$name: decode --rpc" "-q -z rpc,srt,100003,3" "$file" "$n" "decode --rpc" -q -z rpc,srt,100003,3
	fi
}
if [ "$shapen" -gt 0 ]; then
	echo
	echo "the traffic people capture, each repeated as fresh flows to $shapen frames (captures/bench/repeat):"
	skipold=0
	shape nfs3 "$root/captures/testdata/nfs3-rdma.pcap"
	shape rping "$root/captures/testdata/rdmacm-rping.pcap"
	public=${RDMALAB_SHARED:-$root/../shared}/public-captures/magnate3-rocev2-send-first-middle-last.pcap
	if [ -s "$public" ]; then
		shape verbs-1k "$public"
	else
		echo "(no verbs-1k rows: $public is not there)"
	fi
fi

echo
echo "rates in packets per second: of the median run's wall time (min: the fastest run), and of its CPU time"
echo "(user + system: what a loaded machine's wall time hides); ratio: rdmalab's over tshark's, of wall and of CPU;"
echo "RSS: the largest resident set over the runs; xfloor: rdmalab's rate over the floor's (the median of the runs'"
echo "own ratios; -: runs too short to time). The floor (captures/bench/floor: read every record, parse to the BTH,"
echo "check every ICRC, on one goroutine): $floorrate on the simulator's capture, the median of $nfloors runs."
echo "Goals: ratio >= 20 (-V >= 10), decode/--json/--rpc >= 1000 k and xfloor >= 0.67 (within 1.5x of the floor),"
echo "RSS < 100 MB on about 1 GB, replay's first step < 0.3 s."
tratio="of the two medians"
if [ "$truns" -eq "$runs" ]; then tratio="the median of the runs' own ratios"; fi
echo "Runs are interleaved, so that a drifting host slows both sides of a ratio alike: round i runs rdmalab and"
echo "the old binary (with -b; they take turns going first) and the floor, in the first $runs rounds, then tshark,"
echo "in the first $truns. ratio: $tratio."
if [ -n "$old" ]; then echo "new/old: the old binary's time over this one's, of wall and of CPU: the median of the runs' own ratios (-: it has no such mode)."; fi
