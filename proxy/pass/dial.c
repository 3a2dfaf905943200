/*
 * dial: a raw upstream connection for upgrades (see dial.h).
 */
#include "proxy/pass/dial.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config/upstream.h"

#define STOP_POLL_MS 200 /* how soon a wait notices a stop */
#define READ_CHUNK 16384 /* one recv_until read */

double proxy_dial_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait for fd to be ready for ev until deadline; 1 ready, 0 timed out
 * or stopping, -1 error. Polls in slices so a stop is noticed. */
static int wait_fd(struct proxy_dial *d, int fd, short ev, double deadline)
{
	for (;;) {
		if (d->stopping && d->stopping(d->cls))
			return 0;
		double left = deadline - proxy_dial_now();
		if (left <= 0)
			return 0;
		int ms = left * 1000 > STOP_POLL_MS ? STOP_POLL_MS :
						      (int)(left * 1000) + 1;
		struct pollfd p = { .fd = fd, .events = ev };
		int n = poll(&p, 1, ms);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

int proxy_dial_tcp(struct proxy_dial *d, const char *host, const char *port,
		   double deadline, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_ADDRCONFIG };
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve %.100s: %s", host,
			 gai_strerror(rc));
		return -1;
	}
	int fd = -1;
	for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family,
			    a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    a->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) &&
		    errno != EINPROGRESS) {
			snprintf(err, errlen, "cannot connect to %.100s:%s: %s",
				 host, port, strerror(errno));
			close(fd);
			fd = -1;
			continue;
		}
		int w = wait_fd(d, fd, POLLOUT, deadline);
		int soerr = 0;
		socklen_t sl = sizeof(soerr);
		if (w > 0)
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		if (w <= 0 || soerr) {
			snprintf(err, errlen, "cannot connect to %.100s:%s: %s",
				 host, port,
				 w == 0 ? "timed out" :
					  strerror(soerr ? soerr : errno));
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd >= 0) {
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	return fd;
}

/* PEM certificates from bytes into the context's trust store. */
static int add_ca_data(SSL_CTX *ctx, const struct config_pem *pem)
{
	BIO *b = BIO_new_mem_buf(pem->data, (int)pem->len);
	X509_STORE *st = SSL_CTX_get_cert_store(ctx);
	int n = 0;
	X509 *x;
	while (b && (x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
		if (X509_STORE_add_cert(st, x) == 1)
			n++;
		X509_free(x);
	}
	ERR_clear_error(); /* the end of the bytes */
	BIO_free(b);
	return n ? 0 : -1;
}

static int use_cert_data(SSL_CTX *ctx, const struct config_pem *cert,
			 const struct config_pem *key)
{
	BIO *b = BIO_new_mem_buf(cert->data, (int)cert->len);
	X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
	int rc = x && SSL_CTX_use_certificate(ctx, x) == 1 ? 0 : -1;
	X509_free(x);
	while (!rc && (x = PEM_read_bio_X509(b, NULL, NULL, NULL)))
		if (SSL_CTX_add_extra_chain_cert(ctx, x) != 1) {
			X509_free(x);
			rc = -1;
		}
	ERR_clear_error();
	BIO_free(b);
	if (rc)
		return rc;
	b = BIO_new_mem_buf(key->data, (int)key->len);
	EVP_PKEY *k = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
	rc = k && SSL_CTX_use_PrivateKey(ctx, k) == 1 ? 0 : -1;
	EVP_PKEY_free(k);
	BIO_free(b);
	return rc;
}

/* The TLS context for one connection: files are read again each time,
 * so a rotated CA or client certificate is used, as by libcurl. */
static SSL_CTX *tls_ctx(const struct config_upstream *cr, bool client_cert,
			char *err, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
				      SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	int rc = 0;
	if (cr && cr->ca.path)
		rc = SSL_CTX_load_verify_locations(ctx, cr->ca.path, NULL) ==
				     1 ?
			     0 :
			     -1;
	else if (cr && cr->ca.data)
		rc = add_ca_data(ctx, &cr->ca);
	else
		rc = SSL_CTX_set_default_verify_paths(ctx) == 1 ? 0 : -1;
	if (rc) {
		snprintf(err, errlen, "cannot load the upstream CA");
		goto out_free;
	}
	bool insecure = cr && cr->insecure_skip_tls_verify;
	SSL_CTX_set_verify(ctx, insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER,
			   NULL);
	if (client_cert && cr && (cr->cert.path || cr->cert.data)) {
		if (cr->cert.path)
			rc = SSL_CTX_use_certificate_chain_file(
				     ctx, cr->cert.path) == 1 &&
					     SSL_CTX_use_PrivateKey_file(
						     ctx, cr->key.path,
						     SSL_FILETYPE_PEM) == 1 ?
				     0 :
				     -1;
		else
			rc = use_cert_data(ctx, &cr->cert, &cr->key);
		if (rc) {
			snprintf(err, errlen,
				 "cannot load the upstream client certificate");
			goto out_free;
		}
	}
	return ctx;
out_free:
	ERR_clear_error();
	SSL_CTX_free(ctx);
	return NULL;
}

int proxy_dial_tls(struct proxy_dial *d, const struct config_upstream *cr,
		   const char *name, bool client_cert, double deadline,
		   char *err, size_t errlen)
{
	d->ctx = tls_ctx(cr, client_cert, err, errlen);
	if (!d->ctx)
		return -1;
	d->ssl = SSL_new(d->ctx);
	if (!d->ssl || SSL_set_fd(d->ssl, d->fd) != 1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	unsigned char ip[16];
	bool is_ip = inet_pton(AF_INET, name, ip) == 1 ||
		     inet_pton(AF_INET6, name, ip) == 1;
	X509_VERIFY_PARAM *vp = SSL_get0_param(d->ssl);
	if (is_ip) {
		X509_VERIFY_PARAM_set1_ip_asc(vp, name);
	} else {
		SSL_set_tlsext_host_name(d->ssl, name);
		X509_VERIFY_PARAM_set_hostflags(
			vp, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
		X509_VERIFY_PARAM_set1_host(vp, name, 0);
	}
	for (;;) {
		int r = SSL_connect(d->ssl);
		if (r == 1)
			return 0;
		int e = SSL_get_error(d->ssl, r);
		short ev = e == SSL_ERROR_WANT_READ  ? POLLIN :
			   e == SSL_ERROR_WANT_WRITE ? POLLOUT :
						       0;
		if (ev && wait_fd(d, d->fd, ev, deadline) > 0)
			continue;
		long vr = SSL_get_verify_result(d->ssl);
		if (vr != X509_V_OK)
			snprintf(err, errlen,
				 "the upstream's certificate is not trusted: "
				 "%s",
				 X509_verify_cert_error_string(vr));
		else
			snprintf(err, errlen,
				 "TLS handshake with %.100s failed%s", name,
				 ev ? " (timed out)" : "");
		ERR_clear_error();
		return -1;
	}
}

/* The SSL error of an SSL_read or SSL_write that returned r <= 0. When
 * it would block (SSL_ERROR_WANT_READ or _WRITE, either way round: a
 * read may have to write a renegotiation), *want says what to poll for;
 * any other error is cleared from OpenSSL's queue. */
static int ssl_error(SSL *ssl, int r, short *want)
{
	int e = SSL_get_error(ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
		*want = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
	else
		ERR_clear_error();
	return e;
}

/* Read at most n bytes: >0 read, 0 EOF, -1 error, -2 would block. */
ssize_t proxy_dial_read(struct proxy_dial *d, char *p, size_t n, short *want)
{
	if (!d->ssl) {
		ssize_t r = recv(d->fd, p, n, MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			*want = POLLIN;
			return -2;
		}
		return r < 0 ? -1 : r;
	}
	int r = SSL_read(d->ssl, p, n > INT32_MAX ? INT32_MAX : (int)n);
	if (r > 0)
		return r;
	int e = ssl_error(d->ssl, r, want);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
		return -2;
	/* close_notify, or a TCP FIN without one (Go sends close_notify;
	 * either ends the stream) */
	return e == SSL_ERROR_ZERO_RETURN ||
			       (e == SSL_ERROR_SYSCALL && errno == 0) ?
		       0 :
		       -1;
}

/* Write at most n bytes: >0 written, -1 error, -2 would block. */
ssize_t proxy_dial_write(struct proxy_dial *d, const char *p, size_t n,
			 short *want)
{
	if (!d->ssl) {
		ssize_t r = send(d->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			*want = POLLOUT;
			return -2;
		}
		return r <= 0 ? -1 : r;
	}
	int r = SSL_write(d->ssl, p, n > INT32_MAX ? INT32_MAX : (int)n);
	if (r > 0)
		return r;
	int e = ssl_error(d->ssl, r, want);
	return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE ? -2 : -1;
}

int proxy_dial_send(struct proxy_dial *d, const char *p, size_t n,
		    double deadline)
{
	while (n) {
		short want = 0;
		ssize_t w = proxy_dial_write(d, p, n, &want);
		if (w == -2) {
			if (wait_fd(d, d->fd, want, deadline) <= 0)
				return -1;
			continue;
		}
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read into b until enough(b, arg), EOF, max or the deadline. 0 when
 * enough, 1 at EOF, -1 on error, timeout or past max. */
static int recv_until(struct proxy_dial *d, struct buf *b, size_t max,
		      double deadline,
		      bool (*enough)(const struct buf *, const void *),
		      const void *arg)
{
	char tmp[READ_CHUNK];
	while (!enough(b, arg)) {
		short want = 0;
		ssize_t r = proxy_dial_read(d, tmp, sizeof(tmp), &want);
		if (r == -2) {
			if (wait_fd(d, d->fd, want, deadline) <= 0)
				return -1;
			continue;
		}
		if (r < 0)
			return -1;
		if (r == 0)
			return 1;
		if (b->len + (size_t)r > max || buf_add(b, tmp, (size_t)r))
			return -1;
	}
	return 0;
}

static bool head_done(const struct buf *b, const void *arg)
{
	return b->len >= 4 && memmem(b->p, b->len, "\r\n\r\n", 4);
}

/* The head is whole, or head_max bytes came without its end. The read
 * that ends the head may bring what follows it too (a 101's stream, a
 * body), so the limit is on the head, checked once it is read. */
static bool head_done_or_full(const struct buf *b, const void *arg)
{
	return head_done(b, NULL) || b->len >= *(const size_t *)arg;
}

/* A Content-Length body is whole. The connection stays open after it
 * (HTTP/1.1 keep-alive): waiting for its end would wait for the
 * deadline. */
static bool have_len(const struct buf *b, const void *arg)
{
	return b->len >= *(const size_t *)arg;
}

/* A chunked body is whole: its last (zero) chunk and the blank line. */
static bool chunked_done(const struct buf *b, const void *arg)
{
	size_t r = 0;
	for (;;) {
		const char *eol =
			b->len > r ? memmem(b->p + r, b->len - r, "\r\n", 2) :
				     NULL;
		if (!eol)
			return false;
		char *end;
		unsigned long n = strtoul(b->p + r, &end, 16);
		if (end == b->p + r)
			return true; /* malformed: dechunk() says so */
		r = (size_t)(eol - b->p) + 2;
		if (n == 0) /* trailers, if any, end with a blank line */
			return b->len - r >= 2 &&
			       memmem(b->p + r - 2, b->len - r + 2, "\r\n\r\n",
				      4);
		if (n > b->len - r || b->len - r - n < 2)
			return false;
		r += n + 2;
	}
}

static bool never(const struct buf *b, const void *arg)
{
	return false;
}

/* The value of a header in a "name\0value\0" list, or NULL. */
static const char *hdr_get(const struct buf *h, const char *name)
{
	for (size_t i = 0; i < h->len;) {
		const char *k = h->p + i;
		const char *v = k + strlen(k) + 1;
		if (!strcasecmp(k, name))
			return v;
		i = (size_t)(v - h->p) + strlen(v) + 1;
	}
	return NULL;
}

/* A chunked body decoded in place; -1 when malformed or not whole. */
static int dechunk(struct buf *b)
{
	size_t r = 0, w = 0;
	for (;;) {
		char *eol = memmem(b->p + r, b->len - r, "\r\n", 2);
		if (!eol)
			return -1;
		char *end;
		unsigned long n = strtoul(b->p + r, &end, 16);
		if (end == b->p + r)
			return -1;
		r = (size_t)(eol - b->p) + 2;
		if (n == 0)
			break;
		if (n > b->len - r || b->len - r - n < 2)
			return -1;
		memmove(b->p + w, b->p + r, n);
		w += n;
		r += n + 2;
	}
	b->len = w;
	return 0;
}


void proxy_dial_tls_free(struct proxy_dial *d)
{
	if (d->ssl)
		SSL_free(d->ssl);
	if (d->ctx)
		SSL_CTX_free(d->ctx);
	d->ssl = NULL;
	d->ctx = NULL;
}

void proxy_dial_shut_write(struct proxy_dial *d)
{
	if (d->ssl)
		SSL_shutdown(d->ssl); /* close_notify; best effort */
	shutdown(d->fd, SHUT_WR);
}

/* The head in raw (up to its blank line) into a; the bytes after it go
 * to rest. */
static int parse_head(struct proxy_dial_answer *a, struct buf *raw,
		      struct buf *rest)
{
	char *end = memmem(raw->p, raw->len, "\r\n\r\n", 4);
	size_t hl = (size_t)(end - raw->p) + 4;
	if (buf_add(rest, raw->p + hl, raw->len - hl))
		return -1;
	*end = '\0';
	char *line = raw->p, *nl = strstr(line, "\r\n");
	if (nl)
		*nl = '\0';
	unsigned code = 0;
	if (sscanf(line, "HTTP/1.%*1[01] %3u", &code) != 1 || code < 100 ||
	    code > 599)
		return -1;
	a->status = code;
	while (nl) {
		line = nl + 2;
		nl = strstr(line, "\r\n");
		if (nl)
			*nl = '\0';
		char *colon = strchr(line, ':');
		if (!colon || colon == line)
			continue;
		*colon = '\0';
		char *v = colon + 1;
		v += strspn(v, " \t");
		size_t vl = strlen(v);
		while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
			v[--vl] = '\0';
		buf_add(&a->hdrs, line, strlen(line) + 1);
		buf_add(&a->hdrs, v, vl + 1);
	}
	return buf_ok(&a->hdrs) ? 0 : -1;
}

int proxy_dial_answer(struct proxy_dial *d, struct proxy_dial_answer *a,
		      size_t head_max, size_t body_max, double deadline,
		      unsigned *code, char *err, size_t errlen)
{
	struct buf raw = BUF_INIT, *rest = &a->body;
	*code = 503;
	int rc = recv_until(d, &raw, head_max + READ_CHUNK, deadline,
			    head_done_or_full, &head_max);
	const char *end =
		rc || !raw.len ? NULL : memmem(raw.p, raw.len, "\r\n\r\n", 4);
	if (!rc && (!end || (size_t)(end - raw.p) + 4 > head_max)) {
		snprintf(err, errlen,
			 "the upstream's answer head is too large");
		goto out_fail;
	}
	if (rc) {
		*code = proxy_dial_now() >= deadline ? 504 : 503;
		snprintf(err, errlen, "%s",
			 *code == 504 ? "the upstream did not answer in time" :
					"the upstream's answer is not HTTP");
		goto out_fail;
	}
	if (parse_head(a, &raw, rest)) {
		snprintf(err, errlen, "the upstream's answer is not HTTP");
		goto out_fail;
	}
	buf_free(&raw);
	if (a->status == 101) {
		buf_free(&a->extra);
		a->extra = a->body; /* what followed the head is the stream's */
		a->body = (struct buf)BUF_INIT;
		return 0;
	}
	/* Any other answer is read whole: a Status of a few hundred bytes
	 * (401, 403, 400, 404), within the same deadline. */
	const char *cl = hdr_get(&a->hdrs, "Content-Length");
	const char *te = hdr_get(&a->hdrs, "Transfer-Encoding");
	bool chunked = te && strcasestr(te, "chunked");
	if (a->status < 200 || a->status == 204 || a->status == 304) {
		/* a 1xx, 204 or 304 has no body, whatever its headers say
		 * (RFC 9112 6.3): what followed its head in the same read
		 * is not one */
		rest->len = 0;
	} else if (cl && !chunked) {
		long long n = strtoll(cl, NULL, 10);
		if (n < 0 || (size_t)n > body_max)
			goto out_large;
		size_t want = (size_t)n;
		rc = recv_until(d, rest, body_max + head_max, deadline,
				have_len, &want);
		if (rest->len < want)
			goto out_short;
		rest->len = want;
	} else if (chunked) {
		/* the read that ended the head may have brought more than
		 * body_max already; recv_until() checks only what it reads */
		if (rest->len > body_max)
			goto out_large;
		rc = recv_until(d, rest, body_max, deadline, chunked_done,
				NULL);
		if (rc < 0 || dechunk(rest))
			goto out_short;
	} else {
		/* neither: the body ends with the connection */
		if (rest->len > body_max)
			goto out_large;
		rc = recv_until(d, rest, body_max, deadline, never, NULL);
		if (rc != 1)
			goto out_short;
	}
	return 0;
out_short:
	*code = proxy_dial_now() >= deadline ? 504 : 503;
	snprintf(err, errlen, "the upstream's answer ended early");
	goto out_fail;
out_large:
	snprintf(err, errlen, "the upstream's answer is too large");
out_fail:
	buf_free(&raw);
	return -1;
}

void proxy_dial_answer_free(struct proxy_dial_answer *a)
{
	buf_free(&a->hdrs);
	buf_free(&a->body);
	buf_free(&a->extra);
}
