#!/bin/sh
# pty.sh OUTDIR RDMALAB [ARGS...] - one interactive session of rdmalab in
# a real terminal (a detached tmux pane of 100x30): the prompt, Tab's
# command menu, a WRITE stepped to its Read, and `view` drawn full
# screen. Each screen is written to OUTDIR/NN-name.txt as tmux shows it.
# It runs in the rxe guest (busybox sh) and on the host alike, so that
# run.sh compares the two after masking keys, addresses and QP numbers.
# Exit status 1, with the screen it waited on, when one never came.
out=$1; shift
mkdir -p "$out"
export LC_ALL=C.UTF-8 TERM=screen # tmux needs a UTF-8 locale and a terminal it knows
S="$out/tmux.sock"
T() { tmux -u -S "$S" "$@"; }
# wait_for ERE [SECONDS]: poll the pane until it matches.
wait_for() {
  end=$(( $(date +%s) + ${2:-30} ))
  while [ "$(date +%s)" -le $end ]; do
    T capture-pane -p -t pty >"$out/screen" 2>/dev/null && grep -Eq "$1" "$out/screen" && return 0
    sleep 0.1
  done
  echo "pty.sh: the screen never showed /$1/:"; cat "$out/screen"
  T kill-server 2>/dev/null
  exit 1
}
shot() { T capture-pane -p -t pty >"$out/$1.txt"; }
# run CMD ERE: type a command, Enter, wait for what it prints and a prompt.
run() { T send-keys -t pty -l "$1"; T send-keys -t pty Enter; wait_for "$2"; wait_for '> *$'; }

T -f /dev/null new-session -d -s pty -x 100 -y 30 \
  "env TERM=screen LC_ALL=C.UTF-8 XDG_RUNTIME_DIR=$out XDG_STATE_HOME=$out/state $*; echo EXITED \$?; sleep 600" || exit 1
wait_for 'fix2025> *$' 60
shot 01-prompt
T send-keys -t pty Tab
wait_for 'write +NFSv3 WRITE: the data goes in a Read chunk'
shot 02-tab
T send-keys -t pty C-u
run "trace off" 'trace off'
run "write 10000" 'next: 1 operation'
run "complete" 'delivered 1 operation'
run "readlist" 'sgl\[2\] pg3'
T send-keys -t pty C-l
wait_for 'fix2025> *$'
T send-keys -t pty -l "view"; T send-keys -t pty Enter
wait_for 'rw#1' 60
sleep 1
shot 03-view
T send-keys -t pty q
wait_for 'fix2025> *$'
T send-keys -t pty C-d
wait_for 'EXITED [0-9]+'
shot 04-exit
T kill-server 2>/dev/null
rm -f "$out/screen"
exit 0
