// libvips, loaded on first use. See include/cvips.h for what each function promises.
//
// The prototypes below are libvips 8's and GLib 2's public C API, written out so that the
// program needs neither linked: cvips_start() opens libvips with dlopen and resolves each
// function once. Option values that are enums are looked up by their names in libvips'
// own type tables at start, never written here as numbers.
#define _GNU_SOURCE  // dladdr
#include "cvips.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

typedef unsigned long cvips_gtype;  // GLib's GType (a gsize).
typedef void (*cvips_log_func)(const char *domain, int level, const char *message, void *data);

// GLib's G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO (gmessages.h: 1<<4, 1<<5, 1<<6).
static const int cvips_quiet_levels = (1 << 4) | (1 << 5) | (1 << 6);

// The libvips and GLib functions the store calls, resolved once by cvips_start.
static struct {
    int (*init)(const char *argv0);
    int (*version)(int flag);
    const char *(*error_buffer)(void);
    void (*error_clear)(void);
    unsigned (*log_set_handler)(const char *domain, int levels, cvips_log_func handler, void *data);
    void (*cache_set_max)(int max);
    void (*cache_set_max_mem)(size_t max_mem);
    void (*cache_set_max_files)(int max_files);
    void (*block_untrusted_set)(int state);
    void (*concurrency_set)(int concurrency);
    int (*enum_from_nick)(const char *domain, cvips_gtype type, const char *nick);
    cvips_gtype (*access_type)(void);
    cvips_gtype (*fail_on_type)(void);
    cvips_gtype (*size_type)(void);
    cvips_gtype (*interpretation_type)(void);
    cvips_gtype (*band_format_type)(void);
    const char *(*foreign_find_load)(const char *path);
    VipsImage *(*image_new_from_file)(const char *path, ...);
    cvips_gtype (*image_get_typeof)(const VipsImage *image, const char *name);
    int (*image_get_int)(const VipsImage *image, const char *name, int *out);
    int (*image_get_string)(const VipsImage *image, const char *name, const char **out);
    int (*image_get_blob)(const VipsImage *image, const char *name, const void **data, size_t *length);
    int (*image_get_width)(const VipsImage *image);
    int (*image_get_height)(const VipsImage *image);
    int (*image_get_bands)(const VipsImage *image);
    int (*image_get_format)(const VipsImage *image);
    int (*image_get_n_pages)(VipsImage *image);
    int (*image_hasalpha)(VipsImage *image);
    uint64_t (*format_sizeof)(int format);
    int (*thumbnail)(const char *path, VipsImage **out, int width, ...);
    int (*thumbnail_buffer)(void *buffer, size_t length, VipsImage **out, int width, ...);
    void (*image_set_int)(VipsImage *image, const char *name, int value);
    int (*colourspace)(VipsImage *in, VipsImage **out, int space, ...);
    int (*cast)(VipsImage *in, VipsImage **out, int format, ...);
    int (*autorot)(VipsImage *in, VipsImage **out, ...);
    int (*jpegsave_buffer)(VipsImage *in, void **buffer, size_t *length, ...);
    int (*pngsave_buffer)(VipsImage *in, void **buffer, size_t *length, ...);
    int (*webpsave_buffer)(VipsImage *in, void **buffer, size_t *length, ...);
    void *(*image_write_to_memory)(VipsImage *in, size_t *length);
    void (*image_set_kill)(VipsImage *image, int kill);
    void (*g_free)(void *memory);
    void (*g_object_unref)(void *object);
    void *(*g_module_open)(const char *path, int flags);
    void (*g_module_make_resident)(void *module);
} vips;

// Option values, by name from libvips' enum tables; `keep` is whether savers take "keep"
// (8.15 and later) rather than "strip".
static struct {
    int access_sequential, access_random, fail_on_error, size_down, srgb, uchar, keep;
} option;

static int cvips_fail(char *error, size_t capacity, const char *what, const char *detail) {
    snprintf(error, capacity, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
    return -1;
}

static void cvips_drop_log(const char *domain, int level, const char *message, void *data) {
    (void)domain; (void)level; (void)message; (void)data;
}

// Looks up `nick` in the enum `type`; -1 (and the error filled) when libvips lacks it.
static int cvips_nick(cvips_gtype type, const char *nick, int *out, char *error, size_t capacity) {
    int value = vips.enum_from_nick("attach", type, nick);
    if (value < 0) return cvips_fail(error, capacity, "libvips has no option value named", nick);
    *out = value;
    return 0;
}

#define CVIPS_RESOLVE(field, symbol) \
    if ((*(void **)&vips.field = dlsym(library, symbol)) == NULL) \
        return cvips_fail(error, capacity, "libvips lacks the function", symbol);

// G_MODULE_BIND_LAZY, as libvips opens its modules.
static const int cvips_module_bind_lazy = 1 << 0;

// Loads the one libvips module whose images the store accepts (HEIF: HEIC and AVIF) from the
// module folder beside the libvips library actually loaded. A libvips built with HEIF inside
// has no such file, and one without HEIF at all reads no HEIF: either way the probe then
// decides, as it does for any format, so a missing module is not an error here.
static void cvips_load_heif_module(int major, int minor) {
    Dl_info info;
    if (dladdr(*(void **)&vips.init, &info) == 0 || info.dli_fname == NULL) return;
    const char *slash = strrchr(info.dli_fname, '/');
    if (slash == NULL) return;
    char path[PATH_MAX];
    int length = snprintf(path, sizeof path, "%.*s/vips-modules-%d.%d/vips-heif.so",
                          (int)(slash - info.dli_fname), info.dli_fname, major, minor);
    if (length < 0 || (size_t)length >= sizeof path || access(path, R_OK) != 0) return;
    void *module = vips.g_module_open(path, cvips_module_bind_lazy);
    // A module registers types libvips keeps, so it must never be unloaded (libvips does the same).
    if (module != NULL) vips.g_module_make_resident(module);
}

int cvips_start(const char *argv0, char *error, size_t capacity) {
    void *library = dlopen("libvips.so.42", RTLD_NOW | RTLD_GLOBAL);
    if (library == NULL) library = dlopen("libvips.so", RTLD_NOW | RTLD_GLOBAL);
    if (library == NULL) return cvips_fail(error, capacity, "cannot load libvips.so.42", dlerror());

    CVIPS_RESOLVE(init, "vips_init")
    CVIPS_RESOLVE(version, "vips_version")
    CVIPS_RESOLVE(error_buffer, "vips_error_buffer")
    CVIPS_RESOLVE(error_clear, "vips_error_clear")
    CVIPS_RESOLVE(log_set_handler, "g_log_set_handler")
    CVIPS_RESOLVE(cache_set_max, "vips_cache_set_max")
    CVIPS_RESOLVE(cache_set_max_mem, "vips_cache_set_max_mem")
    CVIPS_RESOLVE(cache_set_max_files, "vips_cache_set_max_files")
    CVIPS_RESOLVE(block_untrusted_set, "vips_block_untrusted_set")
    CVIPS_RESOLVE(concurrency_set, "vips_concurrency_set")
    CVIPS_RESOLVE(enum_from_nick, "vips_enum_from_nick")
    CVIPS_RESOLVE(access_type, "vips_access_get_type")
    CVIPS_RESOLVE(fail_on_type, "vips_fail_on_get_type")
    CVIPS_RESOLVE(size_type, "vips_size_get_type")
    CVIPS_RESOLVE(interpretation_type, "vips_interpretation_get_type")
    CVIPS_RESOLVE(band_format_type, "vips_band_format_get_type")
    CVIPS_RESOLVE(foreign_find_load, "vips_foreign_find_load")
    CVIPS_RESOLVE(image_new_from_file, "vips_image_new_from_file")
    CVIPS_RESOLVE(image_get_typeof, "vips_image_get_typeof")
    CVIPS_RESOLVE(image_get_int, "vips_image_get_int")
    CVIPS_RESOLVE(image_get_string, "vips_image_get_string")
    CVIPS_RESOLVE(image_get_blob, "vips_image_get_blob")
    CVIPS_RESOLVE(image_get_width, "vips_image_get_width")
    CVIPS_RESOLVE(image_get_height, "vips_image_get_height")
    CVIPS_RESOLVE(image_get_bands, "vips_image_get_bands")
    CVIPS_RESOLVE(image_get_format, "vips_image_get_format")
    CVIPS_RESOLVE(image_get_n_pages, "vips_image_get_n_pages")
    CVIPS_RESOLVE(image_hasalpha, "vips_image_hasalpha")
    CVIPS_RESOLVE(format_sizeof, "vips_format_sizeof")
    CVIPS_RESOLVE(thumbnail, "vips_thumbnail")
    CVIPS_RESOLVE(thumbnail_buffer, "vips_thumbnail_buffer")
    CVIPS_RESOLVE(image_set_int, "vips_image_set_int")
    CVIPS_RESOLVE(colourspace, "vips_colourspace")
    CVIPS_RESOLVE(cast, "vips_cast")
    CVIPS_RESOLVE(autorot, "vips_autorot")
    CVIPS_RESOLVE(jpegsave_buffer, "vips_jpegsave_buffer")
    CVIPS_RESOLVE(pngsave_buffer, "vips_pngsave_buffer")
    CVIPS_RESOLVE(webpsave_buffer, "vips_webpsave_buffer")
    CVIPS_RESOLVE(image_write_to_memory, "vips_image_write_to_memory")
    CVIPS_RESOLVE(image_set_kill, "vips_image_set_kill")
    CVIPS_RESOLVE(g_free, "g_free")
    CVIPS_RESOLVE(g_object_unref, "g_object_unref")
    CVIPS_RESOLVE(g_module_open, "g_module_open")
    CVIPS_RESOLVE(g_module_make_resident, "g_module_make_resident")

    int major = vips.version(0), minor = vips.version(1);
    if (major != 8 || minor < 12) {
        char found[32];
        snprintf(found, sizeof found, "found %d.%d", major, minor);
        return cvips_fail(error, capacity, "libvips 8.12 or a later 8.x is needed", found);
    }
    // vips_init loads every module in $VIPSHOME's library folder: Debian's are HEIF, JPEG XL,
    // ImageMagick, OpenSlide and Poppler, with the libraries each links (about 7 MB of a
    // gallery's peak, and code no image the store accepts needs). A prefix under /dev/null
    // names a folder that cannot exist, so none loads; the HEIF module is loaded below.
    // vips_init itself sets VIPSHOME when it is unset, at this same moment, so setting it here
    // adds no kind of environment write the program did not already make. It is put back as
    // it was once libvips has started (libvips keeps the folder it worked out), so the
    // programs the store starts (ffmpeg, pdftoppm; vips in the tests) see the environment given.
    const char *given = getenv("VIPSHOME");
    char *saved = given ? strdup(given) : NULL;
    if ((given && !saved) || setenv("VIPSHOME", "/dev/null", 1) != 0) {
        free(saved);
        return cvips_fail(error, capacity, "cannot set VIPSHOME", strerror(errno));
    }
    int started = vips.init(argv0);
    int restored = saved ? setenv("VIPSHOME", saved, 1) : unsetenv("VIPSHOME");
    free(saved);
    if (started != 0) return cvips_fail(error, capacity, "vips_init failed", vips.error_buffer());
    if (restored != 0) return cvips_fail(error, capacity, "cannot restore VIPSHOME", strerror(errno));
    cvips_load_heif_module(major, minor);
    if (cvips_nick(vips.access_type(), "sequential", &option.access_sequential, error, capacity) != 0) return -1;
    if (cvips_nick(vips.access_type(), "random", &option.access_random, error, capacity) != 0) return -1;
    if (cvips_nick(vips.fail_on_type(), "error", &option.fail_on_error, error, capacity) != 0) return -1;
    if (cvips_nick(vips.size_type(), "down", &option.size_down, error, capacity) != 0) return -1;
    if (cvips_nick(vips.interpretation_type(), "srgb", &option.srgb, error, capacity) != 0) return -1;
    if (cvips_nick(vips.band_format_type(), "uchar", &option.uchar, error, capacity) != 0) return -1;
    option.keep = minor >= 15;

    vips.log_set_handler("VIPS", cvips_quiet_levels, cvips_drop_log, NULL);
    vips.cache_set_max(0);
    vips.cache_set_max_mem(0);
    vips.cache_set_max_files(0);
    vips.block_untrusted_set(1);
    vips.concurrency_set(1);
    return 0;
}

const char *cvips_last_error(void) { return vips.error_buffer ? vips.error_buffer() : ""; }
void cvips_clear_error(void) { if (vips.error_clear) vips.error_clear(); }
const char *cvips_find_loader(const char *path) { return vips.foreign_find_load(path); }

VipsImage *cvips_open_header(const char *path) {
    return vips.image_new_from_file(path, "access", option.access_sequential, "fail_on", option.fail_on_error, NULL);
}

VipsImage *cvips_open_full(const char *path) {
    return vips.image_new_from_file(path, "access", option.access_random, "fail_on", option.fail_on_error, NULL);
}

int cvips_get_int(VipsImage *image, const char *name, int *out) {
    if (vips.image_get_typeof(image, name) == 0) return 0;
    return vips.image_get_int(image, name, out) == 0 ? 1 : 0;
}

const char *cvips_get_string(VipsImage *image, const char *name) {
    const char *out = NULL;
    if (vips.image_get_typeof(image, name) == 0) return NULL;
    if (vips.image_get_string(image, name, &out) != 0) return NULL;
    return out;
}

const void *cvips_get_blob(VipsImage *image, const char *name, size_t *length) {
    const void *data = NULL;
    *length = 0;
    if (vips.image_get_typeof(image, name) == 0) return NULL;
    if (vips.image_get_blob(image, name, &data, length) != 0) { *length = 0; return NULL; }
    return data;
}

int cvips_width(VipsImage *image) { return vips.image_get_width(image); }
int cvips_height(VipsImage *image) { return vips.image_get_height(image); }
int cvips_bands(VipsImage *image) { return vips.image_get_bands(image); }
int cvips_bytes_per_band(VipsImage *image) { return (int)vips.format_sizeof(vips.image_get_format(image)); }
int cvips_is_uchar(VipsImage *image) { return vips.image_get_format(image) == option.uchar; }
int cvips_page_count(VipsImage *image) { return vips.image_get_n_pages(image); }
int cvips_has_alpha(VipsImage *image) { return vips.image_hasalpha(image) ? 1 : 0; }

int cvips_thumbnail(const char *path, VipsImage **out, int width, int height) {
    return vips.thumbnail(path, out, width, "height", height, "size", option.size_down,
        "fail_on", option.fail_on_error, NULL);
}

int cvips_thumbnail_embedded(const void *buffer, size_t length, VipsImage **out, int width, int height, int orientation) {
    VipsImage *unrotated = NULL;
    // From a buffer, libvips 8.14 passes the thumbnail's fail_on to the loader only through
    // the loader's option string: without it a truncated preview decodes as grey.
    if (vips.thumbnail_buffer((void *)buffer, length, &unrotated, width, "height", height, "size", option.size_down,
            "no_rotate", 1, "fail_on", option.fail_on_error, "option_string", "fail_on=error", NULL) != 0)
        return -1;
    if (orientation <= 1) {
        *out = unrotated;
        return 0;
    }
    vips.image_set_int(unrotated, "orientation", orientation);
    int status = vips.autorot(unrotated, out, NULL);
    vips.g_object_unref(unrotated);
    return status;
}

int cvips_to_srgb(VipsImage *in, VipsImage **out) { return vips.colourspace(in, out, option.srgb, NULL); }
int cvips_to_uchar(VipsImage *in, VipsImage **out) { return vips.cast(in, out, option.uchar, NULL); }
int cvips_autorotate(VipsImage *in, VipsImage **out) { return vips.autorot(in, out, NULL); }

// "keep" = none (the empty flag set, 0) from 8.15; "strip" = TRUE before it.
int cvips_jpeg(VipsImage *in, void **buffer, size_t *length, int quality) {
    if (option.keep)
        return vips.jpegsave_buffer(in, buffer, length, "Q", quality, "keep", 0, "optimize_coding", 1, NULL);
    return vips.jpegsave_buffer(in, buffer, length, "Q", quality, "strip", 1, "optimize_coding", 1, NULL);
}

int cvips_png(VipsImage *in, void **buffer, size_t *length) {
    if (option.keep) return vips.pngsave_buffer(in, buffer, length, "keep", 0, NULL);
    return vips.pngsave_buffer(in, buffer, length, "strip", 1, NULL);
}

int cvips_webp(VipsImage *in, void **buffer, size_t *length, int quality) {
    if (option.keep) return vips.webpsave_buffer(in, buffer, length, "Q", quality, "keep", 0, NULL);
    return vips.webpsave_buffer(in, buffer, length, "Q", quality, "strip", 1, NULL);
}

void *cvips_write_to_memory(VipsImage *in, size_t *length) { return vips.image_write_to_memory(in, length); }
void cvips_free_buffer(void *buffer) { vips.g_free(buffer); }
void cvips_kill(VipsImage *image) { vips.image_set_kill(image, 1); }
void cvips_unref(VipsImage *image) { if (image) vips.g_object_unref(image); }
