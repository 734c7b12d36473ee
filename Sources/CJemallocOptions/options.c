// jemalloc (silentpushd's allocator on Linux) reads its options from this symbol before
// main runs; MALLOC_CONF in the environment still overrides them.
//
// - narenas:1: the receiver's hot path is two threads (the event loop builds records, the
//   store's writer frees them); one arena instead of four per core holds about 3 MB less
//   after a million pushes, at no measured cost (docs/benchmarks.md).
// - dirty_decay_ms:1000: pages freed after a burst go back to the system within about a
//   second of allocator activity, not ten.
//
// Elsewhere (no jemalloc linked) the symbol is unused.
const char *malloc_conf = "narenas:1,dirty_decay_ms:1000";
