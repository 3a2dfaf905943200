/*
 * test_proxy: the questions every part asks of struct proxy: the cached
 * resource a route names, and the stopping flag.
 */
#include <urcu-bp.h>

#include "cache/kind.h"
#include "proxy/proxy.h"
#include "check.h"

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

int main(void)
{
	test_find_and_stopping();
	return check_done("proxy");
}
