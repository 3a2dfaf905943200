/*
 * gzip: answers compressed by ISA-L's igzip, or by zlib where ISA-L
 * cannot be linked (see gzip.h).
 *
 * PROXY_GZIP_ZLIB picks zlib. Debian's libisal-dev is not Multi-Arch:
 * same, so a machine has it for one architecture only: the native build
 * links igzip, and the arm64 half of the image, cross-compiled on the
 * same machine, is built with zlib, at its level 1 (the apiserver's),
 * about four times slower (docs/PERFORMANCE.md, "B18"). The same bytes
 * come out of either once inflated; test_gzip checks igzip's streams,
 * test_gzip_zlib the same on zlib's.
 */
#include "proxy/gzip.h"

#include <stdint.h>
#include <stdlib.h>

#include "config/alloc.h"

#ifndef PROXY_GZIP_ZLIB

#include <isa-l/igzip_lib.h>

/* igzip's level 1 with its small hash and token buffer (84 KiB): the
 * LIST of gzip.h took 0.039 s with it, 0.035-0.039 s with its default
 * (276 KiB), and 0.060 s with its least (24 KiB). */
#define LEVEL 1
#define LEVEL_BUF ISAL_DEF_LVL1_SMALL

struct proxy_gzip {
	struct isal_zstream s;
	bool failed;
	uint8_t level_buf[LEVEL_BUF];
};

struct proxy_gzip *proxy_gzip_new(void)
{
	struct proxy_gzip *g = xmalloc(sizeof(*g));
	if (!g)
		return NULL;
	isal_deflate_init(&g->s);
	g->s.gzip_flag = IGZIP_GZIP;
	g->s.level = LEVEL;
	g->s.level_buf = g->level_buf;
	g->s.level_buf_size = LEVEL_BUF;
	g->s.flush = NO_FLUSH;
	g->failed = false;
	return g;
}

ssize_t proxy_gzip_put(struct proxy_gzip *g, const void **in, size_t *in_len,
		       bool last, void *out, size_t room)
{
	if (g->failed)
		return -1;
	struct isal_zstream *s = &g->s;
	size_t taken = 0, made = 0;
	/* igzip counts in 32 bits: a larger span goes in turns */
	do {
		size_t left = *in_len - taken;
		size_t give = left < UINT32_MAX ? left : UINT32_MAX;
		size_t space =
			room - made < UINT32_MAX ? room - made : UINT32_MAX;
		s->next_in = (uint8_t *)*in + taken;
		s->avail_in = (uint32_t)give;
		s->end_of_stream = last && give == left;
		s->next_out = (uint8_t *)out + made;
		s->avail_out = (uint32_t)space;
		if (isal_deflate(s) != COMP_OK) {
			g->failed = true;
			return -1;
		}
		taken += give - s->avail_in;
		made += space - s->avail_out;
		if (s->avail_in || !s->avail_out)
			break; /* out is full */
	} while (taken < *in_len && made < room);
	*in = (const uint8_t *)*in + taken;
	*in_len -= taken;
	return (ssize_t)made;
}

bool proxy_gzip_ended(const struct proxy_gzip *g)
{
	return g->s.internal_state.state == ZSTATE_END;
}

void proxy_gzip_free(struct proxy_gzip *g)
{
	free(g);
}

#else /* PROXY_GZIP_ZLIB */

#include <zlib.h>

struct proxy_gzip {
	z_stream z;
	bool failed, ended;
};

struct proxy_gzip *proxy_gzip_new(void)
{
	struct proxy_gzip *g = xcalloc(1, sizeof(*g));
	if (!g)
		return NULL;
	/* level 1; 31 = 15 window bits and a gzip header */
	if (deflateInit2(&g->z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK) {
		free(g);
		return NULL;
	}
	return g;
}

ssize_t proxy_gzip_put(struct proxy_gzip *g, const void **in, size_t *in_len,
		       bool last, void *out, size_t room)
{
	if (g->failed)
		return -1;
	z_stream *z = &g->z;
	size_t taken = 0, made = 0;
	/* zlib counts in 32 bits: a larger span goes in turns */
	while (!g->ended && made < room) {
		size_t left = *in_len - taken;
		size_t give = left < UINT32_MAX ? left : UINT32_MAX;
		size_t space =
			room - made < UINT32_MAX ? room - made : UINT32_MAX;
		z->next_in = (Bytef *)*in + taken;
		z->avail_in = (uInt)give;
		z->next_out = (Bytef *)out + made;
		z->avail_out = (uInt)space;
		int rc = deflate(z,
				 last && give == left ? Z_FINISH : Z_NO_FLUSH);
		taken += give - z->avail_in;
		made += space - z->avail_out;
		if (rc == Z_STREAM_END) {
			g->ended = true;
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			g->failed = true;
			return -1;
		}
		if (taken == *in_len && !last)
			break; /* all taken; what it holds comes out later */
	}
	*in = (const uint8_t *)*in + taken;
	*in_len -= taken;
	return (ssize_t)made;
}

bool proxy_gzip_ended(const struct proxy_gzip *g)
{
	return g->ended;
}

void proxy_gzip_free(struct proxy_gzip *g)
{
	if (!g)
		return;
	deflateEnd(&g->z);
	free(g);
}

#endif
