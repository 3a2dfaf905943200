/*
 * test_pass: requests forwarded to the upstream (proxy/pass/pass.c)
 * through a minimal libmicrohttpd daemon on 127.0.0.1:0 that calls
 * proxy_pass_handle/proxy_pass_done as server.c does, to a capturing upstream
 * on 127.0.0.1:0 that records each request's head and body whole.
 *
 * Covered, with the security model in mind: a client's own Authorization
 * goes alone, the proxy's token never with it; a client without
 * credentials gets the proxy's identity only where lent (and then every
 * Impersonate-*, X-Remote-*, Cookie and Proxy-Authorization is dropped),
 * else goes anonymous; hop-by-hop headers, Host and Expect are not
 * forwarded either way, nor hop-by-hop response headers back; a chunked
 * request body reaches the upstream chunked with no Content-Length, a
 * sized one with its Content-Length; the target is kept byte for byte; bodies over the
 * limit are refused (413) without contacting the upstream, chunked
 * ones past it on the way; an unreachable or
 * silent upstream gives 503 (watches spared the timeout); a watch
 * streams, and a client that leaves (before or after the upstream's
 * headers) has its upstream connection closed within seconds; a slow
 * client gets a 4 MiB body whole through back-pressure; a stopped pool,
 * a token file that cannot be read, and allocation failure; no body
 * where HTTP has none (304, 204, HEAD), the next answer on a kept-alive
 * connection framed right; the drain ends a watch as a complete stream
 * at an event's end, and nothing else.
 */
#include <curl/curl.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "cache/scope.h"
#include "cache/upstream.h"
#include "config/alloc.h"
#include "config/kubeconfig.h"
#include "config/limits.h"
#include "proxy/pass/pass.h"
#include "check.h"

/* ---- the capturing upstream ---- */

static struct {
	int fd, port;
	pthread_t thread;
	bool stop; /* atomic */
	pthread_mutex_t lock;
	const char *response; /* locked: what to answer */
	bool hold;	      /* locked: answer nothing, wait */
	bool busy;	      /* atomic: a connection is open */
	int nreq;	      /* locked */
	char head[16384];     /* locked: the last request's head */
	char *body;	      /* locked: its body */
	size_t body_len;
} srv;

static void srv_serve(int c)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap + 1);
	char *end = NULL;
	while (!end) {
		struct pollfd p = { c, POLLIN, 0 };
		if (poll(&p, 1, 50) == 0) {
			if (__atomic_load_n(&srv.stop, __ATOMIC_ACQUIRE))
				goto out;
			continue;
		}
		if (n == cap)
			goto out;
		ssize_t r = read(c, buf + n, cap - n);
		if (r <= 0)
			goto out;
		n += (size_t)r;
		buf[n] = '\0';
		end = strstr(buf, "\r\n\r\n");
	}
	size_t hlen = (size_t)(end + 4 - buf);
	const char *cl = strcasestr(buf, "\r\ncontent-length:");
	size_t want = cl && cl < end ? (size_t)atol(cl + 17) : 0;
	if (hlen + want > cap) {
		cap = hlen + want;
		buf = realloc(buf, cap + 1);
	}
	while (n < hlen + want) {
		ssize_t r = read(c, buf + n, hlen + want - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	const char *te = strcasestr(buf, "\r\ntransfer-encoding: chunked");
	bool chunked = te && te < end;
	/* a chunked body: read up to its last chunk, then decode it */
	while (chunked &&
	       !(n >= hlen + 5 && !memcmp(buf + n - 5, "0\r\n\r\n", 5))) {
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
		}
		ssize_t r = read(c, buf + n, cap - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	size_t blen = n - hlen;
	if (chunked) {
		size_t in = hlen, out = hlen;
		while (in < n) {
			char *e;
			size_t sz = strtoul(buf + in, &e, 16);
			/* the size line's end is near: a search bounded so,
			 * as ThreadSanitizer checks all of memmem's haystack
			 * (the whole rest of a 3 MiB body, once a chunk) */
			size_t rest = (size_t)(buf + n - e);
			char *crlf =
				memmem(e, rest < 256 ? rest : 256, "\r\n", 2);
			if (!sz || !crlf || (size_t)(crlf + 2 - buf) + sz > n)
				break;
			memmove(buf + out, crlf + 2, sz);
			out += sz;
			in = (size_t)(crlf + 2 - buf) + sz + 2;
		}
		blen = out - hlen;
	}
	pthread_mutex_lock(&srv.lock);
	srv.nreq++;
	snprintf(srv.head, sizeof(srv.head), "%.*s", (int)hlen, buf);
	free(srv.body);
	srv.body_len = blen;
	srv.body = malloc(srv.body_len + 1);
	memcpy(srv.body, buf + hlen, srv.body_len);
	srv.body[srv.body_len] = '\0';
	const char *resp = srv.response;
	bool hold = srv.hold;
	pthread_mutex_unlock(&srv.lock);
	if (hold && resp) { /* headers and a first part, then silence */
		for (size_t off = 0, len = strlen(resp); off < len;) {
			ssize_t w = write(c, resp + off, len - off);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
	}
	if (hold) {
		while (!__atomic_load_n(&srv.stop, __ATOMIC_ACQUIRE)) {
			struct pollfd p = { c, POLLIN, 0 };
			if (poll(&p, 1, 50) > 0 && read(c, buf, cap) <= 0)
				break; /* the proxy hung up */
		}
		goto out;
	}
	for (size_t off = 0, len = strlen(resp); off < len;) {
		ssize_t w = write(c, resp + off, len - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
out:
	free(buf);
}

static void *srv_run(void *arg)
{
	while (!__atomic_load_n(&srv.stop, __ATOMIC_ACQUIRE)) {
		struct pollfd p = { srv.fd, POLLIN, 0 };
		if (poll(&p, 1, 50) <= 0)
			continue;
		int c = accept(srv.fd, NULL, NULL);
		if (c < 0)
			continue;
		__atomic_store_n(&srv.busy, true, __ATOMIC_RELEASE);
		srv_serve(c);
		close(c);
		__atomic_store_n(&srv.busy, false, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int srv_start(void)
{
	pthread_mutex_init(&srv.lock, NULL);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	srv.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (srv.fd < 0 || bind(srv.fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(srv.fd, 16) ||
	    getsockname(srv.fd, (struct sockaddr *)&a, &al))
		return -1;
	srv.port = ntohs(a.sin_port);
	return pthread_create(&srv.thread, NULL, srv_run, NULL) ? -1 : 0;
}

static void srv_stop(void)
{
	__atomic_store_n(&srv.stop, true, __ATOMIC_RELEASE);
	pthread_join(srv.thread, NULL);
	close(srv.fd);
	free(srv.body);
	pthread_mutex_destroy(&srv.lock);
}

static void srv_script(const char *response, bool hold)
{
	pthread_mutex_lock(&srv.lock);
	srv.response = response;
	srv.hold = hold;
	srv.head[0] = '\0';
	pthread_mutex_unlock(&srv.lock);
}

static int srv_count(void)
{
	pthread_mutex_lock(&srv.lock);
	int n = srv.nreq;
	pthread_mutex_unlock(&srv.lock);
	return n;
}

/* How long until the upstream's connection is closed, in ms (up to
 * max_ms): when a client leaves, the proxy should hang up upstream. */
static long srv_free_after(long max_ms)
{
	long ms = 0;
	while (__atomic_load_n(&srv.busy, __ATOMIC_ACQUIRE) && ms < max_ms) {
		usleep(10 * 1000);
		ms += 10;
	}
	return ms;
}

/* Wait until the upstream has taken no request for 300 ms: connections
 * left in its backlog by an earlier test are served and counted. */
static void srv_settle(void)
{
	int n = srv_count(), quiet = 0;
	while (quiet < 3) {
		usleep(100 * 1000);
		int m = srv_count();
		quiet = m == n ? quiet + 1 : 0;
		n = m;
	}
}

/* How many header lines of the last request start with name (any case). */
static int head_count(const char *name)
{
	int n = 0;
	size_t l = strlen(name);
	pthread_mutex_lock(&srv.lock);
	for (const char *p = strstr(srv.head, "\r\n"); p && p[2];
	     p = strstr(p + 2, "\r\n"))
		if (!strncasecmp(p + 2, name, l))
			n++;
	pthread_mutex_unlock(&srv.lock);
	return n;
}

/* Whether the last request carries exactly this header line. */
static bool head_has(const char *line)
{
	char want[512];
	snprintf(want, sizeof(want), "\r\n%s\r\n", line);
	pthread_mutex_lock(&srv.lock);
	bool has = strstr(srv.head, want) != NULL;
	pthread_mutex_unlock(&srv.lock);
	return has;
}

static bool head_line_is(const char *line)
{
	pthread_mutex_lock(&srv.lock);
	size_t l = strlen(line);
	bool is = !strncmp(srv.head, line, l) &&
		  !strncmp(srv.head + l, "\r\n", 2);
	pthread_mutex_unlock(&srv.lock);
	return is;
}

/* ---- the proxy side: server.c's passthrough path, reduced ---- */

static struct proxy_pass_pool *pool;
static struct MHD_Daemon *mhd;
static int mhd_port;
static struct cache_upstream up;
static char up_url[64];

static struct cache_scope shape_scope; /* for targets with shape=1 */

struct rq {
	char *raw;
	struct proxy_pass *pass;
};

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct rq *r = calloc(1, sizeof(*r));
	if (r)
		r->raw = strdup(uri);
	return r;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct rq *r = *state;
	if (!r || !r->raw)
		return MHD_NO;
	bool first = !r->pass;
	enum MHD_Result ret = proxy_pass_handle(pool, c, r->raw, method, upload,
						upload_size, &r->pass);
	/* server.c's forwarded read of a cached resource, with its strip
	 * paths: the first call made the pass, the next starts it */
	if (first && r->pass && strstr(r->raw, "shape=1")) {
		if (proxy_pass_shape(r->pass, &shape_scope, true))
			return MHD_NO;
		return proxy_pass_handle(pool, c, r->raw, method, upload,
					 upload_size, &r->pass);
	}
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
			 enum MHD_RequestTerminationCode toe)
{
	struct rq *r = *state;
	if (!r)
		return;
	proxy_pass_done(r->pass);
	free(r->raw);
	free(r);
	*state = NULL;
}

/* A pool and a daemon in front of it; upstream at port with creds. */
static void start_proxy(int port, struct config_upstream *creds, bool lend,
			int timeout_s)
{
	snprintf(up_url, sizeof(up_url), "http://127.0.0.1:%d", port);
	up = (struct cache_upstream){ .server = up_url, .creds = creds };
	pool = proxy_pass_pool_new(&up, lend, timeout_s);
	CHECK(pool != NULL);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	mhd = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME, 0,
		NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR, &a,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
		MHD_OPTION_END);
	CHECK(mhd != NULL);
	const union MHD_DaemonInfo *i =
		mhd ? MHD_get_daemon_info(mhd, MHD_DAEMON_INFO_BIND_PORT) :
		      NULL;
	mhd_port = i ? i->port : 0;
}

static void stop_proxy(void)
{
	proxy_pass_pool_stop(pool);
	if (mhd)
		MHD_stop_daemon(mhd);
	proxy_pass_pool_free(pool);
	pool = NULL;
	mhd = NULL;
}

/* ---- the client ---- */

struct reply {
	long code; /* -1: no answer */
	CURLcode rc;
	char hdrs[8192];
	size_t hn;
	char *body;
	size_t len;
	long ms; /* how long it took */
};

static size_t on_body(char *p, size_t size, size_t n, void *cls)
{
	struct reply *r = cls;
	r->body = realloc(r->body, r->len + size * n + 1);
	memcpy(r->body + r->len, p, size * n);
	r->len += size * n;
	r->body[r->len] = '\0';
	return size * n;
}

static size_t on_hdr(char *p, size_t size, size_t n, void *cls)
{
	struct reply *r = cls;
	size_t len = size * n;
	if (r->hn + len < sizeof(r->hdrs)) {
		memcpy(r->hdrs + r->hn, p, len);
		r->hn += len;
		r->hdrs[r->hn] = '\0';
	}
	return len;
}

struct upload {
	const char *p;
	size_t len, off;
};

static size_t on_read(char *out, size_t size, size_t n, void *cls)
{
	struct upload *u = cls;
	size_t k = u->len - u->off < size * n ? u->len - u->off : size * n;
	if (k > 7)
		k = 7; /* small chunks, several of them */
	memcpy(out, u->p + u->off, k);
	u->off += k;
	return k;
}

/* method target with the NULL-terminated header lines; body (NULL: none)
 * sent with a Content-Length, or chunked when chunked. */
static void request(struct reply *r, const char *method, const char *target,
		    const char *const *hdrs, const char *body, size_t blen,
		    bool chunked, long timeout_ms)
{
	memset(r, 0, sizeof(*r));
	r->code = -1;
	CURL *h = curl_easy_init();
	struct curl_slist *l = NULL;
	char url[8192];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", mhd_port, target);
	for (; hdrs && *hdrs; hdrs++)
		l = curl_slist_append(l, *hdrs);
	l = curl_slist_append(l, "Expect:");
	struct upload u = { body, blen, 0 };
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, l);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_hdr);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	if (!strcmp(method, "HEAD"))
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	else if (strcmp(method, "GET"))
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	if (body && chunked) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(h, CURLOPT_READDATA, &u);
	} else if (body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)blen);
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r->rc = curl_easy_perform(h);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->ms = (t1.tv_sec - t0.tv_sec) * 1000 +
		(t1.tv_nsec - t0.tv_nsec) / 1000000;
	if (r->rc == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->code);
	curl_slist_free_all(l);
	curl_easy_cleanup(h);
}

static void reply_free(struct reply *r)
{
	free(r->body);
	r->body = NULL;
}

static bool reply_has(const struct reply *r, const char *name)
{
	char want[256];
	snprintf(want, sizeof(want), "\n%s", name);
	return strcasestr(r->hdrs, want) != NULL;
}

#define OK_JSON                                                 \
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" \
	"Content-Length: 2\r\nConnection: close\r\n\r\n{}"

/* ---- tests ---- */

static struct config_upstream creds = {
	.server = "http://127.0.0.1",
	.url_base = "http://127.0.0.1",
	.token = "PROXY-SA-TOKEN",
};

/* Headers a client might send to pass for someone else or to confuse a
 * hop; the same set in each identity test. */
static const char *const smuggle[] = {
	"Impersonate-User: system:admin",
	"Impersonate-Group: system:masters",
	"Impersonate-Uid: 0",
	"X-Remote-User: admin",
	"X-Remote-Group: system:masters",
	"Cookie: session=stolen",
	"Proxy-Authorization: Basic cHJveHk6cHc=",
	"Connection: keep-alive, Upgrade",
	"Keep-Alive: timeout=99",
	"TE: trailers",
	"Upgrade: h2c",
	"Host: evil.example",
	"X-Custom: kept",
	"Accept: application/json",
	NULL,
};

/* The headers no request forwards, whoever sends it. */
static void check_never_forwarded(void)
{
	CHECK(head_count("Proxy-Authorization:") == 0);
	CHECK(head_count("Keep-Alive:") == 0);
	CHECK(head_count("TE:") == 0);
	CHECK(head_count("Upgrade:") == 0);
	CHECK(head_count("Expect:") == 0);
	CHECK(head_count("Transfer-Encoding:") == 0);
	CHECK(head_count("Host:") == 1);
	char host[64];
	snprintf(host, sizeof(host), "Host: 127.0.0.1:%d", srv.port);
	CHECK(head_has(host));
	CHECK(head_has("X-Custom: kept"));
	CHECK(head_has("Accept: application/json"));
}

/* A client's own credentials go alone: no proxy token beside them, its
 * impersonation headers left for the upstream to authorize on them. */
static void test_client_credentials(void)
{
	start_proxy(srv.port, &creds, true, 0);
	srv_script(OK_JSON, false);
	const char *h[32];
	int n = 0;
	h[n++] = "Authorization: Bearer CLIENT-TOKEN";
	for (const char *const *s = smuggle; *s; s++)
		h[n++] = *s;
	h[n] = NULL;
	struct reply r;
	request(&r, "GET", "/api/v1/namespaces/a/secrets", h, NULL, 0, false,
		10000);
	CHECK(r.code == 200);
	CHECK(head_line_is("GET /api/v1/namespaces/a/secrets HTTP/1.1"));
	CHECK(head_count("Authorization:") == 1);
	CHECK(head_has("Authorization: Bearer CLIENT-TOKEN"));
	pthread_mutex_lock(&srv.lock);
	CHECK(strstr(srv.head, "PROXY-SA-TOKEN") == NULL);
	pthread_mutex_unlock(&srv.lock);
	CHECK(head_has("Impersonate-User: system:admin"));
	CHECK(head_has("Cookie: session=stolen"));
	check_never_forwarded();
	reply_free(&r);

	/* the scheme does not matter: any credentials are the client's */
	const char *basic[] = { "Authorization: Basic YWxpY2U6cHc=",
				"Impersonate-User: system:admin", NULL };
	request(&r, "GET", "/api", basic, NULL, 0, false, 10000);
	CHECK(r.code == 200);
	CHECK(head_count("Authorization:") == 1);
	CHECK(head_has("Authorization: Basic YWxpY2U6cHc="));
	reply_free(&r);
	stop_proxy();
}

/* No credentials, where the proxy lends its identity: its token, and
 * nothing that asks the upstream to take the client for anyone else. */
static void test_lent_identity(void)
{
	start_proxy(srv.port, &creds, true, 0);
	srv_script(OK_JSON, false);
	struct reply r;
	request(&r, "GET", "/api/v1/pods", smuggle, NULL, 0, false, 10000);
	CHECK(r.code == 200);
	CHECK(head_count("Authorization:") == 1);
	CHECK(head_has("Authorization: Bearer PROXY-SA-TOKEN"));
	CHECK(head_count("Impersonate-") == 0);
	CHECK(head_count("X-Remote-") == 0);
	CHECK(head_count("Cookie:") == 0);
	check_never_forwarded();
	reply_free(&r);

	/* an empty Authorization is no credentials: it is not forwarded
	 * beside the proxy's */
	const char *empty[] = { "Authorization;", "impersonate-user: x", NULL };
	request(&r, "GET", "/api/v1/pods", empty, NULL, 0, false, 10000);
	CHECK(r.code == 200);
	CHECK(head_count("Authorization:") == 1);
	CHECK(head_has("Authorization: Bearer PROXY-SA-TOKEN"));
	CHECK(head_count("Impersonate-") == 0);
	reply_free(&r);
	stop_proxy();
}

/* No credentials, and no identity to lend: anonymous, stripped the same. */
static void test_anonymous(void)
{
	start_proxy(srv.port, &creds, false, 0);
	srv_script(OK_JSON, false);
	struct reply r;
	request(&r, "GET", "/version", smuggle, NULL, 0, false, 10000);
	CHECK(r.code == 200);
	CHECK(head_count("Authorization:") == 0);
	CHECK(head_count("Impersonate-") == 0);
	CHECK(head_count("X-Remote-") == 0);
	CHECK(head_count("Cookie:") == 0);
	pthread_mutex_lock(&srv.lock);
	CHECK(strstr(srv.head, "PROXY-SA-TOKEN") == NULL);
	pthread_mutex_unlock(&srv.lock);
	check_never_forwarded();
	reply_free(&r);
	stop_proxy();
}

/* The upstream's answer comes back as it is, less its hop-by-hop and
 * CORS headers; a chunked one re-framed. */
static void test_response(void)
{
	start_proxy(srv.port, NULL, false, 0);
	srv_script(
		"HTTP/1.1 409 Conflict\r\nContent-Type: application/json\r\n"
		"Audit-Id: 42\r\nX-Up: yes\r\nKeep-Alive: timeout=5\r\n"
		"Access-Control-Allow-Origin: *\r\n"
		"access-control-allow-credentials: true\r\n"
		"Proxy-Authenticate: Basic\r\nTrailer: X-T\r\nUpgrade: h2c\r\n"
		"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
		"5\r\n{\"a\":\r\n3\r\n12}\r\n0\r\n\r\n",
		false);
	struct reply r;
	request(&r, "GET", "/api/v1/namespaces/a/configmaps/b", NULL, NULL, 0,
		false, 10000);
	CHECK(r.code == 409);
	CHECK(r.len == 8 && r.body && !strcmp(r.body, "{\"a\":12}"));
	CHECK(reply_has(&r, "Audit-Id: 42"));
	CHECK(reply_has(&r, "X-Up: yes"));
	CHECK(reply_has(&r, "Content-Type: application/json"));
	CHECK(!reply_has(&r, "Keep-Alive:"));
	CHECK(!reply_has(&r, "Proxy-Authenticate:"));
	CHECK(!reply_has(&r, "Trailer:"));
	CHECK(!reply_has(&r, "Upgrade:"));
	/* no CORS permission passes through the proxy */
	CHECK(!reply_has(&r, "Access-Control-Allow-Origin:"));
	CHECK(!reply_has(&r, "access-control-allow-credentials:"));
	reply_free(&r);

	/* the upstream's Content-Length is kept; HEAD gets none of the body */
	srv_script(
		"HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\n"
		"hello world",
		false);
	request(&r, "GET", "/openapi/v2", NULL, NULL, 0, false, 10000);
	CHECK(r.code == 200 && r.len == 11 && !strcmp(r.body, "hello world"));
	CHECK(reply_has(&r, "Content-Length: 11"));
	reply_free(&r);
	srv_script(
		"HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\n",
		false);
	request(&r, "HEAD", "/openapi/v2", NULL, NULL, 0, false, 10000);
	CHECK(r.code == 200 && r.len == 0);
	CHECK(head_line_is("HEAD /openapi/v2 HTTP/1.1"));
	reply_free(&r);
	stop_proxy();
}

/* ---- one kept-alive connection, read raw ---- */

/* Read from fd into buf (at most cap - 1 bytes, NUL-terminated) until it
 * holds want heads ("\r\n\r\n") or EOF or timeout_ms pass; the length. */
static size_t raw_read(int fd, char *buf, size_t cap, size_t have, int want,
		       int timeout_ms, bool to_eof)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		buf[have] = '\0';
		int heads = 0;
		for (const char *p = buf; (p = strstr(p, "\r\n\r\n")); p += 4)
			heads++;
		if (heads >= want && !to_eof)
			return have;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long ms = (t1.tv_sec - t0.tv_sec) * 1000 +
			  (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms >= timeout_ms || have + 1 >= cap)
			return have;
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, (int)(timeout_ms - ms)) <= 0)
			continue;
		ssize_t r = read(fd, buf + have, cap - 1 - have);
		if (r <= 0)
			return have;
		have += (size_t)r;
	}
}

/* Two requests on one connection: first answered by the upstream with
 * first_answer, then a GET answered 200 with a body. The bytes after the
 * first answer's head must be the second answer's status line: an answer
 * HTTP gives no body (304, 204, HEAD) gets none, chunked or otherwise.
 * The first answer's head is copied to head1 (size cap). */
static bool raw_two(const char *first_request, const char *first_answer,
		    char *head1, size_t cap)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)mhd_port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	CHECK(fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a)));
	srv_script(first_answer, false);
	CHECK(write(fd, first_request, strlen(first_request)) ==
	      (ssize_t)strlen(first_request));
	static char buf[65536];
	size_t n = raw_read(fd, buf, sizeof(buf), 0, 1, 10000, false);
	char *end = strstr(buf, "\r\n\r\n");
	CHECK(end != NULL);
	snprintf(head1, cap, "%.*s", end ? (int)(end + 4 - buf) : 0, buf);
	/* the second request only once the first answer is all sent: a
	 * stray body, if any, is there before the second answer */
	srv_script(OK_JSON, false);
	srv_settle();
	const char *second =
		"GET /api/v1/namespaces/a/configmaps/two HTTP/1.1\r\n"
		"Host: x\r\nConnection: close\r\n\r\n";
	CHECK(write(fd, second, strlen(second)) == (ssize_t)strlen(second));
	n = raw_read(fd, buf, sizeof(buf), n, 2, 10000, true);
	close(fd);
	const char *rest = end ? end + 4 : "";
	bool ok = !strncmp(rest, "HTTP/1.1 200 ", 13) && n >= 2 &&
		  !strcmp(buf + n - 2, "{}");
	if (!ok)
		fprintf(stderr, "after the first head: [%s]\n", rest);
	return ok;
}

static bool head1_has(const char *head, const char *name)
{
	char want[256];
	snprintf(want, sizeof(want), "\n%s", name);
	return strcasestr(head, want) != NULL;
}

/* No body where HTTP has none, so that a kept-alive connection stays
 * framed: 304 to a conditional GET (the upstream's ETag kept), 204 to a
 * DELETE, a HEAD answer with the GET's Content-Length. */
static void test_no_body(void)
{
	start_proxy(srv.port, NULL, false, 0);
	char h[4096];
	CHECK(raw_two("GET /openapi/v2 HTTP/1.1\r\nHost: x\r\n"
		      "If-None-Match: \"abc\"\r\n\r\n",
		      "HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\n"
		      "Connection: close\r\n\r\n",
		      h, sizeof(h)));
	CHECK(!strncmp(h, "HTTP/1.1 304 ", 13));
	CHECK(head1_has(h, "ETag: \"abc\""));
	CHECK(!head1_has(h, "Transfer-Encoding:"));

	/* its Content-Length, that of the answer it stands for, is kept */
	CHECK(raw_two("GET /openapi/v2 HTTP/1.1\r\nHost: x\r\n"
		      "If-None-Match: \"abc\"\r\n\r\n",
		      "HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\n"
		      "Content-Length: 11\r\nConnection: close\r\n\r\n",
		      h, sizeof(h)));
	CHECK(head1_has(h, "Content-Length: 11"));
	CHECK(!head1_has(h, "Content-Length: 0"));

	/* an upstream that frames its 304 with a Transfer-Encoding anyway */
	CHECK(raw_two("GET /openapi/v3 HTTP/1.1\r\nHost: x\r\n"
		      "If-None-Match: \"abc\"\r\n\r\n",
		      "HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\n"
		      "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
		      h, sizeof(h)));
	CHECK(!head1_has(h, "Transfer-Encoding:"));

	CHECK(raw_two("DELETE /api/v1/namespaces/a/configmaps/b HTTP/1.1\r\n"
		      "Host: x\r\n\r\n",
		      "HTTP/1.1 204 No Content\r\nAudit-Id: 7\r\n"
		      "Connection: close\r\n\r\n",
		      h, sizeof(h)));
	CHECK(!strncmp(h, "HTTP/1.1 204 ", 13));
	CHECK(head1_has(h, "Audit-Id: 7"));
	CHECK(!head1_has(h, "Transfer-Encoding:"));
	CHECK(!head1_has(h, "Content-Length:"));

	CHECK(raw_two("HEAD /openapi/v2 HTTP/1.1\r\nHost: x\r\n\r\n",
		      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		      "Content-Length: 11\r\nConnection: close\r\n\r\n",
		      h, sizeof(h)));
	CHECK(!strncmp(h, "HTTP/1.1 200 ", 13));
	CHECK(head1_has(h, "Content-Length: 11"));
	CHECK(!head1_has(h, "Transfer-Encoding:"));
	stop_proxy();
}

/* The target byte for byte: escapes, query and all. */
static void test_target(void)
{
	start_proxy(srv.port, NULL, false, 0);
	srv_script(OK_JSON, false);
	struct reply r;
	const char *t =
		"/api/v1/namespaces/a/pods/x%2Fy?labelSelector=app%3Dweb%2Cenv+in+(a)"
		"&fieldSelector=&limit=5";
	request(&r, "GET", t, NULL, NULL, 0, false, 10000);
	CHECK(r.code == 200);
	char want[512];
	snprintf(want, sizeof(want), "GET %s HTTP/1.1", t);
	CHECK(head_line_is(want));
	reply_free(&r);
	stop_proxy();
}

/* Request bodies: forwarded exactly, framed by the proxy. */
static void test_bodies(void)
{
	start_proxy(srv.port, NULL, false, 0);
	srv_script(OK_JSON, false);
	struct reply r;
	const char *js = "{\"kind\":\"ConfigMap\",\"data\":{\"k\":\"v\"}}";
	const char *ct[] = { "Content-Type: application/json", NULL };
	request(&r, "POST", "/api/v1/namespaces/a/configmaps", ct, js,
		strlen(js), false, 10000);
	CHECK(r.code == 200);
	CHECK(head_line_is("POST /api/v1/namespaces/a/configmaps HTTP/1.1"));
	pthread_mutex_lock(&srv.lock);
	CHECK(srv.body_len == strlen(js) && !strcmp(srv.body, js));
	pthread_mutex_unlock(&srv.lock);
	CHECK(head_has("Content-Type: application/json"));
	char cl[64];
	snprintf(cl, sizeof(cl), "Content-Length: %zu", strlen(js));
	CHECK(head_has(cl));
	reply_free(&r);

	/* chunked from the client: streamed chunked to the upstream, with
	 * no Content-Length for the two to disagree about */
	const char *te[] = { "Transfer-Encoding: chunked",
			     "Content-Type: application/merge-patch+json",
			     NULL };
	request(&r, "PATCH", "/api/v1/namespaces/a/configmaps/b", te, js,
		strlen(js), true, 10000);
	CHECK(r.code == 200);
	CHECK(head_line_is("PATCH /api/v1/namespaces/a/configmaps/b HTTP/1.1"));
	CHECK(head_count("Transfer-Encoding:") == 1);
	CHECK(head_has("Transfer-Encoding: chunked"));
	CHECK(head_count("Content-Length:") == 0);
	pthread_mutex_lock(&srv.lock);
	CHECK(srv.body_len == strlen(js) && !strcmp(srv.body, js));
	pthread_mutex_unlock(&srv.lock);
	reply_free(&r);

	/* no Content-Type from the client: none added */
	const char *noct[] = { "Content-Type:", NULL };
	request(&r, "PUT", "/api/v1/namespaces/a/configmaps/b", noct, "x", 1,
		false, 10000);
	CHECK(r.code == 200);
	CHECK(head_count("Content-Type:") == 0);
	reply_free(&r);

	/* DELETE without a body: none sent */
	request(&r, "DELETE", "/api/v1/namespaces/a/configmaps/b", NULL, NULL,
		0, false, 10000);
	CHECK(r.code == 200);
	CHECK(head_line_is(
		"DELETE /api/v1/namespaces/a/configmaps/b HTTP/1.1"));
	pthread_mutex_lock(&srv.lock);
	CHECK(srv.body_len == 0);
	pthread_mutex_unlock(&srv.lock);
	reply_free(&r);

	/* at the limit: forwarded whole; one byte over: read, dropped and
	 * answered 413, as the apiserver's, upstream untouched */
	size_t lim = LIMIT_REQUEST_BODY_BYTES;
	char *big = malloc(lim + 1);
	memset(big, 'b', lim + 1);
	request(&r, "POST", "/api/v1/namespaces/a/configmaps", NULL, big, lim,
		false, 30000);
	CHECK(r.code == 200);
	pthread_mutex_lock(&srv.lock);
	CHECK(srv.body_len == lim);
	pthread_mutex_unlock(&srv.lock);
	reply_free(&r);
	int before = srv_count();
	request(&r, "POST", "/api/v1/namespaces/a/configmaps", NULL, big,
		lim + 1, false, 30000);
	CHECK(r.code == 413);
	CHECK(r.body && strstr(r.body, "Request entity too large: limit is "
				       "3145728"));
	CHECK(r.body && strstr(r.body, "\"reason\":\"RequestEntityTooLarge\""));
	CHECK(srv_count() == before);
	reply_free(&r);
	/* more than twice the limit: answered at its header, unread. The
	 * close with the body unread resets the connection, and a client
	 * still sending may lose the 413 to it (a slow run, under a
	 * sanitizer, does): a 413 or a reset, never the upstream. */
	char *huge = malloc(2 * lim + 1);
	memset(huge, 'h', 2 * lim + 1);
	request(&r, "POST", "/api/v1/namespaces/a/configmaps", NULL, huge,
		2 * lim + 1, false, 30000);
	CHECK(r.code == 413 || (r.code == -1 && (r.rc == CURLE_SEND_ERROR ||
						 r.rc == CURLE_RECV_ERROR)));
	CHECK(r.code != 413 ||
	      (r.body &&
	       strstr(r.body, "\"reason\":\"RequestEntityTooLarge\"")));
	CHECK(srv_count() == before);
	reply_free(&r);
	free(huge);
	/* chunked, known too large only on the way: 413 too */
	request(&r, "POST", "/api/v1/namespaces/a/configmaps", te, big, lim + 1,
		true, 30000);
	CHECK(r.code == 413);
	CHECK(r.body && strstr(r.body, "\"reason\":\"RequestEntityTooLarge\""));
	reply_free(&r);
	free(big);
	stop_proxy();
}

/* Nobody listening, or nobody answering. */
static void test_upstream_failures(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0); /* a port nobody listens on */
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	bind(s, (struct sockaddr *)&a, sizeof(a));
	getsockname(s, (struct sockaddr *)&a, &al);
	int dead = ntohs(a.sin_port);
	close(s);
	start_proxy(dead, NULL, false, 0);
	struct reply r;
	request(&r, "GET", "/api/v1/nodes", NULL, NULL, 0, false, 10000);
	CHECK(r.code == 503);
	CHECK(reply_has(&r, "Retry-After: 1"));
	CHECK(r.body &&
	      strstr(r.body, "the upstream apiserver could not be reached"));
	CHECK(r.body && strstr(r.body, "\"reason\":\"ServiceUnavailable\""));
	reply_free(&r);
	stop_proxy();

	/* a silent upstream: cut at the request timeout */
	start_proxy(srv.port, NULL, false, 1);
	srv_script(NULL, true);
	request(&r, "GET", "/api/v1/nodes", NULL, NULL, 0, false, 10000);
	CHECK(r.code == 503);
	CHECK(r.ms >= 900 && r.ms < 5000);
	reply_free(&r);
	/* a watch is long-running: not cut (the client gives up first) */
	request(&r, "GET", "/api/v1/nodes?watch=true", NULL, NULL, 0, false,
		2500);
	CHECK(r.code == -1 && r.rc == CURLE_OPERATION_TIMEDOUT);
	CHECK(r.ms >= 2400);
	reply_free(&r);
	/* nor is exec */
	request(&r, "GET", "/api/v1/namespaces/a/pods/p/exec?command=sh", NULL,
		NULL, 0, false, 2500);
	CHECK(r.code == -1 && r.rc == CURLE_OPERATION_TIMEDOUT);
	reply_free(&r);
	srv_script(OK_JSON, false);
	stop_proxy();
	srv_settle();
}

/* A watch streams: its first event reaches the client before the
 * upstream ends it; the client leaving ends the upstream transfer. */
static void test_streaming(void)
{
	start_proxy(srv.port, NULL, false, 1);
	srv_script("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		   "Transfer-Encoding: chunked\r\n\r\n"
		   "1d\r\n{\"type\":\"ADDED\",\"object\":{}}\n\r\n",
		   true);
	struct reply r;
	request(&r, "GET", "/api/v1/namespaces/a/events?watch=1", NULL, NULL, 0,
		false, 1500);
	CHECK(r.rc == CURLE_OPERATION_TIMEDOUT);
	CHECK(r.body &&
	      !strcmp(r.body, "{\"type\":\"ADDED\",\"object\":{}}\n"));
	CHECK(reply_has(&r, "Content-Type: application/json"));
	reply_free(&r);
	/* the proxy hangs up upstream soon (it looks once a second) */
	CHECK(__atomic_load_n(&srv.busy, __ATOMIC_ACQUIRE));
	CHECK(srv_free_after(5000) < 2500);
	stop_proxy();
}

/* A read given the cache's shape (proxy_pass_shape): read whole, each
 * object stripped, never compressed; what is not a JSON 200 goes as it
 * came; one past the bound, or cut short, is a Status, never half. */
static void test_shape(void)
{
	start_proxy(srv.port, NULL, false, 0);
	srv_script(
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
		"21\r\n{\"kind\":\"PodList\",\"items\":[{\"meta\r\n"
		"35\r\ndata\":{\"name\":\"a\",\"managedFields\":[1],\"x\":{\"y\":1}}}]}"
		"\r\n0\r\n\r\n",
		false);
	const char *gz[] = { "Accept-Encoding: gzip", NULL };
	struct reply r;
	request(&r, "GET", "/api/v1/pods?shape=1", gz, NULL, 0, false, 10000);
	CHECK(r.code == 200 && r.body);
	CHECK(r.body &&
	      !strcmp(r.body, "{\"kind\":\"PodList\",\"items\":[{\"metadata\":"
			      "{\"name\":\"a\",\"x\":{}}}]}"));
	CHECK(reply_has(&r, "Content-Length: 61"));
	CHECK(head_count("Accept-Encoding") == 0);
	reply_free(&r);
	/* not shaped: the client's Accept-Encoding goes on */
	request(&r, "GET", "/api/v1/pods", gz, NULL, 0, false, 10000);
	CHECK(r.code == 200 && r.body && strstr(r.body, "managedFields"));
	CHECK(head_count("Accept-Encoding") == 1);
	reply_free(&r);

	/* an error Status goes as it came */
	srv_script(
		"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
		"Content-Length: 28\r\nConnection: close\r\n\r\n"
		"{\"kind\":\"Status\",\"code\":404}",
		false);
	request(&r, "GET", "/api/v1/namespaces/a/pods/x?shape=1", NULL, NULL, 0,
		false, 10000);
	CHECK(r.code == 404 && r.body &&
	      !strcmp(r.body, "{\"kind\":\"Status\",\"code\":404}"));
	reply_free(&r);

	/* past the bound: a 500 Status, not half an answer */
	up.page_max = 40;
	srv_script(
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		"Content-Length: 54\r\nConnection: close\r\n\r\n"
		"{\"kind\":\"PodList\",\"items\":[{\"metadata\":{\"name\":\"a\"}}]}",
		false);
	request(&r, "GET", "/api/v1/pods?shape=1", NULL, NULL, 0, false, 10000);
	CHECK(r.code == 500 && r.body &&
	      strstr(r.body, "larger than 40 bytes"));
	reply_free(&r);
	up.page_max = 0;

	/* cut short by the upstream: a 503 Status */
	srv_script("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		   "Content-Length: 90\r\nConnection: close\r\n\r\n"
		   "{\"kind\":\"PodList\",",
		   false);
	request(&r, "GET", "/api/v1/pods?shape=1", NULL, NULL, 0, false, 10000);
	CHECK(r.code == 503 && r.body && strstr(r.body, "ended early"));
	reply_free(&r);
	srv_script(OK_JSON, false);
	stop_proxy();
}

/* Once the upstream has the request, end the pool's watches (the drain's
 * first step) after delay_ms, from another thread. */
static void *end_watches_later(void *arg)
{
	long delay_ms = (long)(intptr_t)arg;
	for (int i = 0;
	     i < 1000 && !__atomic_load_n(&srv.busy, __ATOMIC_ACQUIRE); i++)
		usleep(10 * 1000);
	usleep((useconds_t)delay_ms * 1000);
	proxy_pass_pool_end_watches(pool);
	return NULL;
}

/* Whether b (len bytes) is whole lines: what a watch's client may see
 * end, never half an event. */
static bool whole_lines(const char *b, size_t len)
{
	return !len || b[len - 1] == '\n';
}

/* The drain ends a forwarded watch as a complete stream, at an event's
 * end: the client reads to the terminating chunk (no error), while the
 * upstream still holds the watch open. Other requests are not cut. */
static void test_drain_ends_watches(void)
{
	start_proxy(srv.port, NULL, false, 0);
	srv_script("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		   "Transfer-Encoding: chunked\r\n\r\n"
		   "1d\r\n{\"type\":\"ADDED\",\"object\":{}}\n\r\n"
		   "20\r\n{\"type\":\"MODIFIED\",\"object\":{}}\n\r\n",
		   true);
	pthread_t t;
	pthread_create(&t, NULL, end_watches_later, (void *)(intptr_t)300);
	struct reply r;
	request(&r, "GET", "/api/v1/namespaces/a/events?watch=1", NULL, NULL, 0,
		false, 20000);
	pthread_join(t, NULL);
	CHECK(r.rc == CURLE_OK && r.code == 200);
	CHECK(whole_lines(r.body, r.len));
	CHECK(!r.len || !strncmp(r.body, "{\"type\":\"ADDED\"", 15));
	reply_free(&r);
	CHECK(srv_free_after(5000) < 5000); /* and the upstream let go */

	/* an event half sent is finished first: the stream does not end
	 * until its rest comes (here never: the client gives up) */
	stop_proxy();
	start_proxy(srv.port, NULL, false, 0);
	srv_script(
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		"Transfer-Encoding: chunked\r\n\r\n"
		"2a\r\n{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":\"MOD\r\n",
		true);
	pthread_create(&t, NULL, end_watches_later, (void *)(intptr_t)500);
	request(&r, "GET", "/api/v1/namespaces/a/events?watch=1", NULL, NULL, 0,
		false, 2500);
	pthread_join(t, NULL);
	/* ended between the two (the half had not reached the client), or
	 * waiting for the rest of the second */
	CHECK(r.rc == CURLE_OK ? whole_lines(r.body, r.len) :
				 r.rc == CURLE_OPERATION_TIMEDOUT);
	reply_free(&r);
	srv_free_after(5000);

	/* a request that is not a watch is not cut */
	srv_script("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		   "Transfer-Encoding: chunked\r\n\r\n"
		   "1d\r\n{\"type\":\"ADDED\",\"object\":{}}\n\r\n",
		   true);
	request(&r, "GET", "/api/v1/namespaces/a/events", NULL, NULL, 0, false,
		1500);
	CHECK(r.rc == CURLE_OPERATION_TIMEDOUT);
	reply_free(&r);
	srv_free_after(5000);
	srv_script(OK_JSON, false);
	stop_proxy();
}

/* An upstream faster than its client: paused above the high water mark,
 * resumed as the client drains, every byte delivered once, in order. */
static void test_backpressure(void)
{
	size_t n = 4 * 1024 * 1024;
	const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 4194304\r\n"
			   "Connection: close\r\n\r\n";
	size_t hl = strlen(head);
	char *resp = malloc(hl + n + 1);
	memcpy(resp, head, hl);
	for (size_t i = 0; i < n; i++)
		resp[hl + i] = (char)('a' + (i * 7 + i / 4096) % 26);
	resp[hl + n] = '\0';
	start_proxy(srv.port, NULL, false, 0);
	srv_script(resp, false);
	struct reply r;
	CURL *h = curl_easy_init();
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v1/pods", mhd_port);
	memset(&r, 0, sizeof(r));
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &r);
	curl_easy_setopt(h, CURLOPT_MAX_RECV_SPEED_LARGE,
			 (curl_off_t)(4 * 1024 * 1024));
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 30L);
	CHECK(curl_easy_perform(h) == CURLE_OK);
	curl_easy_cleanup(h);
	CHECK(r.len == n);
	CHECK(r.body && r.len == n && !memcmp(r.body, resp + hl, n));
	reply_free(&r);
	stop_proxy();
	srv_script(OK_JSON, false);
	srv_settle();
	/* the upstream thread may still be writing resp to a connection the
	 * proxy left: free it only once that connection is done */
	CHECK(srv_free_after(10000) < 10000);
	free(resp);
}

/* A client that leaves before the upstream has answered a thing: the
 * upstream transfer ends with it, not when the upstream answers. */
static void test_leave_before_headers(void)
{
	start_proxy(srv.port, NULL, false, 0);
	srv_script(NULL, true);
	struct reply r;
	request(&r, "GET", "/api/v1/pods?watch=true", NULL, NULL, 0, false,
		500);
	CHECK(r.rc == CURLE_OPERATION_TIMEDOUT);
	reply_free(&r);
	/* the proxy hangs up upstream soon (it looks once a second) */
	CHECK(__atomic_load_n(&srv.busy, __ATOMIC_ACQUIRE));
	CHECK(srv_free_after(5000) < 2500);
	srv_script(OK_JSON, false);
	stop_proxy();
}

/* What cannot be forwarded is refused, never sent half-made. */
static void test_refusals(void)
{
	/* a token file the proxy cannot read: a lent identity is refused ... */
	struct config_upstream bad = { .server = "http://127.0.0.1",
				       .url_base = "http://127.0.0.1",
				       .token_file = "/nonexistent/token" };
	pthread_mutex_init(&bad.lock, NULL);
	bad.lock_ready = true;
	start_proxy(srv.port, &bad, true, 0);
	srv_script(OK_JSON, false);
	int before = srv_count();
	struct reply r;
	request(&r, "GET", "/api/v1/pods", NULL, NULL, 0, false, 10000);
	CHECK(r.code == 503);
	CHECK(r.body && strstr(r.body, "cannot forward this request"));
	CHECK(srv_count() == before);
	reply_free(&r);
	/* ... a client's own credentials do not need it */
	const char *own[] = { "Authorization: Bearer mine", NULL };
	request(&r, "GET", "/api/v1/pods", own, NULL, 0, false, 10000);
	CHECK(r.code == 200);
	CHECK(head_has("Authorization: Bearer mine"));
	reply_free(&r);

	/* out of memory making the request: 503, nothing forwarded */
	before = srv_count();
	alloc_fail_after(1);
	request(&r, "GET", "/api/v1/pods", own, NULL, 0, false, 10000);
	long failed = alloc_failures();
	alloc_fail_after(0);
	CHECK(failed == 1);
	CHECK(r.code == 503);
	CHECK(srv_count() == before);
	reply_free(&r);

	/* a stopped pool refuses rather than leave the client suspended */
	proxy_pass_pool_stop(pool);
	request(&r, "GET", "/api/v1/pods", own, NULL, 0, false, 10000);
	CHECK(r.code == 503);
	CHECK(r.body && strstr(r.body, "informer-proxy is shutting down"));
	CHECK(srv_count() == before);
	reply_free(&r);
	stop_proxy();
	pthread_mutex_destroy(&bad.lock);
	free(bad.cached_token);
}

int main(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CHECK(srv_start() == 0);
	char *paths[] = { "metadata.x.y" };
	CHECK(cache_scope_init(&shape_scope, NULL, NULL, NULL, paths, 1) == 0);
	test_client_credentials();
	test_lent_identity();
	test_anonymous();
	test_response();
	test_no_body();
	test_target();
	test_bodies();
	test_upstream_failures();
	test_streaming();
	test_leave_before_headers();
	test_drain_ends_watches();
	test_shape();
	test_backpressure();
	test_refusals();
	srv_stop();
	cache_scope_free(&shape_scope);
	curl_global_cleanup();
	return check_done("pass");
}
