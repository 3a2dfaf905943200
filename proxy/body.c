/*
 * body: buffers and gzip for responses (see body.h).
 */
#include "proxy/body.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "config/alloc.h"
#include "config/limits.h"
#include "proxy/pretty.h"
#include "proxy/status.h"
#include "proxy/request.h"

bool proxy_gzip_wanted(struct MHD_Connection *c, size_t len)
{
	return len > PROXY_GZIP_MIN &&
	       proxy_gzip_accepted(MHD_lookup_connection_value(
		       c, MHD_HEADER_KIND, "Accept-Encoding"));
}

bool proxy_gzip_accepted(const char *ae)
{
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
	struct MHD_Response *resp = proxy_request_owned((char *)out, len);
	if (!resp)
		return NULL;
	MHD_add_response_header(resp, "Content-Encoding", "gzip");
	MHD_add_response_header(resp, "Vary", "Accept-Encoding");
	return resp;
}

/* The gzip of b when this client takes it and b is large enough, else
 * NULL (b is left as it is either way). */
static struct MHD_Response *gzip_buf(struct MHD_Connection *c,
				     const struct buf *b)
{
	if (!proxy_gzip_wanted(c, b->len))
		return NULL;
	struct MHD_IoVec v = { b->p, b->len };
	return proxy_gzip_response(&v, 1, b->len);
}

/* Queue resp (NULL: it could not be built) as a JSON answer. */
static enum MHD_Result send_json(struct MHD_Connection *c, unsigned code,
				 struct MHD_Response *resp)
{
	if (resp)
		proxy_json_headers(resp);
	return proxy_request_queue(c, code, resp);
}

enum MHD_Result proxy_send_buf(struct MHD_Connection *c, unsigned code,
			       struct buf *body)
{
	if (buf_ok(body) && proxy_pretty_wanted(c))
		proxy_pretty_body(body);
	if (!buf_ok(body)) {
		buf_free(body);
		return MHD_NO;
	}
	struct MHD_Response *resp = gzip_buf(c, body);
	if (!resp)
		resp = proxy_request_from_buf(body);
	buf_free(body);
	return send_json(c, code, resp);
}

void proxy_pieces_add(struct proxy_pieces *pc, const void *p, size_t len)
{
	if (pc->failed || !len)
		return;
	if (pc->n == pc->cap) {
		size_t cap = pc->cap ? pc->cap * 2 : 256;
		struct MHD_IoVec *v = xrealloc(pc->v, cap * sizeof(*v));
		if (!v) {
			pc->failed = true;
			return;
		}
		pc->v = v;
		pc->cap = cap;
	}
	pc->v[pc->n].iov_base = p;
	pc->v[pc->n].iov_len = len;
	pc->n++;
	pc->total += len;
}

#define IOV_PIECES_MAX 1024    /* IOV_MAX on Linux */
#define SMALL_BODY (64 * 1024) /* copied: cheaper than a second send */

/* The reader of a body of many pieces, and its owner's release. */
struct pieces_reader {
	struct proxy_pieces pc;
	size_t at, off;
	void (*done)(void *cls);
	void *cls;
};

static ssize_t pieces_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct pieces_reader *pr = cls;
	size_t n = 0;
	while (n < max && pr->at < pr->pc.n) {
		const struct MHD_IoVec *v = &pr->pc.v[pr->at];
		size_t k = v->iov_len - pr->off;
		if (k > max - n)
			k = max - n;
		memcpy(buf + n, (const char *)v->iov_base + pr->off, k);
		n += k;
		pr->off += k;
		if (pr->off == v->iov_len) {
			pr->at++;
			pr->off = 0;
		}
	}
	return n ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

static void pieces_free(void *cls)
{
	struct pieces_reader *pr = cls;
	pr->done(pr->cls);
	free(pr->pc.v);
	free(pr);
}

/*
 * Pretty-printing copies a whole LIST, twice, and the copy lives until a
 * slow client has read it: the bytes that may be held so are bounded.
 * Past the bound the answer goes out compact, the same JSON, straight
 * from the cache. Atomic.
 */
static size_t pretty_held;

static bool pretty_take(size_t n)
{
	size_t cur = __atomic_load_n(&pretty_held, __ATOMIC_RELAXED);
	do {
		if (cur + n > LIMIT_PRETTY_HELD_BYTES && cur)
			return false; /* one may always go, however large */
	} while (!__atomic_compare_exchange_n(&pretty_held, &cur, cur + n, true,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return true;
}

struct pretty_body {
	char *p;
	size_t charge;
};

static void pretty_free(void *cls)
{
	struct pretty_body *pb = cls;
	__atomic_sub_fetch(&pretty_held, pb->charge, __ATOMIC_ACQ_REL);
	free(pb->p);
	free(pb);
}

/* Indent b and send it; the charge is given back when the response is
 * gone (a gzip response holds only the compressed copy: at once).
 * Consumes b. */
static enum MHD_Result send_pretty(struct MHD_Connection *c, struct buf *b,
				   size_t charge)
{
	struct MHD_Response *resp = NULL;
	struct pretty_body *pb = NULL;
	if (buf_ok(b))
		proxy_pretty_body(b);
	if (buf_ok(b) && (resp = gzip_buf(c, b))) {
		/* sent compressed; b is freed below */
	} else if (buf_ok(b) && (pb = xmalloc(sizeof(*pb)))) {
		size_t len;
		pb->p = buf_steal(b, &len);
		pb->charge = charge;
		resp = MHD_create_response_from_buffer_with_free_callback_cls(
			len, pb->p, pretty_free, pb);
		if (!resp)
			pretty_free(pb);
		charge = 0; /* pretty_free gives it back */
	}
	buf_free(b);
	__atomic_sub_fetch(&pretty_held, charge, __ATOMIC_ACQ_REL);
	return send_json(c, MHD_HTTP_OK, resp);
}

enum MHD_Result proxy_send_pieces(struct MHD_Connection *c,
				  struct proxy_pieces *pc,
				  void (*done)(void *cls), void *cls)
{
	struct MHD_Response *resp = NULL;
	struct pieces_reader *pr = NULL;
	size_t charge = 3 * pc->total; /* gathered, then about twice that */
	if (!pc->failed && proxy_pretty_wanted(c) && pretty_take(charge)) {
		/* pretty-printed for people: gathered, re-indented, sent */
		struct buf b = BUF_INIT;
		for (size_t i = 0; i < pc->n; i++)
			buf_add(&b, pc->v[i].iov_base, pc->v[i].iov_len);
		done(cls);
		free(pc->v);
		pc->v = NULL;
		return send_pretty(c, &b, charge);
	}
	if (pc->failed) {
		/* nothing */
	} else if (proxy_gzip_wanted(c, pc->total)) {
		resp = proxy_gzip_response(pc->v, pc->n, pc->total);
	} else if (pc->total <= SMALL_BODY) {
		/* One copy buys one send: libmicrohttpd writes the headers and
		 * a buffer body in one call, but an iovec body in a second. */
		char *p = xmalloc(pc->total ? pc->total : 1);
		for (size_t i = 0, at = 0; p && i < pc->n; i++) {
			memcpy(p + at, pc->v[i].iov_base, pc->v[i].iov_len);
			at += pc->v[i].iov_len;
		}
		resp = p ? MHD_create_response_from_buffer(
				   pc->total, p, MHD_RESPMEM_MUST_FREE) :
			   NULL;
		if (!resp)
			free(p);
	} else if (pc->n <= IOV_PIECES_MAX) {
		resp = MHD_create_response_from_iovec(pc->v, (unsigned)pc->n,
						      done, cls);
		if (resp)
			done = NULL; /* the response calls it */
	} else if ((pr = xmalloc(sizeof(*pr)))) {
		*pr = (struct pieces_reader){ *pc, 0, 0, done, cls };
		resp = MHD_create_response_from_callback(
			pc->total, 64 * 1024, pieces_read, pr, pieces_free);
		if (resp) {
			done = NULL;
			pc->v = NULL; /* the reader owns the vector */
		} else {
			free(pr);
		}
	}
	if (done)
		done(cls);
	free(pc->v); /* MHD copies an iovec response's vector */
	pc->v = NULL;
	return send_json(c, MHD_HTTP_OK, resp);
}
