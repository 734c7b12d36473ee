// Nothing to import: the target only defines jemalloc's `malloc_conf` for silentpushd.
