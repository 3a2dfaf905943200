/*
 * dial: one raw connection to the upstream for upgrade.c, which
 * libcurl cannot give (it has no way to hand over the socket after a
 * 101): TCP, then OpenSSL for an https upstream, trusting exactly what
 * libcurl trusts for passthrough (the kubeconfig's or in-cluster CA, the
 * system roots when none is given; the server's name or tls-server-name
 * checked; nothing checked only with insecure-skip-tls-verify), and
 * presenting the client certificate only when asked to. Then byte I/O
 * that never blocks, and the reading of the upstream's HTTP answer.
 *
 * Every wait is bounded by a deadline and polls the owner's stop check
 * every 200 ms. Never logs key material.
 *
 * Threads: a struct proxy_dial belongs to the one thread that uses it,
 * an upgrade thread (upgrade.h); every call but proxy_dial_now() is made
 * there, and blocks that thread (never a libmicrohttpd one) until done,
 * the deadline, or the stop check. The owner publishes the socket to
 * other threads itself (proxy_dial_tcp() returns it rather than storing
 * it), so that a stopping pool can shut it down. No connection is
 * suspended or resumed here.
 *
 * Ownership: the owner closes the socket, frees the TLS state with
 * proxy_dial_tls_free() and an answer with proxy_dial_answer_free(),
 * whatever the calls returned.
 */
#ifndef PROXY_DIAL_H
#define PROXY_DIAL_H

#include <openssl/ssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config/buf.h"

struct config_upstream;

struct proxy_dial {
	int fd; /* -1 until the owner stores proxy_dial_tcp()'s */
	SSL_CTX *ctx;
	SSL *ssl;		     /* NULL: plain TCP */
	bool (*stopping)(void *cls); /* true: give up waiting */
	void *cls;
};

/* The upstream's answer to the request sent. */
struct proxy_dial_answer {
	unsigned status;
	struct buf hdrs;  /* "name\0value\0" pairs, as received */
	struct buf body;  /* a non-101 answer's body, dechunked */
	struct buf extra; /* after a 101: the bytes that followed its head */
};

/* Seconds on CLOCK_MONOTONIC, for deadlines. Any thread. */
double proxy_dial_now(void);

/* Connect to host:port by the deadline. Returns the socket (non-blocking,
 * keepalive, no Nagle), the caller's to store in d->fd and to close, or
 * -1 with err set. */
int proxy_dial_tcp(struct proxy_dial *d, const char *host, const char *port,
		   double deadline, char *err, size_t errlen);
/* TLS over d->fd, checking name (a DNS name or an IP address) against
 * cr's trust (cr may be NULL: the system roots); the client certificate
 * of cr only with client_cert. Returns 0, or -1 with err set; either way
 * free d's TLS state with proxy_dial_tls_free(). */
int proxy_dial_tls(struct proxy_dial *d, const struct config_upstream *cr,
		   const char *name, bool client_cert, double deadline,
		   char *err, size_t errlen);
/* Release the TLS state (the socket is the owner's to close). Safe to
 * call again, or when there is none. */
void proxy_dial_tls_free(struct proxy_dial *d);

/* At most n bytes, never waiting: >0 moved, 0 EOF (read), -1 error, -2
 * would block with *want the poll() event to wait for (TLS may want to
 * write in order to read, and the reverse). */
ssize_t proxy_dial_read(struct proxy_dial *d, char *p, size_t n, short *want);
ssize_t proxy_dial_write(struct proxy_dial *d, const char *p, size_t n,
			 short *want);
/* The end of what we send: close_notify over TLS, then a TCP half-close. */
void proxy_dial_shut_write(struct proxy_dial *d);

/* Send all n bytes by the deadline: 0 or -1. */
int proxy_dial_send(struct proxy_dial *d, const char *p, size_t n,
		    double deadline);
/*
 * Read the answer by the deadline: the head (at most head_max bytes),
 * then for a non-101 the body, whole at its Content-Length or last chunk
 * (the connection may stay open after it), else at the connection's end,
 * at most body_max bytes. a starts zeroed. Returns 0; or -1 with *code
 * 503 (no answer, not HTTP, too large) or 504 (the deadline) and err
 * set. Either way a is the caller's to free with proxy_dial_answer_free().
 */
int proxy_dial_answer(struct proxy_dial *d, struct proxy_dial_answer *a,
		      size_t head_max, size_t body_max, double deadline,
		      unsigned *code, char *err, size_t errlen);
void proxy_dial_answer_free(struct proxy_dial_answer *a);

#endif
