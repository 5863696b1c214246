#!/bin/bash
# run.sh - the rxe stage: rdmalab with the real provider, run on Soft-RoCE
# inside qemu, against the sim. It
#   1. builds rdmalab -tags ibv (for the guest) and the plain one (host);
#   2. builds the guest image (build.sh; cached under $BUILD);
#   3. boots one guest (two NICs on a hub, rxe0 on eth0 = server, rxe1 on
#      eth1 = client, see guest-init.sh) that runs each script of scripts/
#      and each lesson of $LESSONS (default: every one) with --engine
#      ibv:rxe0,rxe1, one tcpdump capture of udp port 4791 per run, one
#      script with both QPs on rxe0 (--engine ibv:rxe0, "one-device": rxe
#      loops it back, uncaptured), one interactive session in a tmux
#      pane (pty.sh: the prompt, Tab, view), and own/own-capture.rdl: the
#      REPL's own capture start/stop on rxe0's netdev, decoded in the guest;
#   4. runs the same on the sim, here, and diffs the transcripts and the
#      screens after masking what cannot match (addresses, keys, QP
#      numbers, times);
#   5. checks every capture with rdmalab decode --check and that every
#      RDMA READ and WRITE in it is attributed to a chunk segment (a
#      resent one too: it is counted and reported, not failed); and that
#      the own capture shows the WRITE, its two RDMA READs and the reply,
#      and capture save and a one-device capture start are refused.
# A lesson whose engines: leave ibv out is skipped on rxe (lesson check
# says so) and still run on the sim. Results go to $OUT (default
# $BUILD/out). Exit status 0 only when every run passed on both engines,
# the interactive session ran on both and every capture checks clean; a
# difference in the transcripts alone is reported, not failed (README.md
# explains them). Every failure names its run, after the table.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
export BUILD=${BUILD:-/tmp/rdmalab-rxe}
OUT=${OUT:-$BUILD/out}
LESSONS=${LESSONS:-$(cd "$ROOT/lessons" && ls [0-9]*.md | sed 's/\.md$//' | tr '\n' ' ')}
T0=$(date +%s)
say() { echo "[rxe $(( $(date +%s) - T0 ))s] $*"; }
# fail RUN WHY: remember a failure; they are listed, each with its run,
# after the table.
failures=()
fail() { failures+=("$1: $2"); }

SHARE=$BUILD/share
rm -rf "$SHARE" "$OUT"; mkdir -p "$SHARE/out" "$SHARE/lessons" "$OUT"
(cd "$ROOT" && CGO_ENABLED=1 go build -tags ibv -o "$SHARE/rdmalab" . && go build -o "$BUILD/rdmalab" .)
say "rdmalab built (-tags ibv for the guest)"
"$HERE/build.sh"
say "guest image ready"

cp "$HERE"/scripts/*.rdl "$HERE/pty.sh" "$HERE/own/own-capture.rdl" "$SHARE/"
for l in $LESSONS; do cp "$ROOT/lessons/$l.md" "$SHARE/lessons/"; done
cp -r "$ROOT/lessons/files" "$SHARE/lessons/"   # what lessons open (capture open)
cat >"$SHARE/guest.sh" <<'GUEST'
cd /share
R="./rdmalab --engine ibv:rxe0,rxe1"
capture() { # NAME: start tcpdump on eth0
  tcpdump --immediate-mode -B 16384 -U -n -i eth0 -s 0 -w "/tmp/$1.pcap" udp port 4791 >"/tmp/td.$1" 2>&1 &
  TP=$!
  local i=0
  while ! grep -q listening "/tmp/td.$1" && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
}
stop() { # NAME: stop tcpdump once its file stops growing (TCG is slow)
  local a=-1 b=0 i=0
  while [ "$a" != "$b" ] && [ $i -lt 30 ]; do
    a=$b; sleep 0.3; b=$(wc -c <"/tmp/$1.pcap"); i=$((i+1))
  done
  kill -INT $TP; wait $TP; cp "/tmp/$1.pcap" "out/$1.rxe.pcap"; cp "/tmp/td.$1" "out/$1.tcpdump.txt"
}
ibv_devinfo -v -d rxe0 >out/devinfo.txt 2>&1
for f in *.rdl; do
  n=${f%.rdl}
  [ "$n" = own-capture ] && continue
  capture "$n"
  $R run "$f" >"out/$n.rxe.txt" 2>"out/$n.rxe.err"; echo $? >"out/$n.rxe.rc"
  stop "$n"
done
# The learner's own capture: capture start on rxe0's netdev (no tcpdump),
# decoded here in the guest; capture save refused with its reason; and
# capture start with both QPs on rxe0 refused (RXE_LOOPBACK).
$R run own-capture.rdl >out/own-capture.rxe.txt 2>out/own-capture.rxe.err; echo $? >out/own-capture.rxe.rc
cp /tmp/own-capture.pcapng out/own-capture.rxe.pcapng 2>/dev/null
./rdmalab decode --rpc /tmp/own-capture.pcapng >out/own-capture.decode.txt 2>&1; echo $? >out/own-capture.decode.rc
printf 'capture save /tmp/own-save.pcap\n' | $R run - >out/own-save.rxe.txt 2>&1; echo $? >out/own-save.rxe.rc
printf 'capture start /tmp/own-loop.pcapng\n' | ./rdmalab --engine ibv:rxe0 run - >out/own-loop.rxe.txt 2>&1; echo $? >out/own-loop.rxe.rc
# Both QPs on one device: rxe loops the packets back inside (no capture).
./rdmalab --engine ibv:rxe0 run write-read-chunk.rdl >out/one-device.rxe.txt 2>out/one-device.rxe.err
echo $? >out/one-device.rxe.rc
# One interactive session in a terminal (tmux), its screens kept.
timeout 240 sh pty.sh /tmp/pty ./rdmalab --engine ibv:rxe0,rxe1 >out/pty.rxe.log 2>&1; echo $? >out/pty.rxe.rc
mkdir -p out/pty.rxe; cp /tmp/pty/*.txt out/pty.rxe/ 2>/dev/null
for f in lessons/*.md; do
  n=lesson-$(basename "$f" .md)
  capture "$n"
  $R lesson check -v "$f" >"out/$n.rxe.txt" 2>"out/$n.rxe.err"; echo $? >"out/$n.rxe.rc"
  stop "$n"
done
sync
GUEST
say "booting the guest"
"$HERE/boot.sh" "$SHARE" "${RXE_TIMEOUT:-600}" || true
if [ ! -f "$SHARE/out/devinfo.txt" ]; then
  # A loaded host can still upset an emulated guest's early boot: once more.
  say "the guest did not run (console: $(grep -m1 -i 'panic' "$SHARE/console" || tail -n 1 "$SHARE/console")); booting again"
  "$HERE/boot.sh" "$SHARE" "${RXE_TIMEOUT:-600}" || true
fi
cp -r "$SHARE"/out/* "$OUT/" 2>/dev/null || true
[ -f "$OUT/devinfo.txt" ] || { echo "the guest produced nothing; its console:"; tail -30 "$SHARE/console"; exit 1; }

# The sim's side, and the diffs.
mask() { # what differs by nature: addresses, keys, QP numbers, PSNs, times, column widths,
  # and where a long line is cut ("…"): a trace line is cut at a width, and
  # its numbers are shorter on rxe, so every line is compared to 150 characters
  sed -E -e 's/0x[0-9a-f]{4,}/0xN/g' -e 's/qp [0-9]+/qp N/g' -e 's/psn [^ ]+/psn P/g' \
    -e 's/due [^ ]+/due T/g' -e 's/[0-9.]+(ns|µs|us|ms|s)\b/T/g' -e 's/[[:space:]]+/ /g' -e 's/^(.{150}).*/\1/'
}
printf '%-34s %-6s %-6s %s\n' run rxe sim "differing lines (masked)" >"$OUT/summary.txt"
runs=$(cd "$HERE/scripts" && ls *.rdl | sed 's/\.rdl$//'; echo one-device; for l in $LESSONS; do echo "lesson-$l"; done)
for n in $runs; do
  src=0
  case $n in
    lesson-*) (cd "$ROOT" && "$BUILD/rdmalab" lesson check -v "lessons/${n#lesson-}.md") >"$OUT/$n.sim.txt" 2>"$OUT/$n.sim.err" || src=$? ;;
    one-device) "$BUILD/rdmalab" run "$HERE/scripts/write-read-chunk.rdl" >"$OUT/$n.sim.txt" 2>"$OUT/$n.sim.err" || src=$? ;;
    *) "$BUILD/rdmalab" run "$HERE/scripts/$n.rdl" >"$OUT/$n.sim.txt" 2>"$OUT/$n.sim.err" || src=$? ;;
  esac
  echo $src >"$OUT/$n.sim.rc"
  rrc=$(cat "$OUT/$n.rxe.rc" 2>/dev/null || echo none)
  d=-
  if grep -q '^skip ' "$OUT/$n.rxe.txt" 2>/dev/null; then
    rrc=skip  # its engines: leave ibv out
  else
    diff -u <(mask <"$OUT/$n.sim.txt") <(mask <"$OUT/$n.rxe.txt" 2>/dev/null) >"$OUT/$n.diff" || true
    d=$(grep -c '^[-+][^-+]' "$OUT/$n.diff" || true)
  fi
  printf '%-34s %-6s %-6s %s\n' "$n" "$rrc" "$src" "$d" >>"$OUT/summary.txt"
  case $rrc in
    0|skip) ;;
    *) fail "$n" "exits $rrc on rxe: $(tail -n 3 "$OUT/$n.rxe.err" "$OUT/$n.rxe.txt" 2>/dev/null | grep -v '^==>' | grep . | tail -n 3 | tr '\n' ' ')" ;;
  esac
  [ "$src" = 0 ] || fail "$n" "exits $src on the sim: $(tail -n 3 "$OUT/$n.sim.err" "$OUT/$n.sim.txt" | grep -v '^==>' | grep . | tail -n 3 | tr '\n' ' ')"
done

# The interactive session: the same keys on the sim, each screen diffed
# after the same masking (and the prompt's engine).
prc=0; timeout 240 "$HERE/pty.sh" "$OUT/pty.sim" "$BUILD/rdmalab" >"$OUT/pty.sim.log" 2>&1 || prc=$?
rrc=$(cat "$OUT/pty.rxe.rc" 2>/dev/null || echo none)
[ "$rrc" = 0 ] || fail pty "the interactive session on rxe: $(tail -n 5 "$OUT/pty.rxe.log" 2>/dev/null | tr '\n' ' ')"
[ "$prc" = 0 ] || fail pty "the interactive session on the sim: $(tail -n 5 "$OUT/pty.sim.log" | tr '\n' ' ')"
pmask() { mask | sed -E -e 's/^(sim|ibv) fix2025>/E fix2025>/' -e 's/^engine: (sim \(rxe model\)|ibv:[^,]*,[^,]*),/engine: E,/' -e 's/t=[^ ]+/t=T/' -e 's/ +$//'; }
pd=0
for f in "$OUT"/pty.sim/*.txt; do
  [ -f "$f" ] || continue
  b=$(basename "$f")
  diff -u <(pmask <"$f") <(pmask <"$OUT/pty.rxe/$b" 2>/dev/null) >"$OUT/pty.$b.diff" || true
  pd=$((pd + $(grep -c '^[-+][^-+]' "$OUT/pty.$b.diff" || true)))
done
printf '%-34s %-6s %-6s %s\n' "pty (interactive, 4 screens)" "$rrc" "$prc" "$pd" >>"$OUT/summary.txt"
say "transcripts compared"

# The captures. decode --check may find in each only anomalies it finds in
# the sim's own capture of the same run (a lesson that ends with a call
# unanswered, or answers one with RDMA_ERROR, has them on both; the device
# may have answered a call the sim left pending), plus, where a failure is
# provoked, the RDMA operation past its segment that provoked it, and a
# duplicate (an rxe retransmission); and every
# RDMA READ and WRITE must be tied to its chunk segment: a resent one
# (rxe's retransmission timer under load: normal RoCE) too, and it is
# counted. A lesson skipped on rxe has no traffic to judge.
kinds() { sed -n 's/^frame [0-9]*: \([^:]*\):.*/\1/p' "$1" | { grep -v '^(unknown)' || true; } | sort; }
for p in "$OUT"/*.rxe.pcap; do
  n=$(basename "$p" .rxe.pcap)
  grep -q '^skip ' "$OUT/$n.rxe.txt" 2>/dev/null && continue
  case $n in
    lesson-*) cmd="learn $(sed -n 's/^name: *//p' "$ROOT/lessons/${n#lesson-}.md" | head -1)" ;;
    *) cmd="source $HERE/scripts/$n.rdl" ;;
  esac
  printf '%s\ncapture save %s\n' "$cmd" "$OUT/$n.sim.pcap" | "$BUILD/rdmalab" run - >/dev/null 2>&1 || true
  "$BUILD/rdmalab" decode --check "$p" >"$OUT/$n.rxe.check.txt" 2>&1 || true
  "$BUILD/rdmalab" decode --check "$OUT/$n.sim.pcap" >"$OUT/$n.sim.check.txt" 2>&1 || true
  want=$(kinds "$OUT/$n.sim.check.txt")
  [ "$n" = completion-error ] && want=$(printf '%s\npast segment\n' "$want" | grep . | sort)
  got=$(kinds "$OUT/$n.rxe.check.txt")
  "$BUILD/rdmalab" decode --json "$p" | python3 -c '
import json, sys
rdma = resent = unattributed = 0
for line in sys.stdin:
    p = json.loads(line)
    if "infiniband.reth.va" in p:          # an RDMA READ request or the first packet of a WRITE
        rdma += 1
        tied = any(k == "chunk" or k.startswith("rdmalab.chunk") for k in p)
        again = p.get("rdmalab.psn_status") in ("duplicate", "retransmission", "out of order")
        if again:
            resent += 1
            print("frame %d: resent (%s), %s" % (p["frame.number"], p["rdmalab.psn_status"],
                  "tied to XID %s %s chunk %s" % (p.get("rdmalab.chunk.xid"), p.get("rdmalab.chunk.kind"), p.get("rdmalab.chunk.index")) if tied else "not tied"))
        if not tied:
            unattributed += 1
            print("frame %d: RDMA operation not attributed to a chunk" % p["frame.number"])
print("%d RDMA operations (%d resent), %d unattributed" % (rdma, resent, unattributed))
sys.exit(1 if unattributed else 0)' >"$OUT/$n.attr.txt" && arc=0 || arc=$?
  printf '%-30s rxe %3d frames, sim %3d; anomalies rxe: %s; sim: %s; %s\n' "$n.pcap" \
    "$("$BUILD/rdmalab" decode "$p" | wc -l)" "$("$BUILD/rdmalab" decode "$OUT/$n.sim.pcap" | wc -l)" \
    "$(echo $got | sed 's/^$/none/')" "$(echo $want | sed 's/^$/none/')" "$(tail -1 "$OUT/$n.attr.txt")" >>"$OUT/summary.txt"
  # rxe now and then retransmits a request under TCG (its responder
  # re-ACKs it): the decoder rightly reports the duplicate or the
  # retransmission; it is not a fault of the model, so it is reported
  # (the summary's anomalies), not failed.
  extra=$(comm -23 <(echo "$got" | grep -Ev '^(duplicate|retransmission)$' | grep . || true) <(echo "$want" | grep . || true))
  # A run that rebuilds the lab (set, reset) has every lab's traffic in
  # the rxe capture but only the last lab's in the sim's (capture save):
  # what the lessons provoke on purpose in an earlier lab (a call left
  # unanswered, RDMA_ERROR, the NAK of a fail and its WRITE past the
  # segment) is reported there, not failed; any other kind still fails.
  if [ -n "$extra" ] && grep -qE 'so the lab was rebuilt|^a new lab' "$OUT/$n.sim.txt"; then
    echo "  $n: the lab was rebuilt; earlier labs on rxe only: $(echo $extra)" >>"$OUT/summary.txt"
    extra=$(echo "$extra" | grep -Ev '^(call never answered|RDMA_ERROR|NAK|past segment)$' || true)
  fi
  if [ -n "$extra" ]; then
    fail "$n" "decode --check finds on rxe what it does not on the sim: $(echo $extra) (see $n.rxe.check.txt)"
  fi
  [ $arc = 0 ] || fail "$n" "$(grep -c 'not attributed' "$OUT/$n.attr.txt") RDMA operation(s) not attributed to a chunk (see $n.attr.txt)"
done

# The learner's own capture (capture start/stop in the REPL, on rxe0's
# netdev): the guest's decode --rpc must show the WRITE call, both RDMA
# READs of its Read chunk with all their bytes, and the reply, as the
# sim's own recording of the same script does.
own=own-capture
orc=$(cat "$OUT/$own.rxe.rc" 2>/dev/null || echo none)
odrc=$(cat "$OUT/$own.decode.rc" 2>/dev/null || echo none)
osrc=0; (cd "$OUT" && "$BUILD/rdmalab" run "$HERE/own/$own.rdl") >"$OUT/$own.sim.txt" 2>&1 || osrc=$?
cp /tmp/own-capture.pcapng "$OUT/$own.sim.pcapng" 2>/dev/null || true
"$BUILD/rdmalab" decode --rpc "$OUT/$own.sim.pcapng" >"$OUT/$own.sim.decode.txt" 2>&1 || true
dec=$OUT/$own.decode.txt
reads=$(grep -c 'RDMA READ in' "$dec" 2>/dev/null || true)
seen=$(grep -c '8192 bytes seen' "$dec" 2>/dev/null || true)
printf '%-34s %-6s %-6s decode --rpc in the guest: exit %s, %s RDMA READ(s), %s segment(s) whole; %s\n' "$own (capture start)" "$orc" "$osrc" \
  "$odrc" "${reads:-0}" "${seen:-0}" "$(grep -c 'V3 WRITE Reply' "$OUT/$own.rxe.txt" 2>/dev/null || echo 0) reply line(s) from packets rpc" >>"$OUT/summary.txt"
[ "$orc" = 0 ] || fail "$own" "exits $orc on rxe: $(tail -n 3 "$OUT/$own.rxe.err" "$OUT/$own.rxe.txt" 2>/dev/null | grep -v '^==>' | grep . | tail -n 3 | tr '\n' ' ')"
[ "$osrc" = 0 ] || fail "$own" "exits $osrc on the sim: $(tail -n 3 "$OUT/$own.sim.txt" | tr '\n' ' ')"
[ "$odrc" = 0 ] || fail "$own" "decode --rpc in the guest exits $odrc: $(tail -n 2 "$dec" 2>/dev/null | tr '\n' ' ')"
if ! grep -q 'call   frame .*V3 WRITE Call' "$dec" 2>/dev/null || ! grep -q 'reply  frame .*V3 WRITE Reply' "$dec" || [ "${reads:-0}" -lt 2 ] || [ "${seen:-0}" != 2 ]; then
  fail "$own" "decode --rpc of the recording does not show the WRITE call, its 2 RDMA READs whole and the reply (see $own.decode.txt)"
fi
grep -q 'V3 WRITE Reply' "$OUT/$own.rxe.txt" 2>/dev/null || fail "$own" "capture open and packets rpc in the session do not list the reply (see $own.rxe.txt)"
src=$(cat "$OUT/own-save.rxe.rc" 2>/dev/null || echo none)
{ [ "$src" != 0 ] && grep -q 'capture start FILE records them' "$OUT/own-save.rxe.txt"; } ||
  fail own-save "capture save on rxe is not refused with its reason (exit $src: $(tr '\n' ' ' <"$OUT/own-save.rxe.txt" 2>/dev/null))"
src=$(cat "$OUT/own-loop.rxe.rc" 2>/dev/null || echo none)
{ [ "$src" != 0 ] && grep -q 'RXE_LOOPBACK' "$OUT/own-loop.rxe.txt"; } ||
  fail own-loop "capture start with both QPs on rxe0 is not refused for RXE_LOOPBACK (exit $src: $(tr '\n' ' ' <"$OUT/own-loop.rxe.txt" 2>/dev/null))"
printf '%-34s %-6s %-6s %s\n' "own-save, own-loop (refused)" "$(cat "$OUT/own-save.rxe.rc" 2>/dev/null),$(cat "$OUT/own-loop.rxe.rc" 2>/dev/null)" - \
  "$(grep -o 'capture start FILE records them' "$OUT/own-save.rxe.txt" | head -1); $(grep -o 'RXE_LOOPBACK' "$OUT/own-loop.rxe.txt" | head -1)" >>"$OUT/summary.txt"

cat "$OUT/summary.txt"
if [ ${#failures[@]} -gt 0 ]; then
  echo "FAILED (${#failures[@]}):"
  printf '  %s\n' "${failures[@]}"
  say "done: FAILED (results in $OUT)"
  exit 1
fi
say "done: passed (results in $OUT)"
