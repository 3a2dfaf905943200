/*
 * test_url: the apiserver URLs the cache requests: group versions,
 * collections, LIST pages with an escaped continue token, WATCHes, and
 * truncation into small buffers.
 */
#include <string.h>

#include "cache/kind.h"
#include "cache/url.h"
#include "check.h"

static void test_paths(void)
{
	char out[128];
	const struct cache_kind *pods = cache_kind_lookup("pods");
	const struct cache_kind *deps = cache_kind_lookup("deployments.apps");
	cache_url_group_version("", "v1", out, sizeof(out));
	CHECK_STR(out, "/api/v1");
	cache_url_group_version("example.com", "v2beta1", out, sizeof(out));
	CHECK_STR(out, "/apis/example.com/v2beta1");
	cache_url_collection(pods, NULL, out, sizeof(out));
	CHECK_STR(out, "/api/v1/pods");
	cache_url_collection(pods, "", out, sizeof(out));
	CHECK_STR(out, "/api/v1/pods");
	cache_url_collection(pods, "kube-system", out, sizeof(out));
	CHECK_STR(out, "/api/v1/namespaces/kube-system/pods");
	cache_url_collection(deps, "ns", out, sizeof(out));
	CHECK_STR(out, "/apis/apps/v1/namespaces/ns/deployments");
	/* small buffers: truncated, terminated, never overrun */
	char small[12];
	memset(small, 'x', sizeof(small));
	cache_url_collection(deps, "ns", small, 10);
	CHECK(strlen(small) == 9 && small[10] == 'x');
	CHECK_STR(small, "/apis/app");
	cache_url_collection(pods, "namespace", small, 8);
	CHECK_STR(small, "/api/v1");
	cache_url_collection(pods, "namespace", small, 12);
	CHECK_STR(small, "/api/v1/nam");
}

static void test_requests(void)
{
	const struct cache_kind *pods = cache_kind_lookup("pods");
	struct buf u = BUF_INIT;
	cache_url_list(&u, "http://h:1", pods, NULL, 500, NULL);
	CHECK(buf_ok(&u));
	CHECK_STR(u.p, "http://h:1/api/v1/pods?limit=500");
	buf_reset(&u);
	cache_url_list(&u, "http://h:1", pods, NULL, 2,
		       "eyJ2Ijo+/=~-._ \x01\xff");
	CHECK_STR(u.p, "http://h:1/api/v1/pods?limit=2&continue="
		       "eyJ2Ijo%2B%2F%3D~-._%20%01%FF");
	buf_reset(&u);
	cache_url_list(&u, "", pods, NULL, 1, "");
	CHECK_STR(u.p, "/api/v1/pods?limit=1&continue=");
	buf_reset(&u);
	cache_url_watch(&u, "https://k", cache_kind_lookup("deployments.apps"),
			NULL, 18446744073709551615ULL, 300);
	CHECK_STR(u.p, "https://k/apis/apps/v1/deployments?watch=true"
		       "&resourceVersion=18446744073709551615"
		       "&allowWatchBookmarks=true&timeoutSeconds=300");
	buf_free(&u);

	struct buf e = BUF_INIT;
	cache_url_escape(&e, "AZaz09");
	CHECK_STR(e.p, "AZaz09");
	buf_reset(&e);
	cache_url_escape(&e, "a&b=c?d#e%");
	CHECK_STR(e.p, "a%26b%3Dc%3Fd%23e%25");
	buf_free(&e);
}

int main(void)
{
	test_paths();
	test_requests();
	return check_done("url");
}
