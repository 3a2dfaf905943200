/*
 * test_kind: kubectl's "res[.version][.group]" spelling split once for
 * every caller, lookups in the built-in table, field indexes and
 * apiVersion strings.
 */
#include <errno.h>
#include <string.h>

#include "cache/kind.h"
#include "check.h"

static void test_spec_parse(void)
{
	struct cache_kind_spec ks;
	CHECK(cache_kind_spec_parse("pods", &ks) == 0);
	CHECK_STR(ks.resource, "pods");
	CHECK_STR(ks.version, "");
	CHECK_STR(ks.group, "");
	CHECK(cache_kind_spec_parse("pods.v1", &ks) == 0);
	CHECK_STR(ks.resource, "pods");
	CHECK_STR(ks.version, "v1");
	CHECK_STR(ks.group, "");
	CHECK(cache_kind_spec_parse("deployments.apps", &ks) == 0);
	CHECK_STR(ks.version, "");
	CHECK_STR(ks.group, "apps");
	CHECK(cache_kind_spec_parse("widgets.v2beta1.example.com", &ks) == 0);
	CHECK_STR(ks.resource, "widgets");
	CHECK_STR(ks.version, "v2beta1");
	CHECK_STR(ks.group, "example.com");
	/* not a version: v0, a bare "v", a digit first; all group then */
	CHECK(cache_kind_spec_parse("x.v0.example.com", &ks) == 0);
	CHECK_STR(ks.version, "");
	CHECK_STR(ks.group, "v0.example.com");
	CHECK(cache_kind_spec_parse("x.v.io", &ks) == 0);
	CHECK_STR(ks.group, "v.io");
	CHECK(cache_kind_spec_parse("x.1v.io", &ks) == 0);
	CHECK_STR(ks.group, "1v.io");
	/* a trailing dot leaves an empty group */
	CHECK(cache_kind_spec_parse("pods.", &ks) == 0);
	CHECK_STR(ks.resource, "pods");
	CHECK_STR(ks.group, "");

	/* malformed */
	CHECK(cache_kind_spec_parse("", &ks) == -EINVAL);
	CHECK(cache_kind_spec_parse(".apps", &ks) == -EINVAL);
	char big[400];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(cache_kind_spec_parse(big, &ks) == -EINVAL); /* resource */
	big[5] = '.';
	CHECK(cache_kind_spec_parse(big, &ks) == -EINVAL); /* group */
	memcpy(big + 6, "v1", 2);
	big[100] = '.';
	CHECK(cache_kind_spec_parse(big, &ks) == -EINVAL); /* version */
	/* exactly at the limits fits */
	memset(big, 'r', 127);
	big[127] = '\0';
	CHECK(cache_kind_spec_parse(big, &ks) == 0 &&
	      strlen(ks.resource) == 127);
	memset(big, 'r', 128);
	big[128] = '\0';
	CHECK(cache_kind_spec_parse(big, &ks) == -EINVAL);
}

static void test_lookup(void)
{
	const struct cache_kind *k = cache_kind_lookup("pods");
	CHECK(k && !strcmp(k->kind, "Pod") && k->namespaced);
	CHECK(cache_kind_lookup("pods.v1") == k);
	CHECK(cache_kind_lookup("pods.v2") == NULL); /* wrong version */
	k = cache_kind_lookup("deployments.apps");
	CHECK(k && !strcmp(k->group, "apps") &&
	      !strcmp(k->list_kind, "DeploymentList"));
	CHECK(cache_kind_lookup("deployments.v1.apps") == k);
	CHECK(cache_kind_lookup("deployments") == NULL); /* group needed */
	CHECK(cache_kind_lookup("nosuchthings") == NULL);
	CHECK(cache_kind_lookup("") == NULL);
	CHECK(cache_kind_lookup(".v1") == NULL);
	CHECK(cache_kind_find("apps", "deployments") == k);
	CHECK(cache_kind_find("", "deployments") == NULL);
	k = cache_kind_lookup("nodes");
	CHECK(k && !k->namespaced);
}

static void test_fields_and_api_version(void)
{
	const struct cache_kind *pods = cache_kind_lookup("pods");
	char out[64];
	CHECK(pods && cache_kind_field(pods, "spec.nodeName") >= 0);
	CHECK(pods && cache_kind_field(pods, "spec.noSuchField") == -1);
	cache_kind_api_version(pods, out, sizeof(out));
	CHECK_STR(out, "v1");
	cache_kind_api_version(cache_kind_lookup("deployments.apps"), out,
			       sizeof(out));
	CHECK_STR(out, "apps/v1");
	cache_kind_api_version(cache_kind_lookup("deployments.apps"), out, 4);
	CHECK_STR(out, "app"); /* truncated, still terminated */
}

/* Typed: the built-in kinds and the project's groups; a custom
 * resource's group is not. */
static void test_typed(void)
{
	CHECK(cache_kind_typed(cache_kind_find("", "pods")));
	CHECK(cache_kind_typed(cache_kind_find("apps", "deployments")));
	struct cache_kind k = { .group = "example.com",
				.version = "v1",
				.resource = "gadgets",
				.kind = "Gadget" };
	CHECK(!cache_kind_typed(&k));
	k.group = "snapshot.storage.k8s.io"; /* not cached here, still typed */
	CHECK(cache_kind_typed(&k));
	k.group = "k8s.io"; /* no ".k8s.io" suffix past a name */
	CHECK(!cache_kind_typed(&k));
	k.group = "batch";
	CHECK(cache_kind_typed(&k));
}

int main(void)
{
	test_spec_parse();
	test_lookup();
	test_fields_and_api_version();
	test_typed();
	return check_done("kind");
}
