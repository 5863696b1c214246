#!/bin/sh
# /init of the rxe stage's initramfs. One guest, two NICs joined by a qemu
# hub (one Ethernet segment): eth0 192.0.2.1 carries rxe0, eth1 192.0.2.2
# carries rxe1. Both addresses are local to the guest, yet rxe0's packets
# for 192.0.2.2 leave through eth0: rxe binds its route lookup to its own
# netdev (flowi4_oif), and the FIB skips the local route whose device is
# eth1, so the connected route via eth0 wins. Static neighbours spare the
# ARP, and accept_local lets eth1 take a packet whose source address is
# local too (else it is a martian). The frames cross the hub, so tcpdump on
# eth0 sees every RoCEv2 packet in both directions. It runs /share/guest.sh,
# then powers off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# busybox sh prefers its own applets: iproute2 is called by its path.
IP=/usr/bin/ip
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts; mount -t devpts devpts /dev/pts  # ptys, for tmux (pty.sh)
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
hostname rxe
t() { echo "[$(cut -d' ' -f1 /proc/uptime)s] $*"; }
for m in virtio_pci virtio_net 9pnet_virtio 9p; do modprobe $m; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 share /share || t "9p mount failed"
for m in crc32_generic ib_core ib_uverbs rdma_rxe; do modprobe $m || t "modprobe $m failed"; done
$IP link set lo up
n=0; while [ ! -e /sys/class/net/eth1 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
$IP addr add 192.0.2.1/24 dev eth0
$IP addr add 192.0.2.2/24 dev eth1
$IP link set eth0 up; $IP link set eth1 up
for i in all default eth0 eth1; do
  echo 0 >/proc/sys/net/ipv4/conf/$i/rp_filter
  echo 1 >/proc/sys/net/ipv4/conf/$i/accept_local
done
M0=$(cat /sys/class/net/eth0/address); M1=$(cat /sys/class/net/eth1/address)
$IP neigh replace 192.0.2.2 lladdr "$M1" dev eth0 nud permanent
$IP neigh replace 192.0.2.1 lladdr "$M0" dev eth1 nud permanent
rdma link add rxe0 type rxe netdev eth0 || t "rxe0 failed"
rdma link add rxe1 type rxe netdev eth1 || t "rxe1 failed"
t "ready: $(ls /sys/class/infiniband | tr '\n' ' ')"
if [ -f /share/guest.sh ]; then
  sh /share/guest.sh >/share/guest.log 2>&1
else
  t "no /share/guest.sh"
fi
t "done, powering off"
sync; umount /share 2>/dev/null
poweroff -f
