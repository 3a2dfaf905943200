/*
 * gunzip: inflate one whole gzip answer body, for the unit tests that
 * ask for Accept-Encoding: gzip and check the bytes under it.
 */
#ifndef TESTS_UNIT_GUNZIP_H
#define TESTS_UNIT_GUNZIP_H

#include <stdbool.h>
#include <zlib.h>

#include "config/buf.h"

/* The gzip stream in in[0..n) inflated onto out; false when it is not
 * one whole gzip stream. */
static bool gunzip(const char *in, size_t n, struct buf *out)
{
	z_stream z = { 0 };
	if (inflateInit2(&z, 31) != Z_OK)
		return false;
	char chunk[65536];
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	int rc;
	do {
		z.next_out = (Bytef *)chunk;
		z.avail_out = sizeof(chunk);
		rc = inflate(&z, Z_NO_FLUSH);
		buf_add(out, chunk, sizeof(chunk) - z.avail_out);
	} while (rc == Z_OK);
	inflateEnd(&z);
	return rc == Z_STREAM_END && z.avail_in == 0;
}

#endif
