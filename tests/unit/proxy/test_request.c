/*
 * test_request: what a handler reads from its request, on live
 * connections: query arguments present, empty or absent, the true
 * values, and a client still there.
 */
#include <string.h>

#include "proxy/reply.h"
#include "proxy/request.h"
#include "mhd_stub.h"
#include "check.h"

/* Each request's answer: the helpers' findings about it, as text. */
static enum MHD_Result answer(void *arg, struct MHD_Connection *c,
			      const char *url, const char *method)
{
	char out[512];
	const char *v = NULL;
	if (!strcmp(url, "/gone")) {
		snprintf(out, sizeof(out), "gone=%d",
			 proxy_request_client_gone(c));
		return proxy_reply_text(c, 200, "text/plain", out);
	}
	bool has = proxy_request_arg(c, "k", &v);
	snprintf(out, sizeof(out), "k=%d[%s] t=%d none=%d", has, has ? v : "-",
		 proxy_request_arg_true(c, "t"),
		 proxy_request_arg(c, "none", NULL));
	return proxy_reply_text(c, 202, "text/x-test", out);
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


static void test_gone(int port)
{
	struct mhd_reply r;
	CHECK(mhd_stub_get(port, "/gone", &r) == 0);
	CHECK_STR(r.body, "gone=0");
	mhd_reply_free(&r);
}

int main(void)
{
	struct mhd_stub s;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CHECK(mhd_stub_start(&s, answer, NULL) == 0);
	test_args(s.port);
	test_gone(s.port);
	mhd_stub_stop(&s);
	curl_global_cleanup();
	return check_done("request");
}
