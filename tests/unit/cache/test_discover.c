/*
 * test_discover: reading discovery documents without a server: an
 * APIGroup's preferred version, a resource's kind and scope from an
 * APIResourceList, documents that lack them, and allocation failure.
 * kubectl's names (short, singular, Kind, with .version and .group) in
 * aggregated discovery documents, and their order of preference; kinds
 * whose verbs lack list or watch are refused. The
 * network half is covered end to end.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cache/discover.h"
#include "config/alloc.h"
#include "check.h"

static int parse(struct json_doc *d, const char *js)
{
	return json_parse(d, js, strlen(js), NULL, 0);
}

static void test_preferred(void)
{
	struct json_doc d = JSON_DOC_INIT;
	char ver[8];
	CHECK(parse(&d,
		    "{\"kind\":\"APIGroup\",\"name\":\"example.com\","
		    "\"preferredVersion\":{\"groupVersion\":\"example.com/v2\","
		    "\"version\":\"v2\"}}") == 0);
	CHECK(cache_discover_preferred(&d, ver, sizeof(ver)) == 0);
	CHECK_STR(ver, "v2");
	CHECK(cache_discover_preferred(&d, ver, 2) == -ENOENT); /* too long */
	json_doc_free(&d);
	d = (struct json_doc)JSON_DOC_INIT;
	CHECK(parse(&d, "{\"preferredVersion\":{\"version\":\"\"}}") == 0);
	CHECK(cache_discover_preferred(&d, ver, sizeof(ver)) == -ENOENT);
	json_doc_free(&d);
	d = (struct json_doc)JSON_DOC_INIT;
	CHECK(parse(&d, "{\"preferredVersion\":{\"version\":2}}") == 0);
	CHECK(cache_discover_preferred(&d, ver, sizeof(ver)) == -ENOENT);
	json_doc_free(&d);
	d = (struct json_doc)JSON_DOC_INIT;
	CHECK(parse(&d, "{\"versions\":[]}") == 0);
	CHECK(cache_discover_preferred(&d, ver, sizeof(ver)) == -ENOENT);
	json_doc_free(&d);
}

static const char *list_doc =
	"{\"kind\":\"APIResourceList\",\"groupVersion\":\"example.com/v1\","
	"\"resources\":["
	"{\"name\":\"widgets/status\",\"kind\":\"Widget\",\"namespaced\":true},"
	"{\"name\":\"widgets\",\"singularName\":\"widget\",\"namespaced\":true,"
	"\"kind\":\"Widget\",\"verbs\":[\"list\",\"watch\"]},"
	"{\"name\":\"gadgets\",\"namespaced\":false,\"kind\":\"Gadget\"},"
	"{\"name\":\"broken\",\"namespaced\":true,\"kind\":7},"
	"{\"name\":\"reviews\",\"namespaced\":false,\"kind\":\"Review\","
	"\"verbs\":[\"create\"]},"
	"{\"name\":\"feeds\",\"namespaced\":true,\"kind\":\"Feed\","
	"\"verbs\":[\"get\",\"list\"]}]}";

static void test_from_list(void)
{
	struct json_doc d = JSON_DOC_INIT;
	struct cache_kind_spec ks;
	struct cache_kind *k = NULL;
	CHECK(parse(&d, list_doc) == 0);

	CHECK(cache_kind_spec_parse("widgets.v1.example.com", &ks) == 0);
	CHECK(cache_discover_from_list(&d, &ks, &k) == 0);
	CHECK(k && !strcmp(k->kind, "Widget") &&
	      !strcmp(k->list_kind, "WidgetList"));
	CHECK(k && k->namespaced && !strcmp(k->group, "example.com") &&
	      !strcmp(k->version, "v1") && !strcmp(k->resource, "widgets"));
	CHECK(k && k->fields[0] == NULL); /* name and namespace only */
	cache_discover_free(k);

	CHECK(cache_kind_spec_parse("gadgets.v1.example.com", &ks) == 0);
	CHECK(cache_discover_from_list(&d, &ks, &k) == 0);
	CHECK(k && !k->namespaced && !strcmp(k->kind, "Gadget"));
	cache_discover_free(k);

	CHECK(cache_kind_spec_parse("gizmos.v1.example.com", &ks) == 0);
	CHECK(cache_discover_from_list(&d, &ks, &k) == -ENOENT && k == NULL);
	/* a kind that is not a string is no kind */
	CHECK(cache_kind_spec_parse("broken.v1.example.com", &ks) == 0);
	CHECK(cache_discover_from_list(&d, &ks, &k) == -ENOENT && k == NULL);
	/* verbs without list or watch: a kind, but one no reflector can
	 * cache (a review is only created; a list without watch goes stale) */
	CHECK(cache_kind_spec_parse("reviews.v1.example.com", &ks) == 0);
	CHECK(cache_discover_from_list(&d, &ks, &k) == -EOPNOTSUPP);
	CHECK(k && !strcmp(k->kind, "Review"));
	cache_discover_free(k);
	CHECK(cache_kind_spec_parse("feeds.v1.example.com", &ks) == 0);
	CHECK(cache_discover_from_list(&d, &ks, &k) == -EOPNOTSUPP);
	cache_discover_free(k);
	/* a subresource is not matched by its parent's name alone */
	CHECK(cache_kind_spec_parse("widgets/status.v1.example.com", &ks) == 0);
	CHECK(cache_discover_from_list(&d, &ks, &k) == 0);
	cache_discover_free(k);
	json_doc_free(&d);

	/* no resources array at all */
	d = (struct json_doc)JSON_DOC_INIT;
	CHECK(parse(&d, "{\"kind\":\"Status\",\"code\":404}") == 0);
	CHECK(cache_kind_spec_parse("widgets.v1.example.com", &ks) == 0);
	CHECK(cache_discover_from_list(&d, &ks, &k) == -ENOENT && k == NULL);
	json_doc_free(&d);
	cache_discover_free(NULL);
}

/* Every allocation of building a kind fails in turn: -ENOMEM, no leak. */
static void test_alloc_failure(void)
{
	struct json_doc d = JSON_DOC_INIT;
	struct cache_kind_spec ks;
	struct cache_kind *k = NULL;
	int rc = -ENOMEM, n;
	CHECK(parse(&d, list_doc) == 0);
	CHECK(cache_kind_spec_parse("widgets.v1.example.com", &ks) == 0);
	for (n = 1; n < 100; n++) {
		alloc_fail_after(n);
		rc = cache_discover_from_list(&d, &ks, &k);
		long failed = alloc_failures();
		alloc_fail_after(0);
		if (!failed)
			break;
		CHECK(rc == -ENOMEM && k == NULL);
	}
	CHECK(rc == 0 && k != NULL && n > 5);
	cache_discover_free(k);
	json_doc_free(&d);
}

/* /api and /apis as aggregated discovery (apidiscovery.k8s.io v2) shows
 * them: the core group has no name; each group lists its preferred
 * version first. */
static const char *core_doc =
	"{\"kind\":\"APIGroupDiscoveryList\",\"items\":[{\"metadata\":"
	"{\"creationTimestamp\":null},\"versions\":[{\"version\":\"v1\","
	"\"resources\":[{\"resource\":\"pods\",\"responseKind\":{\"group\":"
	"\"\",\"version\":\"v1\",\"kind\":\"Pod\"},\"scope\":\"Namespaced\","
	"\"singularResource\":\"pod\",\"shortNames\":[\"po\"],"
	"\"subresources\":[{\"subresource\":\"exec\"}]},"
	"{\"resource\":\"events\",\"responseKind\":{\"kind\":\"Event\"},"
	"\"scope\":\"Namespaced\",\"singularResource\":\"event\","
	"\"shortNames\":[\"ev\"]},"
	"{\"resource\":\"nodes\",\"responseKind\":{\"kind\":\"Node\"},"
	"\"scope\":\"Cluster\",\"singularResource\":\"node\","
	"\"shortNames\":[\"no\"]}]}]}]}";
static const char *groups_doc =
	"{\"kind\":\"APIGroupDiscoveryList\",\"items\":["
	"{\"metadata\":{\"name\":\"apps\"},\"versions\":[{\"version\":"
	"\"v1\",\"resources\":[{\"resource\":\"deployments\","
	"\"responseKind\":{\"kind\":\"Deployment\"},\"scope\":"
	"\"Namespaced\",\"singularResource\":\"deployment\",\"shortNames\":"
	"[\"deploy\"]}]}]},"
	"{\"metadata\":{\"name\":\"events.k8s.io\"},\"versions\":[{"
	"\"version\":\"v1\",\"resources\":[{\"resource\":\"events\","
	"\"responseKind\":{\"kind\":\"Event\"},\"scope\":\"Namespaced\","
	"\"singularResource\":\"event\",\"shortNames\":[\"ev\"]}]}]},"
	"{\"metadata\":{\"name\":\"example.com\"},\"versions\":["
	"{\"version\":\"v2\",\"resources\":[{\"resource\":\"widgets\","
	"\"responseKind\":{\"kind\":\"Widget\"},\"scope\":\"Cluster\","
	"\"singularResource\":\"widget\",\"shortNames\":[\"wd\"]}]},"
	"{\"version\":\"v1\",\"resources\":[{\"resource\":\"widgets\","
	"\"responseKind\":{\"kind\":\"Widget\"},\"scope\":\"Namespaced\","
	"\"singularResource\":\"widget\"}]}]}]}";

/* What the resolver does with two documents: short names first, core
 * before the groups; the result's group/version/resource/Kind/scope as
 * "group/version/resource Kind N|C", or "" when nothing matched. */
static const char *match(const char *spec, char *out, size_t n)
{
	struct json_doc docs[2] = { JSON_DOC_INIT, JSON_DOC_INIT };
	struct cache_kind_spec ks;
	struct cache_kind *k = NULL;
	int rc = -ENOENT;
	CHECK(parse(&docs[0], core_doc) == 0);
	CHECK(parse(&docs[1], groups_doc) == 0);
	CHECK(cache_kind_spec_parse(spec, &ks) == 0);
	for (int pass = 0; pass < 2 && rc == -ENOENT; pass++)
		for (int i = 0; i < 2 && rc == -ENOENT; i++)
			rc = cache_discover_match(&docs[i], &ks, pass == 0, &k);
	out[0] = '\0';
	if (!rc)
		snprintf(out, n, "%s/%s/%s %s %s", k->group, k->version,
			 k->resource, k->kind, k->namespaced ? "N" : "C");
	CHECK(rc == 0 || (rc == -ENOENT && !k));
	cache_discover_free(k);
	json_doc_free(&docs[0]);
	json_doc_free(&docs[1]);
	return out;
}

static void test_names(void)
{
	char b[256];
	/* the resolver lower-cases what it is given first */
	CHECK_STR(match("po", b, sizeof(b)), "/v1/pods Pod N");
	CHECK_STR(match("pod", b, sizeof(b)), "/v1/pods Pod N");
	CHECK_STR(match("pods", b, sizeof(b)), "/v1/pods Pod N");
	CHECK_STR(match("pods.v1", b, sizeof(b)), "/v1/pods Pod N");
	CHECK_STR(match("no", b, sizeof(b)), "/v1/nodes Node C");
	CHECK_STR(match("deploy", b, sizeof(b)),
		  "apps/v1/deployments Deployment N");
	CHECK_STR(match("deployment.apps", b, sizeof(b)),
		  "apps/v1/deployments Deployment N");
	CHECK_STR(match("deploy.v1.apps", b, sizeof(b)),
		  "apps/v1/deployments Deployment N");
	/* the core group before events.k8s.io, as kubectl */
	CHECK_STR(match("ev", b, sizeof(b)), "/v1/events Event N");
	CHECK_STR(match("events", b, sizeof(b)), "/v1/events Event N");
	CHECK_STR(match("events.events.k8s.io", b, sizeof(b)),
		  "events.k8s.io/v1/events Event N");
	CHECK_STR(match("ev.events.k8s.io", b, sizeof(b)),
		  "events.k8s.io/v1/events Event N");
	/* the preferred (first) version, or the one asked for */
	CHECK_STR(match("widgets.example.com", b, sizeof(b)),
		  "example.com/v2/widgets Widget C");
	CHECK_STR(match("widget.v1.example.com", b, sizeof(b)),
		  "example.com/v1/widgets Widget N");
	CHECK_STR(match("wd", b, sizeof(b)), "example.com/v2/widgets Widget C");
	/* a Kind as kubectl takes it: lower-cased, it is the singular */
	CHECK_STR(match("widget.example.com", b, sizeof(b)),
		  "example.com/v2/widgets Widget C");
	/* misses: a subresource, a group that lists it not, a version
	 * alone (the core group), a short name in the wrong group */
	CHECK_STR(match("exec", b, sizeof(b)), "");
	CHECK_STR(match("pods.apps", b, sizeof(b)), "");
	CHECK_STR(match("deployments.v1", b, sizeof(b)), "");
	CHECK_STR(match("deploy.example.com", b, sizeof(b)), "");
	CHECK_STR(match("widgets.v3.example.com", b, sizeof(b)), "");
	CHECK_STR(match("gizmos", b, sizeof(b)), "");
}

/* Aggregated discovery names a resource that can only be created, as
 * the real apiserver lists tokenreviews: matched, and refused. */
static void test_unlistable(void)
{
	static const char *doc =
		"{\"kind\":\"APIGroupDiscoveryList\",\"items\":[{\"metadata\":"
		"{\"name\":\"authentication.k8s.io\"},\"versions\":[{"
		"\"version\":\"v1\",\"resources\":[{\"resource\":"
		"\"tokenreviews\",\"responseKind\":{\"kind\":\"TokenReview\"},"
		"\"scope\":\"Cluster\",\"singularResource\":\"tokenreview\","
		"\"verbs\":[\"create\"]},{\"resource\":\"others\","
		"\"responseKind\":{\"kind\":\"Other\"},\"scope\":\"Cluster\","
		"\"singularResource\":\"other\",\"verbs\":[\"list\","
		"\"watch\"]}]}]}]}";
	struct json_doc d = JSON_DOC_INIT;
	struct cache_kind_spec ks;
	struct cache_kind *k = NULL;
	CHECK(parse(&d, doc) == 0);
	CHECK(cache_kind_spec_parse("tokenreviews", &ks) == 0);
	CHECK(cache_discover_match(&d, &ks, false, &k) == -EOPNOTSUPP);
	CHECK(k && !strcmp(k->group, "authentication.k8s.io") &&
	      !strcmp(k->resource, "tokenreviews"));
	cache_discover_free(k);
	k = NULL;
	CHECK(cache_kind_spec_parse("others", &ks) == 0);
	CHECK(cache_discover_match(&d, &ks, false, &k) == 0 && k);
	cache_discover_free(k);
	json_doc_free(&d);
}

int main(void)
{
	test_unlistable();
	test_preferred();
	test_from_list();
	test_alloc_failure();
	test_names();
	return check_done("discover");
}
