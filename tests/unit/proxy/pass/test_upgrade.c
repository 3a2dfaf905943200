/*
 * test_upgrade: upgrade requests (proxy/pass/upgrade.c) through a minimal
 * libmicrohttpd daemon that calls proxy_upgrade_handle/proxy_upgrade_done as
 * dispatch.c does, to a scripted upstream on 127.0.0.1:0, with raw client
 * sockets.
 *
 * Covered: which requests count as upgrades (the Connection token list);
 * the request line keeps the server URL's path prefix and the target,
 * Host is the server's; the 101 and the bytes both ways; the limit of
 * streams at once (429 with Retry-After, and room again once one ends);
 * a refusal (304, 204, 403) framed so the next request on the connection
 * is answered right;
 * server URLs the module refuses; allocation failure of the pool.
 * Identity, TLS, timeouts and kubectl are covered end to end
 * (tests/e2e/test_upgrade*.py).
 */
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

#include "cache/upstream.h"
#include "config/alloc.h"
#include "proxy/pass/upgrade.h"
#include "check.h"

/* ---- a scripted upstream: 101, then echo until EOF ---- */

struct upstream {
	int fd, port;
	pthread_t t;
	pthread_mutex_t lock;
	char last_head[2048]; /* locked */
	int accepted;	      /* locked */
};

static void *echo_conn(void *arg)
{
	int c = (int)(intptr_t)arg;
	char b[4096];
	ssize_t n = recv(c, b, sizeof(b) - 1, 0);
	(void)n;
	/* a refusal instead, when the request asks for one */
	static const char *const refusals[][2] = {
		{ "refuse=304", "HTTP/1.1 304 Not Modified\r\nETag: \"e\"\r\n"
				"Transfer-Encoding: chunked\r\n\r\n" },
		{ "refuse=204",
		  "HTTP/1.1 204 No Content\r\nAudit-Id: 9\r\n\r\n" },
		{ "refuse=403",
		  "HTTP/1.1 403 Forbidden\r\nContent-Length: 2\r\n\r\n{}" },
	};
	b[n > 0 ? n : 0] = '\0';
	for (size_t i = 0; n > 0 && i < sizeof(refusals) / sizeof(*refusals);
	     i++)
		if (strstr(b, refusals[i][0])) {
			(void)!send(c, refusals[i][1], strlen(refusals[i][1]),
				    MSG_NOSIGNAL);
			goto out;
		}
	static const char ok[] = "HTTP/1.1 101 Switching Protocols\r\n"
				 "Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
				 "X-Stream-Protocol-Version: v4.channel.k8s.io"
				 "\r\n\r\n";
	if (send(c, ok, strlen(ok), MSG_NOSIGNAL) < 0)
		goto out;
	while ((n = recv(c, b, sizeof(b), 0)) > 0)
		if (send(c, b, (size_t)n, MSG_NOSIGNAL) < 0)
			break;
out:
	close(c);
	return NULL;
}

static void *accept_loop(void *arg)
{
	struct upstream *u = arg;
	for (;;) {
		int c = accept(u->fd, NULL, NULL);
		if (c < 0)
			return NULL;
		char head[2048];
		ssize_t n = recv(c, head, sizeof(head) - 1, MSG_PEEK);
		head[n > 0 ? n : 0] = '\0';
		pthread_mutex_lock(&u->lock);
		snprintf(u->last_head, sizeof(u->last_head), "%s", head);
		u->accepted++;
		pthread_mutex_unlock(&u->lock);
		pthread_t t;
		pthread_create(&t, NULL, echo_conn, (void *)(intptr_t)c);
		pthread_detach(t);
	}
}

static int upstream_start(struct upstream *u)
{
	memset(u, 0, sizeof(*u));
	pthread_mutex_init(&u->lock, NULL);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	u->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (u->fd < 0 || bind(u->fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(u->fd, 16) || getsockname(u->fd, (struct sockaddr *)&a, &l))
		return -1;
	u->port = ntohs(a.sin_port);
	return pthread_create(&u->t, NULL, accept_loop, u);
}

static void upstream_stop(struct upstream *u)
{
	shutdown(u->fd, SHUT_RDWR);
	close(u->fd);
	pthread_join(u->t, NULL);
	pthread_mutex_destroy(&u->lock);
}

/* ---- the daemon: dispatch.c's calls, nothing else ---- */

static struct proxy_upgrade_pool *pool;
static int wanted_seen = -1; /* proxy_upgrade_wanted() of the last request */

/* Per request, as dispatch.c keeps it: the target as received (from the
 * URI log callback) and the upgrade's state. */
struct req {
	char *raw;
	struct proxy_upgrade *u;
};

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct req *r = calloc(1, sizeof(*r));
	if (r)
		r->raw = strdup(uri);
	return r;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct req *r = *state;
	if (!r || !r->raw)
		return MHD_NO;
	if (!strcmp(url, "/probe")) {
		wanted_seen = proxy_upgrade_wanted(c);
		struct MHD_Response *resp = MHD_create_response_from_buffer(
			0, "", MHD_RESPMEM_PERSISTENT);
		enum MHD_Result ret = MHD_queue_response(c, 204, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	return proxy_upgrade_handle(pool, c, r->raw, method, upload_size,
				    &r->u);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
			 enum MHD_RequestTerminationCode toe)
{
	struct req *r = *state;
	if (r) {
		proxy_upgrade_done(r->u);
		free(r->raw);
		free(r);
	}
	*state = NULL;
}

static struct MHD_Daemon *daemon_start(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME |
			MHD_ALLOW_UPGRADE,
		0, NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR,
		(struct sockaddr *)&a, MHD_OPTION_NOTIFY_COMPLETED,
		on_completed, NULL, MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
		MHD_OPTION_END);
	const union MHD_DaemonInfo *i =
		d ? MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT) : NULL;
	*port = i ? i->port : 0;
	return d;
}

/* ---- a raw client ---- */

static int dial(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read until the head's end (and what came after, up to n bytes), or
 * 5 s; returns the bytes read. */
static size_t read_head(int fd, char *out, size_t n)
{
	size_t got = 0;
	out[0] = '\0';
	while (got + 1 < n && !strstr(out, "\r\n\r\n")) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 20000) <= 0)
			break;
		ssize_t k = recv(fd, out + got, n - 1 - got, 0);
		if (k <= 0)
			break;
		got += (size_t)k;
		out[got] = '\0';
	}
	return got;
}

static const char *req(const char *extra)
{
	static char b[1024];
	snprintf(
		b, sizeof(b),
		"POST /api/v1/namespaces/a/pods/b/exec?command=cat HTTP/1.1\r\n"
		"Host: client\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
		"%s\r\n",
		extra);
	return b;
}

static int open_stream(int port, char *head, size_t n)
{
	int fd = dial(port);
	const char *r = req("");
	if (fd < 0 || send(fd, r, strlen(r), 0) < 0)
		return -1;
	read_head(fd, head, n);
	return fd;
}

static void probe_as(int port, const char *conn_hdr, const char *upgrade)
{
	char r[512], head[1024];
	snprintf(r, sizeof(r), "GET /probe HTTP/1.1\r\nHost: x\r\n%s%s\r\n",
		 conn_hdr, upgrade);
	int fd = dial(port);
	wanted_seen = -1;
	if (fd >= 0 && send(fd, r, strlen(r), 0) > 0)
		read_head(fd, head, sizeof(head));
	if (fd >= 0)
		close(fd);
}

static void probe(int port, const char *conn_hdr, bool with_upgrade)
{
	probe_as(port, conn_hdr, with_upgrade ? "Upgrade: websocket\r\n" : "");
}

static void test_wanted(int port)
{
	probe(port, "Connection: Upgrade\r\n", true);
	CHECK(wanted_seen == 1);
	probe(port, "Connection: keep-alive, upgrade\r\n", true);
	CHECK(wanted_seen == 1);
	probe(port, "Connection: Upgrade\r\n", false); /* no Upgrade */
	CHECK(wanted_seen == 0);
	probe(port, "Connection: upgraded\r\n", true); /* not the token */
	CHECK(wanted_seen == 0);
	probe(port, "", true);
	CHECK(wanted_seen == 0);
	probe_as(port, "Connection: Upgrade\r\n", "Upgrade: SPDY/3.1\r\n");
	CHECK(wanted_seen == 1);
	probe_as(port, "Connection: Upgrade\r\n", "Upgrade: WebSocket\r\n");
	CHECK(wanted_seen == 1);
	/* curl --http2 on http:// asks for h2c: not an upgrade we make */
	probe_as(port, "Connection: Upgrade, HTTP2-Settings\r\n",
		 "Upgrade: h2c\r\n");
	CHECK(wanted_seen == 0);
}

static void test_splice_and_head(int port, struct upstream *up)
{
	char head[2048];
	int fd = open_stream(port, head, sizeof(head));
	CHECK(fd >= 0 && !strncmp(head, "HTTP/1.1 101", 12));
	CHECK(strstr(head, "\r\nUpgrade: SPDY/3.1\r\n") != NULL);
	CHECK(strstr(head, "X-Stream-Protocol-Version: v4.channel.k8s.io") !=
	      NULL);
	CHECK(send(fd, "ping", 4, 0) == 4);
	char b[8] = "";
	struct pollfd p = { .fd = fd, .events = POLLIN };
	CHECK(poll(&p, 1, 5000) == 1 && recv(fd, b, sizeof(b), 0) == 4 &&
	      !memcmp(b, "ping", 4));
	close(fd);
	pthread_mutex_lock(&up->lock);
	char want[256];
	/* the server URL's path, then the target as the client sent it */
	CHECK(!strncmp(up->last_head,
		       "POST /base/api/v1/namespaces/a/pods/b/exec?command=cat "
		       "HTTP/1.1\r\n",
		       63));
	snprintf(want, sizeof(want), "\r\nHost: 127.0.0.1:%d\r\n", up->port);
	CHECK(strstr(up->last_head, want) != NULL);
	CHECK(strstr(up->last_head, "Host: client") == NULL);
	CHECK(strstr(up->last_head, "\r\nConnection: Upgrade\r\n") != NULL);
	pthread_mutex_unlock(&up->lock);
}

/* A refused upgrade (the upstream answers anything but 101) is passed
 * on as an answer HTTP frames: none of a 304's or 204's body or
 * Transfer-Encoding, so the next request on the connection is answered
 * and parsed right (the probe's 204 follows the first head at once). */
static void test_refusal_framing(int port)
{
	static const char *const codes[] = { "304", "204", "403" };
	for (size_t i = 0; i < sizeof(codes) / sizeof(*codes); i++) {
		char r[512], got[8192];
		snprintf(r, sizeof(r),
			 "GET /api/v1/namespaces/a/pods/b/exec?refuse=%s "
			 "HTTP/1.1\r\nHost: client\r\nConnection: Upgrade\r\n"
			 "Upgrade: SPDY/3.1\r\n\r\n",
			 codes[i]);
		int fd = dial(port);
		CHECK(fd >= 0 && send(fd, r, strlen(r), 0) > 0);
		size_t n = read_head(fd, got, sizeof(got));
		char *end = strstr(got, "\r\n\r\n");
		CHECK(end && !strncmp(got + 9, codes[i], 3));
		CHECK(end &&
		      !memmem(got, (size_t)(end - got), "Transfer-Enc", 12));
		if (!strcmp(codes[i], "304"))
			CHECK(strstr(got, "\r\nETag: \"e\"\r\n") != NULL);
		if (!strcmp(codes[i], "204"))
			CHECK(end && !memmem(got, (size_t)(end - got),
					     "Content-Length", 14));
		/* a stray body, if any, is in by now */
		struct pollfd p = { .fd = fd, .events = POLLIN };
		while (n + 1 < sizeof(got) && poll(&p, 1, 300) == 1) {
			ssize_t k = recv(fd, got + n, sizeof(got) - 1 - n, 0);
			if (k <= 0)
				break;
			n += (size_t)k;
			got[n] = '\0';
		}
		const char *probe = "GET /probe HTTP/1.1\r\nHost: x\r\n\r\n";
		CHECK(send(fd, probe, strlen(probe), MSG_NOSIGNAL) > 0);
		while (n + 1 < sizeof(got) && poll(&p, 1, 5000) == 1) {
			ssize_t k = recv(fd, got + n, sizeof(got) - 1 - n, 0);
			if (k <= 0)
				break;
			n += (size_t)k;
			got[n] = '\0';
			if (strstr(end ? end + 4 : got, "\r\n\r\n"))
				break;
		}
		const char *body = end ? end + 4 : "";
		if (!strcmp(codes[i], "403")) /* its body, then the next */
			body += strncmp(body, "{}", 2) ? 0 : 2;
		CHECK(!strncmp(body, "HTTP/1.1 204 ", 13));
		if (strncmp(body, "HTTP/1.1 204 ", 13))
			fprintf(stderr, "after the %s head: [%s]\n", codes[i],
				body);
		close(fd);
	}
}

static void test_limit(int port)
{
	char head[2048];
	/* max_streams is 2 */
	int a = open_stream(port, head, sizeof(head));
	CHECK(!strncmp(head, "HTTP/1.1 101", 12));
	int b = open_stream(port, head, sizeof(head));
	CHECK(!strncmp(head, "HTTP/1.1 101", 12));
	CHECK(proxy_upgrade_pool_active(pool) == 2);
	int c = open_stream(port, head, sizeof(head));
	CHECK(!strncmp(head, "HTTP/1.1 429", 12));
	CHECK(strstr(head, "Retry-After: 1") != NULL);
	if (c >= 0)
		close(c);
	close(a); /* room again once one has ended */
	for (int i = 0; i < 1000 && proxy_upgrade_pool_active(pool) > 1; i++) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	CHECK(proxy_upgrade_pool_active(pool) == 1);
	c = open_stream(port, head, sizeof(head));
	CHECK(!strncmp(head, "HTTP/1.1 101", 12));
	close(b);
	if (c >= 0)
		close(c);
	for (int i = 0; i < 1000 && proxy_upgrade_pool_active(pool) > 0; i++) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	CHECK(proxy_upgrade_pool_active(pool) == 0);
}

static void test_bad_servers(void)
{
	static const char *const bad[] = { "ftp://x",
					   "http://",
					   "http://[::1",
					   "https://h:123456",
					   "http://h:x1",
					   "http://h:0",
					   "x" };
	char err[256];
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct cache_upstream up = { .server = bad[i] };
		err[0] = '\0';
		struct proxy_upgrade_pool *p = proxy_upgrade_pool_new(
			&up, true, 1, 0, err, sizeof(err));
		CHECK(p == NULL && err[0]);
		proxy_upgrade_pool_free(p);
	}
	static const char *const good[] = { "https://[::1]:6443",
					    "http://h/prefix", "https://h" };
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		struct cache_upstream up = { .server = good[i] };
		struct proxy_upgrade_pool *p = proxy_upgrade_pool_new(
			&up, true, 1, 0, err, sizeof(err));
		CHECK(p != NULL);
		proxy_upgrade_pool_free(p);
	}
}

static void test_alloc_failure(void)
{
	struct cache_upstream up = { .server = "http://127.0.0.1:1" };
	char err[256];
	struct proxy_upgrade_pool *p = NULL;
	int n;
	for (n = 1; n < 50; n++) {
		alloc_fail_after(n);
		p = proxy_upgrade_pool_new(&up, true, 1, 0, err, sizeof(err));
		long failed = alloc_failures();
		alloc_fail_after(0);
		if (!failed)
			break;
		CHECK(p == NULL);
	}
	CHECK(p != NULL);
	proxy_upgrade_pool_free(p);
}

int main(void)
{
	struct upstream up;
	int port = 0;
	char url[64], err[256];
	CHECK(upstream_start(&up) == 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/base", up.port);
	struct cache_upstream cu = { .server = url };
	pool = proxy_upgrade_pool_new(&cu, true, 5, 2, err, sizeof(err));
	CHECK(pool != NULL);
	struct MHD_Daemon *d = daemon_start(&port);
	CHECK(d != NULL && port);
	if (pool && d) {
		test_wanted(port);
		test_splice_and_head(port, &up);
		test_refusal_framing(port);
		test_limit(port);
	}
	proxy_upgrade_pool_stop(pool);
	if (d)
		MHD_stop_daemon(d);
	proxy_upgrade_pool_free(pool);
	upstream_stop(&up);
	test_bad_servers();
	test_alloc_failure();
	return check_done("upgrade");
}
