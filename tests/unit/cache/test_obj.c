/*
 * test_obj: object parsing, kind/apiVersion
 * normalisation, managedFields stripping and allocation failure.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/json.h"
#include "cache/obj.h"
#include "config/buf.h"
#include "config/alloc.h"
#include "config/read.h"
#include "names.h"
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
		/* beside other fields of the same object */
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\"},\"spec\":{\"nodeName\":\"n1\"},"
		"\"status\":{\"phase\":\"A\",\"podIP\":\"1\","
		"\"ph\\u0061se\":\"B\"}}",
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\"},\"spec\":{\"nodeName\":\"n1\","
		"\"hostNetwork\":true,\"restartPolicy\":\"Always\"},"
		"\"status\":{\"podIP\":\"1\",\"podIP\":\"2\"}}",
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

/* A kind's fields, read together: each as its own path would read it,
 * whether its object is there, is something else, or holds others. */
static void test_fields_together(void)
{
	const struct cache_kind *k = cache_kind_lookup("pods");
	int why;
	struct cache_obj *o = parse_why(
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\"},\"spec\":{\"nodeName\":\"n1\","
		"\"restartPolicy\":\"Always\",\"schedulerName\":\"s\","
		"\"serviceAccountName\":\"sa\",\"hostNetwork\":false},"
		"\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.1\"}}",
		&why);
	CHECK(o != NULL);
	if (o) {
		static const char *const want[][2] = {
			{ "spec.nodeName", "n1" },
			{ "spec.restartPolicy", "Always" },
			{ "spec.schedulerName", "s" },
			{ "spec.serviceAccountName", "sa" },
			{ "spec.hostNetwork", "false" },
			{ "status.phase", "Running" },
			{ "status.podIP", "10.0.0.1" },
		};
		for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
			CHECK_STR(o->fields[cache_kind_field(k, want[i][0])],
				  want[i][1]);
		CHECK(!o->fields[cache_kind_field(k,
						  "status.nominatedNodeName")]);
	}
	cache_obj_put(o);
	/* spec not an object: its fields are absent, status's still read */
	o = parse_why("{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		      "\"resourceVersion\":\"3\"},\"spec\":[1],"
		      "\"status\":{\"phase\":\"Pending\"}}",
		      &why);
	CHECK(o != NULL);
	if (o) {
		CHECK(!o->fields[cache_kind_field(k, "spec.nodeName")]);
		CHECK(!o->fields[cache_kind_field(k, "spec.hostNetwork")]);
		CHECK_STR(o->fields[cache_kind_field(k, "status.phase")],
			  "Pending");
	}
	cache_obj_put(o);
}

/* ---- the kept protobuf encoding ---- */

/* Append the fixture called name to b; 0 or -errno. */
static int slurp(const char *name, struct buf *b)
{
	char path[256], *p = NULL;
	size_t n;
	snprintf(path, sizeof(path), "tests/fixtures/protobuf/%s", name);
	int rc = config_read_file(path, 1 << 24, &p, &n, NULL);
	if (rc) {
		fprintf(stderr, "cannot read %s\n", path);
		return rc;
	}
	rc = buf_add(b, p, n);
	free(p);
	return rc;
}

/* The raw message of a whole body: the envelope's field 2. */
static const unsigned char *body_raw(const struct buf *b, size_t *n)
{
	const unsigned char *p = (const unsigned char *)b->p + 5;
	size_t tm = *p++; /* short TypeMeta: one length byte */
	p += tm + 1;
	size_t len = 0;
	for (int s = 0;; s += 7) {
		unsigned char c = *p++;
		len |= (size_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			break;
	}
	*n = len;
	return p;
}

static struct cache_obj *fixture_obj(const char *resource, const char *name,
				     struct buf *pb)
{
	struct buf js = BUF_INIT;
	char f[128];
	snprintf(f, sizeof(f), "%s.json", name);
	CHECK(!slurp(f, &js));
	snprintf(f, sizeof(f), "%s.pb", name);
	CHECK(!slurp(f, pb));
	struct cache_obj *o = cache_obj_parse(cache_kind_find("", resource),
					      js.p, js.len, false, NULL, 0);
	buf_free(&js);
	return o;
}

/* Encoded on the first ask, the same bytes after, kept until the
 * object is freed (LeakSanitizer reports an encoding that outlives its
 * object; AddressSanitizer one freed before). */
static void test_obj_pb_kept(void)
{
	struct buf want = BUF_INIT;
	struct cache_obj *o = fixture_obj("configmaps", "03-configmap", &want);
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK(o->pb == NULL); /* nobody asked: no memory */
	const unsigned char *raw = NULL, *raw2 = NULL;
	size_t n = 0, n2 = 0, wn;
	const unsigned char *w = body_raw(&want, &wn);
	CHECK(cache_obj_pb(o, &raw, &n, NULL, 0) == 0);
	CHECK(o->pb != NULL);
	CHECK(n == wn && raw && !memcmp(raw, w, n));
	struct cache_blob *kept = o->pb;
	/* asked again: no work, the same bytes, even when no memory is
	 * left to make them */
	alloc_fail_after(1);
	CHECK(cache_obj_pb(o, &raw2, &n2, NULL, 0) == 0);
	alloc_fail_after(0);
	CHECK(raw2 == raw && n2 == n && o->pb == kept);
	/* a second holder keeps it alive after the first lets go */
	cache_obj_get(o);
	cache_obj_put(o);
	CHECK(raw[0] == w[0] && raw[n - 1] == w[n - 1]);
	cache_obj_put(o);
	buf_free(&want);
}

/* A member the schema does not know: never encoded with it dropped;
 * the verdict is kept too. A kind without a schema: -ENOSYS. Out of
 * memory: nothing kept, the next ask tries again. */
static void test_obj_pb_refused(void)
{
	static const char cm[] =
		"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":"
		"{\"name\":\"c\",\"namespace\":\"ns\",\"resourceVersion\":\"5\"},"
		"\"data\":{\"a\":\"b\"},\"surprise\":true}";
	char err[160] = "";
	const unsigned char *raw;
	size_t n;
	struct cache_obj *o = cache_obj_parse(cache_kind_find("", "configmaps"),
					      cm, strlen(cm), false, NULL, 0);
	CHECK(o != NULL);
	if (o) {
		CHECK(cache_obj_pb(o, &raw, &n, err, sizeof(err)) == -ENOENT);
		CHECK(strstr(err, "surprise") != NULL);
		CHECK(o->pb != NULL && o->pb->err == -ENOENT);
		CHECK(cache_obj_pb(o, &raw, &n, NULL, 0) == -ENOENT);
		cache_obj_put(o);
	}
	static const struct cache_kind gadget = { .group = "example.com",
						  .version = "v1",
						  .resource = "gadgets",
						  .kind = "Gadget",
						  .list_kind = "GadgetList",
						  .namespaced = true };
	static const char g[] =
		"{\"kind\":\"Gadget\",\"apiVersion\":\"example.com/v1\","
		"\"metadata\":{\"name\":\"g\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"5\"}}";
	o = cache_obj_parse(&gadget, g, strlen(g), false, NULL, 0);
	CHECK(o != NULL);
	if (o) {
		CHECK(cache_obj_pb(o, &raw, &n, NULL, 0) == -ENOSYS);
		cache_obj_put(o);
	}
	struct buf want = BUF_INIT;
	o = fixture_obj("configmaps", "03-configmap", &want);
	if (o) {
		alloc_fail_after(1);
		CHECK(cache_obj_pb(o, &raw, &n, NULL, 0) == -ENOMEM);
		alloc_fail_after(0);
		CHECK(o->pb == NULL);
		CHECK(cache_obj_pb(o, &raw, &n, NULL, 0) == 0);
		cache_obj_put(o);
	}
	buf_free(&want);
}

struct race {
	struct cache_obj *o;
	const unsigned char *raw;
};

static void *race_one(void *arg)
{
	struct race *r = arg;
	size_t n;
	if (cache_obj_pb(r->o, &r->raw, &n, NULL, 0))
		r->raw = NULL;
	return NULL;
}

/* First encoders racing: one encoding is kept, every racer gets it, the
 * losers' copies are freed (LeakSanitizer). */
static void test_obj_pb_race(void)
{
	for (int round = 0; round < 20; round++) {
		struct buf want = BUF_INIT;
		struct cache_obj *o =
			fixture_obj("configmaps", "03-configmap", &want);
		if (!o)
			return;
		pthread_t t[4];
		struct race r[4];
		for (int i = 0; i < 4; i++) {
			r[i].o = o;
			pthread_create(&t[i], NULL, race_one, &r[i]);
		}
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		for (int i = 0; i < 4; i++)
			CHECK(r[i].raw && r[i].raw == o->pb->p);
		cache_obj_put(o);
		buf_free(&want);
	}
	/* the publish itself: the first stays, a later one is freed */
	struct cache_blob *slot = NULL;
	struct cache_blob *a = malloc(sizeof(*a) + 1),
			  *b = malloc(sizeof(*b) + 1);
	CHECK(cache_blob_publish(&slot, a) == a && slot == a);
	CHECK(cache_blob_publish(&slot, b) == a && slot == a);
	CHECK(cache_blob_publish(&slot, NULL) == NULL);
	free(slot);
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

/*
 * The kept text starts with the kind and apiVersion the apiserver writes:
 * the core group's "v1" alone, a group's "G/V", and a group as long as a
 * DNS name may be (253 bytes), whole (it once went through fixed
 * buffers of 128 and 256 bytes).
 */
static void test_prefix(void)
{
	static const char js[] =
		"{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\"},\"spec\":{}}";
	char group[254], want[400];
	names_group(group);
	struct cache_kind longg = { .group = group,
				    .version = "v1alpha1",
				    .resource = "widgets",
				    .kind = "Widget",
				    .list_kind = "WidgetList",
				    .namespaced = true };
	const struct {
		const struct cache_kind *k;
		const char *apiv;
	} cases[] = {
		{ cache_kind_lookup("configmaps"), "v1" },
		{ cache_kind_lookup("deployments.apps"), "apps/v1" },
		{ &longg, NULL },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		const struct cache_kind *k = cases[c].k;
		CHECK(k != NULL);
		if (!k)
			continue;
		if (cases[c].apiv)
			snprintf(want, sizeof(want),
				 "{\"kind\":\"%s\",\"apiVersion\":\"%s\",",
				 k->kind, cases[c].apiv);
		else
			snprintf(
				want, sizeof(want),
				"{\"kind\":\"Widget\",\"apiVersion\":\"%s/v1alpha1\",",
				group);
		struct cache_obj *o =
			cache_obj_parse(k, js, strlen(js), false, NULL, 0);
		CHECK(o != NULL);
		if (!o)
			continue;
		size_t n = strlen(want);
		CHECK(o->item_off == n && o->len > n &&
		      !memcmp(o->json, want, n));
		CHECK_STR(o->json + o->item_off,
			  "\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
			  "\"resourceVersion\":\"3\"},\"spec\":{}}");
		cache_obj_put(o);
	}
}

int main(void)
{
	test_prefix();
	test_obj_pb_kept();
	test_obj_pb_refused();
	test_obj_pb_race();
	test_obj_parse();
	test_obj_alloc_failure();
	test_keys_as_clients_read_them();
	test_fields_together();
	test_items_compact();
	return check_done("obj");
}
