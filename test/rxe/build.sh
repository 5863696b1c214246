#!/bin/bash
# build.sh - the guest of the rxe stage: Debian's own kernel (downloaded as a
# .deb, never installed on the host) and a busybox initramfs holding the RDMA
# modules, iproute2, rdma, tcpdump, ibverbs-utils, tmux and the rxe provider. The
# rdmalab binary is not in it: run.sh hands it in through 9p, so a rebuild of
# rdmalab does not rebuild the image. Everything big goes to $BUILD.
# Needs: qemu-system-x86 busybox-static kmod cpio ibverbs-utils
# ibverbs-providers iproute2 tcpdump tmux (RXE_APT=1 installs them).
set -euo pipefail
BUILD=${BUILD:-/tmp/rdmalab-rxe}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$BUILD"
cd "$BUILD"

if [ "${RXE_APT:-0}" = 1 ]; then
  apt-get update -qq >"$BUILD/apt.log" 2>&1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    qemu-system-x86 busybox-static kmod cpio gzip ibverbs-utils ibverbs-providers \
    libibverbs-dev iproute2 tcpdump tmux >>"$BUILD/apt.log" 2>&1
fi

# Debian's kernel, unpacked only.
KPKG=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
KVER=${KPKG#linux-image-}
if [ ! -f "$BUILD/kpkg/boot/vmlinuz-$KVER" ]; then
  rm -f "$BUILD"/linux-image-*.deb
  apt-get download "$KPKG" >"$BUILD/download.log" 2>&1
  rm -rf "$BUILD/kpkg"; dpkg-deb -x "$BUILD/${KPKG}"_*.deb "$BUILD/kpkg"
  depmod -b "$BUILD/kpkg" "$KVER"
  rm -f "$BUILD"/linux-image-*.deb
fi
cp "$BUILD/kpkg/boot/vmlinuz-$KVER" "$BUILD/vmlinuz"
stamp="$KVER $(sha1sum "$HERE/build.sh" "$HERE/guest-init.sh" | sha1sum | cut -c1-12)"
if [ -f "$BUILD/initrd.gz" ] && [ "$(cat "$BUILD/initrd.stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi

R="$BUILD/root"
rm -rf "$R"; mkdir -p "$R"; cd "$R"
mkdir -p usr/bin usr/sbin usr/lib/x86_64-linux-gnu usr/lib64 etc proc sys dev run tmp share
ln -s usr/bin bin; ln -s usr/sbin sbin; ln -s usr/lib lib; ln -s usr/lib64 lib64

copy_file() {  # a host file (links followed) to its canonical path, keeping the asked name
  local src real d
  src=$1; real=$(readlink -f "$src")
  mkdir -p "$R$(dirname "$real")"; cp -f "$real" "$R$real"
  if [ "$src" != "$real" ]; then
    d=$(dirname "$src"); d=${d#/}
    case "$d" in bin|sbin|lib|lib64) d=usr/$d;; lib/*) d=usr/$d;; esac
    mkdir -p "$R/$d"; [ -e "$R/$d/$(basename "$src")" ] || ln -s "$real" "$R/$d/$(basename "$src")"
  fi
}
copy_with_libs() {
  local f l
  for f in "$@"; do
    copy_file "$f"
    for l in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do [ -e "$l" ] && copy_file "$l"; done
  done
}
# ibv_devinfo brings libibverbs and libnl, which rdmalab -tags ibv links too;
# tmux gives pty.sh the terminal an interactive session runs in.
copy_with_libs /usr/bin/rdma /usr/sbin/ip /usr/bin/tcpdump /usr/bin/kmod /usr/bin/ibv_devinfo \
  /usr/bin/ibv_rc_pingpong /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so \
  /usr/lib/x86_64-linux-gnu/libgcc_s.so.1 /usr/bin/tmux
# tmux wants a UTF-8 locale: glibc's C.UTF-8.
mkdir -p usr/lib/terminfo/s usr/lib/locale; cp /lib/terminfo/s/screen usr/lib/terminfo/s/
cp -r /usr/lib/locale/C.utf8 usr/lib/locale/
mkdir -p etc/libibverbs.d; cp /etc/libibverbs.d/rxe.driver etc/libibverbs.d/
ln -sf kmod usr/bin/modprobe; ln -sf ../bin/kmod usr/sbin/modprobe
cp /bin/busybox usr/bin/busybox
for n in $(/bin/busybox --list-full); do
  [ -e "$R/$n" ] || [ -L "$R/$n" ] || ln -s /usr/bin/busybox "$R/$n" 2>/dev/null || true
done
printf 'root:x:0:0:root:/root:/bin/sh\ntcpdump:x:102:102::/nonexistent:/bin/false\n' >etc/passwd
printf 'root:x:0:\ntcpdump:x:102:\n' >etc/group
printf '127.0.0.1 localhost\n' >etc/hosts

MODS="virtio_pci virtio_net 9pnet_virtio 9p crc32_generic rdma_rxe ib_uverbs"
for m in $MODS; do
  modprobe -d "$BUILD/kpkg" -S "$KVER" --show-depends "$m" | awk '$1=="insmod"{print $2}'
done | sort -u | while read -r ko; do
  rel=${ko#$BUILD/kpkg/}; mkdir -p "$R/usr/$(dirname "$rel")"; cp "$ko" "$R/usr/$rel"
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
  cp "$BUILD/kpkg/lib/modules/$KVER/$f" "$R/usr/lib/modules/$KVER/"
done
depmod -b "$R" "$KVER"
cp "$HERE/guest-init.sh" init; chmod +x init
find . -print0 | cpio --null -o -H newc --quiet | gzip -1 >"$BUILD/initrd.gz"
echo "$stamp" >"$BUILD/initrd.stamp"
