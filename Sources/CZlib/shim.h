// zlib, for the CRC-32 that every ZIP entry carries (the server streams originals as a zip).
#include <zlib.h>
