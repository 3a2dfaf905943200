/*
 * test_obj: object parsing, kind/apiVersion
 * normalisation, managedFields stripping and allocation failure.
 */
#include <errno.h>
#include <stdio.h>
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
/* Parse js as a pod; *why says why not when NULL. */
static struct cache_obj *parse_why(const char *js, int *why)
{
	struct json_doc d = JSON_DOC_INIT;
	char err[160];
	struct cache_obj *o = NULL;
	*why = -1;
	if (json_parse(&d, js, strlen(js), err, sizeof(err)) == 0)
		o = cache_obj_from_doc_why(cache_kind_lookup("pods"), &d, 0,
					   false, err, sizeof(err), why);
	json_doc_free(&d);
	return o;
}

/*
 * The members the cache reads must read as clients read them: Go's,
 * Python's and JavaScript's decoders take the last of duplicate names and
 * decode escapes in names. An object where a first-match, raw reader
 * would see another name, label or field than they do is refused and
 * counted; elsewhere duplicates and escapes are the object's own.
 */
static void test_keys_as_clients_read_them(void)
{
	static const char *const refused[] = {
		/* clients see "b" */
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\",\"name\":\"b\"}}",
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\",\"n\\u0061me\":\"b\"}}",
		/* the whole metadata twice */
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\"},\"metadata\":{\"name\":\"b\","
		"\"namespace\":\"ns\",\"resourceVersion\":\"3\"}}",
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\"},\"m\\u0065tadata\":{}}",
		/* a label clients see with another value */
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\",\"labels\":{\"app\":\"x\","
		"\"app\":\"y\"}}}",
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\",\"labels\":{\"app\":\"x\","
		"\"a\\u0070p\":\"y\"}}}",
		/* the labels object twice */
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\",\"labels\":{\"app\":\"x\"},"
		"\"labels\":{}}}",
		/* the rv and the namespace */
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\",\"resourceVersion\":\"4\"}}",
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\",\"n\\u0061mespace\":\"o\"}}",
		/* a selectable field, on the way and at its end */
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\"},\"spec\":{\"nodeName\":\"n1\","
		"\"nodeName\":\"n2\"}}",
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\"},\"spec\":{\"nodeName\":\"n1\"},"
		"\"sp\\u0065c\":{\"nodeName\":\"n2\"}}",
		/* the kind, written again in front */
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\"},\"kind\":\"Pod\","
		"\"k\\u0069nd\":\"Node\"}",
	};
	int why;
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		struct cache_obj *o = parse_why(refused[i], &why);
		if (o || why != CACHE_REJECT_KEYS)
			fprintf(stderr, "taken or not for keys: %s\n",
				refused[i]);
		CHECK(!o && why == CACHE_REJECT_KEYS);
		cache_obj_put(o);
	}
	CHECK_STR(cache_obj_reject_name(CACHE_REJECT_KEYS), "keys");

	/* escapes decoded where the cache reads, once: as clients read */
	struct cache_obj *o = parse_why(
		"{\"metadata\":{\"name\":\"a\\u0062\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\",\"labels\":{\"a\\u0070p\":\"w\\u0065b\"},"
		"\"annotations\":{\"x\\u003cy\":\"1\",\"x<y\":\"2\"}},"
		"\"spec\":{\"nodeName\":\"n1\",\"other\":1,\"other\":2},"
		"\"x\\u0026y\":1}",
		&why);
	CHECK(o != NULL);
	if (o) {
		CHECK_STR(o->name, "ab");
		CHECK_STR(cache_obj_label(o, "app"), "web");
		CHECK_STR(o->fields[cache_kind_field(cache_kind_lookup("pods"),
						     "spec.nodeName")],
			  "n1");
	}
	cache_obj_put(o);
}

/* An item of an indented page is kept compact; an item of a compact page
 * (a newline only after it) is kept as its bytes. */
static void test_items_compact(void)
{
	static const char pretty[] =
		"{\"items\": [\n  {\"metadata\": {\n    \"name\": \"a\",\n"
		"    \"namespace\": \"ns\",\n    \"resourceVersion\": \"7\"\n"
		"  },\n  \"spec\": {\"x\": [1,\n 2]}}\n]}\n";
	static const char compact[] =
		"{\"items\":[{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"7\"},\"spec\":{\"x\":[1,2]}}]}\n";
	const struct cache_kind *k = cache_kind_lookup("pods");
	const char *pages[] = { pretty, compact };
	for (int p = 0; p < 2; p++) {
		struct json_doc d = JSON_DOC_INIT;
		CHECK(json_parse(&d, pages[p], strlen(pages[p]), NULL, 0) == 0);
		CHECK(d.newline == (p == 0));
		int items = json_get(&d, 0, "items");
		struct cache_obj *o = cache_obj_from_doc(
			k, &d, json_first(&d, items), false, NULL, 0);
		CHECK(o != NULL);
		if (o)
			CHECK_STR(o->json + o->item_off,
				  "\"metadata\":{\"name\":\"a\",\"namespace\":"
				  "\"ns\",\"resourceVersion\":\"7\"},"
				  "\"spec\":{\"x\":[1,2]}}");
		cache_obj_put(o);
		json_doc_free(&d);
	}
}

int main(void)
{
	test_obj_parse();
	test_obj_alloc_failure();
	test_keys_as_clients_read_them();
	test_items_compact();
	return check_done("obj");
}
