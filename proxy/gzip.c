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

/* One call of the compressor on in[0, *took) and out[0, *made), which
 * are what it took and made on return; end: in holds the input's end.
 * false on a fault. */
static bool step(struct proxy_gzip *g, const uint8_t *in, uint32_t *took,
		 bool end, uint8_t *out, uint32_t *made)
{
	struct isal_zstream *s = &g->s;
	s->next_in = (uint8_t *)in;
	s->avail_in = *took;
	s->end_of_stream = end;
	s->next_out = out;
	s->avail_out = *made;
	if (isal_deflate(s) != COMP_OK)
		return false;
	*took -= s->avail_in;
	*made -= s->avail_out;
	return true;
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

static bool step(struct proxy_gzip *g, const uint8_t *in, uint32_t *took,
		 bool end, uint8_t *out, uint32_t *made)
{
	z_stream *z = &g->z;
	z->next_in = (Bytef *)in;
	z->avail_in = *took;
	z->next_out = out;
	z->avail_out = *made;
	int rc = deflate(z, end ? Z_FINISH : Z_NO_FLUSH);
	*took -= z->avail_in;
	*made -= z->avail_out;
	if (rc == Z_STREAM_END)
		g->ended = true;
	return rc == Z_OK || rc == Z_BUF_ERROR || rc == Z_STREAM_END;
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

/* Either compressor counts in 32 bits: a larger span goes in turns. */
ssize_t proxy_gzip_put(struct proxy_gzip *g, const void **in, size_t *in_len,
		       bool last, void *out, size_t room)
{
	if (g->failed)
		return -1;
	size_t taken = 0, made = 0;
	while (!proxy_gzip_ended(g) && made < room) {
		size_t left = *in_len - taken;
		uint32_t took = left < UINT32_MAX ? (uint32_t)left : UINT32_MAX;
		uint32_t put = room - made < UINT32_MAX ?
				       (uint32_t)(room - made) :
				       UINT32_MAX;
		if (!step(g, (const uint8_t *)*in + taken, &took,
			  last && took == left, (uint8_t *)out + made, &put)) {
			g->failed = true;
			return -1;
		}
		taken += took;
		made += put;
		if ((taken == *in_len && !last) || (!took && !put))
			break; /* all taken (more comes later), or stuck */
	}
	*in = (const uint8_t *)*in + taken;
	*in_len -= taken;
	return (ssize_t)made;
}
