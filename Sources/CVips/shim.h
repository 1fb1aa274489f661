// Non-variadic wrappers over the libvips calls AttachmentStore uses.
// Swift cannot call C variadic functions, so every option list is spelled out here.
// The C here and in CWebPMux/shim.h is all the C in the project; keep each wrapper a one-liner over libvips.
#ifndef ATTACHMENTSTORE_CVIPS_SHIM_H
#define ATTACHMENTSTORE_CVIPS_SHIM_H

#include <vips/vips.h>

/// Starts libvips once per process. Returns 0 on success.
static inline int cvips_init(const char *argv0) {
    return vips_init(argv0);
}

static inline void cvips_drop_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

/// Stops libvips printing warnings on standard error: every failure the store cares about
/// is reported through vips_error_buffer() and turned into a typed error instead.
static inline void cvips_silence_warnings(void) {
    g_log_set_handler("VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO),
        cvips_drop_log, NULL);
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

/// A lazy thumbnail pipeline: shrink-on-load to fit `width` x `height` (never enlarging),
/// EXIF orientation applied, colour imported with a fallback profile for CMYK. Nothing is
/// decoded until the result is saved. `fail_on` = error: truncated or corrupt data fails.
static inline int cvips_thumbnail(const char *path, VipsImage **out, int width, int height) {
    return vips_thumbnail(path, out, width,
        "height", height,
        "size", VIPS_SIZE_DOWN,
        "fail_on", VIPS_FAIL_ON_ERROR,
        NULL);
}

/// Converts to 8-bit sRGB (keeping alpha), from grey, CMYK, 16-bit or any other space.
static inline int cvips_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

/// Casts to 8 bits per band when a conversion left a wider format.
static inline int cvips_to_uchar(VipsImage *in, VipsImage **out) {
    return vips_cast(in, out, VIPS_FORMAT_UCHAR, NULL);
}

/// Encodes as baseline JPEG with every metadata block (EXIF, XMP, IPTC, ICC) dropped.
static inline int cvips_jpeg(VipsImage *in, void **buffer, size_t *length, int quality) {
#if VIPS_MAJOR_VERSION > 8 || VIPS_MINOR_VERSION >= 15
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "keep", VIPS_FOREIGN_KEEP_NONE,
        "optimize_coding", TRUE, NULL);
#else
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE,
        "optimize_coding", TRUE, NULL);
#endif
}

/// Encodes as PNG with every metadata block dropped.
static inline int cvips_png(VipsImage *in, void **buffer, size_t *length) {
#if VIPS_MAJOR_VERSION > 8 || VIPS_MINOR_VERSION >= 15
    return vips_pngsave_buffer(in, buffer, length, "keep", VIPS_FOREIGN_KEEP_NONE, NULL);
#else
    return vips_pngsave_buffer(in, buffer, length, "strip", TRUE, NULL);
#endif
}

/// Encodes as lossy WebP (alpha kept) with every metadata block dropped.
static inline int cvips_webp(VipsImage *in, void **buffer, size_t *length, int quality) {
#if VIPS_MAJOR_VERSION > 8 || VIPS_MINOR_VERSION >= 15
    return vips_webpsave_buffer(in, buffer, length, "Q", quality, "keep", VIPS_FOREIGN_KEEP_NONE, NULL);
#else
    return vips_webpsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
#endif
}

/// Opens a whole image for a full decode (random access, `fail_on` = error).
static inline VipsImage *cvips_open_full(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_RANDOM, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
}

/// Applies EXIF orientation to an image.
static inline int cvips_autorotate(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

/// Frees a buffer a save function returned.
static inline void cvips_free_buffer(void *buffer) {
    g_free(buffer);
}

/// Asks a running evaluation of `image` to stop at its next tile.
static inline void cvips_kill(VipsImage *image) {
    vips_image_set_kill(image, TRUE);
}

/// Drops a reference to a libvips object (image, buffer, ...).
static inline void cvips_unref(void *object) {
    if (object) g_object_unref(object);
}

#endif
