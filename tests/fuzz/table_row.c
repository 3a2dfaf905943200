/*
 * fuzz table_row: the Table printers of the built-in kinds (kubectl get's
 * columns), fed hostile objects: a row's cells through
 * proxy_table_cols_cells() straight from the parsed JSON, and, when the
 * cache would keep the object, a whole Table through proxy_table_render()
 * and its PartialObjectMetadata through proxy_table_metadata_render().
 *
 * The input: byte 0 picks the printer (one of the kinds below, or a kind
 * without one, which prints NAME and AGE) and the includeObject form;
 * the rest is the object's JSON.
 *
 * Invariants beyond "no crash" (and no leak, under ASan):
 *   - the cells, in brackets, are a JSON array with one value per column
 *     definition, each a string, a number or a boolean;
 *   - the cells from a parse with the printer's shape (what a row reads,
 *     its skips jumped over by json_parse_trusted()) are the same bytes;
 *   - a rendered Table is a JSON object with one row, and a
 *     PartialObjectMetadata a JSON object.
 */
#include <time.h>

#include "cache/json.h"
#include "cache/kind.h"
#include "cache/obj.h"
#include "config/buf.h"
#include "proxy/table/table.h"
#include "proxy/table/table_cols_int.h"
#include "tests/fuzz/fuzz.h"

#define NOW 1767225600 /* 2026-01-01T00:00:00Z */

/* Every kind with a printer of its own (table_cols.c's printers[]), and
 * one without (the last). */
static const char *const kinds[][2] = {
	{ "", "pods" },
	{ "", "configmaps" },
	{ "", "namespaces" },
	{ "apps", "deployments" },
	{ "apps", "replicasets" },
	{ "apps", "statefulsets" },
	{ "apps", "daemonsets" },
	{ "batch", "jobs" },
	{ "batch", "cronjobs" },
	{ "", "services" },
	{ "", "secrets" },
	{ "", "serviceaccounts" },
	{ "", "events" },
	{ "events.k8s.io", "events" },
	{ "coordination.k8s.io", "leases" },
	{ "", "endpoints" },
	{ "apiextensions.k8s.io", "customresourcedefinitions" },
	{ "rbac.authorization.k8s.io", "roles" },
	{ "rbac.authorization.k8s.io", "clusterroles" },
	{ "rbac.authorization.k8s.io", "rolebindings" },
	{ "rbac.authorization.k8s.io", "clusterrolebindings" },
	{ "scheduling.k8s.io", "priorityclasses" },
	{ "networking.k8s.io", "ingressclasses" },
	{ "networking.k8s.io", "ingresses" },
	{ "networking.k8s.io", "networkpolicies" },
	{ "storage.k8s.io", "storageclasses" },
	{ "", "replicationcontrollers" },
	{ "policy", "poddisruptionbudgets" },
	{ "discovery.k8s.io", "endpointslices" },
	{ "", "nodes" },
	{ "", "persistentvolumes" },
	{ "", "persistentvolumeclaims" },
	{ "autoscaling", "horizontalpodautoscalers" },
	{ "example.com", "widgets" },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* The number of values of the JSON array or object in b, -1 when b is
 * not one of them. Each array value must be a string or a primitive. */
static int count(const struct buf *b, bool cells)
{
	struct json_doc d = JSON_DOC_INIT;
	int n = -1;
	if (json_parse(&d, b->p, b->len, NULL, 0))
		goto out;
	n = 0;
	for (int k = json_first(&d, 0); k > 0; k = json_next(&d, 0, k)) {
		if (cells)
			FUZZ_CHECK(json_type(&d, k) == JSMN_STRING ||
				   json_type(&d, k) == JSMN_PRIMITIVE);
		n++;
	}
out:
	json_doc_free(&d);
	return n;
}

/* The cells of the printer p for the object in js, against its column
 * definitions. */
static void cells(const struct proxy_table_cols *p, const char *js, size_t n)
{
	struct json_doc d = JSON_DOC_INIT;
	if (json_parse(&d, js, n, NULL, 0) || json_type(&d, 0) != JSMN_OBJECT)
		goto out;
	struct buf b = BUF_INIT, defs = BUF_INIT;
	buf_addc(&b, '[');
	proxy_table_cols_cells(&b, p, &d, NOW, NULL);
	buf_addc(&b, ']');
	proxy_table_cols_definitions(&defs, p);
	FUZZ_CHECK(buf_ok(&b) && buf_ok(&defs));
	int nc = count(&b, true), nd = count(&defs, false);
	if (nc < 0)
		fprintf(stderr, "cells not JSON: %.*s\n", (int)b.len, b.p);
	FUZZ_CHECK(nc >= 0 && nc == nd);
	/* a row parses the accepted bytes with its printer's shape: the
	 * same cells */
	struct json_doc t = JSON_DOC_INIT;
	struct buf c = BUF_INIT;
	FUZZ_CHECK(json_parse_trusted(&t, d.js, d.len,
				      proxy_table_cols_shape(p)) == 0);
	buf_addc(&c, '[');
	proxy_table_cols_cells(&c, p, &t, NOW, NULL);
	buf_addc(&c, ']');
	FUZZ_CHECK(buf_ok(&c) && c.len == b.len && !memcmp(c.p, b.p, b.len));
	buf_free(&c);
	json_doc_free(&t);
	buf_free(&b);
	buf_free(&defs);
out:
	json_doc_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *group = kinds[data[0] % NKINDS][0];
	const char *res = kinds[data[0] % NKINDS][1];
	static const enum proxy_table_include incs[] = {
		PROXY_TABLE_INCLUDE_METADATA, PROXY_TABLE_INCLUDE_OBJECT,
		PROXY_TABLE_INCLUDE_NONE
	};
	const char *js = (const char *)data + 1;
	size_t n = size - 1;

	const struct proxy_table_cols *p = proxy_table_cols_find(group, res);
	if (p)
		cells(p, js, n);

	const struct cache_kind *k = cache_kind_find(group, res);
	struct cache_kind local = { group,	  "v1", res,	 "Widget",
				    "WidgetList", true, { NULL } };
	if (!k)
		k = &local;
	char err[256];
	struct cache_obj *o =
		cache_obj_parse(k, js, n, data[0] & 0x80, err, sizeof(err));
	if (!o)
		return 0;
	struct proxy_table_format f = { PROXY_TABLE_FORM_TABLE, "v1",
					incs[(data[0] >> 5) % 3], false };
	struct buf b = BUF_INIT;
	struct cache_obj *rows[] = { o };
	proxy_table_render(&b, k, &f, "{\"resourceVersion\":\"1\"}", rows, 1,
			   true, NOW);
	FUZZ_CHECK(buf_ok(&b));
	struct json_doc d = JSON_DOC_INIT;
	if (json_parse(&d, b.p, b.len, NULL, 0))
		fprintf(stderr, "Table not JSON: %.*s\n", (int)b.len, b.p);
	FUZZ_CHECK(json_parse(&d, b.p, b.len, NULL, 0) == 0 &&
		   json_type(&d, 0) == JSMN_OBJECT);
	int rows_t = json_get(&d, 0, "rows");
	FUZZ_CHECK(rows_t > 0 && json_type(&d, rows_t) == JSMN_ARRAY);
	int r1 = json_first(&d, rows_t);
	FUZZ_CHECK(r1 > 0 && json_next(&d, rows_t, r1) <= 0);
	b.len = 0;
	FUZZ_CHECK(proxy_table_metadata_render(&b, k, o, "v1") == 0);
	FUZZ_CHECK(json_parse(&d, b.p, b.len, NULL, 0) == 0 &&
		   json_type(&d, 0) == JSMN_OBJECT);
	json_doc_free(&d);
	buf_free(&b);
	cache_obj_put(o);
	return 0;
}
