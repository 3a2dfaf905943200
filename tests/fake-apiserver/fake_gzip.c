/*
 * fake_gzip: gzip response bodies, as the apiserver's compression filter
 * does: only when the client sends
 * Accept-Encoding: gzip and the body is over 128 KiB; smaller bodies go
 * out as they are.
 */
#include "fake_http.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "config/alloc.h"

#define GZIP_MIN (128u << 10)

static struct {
	int (*init2)(z_streamp, int, int, int, int, int, const char *, int);
	int (*deflate)(z_streamp, int);
	int (*end)(z_streamp);
	uLong (*bound)(z_streamp, uLong);
} z;
static pthread_once_t z_once = PTHREAD_ONCE_INIT;

static void z_load(void)
{
	z.init2 = deflateInit2_;
	z.deflate = deflate;
	z.end = deflateEnd;
	z.bound = deflateBound;
}

/* Whether Accept-Encoding lists gzip (without q=0). */
static bool accepts_gzip(struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "Accept-Encoding");
	for (const char *p = h; p && *p;) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t n = strcspn(p, ",;");
		const char *end = p + strcspn(p, ",");
		if ((n == 4 && strncasecmp(p, "gzip", 4) == 0) ||
		    (n == 1 && *p == '*')) {
			const char *q = strstr(p, "q=");
			if (!q || q > end || strtod(q + 2, NULL) > 0)
				return true;
		}
		p = end;
	}
	return false;
}

char *fake_gzip_maybe(struct MHD_Connection *c, char *body, size_t *len,
		      bool *gzipped)
{
	z_stream s;
	char *out;

	*gzipped = false;
	if (*len <= GZIP_MIN || !accepts_gzip(c))
		return body;
	pthread_once(&z_once, z_load);
	if (!z.init2 || !z.deflate || !z.end || !z.bound)
		return body;
	memset(&s, 0, sizeof(s));
	/* 15 + 16: a gzip wrapper; level 4, close to Go's default speed */
	if (z.init2(&s, 4, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
		    ZLIB_VERSION, (int)sizeof(s)) != Z_OK)
		return body;
	uLong cap = z.bound(&s, (uLong)*len) + 32;
	if (!(out = xmalloc(cap))) {
		z.end(&s);
		return body;
	}
	s.next_in = (Bytef *)body;
	s.avail_in = (uInt)*len;
	s.next_out = (Bytef *)out;
	s.avail_out = (uInt)cap;
	int rc = z.deflate(&s, Z_FINISH);
	size_t n = cap - s.avail_out;
	z.end(&s);
	if (rc != Z_STREAM_END) {
		free(out);
		return body;
	}
	free(body);
	*len = n;
	*gzipped = true;
	return out;
}
