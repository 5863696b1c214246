// Package pcapfile reads capture files: classic pcap (microsecond and
// nanosecond, either byte order, and the Kuznetzov "modified" variant),
// pcapng (any number of sections and interfaces), either of them
// gzip-compressed. It reports every record with its frame number, its byte
// offset in the file and its full 32-bit link type, and says where a
// truncated or hostile file goes wrong instead of panicking or allocating
// what a length field claims.
//
// It is written for rdmalab rather than taken from gopacket/pcapgo
// because pcapgo (v1.1.19) cuts link types to 8 bits (LINKTYPE_LINUX_SLL2,
// 276, becomes 20), reads pcapng through a private bufio.Reader so byte
// offsets are lost, panics on short pcapng options (if_filter with no
// bytes, if_tsoffset shorter than 8), and allocates the snap length a
// header claims before reading. Reader implements gopacket's
// PacketDataSource and ZeroCopyPacketDataSource, and the tests check it
// against pcapgo's readers and writers.
//
//	pcap:    file header (24) | record header (16, or 24 modified) | data | ...
//	pcapng:  SHB | IDB ... | EPB / SPB / PB | ... (each block: type, length,
//	         body, length; a new SHB starts a new section)
package pcapfile
