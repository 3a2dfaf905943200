/*
 * test_table: Table cells as kubectl's printers compute them (ages in
 * Go's HumanDuration, pod READY/STATUS/RESTARTS, configmap DATA), the
 * Table envelope, what includeObject puts in a row, and which form the
 * Accept header picks.
 */
#include <string.h>
#include <time.h>

#include "cache/kind.h"
#include "cache/obj.h"
#include "proxy/table/table.h"
#include "check.h"

static void test_human_age(void)
{
	static const struct {
		int64_t s;
		const char *want;
	} cases[] = {
		{ -5, "<invalid>" },
		{ -1, "0s" },
		{ 0, "0s" },
		{ 45, "45s" },
		{ 119, "119s" },
		{ 120, "2m" },
		{ 165, "2m45s" },
		{ 600, "10m" },
		{ 605, "10m" },
		{ 3 * 3600 - 1, "179m" },
		{ 3 * 3600, "3h" },
		{ 3 * 3600 + 60, "3h1m" },
		{ 8 * 3600 + 60, "8h" },
		{ 47 * 3600, "47h" },
		{ 48 * 3600, "2d" },
		{ 50 * 3600, "2d2h" },
		{ 8 * 86400, "8d" },
		{ 325 * 86400, "325d" },
		{ 730 * 86400, "2y" },
		{ 800 * 86400, "2y70d" },
		{ 9 * 365 * 86400, "9y" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char out[32];
		proxy_human_age(cases[i].s, out, sizeof(out));
		CHECK_STR(out, cases[i].want);
	}
}

static struct cache_obj *parse(const char *resource, const char *json)
{
	char err[128];
	const struct cache_kind *k = cache_kind_lookup(resource);
	return k ? cache_obj_parse(k, json, strlen(json), false, err,
				   sizeof(err)) :
		   NULL;
}

/* 2026-01-01T00:00:00Z */
#define CREATED 1767225600

static void test_pod_row(void)
{
	const struct cache_kind *k = cache_kind_lookup("pods");
	struct cache_obj *o = parse(
		"pods",
		"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web-1\","
		"\"namespace\":\"default\",\"uid\":\"u1\",\"resourceVersion\":\"7\","
		"\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
		"\"spec\":{\"nodeName\":\"node-1\",\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
		"\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.5\",\"containerStatuses\":["
		"{\"name\":\"a\",\"ready\":true,\"restartCount\":3,\"state\":{\"running\":{}}},"
		"{\"name\":\"b\",\"ready\":false,\"restartCount\":0,\"state\":{\"running\":{}}}]}}");
	CHECK(k && o);
	if (!k || !o)
		return;
	struct proxy_fmt f = { .form = PROXY_FORM_TABLE,
			       .version = "v1",
			       .include = PROXY_INCLUDE_NONE };
	struct buf b = BUF_INIT;
	CHECK(proxy_table_row(&b, k, o, &f, CREATED + 165) == 0);
	CHECK(buf_ok(&b));
	CHECK(strstr(b.p, "\"cells\":[\"web-1\",\"2/2\"") == NULL);
	CHECK(strstr(b.p,
		     "\"cells\":[\"web-1\",\"1/2\",\"Running\",\"3\",\"2m45s\"") !=
	      NULL);
	CHECK(strstr(b.p, "\"object\":null}") != NULL);
	buf_reset(&b);

	/* the envelope, one row, no column definitions after the first */
	char meta[64];
	proxy_table_obj_meta(o, meta, sizeof(meta));
	CHECK_STR(meta, "{\"resourceVersion\":\"7\"}");
	proxy_table_render(&b, k, &f, meta, &o, 1, false, CREATED + 165);
	CHECK(!strncmp(
		b.p,
		"{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\","
		"\"metadata\":{\"resourceVersion\":\"7\"},"
		"\"columnDefinitions\":null,\"rows\":[{\"cells\":[",
		strlen("{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\","
		       "\"metadata\":{\"resourceVersion\":\"7\"},"
		       "\"columnDefinitions\":null,\"rows\":[{\"cells\":[")));
	CHECK(b.len > 2 && !strcmp(b.p + b.len - 2, "]}"));
	buf_reset(&b);

	/* includeObject=Object: the object as cached */
	f.include = PROXY_INCLUDE_OBJECT;
	CHECK(proxy_table_row(&b, k, o, &f, CREATED) == 0);
	CHECK(strstr(b.p, "\"object\":{\"kind\":\"Pod\"") != NULL);
	buf_free(&b);
	cache_obj_put(o);
}

static void test_configmap_row(void)
{
	const struct cache_kind *k = cache_kind_lookup("configmaps");
	struct cache_obj *o = parse(
		"configmaps",
		"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"cm\","
		"\"namespace\":\"default\",\"uid\":\"u2\",\"resourceVersion\":\"9\","
		"\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
		"\"data\":{\"a\":\"1\",\"b\":\"2\"},\"binaryData\":{\"c\":\"AA==\"}}");
	CHECK(k && o);
	if (!k || !o)
		return;
	struct proxy_fmt f = { .form = PROXY_FORM_TABLE,
			       .version = "v1",
			       .include = PROXY_INCLUDE_NONE };
	struct buf b = BUF_INIT;
	CHECK(proxy_table_row(&b, k, o, &f, CREATED + 3 * 86400) == 0);
	CHECK(strstr(b.p, "\"cells\":[\"cm\",3,\"3d\"]") != NULL);
	buf_free(&b);
	cache_obj_put(o);
}

static void test_negotiate(void)
{
	struct proxy_fmt f;
	CHECK(proxy_fmt_parse(NULL, NULL, &f) == 0);
	CHECK(f.form == PROXY_FORM_JSON && f.include == PROXY_INCLUDE_METADATA);
	CHECK(proxy_fmt_parse("application/json", "Object", &f) == 0);
	CHECK(f.form == PROXY_FORM_JSON && f.include == PROXY_INCLUDE_OBJECT);
	/* kubectl get */
	CHECK(proxy_fmt_parse(
		      "application/json;as=Table;v=v1;g=meta.k8s.io,"
		      "application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
		      "application/json",
		      "None", &f) == 0);
	CHECK(f.form == PROXY_FORM_TABLE && f.include == PROXY_INCLUDE_NONE);
	CHECK_STR(f.version, "v1");
	CHECK(proxy_fmt_parse(
		      "application/json; as=Table; v=v1beta1; g=meta.k8s.io",
		      NULL, &f) == 0);
	CHECK(f.form == PROXY_FORM_TABLE);
	CHECK_STR(f.version, "v1beta1");
	/* a Table version we do not know: the next range decides */
	CHECK(proxy_fmt_parse("application/json;as=Table;v=v2;g=meta.k8s.io,"
			      "application/json",
			      NULL, &f) == 0);
	CHECK(f.form == PROXY_FORM_JSON);
	CHECK(proxy_fmt_parse("application/json;as=Table;v=v2;g=meta.k8s.io",
			      NULL, &f) == -1);
	CHECK(proxy_fmt_parse(
		      "application/json;as=PartialObjectMetadataList;v=v1;"
		      "g=meta.k8s.io",
		      NULL, &f) == 0);
	CHECK(f.form == PROXY_FORM_METADATA);
	CHECK_STR(f.version, "v1");
	CHECK(proxy_fmt_parse("*/*", NULL, &f) == 0);
	CHECK(f.form == PROXY_FORM_JSON);
	CHECK(proxy_fmt_parse("application/vnd.kubernetes.protobuf,*/*", NULL,
			      &f) == 0);
	/* nothing we can produce: a 406 */
	CHECK(proxy_fmt_parse("application/vnd.kubernetes.protobuf", NULL,
			      &f) == -1);
	CHECK(proxy_fmt_parse("text/html", NULL, &f) == -1);
	CHECK(proxy_fmt_parse("application/jsonx", NULL, &f) == -1);
	CHECK(proxy_fmt_parse("application/json;g=apidiscovery.k8s.io;v=v2;"
			      "as=APIGroupDiscoveryList",
			      NULL, &f) == -1);
}

int main(void)
{
	test_negotiate();
	test_human_age();
	test_pod_row();
	test_configmap_row();
	return check_done("table");
}
