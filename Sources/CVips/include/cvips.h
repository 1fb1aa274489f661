// The libvips calls AttachmentStore makes, as plain C functions Swift can call.
//
// libvips is not linked into the program: cvips_start() loads it (dlopen) the first time an
// image is touched, so a command that reads no image never pays for libvips and the hundred
// libraries it brings (issue 13: `attach stats` spent most of its start in the loader).
// Every other function here requires a successful cvips_start() first.
//
// Swift cannot call C variadic functions, so every option list libvips takes is spelled out
// in cvips.c. The C in CVips and CWebPMux is all the C in the project.
#ifndef ATTACHMENTSTORE_CVIPS_H
#define ATTACHMENTSTORE_CVIPS_H

#include <stddef.h>
#include <stdint.h>

/// A libvips image. Opaque: the store only hands it from one call to the next.
typedef struct _VipsImage VipsImage;

/// Loads libvips, resolves every function below, looks up the option values by name, starts
/// libvips and sets it up for the store: of libvips' loadable modules only the HEIF one loaded
/// (VIPSHOME is set to a prefix under /dev/null, so no other module is found), warnings silenced
/// (failures come back through cvips_last_error), operation cache off, untrusted loaders
/// blocked, one thread per operation.
/// Returns 0 on success; otherwise -1 with a message in `error` (at most `capacity` bytes,
/// NUL-terminated). Call once per process.
int cvips_start(const char *argv0, char *error, size_t capacity);

/// The text of libvips' error buffer (empty when there is none). Valid until cvips_clear_error.
const char *cvips_last_error(void);
/// Clears libvips' error buffer.
void cvips_clear_error(void);

/// The class name of the loader libvips would pick for a file, or NULL when none would.
const char *cvips_find_loader(const char *path);

/// Opens a file lazily: only the header is read until pixels are asked for.
/// `fail_on` = error makes truncated or corrupt data an error rather than grey pixels.
VipsImage *cvips_open_header(const char *path);
/// Opens a whole image for a full decode (random access, `fail_on` = error).
VipsImage *cvips_open_full(const char *path);

/// Reads an integer header field; returns 0 and leaves `out` untouched when absent.
int cvips_get_int(VipsImage *image, const char *name, int *out);
/// Reads a string header field; returns NULL when absent. The string belongs to the image.
const char *cvips_get_string(VipsImage *image, const char *name);
/// Reads a blob header field (`exif-data`); returns NULL and a length of 0 when absent. The
/// bytes belong to the image.
const void *cvips_get_blob(VipsImage *image, const char *name, size_t *length);

/// Width in pixels.
int cvips_width(VipsImage *image);
/// Height in pixels.
int cvips_height(VipsImage *image);
/// Bands per pixel (3 for RGB, 4 for RGBA, ...).
int cvips_bands(VipsImage *image);
/// Bytes per band value of the image's format (1 for 8-bit, 2 for 16-bit, ...).
int cvips_bytes_per_band(VipsImage *image);
/// Whether the format is 8 bits per band, unsigned.
int cvips_is_uchar(VipsImage *image);
/// Pages (frames) the file holds; 1 for a still image.
int cvips_page_count(VipsImage *image);
/// Whether the image has an alpha band.
int cvips_has_alpha(VipsImage *image);

/// A lazy thumbnail pipeline: shrink-on-load to fit `width` x `height` (never enlarging),
/// EXIF orientation applied, colour imported with a fallback profile for CMYK. Nothing is
/// decoded until the result is saved. `fail_on` = error: truncated or corrupt data fails.
int cvips_thumbnail(const char *path, VipsImage **out, int width, int height);
/// Like cvips_thumbnail, from a JPEG held in memory (an image embedded in another file), turned
/// upright by `orientation` (1-8, the EXIF value of the file that embeds it) rather than by any
/// orientation of its own. `buffer` must stay valid until the result has been encoded.
int cvips_thumbnail_embedded(const void *buffer, size_t length, VipsImage **out, int width, int height, int orientation);
/// Converts to sRGB (keeping alpha), from grey, CMYK, 16-bit or any other space.
int cvips_to_srgb(VipsImage *in, VipsImage **out);
/// Casts to 8 bits per band when a conversion left a wider format.
int cvips_to_uchar(VipsImage *in, VipsImage **out);
/// Applies EXIF orientation to an image.
int cvips_autorotate(VipsImage *in, VipsImage **out);

/// Encodes as baseline JPEG with every metadata block (EXIF, XMP, IPTC, ICC) dropped.
int cvips_jpeg(VipsImage *in, void **buffer, size_t *length, int quality);
/// Encodes as PNG with every metadata block dropped.
int cvips_png(VipsImage *in, void **buffer, size_t *length);
/// Encodes as lossy WebP (alpha kept) with every metadata block dropped.
int cvips_webp(VipsImage *in, void **buffer, size_t *length, int quality);
/// Decodes every pixel into a new buffer (free with cvips_free_buffer); NULL on failure.
void *cvips_write_to_memory(VipsImage *in, size_t *length);
/// Frees a buffer an encode or cvips_write_to_memory returned.
void cvips_free_buffer(void *buffer);

/// Asks a running evaluation of `image` to stop at its next tile.
void cvips_kill(VipsImage *image);
/// Drops a reference to an image (NULL is ignored).
void cvips_unref(VipsImage *image);

#endif
