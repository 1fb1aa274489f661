// libwebpmux, for taking metadata chunks out of the WebP files libvips writes.
// WebPMuxCreate is a static inline wrapper in mux.h; this header only adds one function that
// does the whole job, so Swift calls a single C function and frees with cwebpmux_free.
#ifndef ATTACHMENTSTORE_CWEBPMUX_SHIM_H
#define ATTACHMENTSTORE_CWEBPMUX_SHIM_H

#include <stdlib.h>
#include <string.h>
#include <webp/mux.h>

/// Writes into *out (malloc'd; free with cwebpmux_free) the WebP `input` without its EXIF,
/// XMP and ICC chunks; libwebpmux rewrites the VP8X flags to match. Returns 0 on success,
/// -1 when `input` is not a WebP libwebpmux can read.
static inline int cwebpmux_strip_metadata(const uint8_t *input, size_t length, uint8_t **out, size_t *out_length) {
    WebPData data = { input, length };
    WebPMux *mux = WebPMuxCreate(&data, 0);
    if (mux == NULL) return -1;
    WebPMuxDeleteChunk(mux, "EXIF");
    WebPMuxDeleteChunk(mux, "XMP ");
    WebPMuxDeleteChunk(mux, "ICCP");
    WebPData assembled = { NULL, 0 };
    WebPMuxError error = WebPMuxAssemble(mux, &assembled);
    WebPMuxDelete(mux);
    if (error != WEBP_MUX_OK) { WebPDataClear(&assembled); return -1; }
    *out = (uint8_t *)malloc(assembled.size);
    if (*out == NULL) { WebPDataClear(&assembled); return -1; }
    memcpy(*out, assembled.bytes, assembled.size);
    *out_length = assembled.size;
    WebPDataClear(&assembled);
    return 0;
}

/// Frees what cwebpmux_strip_metadata returned.
static inline void cwebpmux_free(uint8_t *bytes) { free(bytes); }

#endif
