package live

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The receive ring (TPACKET_V3): the kernel writes the frames the filter
// keeps into blocks of memory shared with rdmalab and hands each block
// over when it is full or ringTimeout has passed, so that a burst costs
// no system call a frame (recvmsg's one each dropped half a burst of
// 150 000 frames at 200 000 a second on the test host). A block is given
// back once its last frame is written out.
const (
	ringBlock   = 1 << 20 // past the snap length: a frame fits a block
	ringBlocks  = 32      // 32 MiB, tcpdump's default ring is 2 MiB
	ringFrame   = 1 << 11 // the kernel's frame size check; V3 packs frames tighter
	ringTimeout = 10      // ms: how long a frame may wait in a block not yet full
)

// Offsets in struct tpacket_block_desc (its tpacket_hdr_v1) and struct
// tpacket3_hdr.
const (
	bdStatus   = 8
	bdNumPkts  = 12
	bdFirstPkt = 16
	phNext     = 0
	phSec      = 4
	phNsec     = 8
	phSnaplen  = 12
	phLen      = 16
	phMac      = 24
)

type ring struct {
	mem  []byte
	cur  int  // the block read now, or waited for
	held bool // cur is ours: its frames are being read
	left int  // its frames not yet read
	off  int  // where its next frame is, in the block
}

func setupRing(fd int) (*ring, error) {
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_VERSION, unix.TPACKET_V3); err != nil {
		return nil, err
	}
	req := unix.TpacketReq3{Block_size: ringBlock, Block_nr: ringBlocks, Frame_size: ringFrame,
		Frame_nr: ringBlock / ringFrame * ringBlocks, Retire_blk_tov: ringTimeout}
	if err := unix.SetsockoptTpacketReq3(fd, unix.SOL_PACKET, unix.PACKET_RX_RING, &req); err != nil {
		return nil, err
	}
	mem, err := unix.Mmap(fd, 0, ringBlock*ringBlocks, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return &ring{mem: mem}, nil
}

func (r *ring) u32(off int) uint32 { return *(*uint32)(unsafe.Pointer(&r.mem[off])) }

func (r *ring) status(block int) *uint32 {
	return (*uint32)(unsafe.Pointer(&r.mem[block*ringBlock+bdStatus]))
}

// ready says the block cur is the user's: frames to read.
func (r *ring) ready() bool {
	return atomic.LoadUint32(r.status(r.cur))&unix.TP_STATUS_USER != 0
}

// frame returns the next frame, or ok false when none is ready. The
// frame is in the ring: valid until the next call.
func (r *ring) frame() (data []byte, length int, sec, nsec uint32, ok bool) {
	for {
		for r.left == 0 {
			if r.held {
				atomic.StoreUint32(r.status(r.cur), unix.TP_STATUS_KERNEL) // the block back to the kernel
				r.cur, r.held = (r.cur+1)%ringBlocks, false
			}
			if !r.ready() {
				return nil, 0, 0, 0, false
			}
			base := r.cur * ringBlock
			r.held, r.left, r.off = true, int(r.u32(base+bdNumPkts)), int(r.u32(base+bdFirstPkt))
		}
		// The kernel's offsets, bounded all the same: a frame stays in
		// its block.
		if r.off < 0 || r.off > ringBlock-phMac-2 {
			r.left = 0
			continue
		}
		p := r.cur*ringBlock + r.off
		snap, mac := int(r.u32(p+phSnaplen)), int(*(*uint16)(unsafe.Pointer(&r.mem[p+phMac])))
		end := r.cur*ringBlock + ringBlock
		start := min(p+mac, end)
		data = r.mem[start:min(start+snap, end)]
		length, sec, nsec = int(r.u32(p+phLen)), r.u32(p+phSec), r.u32(p+phNsec)
		r.left--
		if next := int(r.u32(p + phNext)); next > 0 {
			r.off += next
		} else {
			r.left = 0
		}
		return data, length, sec, nsec, true
	}
}

func (r *ring) close() { unix.Munmap(r.mem) }
