#ifndef SILENTPUSH_CNGHTTP2_SHIM_H
#define SILENTPUSH_CNGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>

/* Macros Swift cannot import. */
static inline int32_t cnghttp2_initial_window_size(void) { return NGHTTP2_INITIAL_WINDOW_SIZE; }

#endif
