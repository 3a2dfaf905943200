/*
 * fuzz dial_answer: proxy_dial_answer(), the reading of the upstream's
 * HTTP answer to an upgrade request (exec, attach, port-forward): its
 * status line and headers, then a 101's stream or another answer's
 * body by Content-Length, chunks or the connection's end.
 *
 * The input: byte 0 picks the limits (bit 0: a 1 KiB head and a 2 KiB
 * body, to reach them; else upgrade.c's 64 KiB and 1 MiB), the rest is
 * what the upstream sends before it closes the connection. It is written
 * into one end of a socket pair whose other end is the dial's plain-TCP
 * socket, so the real reads run, with a deadline that is never reached.
 *
 * Invariants beyond "no crash" (and no leak, under ASan):
 *   - a failure is a 503 with a message;
 *   - an answer has a status of 100 to 599, and its headers are
 *     "name\0value\0" pairs with a non-empty name without ':' or CRLF
 *     and a value without CRLF or white space at either end (a bare CR
 *     or LF is libmicrohttpd's to refuse when the headers are passed on);
 *   - a 101 has no body, and the bytes after its head are the stream's,
 *     as sent; any other answer has no such bytes and a body of at most
 *     the limit, exactly its Content-Length when it gives one and is not
 *     chunked, the bytes sent after the head.
 */
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy/pass/dial.h"
#include "tests/fuzz/fuzz.h"

#define INPUT_MAX (128 * 1024) /* fits a socket pair's buffer */

static const char *hdr(const struct proxy_dial_answer *a, const char *name)
{
	for (size_t i = 0; i < a->hdrs.len;) {
		const char *k = a->hdrs.p + i;
		const char *v = k + strlen(k) + 1;
		if (!strcasecmp(k, name))
			return v;
		i = (size_t)(v - a->hdrs.p) + strlen(v) + 1;
	}
	return NULL;
}

static void check_answer(const struct proxy_dial_answer *a, const char *in,
			 size_t n, size_t body_max)
{
	FUZZ_CHECK(a->status >= 100 && a->status <= 599);
	/* the headers: pairs, each string within the list */
	for (size_t i = 0; i < a->hdrs.len;) {
		const char *k = a->hdrs.p + i;
		const char *end = a->hdrs.p + a->hdrs.len;
		const char *kz = memchr(k, '\0', (size_t)(end - k));
		FUZZ_CHECK(kz && kz + 1 < end);
		const char *v = kz + 1;
		const char *vz = memchr(v, '\0', (size_t)(end - v));
		FUZZ_CHECK(vz);
		FUZZ_CHECK(*k && !strchr(k, ':') && !strstr(k, "\r\n"));
		size_t vl = (size_t)(vz - v);
		FUZZ_CHECK(!vl || (v[0] != ' ' && v[0] != '\t' &&
				   v[vl - 1] != ' ' && v[vl - 1] != '\t'));
		FUZZ_CHECK(!memmem(v, vl, "\r\n", 2));
		i = (size_t)(vz - a->hdrs.p) + 1;
	}
	const char *eoh = memmem(in, n, "\r\n\r\n", 4);
	FUZZ_CHECK(eoh);
	size_t hl = (size_t)(eoh - in) + 4;
	if (a->status == 101) {
		FUZZ_CHECK(!a->body.len);
		FUZZ_CHECK(a->extra.len == n - hl &&
			   (!a->extra.len ||
			    !memcmp(a->extra.p, in + hl, n - hl)));
		return;
	}
	FUZZ_CHECK(!a->extra.len && a->body.len <= body_max);
	const char *cl = hdr(a, "Content-Length");
	const char *te = hdr(a, "Transfer-Encoding");
	if (cl && !(te && strcasestr(te, "chunked"))) {
		FUZZ_CHECK(a->body.len == (size_t)strtoll(cl, NULL, 10));
		FUZZ_CHECK(!a->body.len ||
			   !memcmp(a->body.p, in + hl, a->body.len));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > INPUT_MAX)
		return 0;
	bool small = data[0] & 1;
	size_t head_max = small ? 1024 : 64 * 1024;
	size_t body_max = small ? 2048 : 1024 * 1024;
	const char *in = (const char *)data + 1;
	size_t n = size - 1;

	int sv[2];
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	int buf = 2 * INPUT_MAX;
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	for (size_t off = 0; off < n;) {
		ssize_t w = write(sv[1], in + off, n - off);
		FUZZ_CHECK(w > 0);
		off += (size_t)w;
	}
	close(sv[1]); /* the upstream closes after its answer */

	struct proxy_dial d = { .fd = sv[0] };
	struct proxy_dial_answer a = { 0 };
	unsigned code = 0;
	char err[160] = "";
	int rc = proxy_dial_answer(&d, &a, head_max, body_max,
				   proxy_dial_now() + 30, &code, err,
				   sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == -1 && code == 503 && err[0]);
	} else {
		check_answer(&a, in, n, body_max);
	}
	proxy_dial_answer_free(&a);
	close(sv[0]);
	return 0;
}
