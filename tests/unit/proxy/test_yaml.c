/*
 * test_yaml: JSON answers as the apiserver's YAML (go-yaml v2 through
 * sigs.k8s.io/yaml): key order, quoting, literal blocks, numbers, empty
 * containers, and a LIST made a part at a time giving the same bytes as
 * made whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/obj.h"
#include "proxy/yaml.h"
#include "check.h"

static void yaml_is(const char *json, const char *want)
{
	struct buf out = BUF_INIT;
	int r = proxy_yaml_from_json(&out, json, strlen(json));
	CHECK(r == 0);
	if (r == 0 && strcmp(out.p, want))
		fprintf(stderr, "for %s\n got:\n%s\nwant:\n%s\n", json, out.p,
			want);
	CHECK_STR(out.p ? out.p : "", want);
	buf_free(&out);
}

/* A Pod as kubectl -o yaml shows it: sorted keys, sequences under a key
 * not indented, timestamps and numeric strings quoted, {} and []. */
static void test_pod(void)
{
	yaml_is("{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{"
		"\"name\":\"web-0\",\"namespace\":\"default\","
		"\"uid\":\"e5fb7d89-36e8-44cd-b3ab-58591ca0cd03\","
		"\"resourceVersion\":\"14883\","
		"\"creationTimestamp\":\"2026-11-26T14:06:12Z\","
		"\"labels\":{\"tier\":\"backend\",\"app\":\"web\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1.27\","
		"\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}],"
		"\"resources\":{},\"args\":[]}],"
		"\"terminationGracePeriodSeconds\":30},"
		"\"status\":{\"phase\":\"Pending\",\"qosClass\":\"BestEffort\"}}",
		"apiVersion: v1\n"
		"kind: Pod\n"
		"metadata:\n"
		"  creationTimestamp: \"2026-11-26T14:06:12Z\"\n"
		"  labels:\n"
		"    app: web\n"
		"    tier: backend\n"
		"  name: web-0\n"
		"  namespace: default\n"
		"  resourceVersion: \"14883\"\n"
		"  uid: e5fb7d89-36e8-44cd-b3ab-58591ca0cd03\n"
		"spec:\n"
		"  containers:\n"
		"  - args: []\n"
		"    image: nginx:1.27\n"
		"    name: c\n"
		"    ports:\n"
		"    - containerPort: 80\n"
		"      protocol: TCP\n"
		"    resources: {}\n"
		"  terminationGracePeriodSeconds: 30\n"
		"status:\n"
		"  phase: Pending\n"
		"  qosClass: BestEffort\n");
}

/* A ConfigMap's multi-line data: literal blocks, chomping as the text
 * ends; a block kept open (+) makes go-yaml end the document with "...". */
static void test_configmap(void)
{
	yaml_is("{\"data\":{\"a.conf\":\"x = 1\\ny = 2\\n\","
		"\"b\":\"one\\ntwo\",\"c\":\"end\\n\\n\",\"empty\":\"\"}}",
		"data:\n"
		"  a.conf: |\n"
		"    x = 1\n"
		"    y = 2\n"
		"  b: |-\n"
		"    one\n"
		"    two\n"
		"  c: |+\n"
		"    end\n"
		"\n"
		"  empty: \"\"\n"
		"...\n"); /* go-yaml v2 ends a document after a keep (+) block */
}

static void test_status(void)
{
	yaml_is("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		"\"status\":\"Failure\",\"message\":\"pods \\\"x\\\" not found\","
		"\"reason\":\"NotFound\",\"details\":{\"name\":\"x\",\"kind\":"
		"\"pods\"},\"code\":404}",
		"apiVersion: v1\n"
		"code: 404\n"
		"details:\n"
		"  kind: pods\n"
		"  name: x\n"
		"kind: Status\n"
		"message: pods \"x\" not found\n"
		"metadata: {}\n"
		"reason: NotFound\n"
		"status: Failure\n");
}

/* Strings that would read back as something else, or that plain text
 * cannot carry. */
static void test_hostile_strings(void)
{
	yaml_is("{\"a\":\"true\",\"b\":\"null\",\"c\":\"123\",\"d\":\"1.5\","
		"\"e\":\"yes\",\"f\":\"~\",\"g\":\"0x1F\",\"h\":\"1_000\","
		"\"i\":\"1:20\",\"j\":\"2026-1-2\",\"k\":\"Off\",\"l\":\"1e3\","
		"\"m\":\".5\",\"n\":\"-\",\"o\":\"+1\",\"p\":\"08\"}",
		"a: \"true\"\n"
		"b: \"null\"\n"
		"c: \"123\"\n"
		"d: \"1.5\"\n"
		"e: \"yes\"\n"
		"f: \"~\"\n"
		"g: \"0x1F\"\n"
		"h: \"1_000\"\n"
		"i: \"1:20\"\n"
		"j: \"2026-1-2\"\n"
		"k: \"Off\"\n"
		"l: \"1e3\"\n"
		"m: \".5\"\n"
		"\"n\": '-'\n" /* n and y are YAML 1.1 bools to go-yaml v2 */
		"o: \"+1\"\n"
		"p: \"08\"\n");
	yaml_is("{\"a\":\"- x\",\"b\":\"k: v\",\"c\":\"#x\",\"d\":\"x #y\","
		"\"e\":\" lead\",\"f\":\"trail \",\"g\":\"tab\\there\","
		"\"h\":\"it's\",\"i\":\"@at\",\"j\":\"%p\",\"k\":\"*\","
		"\"l\":\"a,b\",\"m\":\"[x]\",\"n\":\"x: \",\"o\":\"TRUEe\","
		"\"p\":\"2026-13-01\",\"q\":\"1.2.3\",\"r\":\"v1.2\"}",
		"a: '- x'\n"
		"b: 'k: v'\n"
		"c: '#x'\n"
		"d: 'x #y'\n"
		"e: ' lead'\n"
		"f: 'trail '\n"
		"g: \"tab\\there\"\n"
		"h: it's\n"
		"i: '@at'\n"
		"j: '%p'\n"
		"k: '*'\n"
		"l: a,b\n"
		"m: '[x]'\n"
		"\"n\": 'x: '\n"
		"o: TRUEe\n"
		"p: 2026-13-01\n"
		"q: 1.2.3\n"
		"r: v1.2\n");
}

static void test_unicode(void)
{
	yaml_is("{\"a\":\"caf\\u00e9\",\"b\":\"\\ud83d\\ude00\",\"c\":\"\\u0000\","
		"\"d\":\"\\u00e9t\\u00e9 \\u2603\",\"e\":\"x\\u0085y\"}",
		"a: café\n"
		"b: \"\\U0001F600\"\n"
		"c: \"\\0\"\n"
		"d: été ☃\n"
		"e: \"x\\Ny\"\n");
}

static void test_numbers(void)
{
	yaml_is("[0,-0,1.0,1.5,-2.25,1e6,123456,1234567.0,0.0001,0.00001,"
		"1e400,12345678901234567890,99999999999999999999,"
		"-9223372036854775808,0.1,1E+2,true,false,null]",
		"- 0\n- 0\n- 1\n- 1.5\n- -2.25\n- 1e+06\n- 123456\n"
		"- 1.234567e+06\n- 0.0001\n- 1e-05\n- 1e400\n"
		"- 12345678901234567890\n- 1e+20\n- -9223372036854775808\n"
		"- 0.1\n- 100\n- true\n- false\n- null\n");
}

/* Empty containers nested, and keys in go-yaml's order: letters by code
 * point, digit runs by value, anything else before a digit run and a
 * letter after anything else. */
static void test_nesting_and_keys(void)
{
	yaml_is("{\"x\":[[],{},[{}],{\"y\":[]}],\"e\":{}}", "e: {}\n"
							    "x:\n"
							    "- []\n"
							    "- {}\n"
							    "- - {}\n"
							    "- \"y\": []\n");
	yaml_is("{\"b\":1,\"a10\":1,\"a9\":1,\"B\":1,\"_x\":1,\"a\":1,"
		"\"a01\":1,\"a1\":1,\"1\":1,\"\":1}",
		"\"\": 1\n"
		"_x: 1\n"
		"\"1\": 1\n"
		"B: 1\n"
		"a: 1\n"
		"a1: 1\n"
		"a01: 1\n"
		"a9: 1\n"
		"a10: 1\n"
		"b: 1\n");
	/* a duplicate keeps its last value, as go-yaml's map does */
	yaml_is("{\"a\":1,\"a\":2}", "a: 2\n");
}

static void test_refused(void)
{
	struct buf out = BUF_INIT;
	CHECK(proxy_yaml_from_json(&out, "{\"a\":", 5) == -EINVAL);
	CHECK(proxy_yaml_from_json(&out, "", 0) == -EINVAL);
	CHECK(out.len == 0);
	buf_free(&out);
}

/* Long plain text folds at 80 columns, as go-yaml v2 writes it. */
static void test_fold(void)
{
	yaml_is("{\"description\":\"APIVersion defines the versioned schema of "
		"this representation of an object. Servers should convert "
		"recognized schemas.\"}",
		"description: APIVersion defines the versioned schema of this "
		"representation of an\n"
		"  object. Servers should convert recognized schemas.\n");
}

static struct cache_obj *item(const char *json)
{
	struct cache_obj *o = calloc(1, sizeof(*o));
	o->json = json;
	o->len = strlen(json);
	o->item_off = 1; /* the LIST's items: all but the leading { */
	return o;
}

/* A LIST made a part at a time equals the YAML of the whole JSON LIST,
 * whatever the part size; no items gives items: []. */
static void test_list(void)
{
	const char *objs[] = {
		"{\"metadata\":{\"name\":\"a\"},\"data\":{\"k\":\"v\\nw\"}}",
		"{\"metadata\":{\"name\":\"b\"},\"data\":{}}",
		"{\"metadata\":{\"name\":\"c\",\"labels\":{\"x\":\"1\"}}}",
	};
	struct cache_obj *items[3];
	struct buf json = BUF_INIT;
	buf_adds(&json, "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\","
			"\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[");
	for (int i = 0; i < 3; i++) {
		items[i] = item(objs[i]);
		buf_adds(&json, i ? "," : "");
		buf_adds(&json, objs[i]);
	}
	buf_adds(&json, "]}");
	for (size_t n = 0; n <= 3; n++) {
		struct buf want = BUF_INIT, got = BUF_INIT;
		if (n == 3) {
			CHECK(proxy_yaml_from_json(&want, json.p, json.len) ==
			      0);
		} else {
			const char *empty =
				"{\"kind\":\"ConfigMapList\",\"apiVersion\":"
				"\"v1\",\"metadata\":{\"resourceVersion\":"
				"\"7\"},\"items\":[]}";
			CHECK(proxy_yaml_from_json(&want, empty,
						   strlen(empty)) == 0);
		}
		for (size_t part = 1; part < 200; part += 60) {
			struct proxy_yaml_list *l = proxy_yaml_list_new(
				"v1", "ConfigMapList",
				"{\"resourceVersion\":\"7\"}", items,
				n == 3 ? 3 : 0);
			CHECK(l != NULL);
			int parts = 0;
			buf_reset(&got);
			while (l && proxy_yaml_list_next(l, &got, part) &&
			       parts < 100)
				parts++;
			CHECK(parts >= 1);
			CHECK_STR(got.p ? got.p : "", want.p ? want.p : "-");
			proxy_yaml_list_free(l);
		}
		buf_free(&want);
		buf_free(&got);
		if (n == 0)
			n = 2; /* then the full list */
	}
	for (int i = 0; i < 3; i++)
		free(items[i]);
	buf_free(&json);
}

int main(void)
{
	test_pod();
	test_configmap();
	test_status();
	test_hostile_strings();
	test_unicode();
	test_numbers();
	test_nesting_and_keys();
	test_refused();
	test_fold();
	test_list();
	return check_done("yaml");
}
