/*
 * test_discover: reading discovery documents without a server: an
 * APIGroup's preferred version, a resource's kind and scope from an
 * APIResourceList, documents that lack them, and allocation failure.
 * The network half is covered end to end.
 */
#include <errno.h>
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
	"{\"name\":\"broken\",\"namespaced\":true,\"kind\":7}]}";

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

int main(void)
{
	test_preferred();
	test_from_list();
	test_alloc_failure();
	return check_done("discover");
}
