/*
 * body: buffers and gzip for responses (see body.h).
 */
#include "proxy/body.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "config/alloc.h"
#include "proxy/status.h"

bool proxy_gzip_wanted(struct MHD_Connection *c, size_t len)
{
	if (len <= PROXY_GZIP_MIN)
		return false;
	const char *ae = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     "Accept-Encoding");
	/* codings separated by commas, each maybe with ;q=WEIGHT */
	for (const char *p = ae; p && *p;) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t n = strcspn(p, ",");
		size_t name = strcspn(p, " ;,");
		bool gzip = (name == 4 && !strncasecmp(p, "gzip", 4)) ||
			    (name == 1 && *p == '*');
		if (gzip) {
			const char *q = strstr(p, ";q=");
			return !q || q > p + n || strtod(q + 3, NULL) > 0;
		}
		p += n;
	}
	return false;
}

struct MHD_Response *proxy_gzip_response(const struct MHD_IoVec *v, size_t n,
					 size_t total)
{
	z_stream z = { 0 };
	/* level 1 as the apiserver; 31 = 15 window bits + gzip header */
	if (deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	size_t cap = deflateBound(&z, (uLong)total);
	unsigned char *out = xmalloc(cap);
	if (!out) {
		deflateEnd(&z);
		return NULL;
	}
	z.next_out = out;
	z.avail_out = (uInt)cap;
	int rc = Z_OK;
	for (size_t i = 0; i < n && rc == Z_OK; i++) {
		z.next_in = (Bytef *)v[i].iov_base;
		z.avail_in = (uInt)v[i].iov_len;
		rc = deflate(&z, i + 1 == n ? Z_FINISH : Z_NO_FLUSH);
		if (rc == Z_BUF_ERROR && z.avail_in == 0)
			rc = Z_OK;
	}
	size_t len = cap - z.avail_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(len, out, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(out);
		return NULL;
	}
	MHD_add_response_header(resp, "Content-Encoding", "gzip");
	MHD_add_response_header(resp, "Vary", "Accept-Encoding");
	return resp;
}

enum MHD_Result proxy_send_buf(struct MHD_Connection *c, unsigned code,
			       struct buf *body)
{
	if (!buf_ok(body)) {
		buf_free(body);
		return MHD_NO;
	}
	struct MHD_Response *resp;
	if (proxy_gzip_wanted(c, body->len)) {
		struct MHD_IoVec v = { body->p, body->len };
		resp = proxy_gzip_response(&v, 1, body->len);
		buf_free(body);
	} else {
		size_t len;
		char *p = buf_steal(body, &len);
		resp = MHD_create_response_from_buffer(len, p, MHD_RESPMEM_MUST_FREE);
		if (!resp)
			free(p);
	}
	if (!resp)
		return MHD_NO;
	proxy_json_headers(resp);
	enum MHD_Result r = MHD_queue_response(c, code, resp);
	MHD_destroy_response(resp);
	return r;
}
