#!/bin/bash
# boot.sh SHAREDIR [TIMEOUT] - boot the rxe guest (build.sh's image) with
# SHAREDIR on /share; it runs /share/guest.sh and powers off. Prints the
# accelerator and the wall time. qemu's own console goes to SHAREDIR/console.
# KVM is used only when a probe shows a guest really boots under it (on a
# nested host /dev/kvm may open and the guest still hang); else TCG.
set -euo pipefail
BUILD=${BUILD:-/tmp/rdmalab-rxe}
share=$1; tmo=${2:-240}
if [ -z "${ACCEL:-}" ]; then
  if [ -f "$BUILD/accel" ]; then
    ACCEL=$(cat "$BUILD/accel")
  else
    ACCEL="-accel tcg"
    if [ -w /dev/kvm ]; then
      log=$(mktemp)
      timeout 12 qemu-system-x86_64 -accel kvm -cpu host,-arch-capabilities -m 256 -display none \
        -monitor none -serial file:"$log" -no-reboot -kernel "$BUILD/vmlinuz" \
        -append "console=ttyS0 panic=-1" >/dev/null 2>&1 || true
      grep -q "Linux version" "$log" && ACCEL="-accel kvm -cpu host,-arch-capabilities"
      rm -f "$log"
    fi
    echo "$ACCEL" >"$BUILD/accel"
  fi
fi
echo "[boot] accelerator: $ACCEL"
t0=$(date +%s.%N)
# shellcheck disable=SC2086
timeout "$tmo" qemu-system-x86_64 $ACCEL -m 1024 -smp 1 -display none -monitor none -no-reboot \
  -kernel "$BUILD/vmlinuz" -initrd "$BUILD/initrd.gz" \
  -append "console=ttyS0 quiet panic=-1 no_timer_check" \
  -netdev hubport,id=h0,hubid=0 -device virtio-net-pci,netdev=h0,mac=52:54:00:12:34:01 \
  -netdev hubport,id=h1,hubid=0 -device virtio-net-pci,netdev=h1,mac=52:54:00:12:34:02 \
  -fsdev local,id=fs0,path="$share",security_model=none \
  -device virtio-9p-pci,fsdev=fs0,mount_tag=share \
  -serial file:"$share/console" >"$share/qemu.log" 2>&1 || { rc=$?; echo "[boot] qemu exit $rc (124: timeout after ${tmo}s)"; exit $rc; }
echo "[boot] guest finished in $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5)s"
