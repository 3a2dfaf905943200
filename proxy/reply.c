/*
 * reply: every answer the proxy builds itself, from its body to the
 * queued response (see reply.h).
 *
 * Order of the file: the request headers that shape an answer (pretty,
 * gzip), the plain responses, gzip, bodies from a buffer, bodies from
 * pieces (copied, iovec, or read in blocks; indented while sent by
 * reply_pretty.c), rendered bodies, and Status errors.
 */
#include "proxy/reply.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/json.h"
#include "config/alloc.h"
#include "proxy/gzip.h"
#include "proxy/pretty.h"
#include "proxy/protobuf.h"
#include "proxy/reply_int.h"
#include "proxy/table/table.h"
#include "proxy/yaml.h"

/* ---- what the request asks of the answer ---- */

/* The request this thread answers is a HEAD (proxy_reply_set_head). */
static __thread bool reply_head;

void proxy_reply_set_head(bool head)
{
	reply_head = head;
}

bool reply_is_head(void)
{
	return reply_head;
}

/* The helpers that indent large Lists ahead of their sender on this
 * thread's requests (proxy_reply_set_ahead), or NULL. */
static __thread struct proxy_ahead_pool *reply_ahead;

void proxy_reply_set_ahead(struct proxy_ahead_pool *pool)
{
	reply_ahead = pool;
}

/* The request this thread answers negotiated protobuf (enum
 * proxy_pb_form; proxy_reply_set_protobuf). */
static __thread int reply_pb;

void proxy_reply_set_protobuf(int form)
{
	reply_pb = form;
}

int proxy_reply_protobuf(void)
{
	return reply_pb;
}

static void pb_headers(struct MHD_Response *resp, const char *type)
{
	MHD_add_response_header(resp, "Content-Type", type);
	MHD_add_response_header(resp, "Cache-Control", "no-cache, private");
}

/* What a HEAD gets for a body of unknown size: none at all. Sent from a
 * callback of unknown size, libmicrohttpd would announce it chunked and
 * send its last chunk, a stray body on a kept-alive connection. */
struct MHD_Response *reply_headless(void)
{
	return MHD_create_response_from_buffer(0, (void *)"",
					       MHD_RESPMEM_PERSISTENT);
}

/* Whether the answer to this request is to be indented (pretty.h says
 * for whom). */
static bool pretty_wanted(struct MHD_Connection *c)
{
	if (reply_pb) /* protobuf has no indented form */
		return false;
	return proxy_pretty_asked(
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "pretty"),
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "User-Agent"));
}

static bool gzip_taken(struct MHD_Connection *c)
{
	return proxy_reply_gzip_accepted(MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, "Accept-Encoding"));
}

/* True when a body of len bytes should be compressed for this client. */
static bool gzip_wanted(struct MHD_Connection *c, size_t len)
{
	return len > PROXY_REPLY_GZIP_MIN && gzip_taken(c);
}

/* ---- plain responses ---- */

enum MHD_Result proxy_reply_queue(struct MHD_Connection *c, unsigned code,
				  struct MHD_Response *resp)
{
	if (!resp)
		return MHD_NO;
	enum MHD_Result r = MHD_queue_response(c, code, resp);
	MHD_destroy_response(resp);
	return r;
}

struct MHD_Response *proxy_reply_owned(char *p, size_t len)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(len, p, MHD_RESPMEM_MUST_FREE);
	if (!resp)
		free(p);
	return resp;
}

struct MHD_Response *proxy_reply_from_buf(struct buf *b)
{
	if (!buf_ok(b)) {
		buf_free(b);
		return NULL;
	}
	size_t len;
	char *p = buf_steal(b, &len);
	return proxy_reply_owned(p, len);
}

enum MHD_Result proxy_reply_text(struct MHD_Connection *c, unsigned code,
				 const char *type, const char *body)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	if (resp) {
		MHD_add_response_header(resp, "Content-Type", type);
		MHD_add_response_header(resp, "Cache-Control",
					"no-cache, private");
		MHD_add_response_header(resp, "X-Content-Type-Options",
					"nosniff");
	}
	return proxy_reply_queue(c, code, resp);
}

void proxy_reply_json_headers(struct MHD_Response *resp)
{
	MHD_add_response_header(resp, "Content-Type", "application/json");
	MHD_add_response_header(resp, "Cache-Control", "no-cache, private");
}

static void yaml_headers(struct MHD_Response *resp)
{
	MHD_add_response_header(resp, "Content-Type", "application/yaml");
	MHD_add_response_header(resp, "Cache-Control", "no-cache, private");
}

bool proxy_reply_yaml_wanted(struct MHD_Connection *c)
{
	struct proxy_table_format f;
	if (reply_pb)
		return false;
	return !proxy_table_format_negotiate(c, &f) && f.yaml;
}

/* ---- gzip ---- */


bool proxy_reply_gzip_accepted(const char *ae)
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

struct MHD_Response *proxy_reply_gzip(const struct MHD_IoVec *v, size_t n,
				      size_t total)
{
	struct proxy_gzip *g = proxy_gzip_new();
	if (!g)
		return NULL;
	/* JSON shrinks to a tenth or less; grown when it does not */
	size_t cap = total / 8 + 4096, len = 0, i = 0;
	char *out = xmalloc(cap);
	if (!out)
		goto fail;
	const void *in = n ? v[0].iov_base : NULL;
	size_t in_len = n ? v[0].iov_len : 0;
	while (!proxy_gzip_ended(g)) {
		while (!in_len && i + 1 < n) {
			i++;
			in = v[i].iov_base;
			in_len = v[i].iov_len;
		}
		if (len == cap) {
			char *more = xrealloc(out, cap * 2);
			if (!more)
				goto fail;
			out = more;
			cap *= 2;
		}
		ssize_t k = proxy_gzip_put(g, &in, &in_len, i + 1 >= n,
					   out + len, cap - len);
		if (k < 0)
			goto fail;
		len += (size_t)k;
	}
	proxy_gzip_free(g);
	struct MHD_Response *resp = proxy_reply_owned(out, len);
	if (!resp)
		return NULL;
	MHD_add_response_header(resp, "Content-Encoding", "gzip");
	MHD_add_response_header(resp, "Vary", "Accept-Encoding");
	return resp;
fail:
	proxy_gzip_free(g);
	free(out);
	return NULL;
}

/* The gzip of b when this client takes it and b is large enough, else
 * NULL (b is left as it is either way). */
static struct MHD_Response *gzip_buf(struct MHD_Connection *c,
				     const struct buf *b)
{
	if (!gzip_wanted(c, b->len))
		return NULL;
	struct MHD_IoVec v = { b->p, b->len };
	return proxy_reply_gzip(&v, 1, b->len);
}

/* Queue resp (NULL: it could not be built) as a JSON answer, or a
 * protobuf one when the request negotiated protobuf. */
static enum MHD_Result send_json(struct MHD_Connection *c, unsigned code,
				 struct MHD_Response *resp)
{
	if (resp && reply_pb)
		pb_headers(resp, PROXY_PB_MEDIA);
	else if (resp)
		proxy_reply_json_headers(resp);
	return proxy_reply_queue(c, code, resp);
}

/* body (taken over) as JSON, indented as wanted, or as it is as YAML. */
static enum MHD_Result send_buf(struct MHD_Connection *c, unsigned code,
				struct buf *body, bool yaml)
{
	if (!yaml && buf_ok(body) && pretty_wanted(c))
		proxy_pretty_body(body);
	if (!buf_ok(body)) {
		buf_free(body);
		return MHD_NO;
	}
	struct MHD_Response *resp = gzip_buf(c, body);
	if (!resp)
		resp = proxy_reply_from_buf(body);
	buf_free(body);
	if (!yaml)
		return send_json(c, code, resp);
	if (resp)
		yaml_headers(resp);
	return proxy_reply_queue(c, code, resp);
}

enum MHD_Result proxy_reply_buf(struct MHD_Connection *c, unsigned code,
				struct buf *body)
{
	return send_buf(c, code, body, false);
}

enum MHD_Result proxy_reply_yaml(struct MHD_Connection *c, unsigned code,
				 struct buf *json)
{
	struct buf y = BUF_INIT;
	int r = buf_ok(json) ? proxy_yaml_from_json(&y, json->p, json->len) :
			       -ENOMEM;
	buf_free(json);
	if (r) {
		buf_free(&y);
		return r == -ENOMEM ?
			       MHD_NO :
			       proxy_reply_error(
				       c, PROXY_InternalError,
				       "the object could not be written as YAML");
	}
	return send_buf(c, code, &y, true);
}

void proxy_reply_pieces_add(struct proxy_reply_pieces *pc, const void *p,
			    size_t len)
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

void proxy_reply_pieces_add_item(struct proxy_reply_pieces *pc, const void *p,
				 size_t len, uint32_t *kept)
{
	size_t at = pc->n;
	proxy_reply_pieces_add(pc, p, len);
	if (pc->n == at)
		return; /* empty, or out of memory */
	if (pc->kcap < pc->cap) {
		/* the slots are a help, not the body: none when short */
		uint32_t **k = xrealloc(pc->kept, pc->cap * sizeof(*k));
		if (!k)
			return;
		memset(k + pc->kcap, 0, (pc->cap - pc->kcap) * sizeof(*k));
		pc->kept = k;
		pc->kcap = pc->cap;
	}
	pc->kept[at] = kept;
}

/* libmicrohttpd copies an iovec response's vector (16 bytes a piece)
 * into the connection's pool, 16 KiB by default (--connection-memory-kib):
 * a quarter of it at most, more pieces go the copying reader's way */
#define IOV_PIECES_MAX 256
#define SMALL_BODY (64 * 1024) /* copied: cheaper than a second send */

/* The reader of a body of many pieces, and its owner's release. */
struct pieces_reader {
	struct proxy_reply_pieces pc;
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

enum MHD_Result proxy_reply_pieces(struct MHD_Connection *c,
				   struct proxy_reply_pieces *pc,
				   void (*done)(void *cls), void *cls)
{
	struct MHD_Response *resp = NULL;
	struct pieces_reader *pr = NULL;
	uint32_t **kept = pc->kept; /* the reader's, or freed here */
	size_t kcap = pc->kcap;
	pc->kept = NULL;
	pc->kcap = 0;
	if (!pc->failed && pretty_wanted(c)) {
		if (pc->total > PROXY_REPLY_GZIP_MIN) {
			/* indented while sent: the output is longer than the
			 * input, so over the gzip threshold too */
			resp = reply_pretty_pieces(pc, kept, kcap,
						   gzip_taken(c), reply_ahead,
						   done, cls);
			kept = NULL; /* the reader's, or freed */
			if (resp) {
				pc->v = NULL; /* the reader owns the vector */
				return send_json(c, MHD_HTTP_OK, resp);
			}
		} else {
			free(kept);
			/* small: indented into one buffer, which then
			 * decides on gzip by its own length */
			struct buf b = BUF_INIT;
			for (size_t i = 0; i < pc->n; i++)
				buf_add(&b, pc->v[i].iov_base,
					pc->v[i].iov_len);
			done(cls);
			free(pc->v);
			pc->v = NULL;
			return proxy_reply_buf(c, MHD_HTTP_OK, &b);
		}
	}
	free(kept); /* not indented (or not built): unread */
	if (pc->failed) {
		/* nothing */
	} else if (gzip_wanted(c, pc->total)) {
		if (pc->total <= PIECES_BLOCK) {
			resp = proxy_reply_gzip(pc->v, pc->n, pc->total);
		} else if ((resp = reply_gzip_pieces(pc, done, cls))) {
			/* compressed as it is sent, as the apiserver streams
			 * a large answer: a client that reads slowly holds
			 * its gzip stream (gzip.h), not a compressed copy of
			 * a LIST of any size; the reader owns the vector */
			done = NULL;
			pc->v = NULL;
		}
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
			pc->total, PIECES_BLOCK, pieces_read, pr, pieces_free);
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

static enum MHD_Result render(struct MHD_Connection *c,
			      bool (*fill)(void *cls, struct buf *b,
					   size_t want),
			      void *cls, void (*done)(void *cls), bool yaml)
{
	/* The first bytes decide as for a body built whole: one that ends
	 * within PROXY_REPLY_GZIP_MIN goes as a buffer (pretty and gzip as
	 * proxy_reply_buf does); a longer one, indented or not, is over
	 * the gzip threshold and is sent as it is made. */
	struct buf b = BUF_INIT;
	bool more = true;
	while (more && buf_ok(&b) && b.len <= PROXY_REPLY_GZIP_MIN)
		more = fill(cls, &b, RENDER_PART);
	if (!more || !buf_ok(&b)) {
		done(cls);
		return send_buf(c, MHD_HTTP_OK, &b, yaml);
	}
	/* the first part, sent first */
	struct MHD_Response *resp = reply_pretty_render(
		&b, fill, cls, done, !yaml && pretty_wanted(c), gzip_taken(c));
	if (!resp) {
		buf_free(&b);
		done(cls);
		return MHD_NO;
	}
	if (!yaml)
		return send_json(c, MHD_HTTP_OK, resp);
	yaml_headers(resp);
	return proxy_reply_queue(c, MHD_HTTP_OK, resp);
}

enum MHD_Result proxy_reply_render(struct MHD_Connection *c,
				   bool (*fill)(void *cls, struct buf *b,
						size_t want),
				   void *cls, void (*done)(void *cls))
{
	return render(c, fill, cls, done, false);
}

enum MHD_Result proxy_reply_render_yaml(struct MHD_Connection *c,
					bool (*fill)(void *cls, struct buf *b,
						     size_t want),
					void *cls, void (*done)(void *cls))
{
	return render(c, fill, cls, done, true);
}

enum MHD_Result proxy_reply_stream(struct MHD_Connection *c, size_t block,
				   MHD_ContentReaderCallback read, void *cls,
				   MHD_ContentReaderFreeCallback free_cls)
{
	struct MHD_Response *resp =
		reply_head ? reply_headless() :
			     MHD_create_response_from_callback(MHD_SIZE_UNKNOWN,
							       block, read, cls,
							       free_cls);
	if (resp && reply_head)
		free_cls(cls);
	if (!resp) {
		free_cls(cls);
		return MHD_NO;
	}
	if (reply_pb) { /* a watch's stream, whatever Accept said */
		pb_headers(resp, PROXY_PB_STREAM);
		return proxy_reply_queue(c, MHD_HTTP_OK, resp);
	}
	return send_json(c, MHD_HTTP_OK, resp);
}

/* ---- Status errors ---- */

/* The headers a Status asks for besides its type. */
static void status_extras(struct MHD_Response *resp,
			  const struct proxy_status *st)
{
	if (st->retry_after > 0) {
		char ra[16];
		snprintf(ra, sizeof(ra), "%d", st->retry_after);
		MHD_add_response_header(resp, "Retry-After", ra);
	}
	if (st->close)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION,
					"close");
}

/* The Status body as JSON (indented when pretty), or as YAML when yaml
 * (the apiserver writes an error in the type the request negotiated). */
static struct MHD_Response *status_response(const struct proxy_status *st,
					    bool pretty, bool yaml)
{
	struct buf b = BUF_INIT;
	proxy_status_body(&b, st);
	if (reply_pb && buf_ok(&b)) {
		struct buf pb = BUF_INIT;
		if (!proxy_pb_status(&pb, b.p, b.len)) {
			buf_free(&b);
			struct MHD_Response *resp = proxy_reply_from_buf(&pb);
			if (!resp)
				return NULL;
			pb_headers(resp, PROXY_PB_MEDIA);
			status_extras(resp, st);
			return resp;
		}
		buf_free(&pb); /* the JSON, rather than nothing */
	}
	if (yaml && buf_ok(&b)) {
		struct buf y = BUF_INIT;
		if (proxy_yaml_from_json(&y, b.p, b.len)) {
			buf_free(&y);
			yaml = false; /* the JSON, rather than nothing */
		} else {
			buf_free(&b);
			b = y;
		}
	}
	if (pretty && !yaml && buf_ok(&b))
		proxy_pretty_body(&b);
	struct MHD_Response *resp = proxy_reply_from_buf(&b);
	if (!resp)
		return NULL;
	if (yaml)
		yaml_headers(resp);
	else
		proxy_reply_json_headers(resp);
	status_extras(resp, st);
	return resp;
}

enum MHD_Result proxy_reply_status(struct MHD_Connection *conn,
				   const struct proxy_status *st)
{
	struct MHD_Response *resp =
		status_response(st, st->indent || pretty_wanted(conn),
				!st->indent && proxy_reply_yaml_wanted(conn));
	if (!resp)
		return MHD_NO;
	return proxy_reply_queue(conn, proxy_status_code(st->reason), resp);
}

enum MHD_Result proxy_reply_error(struct MHD_Connection *conn,
				  enum proxy_reason reason, const char *fmt,
				  ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct proxy_status st = { .reason = reason, .message = msg };
	return proxy_reply_status(conn, &st);
}

bool proxy_reply_accept_routed(struct MHD_Connection *conn)
{
	return proxy_status_accept_routed(
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept"));
}

enum MHD_Result proxy_reply_not_acceptable(struct MHD_Connection *conn,
					   enum proxy_na_route route)
{
	struct proxy_status st;
	proxy_status_not_acceptable(
		&st,
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept"),
		route);
	return proxy_reply_status(conn, &st);
}

enum MHD_Result proxy_reply_too_many(struct MHD_Connection *conn,
				     const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct proxy_status st = {
		.reason = PROXY_TooManyRequests,
		.message = msg,
		.retry_after = 1,
		.details = "{\"retryAfterSeconds\":1}",
	};
	return proxy_reply_status(conn, &st);
}

enum MHD_Result proxy_reply_not_found(struct MHD_Connection *conn,
				      const char *resource, const char *name)
{
	struct buf msg = BUF_INIT, det = BUF_INIT;
	buf_printf(&msg, "%s \"%s\" not found", resource, name);
	buf_adds(&det, "{\"name\":");
	buf_add_json_str(&det, name, strlen(name));
	buf_adds(&det, ",\"kind\":");
	buf_add_json_str(&det, resource, strlen(resource));
	buf_addc(&det, '}');
	struct proxy_status st = { .reason = PROXY_NotFound,
				   .message = msg.p,
				   .details = det.p };
	enum MHD_Result r = buf_ok(&msg) && buf_ok(&det) ?
				    proxy_reply_status(conn, &st) :
				    MHD_NO;
	buf_free(&msg);
	buf_free(&det);
	return r;
}
