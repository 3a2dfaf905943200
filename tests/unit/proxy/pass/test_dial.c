/*
 * test_dial: proxy/pass/dial.c against real sockets on 127.0.0.1, a scripted
 * server thread per case: connecting (and failing to), the stop check
 * ending every wait, the request sent and the upstream's answer read
 * (101 with the stream's first bytes, a Content-Length body on a
 * connection left open, chunked, to EOF, too large, not HTTP, silence),
 * non-blocking read and write, the half-close, and TLS against a CA made
 * here in-process: trusted, wrong name, untrusted, insecure.
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "config/upstream.h"
#include "proxy/pass/dial.h"
#include "certs.h"
#include "check.h"

static char err[256];

/* ---- a scripted server: one connection, one behaviour ---- */

struct srv {
	int lfd, port;
	char portstr[8];
	pthread_t t;
	void (*fn)(struct srv *s, int c);
	const char *resp; /* what reply() writes */
	size_t resp_len;  /* 0: strlen(resp) */
	bool hold;	  /* reply(): keep the connection open after */
	SSL_CTX *tls;	  /* tls_srv(): the server's context */
	/* written by the server thread, read after srv_join() */
	char got[4096];
	size_t got_len;
	bool saw_eof;
	bool tls_ok;
	char peer_cn[64]; /* tls_srv(): the client certificate's CN, or "" */
};

/* Read until the end of a request head (or EOF, or 5 s). */
static void read_head(struct srv *s, int c)
{
	while (s->got_len < sizeof(s->got) - 1) {
		ssize_t r = recv(c, s->got + s->got_len,
				 sizeof(s->got) - 1 - s->got_len, 0);
		if (r <= 0)
			return;
		s->got_len += (size_t)r;
		s->got[s->got_len] = '\0';
		if (strstr(s->got, "\r\n\r\n"))
			return;
	}
}

/* Wait for the client to close (or 5 s, the socket's timeout). */
static void until_closed(int c)
{
	char b[4096];
	while (recv(c, b, sizeof(b), 0) > 0)
		;
}

static void put(int c, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(c, p, n, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* The request head, then resp in one write; closed unless hold. */
static void reply(struct srv *s, int c)
{
	read_head(s, c);
	put(c, s->resp, s->resp_len ? s->resp_len : strlen(s->resp));
	if (s->hold)
		until_closed(c);
}

/* The request head, then resp a few bytes at a time, then held open:
 * the answer's end must be found across reads. */
static void trickle(struct srv *s, int c)
{
	read_head(s, c);
	size_t n = strlen(s->resp);
	for (size_t i = 0; i < n; i += 7) {
		put(c, s->resp + i, n - i < 7 ? n - i : 7);
		usleep(2000);
	}
	until_closed(c);
}

/* Says nothing; waits for the client to give up. */
static void silent(struct srv *s, int c)
{
	read_head(s, c);
	until_closed(c);
}

/* Reads to EOF (the client's half-close), then still answers. */
static void after_eof(struct srv *s, int c)
{
	ssize_t r = 0;
	while (s->got_len < sizeof(s->got) - 1 &&
	       (r = recv(c, s->got + s->got_len,
			 sizeof(s->got) - 1 - s->got_len, 0)) > 0)
		s->got_len += (size_t)r;
	s->saw_eof = r == 0;
	put(c, "pong", 4);
}

/* TLS: handshake, read a request head, answer resp (a 101 and bytes). */
static void tls_srv(struct srv *s, int c)
{
	SSL *ssl = SSL_new(s->tls);
	SSL_set_fd(ssl, c);
	if (SSL_accept(ssl) == 1) {
		s->tls_ok = true;
		X509 *peer = SSL_get1_peer_certificate(ssl);
		if (peer)
			X509_NAME_get_text_by_NID(X509_get_subject_name(peer),
						  NID_commonName, s->peer_cn,
						  sizeof(s->peer_cn));
		X509_free(peer);
		while (s->got_len < sizeof(s->got) - 1 &&
		       !strstr(s->got, "\r\n\r\n")) {
			int r = SSL_read(
				ssl, s->got + s->got_len,
				(int)(sizeof(s->got) - 1 - s->got_len));
			if (r <= 0)
				break;
			s->got_len += (size_t)r;
			s->got[s->got_len] = '\0';
		}
		SSL_write(ssl, s->resp, (int)strlen(s->resp));
		char b[256];
		while (SSL_read(ssl, b, sizeof(b)) > 0)
			;
	}
	SSL_free(ssl);
}

static void *srv_run(void *arg)
{
	struct srv *s = arg;
	struct pollfd p = { s->lfd, POLLIN, 0 };
	if (poll(&p, 1, 5000) != 1)
		return NULL;
	int c = accept(s->lfd, NULL, NULL);
	if (c < 0)
		return NULL;
	struct timeval tv = { 5, 0 }; /* no case may hang the test */
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	s->fn(s, c);
	close(c);
	return NULL;
}

/* A listening socket on 127.0.0.1; with fn, a thread serving one
 * connection with it. */
static int srv_start(struct srv *s, void (*fn)(struct srv *, int))
{
	s->fn = fn;
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(s->lfd, 4) || getsockname(s->lfd, (struct sockaddr *)&a, &l))
		return -1;
	s->port = ntohs(a.sin_port);
	snprintf(s->portstr, sizeof(s->portstr), "%d", s->port);
	return fn && pthread_create(&s->t, NULL, srv_run, s) ? -1 : 0;
}

static void srv_join(struct srv *s)
{
	if (s->fn)
		pthread_join(s->t, NULL);
	close(s->lfd);
}

/* ---- the client side ---- */

static bool stop_at(void *cls)
{
	return proxy_dial_now() >= *(const double *)cls;
}

/* Connected to s, or d.fd -1. */
static struct proxy_dial dial(struct srv *s)
{
	struct proxy_dial d = { .fd = -1 };
	err[0] = '\0';
	d.fd = proxy_dial_tcp(&d, "127.0.0.1", s->portstr, proxy_dial_now() + 5,
			      err, sizeof(err));
	CHECK(d.fd >= 0);
	return d;
}

static const char request[] =
	"GET /api/v1/namespaces/a/pods/b/exec HTTP/1.1\r\n"
	"Host: upstream\r\nConnection: Upgrade\r\n"
	"Upgrade: SPDY/3.1\r\n\r\n";

/* The value of header name in a's list, or NULL. */
static const char *hdr(const struct proxy_dial_answer *a, const char *name)
{
	for (size_t i = 0; i < a->hdrs.len;) {
		const char *k = a->hdrs.p + i, *v = k + strlen(k) + 1;
		if (!strcmp(k, name))
			return v;
		i = (size_t)(v - a->hdrs.p) + strlen(v) + 1;
	}
	return NULL;
}

static bool body_is(const struct buf *b, const char *s)
{
	return b->len == strlen(s) && (!b->len || !memcmp(b->p, s, b->len));
}

/* A request to a server answering resp (held open or not), and the
 * answer read with head_max and a deadline of secs: proxy_dial_answer's
 * return, with *a and *code. */
static int ask(void (*fn)(struct srv *, int), const char *resp, bool hold,
	       size_t head_max, double secs, struct proxy_dial_answer *a,
	       unsigned *code)
{
	struct srv s = { .resp = resp, .hold = hold };
	CHECK(srv_start(&s, fn) == 0);
	struct proxy_dial d = dial(&s);
	double deadline = proxy_dial_now() + secs;
	CHECK(proxy_dial_send(&d, request, strlen(request), deadline) == 0);
	*code = 0;
	err[0] = '\0';
	int rc = proxy_dial_answer(&d, a, head_max, 4096, deadline, code, err,
				   sizeof(err));
	if (rc)
		CHECK(err[0] != '\0');
	close(d.fd);
	srv_join(&s);
	CHECK(strstr(s.got, "GET /api/v1/namespaces/a/pods/b/exec") != NULL);
	return rc;
}

/* ---- TCP ---- */

static void test_tcp(void)
{
	struct srv s = { 0 };
	CHECK(srv_start(&s, NULL) == 0); /* the kernel completes connect */
	struct proxy_dial d = dial(&s);
	if (d.fd >= 0) {
		CHECK(fcntl(d.fd, F_GETFL) & O_NONBLOCK);
		int v = 0;
		socklen_t l = sizeof(v);
		CHECK(getsockopt(d.fd, IPPROTO_TCP, TCP_NODELAY, &v, &l) == 0 &&
		      v);
		v = 0;
		CHECK(getsockopt(d.fd, SOL_SOCKET, SO_KEEPALIVE, &v, &l) == 0 &&
		      v);
		close(d.fd);
	}
	srv_join(&s);

	/* a port nobody listens on: bound, then closed */
	CHECK(srv_start(&s, NULL) == 0);
	srv_join(&s);
	struct proxy_dial c = { .fd = -1 };
	err[0] = '\0';
	CHECK(proxy_dial_tcp(&c, "127.0.0.1", s.portstr, proxy_dial_now() + 5,
			     err, sizeof(err)) == -1);
	CHECK(strstr(err, "cannot connect to 127.0.0.1:") != NULL);
	CHECK(strstr(err, "refused") != NULL);

	/* a name that does not parse as a port */
	err[0] = '\0';
	CHECK(proxy_dial_tcp(&c, "127.0.0.1", "no-such-service",
			     proxy_dial_now() + 5, err, sizeof(err)) == -1);
	CHECK(strstr(err, "cannot resolve 127.0.0.1") != NULL);
}

/* A listener whose accept queue is full and is never accepted from:
 * a further connect is left waiting (Linux drops the SYN), so only the
 * stop check can end it. Bounded: it returns, well before the deadline. */
static void test_tcp_stop(void)
{
	struct srv s = { 0 };
	CHECK(srv_start(&s, NULL) == 0);
	listen(s.lfd, 0);
	int fill[8], nfill = 0;
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons((uint16_t)s.port) };
	/* fill the queue: connects that complete at once */
	for (; nfill < 8; nfill++) {
		fill[nfill] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		int r = connect(fill[nfill], (struct sockaddr *)&a, sizeof(a));
		struct pollfd p = { fill[nfill], POLLOUT, 0 };
		if (r && (errno != EINPROGRESS || poll(&p, 1, 200) != 1)) {
			nfill++;
			break; /* this one is left waiting: the queue is full */
		}
	}
	double t0 = proxy_dial_now(), stop = t0 + 0.3;
	struct proxy_dial d = { .fd = -1, .stopping = stop_at, .cls = &stop };
	err[0] = '\0';
	int fd = proxy_dial_tcp(&d, "127.0.0.1", s.portstr, t0 + 60, err,
				sizeof(err));
	double took = proxy_dial_now() - t0;
	CHECK(fd == -1);
	CHECK(strstr(err, "timed out") != NULL);
	CHECK(took < 30); /* it returned, long before the deadline */
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < nfill; i++)
		close(fill[i]);
	srv_join(&s);
}

/* ---- the answer ---- */

static void test_answer_101(void)
{
	struct proxy_dial_answer a = { 0 };
	unsigned code;
	CHECK(ask(reply,
		  "HTTP/1.1 101 Switching Protocols\r\n"
		  "Connection: Upgrade\r\nUpgrade:  SPDY/3.1 \r\n"
		  "X-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n"
		  "\x01stream bytes",
		  true, 65536, 5, &a, &code) == 0);
	CHECK(a.status == 101);
	CHECK_STR(hdr(&a, "Upgrade"), "SPDY/3.1"); /* value trimmed */
	CHECK_STR(hdr(&a, "X-Stream-Protocol-Version"), "v4.channel.k8s.io");
	CHECK(body_is(&a.extra, "\x01stream bytes"));
	CHECK(a.body.len == 0);
	proxy_dial_answer_free(&a);

	/* a small head followed at once by more stream bytes than
	 * head_max: head_max bounds the head, not the read that ends it */
	static char burst[64 + 1000 + 1];
	int n = snprintf(burst, sizeof(burst),
			 "HTTP/1.1 101 Switching Protocols\r\n\r\n");
	memset(burst + n, 'x', 1000);
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply, burst, true, 512, 5, &a, &code) == 0);
	CHECK(a.status == 101);
	CHECK(a.extra.len == 1000);
	proxy_dial_answer_free(&a);

	/* nothing after the head: extra is empty */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply, "HTTP/1.1 101 Switching Protocols\r\n\r\n", true,
		  65536, 5, &a, &code) == 0);
	CHECK(a.status == 101 && a.extra.len == 0);
	proxy_dial_answer_free(&a);
}

static void test_answer_length(void)
{
	/* left open after the body: the answer ends at the length, not at
	 * the deadline (which would be a 504) */
	static const char forbidden[] =
		"HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n"
		"Content-Length: 25\r\n\r\n"
		"{\"kind\":\"Status\",\"a\":403}";
	struct proxy_dial_answer a = { 0 };
	unsigned code;
	CHECK(ask(reply, forbidden, true, 65536, 5, &a, &code) == 0);
	CHECK(a.status == 403);
	CHECK_STR(hdr(&a, "Content-Type"), "application/json");
	CHECK(body_is(&a.body, "{\"kind\":\"Status\",\"a\":403}"));
	proxy_dial_answer_free(&a);

	/* the same, a few bytes at a time */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(trickle, forbidden, true, 65536, 5, &a, &code) == 0);
	CHECK(a.status == 403);
	CHECK(body_is(&a.body, "{\"kind\":\"Status\",\"a\":403}"));
	proxy_dial_answer_free(&a);

	/* bytes past the length are not the body's */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply,
		  "HTTP/1.1 401 Unauthorized\r\nContent-Length: 4\r\n\r\n"
		  "nopeGARBAGE",
		  true, 65536, 5, &a, &code) == 0);
	CHECK(a.status == 401 && body_is(&a.body, "nope"));
	proxy_dial_answer_free(&a);

	/* no body at all, left open */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply,
		  "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", true,
		  65536, 5, &a, &code) == 0);
	CHECK(a.status == 400 && a.body.len == 0);
	proxy_dial_answer_free(&a);

	/* a 204 has no body, whatever follows */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply, "HTTP/1.1 204 No Content\r\n\r\n", true, 65536, 5, &a,
		  &code) == 0);
	CHECK(a.status == 204 && a.body.len == 0);
	proxy_dial_answer_free(&a);
	/* nor a 304, even when bytes came in the read that ended its head */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply, "HTTP/1.1 304 Not Modified\r\n\r\nleftover bytes",
		  true, 65536, 5, &a, &code) == 0);
	CHECK(a.status == 304 && a.body.len == 0);
	proxy_dial_answer_free(&a);

	/* longer than body_max (4096 in ask): 503 */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply,
		  "HTTP/1.1 403 Forbidden\r\nContent-Length: 5000\r\n\r\n",
		  true, 65536, 5, &a, &code) == -1);
	CHECK(code == 503);
	CHECK(strstr(err, "too large") != NULL);
	proxy_dial_answer_free(&a);

	/* a body without a length or chunks, longer than body_max and come
	 * with the head in one read: 503, not a body past the limit */
	static char big[128 + 5000];
	int hl = snprintf(big, sizeof(big),
			  "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain"
			  "\r\n\r\n");
	memset(big + hl, 'x', 5000);
	big[hl + 5000] = '\0';
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply, big, false, 65536, 5, &a, &code) == -1);
	CHECK(code == 503);
	proxy_dial_answer_free(&a);

	/* the same, chunked: one chunk of 5000 */
	hl = snprintf(big, sizeof(big),
		      "HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: chunked"
		      "\r\n\r\n1388\r\n");
	memset(big + hl, 'x', 5000);
	snprintf(big + hl + 5000, sizeof(big) - (size_t)hl - 5000,
		 "\r\n0\r\n\r\n");
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply, big, true, 65536, 5, &a, &code) == -1);
	CHECK(code == 503);
	proxy_dial_answer_free(&a);

	/* closed before the length: 503, ended early */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply,
		  "HTTP/1.1 403 Forbidden\r\nContent-Length: 50\r\n\r\nshort",
		  false, 65536, 5, &a, &code) == -1);
	CHECK(code == 503);
	CHECK(strstr(err, "ended early") != NULL);
	proxy_dial_answer_free(&a);
}

static void test_answer_chunked(void)
{
	static const char chunked[] =
		"HTTP/1.1 500 Internal Server Error\r\n"
		"Transfer-Encoding: chunked\r\n\r\n"
		"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n";
	struct proxy_dial_answer a = { 0 };
	unsigned code;
	CHECK(ask(reply, chunked, true, 65536, 5, &a, &code) == 0);
	CHECK(a.status == 500 && body_is(&a.body, "hello world"));
	proxy_dial_answer_free(&a);

	/* split anywhere across reads, held open: still whole at the last
	 * chunk */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(trickle, chunked, true, 65536, 5, &a, &code) == 0);
	CHECK(a.status == 500 && body_is(&a.body, "hello world"));
	proxy_dial_answer_free(&a);

	/* with a trailer */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply,
		  "HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "3\r\nabc\r\n0\r\nX-Trailer: t\r\n\r\n",
		  true, 65536, 5, &a, &code) == 0);
	CHECK(a.status == 403 && body_is(&a.body, "abc"));
	proxy_dial_answer_free(&a);

	/* closed before the last chunk: 503 */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply,
		  "HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "3\r\nabc\r\n",
		  false, 65536, 5, &a, &code) == -1);
	CHECK(code == 503);
	proxy_dial_answer_free(&a);
}

static void test_answer_eof(void)
{
	struct proxy_dial_answer a = { 0 };
	unsigned code;
	CHECK(ask(reply, "HTTP/1.0 404 Not Found\r\n\r\nall of it, to the end",
		  false, 65536, 5, &a, &code) == 0);
	CHECK(a.status == 404 && body_is(&a.body, "all of it, to the end"));
	proxy_dial_answer_free(&a);
}

static void test_answer_bad(void)
{
	/* a head larger than head_max: 503 */
	char big[2048];
	int n = snprintf(big, sizeof(big), "HTTP/1.1 403 Forbidden\r\n");
	while (n < 1800)
		n += snprintf(big + n, sizeof(big) - (size_t)n,
			      "X-Filler: %040d\r\n", n);
	snprintf(big + n, sizeof(big) - (size_t)n, "\r\n");
	struct proxy_dial_answer a = { 0 };
	unsigned code;
	CHECK(ask(reply, big, true, 512, 5, &a, &code) == -1);
	CHECK(code == 503);
	CHECK(strstr(err, "too large") != NULL);
	proxy_dial_answer_free(&a);
	/* the same, a few bytes at a time: reading stops at head_max */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(trickle, big, true, 512, 5, &a, &code) == -1);
	CHECK(code == 503);
	CHECK(strstr(err, "too large") != NULL);
	proxy_dial_answer_free(&a);

	/* not HTTP, with a blank line and without (then closed) */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply, "SSH-2.0-OpenSSH_9.6\r\n\r\n", true, 65536, 5, &a,
		  &code) == -1);
	CHECK(code == 503);
	CHECK(strstr(err, "not HTTP") != NULL);
	proxy_dial_answer_free(&a);
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply, "\x16\x03\x01\x02\x00garbage", false, 65536, 5, &a,
		  &code) == -1);
	CHECK(code == 503);
	proxy_dial_answer_free(&a);
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply, "HTTP/2 200\r\n\r\n", true, 65536, 5, &a, &code) ==
	      -1);
	CHECK(code == 503);
	proxy_dial_answer_free(&a);
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply, "HTTP/1.1 999 Nine\r\n\r\n", true, 65536, 5, &a,
		  &code) == -1);
	CHECK(code == 503);
	proxy_dial_answer_free(&a);

	/* closed without a word: 503 */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(reply, "", false, 65536, 5, &a, &code) == -1);
	CHECK(code == 503);
	proxy_dial_answer_free(&a);

	/* silence: 504 at the deadline */
	a = (struct proxy_dial_answer){ 0 };
	CHECK(ask(silent, NULL, false, 65536, 0.5, &a, &code) == -1);
	CHECK(code == 504);
	CHECK(strstr(err, "in time") != NULL);
	proxy_dial_answer_free(&a);
}

/* Silence with a far deadline: the stop check ends the wait. */
static void test_answer_stop(void)
{
	struct srv s = { 0 };
	CHECK(srv_start(&s, silent) == 0);
	struct proxy_dial d = dial(&s);
	double t0 = proxy_dial_now(), stop = t0 + 0.3;
	d.stopping = stop_at;
	d.cls = &stop;
	struct proxy_dial_answer a = { 0 };
	unsigned code = 0;
	CHECK(proxy_dial_send(&d, request, strlen(request), t0 + 60) == 0);
	CHECK(proxy_dial_answer(&d, &a, 65536, 4096, t0 + 60, &code, err,
				sizeof(err)) == -1);
	CHECK(code == 503); /* not the deadline's 504 */
	CHECK(proxy_dial_now() - t0 < 30);
	proxy_dial_answer_free(&a);

	/* sending once stopping: gives up rather than wait for room */
	close(d.fd);
	srv_join(&s);
}

/* ---- byte I/O ---- */

static void test_read_write(void)
{
	struct srv s = { 0 };
	CHECK(srv_start(&s, NULL) == 0);
	struct proxy_dial d = dial(&s);
	int c = accept(s.lfd, NULL, NULL);
	CHECK(c >= 0);
	char b[64];
	short want = 0;
	/* nothing yet: would block, wanting to read */
	CHECK(proxy_dial_read(&d, b, sizeof(b), &want) == -2);
	CHECK(want == POLLIN);

	CHECK(proxy_dial_write(&d, "abc", 3, &want) == 3);
	CHECK(recv(c, b, sizeof(b), 0) == 3 && !memcmp(b, "abc", 3));

	/* the peer reads nothing: writes fill the buffers, then block */
	int small = 4096;
	setsockopt(d.fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	setsockopt(c, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	static char chunk[65536];
	ssize_t w = 0;
	long total = 0;
	want = 0;
	for (int i = 0;
	     i < 4096 &&
	     (w = proxy_dial_write(&d, chunk, sizeof(chunk), &want)) > 0;
	     i++)
		total += w;
	CHECK(w == -2);
	CHECK(want == POLLOUT);
	CHECK(total > 0);

	/* the peer sends and closes: the bytes, then EOF */
	CHECK(send(c, "xyz", 3, 0) == 3);
	close(c);
	struct pollfd p = { d.fd, POLLIN, 0 };
	CHECK(poll(&p, 1, 5000) == 1);
	CHECK(proxy_dial_read(&d, b, sizeof(b), &want) == 3);
	CHECK(!memcmp(b, "xyz", 3));
	ssize_t r;
	while ((r = proxy_dial_read(&d, b, sizeof(b), &want)) == -2)
		poll(&p, 1, 5000);
	/* the peer closed with our bytes unread: a reset, not a clean end,
	 * is allowed here; a clean EOF is tested below */
	CHECK(r == 0 || r == -1);
	close(d.fd);
	srv_join(&s);

	/* a clean close: 0 */
	CHECK(srv_start(&s, NULL) == 0);
	d = dial(&s);
	c = accept(s.lfd, NULL, NULL);
	CHECK(c >= 0);
	close(c);
	p.fd = d.fd;
	CHECK(poll(&p, 1, 5000) == 1);
	CHECK(proxy_dial_read(&d, b, sizeof(b), &want) == 0);
	/* writing to a closed peer fails, without SIGPIPE */
	for (int i = 0;
	     i < 100 && (w = proxy_dial_write(&d, "x", 1, &want)) > 0; i++)
		usleep(1000);
	CHECK(w == -1);
	close(d.fd);
	srv_join(&s);
}

static void test_shut_write(void)
{
	struct srv s = { 0 };
	CHECK(srv_start(&s, after_eof) == 0);
	struct proxy_dial d = dial(&s);
	CHECK(proxy_dial_send(&d, "ping", 4, proxy_dial_now() + 5) == 0);
	proxy_dial_shut_write(&d);
	/* the server sees "ping" then EOF, and still answers */
	char b[16];
	size_t got = 0;
	short want = 0;
	ssize_t r;
	struct pollfd p = { d.fd, POLLIN, 0 };
	while ((r = proxy_dial_read(&d, b + got, sizeof(b) - got, &want)) !=
	       0) {
		if (r == -1 || (r == -2 && poll(&p, 1, 5000) != 1))
			break;
		if (r > 0)
			got += (size_t)r;
	}
	CHECK(r == 0);
	CHECK(got == 4 && !memcmp(b, "pong", 4));
	close(d.fd);
	srv_join(&s);
	CHECK(s.saw_eof);
	CHECK(s.got_len == 4 && !memcmp(s.got, "ping", 4));
}

/* ---- TLS ---- */

static EVP_PKEY *ca_key, *other_key, *srv_key, *cli_key;
static X509 *ca_cert, *other_cert, *srv_cert, *cli_cert;
static char ca_pem[4096], other_pem[4096], cli_pem[4096], cli_key_pem[4096];
static char peer_cn[64]; /* the last tls_try()'s client CN, or "" */
static char ca_path[64];

/* A CA when san is NULL, else a leaf with that subjectAltName; valid from
 * a minute ago for an hour. */
static X509 *cert_make(EVP_PKEY *key, const char *cn, X509 *ica, EVP_PKEY *ikey,
		       const char *san)
{
	return test_cert_make(key, cn, 1, ica, ikey, -60, 3600, san);
}

static void pem_of(X509 *x, char *out, size_t n)
{
	BIO *b = BIO_new(BIO_s_mem());
	PEM_write_bio_X509(b, x);
	int r = BIO_read(b, out, (int)n - 1);
	out[r > 0 ? r : 0] = '\0';
	BIO_free(b);
}

static void tls_setup(void)
{
	ca_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	other_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	srv_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	ca_cert = cert_make(ca_key, "test-ca", NULL, NULL, NULL);
	other_cert = cert_make(other_key, "other-ca", NULL, NULL, NULL);
	srv_cert = cert_make(srv_key, "upstream", ca_cert, ca_key,
			     "DNS:upstream.test,IP:127.0.0.1");
	cli_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	cli_cert = cert_make(cli_key, "proxy-client", ca_cert, ca_key,
			     "DNS:proxy-client");
	pem_of(cli_cert, cli_pem, sizeof(cli_pem));
	BIO *b = BIO_new(BIO_s_mem());
	PEM_write_bio_PrivateKey(b, cli_key, NULL, NULL, 0, NULL, NULL);
	int r = BIO_read(b, cli_key_pem, (int)sizeof(cli_key_pem) - 1);
	cli_key_pem[r > 0 ? r : 0] = '\0';
	BIO_free(b);
	pem_of(ca_cert, ca_pem, sizeof(ca_pem));
	pem_of(other_cert, other_pem, sizeof(other_pem));
	snprintf(ca_path, sizeof(ca_path), "/tmp/test_dial_ca_XXXXXX");
	int fd = mkstemp(ca_path);
	CHECK(fd >= 0);
	CHECK(write(fd, ca_pem, strlen(ca_pem)) == (ssize_t)strlen(ca_pem));
	close(fd);
}

static void tls_teardown(void)
{
	unlink(ca_path);
	X509_free(ca_cert);
	X509_free(other_cert);
	X509_free(srv_cert);
	X509_free(cli_cert);
	EVP_PKEY_free(cli_key);
	EVP_PKEY_free(ca_key);
	EVP_PKEY_free(other_key);
	EVP_PKEY_free(srv_key);
}

/* proxy_dial_tls to a TLS server as name, trusting cr, presenting cr's
 * client certificate with client_cert: its return. On success, a
 * request and the 101 answer over TLS. The server asks for a client
 * certificate (our CA's) and puts its CN in peer_cn. */
static int tls_try_as(const struct config_upstream *cr, const char *name,
		      bool client_cert)
{
	struct srv s = { .resp = "HTTP/1.1 101 Switching Protocols\r\n\r\nhi" };
	s.tls = SSL_CTX_new(TLS_server_method());
	SSL_CTX_use_certificate(s.tls, srv_cert);
	SSL_CTX_use_PrivateKey(s.tls, srv_key);
	X509_STORE_add_cert(SSL_CTX_get_cert_store(s.tls), ca_cert);
	SSL_CTX_set_verify(s.tls, SSL_VERIFY_PEER, NULL);
	CHECK(srv_start(&s, tls_srv) == 0);
	struct proxy_dial d = dial(&s);
	double deadline = proxy_dial_now() + 5;
	err[0] = '\0';
	int rc = proxy_dial_tls(&d, cr, name, client_cert, deadline, err,
				sizeof(err));
	if (rc == 0) {
		CHECK(d.ssl != NULL);
		CHECK(proxy_dial_send(&d, request, strlen(request), deadline) ==
		      0);
		struct proxy_dial_answer a = { 0 };
		unsigned code = 0;
		CHECK(proxy_dial_answer(&d, &a, 65536, 4096, deadline, &code,
					err, sizeof(err)) == 0);
		CHECK(a.status == 101);
		/* "hi" came with the head or comes next */
		char b[8];
		short want;
		size_t got = a.extra.len;
		if (got == 2)
			CHECK(!memcmp(a.extra.p, "hi", 2));
		struct pollfd p = { d.fd, POLLIN, 0 };
		ssize_t r = 0;
		while (got < 2 &&
		       ((r = proxy_dial_read(&d, b, sizeof(b), &want)) > 0 ||
			(r == -2 && poll(&p, 1, 5000) == 1)))
			if (r > 0)
				got += (size_t)r;
		CHECK(got == 2);
		proxy_dial_answer_free(&a);
		proxy_dial_shut_write(&d);
	} else {
		CHECK(err[0] != '\0');
	}
	proxy_dial_tls_free(&d);
	CHECK(d.ssl == NULL && d.ctx == NULL);
	close(d.fd);
	srv_join(&s);
	if (rc == 0)
		CHECK(s.tls_ok && strstr(s.got, "GET /api/v1/") != NULL);
	snprintf(peer_cn, sizeof(peer_cn), "%s", s.peer_cn);
	SSL_CTX_free(s.tls);
	return rc;
}

static int tls_try(const struct config_upstream *cr, const char *name)
{
	return tls_try_as(cr, name, false);
}

static void test_tls(void)
{
	tls_setup();
	struct config_upstream cr = { 0 };

	/* the CA as bytes (a kubeconfig's certificate-authority-data) */
	cr.ca.data = (unsigned char *)ca_pem;
	cr.ca.len = strlen(ca_pem);
	CHECK(tls_try(&cr, "upstream.test") == 0);
	CHECK(tls_try(&cr, "127.0.0.1") == 0); /* an IP SAN */

	/* a name the certificate does not carry */
	CHECK(tls_try(&cr, "other.test") == -1);
	CHECK(strstr(err, "not trusted") != NULL);
	CHECK(tls_try(&cr, "127.0.0.2") == -1);
	CHECK(strstr(err, "not trusted") != NULL);

	/* the CA as a file */
	cr = (struct config_upstream){ 0 };
	cr.ca.path = ca_path;
	CHECK(tls_try(&cr, "upstream.test") == 0);

	/* a CA that did not sign the server's certificate */
	cr = (struct config_upstream){ 0 };
	cr.ca.data = (unsigned char *)other_pem;
	cr.ca.len = strlen(other_pem);
	CHECK(tls_try(&cr, "upstream.test") == -1);
	CHECK(strstr(err, "not trusted") != NULL);

	/* no CA given: the system roots, which do not know ours */
	CHECK(tls_try(NULL, "upstream.test") == -1);

	/* CA bytes that hold no certificate */
	cr.ca.data = (unsigned char *)"not a PEM";
	cr.ca.len = 9;
	CHECK(tls_try(&cr, "upstream.test") == -1);
	CHECK(strstr(err, "cannot load the upstream CA") != NULL);

	/* insecure-skip-tls-verify: neither the CA nor the name checked */
	cr = (struct config_upstream){ .insecure_skip_tls_verify = true };
	CHECK(tls_try(&cr, "upstream.test") == 0);
	CHECK(tls_try(&cr, "other.test") == 0);
	cr.ca.data = (unsigned char *)other_pem;
	cr.ca.len = strlen(other_pem);
	CHECK(tls_try(&cr, "other.test") == 0);

	/* the client certificate, as bytes: presented only when asked */
	cr = (struct config_upstream){ 0 };
	cr.ca.data = (unsigned char *)ca_pem;
	cr.ca.len = strlen(ca_pem);
	cr.cert.data = (unsigned char *)cli_pem;
	cr.cert.len = strlen(cli_pem);
	cr.key.data = (unsigned char *)cli_key_pem;
	cr.key.len = strlen(cli_key_pem);
	CHECK(tls_try_as(&cr, "upstream.test", true) == 0);
	CHECK_STR(peer_cn, "proxy-client");
	CHECK(tls_try_as(&cr, "upstream.test", false) == 0);
	CHECK_STR(peer_cn, "");

	/* a key that is not PEM: the client certificate cannot load */
	cr.key.data = (unsigned char *)"not a key";
	cr.key.len = 9;
	CHECK(tls_try_as(&cr, "upstream.test", true) == -1);
	CHECK(strstr(err, "client certificate") != NULL);

	tls_teardown();
}

/* A server that accepts TCP and never speaks TLS: the handshake waits
 * until the stop check ends it. */
static void test_tls_stop(void)
{
	struct srv s = { 0 };
	CHECK(srv_start(&s, silent) == 0);
	struct proxy_dial d = dial(&s);
	double t0 = proxy_dial_now(), stop = t0 + 0.3;
	d.stopping = stop_at;
	d.cls = &stop;
	struct config_upstream cr = { .insecure_skip_tls_verify = true };
	err[0] = '\0';
	CHECK(proxy_dial_tls(&d, &cr, "upstream.test", false, t0 + 60, err,
			     sizeof(err)) == -1);
	CHECK(strstr(err, "timed out") != NULL);
	CHECK(proxy_dial_now() - t0 < 30);
	proxy_dial_tls_free(&d);
	close(d.fd);
	srv_join(&s);
}

int main(void)
{
	test_tcp();
	test_tcp_stop();
	test_answer_101();
	test_answer_length();
	test_answer_chunked();
	test_answer_eof();
	test_answer_bad();
	test_answer_stop();
	test_read_write();
	test_shut_write();
	test_tls();
	test_tls_stop();
	return check_done("dial");
}
