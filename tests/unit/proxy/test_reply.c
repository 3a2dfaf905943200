/*
 * test_reply: the answers the proxy builds: which Accept-Encoding takes
 * gzip, a gzip response built from pieces, small and large, a response
 * owning a built body, and on live connections a text answer's headers,
 * a NULL response closing the connection, Status errors, and bodies from
 * a buffer and from pieces: indented (with helper threads too),
 * compressed, and their memory released once.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/buf.h"
#include "proxy/ahead.h"
#include "proxy/pretty.h"
#include "proxy/reply.h"
#include "gunzip.h"
#include "mhd_stub.h"
#include "check.h"

static void test_accepted(void)
{
	CHECK(proxy_reply_gzip_accepted("gzip"));
	CHECK(proxy_reply_gzip_accepted("gzip, deflate, br"));
	CHECK(proxy_reply_gzip_accepted("br, GZIP"));
	CHECK(proxy_reply_gzip_accepted("deflate,gzip;q=0.5"));
	CHECK(proxy_reply_gzip_accepted("*"));
	CHECK(proxy_reply_gzip_accepted("identity, *;q=0.1"));
	CHECK(!proxy_reply_gzip_accepted(NULL));
	CHECK(!proxy_reply_gzip_accepted(""));
	CHECK(!proxy_reply_gzip_accepted("identity"));
	CHECK(!proxy_reply_gzip_accepted("deflate, br"));
	CHECK(!proxy_reply_gzip_accepted("gzip;q=0"));
	CHECK(!proxy_reply_gzip_accepted("gzip;q=0.0, br"));
	CHECK(!proxy_reply_gzip_accepted("gzipx"));
	CHECK(!proxy_reply_gzip_accepted("x-gzip"));
}

static void test_gzip_response(void)
{
	static char big[300 * 1024];
	memset(big, 'a', sizeof(big));
	struct MHD_IoVec v[3] = { { "{\"a\":", 5 },
				  { big, sizeof(big) },
				  { "}", 1 } };
	struct MHD_Response *r = proxy_reply_gzip(v, 3, 6 + sizeof(big));
	CHECK(r != NULL);
	if (r)
		MHD_destroy_response(r);
	struct MHD_IoVec one = { "x", 1 };
	r = proxy_reply_gzip(&one, 1, 1);
	CHECK(r != NULL);
	if (r)
		MHD_destroy_response(r);
	/* no memory for the stream, its output, or more output (noise does
	 * not shrink, so the first guess is outgrown): NULL, nothing kept */
	static char noise[200 * 1024];
	uint32_t x = 1;
	for (size_t i = 0; i < sizeof(noise); i++) {
		x = x * 1103515245u + 12345u;
		noise[i] = (char)(x >> 16);
	}
	struct MHD_IoVec nv = { noise, sizeof(noise) };
	for (long n = 1; n <= 3; n++) {
		alloc_fail_after(n);
		r = proxy_reply_gzip(&nv, 1, sizeof(noise));
		CHECK(r == NULL);
		CHECK(alloc_failures() == 1);
		alloc_fail_after(0);
	}
	r = proxy_reply_gzip(&nv, 1, sizeof(noise));
	CHECK(r != NULL);
	if (r)
		MHD_destroy_response(r);
}

/* A built body becomes a response that owns its bytes; a failed one,
 * or a response that cannot be made, frees them. */
static void test_from_buf(void)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "{\"kind\":\"Status\"}");
	struct MHD_Response *r = proxy_reply_from_buf(&b);
	CHECK(r != NULL && b.p == NULL && b.len == 0);
	if (r)
		MHD_destroy_response(r);
	alloc_fail_after(1);
	buf_adds(&b, "x");
	alloc_fail_after(0);
	CHECK(!buf_ok(&b));
	CHECK(proxy_reply_from_buf(&b) == NULL && b.p == NULL);
	char *p = xstrdup("owned");
	r = proxy_reply_owned(p, 5);
	CHECK(r != NULL);
	if (r)
		MHD_destroy_response(r);
}
/* ---- live: a stub server whose answers are made here ---- */

/* The body that /pieces sends: "[" then n numbers of w digits, "]\n",
 * each number and separator one piece. */
static char item[2048];
static int pieces_sent, pieces_done;

static void on_done(void *cls)
{
	__atomic_add_fetch((int *)cls, 1, __ATOMIC_RELAXED);
}

static void expected_pieces(struct buf *b, size_t n, size_t w)
{
	buf_addc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(b, ',');
		buf_add(b, item, w);
	}
	buf_adds(b, "]\n");
}

/* The body that /list sends: a List of n items, each {"name":"" with w
 * bytes of item,"spec":{"a":[1,{}]}}, every item a piece whose indented
 * length is kept in kept[i]. With depth=1 the items sit one level up
 * ({"items":[...]} is then [...]), where no length is kept. */
#define LIST_MAX 4000
static uint32_t kept[LIST_MAX];

static void list_item(struct buf *b, size_t w)
{
	buf_adds(b, "\"name\":\"");
	buf_add(b, item, w);
	buf_adds(b, "\",\"spec\":{\"a\":[1,{}]}}");
}

static void expected_list(struct buf *b, size_t n, size_t w, bool top)
{
	buf_adds(b, top ? "[" : "{\"kind\":\"L\",\"items\":[");
	for (size_t i = 0; i < n; i++) {
		buf_adds(b, i ? ",{" : "{");
		list_item(b, w);
	}
	buf_adds(b, top ? "]\n" : "]}\n");
}

static struct proxy_ahead_pool *ahead_pool;

static enum MHD_Result answer_list(struct MHD_Connection *c)
{
	const char *ns =
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "n");
	const char *ws =
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "w");
	bool top = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
					       "depth") != NULL;
	size_t n = ns ? strtoul(ns, NULL, 10) : 0;
	size_t w = ws ? strtoul(ws, NULL, 10) : 0;
	static struct buf items[LIST_MAX]; /* live as long as the test */
	struct proxy_reply_pieces pc = { 0 };
	proxy_reply_pieces_add(&pc, top ? "[" : "{\"kind\":\"L\",\"items\":[",
			       top ? 1 : 21);
	for (size_t i = 0; i < n && i < LIST_MAX; i++) {
		buf_reset(&items[i]);
		list_item(&items[i], w);
		proxy_reply_pieces_add(&pc, i ? ",{" : "{", i ? 2 : 1);
		proxy_reply_pieces_add_item(&pc, items[i].p, items[i].len,
					    &kept[i]);
	}
	proxy_reply_pieces_add(&pc, top ? "]\n" : "]}\n", top ? 2 : 3);
	__atomic_add_fetch(&pieces_sent, 1, __ATOMIC_RELAXED);
	return proxy_reply_pieces(c, &pc, on_done, &pieces_done);
}

static enum MHD_Result answer(void *arg, struct MHD_Connection *c,
			      const char *url, const char *method)
{
	(void)arg;
	(void)method;
	if (!strcmp(url, "/null")) /* building the answer failed */
		return proxy_reply_queue(c, 200, NULL);
	if (!strcmp(url, "/text"))
		return proxy_reply_text(c, 202, "text/x-test",
					"k=1[1] t=0 none=0");
	if (!strcmp(url, "/notfound"))
		return proxy_reply_not_found(c, "pods", "x\"y");
	if (!strcmp(url, "/busy"))
		return proxy_reply_too_many(c, "too many: %d", 3);
	if (!strcmp(url, "/error"))
		return proxy_reply_error(c, PROXY_Expired, "old %s", "rv");
	if (!strcmp(url, "/close")) {
		struct proxy_status st = { .reason = PROXY_ServiceUnavailable,
					   .message = "m",
					   .close = true };
		return proxy_reply_status(c, &st);
	}
	if (!strcmp(url, "/buf")) {
		struct buf b = BUF_INIT;
		buf_adds(&b, "{\"a\":[1,2],\"b\":{}}\n");
		return proxy_reply_buf(c, 201, &b);
	}
	if (!strcmp(url, "/list")) {
		/* ahead=1: with the helpers that indent items ahead */
		proxy_reply_set_ahead(
			MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
						    "ahead") ?
				ahead_pool :
				NULL);
		enum MHD_Result r = answer_list(c);
		proxy_reply_set_ahead(NULL);
		return r;
	}
	if (!strcmp(url, "/pieces")) {
		const char *ns = MHD_lookup_connection_value(
			c, MHD_GET_ARGUMENT_KIND, "n");
		const char *ws = MHD_lookup_connection_value(
			c, MHD_GET_ARGUMENT_KIND, "w");
		size_t n = ns ? strtoul(ns, NULL, 10) : 0;
		size_t w = ws ? strtoul(ws, NULL, 10) : 0;
		struct proxy_reply_pieces pc = { 0 };
		proxy_reply_pieces_add(&pc, "[", 1);
		for (size_t i = 0; i < n; i++) {
			if (i)
				proxy_reply_pieces_add(&pc, ",", 1);
			proxy_reply_pieces_add(&pc, item, w);
		}
		proxy_reply_pieces_add(&pc, "]\n", 2);
		__atomic_add_fetch(&pieces_sent, 1, __ATOMIC_RELAXED);
		return proxy_reply_pieces(c, &pc, on_done, &pieces_done);
	}
	return MHD_NO;
}

static void test_text_headers(int port)
{
	struct mhd_reply r;
	char v[128];
	CHECK(mhd_stub_get(port, "/text", &r) == 0);
	CHECK(r.status == 202);
	CHECK(r.len == strlen("k=1[1] t=0 none=0"));
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, "text/x-test");
	CHECK(mhd_reply_header(&r, "Cache-Control", v, sizeof(v)));
	CHECK_STR(v, "no-cache, private");
	CHECK(mhd_reply_header(&r, "X-Content-Type-Options", v, sizeof(v)));
	CHECK_STR(v, "nosniff");
	CHECK(!mhd_reply_header(&r, "ETag", v, sizeof(v)));
	mhd_reply_free(&r);
}
static void test_null(int port)
{
	struct mhd_reply r;
	/* a NULL response: MHD_NO, the connection closed with no answer */
	CHECK(mhd_stub_get(port, "/null", &r) != 0);
	CHECK(r.status == 0);
	mhd_reply_free(&r);
}

static void test_status(int port)
{
	struct mhd_reply r;
	char v[128];
	CHECK(mhd_stub_get(port, "/notfound", &r) == 0);
	CHECK(r.status == 404);
	CHECK_STR(
		r.body,
		"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		"\"status\":\"Failure\",\"message\":\"pods \\\"x\\\"y\\\" not found\","
		"\"reason\":\"NotFound\",\"details\":{\"name\":\"x\\\"y\","
		"\"kind\":\"pods\"},\"code\":404}\n");
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, "application/json");
	CHECK(mhd_reply_header(&r, "Cache-Control", v, sizeof(v)));
	CHECK_STR(v, "no-cache, private");
	CHECK(!mhd_reply_header(&r, "Retry-After", v, sizeof(v)));
	mhd_reply_free(&r);

	CHECK(mhd_stub_get(port, "/busy", &r) == 0);
	CHECK(r.status == 429);
	CHECK(strstr(r.body,
		     "\"message\":\"too many: 3\",\"reason\":"
		     "\"TooManyRequests\",\"details\":"
		     "{\"retryAfterSeconds\":1},\"code\":429}") != NULL);
	CHECK(mhd_reply_header(&r, "Retry-After", v, sizeof(v)));
	CHECK_STR(v, "1");
	mhd_reply_free(&r);

	CHECK(mhd_stub_get(port, "/error", &r) == 0);
	CHECK(r.status == 410);
	CHECK(strstr(r.body, "\"message\":\"old rv\",\"reason\":\"Expired\"") !=
	      NULL);
	mhd_reply_free(&r);

	CHECK(mhd_stub_get(port, "/close", &r) == 0);
	CHECK(r.status == 503);
	CHECK(mhd_reply_header(&r, "Connection", v, sizeof(v)));
	CHECK_STR(v, "close");
	mhd_reply_free(&r);

	/* ?pretty=true indents a Status as any other JSON answer */
	CHECK(mhd_stub_get(port, "/error?pretty=true", &r) == 0);
	CHECK(r.status == 410);
	CHECK(!strncmp(r.body, "{\n  \"kind\": \"Status\",\n", 22));
	CHECK(r.len && r.body[r.len - 1] == '}');
	mhd_reply_free(&r);
}

static void test_buf(int port)
{
	struct mhd_reply r;
	char v[128];
	CHECK(mhd_stub_get(port, "/buf", &r) == 0);
	CHECK(r.status == 201);
	CHECK_STR(r.body, "{\"a\":[1,2],\"b\":{}}\n");
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, "application/json");
	mhd_reply_free(&r);
	/* curl's User-Agent asks for indentation, as with the apiserver */
	const char *const curl_ua[] = { "User-Agent: curl/8.5.0", NULL };
	CHECK(mhd_stub_ask(port, "GET", "/buf", curl_ua, 0, &r) == 0);
	CHECK_STR(r.body, "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}");
	mhd_reply_free(&r);
}

/* /pieces of n items w bytes wide: the body as sent, gzip-compressed or
 * not as expected, indented when pretty. */
static void ask_pieces(int port, size_t n, size_t w, bool pretty, bool gz,
		       bool want_gz)
{
	char target[128];
	snprintf(target, sizeof(target), "/pieces?n=%zu&w=%zu%s", n, w,
		 pretty ? "&pretty=true" : "");
	const char *const hdrs[] = { "Accept-Encoding: gzip", NULL };
	struct mhd_reply r;
	char v[64];
	CHECK(mhd_stub_ask(port, "GET", target, gz ? hdrs : NULL, 0, &r) == 0);
	CHECK(r.status == 200);
	struct buf want = BUF_INIT, got = BUF_INIT;
	expected_pieces(&want, n, w);
	if (pretty) {
		struct buf ind = BUF_INIT;
		CHECK(proxy_pretty_indent(want.p, want.len - 1, &ind) == 0);
		buf_free(&want);
		want = ind;
	}
	bool is_gz = mhd_reply_header(&r, "Content-Encoding", v, sizeof(v));
	CHECK(is_gz == want_gz);
	if (is_gz) {
		CHECK_STR(v, "gzip");
		CHECK(mhd_reply_header(&r, "Vary", v, sizeof(v)));
		CHECK_STR(v, "Accept-Encoding");
		CHECK(gunzip(r.body, r.len, &got));
	} else {
		buf_add(&got, r.body, r.len);
	}
	CHECK(got.len == want.len && !memcmp(got.p, want.p, want.len));
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, "application/json");
	buf_free(&want);
	buf_free(&got);
	mhd_reply_free(&r);
}

/* Whether /pieces with n pieces of w bytes, asked with gzip, goes
 * chunked (compressed as it is sent) rather than with its length. */
static bool gzip_chunked(int port, size_t n, size_t w)
{
	char target[128], v[64];
	snprintf(target, sizeof(target), "/pieces?n=%zu&w=%zu", n, w);
	const char *const hdrs[] = { "Accept-Encoding: gzip", NULL };
	struct mhd_reply r;
	CHECK(mhd_stub_ask(port, "GET", target, hdrs, 0, &r) == 0);
	CHECK(mhd_reply_header(&r, "Content-Encoding", v, sizeof(v)));
	bool chunked = mhd_reply_header(&r, "Transfer-Encoding", v, sizeof(v));
	CHECK(chunked != mhd_reply_header(&r, "Content-Length", v, sizeof(v)));
	mhd_reply_free(&r);
	return chunked;
}

static void test_pieces(int port)
{
	memset(item, '1', sizeof(item)); /* each item a number */
	/* small: copied into one buffer */
	ask_pieces(port, 3, 8, false, false, false);
	ask_pieces(port, 3, 8, false, true, false);
	/* few pieces over 64 KiB: an iovec */
	ask_pieces(port, 100, 1024, false, false, false);
	/* more pieces than IOV_MAX: read in blocks */
	ask_pieces(port, 3000, 64, false, false, false);
	/* 3 MB: several blocks, pieces cut at their edges */
	ask_pieces(port, 3000, 1000, false, false, false);
	/* over 128 KiB for a client that takes gzip: compressed */
	ask_pieces(port, 200, 1024, false, true, true);
	ask_pieces(port, 3000, 64, false, true, true);
	/* past one send block: compressed as it is sent, chunked; under
	 * it, compressed whole and sent with its length */
	ask_pieces(port, 3000, 1000, false, true, true);
	CHECK(gzip_chunked(port, 3000, 1000));
	CHECK(!gzip_chunked(port, 200, 1024));
	/* pretty and small: indented into one buffer */
	ask_pieces(port, 3, 8, true, false, false);
	/* pretty and large: indented while sent, compressed as well */
	ask_pieces(port, 200, 1024, true, false, false);
	ask_pieces(port, 200, 1024, true, true, true);
	ask_pieces(port, 3000, 64, true, true, true);
}

/* /list indented: the body, with a Content-Length when sized (else
 * chunked) */
static void ask_list(int port, const char *query, size_t n, size_t w, bool top,
		     bool gz, bool sized)
{
	char target[128];
	snprintf(target, sizeof(target), "/list?n=%zu&w=%zu&pretty=true%s", n,
		 w, query);
	const char *const hdrs[] = { "Accept-Encoding: gzip", NULL };
	struct mhd_reply r;
	char v[64];
	CHECK(mhd_stub_ask(port, "GET", target, gz ? hdrs : NULL, 0, &r) == 0);
	CHECK(r.status == 200);
	struct buf want = BUF_INIT, ind = BUF_INIT, got = BUF_INIT;
	expected_list(&want, n, w, top);
	CHECK(proxy_pretty_indent(want.p, want.len - 1, &ind) == 0);
	CHECK(mhd_reply_header(&r, "Content-Length", v, sizeof(v)) == sized);
	if (sized)
		CHECK(strtoull(v, NULL, 10) == ind.len);
	CHECK(mhd_reply_header(&r, "Transfer-Encoding", v, sizeof(v)) ==
	      !sized);
	if (gz) {
		CHECK(mhd_reply_header(&r, "Content-Encoding", v, sizeof(v)));
		CHECK(gunzip(r.body, r.len, &got));
	} else {
		buf_add(&got, r.body, r.len);
	}
	CHECK(got.len == ind.len && !memcmp(got.p, ind.p, ind.len));
	buf_free(&want);
	buf_free(&ind);
	buf_free(&got);
	mhd_reply_free(&r);
}

/* Whether every one of the first n kept lengths is v (0: none kept). */
static bool all_kept(size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (kept[i] != v)
			return false;
	return true;
}

static void test_list_kept(int port)
{
	memset(item, 'x', sizeof(item));
	memset(kept, 0, sizeof(kept));
	/* one item's share of a List: the whole less the List around it */
	struct buf one = BUF_INIT, ind = BUF_INIT;
	expected_list(&one, 1, 64, false);
	CHECK(proxy_pretty_indent(one.p, one.len - 1, &ind) == 0);
	size_t around = strlen("{\n  \"kind\": \"L\",\n  \"items\": [\n    {") +
			strlen("\n  ]\n}");
	uint32_t len = (uint32_t)(ind.len - around);
	buf_free(&one);
	buf_free(&ind);
	/* compressed: chunked; each item's length kept as it is sent */
	ask_list(port, "", 3000, 64, false, true, false);
	CHECK(all_kept(3000, len));
	/* the same items one level up from a List's: counted anew, told */
	ask_list(port, "&depth=1", 3000, 64, true, false, true);
	CHECK(all_kept(3000, len));
	/* a List of items never indented: chunked, their lengths kept */
	memset(kept, 0, sizeof(kept));
	ask_list(port, "", 3000, 64, false, false, false);
	CHECK(all_kept(3000, len));
	/* then told from them */
	ask_list(port, "", 3000, 64, false, false, true);
	/* a few new items: counted, kept, and the length told */
	memset(kept + 100, 0, 200 * sizeof(*kept));
	ask_list(port, "", 3000, 64, false, false, true);
	CHECK(all_kept(3000, len));
	/* items one level up never keep a length (so that body goes
	 * chunked, as any whose items' lengths are mostly unknown) */
	memset(kept, 0, sizeof(kept));
	ask_list(port, "&depth=1", 3000, 64, true, true, false);
	ask_list(port, "&depth=1", 3000, 64, true, false, false);
	CHECK(all_kept(3000, 0));
}

/* A List over PROXY_AHEAD_MIN with the helpers: the same bytes and kept
 * lengths, chunked then sized, compressed or not; a client that leaves
 * halfway (its helpers waited for before the items go: ASan). */
static void test_list_ahead(int port)
{
	memset(item, 'y', sizeof(item));
	memset(kept, 0, sizeof(kept));
	size_t w = 300; /* 4,000 items of about 340 bytes: 1.3 MB */
	/* alone first: every item's length kept, those whose closing line
	 * a full chunk left pending too */
	ask_list(port, "", LIST_MAX, w, false, false, false);
	uint32_t first = kept[0];
	CHECK(first > 0 && all_kept(LIST_MAX, first));
	memset(kept, 0, sizeof(kept));
	ask_list(port, "&ahead=1", LIST_MAX, w, false, false, false);
	CHECK(all_kept(LIST_MAX, first));
	ask_list(port, "&ahead=1", LIST_MAX, w, false, false, true);
	ask_list(port, "&ahead=1", LIST_MAX, w, false, true, false);
	memset(kept + 2000, 0, 100 * sizeof(*kept));
	ask_list(port, "&ahead=1", LIST_MAX, w, false, true, false);
	CHECK(all_kept(LIST_MAX, first));
	/* items one level up: never at an item's start, never helped */
	memset(kept, 0, sizeof(kept));
	ask_list(port, "&ahead=1&depth=1", LIST_MAX, w, true, false, false);
	CHECK(all_kept(LIST_MAX, 0));
	for (int i = 0; i < 4; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_port = htons((uint16_t)port),
					  .sin_addr.s_addr =
						  htonl(INADDR_LOOPBACK) };
		int rcv = 4096;
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
		CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
		char req[160], got[4096];
		int rl = snprintf(req, sizeof(req),
				  "GET /list?n=%d&w=%zu&pretty=true&ahead=1 "
				  "HTTP/1.1\r\nHost: x\r\n\r\n",
				  LIST_MAX, w);
		CHECK(write(fd, req, (size_t)rl) == rl);
		CHECK(read(fd, got, sizeof(got)) > 0);
		close(fd);
	}
}

int main(void)
{
	test_accepted();
	test_gzip_response();
	test_from_buf();
	struct mhd_stub s;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CHECK(mhd_stub_start(&s, answer, NULL) == 0);
	test_text_headers(s.port);
	test_null(s.port);
	test_status(s.port);
	test_buf(s.port);
	test_pieces(s.port);
	test_list_kept(s.port);
	ahead_pool = proxy_ahead_pool_new();
	CHECK(ahead_pool != NULL); /* the tests run on two CPUs or more */
	test_list_ahead(s.port);
	mhd_stub_stop(&s); /* its bodies freed: then the pool */
	proxy_ahead_pool_free(ahead_pool);
	curl_global_cleanup();
	CHECK(pieces_done == pieces_sent);
	return check_done("reply");
}
