/*
 * test_shape: the per-kind shapes. A LIST page and watch events parsed
 * with the kind's shape give the cache exactly the objects a full parse
 * gives (bytes, key, labels, selectable fields, with and without
 * managedFields stripped), from far fewer tokens; selectable fields at
 * any depth and shared prefixes are found; ERROR events still read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/json.h"
#include "cache/obj.h"
#include "cache/shape.h"
#include "config/alloc.h"
#include "check.h"

/* A pod as the apiserver writes it, with what the cache skips. */
#define POD(name, node, phase)                                                \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"ns\","          \
	"\"uid\":\"u-" name "\",\"resourceVersion\":\"7\","                   \
	"\"creationTimestamp\":\"2026-01-01T00:00:00Z\","                     \
	"\"labels\":{\"app\":\"web\",\"a\\/b\":\"x\"},"                       \
	"\"annotations\":{\"note\":\"{\\\"k\\\":[1]}\"},"                     \
	"\"ownerReferences\":[{\"kind\":\"ReplicaSet\",\"name\":\"rs\"}],"    \
	"\"managedFields\":[{\"manager\":\"kubelet\",\"fieldsV1\":"           \
	"{\"f:status\":{\"f:phase\":{}}}}]},"                                 \
	"\"spec\":{\"containers\":[{\"name\":\"c\",\"ports\":[{\"p\":80}]}]," \
	"\"nodeName\":\"" node "\",\"hostNetwork\":false,"                    \
	"\"tolerations\":[{\"key\":\"k\"}]},"                                 \
	"\"status\":{\"phase\":\"" phase                                      \
	"\",\"conditions\":[{\"type\":\"R\"}],"                               \
	"\"podIP\":\"10.0.0.1\"}}"

static const char page[] =
	"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":"
	"{\"resourceVersion\":\"9\",\"continue\":\"tok\","
	"\"remainingItemCount\":3},\"items\":[" POD(
		"a", "n1", "Running") "," POD("b", "",
					      "Pending") "," POD("c", "n2",
								 "Failed") "]}";

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The objects of items in two docs are the same, field for field. */
static void same_objects(const struct cache_kind *k, const struct json_doc *a,
			 int ia, const struct json_doc *b, int ib)
{
	int n = 0;
	for (int x = json_first(a, ia), y = json_first(b, ib); x > 0 && y > 0;
	     x = json_next(a, ia, x), y = json_next(b, ib, y), n++)
		for (int strip = 0; strip < 2; strip++) {
			char e1[128], e2[128];
			struct cache_obj *o = cache_obj_from_doc(
				k, a, x, strip, e1, sizeof(e1));
			struct cache_obj *p = cache_obj_from_doc(
				k, b, y, strip, e2, sizeof(e2));
			CHECK(o && p);
			if (o && p) {
				CHECK(o->len == p->len &&
				      !memcmp(o->json, p->json, o->len));
				CHECK_STR(o->name, p->name);
				CHECK_STR(o->uid, p->uid);
				CHECK(o->rv == p->rv &&
				      o->created == p->created &&
				      o->nlabels == p->nlabels &&
				      o->nlabels == 2);
				for (uint32_t l = 0; l < o->nlabels; l++) {
					CHECK_STR(o->labels[l].key,
						  p->labels[l].key);
					CHECK_STR(o->labels[l].val,
						  p->labels[l].val);
				}
				for (int f = 0; k->fields[f]; f++)
					CHECK(same_str(o->fields[f],
						       p->fields[f]));
				CHECK(!strip ||
				      !strstr(o->json, "managedFields"));
			}
			if (o)
				cache_obj_put(o);
			if (p)
				cache_obj_put(p);
		}
	CHECK(n == 3);
}

static void test_list_page(void)
{
	const struct cache_kind *k = cache_kind_find("", "pods");
	struct cache_shape *s = cache_shape_new(k);
	CHECK(s != NULL);
	if (!s)
		return;
	struct json_doc full = JSON_DOC_INIT, d = JSON_DOC_INIT;
	char err[128];
	CHECK(json_parse(&full, page, strlen(page), err, sizeof(err)) == 0);
	CHECK(json_parse_shaped(&d, page, strlen(page), cache_shape_list(s),
				err, sizeof(err)) == 0);
	CHECK(d.ntok * 4 < full.ntok * 3);
	fprintf(stderr, "  a 3-pod page: %d tokens shaped, %d whole\n", d.ntok,
		full.ntok);
	/* the page's own metadata is whole */
	CHECK(json_str_eq(&d, json_path(&d, 0, "metadata.continue"), "tok"));
	CHECK(json_path(&d, 0, "metadata.remainingItemCount") > 0);
	int items = json_get(&d, 0, "items");
	CHECK(items > 0 && d.tok[items].size == 3);
	same_objects(k, &d, items, &full, json_get(&full, 0, "items"));
	/* what the cache does not read is skipped */
	int it = json_first(&d, items);
	CHECK(json_path(&d, it, "spec.containers") > 0 &&
	      json_first(&d, json_path(&d, it, "spec.containers")) < 0);
	CHECK(json_first(&d, json_path(&d, it, "metadata.managedFields")) < 0);
	CHECK(json_first(&d, json_path(&d, it, "status.conditions")) < 0);
	CHECK(json_str_eq(&d, json_path(&d, it, "metadata.annotations.note"),
			  "{\\\"k\\\":[1]}"));
	json_doc_free(&full);
	json_doc_free(&d);
	cache_shape_free(s);
}

static void test_events(void)
{
	const struct cache_kind *k = cache_kind_find("", "pods");
	struct cache_shape *s = cache_shape_new(k);
	if (!s)
		return;
	struct json_doc full = JSON_DOC_INIT, d = JSON_DOC_INIT;
	char err[128];
	static const char ev[] = "{\"type\":\"MODIFIED\",\"object\":" POD(
		"a", "n1", "Running") "}";
	CHECK(json_parse(&full, ev, strlen(ev), err, sizeof(err)) == 0);
	CHECK(json_parse_shaped(&d, ev, strlen(ev), cache_shape_event(s), err,
				sizeof(err)) == 0);
	CHECK(d.ntok * 4 < full.ntok * 3);
	CHECK(json_str_eq(&d, json_get(&d, 0, "type"), "MODIFIED"));
	char e1[128], e2[128];
	struct cache_obj *o = cache_obj_from_doc(
		k, &d, json_get(&d, 0, "object"), false, e1, sizeof(e1));
	struct cache_obj *p = cache_obj_from_doc(
		k, &full, json_get(&full, 0, "object"), false, e2, sizeof(e2));
	CHECK(o && p && o->len == p->len && !memcmp(o->json, p->json, o->len));
	if (o)
		cache_obj_put(o);
	if (p)
		cache_obj_put(p);
	/* an ERROR's Status: its code and message are scalars, kept */
	static const char er[] =
		"{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\","
		"\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old\","
		"\"reason\":\"Expired\",\"details\":{\"causes\":[]},\"code\":410}}";
	CHECK(json_parse_shaped(&d, er, strlen(er), cache_shape_event(s), err,
				sizeof(err)) == 0);
	int64_t code = 0;
	CHECK(json_i64(&d, json_path(&d, 0, "object.code"), &code) == 0 &&
	      code == 410);
	CHECK(json_str_eq(&d, json_path(&d, 0, "object.message"), "too old"));
	/* one object alone */
	static const char one[] = POD("z", "n9", "Running");
	CHECK(json_parse_shaped(&d, one, strlen(one), cache_shape_object(s),
				err, sizeof(err)) == 0);
	CHECK(json_str_eq(&d, json_path(&d, 0, "spec.nodeName"), "n9"));
	json_doc_free(&full);
	json_doc_free(&d);
	cache_shape_free(s);
}

/* Fields deep and shallow, sharing prefixes, and past the trie's depth. */
static void test_field_paths(void)
{
	struct cache_kind k = {
		.group = "example.com",
		.version = "v1",
		.resource = "widgets",
		.kind = "Widget",
		.namespaced = false,
		.fields = { "spec.a.b.c", "spec.a.d", "spec.e", "status",
			    "metadata.annotations",
			    "x.1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17.18",
			    NULL },
	};
	struct cache_shape *s = cache_shape_new(&k);
	CHECK(s != NULL);
	if (!s)
		return;
	static const char js[] =
		"{\"metadata\":{\"name\":\"w\",\"resourceVersion\":\"1\",\"annotations\":{\"n\":\"1\"}},"
		"\"spec\":{\"a\":{\"b\":{\"c\":\"deep\",\"no\":[1]},\"d\":[2],"
		"\"z\":{}},\"e\":{\"whole\":[3]},\"f\":[4]},"
		"\"status\":{\"kept\":[5]},"
		"\"x\":{\"1\":{\"2\":{\"3\":{\"4\":{\"5\":{\"6\":{\"7\":{\"8\":"
		"{\"9\":{\"10\":{\"11\":{\"12\":{\"13\":{\"14\":{\"15\":{\"16\":"
		"{\"17\":{\"18\":[6]}}}}}}}}}}}}}}}}}}}";
	struct json_doc d = JSON_DOC_INIT;
	char err[128];
	CHECK(json_parse_shaped(&d, js, strlen(js), cache_shape_object(s), err,
				sizeof(err)) == 0);
	CHECK(json_str_eq(&d, json_path(&d, 0, "spec.a.b.c"), "deep"));
	CHECK(json_first(&d, json_path(&d, 0, "spec.a.b.no")) < 0);
	CHECK(json_first(&d, json_path(&d, 0, "spec.a.d")) > 0);
	CHECK(json_first(&d, json_path(&d, 0, "spec.a.z")) < 0);
	CHECK(json_path(&d, 0, "spec.e.whole") > 0);
	CHECK(json_first(&d, json_path(&d, 0, "spec.f")) < 0);
	CHECK(json_path(&d, 0, "status.kept") > 0);
	CHECK(json_str_eq(&d, json_path(&d, 0, "metadata.annotations.n"), "1"));
	CHECK(json_path(&d, 0,
			"x.1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17.18") > 0);
	char e1[128];
	struct cache_obj *o =
		cache_obj_from_doc(&k, &d, 0, false, e1, sizeof(e1));
	if (!o)
		fprintf(stderr, "  %s\n", e1);
	CHECK(o && !strcmp(o->fields[0], "deep"));
	if (o)
		cache_obj_put(o);
	json_doc_free(&d);
	cache_shape_free(s);

	/* a kind without selectable fields, and out of memory */
	struct cache_kind bare = k;
	bare.fields[0] = NULL;
	s = cache_shape_new(&bare);
	CHECK(s && cache_shape_object(s)->nkeys == 1);
	cache_shape_free(s);
	alloc_fail_after(1);
	s = cache_shape_new(&k);
	alloc_fail_after(0);
	CHECK(s == NULL);
}

int main(void)
{
	test_list_page();
	test_events();
	test_field_paths();
	return check_done("shape");
}
