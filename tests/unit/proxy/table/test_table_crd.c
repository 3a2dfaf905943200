/*
 * test_table_crd: custom resources' columns from their CRD: the columns
 * found in a store of CRDs (the CRD's version, a change of the CRD seen at
 * its new resourceVersion, the kept copies dropped), a Table's columns
 * while a store is attached and after it is detached, each column type's
 * cell, and allocation failure while parsing a CRD. test_table_jsonpath
 * covers the JSONPath subset and more cells; test_table which groups are
 * custom.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cache/json.h"
#include "cache/kind.h"
#include "cache/obj.h"
#include "cache/store.h"
#include "config/alloc.h"
#include "proxy/table/table.h"
#include "proxy/table/table_crd_int.h"
#include "check.h"

/* 2026-01-01T00:00:00Z */
#define NOW 1767225600

static const struct cache_kind widgets = {
	.group = "example.com",
	.version = "v1",
	.resource = "widgets",
	.kind = "Widget",
	.list_kind = "WidgetList",
	.namespaced = true,
};

/* A widgets CRD at rv whose v1 prints one column, named col. */
static const char *crd(unsigned rv, const char *col)
{
	static char js[1024];
	snprintf(js, sizeof(js),
		 "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":"
		 "\"CustomResourceDefinition\",\"metadata\":{\"name\":"
		 "\"widgets.example.com\",\"resourceVersion\":\"%u\"},"
		 "\"spec\":{\"group\":\"example.com\",\"versions\":["
		 "{\"name\":\"v1alpha1\"},"
		 "{\"name\":\"v1\",\"additionalPrinterColumns\":["
		 "{\"name\":\"%s\",\"type\":\"string\",\"priority\":1,"
		 "\"jsonPath\":\".spec.%s\"}]}]}}",
		 rv, col, col);
	return js;
}

static void store_put(struct cache_store *s, unsigned rv, const char *col)
{
	const char *js = crd(rv, col);
	struct cache_obj *o =
		cache_obj_parse(cache_kind_lookup("customresourcedefinitions"),
				js, strlen(js), false, NULL, 0);
	struct cache_txn t;
	CHECK(o != NULL);
	if (!o)
		return;
	cache_store_txn_begin(s, &t);
	CHECK(cache_store_txn_put(&t, o, NULL) == 0);
	CHECK(cache_store_txn_commit(&t, rv) == 0);
	cache_obj_put(o);
}

/* The columnDefinitions of c as a string (static). */
static const char *columns(const struct proxy_table_crd_cols *c)
{
	static char out[4096];
	struct buf b = BUF_INIT;
	proxy_table_crd_definitions(&b, c);
	buf_addc(&b, '\0');
	snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
	buf_free(&b);
	return out;
}

/* The cells of obj under c (static). */
static const char *cells(const struct proxy_table_crd_cols *c, const char *obj)
{
	static char out[4096];
	struct json_doc d = JSON_DOC_INIT;
	struct buf b = BUF_INIT;
	out[0] = '\0';
	if (json_parse(&d, obj, strlen(obj), NULL, 0) == 0) {
		proxy_table_crd_cells(&b, c, &d, NOW);
		buf_addc(&b, '\0');
		snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
	}
	buf_free(&b);
	json_doc_free(&d);
	return out;
}

static void test_store(void)
{
	struct cache_store *s = cache_store_new();
	struct proxy_table_crd_cols *c;
	CHECK(s != NULL);
	if (!s)
		return;
	/* no store: the caller's NAME AGE */
	CHECK(proxy_table_crd_cols_get(NULL, &widgets) == NULL);
	CHECK(proxy_table_crd_cols_get(s, &widgets) ==
	      NULL); /* no such CRD yet */
	store_put(s, 5, "color");
	c = proxy_table_crd_cols_get(s, &widgets);
	CHECK(c != NULL);
	if (c) {
		CHECK(strstr(columns(c), "{\"name\":\"color\",\"type\":"
					 "\"string\",\"format\":\"\","
					 "\"description\":\"Custom resource "
					 "definition column (in JSONPath "
					 "format): .spec.color\","
					 "\"priority\":1}]") != NULL);
		CHECK_STR(cells(c, "{\"metadata\":{\"name\":\"w\"},\"spec\":"
				   "{\"color\":\"red\"}}"),
			  "\"w\",\"red\"");
		proxy_table_crd_cols_free(c);
	}
	/* asked again: the same columns (from the parsed copy kept) */
	c = proxy_table_crd_cols_get(s, &widgets);
	CHECK(c && strstr(columns(c), "\"name\":\"color\""));
	proxy_table_crd_cols_free(c);
	/* the CRD changes: its new columns at its new resourceVersion */
	store_put(s, 6, "size");
	c = proxy_table_crd_cols_get(s, &widgets);
	CHECK(c && strstr(columns(c), "\"name\":\"size\"") &&
	      !strstr(columns(c), "\"name\":\"color\""));
	proxy_table_crd_cols_free(c);
	/* a version the CRD does not serve, a built-in group */
	struct cache_kind v2 = widgets, apps = widgets;
	v2.version = "v2";
	apps.group = "";
	CHECK(proxy_table_crd_cols_get(s, &v2) == NULL);
	CHECK(proxy_table_crd_cols_get(s, &apps) == NULL);
	/* a version without columns: NAME AGE */
	v2.version = "v1alpha1";
	c = proxy_table_crd_cols_get(s, &v2);
	CHECK(c && strstr(columns(c), "{\"name\":\"Age\",\"type\":\"date\""));
	proxy_table_crd_cols_free(c);
	/* the kept copies dropped: parsed again from the store */
	proxy_table_crd_cache_clear();
	c = proxy_table_crd_cols_get(s, &widgets);
	CHECK(c && strstr(columns(c), "\"name\":\"size\""));
	proxy_table_crd_cols_free(c);
	cache_store_free(s);
}

/* The columnDefinitions of a one-widget Table, rendered through the
 * wing's public header (static). */
static const char *table_columns(void)
{
	static char out[8192];
	static const char js[] =
		"{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
		"\"metadata\":{\"name\":\"w\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"3\"},\"spec\":{\"size\":\"big\"}}";
	struct proxy_table_format f = { .form = PROXY_TABLE_FORM_TABLE,
					.version = "v1",
					.include = PROXY_TABLE_INCLUDE_NONE };
	struct cache_obj *o =
		cache_obj_parse(&widgets, js, strlen(js), false, NULL, 0);
	struct buf b = BUF_INIT;
	snprintf(out, sizeof(out), "(no object)");
	if (!o)
		return out;
	proxy_table_render(&b, &widgets, &f, "{}", &o, 1, true, NOW);
	buf_addc(&b, '\0');
	snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
	buf_free(&b);
	cache_obj_put(o);
	return out;
}

/* Tables of a custom resource print its CRD's columns while the store is
 * attached, NAME and AGE before and after. */
static void test_attach(void)
{
	struct cache_store *s = cache_store_new();
	CHECK(s != NULL);
	if (!s)
		return;
	store_put(s, 6, "size");
	CHECK(strstr(table_columns(), "\"name\":\"Age\",\"type\":\"date\""));
	CHECK(!strstr(table_columns(), "\"name\":\"size\""));
	proxy_table_crd_attach(s);
	CHECK(strstr(table_columns(), "\"name\":\"size\""));
	CHECK(strstr(table_columns(), "\"cells\":[\"w\",\"big\"]"));
	CHECK(!strstr(table_columns(), "\"name\":\"Age\""));
	proxy_table_crd_attach(NULL);
	CHECK(!strstr(table_columns(), "\"name\":\"size\""));
	CHECK(strstr(table_columns(), "\"name\":\"Age\",\"type\":\"date\""));
	cache_store_free(s);
}

/* Each type's cell from values of each JSON type. */
static void test_types(void)
{
	static const char def[] =
		"{\"spec\":{\"versions\":[{\"name\":\"v1\","
		"\"additionalPrinterColumns\":["
		"{\"name\":\"I\",\"type\":\"integer\",\"jsonPath\":\".a\"},"
		"{\"name\":\"N\",\"type\":\"number\",\"jsonPath\":\".a\"},"
		"{\"name\":\"B\",\"type\":\"boolean\",\"jsonPath\":\".a\"},"
		"{\"name\":\"S\",\"type\":\"string\",\"jsonPath\":\".a\"},"
		"{\"name\":\"D\",\"type\":\"date\",\"jsonPath\":\".a\"},"
		"{\"name\":\"X\",\"type\":\"colour\",\"jsonPath\":\".a\"}"
		"]}]}}";
	struct proxy_table_crd_cols *c =
		proxy_table_crd_cols_parse(def, strlen(def), "v1");
	CHECK(c != NULL);
	if (!c)
		return;
	/* an integer column drops a number's fraction */
	CHECK_STR(cells(c, "{\"metadata\":{\"name\":\"w\"},\"a\":2.9}"),
		  "\"w\",2,2.9,null,\"2.9\",null,null");
	CHECK_STR(cells(c, "{\"metadata\":{\"name\":\"w\"},\"a\":-7}"),
		  "\"w\",-7,-7,null,\"-7\",null,null");
	CHECK_STR(cells(c, "{\"metadata\":{\"name\":\"w\"},\"a\":1e3}"),
		  "\"w\",1000,1e3,null,\"1e3\",null,null");
	/* past int64 (1e400 is inf to strtod) no integer stands for it */
	CHECK_STR(cells(c, "{\"metadata\":{\"name\":\"w\"},\"a\":5E8515}"),
		  "\"w\",null,5E8515,null,\"5E8515\",null,null");
	CHECK_STR(cells(c, "{\"metadata\":{\"name\":\"w\"},\"a\":-1e19}"),
		  "\"w\",null,-1e19,null,\"-1e19\",null,null");
	CHECK_STR(cells(c, "{\"metadata\":{\"name\":\"w\"},\"a\":false}"),
		  "\"w\",null,null,false,\"false\",null,null");
	CHECK_STR(cells(c, "{\"metadata\":{\"name\":\"w\"},\"a\":\"5\"}"),
		  "\"w\",null,null,null,\"5\",\"\\u003cinvalid\\u003e\",null");
	CHECK_STR(cells(c, "{\"metadata\":{\"name\":\"w\"},\"a\":"
			   "\"2025-12-31T23:00:00Z\"}"),
		  "\"w\",null,null,null,\"2025-12-31T23:00:00Z\",\"60m\",null");
	/* absent or null: null whatever the type; no name: "" */
	CHECK_STR(cells(c, "{\"a\":null}"),
		  "\"\",null,null,null,null,null,null");
	CHECK_STR(cells(c, "{}"), "\"\",null,null,null,null,null,null");
	proxy_table_crd_cols_free(c);
}

/* Every allocation of a parse fails in turn: NULL, never a crash or a
 * half-made column, until the parse succeeds whole. */
static void test_alloc_failure(void)
{
	static const char def[] =
		"{\"spec\":{\"versions\":[{\"name\":\"v1\","
		"\"additionalPrinterColumns\":["
		"{\"name\":\"A\",\"type\":\"string\",\"jsonPath\":\".a\"},"
		"{\"name\":\"B\",\"type\":\"integer\",\"jsonPath\":\".b\","
		"\"description\":\"bee\",\"priority\":1}]}]}}";
	struct proxy_table_crd_cols *c = NULL;
	int n, failed = 0;
	for (n = 1; n < 200 && !c; n++) {
		alloc_fail_after(n);
		c = proxy_table_crd_cols_parse(def, strlen(def), "v1");
		alloc_fail_after(0);
		failed += !c;
	}
	CHECK(failed > 0 && c != NULL);
	if (c) {
		CHECK(strstr(columns(c),
			     "(in JSONPath format): .a\",\"priority\":0},"
			     "{\"name\":\"B\",\"type\":\"integer\",\"format\":"
			     "\"\",\"description\":\"bee\",\"priority\":1}]") !=
		      NULL);
		proxy_table_crd_cols_free(c);
	}
	/* a version without columns gets AGE, made whole or not at all */
	static const char bare[] =
		"{\"spec\":{\"versions\":[{\"name\":\"v1\"}]}}";
	c = NULL;
	failed = 0;
	for (n = 1; n < 200 && !c; n++) {
		alloc_fail_after(n);
		c = proxy_table_crd_cols_parse(bare, strlen(bare), "v1");
		alloc_fail_after(0);
		failed += !c;
		if (c && !strstr(columns(c), "{\"name\":\"Age\",\"type\":"
					     "\"date\",\"format\":\"\"")) {
			CHECK(!"AGE column made with an allocation failed");
			break;
		}
	}
	CHECK(failed > 0 && c != NULL);
	proxy_table_crd_cols_free(c);
}

int main(void)
{
	test_store();
	test_attach();
	test_types();
	test_alloc_failure();
	return check_done("table_crd");
}
