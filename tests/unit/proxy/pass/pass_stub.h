/*
 * pass_stub: what the passthrough unit tests share (test_pass.c,
 * test_pass_pool.c): a capturing upstream on 127.0.0.1:0 that records
 * each request's head and body whole and answers as scripted
 * (srv_script), a minimal libmicrohttpd daemon on 127.0.0.1:0 that calls
 * proxy_pass_handle/proxy_pass_done as dispatch.c does (start_proxy,
 * stop_proxy; a target with shape=1 is shaped with shape_scope, which the
 * test sets up), and a libcurl client (request).
 *
 * Threads: the upstream serves one connection at a time on a thread of
 * its own; its record (srv.head, srv.body, srv.nreq) is read under
 * srv.lock by the helpers here. One test binary includes this once.
 */
#ifndef TESTS_PASS_STUB_H
#define TESTS_PASS_STUB_H

#include <curl/curl.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "cache/scope.h"
#include "cache/upstream.h"
#include "config/kubeconfig.h"
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

static inline void srv_serve(int c)
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

static inline void *srv_run(void *arg)
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

static inline int srv_start(void)
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

static inline void srv_stop(void)
{
	__atomic_store_n(&srv.stop, true, __ATOMIC_RELEASE);
	pthread_join(srv.thread, NULL);
	close(srv.fd);
	free(srv.body);
	pthread_mutex_destroy(&srv.lock);
}

static inline void srv_script(const char *response, bool hold)
{
	pthread_mutex_lock(&srv.lock);
	srv.response = response;
	srv.hold = hold;
	srv.head[0] = '\0';
	pthread_mutex_unlock(&srv.lock);
}

static inline int srv_count(void)
{
	pthread_mutex_lock(&srv.lock);
	int n = srv.nreq;
	pthread_mutex_unlock(&srv.lock);
	return n;
}

/* How long until the upstream's connection is closed, in ms (up to
 * max_ms): when a client leaves, the proxy should hang up upstream. */
static inline long srv_free_after(long max_ms)
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
static inline void srv_settle(void)
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
static inline int head_count(const char *name)
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
static inline bool head_has(const char *line)
{
	char want[512];
	snprintf(want, sizeof(want), "\r\n%s\r\n", line);
	pthread_mutex_lock(&srv.lock);
	bool has = strstr(srv.head, want) != NULL;
	pthread_mutex_unlock(&srv.lock);
	return has;
}

static inline bool head_line_is(const char *line)
{
	pthread_mutex_lock(&srv.lock);
	size_t l = strlen(line);
	bool is = !strncmp(srv.head, line, l) &&
		  !strncmp(srv.head + l, "\r\n", 2);
	pthread_mutex_unlock(&srv.lock);
	return is;
}

/* ---- the proxy side: dispatch.c's passthrough path, reduced ---- */

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

static inline void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct rq *r = calloc(1, sizeof(*r));
	if (r)
		r->raw = strdup(uri);
	return r;
}

static inline enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
					 const char *url, const char *method,
					 const char *version,
					 const char *upload,
					 size_t *upload_size, void **state)
{
	struct rq *r = *state;
	if (!r || !r->raw)
		return MHD_NO;
	bool first = !r->pass;
	enum MHD_Result ret = proxy_pass_handle(pool, c, r->raw, method, upload,
						upload_size, &r->pass);
	/* dispatch.c's forwarded read of a cached resource, with its strip
	 * paths: the first call made the pass, the next starts it */
	if (first && r->pass && strstr(r->raw, "shape=1")) {
		if (proxy_pass_shape(r->pass, &shape_scope, true))
			return MHD_NO;
		return proxy_pass_handle(pool, c, r->raw, method, upload,
					 upload_size, &r->pass);
	}
	return ret;
}

static inline void on_completed(void *cls, struct MHD_Connection *c,
				void **state,
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
static inline void start_proxy(int port, struct config_upstream *creds,
			       bool lend, int timeout_s)
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

static inline void stop_proxy(void)
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

static inline size_t on_body(char *p, size_t size, size_t n, void *cls)
{
	struct reply *r = cls;
	r->body = realloc(r->body, r->len + size * n + 1);
	memcpy(r->body + r->len, p, size * n);
	r->len += size * n;
	r->body[r->len] = '\0';
	return size * n;
}

static inline size_t on_hdr(char *p, size_t size, size_t n, void *cls)
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

static inline size_t on_read(char *out, size_t size, size_t n, void *cls)
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
static inline void request(struct reply *r, const char *method,
			   const char *target, const char *const *hdrs,
			   const char *body, size_t blen, bool chunked,
			   long timeout_ms)
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

static inline void reply_free(struct reply *r)
{
	free(r->body);
	r->body = NULL;
}

static inline bool reply_has(const struct reply *r, const char *name)
{
	char want[256];
	snprintf(want, sizeof(want), "\n%s", name);
	return strcasestr(r->hdrs, want) != NULL;
}

#define OK_JSON                                                 \
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" \
	"Content-Length: 2\r\nConnection: close\r\n\r\n{}"

#endif
