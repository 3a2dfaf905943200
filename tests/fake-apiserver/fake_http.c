/*
 * fake_http: the libmicrohttpd daemon, path routing and reply helpers
 * (see fake_http.h).
 *
 * Routes, as the apiserver serves them (PREFIX is /api/v1 for the core
 * group, /apis/GROUP/VERSION for leases and custom resources):
 *   PREFIX/RES                      collection (all namespaces)
 *   PREFIX/RES/NAME                 cluster-scoped object
 *   PREFIX/namespaces/NS/RES[/NAME] namespaced collection or object
 *   PREFIX/watch/...                the same, as a watch
 * plus discovery (fake_discovery.c) and the /fake/ paths (fake_control.c).
 * Every path but /fake/ and the health checks must authenticate when
 * fake_tls or --users asks for it, and pass the --authz rules when there
 * are some (fake_auth.h); the two review APIs are fake_review.c.
 */
#include "fake_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config/alloc.h"
#include "config/log.h"
#include "fake_auth.h"
#include "fake_exec.h"
#include "fake_openapi.h"
#include "fake_pbout.h"
#include "fake_res.h"
#include "fake_tls.h"

static struct MHD_Daemon *daemon_;
static unsigned port_;

/* --- replies --------------------------------------------------------- */

static void add_headers(struct MHD_Response *r, bool proto)
{
	MHD_add_response_header(r, "Cache-Control", "no-cache, private");
	MHD_add_response_header(r, "Content-Type",
				proto ? FAKE_PB_MEDIA : "application/json");
}

/* A body produced piece by piece (fake_reply_stream), cut after cut
 * bytes when the cutAfterBytes fault is pending (UINT64_MAX: never). */
struct stream_body {
	MHD_ContentReaderCallback read;
	void *cls;
	MHD_ContentReaderFreeCallback done;
	uint64_t cut;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream_body *sb = cls;
	if (pos >= sb->cut)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	if (max > sb->cut - pos)
		max = (size_t)(sb->cut - pos);
	return sb->read(sb->cls, pos, buf, max);
}

static void stream_free(void *cls)
{
	struct stream_body *sb = cls;
	sb->done(sb->cls);
	free(sb);
}

enum MHD_Result fake_reply_stream(struct MHD_Connection *c, uint64_t len,
				  MHD_ContentReaderCallback read, void *cls,
				  MHD_ContentReaderFreeCallback done)
{
	struct stream_body *sb = xmalloc(sizeof(*sb));
	struct MHD_Response *r = NULL;
	long long cut = fake_faults_take_cut();

	if (sb) {
		*sb = (struct stream_body){ read, cls, done,
					    cut >= 0 ? (uint64_t)cut :
						       UINT64_MAX };
		r = MHD_create_response_from_callback(
			len, 256 * 1024, stream_read, sb, stream_free);
		if (!r)
			free(sb);
	}
	if (!r) {
		done(cls);
		return MHD_NO;
	}
	add_headers(r, false);
	enum MHD_Result ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

/* A body served only up to cut bytes, then the connection is dropped
 * (the cutAfterBytes fault). */
struct cut_body {
	char *p;
	size_t len, cut;
};

static ssize_t cut_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct cut_body *cb = cls;
	if (pos >= cb->cut)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	size_t n = cb->cut - (size_t)pos;
	if (n > max)
		n = max;
	memcpy(buf, cb->p + pos, n);
	return (ssize_t)n;
}

static void cut_free(void *cls)
{
	struct cut_body *cb = cls;
	free(cb->p);
	free(cb);
}

/* Whether the apiserver would indent this answer: ?pretty as Go's
 * ParseBool reads it, else the User-Agents of curl, Wget and browsers. */
static bool pretty_wanted(struct MHD_Connection *c)
{
	const char *pp =
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "pretty");
	if (pp && *pp)
		return !strcmp(pp, "1") || !strcmp(pp, "t") ||
		       !strcmp(pp, "T") || !strcmp(pp, "true") ||
		       !strcmp(pp, "TRUE") || !strcmp(pp, "True");
	const char *ua =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "User-Agent");
	return ua && (!strncmp(ua, "curl", 4) || !strncmp(ua, "Wget", 4) ||
		      !strncmp(ua, "Mozilla/5.0", 11));
}

static void indent_line(struct buf *out, int depth)
{
	buf_addc(out, '\n');
	for (int i = 0; i < depth; i++)
		buf_adds(out, "  ");
}

/* Compact JSON in[0..n) indented as Go's json.Indent with two spaces,
 * empty {} and [] kept, white space outside strings dropped. */
static void indent_json(const char *in, size_t n, struct buf *out)
{
	int depth = 0;
	bool str = false, esc = false;
	for (size_t i = 0; i < n; i++) {
		char c = in[i];
		if (str) {
			buf_addc(out, c);
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				str = false;
			continue;
		}
		switch (c) {
		case '"':
			str = true;
			buf_addc(out, c);
			break;
		case '{':
		case '[':
			buf_addc(out, c);
			if (i + 1 < n &&
			    (in[i + 1] == '}' || in[i + 1] == ']')) {
				buf_addc(out, in[++i]);
				break;
			}
			indent_line(out, ++depth);
			break;
		case '}':
		case ']':
			indent_line(out, --depth);
			buf_addc(out, c);
			break;
		case ',':
			buf_addc(out, c);
			indent_line(out, depth);
			break;
		case ':':
			buf_adds(out, ": ");
			break;
		case ' ':
		case '\t':
		case '\r':
		case '\n':
			break;
		default:
			buf_addc(out, c);
		}
	}
}

/* A Status error for a person is indented with no final newline, as the
 * apiserver writes it for curl; body is replaced in place. */
static void pretty_status(struct MHD_Connection *c, unsigned code,
			  struct buf *body)
{
	static const char head[] = "{\"kind\":\"Status\",";
	if (code < 400 || !buf_ok(body) || body->len < sizeof(head) - 1 ||
	    memcmp(body->p, head, sizeof(head) - 1) || !pretty_wanted(c))
		return;
	struct buf out = BUF_INIT;
	indent_json(body->p, body->len, &out);
	if (!buf_ok(&out)) {
		buf_free(&out);
		return;
	}
	buf_free(body);
	*body = out;
}

enum MHD_Result fake_reply_retry(struct MHD_Connection *c, unsigned code,
				 struct buf *body, int retry_after)
{
	size_t len = 0;
	fake_pb_status(c, body);
	bool proto = fake_pb_is(body);
	pretty_status(c, code, body);
	char *p = buf_steal(body, &len);
	struct MHD_Response *r = NULL;
	enum MHD_Result ret;
	long long cut;

	if (!p)
		return MHD_NO;
	bool gz = false;
	p = fake_gzip_maybe(c, p, &len, &gz);
	if ((cut = fake_faults_take_cut()) >= 0 && (size_t)cut < len) {
		struct cut_body *cb = xmalloc(sizeof(*cb));
		if (cb) {
			*cb = (struct cut_body){ p, len, (size_t)cut };
			r = MHD_create_response_from_callback(
				len, 64 * 1024, cut_read, cb, cut_free);
			if (!r)
				free(cb);
		}
	} else {
		r = MHD_create_response_from_buffer(len, p,
						    MHD_RESPMEM_MUST_FREE);
	}
	if (!r) {
		free(p);
		return MHD_NO;
	}
	add_headers(r, proto);
	if (gz) {
		MHD_add_response_header(r, "Content-Encoding", "gzip");
		MHD_add_response_header(r, "Vary", "Accept-Encoding");
	}
	if (retry_after >= 0) {
		char v[16];
		snprintf(v, sizeof(v), "%d", retry_after);
		MHD_add_response_header(r, "Retry-After", v);
	}
	/* The apiserver ends the connection of an unauthenticated request:
	 * "Connection: close" on HTTP/1.1 (GOAWAY on HTTP/2), so a client
	 * guessing tokens pays a new handshake for each guess. */
	if (code == 401)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

enum MHD_Result fake_reply(struct MHD_Connection *c, unsigned code,
			   struct buf *body)
{
	return fake_reply_retry(c, code, body, code == 504 ? 1 : -1);
}

void fake_status_json(struct buf *b, unsigned code, const char *reason,
		      const char *details, const char *msg)
{
	buf_adds(b,
		 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		 "\"status\":\"Failure\",\"message\":");
	buf_add_json_str(b, msg, strlen(msg));
	if (reason) {
		buf_adds(b, ",\"reason\":");
		buf_add_json_str(b, reason, strlen(reason));
	}
	if (details) {
		buf_adds(b, ",\"details\":");
		buf_adds(b, details);
	}
	buf_printf(b, ",\"code\":%u}", code);
}

static enum MHD_Result vreply_status(struct MHD_Connection *c, unsigned code,
				     const char *reason, const char *details,
				     const char *fmt, va_list ap)
{
	struct buf msg = BUF_INIT, b = BUF_INIT;
	buf_vprintf(&msg, fmt, ap);
	fake_status_json(&b, code, reason, details, msg.p ? msg.p : "");
	buf_addc(&b, '\n');
	buf_free(&msg);
	return fake_reply(c, code, &b);
}

enum MHD_Result fake_reply_status(struct MHD_Connection *c, unsigned code,
				  const char *reason, const char *details,
				  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	enum MHD_Result r = vreply_status(c, code, reason, details, fmt, ap);
	va_end(ap);
	return r;
}

enum MHD_Result fake_reply_bad_request(struct MHD_Connection *c,
				       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	enum MHD_Result r = vreply_status(c, 400, "BadRequest", NULL, fmt, ap);
	va_end(ap);
	return r;
}

enum MHD_Result fake_reply_no_route(struct MHD_Connection *c)
{
	return fake_reply_status(c, 404, "NotFound", "{}",
				 "the server could not find the requested "
				 "resource");
}

enum MHD_Result fake_reply_not_found(struct MHD_Connection *c,
				     const char *resource, const char *name)
{
	struct buf d = BUF_INIT;
	enum MHD_Result r;

	buf_adds(&d, "{\"name\":");
	buf_add_json_str(&d, name, strlen(name));
	buf_adds(&d, ",\"kind\":");
	buf_add_json_str(&d, resource, strlen(resource));
	buf_addc(&d, '}');
	r = fake_reply_status(c, 404, "NotFound", d.p, "%s \"%s\" not found",
			      resource, name);
	buf_free(&d);
	return r;
}

enum MHD_Result fake_reply_invalid(struct MHD_Connection *c, const char *what,
				   const char *group, const char *kind,
				   const char *name,
				   const struct fake_field_err *errs, int n)
{
	struct buf d = BUF_INIT, m = BUF_INIT;
	enum MHD_Result r;

	buf_printf(&m, "%s \"%s\" is invalid: %s", what, name,
		   n > 1 ? "[" : "");
	for (int i = 0; i < n; i++)
		buf_printf(&m, "%s%s: %s", i ? ", " : "", errs[i].field,
			   errs[i].msg);
	if (n > 1)
		buf_addc(&m, ']');

	buf_addc(&d, '{');
	if (*name) {
		buf_adds(&d, "\"name\":");
		buf_add_json_str(&d, name, strlen(name));
		buf_addc(&d, ',');
	}
	if (*group)
		buf_printf(&d, "\"group\":\"%s\",", group);
	buf_printf(&d, "\"kind\":\"%s\",\"causes\":[", kind);
	for (int i = 0; i < n; i++) {
		buf_printf(&d,
			   "%s{\"reason\":\"%s\",\"message\":", i ? "," : "",
			   errs[i].reason);
		buf_add_json_str(&d, errs[i].msg, strlen(errs[i].msg));
		buf_adds(&d, ",\"field\":");
		buf_add_json_str(&d, errs[i].field, strlen(errs[i].field));
		buf_addc(&d, '}');
	}
	buf_adds(&d, "]}");
	r = fake_reply_status(c, 422, "Invalid", d.p, "%s", m.p);
	buf_free(&d);
	buf_free(&m);
	return r;
}

enum MHD_Result fake_reply_rv_too_large(struct MHD_Connection *c, uint64_t want,
					uint64_t cur)
{
	return fake_reply_status(
		c, 504, "Timeout",
		"{\"causes\":[{\"reason\":\"ResourceVersionTooLarge\","
		"\"message\":\"Too large resource version\"}],"
		"\"retryAfterSeconds\":1}",
		"Timeout: Too large resource version: %llu, current: %llu",
		(unsigned long long)want, (unsigned long long)cur);
}

static enum MHD_Result reply_method_not_allowed(struct MHD_Connection *c)
{
	return fake_reply_status(c, 405, "MethodNotAllowed", "{}",
				 "the server does not allow this method on the "
				 "requested resource");
}

const char *fake_query(struct MHD_Connection *c, const char *key)
{
	const char *v = NULL;
	size_t n = 0;
	if (MHD_lookup_connection_value_n(c, MHD_GET_ARGUMENT_KIND, key,
					  strlen(key), &v, &n) != MHD_YES)
		return NULL;
	return v ? v : "";
}

/* --- routing --------------------------------------------------------- */

static bool is_loopback(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!ci || !ci->client_addr)
		return false;
	const struct sockaddr *sa = ci->client_addr;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
	}
	return false;
}

static bool query_watch(struct MHD_Connection *c)
{
	const char *v = fake_query(c, "watch");
	return v && !(strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0);
}

#define MAX_SEGS 8

/* Split rq->path (after the group/version prefix) into rq's fields;
 * false when no resource serves it. */
static bool route(struct fake_req *rq, const char *group, const char *version,
		  char **seg, int n)
{
	if (n > 0 && strcmp(seg[0], "watch") == 0) {
		rq->watch = true;
		seg++;
		n--;
	}
	if (n >= 3 && strcmp(seg[0], "namespaces") == 0) {
		/* /namespaces/NS/RES[/NAME] */
		if (n > 4)
			return false;
		rq->res = fake_res_find_gvr(group, version, seg[2]);
		if (rq->res < 0 || !fake_res_table[rq->res].namespaced)
			return false;
		rq->ns = seg[1];
		rq->name = n == 4 ? seg[3] : NULL;
		return true;
	}
	if (n < 1 || n > 2)
		return false;
	rq->res = fake_res_find_gvr(group, version, seg[0]);
	if (rq->res < 0)
		return false;
	if (n == 2) {
		if (fake_res_table[rq->res].namespaced)
			return false;
		rq->name = seg[1];
	}
	return true;
}

static enum MHD_Result dispatch(struct fake_req *rq, const char *url)
{
	struct MHD_Connection *c = rq->conn;
	const char *m = rq->method;
	enum MHD_Result ret;
	char *seg[MAX_SEGS + 1];
	int n = 0;

	if (strncmp(url, "/fake/", 6) == 0) {
		if (!is_loopback(c))
			return fake_reply_status(c, 403, "Forbidden", NULL,
						 "the control API is served "
						 "on loopback only");
		return fake_control_serve(rq, url);
	}
	if (strcmp(url, "/healthz") == 0 || strcmp(url, "/livez") == 0 ||
	    strcmp(url, "/readyz") == 0) {
		struct MHD_Response *r = MHD_create_response_from_buffer(
			2, (void *)"ok", MHD_RESPMEM_PERSISTENT);
		MHD_add_response_header(r, "Content-Type",
					"text/plain; charset=utf-8");
		ret = MHD_queue_response(c, 200, r);
		MHD_destroy_response(r);
		return ret;
	}
	struct fake_user u;
	if (fake_auth_request(c, &u) < 0)
		return fake_reply_unauthorized(c);
	if (fake_auth_authz_on()) {
		/* the apiserver authorizes before it routes: a path no
		 * resource serves is 403 before it is 404 */
		struct fake_attrs a;
		char *scratch = NULL;
		fake_auth_attrs(c, m, url, &a, &scratch);
		if (!scratch)
			return MHD_NO; /* out of memory */
		bool ok = fake_auth_allowed(u.name, u.groups, u.ngroups, &a,
					    NULL);
		if (!ok)
			ret = fake_reply_forbidden(c, u.name, &a);
		free(scratch);
		if (!ok)
			return ret;
	}
	if (fake_faults_intercept(c, &ret))
		return ret;
	if (strcmp(m, "GET") == 0 && fake_discovery_serve(c, url, &ret))
		return ret;
	if (strcmp(m, "GET") == 0 && fake_openapi_serve(c, url, &ret))
		return ret;
	if (rq->body_too_large)
		return fake_reply_status(c, 413, "RequestEntityTooLarge", NULL,
					 "Request entity too large: limit is "
					 "%u",
					 FAKE_MAX_BODY);

	if (fake_review_serve(rq, url, &ret))
		return ret;
	if (fake_exec_path(url))
		return fake_exec_serve(rq, url);

	bool core = strncmp(url, "/api/v1/", 8) == 0;
	if (!core && strncmp(url, "/apis/", 6) != 0)
		return fake_reply_no_route(c);
	rq->path = xstrdup(url + (core ? 8 : 6));
	if (!rq->path)
		return MHD_NO;
	for (char *p = rq->path, *s; (s = strsep(&p, "/"));) {
		if (!*s || n == MAX_SEGS)
			return fake_reply_no_route(c);
		seg[n++] = s;
	}
	/* /apis/GROUP/VERSION/... */
	if (!core && n < 3)
		return fake_reply_no_route(c);
	if (!route(rq, core ? "" : seg[0], core ? "v1" : seg[1],
		   seg + (core ? 0 : 2), n - (core ? 0 : 2)))
		return fake_reply_no_route(c);
	bool coll = rq->name == NULL;
	/* ?watch on a named object's path is ignored, as the apiserver's GET
	 * handler does; only a collection (or /watch/) is watched */
	if (!rq->watch && coll)
		rq->watch = query_watch(c);

	if (strcmp(m, "GET") == 0) {
		if (rq->watch)
			return fake_watch_serve(rq);
		return coll ? fake_list_serve(rq) : fake_get_serve(rq);
	}
	if (rq->watch)
		return reply_method_not_allowed(c);
	if (coll) {
		/* creating needs the namespace in the path */
		if (strcmp(m, "POST") == 0 &&
		    (rq->ns || !fake_res_table[rq->res].namespaced))
			return fake_write_create(rq);
		/* deletecollection: namespaced resources, in a namespace */
		if (strcmp(m, "DELETE") == 0 && rq->ns)
			return fake_write_delete_collection(rq);
		return reply_method_not_allowed(c);
	}
	if (strcmp(m, "PUT") == 0)
		return fake_write_update(rq);
	if (strcmp(m, "PATCH") == 0)
		return fake_write_patch(rq);
	if (strcmp(m, "DELETE") == 0)
		return fake_write_delete(rq);
	return reply_method_not_allowed(c);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct fake_req *rq = *con_cls;

	if (!rq) {
		rq = xcalloc(1, sizeof(*rq));
		if (!rq)
			return MHD_NO;
		rq->conn = c;
		rq->method = method;
		rq->res = -1;
		*con_cls = rq;
		return MHD_YES;
	}
	if (*upload_size) {
		if (rq->body.len + *upload_size > FAKE_MAX_BODY)
			rq->body_too_large = true;
		else
			buf_add(&rq->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	log_v(2, "%s %s", method, url);
	return dispatch(rq, url);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct fake_req *rq = *con_cls;
	if (!rq)
		return;
	fake_exec_abandon(rq);
	buf_free(&rq->body);
	free(rq->path);
	free(rq);
	*con_cls = NULL;
}

/* libmicrohttpd's own messages (a client that hung up, ...) are
 * debugging detail here. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_v(1, "microhttpd: %s", msg);
}

int fake_http_start(const char *host, unsigned port, char *err, size_t errlen)
{
	struct sockaddr_in sa;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		snprintf(err, errlen, "--listen: not an IPv4 address: %s",
			 host);
		return -EINVAL;
	}
	struct MHD_OptionItem opts[16] = {
		{ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, NULL },
		{ MHD_OPTION_SOCK_ADDR, 0, &sa },
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, NULL },
		{ MHD_OPTION_CONNECTION_LIMIT, 4096, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, 0, NULL },
		{ MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, NULL },
		{ MHD_OPTION_THREAD_STACK_SIZE, 1u << 20, NULL },
	};
	int nopt = 7;
	fake_tls_mhd_options(opts, &nopt);
	opts[nopt] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	daemon_ = MHD_start_daemon(
		MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD |
			MHD_USE_ITC | MHD_USE_ERROR_LOG | MHD_ALLOW_UPGRADE |
			fake_tls_mhd_flags(),
		0, NULL, NULL, on_request, NULL, MHD_OPTION_ARRAY, opts,
		MHD_OPTION_END);
	if (!daemon_) {
		snprintf(err, errlen, "cannot listen on %s:%u: %s", host, port,
			 strerror(errno));
		return -EADDRINUSE;
	}
	const union MHD_DaemonInfo *di =
		MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
	/* request threads may already be asking for it */
	__atomic_store_n(&port_, di ? di->port : port, __ATOMIC_RELEASE);
	log_info("listening on %s://%s:%u", fake_tls_on() ? "https" : "http",
		 host, fake_http_port());
	return 0;
}

unsigned fake_http_port(void)
{
	return __atomic_load_n(&port_, __ATOMIC_ACQUIRE);
}

void fake_http_stop(void)
{
	if (!daemon_)
		return;
	/* Let the watches (already told to stop) end their streams with a
	 * clean last chunk before the sockets are closed; upgraded sessions
	 * end at once. */
	fake_exec_stop();
	MHD_quiesce_daemon(daemon_);
	for (int i = 0; i < 200; i++) {
		long open = 0;
		for (int r = 0; r < fake_nres; r++)
			open += __atomic_load_n(&fake_res_stats[r].watch_open,
						__ATOMIC_RELAXED);
		if (open == 0)
			break;
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	MHD_stop_daemon(daemon_);
	daemon_ = NULL;
}
