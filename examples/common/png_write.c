/* png_write.c - a minimal PNG writer: IHDR, IDAT holding a zlib stream of
 * "stored" (uncompressed) deflate blocks, IEND. Each chunk carries its
 * CRC-32; the zlib stream its Adler-32. */
#include "png_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[256];

static void crc_init(void) {
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[n] = c;
  }
}

static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

static void put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static int write_chunk(FILE *f, const char *type, const uint8_t *data,
                       uint32_t len) {
  uint8_t head[8];
  put_be32(head, len);
  memcpy(head + 4, type, 4);
  uint32_t crc = crc_update(0xffffffffu, head + 4, 4);
  crc = crc_update(crc, data, len) ^ 0xffffffffu;
  uint8_t tail[4];
  put_be32(tail, crc);
  return fwrite(head, 1, 8, f) == 8 && fwrite(data, 1, len, f) == len &&
                 fwrite(tail, 1, 4, f) == 4
             ? 0
             : -1;
}

int png_write_rgb(const char *path, const uint8_t *rgb, uint32_t width,
                  uint32_t height) {
  crc_init();
  const size_t row = (size_t)width * 3 + 1; /* Filter byte + pixels. */
  const size_t raw_len = row * height;
  const size_t blocks = (raw_len + 65534) / 65535;
  const size_t z_len = 2 + raw_len + blocks * 5 + 4;
  uint8_t *z = malloc(z_len);
  uint8_t *raw = malloc(raw_len);
  if (!z || !raw) {
    free(z);
    free(raw);
    return -1;
  }
  for (uint32_t y = 0; y < height; ++y) {
    raw[y * row] = 0; /* Filter: none. */
    memcpy(raw + y * row + 1, rgb + (size_t)y * width * 3, (size_t)width * 3);
  }
  size_t pos = 0;
  z[pos++] = 0x78; /* zlib header: deflate, 32K window. */
  z[pos++] = 0x01;
  uint32_t a = 1, b = 0;
  for (size_t off = 0; off < raw_len;) {
    size_t n = raw_len - off < 65535 ? raw_len - off : 65535;
    z[pos++] = off + n == raw_len; /* BFINAL, BTYPE = stored. */
    z[pos++] = (uint8_t)n;
    z[pos++] = (uint8_t)(n >> 8);
    z[pos++] = (uint8_t)~n;
    z[pos++] = (uint8_t)(~n >> 8);
    memcpy(z + pos, raw + off, n);
    for (size_t i = 0; i < n; ++i) {
      a = (a + raw[off + i]) % 65521;
      b = (b + a) % 65521;
    }
    pos += n;
    off += n;
  }
  put_be32(z + pos, (b << 16) | a);
  pos += 4;

  FILE *f = fopen(path, "wb");
  int rc = -1;
  if (f) {
    static const uint8_t signature[8] = {0x89, 'P',  'N',  'G',
                                         '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    put_be32(ihdr, width);
    put_be32(ihdr + 4, height);
    ihdr[8] = 8;  /* Bit depth. */
    ihdr[9] = 2;  /* Colour type: RGB. */
    ihdr[10] = 0; /* Compression, filter, interlace: defaults. */
    ihdr[11] = 0;
    ihdr[12] = 0;
    rc = fwrite(signature, 1, 8, f) == 8 && !write_chunk(f, "IHDR", ihdr, 13) &&
                 !write_chunk(f, "IDAT", z, (uint32_t)pos) &&
                 !write_chunk(f, "IEND", NULL, 0)
             ? 0
             : -1;
    rc |= fclose(f);
  }
  free(z);
  free(raw);
  return rc;
}
