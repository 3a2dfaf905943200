/*
 * test_obj: object parsing, kind/apiVersion
 * normalisation, managedFields stripping and allocation failure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cache/json.h"
#include "cache/obj.h"
#include "config/alloc.h"
#include "check.h"

static const char pod[] =
	"{\n  \"metadata\": {\"name\":\"p1\",\"namespace\":\"ns\",\"uid\":\"u-1\","
	"\"resourceVersion\":\"42\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\","
	"\"labels\":{\"z\":\"1\",\"app\":\"web\"},"
	"\"managedFields\":[{\"manager\":\"m\"}]},\"kind\":\"Pod\",\"apiVersion\":\"v1\","
	"\"spec\":{\"nodeName\":\"node-1\",\"hostNetwork\":true},"
	"\"status\":{\"phase\":\"Running\",\"msg\":\"a b\\n\"}}";

static void test_obj_parse(void)
{
	const struct cache_kind *k = cache_kind_lookup("pods");
	char err[128];
	struct cache_obj *o =
		cache_obj_parse(k, pod, strlen(pod), false, err, sizeof(err));
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK_STR(o->name, "p1");
	CHECK_STR(o->ns, "ns");
	CHECK_STR(o->uid, "u-1");
	CHECK(o->rv == 42);
	CHECK(o->created == 1767225600);
	CHECK(o->nlabels == 2);
	CHECK_STR(o->labels[0].key, "app");
	CHECK_STR(cache_obj_label(o, "z"), "1");
	CHECK(cache_obj_label(o, "nope") == NULL);
	CHECK_STR(o->fields[cache_kind_field(k, "spec.nodeName")], "node-1");
	CHECK_STR(o->fields[cache_kind_field(k, "status.phase")], "Running");
	CHECK_STR(o->fields[cache_kind_field(k, "spec.hostNetwork")], "true");
	CHECK(o->fields[cache_kind_field(k, "status.podIP")] == NULL);
	/* kind/apiVersion first, compact, same members otherwise */
	CHECK(!strncmp(
		o->json,
		"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":", 43));
	CHECK(strchr(o->json, '\n') == NULL);
	CHECK(strstr(o->json, "\"msg\":\"a b\\n\"") != NULL);
	CHECK(strstr(o->json, "managedFields") != NULL);
	CHECK(o->len == strlen(o->json));
	CHECK(o->json[o->item_off] == '"' &&
	      !strncmp(o->json + o->item_off, "\"metadata\"", 10));
	struct json_doc d = JSON_DOC_INIT;
	CHECK(json_parse(&d, o->json, o->len, err, sizeof(err)) == 0);
	json_doc_free(&d);
	cache_obj_put(o);

	o = cache_obj_parse(k, pod, strlen(pod), true, err, sizeof(err));
	CHECK(o && !strstr(o->json, "managedFields"));
	CHECK(o && json_parse(&d, o->json, o->len, err, sizeof(err)) == 0);
	json_doc_free(&d);
	cache_obj_put(o);

	static const char *const bad[] = {
		"[]",
		"{\"metadata\":{}}",
		"{\"metadata\":{\"name\":\"x\"}}",
		"{\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"1a\"}}",
		"{\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"1\",\"labels\":{\"a\":1}}}",
		"{\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"1\"",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err[0] = 0;
		CHECK(cache_obj_parse(k, bad[i], strlen(bad[i]), false, err,
				      sizeof(err)) == NULL);
		CHECK(err[0] != 0);
	}
	/* kind or apiVersion twice (four cuts with managedFields stripped)
	 * once wrote past the cut table: now a clear error either way */
	static const char *const twice[] = {
		"{\"kind\":\"Pod\",\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"kind\":\"Pod\","
		"\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"1\","
		"\"managedFields\":[]}}",
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"apiVersion\":\"v1\","
		"\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"1\"}}",
	};
	for (size_t i = 0; i < sizeof(twice) / sizeof(*twice); i++)
		for (int strip = 0; strip < 2; strip++) {
			err[0] = 0;
			CHECK(cache_obj_parse(k, twice[i], strlen(twice[i]),
					      strip, err, sizeof(err)) == NULL);
			CHECK(strstr(err, "more than one") != NULL);
		}
	/* kind and apiVersion as the last two members (in either order):
	 * both cuts once kept the comma before them, "...},}" (found by
	 * tests/fuzz/json_obj) */
	static const char *const last[] = {
		"{\"metadata\":{\"name\":\"x\",\"namespace\":\"n\",\"resourceVersion\":\"1\","
		"\"managedFields\":[]},\"data\":{},\"apiVersion\":\"v1\",\"kind\":\"Pod\"}",
		"{\"metadata\":{\"name\":\"x\",\"namespace\":\"n\",\"resourceVersion\":\"1\"},"
		"\"kind\":\"Pod\",\"apiVersion\":\"v1\"}",
		"{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"namespace\":\"n\","
		"\"resourceVersion\":\"1\"},\"kind\":\"Pod\"}",
	};
	static const char *const want[] = {
		"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"namespace\":\"n\","
		"\"resourceVersion\":\"1\"},\"data\":{}}",
		"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"namespace\":\"n\","
		"\"resourceVersion\":\"1\"}}",
		"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\",\"namespace\":\"n\","
		"\"resourceVersion\":\"1\"}}",
	};
	for (size_t i = 0; i < sizeof(last) / sizeof(*last); i++) {
		struct cache_obj *l = cache_obj_parse(
			k, last[i], strlen(last[i]), true, err, sizeof(err));
		CHECK(l != NULL);
		if (!l)
			continue;
		CHECK_STR(l->json, want[i]);
		CHECK(json_parse(&d, l->json, l->len, err, sizeof(err)) == 0);
		json_doc_free(&d);
		cache_obj_put(l);
	}
}

static void test_obj_alloc_failure(void)
{
	const struct cache_kind *k = cache_kind_lookup("pods");
	int failed = 0;
	for (long n = 1; n < 20; n++) {
		alloc_fail_after(n);
		struct cache_obj *o =
			cache_obj_parse(k, pod, strlen(pod), true, NULL, 0);
		alloc_fail_after(0);
		if (o) {
			cache_obj_put(o);
			break;
		}
		failed++;
	}
	CHECK(failed >= 2);
}

/* Go's json.Indent, byte for byte (fixtures 15-a and 06-b are this). */
int main(void)
{
	test_obj_parse();
	test_obj_alloc_failure();
	return check_done("obj");
}
