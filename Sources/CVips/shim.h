// Non-variadic wrappers over the libvips calls AttachmentStore uses.
// Swift cannot call C variadic functions, so every option list is spelled out here.
// This is the only C in the project; keep each wrapper a one-liner over libvips.
#ifndef ATTACHMENTSTORE_CVIPS_SHIM_H
#define ATTACHMENTSTORE_CVIPS_SHIM_H

#include <vips/vips.h>

/// Starts libvips once per process. Returns 0 on success.
static inline int cvips_init(const char *argv0) {
    return vips_init(argv0);
}

/// Opens a file lazily: only the header is read until pixels are asked for.
/// `fail_on` = error makes truncated or corrupt data an error rather than grey pixels.
static inline VipsImage *cvips_open_header(const char *path) {
    return vips_image_new_from_file(path,
        "access", VIPS_ACCESS_SEQUENTIAL,
        "fail_on", VIPS_FAIL_ON_ERROR,
        NULL);
}

/// Reads an integer header field; returns 0 and leaves `out` untouched when absent.
static inline int cvips_get_int(VipsImage *image, const char *name, int *out) {
    if (vips_image_get_typeof(image, name) == 0) return 0;
    return vips_image_get_int(image, name, out) == 0 ? 1 : 0;
}

/// Reads a string header field; returns NULL when absent. The string belongs to the image.
static inline const char *cvips_get_string(VipsImage *image, const char *name) {
    const char *out = NULL;
    if (vips_image_get_typeof(image, name) == 0) return NULL;
    if (vips_image_get_string(image, name, &out) != 0) return NULL;
    return out;
}

/// Drops a reference to a libvips object (image, buffer, ...).
static inline void cvips_unref(void *object) {
    if (object) g_object_unref(object);
}

#endif
