/*
 * http_stub: a scripted HTTP/1.1 server on 127.0.0.1:0 for unit tests of
 * the upstream client, the probe and the reflector, which need bytes from
 * a server but not the fake apiserver.
 *
 * One thread answers connections one at a time. A request goes to the
 * first route whose match is a substring of its request line; a route
 * with once set is skipped after its first use. The response text is
 * written as is (status line, headers, body) and the connection closed,
 * unless hold is set: then it stays open, silent, until the stub stops.
 * Unmatched requests get a 404. The last request lines are recorded.
 */
#ifndef TESTS_HTTP_STUB_H
#define TESTS_HTTP_STUB_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct http_stub_route {
	const char *match;
	const char *response;
	bool once, hold;
	bool used;
};

struct http_stub {
	int fd, port;
	pthread_t thread;
	struct http_stub_route *routes;
	int nroutes;
	bool stop; /* atomic */
	pthread_mutex_t lock;
	int nreq;	     /* locked */
	char req[32][512];   /* locked: request lines, then a body */
	char body[32][1024]; /* locked: each request's body (its start) */
};

static inline bool http_stub_stopping(struct http_stub *s)
{
	return __atomic_load_n(&s->stop, __ATOMIC_ACQUIRE);
}

/* Read one request (headers and a Content-Length body) from c. */
static inline void http_stub_serve(struct http_stub *s, int c)
{
	char buf[8192];
	size_t n = 0;
	char *end = NULL;
	while (!end && n < sizeof(buf) - 1) {
		struct pollfd p = { c, POLLIN, 0 };
		if (poll(&p, 1, 50) == 0) {
			if (http_stub_stopping(s))
				return;
			continue;
		}
		ssize_t r = read(c, buf + n, sizeof(buf) - 1 - n);
		if (r <= 0)
			return;
		n += (size_t)r;
		buf[n] = '\0';
		end = strstr(buf, "\r\n\r\n");
	}
	if (!end)
		return;
	const char *cl = strcasestr(buf, "\r\ncontent-length:");
	size_t want = cl ? (size_t)atol(cl + 17) : 0;
	size_t have = n - (size_t)(end + 4 - buf);
	while (have < want && n < sizeof(buf) - 1) {
		ssize_t r = read(c, buf + n, sizeof(buf) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		have += (size_t)r;
		buf[n] = '\0';
	}
	char line[512];
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(buf, "\r"), buf);
	struct http_stub_route *route = NULL;
	pthread_mutex_lock(&s->lock);
	if (s->nreq < 32) {
		snprintf(s->req[s->nreq], sizeof(s->req[0]), "%s", line);
		snprintf(s->body[s->nreq], sizeof(s->body[0]), "%s", end + 4);
		s->nreq++;
	}
	for (int i = 0; i < s->nroutes && !route; i++)
		if (strstr(line, s->routes[i].match) &&
		    !(s->routes[i].once && s->routes[i].used))
			route = &s->routes[i];
	if (route)
		route->used = true;
	pthread_mutex_unlock(&s->lock);
	const char *resp =
		route ? route->response :
			"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
	size_t len = strlen(resp), off = 0;
	while (off < len) {
		ssize_t w = write(c, resp + off, len - off);
		if (w <= 0)
			return;
		off += (size_t)w;
	}
	while (route && route->hold && !http_stub_stopping(s)) {
		struct pollfd p = { c, POLLIN, 0 };
		if (poll(&p, 1, 50) > 0 && read(c, buf, sizeof(buf)) <= 0)
			return; /* the client hung up */
	}
}

static inline void *http_stub_run(void *arg)
{
	struct http_stub *s = arg;
	while (!http_stub_stopping(s)) {
		struct pollfd p = { s->fd, POLLIN, 0 };
		if (poll(&p, 1, 50) <= 0)
			continue;
		int c = accept(s->fd, NULL, NULL);
		if (c < 0)
			continue;
		http_stub_serve(s, c);
		close(c);
	}
	return NULL;
}

/* Listen and start answering with routes (n of them, owned by the
 * caller, alive until http_stub_stop). Returns 0 or -1. */
static inline int http_stub_start(struct http_stub *s,
				  struct http_stub_route *routes, int n)
{
	memset(s, 0, sizeof(*s));
	s->routes = routes;
	s->nroutes = n;
	pthread_mutex_init(&s->lock, NULL);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(s->fd, 16) || getsockname(s->fd, (struct sockaddr *)&a, &al))
		return -1;
	s->port = ntohs(a.sin_port);
	return pthread_create(&s->thread, NULL, http_stub_run, s) ? -1 : 0;
}

static inline void http_stub_stop(struct http_stub *s)
{
	__atomic_store_n(&s->stop, true, __ATOMIC_RELEASE);
	pthread_join(s->thread, NULL);
	close(s->fd);
	pthread_mutex_destroy(&s->lock);
}

/* How many requests so far. */
static inline int http_stub_count(struct http_stub *s)
{
	pthread_mutex_lock(&s->lock);
	int n = s->nreq;
	pthread_mutex_unlock(&s->lock);
	return n;
}

#endif
