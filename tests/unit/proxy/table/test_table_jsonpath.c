/*
 * test_jsonpath: the printer-column JSONPath subset (dotted names,
 * escapes, [N] and negative indices, [*], .*, quoted names, filters with
 * == != < > and existence), paths outside the subset, and the cells a
 * CRD's columns give: each type's formatting, nulls, the default
 * description and the NAME/AGE default of a version without columns.
 */
#include <string.h>

#include "cache/json.h"
#include "proxy/table/table_jsonpath_int.h"
#include "proxy/table/table_crd_int.h"
#include "check.h"

static const char obj[] =
	"{\"metadata\":{\"name\":\"w\",\"labels\":{\"app.kubernetes.io/name\":\"x\",\"a\":\"b\"},"
	"\"creationTimestamp\":\"2025-12-31T00:00:00Z\"},"
	"\"spec\":{\"size\":3,\"ratio\":2.75,\"on\":true,\"items\":[{\"n\":\"i0\",\"v\":1},"
	"{\"n\":\"i1\",\"v\":2},{\"n\":\"i2\",\"v\":3}],\"nothing\":null,\"obj\":{\"k\":[1,\"a\"]}},"
	"\"status\":{\"conditions\":[{\"type\":\"Synced\",\"status\":\"True\"},"
	"{\"type\":\"Ready\",\"status\":\"False\",\"since\":\"2025-12-31T23:00:00Z\"}],"
	"\"when\":\"not a time\",\"zero\":\"\"}}";

/* The raw text of what path selects, or "(none)". */
static const char *sel(const char *path)
{
	static char out[256];
	struct json_doc d = JSON_DOC_INIT;
	size_t n;
	int t;
	snprintf(out, sizeof(out), "(bad json)");
	if (json_parse(&d, obj, strlen(obj), NULL, 0))
		return out;
	t = proxy_table_jsonpath_first(&d, 0, path);
	if (t < 0) {
		snprintf(out, sizeof(out), "(none)");
	} else {
		const char *s = json_raw(&d, t, &n);
		snprintf(out, sizeof(out), "%.*s", (int)n, s);
	}
	json_doc_free(&d);
	return out;
}

static void test_paths(void)
{
	CHECK_STR(sel(".spec.size"), "3");
	CHECK_STR(sel("{.spec.size}"), "3");
	CHECK_STR(sel(".metadata.labels.app\\.kubernetes\\.io/name"), "x");
	CHECK_STR(sel(".metadata.labels['app.kubernetes.io/name']"), "x");
	CHECK_STR(sel(".metadata.labels[\"a\"]"), "b");
	CHECK_STR(sel(".spec.items[1].n"), "i1");
	CHECK_STR(sel(".spec.items[-1].n"), "i2");
	CHECK_STR(sel(".spec.items[3].n"), "(none)");
	CHECK_STR(sel(".spec.items[*].n"), "i0");
	CHECK_STR(sel(".metadata.labels.*"), "x");
	CHECK_STR(sel(".status.conditions[?(@.type==\"Ready\")].status"),
		  "False");
	CHECK_STR(sel(".status.conditions[?(@.type=='Synced')].status"),
		  "True");
	CHECK_STR(sel(".status.conditions[?(@.type!=\"Synced\")].type"),
		  "Ready");
	CHECK_STR(sel(".spec.items[?(@.v > 1)].n"), "i1");
	CHECK_STR(sel(".spec.items[?(@.v<=1)].n"), "i0");
	CHECK_STR(sel(".spec.items[?(@.v == 3)].n"), "i2");
	CHECK_STR(sel(".status.conditions[?(@.since)].type"), "Ready");
	CHECK_STR(sel(".status.conditions[?(@.type==\"Gone\")].status"),
		  "(none)");
	CHECK_STR(sel(".spec.missing.deeper"), "(none)");
	CHECK_STR(sel(".spec.size.deeper"), "(none)");
	CHECK_STR(sel(".spec.nothing"), "null");
	/* outside the subset */
	CHECK(proxy_table_jsonpath_check(".spec.size") == 0);
	/* in braces as well, as it is evaluated (the fuzzer's {.}) */
	CHECK(proxy_table_jsonpath_check("{.spec.size}") == 0);
	CHECK(proxy_table_jsonpath_check("{.}") == 0);
	CHECK(proxy_table_jsonpath_check("{spec.size}") != 0);
	CHECK(proxy_table_jsonpath_check("spec.size") != 0);
	CHECK(proxy_table_jsonpath_check("..size") != 0);
	CHECK(proxy_table_jsonpath_check(".spec.items[x]") != 0);
	CHECK(proxy_table_jsonpath_check(".spec.items[?(@.v =~ 1)]") != 0);
	CHECK(proxy_table_jsonpath_check(".a[?(@.b==\"unterminated)]") != 0);
	CHECK_STR(sel("..size"), "(none)");
	CHECK_STR(sel(""), "(none)");
}

static const char crd[] =
	"{\"kind\":\"CustomResourceDefinition\",\"spec\":{\"versions\":["
	"{\"name\":\"v1beta1\"},"
	"{\"name\":\"v1\",\"additionalPrinterColumns\":["
	"{\"name\":\"Size\",\"type\":\"integer\",\"jsonPath\":\".spec.ratio\"},"
	"{\"name\":\"Ratio\",\"type\":\"number\",\"jsonPath\":\".spec.ratio\",\"priority\":1},"
	"{\"name\":\"On\",\"type\":\"boolean\",\"jsonPath\":\".spec.on\",\"description\":\"is it on\"},"
	"{\"name\":\"NotBool\",\"type\":\"boolean\",\"jsonPath\":\".spec.size\"},"
	"{\"name\":\"SizeText\",\"type\":\"string\",\"jsonPath\":\".spec.size\"},"
	"{\"name\":\"Obj\",\"type\":\"string\",\"jsonPath\":\".spec.obj\"},"
	"{\"name\":\"Since\",\"type\":\"date\",\"jsonPath\":\".status.conditions[1].since\"},"
	"{\"name\":\"Bad\",\"type\":\"date\",\"jsonPath\":\".status.when\"},"
	"{\"name\":\"Zero\",\"type\":\"date\",\"jsonPath\":\".status.zero\"},"
	"{\"name\":\"Missing\",\"type\":\"string\",\"jsonPath\":\".spec.none\"},"
	"{\"name\":\"Null\",\"type\":\"integer\",\"jsonPath\":\".spec.nothing\"}"
	"]}]}}";

/* 2026-01-01T00:00:00Z */
#define NOW 1767225600

static void test_crd_cells(void)
{
	struct json_doc d = JSON_DOC_INIT;
	struct buf b = BUF_INIT;
	struct proxy_table_crd_cols *c =
		proxy_table_crd_cols_parse(crd, strlen(crd), "v1");
	CHECK(c != NULL);
	CHECK(json_parse(&d, obj, strlen(obj), NULL, 0) == 0);
	if (!c)
		return;
	proxy_table_crd_cells(&b, c, &d, NOW);
	buf_addc(&b, '\0');
	CHECK_STR(
		b.p,
		"\"w\",2,2.75,true,null,\"3\","
		"\"{\\\"k\\\":[1,\\\"a\\\"]}\","
		"\"60m\",\"\\u003cinvalid\\u003e\",\"\\u003cunknown\\u003e\",null,null");
	buf_free(&b);
	proxy_table_crd_definitions(&b, c);
	buf_addc(&b, '\0');
	CHECK(b.p &&
	      strstr(b.p,
		     "{\"name\":\"Ratio\",\"type\":\"number\",\"format\":\"\","
		     "\"description\":\"Custom resource definition column (in "
		     "JSONPath format): .spec.ratio\",\"priority\":1}"));
	CHECK(b.p &&
	      strstr(b.p,
		     "\"name\":\"On\",\"type\":\"boolean\",\"format\":\"\","
		     "\"description\":\"is it on\",\"priority\":0}"));
	CHECK(b.p &&
	      !strncmp(
		      b.p,
		      "[{\"name\":\"Name\",\"type\":\"string\",\"format\":\"name\"",
		      40));
	buf_free(&b);
	proxy_table_crd_cols_free(c);

	/* a version without columns: AGE of the creation time */
	c = proxy_table_crd_cols_parse(crd, strlen(crd), "v1beta1");
	CHECK(c != NULL);
	if (c) {
		proxy_table_crd_cells(&b, c, &d, NOW);
		buf_addc(&b, '\0');
		CHECK_STR(b.p, "\"w\",\"24h\"");
		buf_free(&b);
		proxy_table_crd_definitions(&b, c);
		buf_addc(&b, '\0');
		CHECK(b.p &&
		      strstr(b.p, "{\"name\":\"Age\",\"type\":\"date\""));
		buf_free(&b);
		proxy_table_crd_cols_free(c);
	}
	/* a version the CRD lacks, or no CRD at all: the caller's default */
	CHECK(proxy_table_crd_cols_parse(crd, strlen(crd), "v2") == NULL);
	CHECK(proxy_table_crd_cols_parse("{}", 2, "v1") == NULL);
	CHECK(proxy_table_crd_cols_parse("not json", 8, "v1") == NULL);
	json_doc_free(&d);
}

int main(void)
{
	test_paths();
	test_crd_cells();
	return check_done("table_jsonpath");
}
