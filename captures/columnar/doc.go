// Package columnar writes what the capture decoder finds as Parquet
// files, for DuckDB, Spark, pandas or any engine that reads Parquet:
// `rdmalab decode --parquet OUT` (one row per packet) and
// `rdmalab decode --rpc --parquet OUT` (one row per RPC). Many captures
// go into one file with a capture column naming each, so a fleet's
// captures become one dataset.
//
// A Writer implements decode.Rows: package decode selects the packets
// (-Y, --filter) and settles each RPC (answered, reply acknowledged)
// exactly as for its text outputs, and the Writer turns each into a row.
// Rows are written in row groups of RowGroupRows as they come, so a
// capture of any size is written in bounded memory; the file appears
// under its name only once it is complete (temp file and rename).
//
// The library is github.com/parquet-go/parquet-go: pure Go (no cgo, as
// the rest of rdmalab's decoding), it writes rows from Go structs whose
// tags below are the schema, streams row groups, and its dependencies
// are a small part of apache/arrow's Go module's.
//
// The columns are the fields of PacketRow and RPCRow, under the names
// their parquet tags give; `rdmalab decode --parquet-columns` lists them
// with their types. Optional columns are NULL where the packet has no
// such thing (a QP for a frame without InfiniBand transport, an XID for
// a packet of no RPC). Times are UTC timestamps in microseconds, which
// Spark reads as TIMESTAMP without configuration; time_ns keeps the
// capture's nanoseconds.
package columnar
