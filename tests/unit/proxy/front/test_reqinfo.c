/*
 * test_reqinfo: a request's authorization attributes against the rules
 * of the apiserver's RequestInfo, one table row a rule: verbs from the
 * method and watch, names from the path or a field selector (= and ==,
 * beside other terms, two names, !=, escapes, what does not parse),
 * subresources, the namespace's own subresources, the watch and proxy
 * prefixes, /api against /apis, and non-resource paths.
 */
#include <errno.h>
#include <string.h>

#include "proxy/front/reqinfo.h"
#include "names.h"
#include "check.h"

struct row {
	const char *method, *path, *watch, *fs;
	bool bad_opts;
	/* expected; res NULL: a non-resource request */
	const char *verb, *group, *version, *ns, *res, *name, *sub;
};

#define NOT_A_RESOURCE NULL, NULL, NULL, NULL, NULL, NULL

static const struct row rows[] = {
	/* verbs from the method */
	{ "GET", "/api/v1/namespaces/a/pods/p", NULL, NULL, false, "get", "",
	  "v1", "a", "pods", "p", "" },
	{ "HEAD", "/api/v1/namespaces/a/pods/p", NULL, NULL, false, "get", "",
	  "v1", "a", "pods", "p", "" },
	{ "GET", "/api/v1/namespaces/a/pods", NULL, NULL, false, "list", "",
	  "v1", "a", "pods", "", "" },
	{ "GET", "/api/v1/pods", NULL, NULL, false, "list", "", "v1", "",
	  "pods", "", "" },
	{ "POST", "/api/v1/namespaces/a/pods", NULL, NULL, false, "create", "",
	  "v1", "a", "pods", "", "" },
	{ "PUT", "/api/v1/namespaces/a/pods/p", NULL, NULL, false, "update", "",
	  "v1", "a", "pods", "p", "" },
	{ "PATCH", "/api/v1/namespaces/a/pods/p", NULL, NULL, false, "patch",
	  "", "v1", "a", "pods", "p", "" },
	{ "DELETE", "/api/v1/namespaces/a/pods/p", NULL, NULL, false, "delete",
	  "", "v1", "a", "pods", "p", "" },
	{ "DELETE", "/api/v1/namespaces/a/pods", NULL, NULL, false,
	  "deletecollection", "", "v1", "a", "pods", "", "" },
	{ "OPTIONS", "/api/v1/namespaces/a/pods", NULL, NULL, false, "", "",
	  "v1", "a", "pods", "", "" },
	/* watch: any value but false and 0, any case */
	{ "GET", "/api/v1/pods", "true", NULL, false, "watch", "", "v1", "",
	  "pods", "", "" },
	{ "GET", "/api/v1/pods", "", NULL, false, "watch", "", "v1", "", "pods",
	  "", "" },
	{ "GET", "/api/v1/pods", "yes", NULL, false, "watch", "", "v1", "",
	  "pods", "", "" },
	{ "GET", "/api/v1/pods", "FALSE", NULL, false, "list", "", "v1", "",
	  "pods", "", "" },
	{ "GET", "/api/v1/pods", "0", NULL, false, "list", "", "v1", "", "pods",
	  "", "" },
	/* a named object with ?watch stays get */
	{ "GET", "/api/v1/namespaces/a/pods/p", "true", NULL, false, "get", "",
	  "v1", "a", "pods", "p", "" },
	/* the watch prefix: watch, even of a name */
	{ "GET", "/api/v1/watch/namespaces/a/pods/p", NULL, NULL, false,
	  "watch", "", "v1", "a", "pods", "p", "" },
	{ "GET", "/apis/apps/v1/watch/deployments", NULL, NULL, false, "watch",
	  "apps", "v1", "", "deployments", "", "" },
	/* ...where a field selector names nothing: it is not a list */
	{ "GET", "/api/v1/watch/namespaces/a/pods", NULL, "metadata.name=p",
	  false, "watch", "", "v1", "a", "pods", "", "" },
	/* field selectors: the name of a list or watch */
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name=cm-1",
	  false, "list", "", "v1", "a", "configmaps", "cm-1", "" },
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name==cm-1",
	  false, "list", "", "v1", "a", "configmaps", "cm-1", "" },
	{ "GET", "/api/v1/namespaces/a/configmaps", "1",
	  "metadata.namespace=rb-a,metadata.name=cm-1", false, "watch", "",
	  "v1", "a", "configmaps", "cm-1", "" },
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL,
	  "metadata.name=cm-1,metadata.namespace=a", false, "list", "", "v1",
	  "a", "configmaps", "cm-1", "" },
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL,
	  ",metadata.name=cm-1,", false, "list", "", "v1", "a", "configmaps",
	  "cm-1", "" },
	/* two names: the first */
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL,
	  "metadata.name=x,metadata.name=y", false, "list", "", "v1", "a",
	  "configmaps", "x", "" },
	/* != names nothing, but the = beside it does */
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name!=x",
	  false, "list", "", "v1", "a", "configmaps", "", "" },
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL,
	  "metadata.name!=x,metadata.name=y", false, "list", "", "v1", "a",
	  "configmaps", "y", "" },
	/* escapes are undone */
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name=a\\,b",
	  false, "list", "", "v1", "a", "configmaps", "a,b", "" },
	/* what does not parse leaves the name out */
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL,
	  "metadata.name=x,bogus", false, "list", "", "v1", "a", "configmaps",
	  "", "" },
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name===x",
	  false, "list", "", "v1", "a", "configmaps", "", "" },
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name=a\\b",
	  false, "list", "", "v1", "a", "configmaps", "", "" },
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name=x",
	  true, "list", "", "v1", "a", "configmaps", "", "" },
	/* names no path segment may be */
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name=..",
	  false, "list", "", "v1", "a", "configmaps", "", "" },
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name=a/b",
	  false, "list", "", "v1", "a", "configmaps", "", "" },
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name=a%b",
	  false, "list", "", "v1", "a", "configmaps", "", "" },
	/* spaces are part of the field's name */
	{ "GET", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name =x",
	  false, "list", "", "v1", "a", "configmaps", "", "" },
	/* a delete of a collection takes no name from a selector */
	{ "DELETE", "/api/v1/namespaces/a/configmaps", NULL, "metadata.name=x",
	  false, "deletecollection", "", "v1", "a", "configmaps", "", "" },
	/* subresources; segments past the third are not read */
	{ "GET", "/api/v1/namespaces/a/pods/p/log", NULL, NULL, false, "get",
	  "", "v1", "a", "pods", "p", "log" },
	{ "GET", "/api/v1/namespaces/a/pods/p/proxy/x/y", NULL, NULL, false,
	  "get", "", "v1", "a", "pods", "p", "proxy" },
	{ "GET", "/apis/apps/v1/namespaces/a/deployments/d/scale", NULL, NULL,
	  false, "get", "apps", "v1", "a", "deployments", "d", "scale" },
	/* the proxy prefix has no subresource */
	{ "GET", "/api/v1/proxy/namespaces/a/pods/p/x", NULL, NULL, false,
	  "proxy", "", "v1", "a", "pods", "p", "" },
	/* namespaces: the object is in its own namespace */
	{ "GET", "/api/v1/namespaces", NULL, NULL, false, "list", "", "v1", "",
	  "namespaces", "", "" },
	{ "GET", "/api/v1/namespaces/a", NULL, NULL, false, "get", "", "v1",
	  "a", "namespaces", "a", "" },
	{ "PUT", "/api/v1/namespaces/a/status", NULL, NULL, false, "update", "",
	  "v1", "a", "namespaces", "a", "status" },
	{ "PUT", "/api/v1/namespaces/a/finalize", NULL, NULL, false, "update",
	  "", "v1", "a", "namespaces", "a", "finalize" },
	/* cluster-scoped, groups with dots */
	{ "GET", "/api/v1/nodes/n1", NULL, NULL, false, "get", "", "v1", "",
	  "nodes", "n1", "" },
	{ "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles", NULL, NULL,
	  false, "list", "rbac.authorization.k8s.io", "v1", "", "clusterroles",
	  "", "" },
	{ "GET", "/api/v1/pods/", NULL, NULL, false, "list", "", "v1", "",
	  "pods", "", "" },
	/* not resources: discovery, other prefixes, too short */
	{ "GET", "/api/v1", NULL, NULL, false, "get", NOT_A_RESOURCE },
	{ "GET", "/apis/apps/v1", NULL, NULL, false, "get", NOT_A_RESOURCE },
	{ "GET", "/apis/apps", NULL, NULL, false, "get", NOT_A_RESOURCE },
	{ "GET", "/metrics", NULL, NULL, false, "get", NOT_A_RESOURCE },
	{ "POST", "/healthz/x/y/z", NULL, NULL, false, "post", NOT_A_RESOURCE },
	{ "GET", "/", NULL, NULL, false, "get", NOT_A_RESOURCE },
	{ "GET", "/version", NULL, NULL, false, "get", NOT_A_RESOURCE },
	/* a bare watch prefix: nothing to authorize as a resource */
	{ "GET", "/api/v1/watch", NULL, NULL, false, "get", NOT_A_RESOURCE },
};

static void test_rows(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct proxy_reqinfo_query q = { .watch = r->watch,
						 .field_selector = r->fs,
						 .options_bad = r->bad_opts };
		struct proxy_reqinfo ri;
		int rc = proxy_reqinfo_parse(r->method, r->path, &q, &ri);
		CHECK(rc == 0);
		bool ok = !rc && !strcmp(ri.verb, r->verb) &&
			  ri.resource == (r->res != NULL);
		if (ok && r->res)
			ok = !strcmp(ri.group, r->group) &&
			     !strcmp(ri.version, r->version) &&
			     !strcmp(ri.ns, r->ns) && !strcmp(ri.res, r->res) &&
			     !strcmp(ri.name, r->name) &&
			     !strcmp(ri.sub, r->sub);
		if (ok && !r->res)
			ok = !strcmp(ri.path, r->path);
		if (!ok)
			fprintf(stderr,
				"row %zu: %s %s watch=%s fs=%s: got verb=%s "
				"res=%d g=%s v=%s ns=%s r=%s n=%s s=%s\n",
				i, r->method, r->path,
				r->watch ? r->watch : "-", r->fs ? r->fs : "-",
				ri.verb, ri.resource, ri.group, ri.version,
				ri.ns, ri.res, ri.name, ri.sub);
		CHECK(ok);
	}
}

/* The bare verb "watch" is not mistaken for the verb of a non-resource
 * request: the method, lowercased, is. */
static void test_non_resource_verb(void)
{
	struct proxy_reqinfo ri;
	CHECK(proxy_reqinfo_parse("GET", "/api/v1/watch", NULL, &ri) == 0);
	CHECK(!ri.resource);
}

static void test_too_long(void)
{
	char path[600] = "/api/v1/namespaces/";
	memset(path + strlen(path), 'x', 300);
	struct proxy_reqinfo ri;
	CHECK(proxy_reqinfo_parse("GET", path, NULL, &ri) == -ENAMETOOLONG);
	/* the longest group and version the apiserver takes: whole */
	char group[254], version[64];
	names_group(group);
	names_label(version, 'v', '1');
	snprintf(path, sizeof(path), "/apis/%s/%s/widgets", group, version);
	CHECK(proxy_reqinfo_parse("GET", path, NULL, &ri) == 0);
	CHECK(ri.resource);
	CHECK_STR(ri.group, group);
	CHECK_STR(ri.version, version);
	CHECK_STR(ri.res, "widgets");
	char name[8];
	CHECK(!proxy_reqinfo_selector_name("metadata.name=too-long-a-name",
					   name, sizeof(name)));
	CHECK(proxy_reqinfo_selector_name("metadata.name=short", name,
					  sizeof(name)));
	CHECK_STR(name, "short");
}

static void test_watch_value(void)
{
	CHECK(proxy_reqinfo_watch_value("true"));
	CHECK(proxy_reqinfo_watch_value("1"));
	CHECK(proxy_reqinfo_watch_value(""));
	CHECK(proxy_reqinfo_watch_value("yes"));
	CHECK(proxy_reqinfo_watch_value("TRUE"));
	CHECK(!proxy_reqinfo_watch_value("false"));
	CHECK(!proxy_reqinfo_watch_value("FALSE"));
	CHECK(!proxy_reqinfo_watch_value("False"));
	CHECK(!proxy_reqinfo_watch_value("0"));
	CHECK(!proxy_reqinfo_watch_value(NULL));
}

int main(void)
{
	test_rows();
	test_watch_value();
	test_non_resource_verb();
	test_too_long();
	return check_done("reqinfo");
}
