/*
 * test_route: Kubernetes API paths split into group, version, namespace,
 * resource, name and subresource; what is not a resource path; and how
 * the watch parameter is read.
 */
#include <errno.h>
#include <string.h>

#include "proxy/route.h"
#include "names.h"
#include "check.h"

static void check_route(const char *path, const char *group,
			const char *version, const char *ns, const char *res,
			const char *name, const char *sub, bool watch)
{
	struct proxy_route rt;
	int rc = proxy_route_parse(path, &rt);
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "  path %s: %d\n", path, rc);
		return;
	}
	CHECK_STR(rt.group, group);
	CHECK_STR(rt.version, version);
	CHECK_STR(rt.ns, ns);
	CHECK_STR(rt.resource, res);
	CHECK_STR(rt.name, name);
	CHECK_STR(rt.sub, sub);
	CHECK(rt.watch_prefix == watch);
}

static void test_resource_paths(void)
{
	check_route("/api/v1/pods", "", "v1", "", "pods", "", "", false);
	check_route("/api/v1/namespaces/default/pods", "", "v1", "default",
		    "pods", "", "", false);
	check_route("/api/v1/namespaces/default/pods/web-1", "", "v1",
		    "default", "pods", "web-1", "", false);
	check_route("/api/v1/namespaces/default/pods/web-1/log", "", "v1",
		    "default", "pods", "web-1", "log", false);
	/* a namespace itself, not a namespaced list */
	check_route("/api/v1/namespaces", "", "v1", "", "namespaces", "", "",
		    false);
	check_route("/api/v1/namespaces/kube-system", "", "v1", "",
		    "namespaces", "kube-system", "", false);
	/* the namespace's own subresources, as the apiserver reads them */
	check_route("/api/v1/namespaces/kube-system/status", "", "v1", "",
		    "namespaces", "kube-system", "status", false);
	check_route("/api/v1/namespaces/x/finalize", "", "v1", "", "namespaces",
		    "x", "finalize", false);
	check_route("/apis/apps/v1/deployments", "apps", "v1", "",
		    "deployments", "", "", false);
	check_route("/apis/apps/v1/namespaces/ns1/deployments/d/scale", "apps",
		    "v1", "ns1", "deployments", "d", "scale", false);
	check_route("/apis/example.com/v1alpha1/widgets", "example.com",
		    "v1alpha1", "", "widgets", "", "", false);
	/* the legacy /watch/ prefix */
	check_route("/api/v1/watch/pods", "", "v1", "", "pods", "", "", true);
	check_route("/api/v1/watch/namespaces/default/pods/p", "", "v1",
		    "default", "pods", "p", "", true);
	check_route("/apis/apps/v1/watch/namespaces/x/deployments", "apps",
		    "v1", "x", "deployments", "", "", true);
	check_route("/api/v1/nodes/", "", "v1", "", "nodes", "", "", false);
}

static void test_not_resources(void)
{
	static const char *other[] = {
		"/",
		"/api",
		"/api/v1",
		"/apis",
		"/apis/apps",
		"/apis/apps/v1",
		"/healthz",
		"/metrics",
		"/openapi/v2",
		"/version",
		"/api/v1/watch",
		"/api/v1/namespaces/default/pods/p/status/extra",
	};
	for (size_t i = 0; i < sizeof(other) / sizeof(*other); i++) {
		struct proxy_route rt;
		int rc = proxy_route_parse(other[i], &rt);
		CHECK(rc == -ENOENT);
		if (rc != -ENOENT)
			fprintf(stderr, "  path %s: %d\n", other[i], rc);
	}
}

static void test_too_long(void)
{
	char path[512];
	struct proxy_route rt;
	memset(path, 0, sizeof(path));
	strcpy(path, "/api/v1/");
	memset(path + strlen(path), 'r', 100); /* resource[64] */
	CHECK(proxy_route_parse(path, &rt) == -EINVAL);
	/* a group past a DNS name's 253 bytes */
	strcpy(path, "/apis/");
	memset(path + 6, 'g', 254);
	strcpy(path + 260, "/v1/things");
	CHECK(proxy_route_parse(path, &rt) == -EINVAL);
	/* a version past a DNS label's 63 */
	snprintf(path, sizeof(path), "/apis/example.com/v%064d/things", 1);
	CHECK(proxy_route_parse(path, &rt) == -EINVAL);
}

/* The longest names the apiserver takes are routed whole: a group of 253
 * bytes (a DNS name), a version of 63 (a DNS label); they were once
 * answered 400. */
static void test_longest(void)
{
	char group[254], version[64], path[512];
	names_group(group);
	names_label(version, 'v', '1');
	snprintf(path, sizeof(path), "/apis/%s/%s/namespaces/a/widgets/w",
		 group, version);
	struct proxy_route rt;
	CHECK(proxy_route_parse(path, &rt) == 0);
	CHECK_STR(rt.group, group);
	CHECK_STR(rt.version, version);
	CHECK_STR(rt.resource, "widgets");
	CHECK_STR(rt.name, "w");
}

int main(void)
{
	test_resource_paths();
	test_not_resources();
	test_too_long();
	test_longest();
	return check_done("route");
}
