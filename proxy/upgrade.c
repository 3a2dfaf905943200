/*
 * upgrade: upgrade requests forwarded and spliced (see upgrade.h).
 *
 * A struct proxy_up is shared by the libmicrohttpd thread serving the
 * client and the request's own thread; its lock guards the fields marked
 * "locked". Two references: the request's (until proxy_up_done) and the
 * thread's (until it ends). libmicrohttpd calls the upgrade handler
 * before the request completes, so the request's reference covers it.
 */
#include "proxy/upgrade.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/buf.h"
#include "config/creds.h"
#include "config/log.h"
#include "proxy/request.h"
#include "proxy/status.h"

#define SPLICE_BUF (32 * 1024)	  /* each way, per stream */
#define HEAD_MAX (64 * 1024)	  /* the upstream's response head */
#define BODY_MAX (1024 * 1024)	  /* a non-101 answer's body */
#define THREAD_STACK (256 * 1024) /* buffers are on the heap */
#define DEFAULT_HANDSHAKE_S 60
#define STOP_POLL_MS 200 /* how soon a handshake notices a stop */

enum up_state {
	UP_NEW,
	UP_STARTED,  /* the thread is reaching the upstream */
	UP_ANSWERED, /* status, headers (and a non-101 body) are in */
	UP_FAILED,   /* no answer: 503 or 504 to the client */
	UP_SPLICING, /* the upgrade handler gave us the client socket */
	UP_DONE
};

struct proxy_up_pool {
	char host[256]; /* where to connect */
	char port[8];
	char name[256];	    /* the TLS name to check, and Host */
	char host_hdr[300]; /* Host: name[:port] */
	char prefix[256];   /* the server URL's path, "" or "/x" */
	bool tls;
	const struct cache_upstream *up;
	bool lend_identity;
	int handshake_s;
	int max_streams;

	pthread_mutex_t lock; /* guards the fields below */
	pthread_cond_t cond;
	struct proxy_up *streams; /* every live one */
	int active;
	bool stop;
	bool stopped; /* main thread only */
};

struct proxy_up {
	struct proxy_up_pool *pool;
	struct MHD_Connection *conn;
	struct buf head; /* the request head for the upstream */
	bool has_body;
	bool as_proxy;	 /* go with the proxy's credentials */
	bool client_tls; /* the client came over HTTPS */
	char what[96];	 /* "METHOD path" for the log, without the query */

	/* the thread's */
	int ufd;
	SSL_CTX *ctx;
	SSL *ssl;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	int refs;	      /* locked */
	enum up_state state;  /* locked */
	unsigned status;      /* locked */
	char fail_msg[160];   /* locked; why UP_FAILED */
	unsigned fail_code;   /* locked */
	struct buf resp_hdrs; /* locked; "name\0value\0" pairs */
	struct buf body;      /* locked; a non-101 answer's body */
	struct buf extra_up;  /* locked; upstream bytes after the 101 */
	int cfd;	      /* locked; the client socket, -1 */
	struct MHD_UpgradeResponseHandle *urh; /* locked */
	struct buf extra_in;		       /* locked; client bytes */
	bool abandoned; /* locked; the request ended without the upgrade */
	struct proxy_up *next, **pprev; /* pool->streams, pool->lock */
};

static void up_put(struct proxy_up *u)
{
	pthread_mutex_lock(&u->lock);
	int left = --u->refs;
	pthread_mutex_unlock(&u->lock);
	if (left)
		return;
	buf_free(&u->head);
	buf_free(&u->resp_hdrs);
	buf_free(&u->body);
	buf_free(&u->extra_up);
	buf_free(&u->extra_in);
	pthread_cond_destroy(&u->cond);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool pool_stopping(struct proxy_up_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	bool s = pool->stop;
	pthread_mutex_unlock(&pool->lock);
	return s;
}

/* ---- the upstream: connect, TLS, request, answer ---- */

/* Wait for fd to be ready for ev until deadline; 1 ready, 0 timed out
 * or stopping, -1 error. Polls in slices so a stop is noticed. */
static int wait_fd(struct proxy_up *u, int fd, short ev, double deadline)
{
	for (;;) {
		if (pool_stopping(u->pool))
			return 0;
		double left = deadline - now_s();
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

static int tcp_connect(struct proxy_up *u, double deadline, char *err,
		       size_t errlen)
{
	struct proxy_up_pool *pool = u->pool;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_ADDRCONFIG };
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(pool->host, pool->port, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve %.100s: %s", pool->host,
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
				 pool->host, pool->port, strerror(errno));
			close(fd);
			fd = -1;
			continue;
		}
		int w = wait_fd(u, fd, POLLOUT, deadline);
		int soerr = 0;
		socklen_t sl = sizeof(soerr);
		if (w > 0)
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		if (w <= 0 || soerr) {
			snprintf(err, errlen, "cannot connect to %.100s:%s: %s",
				 pool->host, pool->port,
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
static SSL_CTX *tls_ctx(struct proxy_up_pool *pool, bool as_proxy, char *err,
			size_t errlen)
{
	const struct config_upstream *cr = pool->up->creds;
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
	if (as_proxy && cr && (cr->cert.path || cr->cert.data)) {
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

static int tls_connect(struct proxy_up *u, bool as_proxy, double deadline,
		       char *err, size_t errlen)
{
	struct proxy_up_pool *pool = u->pool;
	u->ctx = tls_ctx(pool, as_proxy, err, errlen);
	if (!u->ctx)
		return -1;
	u->ssl = SSL_new(u->ctx);
	if (!u->ssl || SSL_set_fd(u->ssl, u->ufd) != 1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	unsigned char ip[16];
	bool is_ip = inet_pton(AF_INET, pool->name, ip) == 1 ||
		     inet_pton(AF_INET6, pool->name, ip) == 1;
	X509_VERIFY_PARAM *vp = SSL_get0_param(u->ssl);
	if (is_ip) {
		X509_VERIFY_PARAM_set1_ip_asc(vp, pool->name);
	} else {
		SSL_set_tlsext_host_name(u->ssl, pool->name);
		X509_VERIFY_PARAM_set_hostflags(
			vp, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
		X509_VERIFY_PARAM_set1_host(vp, pool->name, 0);
	}
	for (;;) {
		int r = SSL_connect(u->ssl);
		if (r == 1)
			return 0;
		int e = SSL_get_error(u->ssl, r);
		short ev = e == SSL_ERROR_WANT_READ  ? POLLIN :
			   e == SSL_ERROR_WANT_WRITE ? POLLOUT :
						       0;
		if (ev && wait_fd(u, u->ufd, ev, deadline) > 0)
			continue;
		long vr = SSL_get_verify_result(u->ssl);
		if (vr != X509_V_OK)
			snprintf(err, errlen,
				 "the upstream's certificate is not trusted: "
				 "%s",
				 X509_verify_cert_error_string(vr));
		else
			snprintf(err, errlen,
				 "TLS handshake with %.100s failed%s",
				 pool->name, ev ? " (timed out)" : "");
		ERR_clear_error();
		return -1;
	}
}

/* Read at most n bytes: >0 read, 0 EOF, -1 error, -2 would block. */
static ssize_t up_read(struct proxy_up *u, char *p, size_t n, short *want)
{
	if (!u->ssl) {
		ssize_t r = recv(u->ufd, p, n, MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			*want = POLLIN;
			return -2;
		}
		return r < 0 ? -1 : r;
	}
	int r = SSL_read(u->ssl, p, n > INT32_MAX ? INT32_MAX : (int)n);
	if (r > 0)
		return r;
	int e = SSL_get_error(u->ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		*want = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
		return -2;
	}
	ERR_clear_error();
	/* close_notify, or a TCP FIN without one (Go sends close_notify;
	 * either ends the stream) */
	return e == SSL_ERROR_ZERO_RETURN ||
			       (e == SSL_ERROR_SYSCALL && errno == 0) ?
		       0 :
		       -1;
}

/* Write at most n bytes: >0 written, -1 error, -2 would block. */
static ssize_t up_write(struct proxy_up *u, const char *p, size_t n,
			short *want)
{
	if (!u->ssl) {
		ssize_t r = send(u->ufd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			*want = POLLOUT;
			return -2;
		}
		return r <= 0 ? -1 : r;
	}
	int r = SSL_write(u->ssl, p, n > INT32_MAX ? INT32_MAX : (int)n);
	if (r > 0)
		return r;
	int e = SSL_get_error(u->ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		*want = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
		return -2;
	}
	ERR_clear_error();
	return -1;
}

static int send_all(struct proxy_up *u, const char *p, size_t n,
		    double deadline)
{
	while (n) {
		short want = 0;
		ssize_t w = up_write(u, p, n, &want);
		if (w == -2) {
			if (wait_fd(u, u->ufd, want, deadline) <= 0)
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
static int recv_until(struct proxy_up *u, struct buf *b, size_t max,
		      double deadline,
		      bool (*enough)(const struct buf *, const void *),
		      const void *arg)
{
	char tmp[16384];
	while (!enough(b, arg)) {
		short want = 0;
		ssize_t r = up_read(u, tmp, sizeof(tmp), &want);
		if (r == -2) {
			if (wait_fd(u, u->ufd, want, deadline) <= 0)
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

/* Parse the response head in raw (up to its blank line) into u; the
 * bytes after it stay in rest. */
static int parse_head(struct proxy_up *u, struct buf *raw, struct buf *rest)
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
	u->status = code;
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
		buf_add(&u->resp_hdrs, line, strlen(line) + 1);
		buf_add(&u->resp_hdrs, v, vl + 1);
	}
	return buf_ok(&u->resp_hdrs) ? 0 : -1;
}

/* Connect, send, read the answer; with u->lock not held. Returns 0, or
 * -1 with u->fail_code and u->fail_msg set. */
static int handshake(struct proxy_up *u, bool as_proxy)
{
	struct proxy_up_pool *pool = u->pool;
	double deadline = now_s() + pool->handshake_s;
	char err[160] = "";
	struct buf raw = BUF_INIT, rest = BUF_INIT;
	unsigned code = 503;
	int fd = tcp_connect(u, deadline, err, sizeof(err));
	pthread_mutex_lock(&u->lock); /* proxy_up_pool_stop() reads it */
	u->ufd = fd;
	pthread_mutex_unlock(&u->lock);
	if (fd < 0) {
		code = 503;
		goto out_fail;
	}
	if (pool->tls && tls_connect(u, as_proxy, deadline, err, sizeof(err)))
		goto out_fail;
	if (send_all(u, u->head.p, u->head.len, deadline)) {
		snprintf(err, sizeof(err), "cannot send the request upstream");
		goto out_fail;
	}
	int rc = recv_until(u, &raw, HEAD_MAX, deadline, head_done, NULL);
	if (rc || !head_done(&raw, NULL)) {
		code = now_s() >= deadline ? 504 : 503;
		snprintf(err, sizeof(err), "%s",
			 code == 504 ? "the upstream did not answer in time" :
				       "the upstream's answer is not HTTP");
		goto out_fail;
	}
	pthread_mutex_lock(&u->lock);
	rc = parse_head(u, &raw, &rest);
	pthread_mutex_unlock(&u->lock);
	if (rc) {
		snprintf(err, sizeof(err), "the upstream's answer is not HTTP");
		goto out_fail;
	}
	if (u->status == 101) {
		pthread_mutex_lock(&u->lock);
		buf_add(&u->extra_up, rest.p, rest.len);
		pthread_mutex_unlock(&u->lock);
		buf_free(&raw);
		buf_free(&rest);
		return 0;
	}
	/* Any other answer is relayed whole: a Status of a few hundred
	 * bytes (401, 403, 400, 404), within the same deadline. */
	const char *cl = hdr_get(&u->resp_hdrs, "Content-Length");
	const char *te = hdr_get(&u->resp_hdrs, "Transfer-Encoding");
	bool chunked = te && strcasestr(te, "chunked");
	if (cl && !chunked) {
		long long n = strtoll(cl, NULL, 10);
		if (n < 0 || n > BODY_MAX)
			goto out_big;
		size_t want = (size_t)n;
		rc = recv_until(u, &rest, BODY_MAX + HEAD_MAX, deadline,
				have_len, &want);
		if (rest.len < want)
			goto out_short;
		rest.len = want;
	} else if (chunked) {
		rc = recv_until(u, &rest, BODY_MAX, deadline, chunked_done,
				NULL);
		if (rc < 0 || dechunk(&rest))
			goto out_short;
	} else if (u->status >= 200 && u->status != 204 && u->status != 304) {
		/* neither: the body ends with the connection */
		rc = recv_until(u, &rest, BODY_MAX, deadline, never, NULL);
		if (rc != 1)
			goto out_short;
	}
	pthread_mutex_lock(&u->lock);
	buf_add(&u->body, rest.p, rest.len);
	pthread_mutex_unlock(&u->lock);
	buf_free(&raw);
	buf_free(&rest);
	return 0;
out_big:
	snprintf(err, sizeof(err), "the upstream's answer is too large");
	goto out_fail;
out_short:
	code = now_s() >= deadline ? 504 : 503;
	snprintf(err, sizeof(err), "the upstream's answer ended early");
out_fail:
	if (pool_stopping(pool)) {
		code = 503;
		snprintf(err, sizeof(err), "informer-proxy is shutting down");
	}
	buf_free(&raw);
	buf_free(&rest);
	pthread_mutex_lock(&u->lock);
	u->fail_code = code;
	snprintf(u->fail_msg, sizeof(u->fail_msg), "%s", err);
	pthread_mutex_unlock(&u->lock);
	if (!pool_stopping(pool))
		log_warn("upgrade %s: %s", u->what, err);
	return -1;
}

/* ---- the splice ---- */

struct way {
	char *p;
	size_t cap, off, len;
	bool eof;  /* the source ended */
	bool shut; /* and that was passed on */
};

static bool way_load(struct way *w, const struct buf *extra)
{
	w->cap = extra->len > SPLICE_BUF ? extra->len : SPLICE_BUF;
	w->p = xmalloc(w->cap);
	if (!w->p)
		return false;
	if (extra->len)
		memcpy(w->p, extra->p, extra->len);
	w->len = extra->len;
	return true;
}

static void up_shut_write(struct proxy_up *u)
{
	if (u->ssl)
		SSL_shutdown(u->ssl); /* close_notify; best effort */
	shutdown(u->ufd, SHUT_WR);
}

/* Move bytes until both ways ended, or either failed. */
static void splice_loop(struct proxy_up *u, int cfd, struct way *c2u,
			struct way *u2c)
{
	short up_rd_want = POLLIN, up_wr_want = POLLOUT;
	bool c_hup = false, u_hup = false;
	for (;;) {
		bool progress = false, failed = false;
		/* client -> upstream */
		if (!c2u->len && !c2u->eof) {
			ssize_t r = recv(cfd, c2u->p, c2u->cap, MSG_DONTWAIT);
			if (r > 0) {
				c2u->off = 0;
				c2u->len = (size_t)r;
				progress = true;
			} else if (r == 0) {
				c2u->eof = progress = true;
			} else if (errno != EAGAIN && errno != EINTR) {
				failed = true;
			}
		}
		if (c2u->len) {
			ssize_t w = up_write(u, c2u->p + c2u->off, c2u->len,
					     &up_wr_want);
			if (w > 0) {
				c2u->off += (size_t)w;
				c2u->len -= (size_t)w;
				progress = true;
			} else if (w == -1) {
				failed = true;
			}
		}
		if (c2u->eof && !c2u->len && !c2u->shut) {
			up_shut_write(u);
			c2u->shut = progress = true;
		}
		/* upstream -> client */
		if (!u2c->len && !u2c->eof) {
			ssize_t r = up_read(u, u2c->p, u2c->cap, &up_rd_want);
			if (r > 0) {
				u2c->off = 0;
				u2c->len = (size_t)r;
				progress = true;
			} else if (r == 0) {
				u2c->eof = progress = true;
			} else if (r == -1) {
				failed = true;
			}
		}
		if (u2c->len) {
			ssize_t w = send(cfd, u2c->p + u2c->off, u2c->len,
					 MSG_DONTWAIT | MSG_NOSIGNAL);
			if (w > 0) {
				u2c->off += (size_t)w;
				u2c->len -= (size_t)w;
				progress = true;
			} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
				failed = true;
			}
		}
		/* Over an HTTPS listener libmicrohttpd cannot pass a
		 * half-close on to the client: there the upstream's end,
		 * once its last bytes are out, ends the stream. */
		if (u2c->eof && !u2c->len && !u2c->shut) {
			if (u->client_tls)
				return;
			shutdown(cfd, SHUT_WR);
			u2c->shut = progress = true;
		}
		if (failed || (c2u->shut && u2c->shut) ||
		    pool_stopping(u->pool))
			return;
		if (progress)
			continue;
		/* Nothing moved: sleep on what each blocked step waits for.
		 * A socket is polled even when no step waits on it, so that
		 * its reset (POLLERR) ends the stream; one that has hung up
		 * is polled only while a step waits on it (whose read then
		 * ends, or write fails), so it cannot spin this loop. */
		struct pollfd p[2] = { { .fd = cfd }, { .fd = u->ufd } };
		if (!c2u->len && !c2u->eof)
			p[0].events |= POLLIN;
		if (u2c->len)
			p[0].events |= POLLOUT;
		if (c2u->len)
			p[1].events |= up_wr_want;
		if (!u2c->len && !u2c->eof)
			p[1].events |= up_rd_want;
		if (c_hup && !p[0].events)
			p[0].fd = -1;
		if (u_hup && !p[1].events)
			p[1].fd = -1;
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return;
		if ((p[0].revents | p[1].revents) & (POLLERR | POLLNVAL))
			return;
		c_hup |= p[0].revents & POLLHUP;
		u_hup |= p[1].revents & POLLHUP;
	}
}

/* Over HTTPS the client socket is our end of a socketpair whose other
 * end libmicrohttpd reads and encrypts; closing before it has read what
 * we wrote would lose the stream's last bytes. Wait (2 s at most) until
 * nothing we sent is left unread. */
static void drain_to_tls(struct proxy_up *u, int cfd)
{
	shutdown(cfd, SHUT_WR);
	for (int i = 0; i < 400 && !pool_stopping(u->pool); i++) {
		int queued = 0;
		if (ioctl(cfd, SIOCOUTQ, &queued) || queued <= 0)
			return;
		struct timespec ts = { 0, 5 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

static void splice_streams(struct proxy_up *u)
{
	pthread_mutex_lock(&u->lock);
	int cfd = u->cfd;
	struct way c2u = { 0 }, u2c = { 0 };
	bool ok = way_load(&c2u, &u->extra_in) && way_load(&u2c, &u->extra_up);
	buf_free(&u->extra_in);
	buf_free(&u->extra_up);
	pthread_mutex_unlock(&u->lock);
	if (ok) {
		int one = 1;
		setsockopt(cfd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
		splice_loop(u, cfd, &c2u, &u2c);
	}
	if (u->client_tls)
		drain_to_tls(u, cfd);
	free(c2u.p);
	free(u2c.p);
}

/* ---- the thread ---- */

static void pool_remove(struct proxy_up *u)
{
	struct proxy_up_pool *pool = u->pool;
	pthread_mutex_lock(&pool->lock);
	if (u->pprev) {
		*u->pprev = u->next;
		if (u->next)
			u->next->pprev = u->pprev;
		u->pprev = NULL;
	}
	pool->active--;
	pthread_cond_broadcast(&pool->cond);
	pthread_mutex_unlock(&pool->lock);
}

struct start_arg {
	struct proxy_up *u;
	bool as_proxy;
};

static void *run(void *arg)
{
	struct start_arg sa = *(struct start_arg *)arg;
	free(arg);
	struct proxy_up *u = sa.u;
	int rc = handshake(u, sa.as_proxy);
	pthread_mutex_lock(&u->lock);
	u->state = rc ? UP_FAILED : UP_ANSWERED;
	pthread_mutex_unlock(&u->lock);
	/* Never under u->lock: libmicrohttpd holds its own lock when it
	 * calls proxy_up_done(), which takes u->lock. A suspended
	 * connection cannot complete, so u->conn is still there. */
	MHD_resume_connection(u->conn);
	pthread_mutex_lock(&u->lock);
	/* After a 101, wait for the client socket; the request ends
	 * instead when the 101 could not be sent (abandoned). */
	bool upgraded = !rc && u->status == 101;
	while (upgraded && u->state != UP_SPLICING && !u->abandoned)
		pthread_cond_wait(&u->cond, &u->lock);
	bool splice = u->state == UP_SPLICING;
	pthread_mutex_unlock(&u->lock);
	if (splice)
		splice_streams(u);
	if (u->ssl)
		SSL_free(u->ssl);
	if (u->ctx)
		SSL_CTX_free(u->ctx);
	pthread_mutex_lock(&u->lock);
	if (u->ufd >= 0)
		close(u->ufd);
	u->ufd = -1;
	u->ssl = NULL;
	if (splice) {
		u->state = UP_DONE;
		u->cfd = -1;
	}
	struct MHD_UpgradeResponseHandle *urh = splice ? u->urh : NULL;
	pthread_mutex_unlock(&u->lock);
	if (urh) /* closes the client socket; the request then completes */
		MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
	pool_remove(u);
	up_put(u);
	return NULL;
}

/* ---- the request head ---- */

static bool hop_by_hop(const char *k)
{
	static const char *const hop[] = {
		"connection",
		"keep-alive",
		"transfer-encoding",
		"te",
		"trailer",
		"proxy-authenticate",
		"proxy-authorization",
		"content-length",
		"host",
		"expect",
	};
	for (size_t i = 0; i < sizeof(hop) / sizeof(*hop); i++)
		if (!strcasecmp(hop[i], k))
			return true;
	return false;
}

/* Headers with which a client asks to be taken for someone else, as
 * passthrough strips them from a client without credentials. */
static bool identity_header(const char *key)
{
	return !strncasecmp(key, "Impersonate-", 12) ||
	       !strncasecmp(key, "X-Remote-", 9) ||
	       !strcasecmp(key, "Authorization") ||
	       !strcasecmp(key, "Proxy-Authorization") ||
	       !strcasecmp(key, "Cookie");
}

struct head_ctx {
	struct buf *b;
	bool strip_identity;
};

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	struct head_ctx *h = cls;
	if (!value || hop_by_hop(key))
		return MHD_YES;
	if (h->strip_identity && identity_header(key))
		return MHD_YES;
	/* libmicrohttpd already refused CR and LF in header lines */
	buf_printf(h->b, "%s: %s\r\n", key, value);
	return MHD_YES;
}

static int build_head(struct proxy_up *u, const char *method,
		      const char *target, bool client_creds, bool as_proxy)
{
	struct proxy_up_pool *pool = u->pool;
	buf_printf(&u->head, "%s %s%s HTTP/1.1\r\nHost: %s\r\n", method,
		   pool->prefix, target, pool->host_hdr);
	struct head_ctx h = { &u->head, !client_creds };
	MHD_get_connection_values(u->conn, MHD_HEADER_KIND, add_header, &h);
	buf_printf(&u->head, "Connection: Upgrade\r\n");
	struct config_upstream *cr = pool->up->creds;
	if (as_proxy && cr && config_upstream_has_token(cr)) {
		char *tok = xmalloc(CONFIG_TOKEN_MAX_BYTES + 1);
		int rc = tok ? config_upstream_token(
				       cr, tok, CONFIG_TOKEN_MAX_BYTES + 1) :
			       -ENOMEM;
		if (!rc)
			buf_printf(&u->head, "Authorization: Bearer %s\r\n",
				   tok);
		if (tok) {
			explicit_bzero(tok, CONFIG_TOKEN_MAX_BYTES + 1);
			free(tok);
		}
		if (rc) {
			char why[200];
			config_upstream_token_error(cr, why, sizeof(why));
			log_warn("upgrade: no upstream token: %s", why);
			return -1;
		}
	}
	buf_printf(&u->head, "\r\n");
	return buf_ok(&u->head) ? 0 : -1;
}

/* ---- libmicrohttpd side ---- */

bool proxy_up_supported(void)
{
	return MHD_is_feature_supported(MHD_FEATURE_UPGRADE) == MHD_YES;
}

bool proxy_up_wanted(struct MHD_Connection *c)
{
	if (!proxy_up_supported())
		return false;
	const char *conn =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Connection");
	const char *upg =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Upgrade");
	if (!conn || !upg || !*upg)
		return false;
	/* The protocols the apiserver upgrades to. An h2c upgrade (curl
	 * --http2 on http://) is no such request: the apiserver ignores it,
	 * so it stays an ordinary request, served from the cache or passed
	 * through. */
	bool known = false;
	for (const char *p = upg; *p && !known;) {
		p += strspn(p, " \t,");
		size_t n = strcspn(p, " \t,");
		known = (n == 9 && !strncasecmp(p, "websocket", 9)) ||
			(n >= 5 && !strncasecmp(p, "SPDY/", 5));
		p += n;
	}
	if (!known)
		return false;
	/* a token of the comma-separated list */
	for (const char *p = conn; *p;) {
		p += strspn(p, " \t,");
		size_t n = strcspn(p, " \t,");
		if (n == 7 && !strncasecmp(p, "upgrade", 7))
			return true;
		p += n;
	}
	return false;
}

static void on_upgrade(void *cls, struct MHD_Connection *c, void *con_cls,
		       const char *extra_in, size_t extra_in_size,
		       MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
	struct proxy_up *u = cls;
	pthread_mutex_lock(&u->lock);
	u->cfd = sock;
	u->urh = urh;
	if (extra_in_size)
		buf_add(&u->extra_in, extra_in, extra_in_size);
	u->state = UP_SPLICING;
	pthread_cond_signal(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

static struct proxy_up *up_new(struct proxy_up_pool *pool,
			       struct MHD_Connection *c, const char *target,
			       const char *method, bool *as_proxy)
{
	struct proxy_up *u = xcalloc(1, sizeof(*u));
	if (!u)
		return NULL;
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->cond, NULL);
	u->pool = pool;
	u->conn = c;
	u->refs = 1; /* the request's */
	u->ufd = u->cfd = -1;
	u->client_tls = MHD_get_connection_info(
				c, MHD_CONNECTION_INFO_GNUTLS_SESSION) != NULL;
	snprintf(u->what, sizeof(u->what), "%s %.*s", method,
		 (int)strcspn(target, "?"), target);
	const char *authz = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							"Authorization");
	bool client_creds = authz && *authz;
	*as_proxy = !client_creds && pool->lend_identity;
	if (build_head(u, method, target, client_creds, *as_proxy)) {
		up_put(u);
		return NULL;
	}
	return u;
}

/* Start u's thread; false when at the stream limit or stopping (*code
 * says which: 429 or 503) or out of resources. */
static bool up_start(struct proxy_up *u, bool as_proxy, unsigned *code)
{
	struct proxy_up_pool *pool = u->pool;
	struct start_arg *sa = xmalloc(sizeof(*sa));
	if (!sa) {
		*code = 503;
		return false;
	}
	*sa = (struct start_arg){ u, as_proxy };
	pthread_mutex_lock(&pool->lock);
	if (pool->stop || pool->active >= pool->max_streams) {
		*code = pool->stop ? 503 : 429;
		pthread_mutex_unlock(&pool->lock);
		free(sa);
		return false;
	}
	pool->active++;
	u->next = pool->streams;
	if (u->next)
		u->next->pprev = &u->next;
	u->pprev = &pool->streams;
	pool->streams = u;
	pthread_mutex_unlock(&pool->lock);
	pthread_mutex_lock(&u->lock);
	u->refs++; /* the thread's */
	u->state = UP_STARTED;
	pthread_mutex_unlock(&u->lock);
	/* suspended before the thread exists, which resumes it; and with
	 * none of our locks held (see run()) */
	MHD_suspend_connection(u->conn);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	int e = pthread_create(&t, &attr, run, sa);
	pthread_attr_destroy(&attr);
	if (e) {
		MHD_resume_connection(u->conn);
		pthread_mutex_lock(&u->lock);
		u->refs--;
		u->state = UP_NEW;
		pthread_mutex_unlock(&u->lock);
		pool_remove(u);
		free(sa);
		*code = 503;
	}
	return !e;
}

static enum MHD_Result respond(struct proxy_up *u, struct MHD_Connection *c)
{
	pthread_mutex_lock(&u->lock);
	enum up_state st = u->state;
	if (st == UP_FAILED) {
		unsigned code = u->fail_code;
		char msg[200];
		snprintf(msg, sizeof(msg), "%s", u->fail_msg);
		pthread_mutex_unlock(&u->lock);
		struct proxy_status s = {
			.reason = code == 504 ? PROXY_Timeout :
						PROXY_ServiceUnavailable,
			.message = msg,
			.retry_after = code == 504 ? 0 : 1,
		};
		return proxy_status_send(c, &s);
	}
	bool upgrade = u->status == 101;
	struct MHD_Response *resp =
		upgrade ?
			MHD_create_response_for_upgrade(on_upgrade, u) :
			MHD_create_response_from_buffer(u->body.len, u->body.p,
							MHD_RESPMEM_MUST_COPY);
	for (size_t i = 0; resp && i < u->resp_hdrs.len;) {
		const char *k = u->resp_hdrs.p + i;
		const char *v = k + strlen(k) + 1;
		i = (size_t)(v - u->resp_hdrs.p) + strlen(v) + 1;
		/* libmicrohttpd writes Connection (and, for a body,
		 * Content-Length) itself */
		if (!strcasecmp(k, "Connection") ||
		    !strcasecmp(k, "Content-Length") ||
		    !strcasecmp(k, "Transfer-Encoding") ||
		    !strcasecmp(k, "Keep-Alive") ||
		    (!upgrade && !strcasecmp(k, "Upgrade")))
			continue;
		MHD_add_response_header(resp, k, v);
	}
	unsigned status = u->status;
	pthread_mutex_unlock(&u->lock);
	return proxy_request_queue(c, status, resp);
}

enum MHD_Result proxy_up_handle(struct proxy_up_pool *pool,
				struct MHD_Connection *c, const char *target,
				const char *method, size_t *upload_size,
				struct proxy_up **state)
{
	struct proxy_up *u = *state;
	if (!u) {
		bool as_proxy;
		u = up_new(pool, c, target, method, &as_proxy);
		if (!u)
			return proxy_error(
				c, PROXY_ServiceUnavailable,
				"informer-proxy cannot forward this request to the "
				"upstream now (see its log)");
		*state = u;
		u->as_proxy = as_proxy;
		return MHD_YES;
	}
	if (*upload_size) {
		u->has_body = true;
		*upload_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&u->lock);
	enum up_state st = u->state;
	pthread_mutex_unlock(&u->lock);
	if (st == UP_NEW) {
		if (u->has_body)
			return proxy_error(c, PROXY_BadRequest,
					   "an upgrade request cannot carry a "
					   "body");
		unsigned code = 0;
		if (!up_start(u, u->as_proxy, &code)) {
			if (code == 429) {
				char msg[128];
				snprintf(msg, sizeof(msg),
					 "too many upgraded streams are open "
					 "(%d), please try again later",
					 pool->max_streams);
				struct proxy_status busy = {
					.reason = PROXY_TooManyRequests,
					.message = msg,
					.retry_after = 1,
					.details = "{\"retryAfterSeconds\":1}",
				};
				return proxy_status_send(c, &busy);
			}
			return proxy_error(c, PROXY_ServiceUnavailable,
					   "informer-proxy cannot forward this "
					   "upgrade request now");
		}
		return MHD_YES;
	}
	if (st == UP_STARTED) /* resumed early: cannot be, wait on */
		return MHD_YES;
	return respond(u, c);
}

void proxy_up_done(struct proxy_up *u)
{
	if (!u)
		return;
	pthread_mutex_lock(&u->lock);
	if (u->state != UP_SPLICING && u->state != UP_DONE)
		u->abandoned = true;
	pthread_cond_signal(&u->cond);
	pthread_mutex_unlock(&u->lock);
	up_put(u);
}

/* ---- the pool ---- */

/* scheme://host[:port][/path] into the pool's fields. */
static int parse_server(struct proxy_up_pool *pool, const char *url, char *host,
			size_t hostlen, char *port, char *prefix, char *err,
			size_t errlen)
{
	const char *p;
	char *end;
	if (!strncmp(url, "https://", 8)) {
		pool->tls = true;
		p = url + 8;
	} else if (!strncmp(url, "http://", 7)) {
		p = url + 7;
	} else {
		snprintf(err, errlen, "upgrade: not an http(s) URL: %s", url);
		return -1;
	}
	size_t auth = strcspn(p, "/");
	const char *hs = p, *he;
	const char *ps = NULL;
	if (*p == '[') {
		he = memchr(p, ']', auth);
		if (!he) {
			snprintf(err, errlen, "upgrade: bad host in %s", url);
			return -1;
		}
		hs = p + 1;
		if (he + 1 < p + auth && he[1] == ':')
			ps = he + 2;
	} else {
		he = memchr(p, ':', auth);
		if (he)
			ps = he + 1;
		else
			he = p + auth;
	}
	size_t hl = (size_t)(he - hs);
	size_t pl = ps ? (size_t)(p + auth - ps) : 0;
	if (!hl || hl >= hostlen || pl >= 8 || strlen(p + auth) >= 256) {
		snprintf(err, errlen, "upgrade: bad server URL %s", url);
		return -1;
	}
	memcpy(host, hs, hl);
	host[hl] = '\0';
	if (ps) {
		memcpy(port, ps, pl);
		port[pl] = '\0';
		long v = strtol(port, &end, 10);
		if (!pl || *end || v < 1 || v > 65535) {
			snprintf(err, errlen, "upgrade: bad port in %s", url);
			return -1;
		}
	} else {
		strcpy(port, pool->tls ? "443" : "80");
	}
	strcpy(prefix, p + auth);
	return 0;
}

struct proxy_up_pool *proxy_up_pool_new(const struct cache_upstream *up,
					bool lend_identity, int handshake_s,
					int max_streams, char *err,
					size_t errlen)
{
	struct proxy_up_pool *pool = xcalloc(1, sizeof(*pool));
	if (!pool) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pool->up = up;
	pool->lend_identity = lend_identity;
	pool->handshake_s = handshake_s > 0 ? handshake_s : DEFAULT_HANDSHAKE_S;
	pool->max_streams =
		max_streams > 0 ? max_streams : PROXY_UPGRADE_MAX_STREAMS;
	char port[8], vport[8], vprefix[256];
	/* The name to check and send is the URL's (tls-server-name's when
	 * set); the address to reach is the configured server's. */
	if (parse_server(pool, up->server, pool->name, sizeof(pool->name),
			 vport, pool->prefix, err, errlen) ||
	    parse_server(pool,
			 up->creds && up->creds->server ? up->creds->server :
							  up->server,
			 pool->host, sizeof(pool->host), port, vprefix, err,
			 errlen)) {
		free(pool);
		return NULL;
	}
	memcpy(pool->port, port, sizeof(port));
	bool v6 = strchr(pool->name, ':');
	bool dflt = !strcmp(vport, pool->tls ? "443" : "80");
	snprintf(pool->host_hdr, sizeof(pool->host_hdr), "%s%s%s%s%s",
		 v6 ? "[" : "", pool->name, v6 ? "]" : "", dflt ? "" : ":",
		 dflt ? "" : vport);
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->cond, NULL);
	if (!proxy_up_supported())
		log_warn("this libmicrohttpd cannot upgrade connections: "
			 "exec, attach, port-forward and cp will fail");
	return pool;
}

int proxy_up_pool_active(struct proxy_up_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	int n = pool->active;
	pthread_mutex_unlock(&pool->lock);
	return n;
}

void proxy_up_pool_stop(struct proxy_up_pool *pool)
{
	if (!pool || pool->stopped)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	/* wake every splice out of poll(); handshakes see the flag within
	 * STOP_POLL_MS */
	for (struct proxy_up *u = pool->streams; u; u = u->next) {
		pthread_mutex_lock(&u->lock);
		if (u->ufd >= 0)
			shutdown(u->ufd, SHUT_RDWR);
		if (u->cfd >= 0)
			shutdown(u->cfd, SHUT_RDWR);
		pthread_cond_signal(&u->cond);
		pthread_mutex_unlock(&u->lock);
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	while (pool->active > 0)
		if (pthread_cond_timedwait(&pool->cond, &pool->lock, &ts))
			break;
	if (pool->active)
		log_warn("upgrade: %d streams did not end at shutdown",
			 pool->active);
	pthread_mutex_unlock(&pool->lock);
	pool->stopped = true;
}

void proxy_up_pool_free(struct proxy_up_pool *pool)
{
	if (!pool)
		return;
	proxy_up_pool_stop(pool);
	if (pool->active) /* threads still hold it: leave it to them */
		return;
	pthread_cond_destroy(&pool->cond);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}
