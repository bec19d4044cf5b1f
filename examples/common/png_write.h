/* png_write.h - writes an 8-bit RGB image as a PNG file (no compression),
 * without libpng. Returns 0 on success. */
#ifndef OPENHSA_EXAMPLES_PNG_WRITE_H
#define OPENHSA_EXAMPLES_PNG_WRITE_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
int png_write_rgb(const char *path, const uint8_t *rgb, uint32_t width,
                  uint32_t height);
#ifdef __cplusplus
}
#endif
#endif
