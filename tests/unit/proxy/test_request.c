/*
 * test_request: the helpers every handler shares, on live connections:
 * query arguments present, empty or absent, the true values, the cached
 * resource a route names, the stopping flag, a text answer's headers, a
 * NULL response closing the connection, and a client still there.
 */
#include <string.h>
#include <urcu-bp.h>

#include "cache/kind.h"
#include "config/alloc.h"
#include "config/buf.h"
#include "proxy/request.h"
#include "mhd_stub.h"
#include "check.h"

/* Each request's answer: the helpers' findings about it, as text. */
static enum MHD_Result answer(void *arg, struct MHD_Connection *c,
			      const char *url, const char *method)
{
	char out[512];
	const char *v = NULL;
	if (!strcmp(url, "/null")) /* building the answer failed */
		return proxy_request_queue(c, 200, NULL);
	if (!strcmp(url, "/gone")) {
		snprintf(out, sizeof(out), "gone=%d", proxy_client_gone(c));
		return proxy_request_text(c, 200, "text/plain", out);
	}
	bool has = proxy_arg(c, "k", &v);
	snprintf(out, sizeof(out), "k=%d[%s] t=%d none=%d", has, has ? v : "-",
		 proxy_arg_true(c, "t"), proxy_arg(c, "none", NULL));
	return proxy_request_text(c, 202, "text/x-test", out);
}

static void ask(int port, const char *target, const char *want)
{
	struct mhd_reply r;
	CHECK(mhd_stub_get(port, target, &r) == 0);
	CHECK(r.status == 202);
	CHECK_STR(r.body, want);
	mhd_reply_free(&r);
}

static void test_args(int port)
{
	ask(port, "/", "k=0[-] t=0 none=0");
	ask(port, "/?k=v", "k=1[v] t=0 none=0");
	ask(port, "/?k=", "k=1[] t=0 none=0");
	ask(port, "/?k", "k=1[] t=0 none=0");
	ask(port, "/?k=a%20b", "k=1[a b] t=0 none=0");
	ask(port, "/?kk=v&none", "k=0[-] t=0 none=1");
	/* true or 1; "true" in any case; nothing else */
	ask(port, "/?t=true", "k=0[-] t=1 none=0");
	ask(port, "/?t=TRUE", "k=0[-] t=1 none=0");
	ask(port, "/?t=1", "k=0[-] t=1 none=0");
	ask(port, "/?t=yes", "k=0[-] t=0 none=0");
	ask(port, "/?t=", "k=0[-] t=0 none=0");
	ask(port, "/?t", "k=0[-] t=0 none=0");
	ask(port, "/?t=0", "k=0[-] t=0 none=0");
	ask(port, "/?t=11", "k=0[-] t=0 none=0");
}

static void test_text_headers(int port)
{
	struct mhd_reply r;
	char v[128];
	CHECK(mhd_stub_get(port, "/?k=1", &r) == 0);
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

static void test_null_and_gone(int port)
{
	struct mhd_reply r;
	/* a NULL response: MHD_NO, the connection closed with no answer */
	CHECK(mhd_stub_get(port, "/null", &r) != 0);
	CHECK(r.status == 0);
	mhd_reply_free(&r);
	CHECK(mhd_stub_get(port, "/gone", &r) == 0);
	CHECK_STR(r.body, "gone=0");
	mhd_reply_free(&r);
}

static void test_find_and_stopping(void)
{
	struct cache_upstream up = { .server = "http://127.0.0.1:1" };
	struct cache_resource *res[2] = {
		cache_resource_new(cache_kind_lookup("pods"), &up, 16),
		cache_resource_new(cache_kind_lookup("deployments.apps"), &up,
				   16),
	};
	CHECK(res[0] && res[1]);
	struct proxy p = { .res = res, .nres = 2 };
	struct proxy_route rt = { 0 };
	CHECK(proxy_route_parse("/api/v1/namespaces/a/pods/x", &rt) == 0);
	CHECK(proxy_find(&p, &rt) == res[0]);
	CHECK(proxy_route_parse("/apis/apps/v1/deployments", &rt) == 0);
	CHECK(proxy_find(&p, &rt) == res[1]);
	/* the group, the version and the resource must all match */
	CHECK(proxy_route_parse("/apis/apps/v1beta1/deployments", &rt) == 0);
	CHECK(proxy_find(&p, &rt) == NULL);
	CHECK(proxy_route_parse("/apis/extensions/v1/deployments", &rt) == 0);
	CHECK(proxy_find(&p, &rt) == NULL);
	CHECK(proxy_route_parse("/api/v1/services", &rt) == 0);
	CHECK(proxy_find(&p, &rt) == NULL);
	p.nres = 0;
	CHECK(proxy_route_parse("/api/v1/pods", &rt) == 0);
	CHECK(proxy_find(&p, &rt) == NULL);

	CHECK(!proxy_stopping(&p));
	__atomic_store_n(&p.stopping, true, __ATOMIC_RELEASE);
	CHECK(proxy_stopping(&p));

	cache_resource_free(res[0]);
	cache_resource_free(res[1]);
	rcu_barrier();
}

/* A built body becomes a response that owns its bytes; a failed one,
 * or a response that cannot be made, frees them. */
static void test_from_buf(void)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "{\"kind\":\"Status\"}");
	struct MHD_Response *r = proxy_request_from_buf(&b);
	CHECK(r != NULL && b.p == NULL && b.len == 0);
	if (r)
		MHD_destroy_response(r);
	alloc_fail_after(1);
	buf_adds(&b, "x");
	alloc_fail_after(0);
	CHECK(!buf_ok(&b));
	CHECK(proxy_request_from_buf(&b) == NULL && b.p == NULL);
	char *p = xstrdup("owned");
	r = proxy_request_owned(p, 5);
	CHECK(r != NULL);
	if (r)
		MHD_destroy_response(r);
}

int main(void)
{
	test_from_buf();
	struct mhd_stub s;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CHECK(mhd_stub_start(&s, answer, NULL) == 0);
	test_args(s.port);
	test_text_headers(s.port);
	test_null_and_gone(s.port);
	mhd_stub_stop(&s);
	test_find_and_stopping();
	curl_global_cleanup();
	return check_done("request");
}
