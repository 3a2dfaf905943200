/*
 * loadgen http: a small blocking HTTP/1.1 client over plain TCP.
 *
 * Writers, the LIST and GET load and the set-up requests each own one
 * keep-alive connection and issue one request at a time. Responses with
 * Content-Length, chunked bodies and close-delimited bodies are read; a
 * body may be discarded while it is counted, so a 60 MB LIST costs the
 * client one kernel copy and no memcpy.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "loadgen.h"

#define READ_CHUNK (256 * 1024)

int lg_buf_reserve(struct lg_buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

int lg_buf_add(struct lg_buf *b, const void *p, size_t n)
{
	if (lg_buf_reserve(b, n))
		return -ENOMEM;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

void lg_buf_free(struct lg_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

int lg_addr_parse(const char *url, struct lg_addr *a)
{
	const char *p = url;
	if (strncmp(p, "http://", 7) == 0)
		p += 7;
	else if (strstr(p, "://"))
		return -EINVAL; /* https is not supported */
	const char *colon = strrchr(p, ':');
	if (!colon || colon == p || (size_t)(colon - p) >= sizeof(a->host))
		return -EINVAL;
	char *end;
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (port == 0 || port > 65535 || (*end && *end != '/'))
		return -EINVAL;
	memcpy(a->host, p, (size_t)(colon - p));
	a->host[colon - p] = '\0';
	a->port = (unsigned)port;
	snprintf(a->hostport, sizeof(a->hostport), "%s:%u", a->host, a->port);
	return 0;
}

int lg_tcp_connect(const struct lg_addr *a)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)a->port) };
	if (inet_pton(AF_INET, a->host, &sa.sin_addr) != 1) {
		struct addrinfo hints = { .ai_family = AF_INET,
					  .ai_socktype = SOCK_STREAM },
				*ai;
		if (getaddrinfo(a->host, NULL, &hints, &ai))
			return -EHOSTUNREACH;
		sa.sin_addr = ((struct sockaddr_in *)ai->ai_addr)->sin_addr;
		freeaddrinfo(ai);
	}
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

void lg_http_init(struct lg_http *h, const struct lg_addr *a, int timeout_ms)
{
	memset(h, 0, sizeof(*h));
	h->addr = a;
	h->fd = -1;
	h->timeout_ms = timeout_ms;
}

void lg_http_close(struct lg_http *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	h->in.len = h->off = 0;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Read more raw bytes; 0 on EOF, > 0 bytes, or -errno. */
static ssize_t fill(struct lg_http *h)
{
	if (h->off && h->off == h->in.len) {
		h->in.len = h->off = 0;
	} else if (h->off > h->in.cap / 2) {
		memmove(h->in.p, h->in.p + h->off, h->in.len - h->off);
		h->in.len -= h->off;
		h->off = 0;
	}
	if (lg_buf_reserve(&h->in, READ_CHUNK))
		return -ENOMEM;
	for (;;) {
		ssize_t k = recv(h->fd, h->in.p + h->in.len,
				 h->in.cap - h->in.len - 1, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		h->in.len += (size_t)k;
		return k;
	}
}

/* Take n body bytes from the raw buffer into body (or count them). */
static int take(struct lg_http *h, size_t n, struct lg_buf *body)
{
	if (body && lg_buf_add(body, h->in.p + h->off, n))
		return -ENOMEM;
	h->off += n;
	h->body_bytes += n;
	return 0;
}

/* Bytes available in the raw buffer. */
static size_t avail(const struct lg_http *h)
{
	return h->in.len - h->off;
}

/* A CRLF-terminated line at off; returns its length or -1 if partial. */
static long line_len(const struct lg_http *h)
{
	const char *p = memchr(h->in.p + h->off, '\n', avail(h));
	return p ? (long)(p - (h->in.p + h->off)) + 1 : -1;
}

static int read_chunked(struct lg_http *h, struct lg_buf *body)
{
	for (;;) {
		long ll;
		while ((ll = line_len(h)) < 0) {
			ssize_t k = fill(h);
			if (k <= 0)
				return k ? (int)k : -ECONNRESET;
		}
		uint64_t size = strtoull(h->in.p + h->off, NULL, 16);
		h->off += (size_t)ll;
		if (size == 0) {
			/* trailers until an empty line */
			for (;;) {
				while ((ll = line_len(h)) < 0) {
					ssize_t k = fill(h);
					if (k <= 0)
						return k ? (int)k : -ECONNRESET;
				}
				h->off += (size_t)ll;
				if (ll <= 2)
					return 0;
			}
		}
		while (size) {
			if (!avail(h)) {
				ssize_t k = fill(h);
				if (k <= 0)
					return k ? (int)k : -ECONNRESET;
			}
			size_t n = avail(h) < size ? avail(h) : (size_t)size;
			if (take(h, n, body))
				return -ENOMEM;
			size -= n;
		}
		while (avail(h) < 2) { /* the CRLF after the data */
			ssize_t k = fill(h);
			if (k <= 0)
				return k ? (int)k : -ECONNRESET;
		}
		h->off += 2;
	}
}

/* Read one response. *fresh is false once a byte of it has arrived. */
static int read_response(struct lg_http *h, struct lg_buf *body, bool head,
			 bool *fresh)
{
	char *eoh;
	while (!(eoh = memmem(h->in.p ? h->in.p + h->off : "", avail(h),
			      "\r\n\r\n", 4))) {
		ssize_t k = fill(h);
		if (k <= 0)
			return k ? (int)k : -ECONNRESET;
		*fresh = false;
	}
	*fresh = false;
	const char *p = h->in.p + h->off;
	int status = 0;
	if (sscanf(p, "HTTP/1.%*d %d", &status) != 1 || status < 100)
		return -EPROTO;
	long long clen = -1;
	bool chunked = false, close_after = false;
	for (const char *l = strstr(p, "\r\n") + 2; l < eoh;
	     l = strstr(l, "\r\n") + 2) {
		if (!strncasecmp(l, "Content-Length:", 15))
			clen = strtoll(l + 15, NULL, 10);
		else if (!strncasecmp(l, "Transfer-Encoding:", 18) &&
			 strstr(l, "chunked") && strstr(l, "chunked") < eoh)
			chunked = true;
		else if (!strncasecmp(l, "Connection:", 11) &&
			 !strncasecmp(l + 11 + strspn(l + 11, " "), "close", 5))
			close_after = true;
	}
	h->off = (size_t)(eoh + 4 - h->in.p);
	int rc = 0;
	if (head || status == 204 || status == 304) {
		/* no body */
	} else if (chunked) {
		rc = read_chunked(h, body);
	} else if (clen >= 0) {
		uint64_t left = (uint64_t)clen;
		while (left) {
			if (!avail(h)) {
				ssize_t k = fill(h);
				if (k <= 0)
					return k ? (int)k : -ECONNRESET;
			}
			size_t n = avail(h) < left ? avail(h) : (size_t)left;
			if (take(h, n, body))
				return -ENOMEM;
			left -= n;
		}
	} else {
		for (;;) {
			if (avail(h) && take(h, avail(h), body))
				return -ENOMEM;
			ssize_t k = fill(h);
			if (k < 0)
				return (int)k;
			if (k == 0)
				break;
		}
		close_after = true;
	}
	if (rc)
		return rc;
	if (close_after)
		lg_http_close(h);
	return status;
}

int lg_http_do(struct lg_http *h, const char *method, const char *path,
	       const char *ctype, const char *req, size_t reqlen,
	       struct lg_buf *body)
{
	char head[2048];
	int n = snprintf(head, sizeof(head),
			 "%s %s HTTP/1.1\r\nHost: %s\r\n"
			 "User-Agent: loadgen\r\nAccept: application/json\r\n",
			 method, path, h->addr->hostport);
	if (ctype)
		n += snprintf(head + n, sizeof(head) - (size_t)n,
			      "Content-Type: %s\r\n", ctype);
	if (req || !strcmp(method, "POST") || !strcmp(method, "PUT") ||
	    !strcmp(method, "PATCH"))
		n += snprintf(head + n, sizeof(head) - (size_t)n,
			      "Content-Length: %zu\r\n", reqlen);
	n += snprintf(head + n, sizeof(head) - (size_t)n, "\r\n");
	if (n >= (int)sizeof(head))
		return -E2BIG;

	for (int attempt = 0; attempt < 2; attempt++) {
		bool reused = h->fd >= 0, fresh = true;
		if (h->fd < 0) {
			int fd = lg_tcp_connect(h->addr);
			if (fd < 0)
				return fd;
			struct timeval tv = { h->timeout_ms / 1000,
					      (h->timeout_ms % 1000) * 1000 };
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				   sizeof(tv));
			h->fd = fd;
			h->in.len = h->off = 0;
		}
		if (body) {
			body->len = 0;
			if (body->p)
				body->p[0] = '\0';
		}
		h->body_bytes = 0;
		int rc = send_all(h->fd, head, (size_t)n);
		if (!rc && reqlen)
			rc = send_all(h->fd, req, reqlen);
		if (!rc)
			rc = read_response(h, body, !strcmp(method, "HEAD"),
					   &fresh);
		if (rc > 0)
			return rc;
		lg_http_close(h);
		/* a keep-alive connection the server had closed: retry once */
		if (!(reused && fresh))
			return rc;
	}
	return -ECONNRESET;
}
