/*
 * fuzz table_crd: a custom resource's Table columns, from the
 * additionalPrinterColumns of its CRD: the JSONPath subset
 * (proxy_table_jsonpath_check(), proxy_table_jsonpath_first()) with
 * fuzzed paths over fuzzed objects, and the cells of a CRD that prints
 * that path as each column type (proxy_table_crd_cols_parse(),
 * proxy_table_crd_cells()).
 *
 * The input: the path, a newline, then the object's JSON. When the
 * object is itself a CRD (a hostile one), its own v1 columns are parsed
 * too and printed for itself.
 *
 * Invariants beyond "no crash" (and no leak, under ASan):
 *   - a path outside the subset finds nothing; a token found is one of
 *     the object's;
 *   - the CRD of the path's five columns parses, and its cells, in
 *     brackets, are a JSON array of NAME and those five, each a string, a
 *     number or a boolean; its columnDefinitions a JSON array of six;
 *   - a hostile CRD's cells and definitions are JSON arrays of the same
 *     length.
 */
#include <time.h>

#include "cache/json.h"
#include "config/buf.h"
#include "proxy/table/table_crd_int.h"
#include "proxy/table/table_jsonpath_int.h"
#include "tests/fuzz/fuzz.h"

#define NOW 1767225600 /* 2026-01-01T00:00:00Z */

static int count(const struct buf *b, bool cells)
{
	struct json_doc d = JSON_DOC_INIT;
	int n = -1;
	if (json_parse(&d, b->p, b->len, NULL, 0) ||
	    json_type(&d, 0) != JSMN_ARRAY)
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

/* The cells of c for the object in d and its definitions agree; returns
 * how many. */
static int print(const struct proxy_table_crd_cols *c, const struct json_doc *d)
{
	struct buf b = BUF_INIT, defs = BUF_INIT;
	buf_addc(&b, '[');
	proxy_table_crd_cells(&b, c, d, NOW);
	buf_addc(&b, ']');
	proxy_table_crd_definitions(&defs, c);
	FUZZ_CHECK(buf_ok(&b) && buf_ok(&defs));
	int nc = count(&b, true), nd = count(&defs, false);
	if (nc < 0)
		fprintf(stderr, "cells not JSON: %.*s\n", (int)b.len, b.p);
	FUZZ_CHECK(nc >= 1 && nc == nd);
	buf_free(&b);
	buf_free(&defs);
	return nc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	if (!nl)
		return 0;
	char *path = fuzz_cstr(data, (size_t)(nl - data));
	if (!path)
		return 0;
	const char *js = (const char *)nl + 1;
	size_t n = size - (size_t)(nl - data) - 1;
	struct json_doc d = JSON_DOC_INIT;
	struct buf crd = BUF_INIT;
	if (json_parse(&d, js, n, NULL, 0))
		goto out;

	int ok = proxy_table_jsonpath_check(path);
	FUZZ_CHECK(ok == 0 || ok == -EINVAL);
	int t = proxy_table_jsonpath_first(&d, 0, path);
	FUZZ_CHECK(t >= -1 && t < d.ntok);
	if (ok)
		FUZZ_CHECK(t == -1);

	/* a CRD printing the path as every column type */
	static const char *const types[] = { "string", "integer", "number",
					     "boolean", "date" };
	buf_adds(&crd, "{\"kind\":\"CustomResourceDefinition\",\"spec\":{"
		       "\"versions\":[{\"name\":\"v1\","
		       "\"additionalPrinterColumns\":[");
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		buf_printf(&crd, "%s{\"name\":\"C%zu\",\"type\":\"%s\",",
			   i ? "," : "", i, types[i]);
		buf_adds(&crd, "\"jsonPath\":");
		buf_add_json_str(&crd, path, strlen(path));
		buf_addc(&crd, '}');
	}
	buf_adds(&crd, "]}]}}");
	FUZZ_CHECK(buf_ok(&crd));
	struct proxy_table_crd_cols *c =
		proxy_table_crd_cols_parse(crd.p, crd.len, "v1");
	FUZZ_CHECK(c);
	FUZZ_CHECK(print(c, &d) == 6);
	proxy_table_crd_cols_free(c);

	/* the object as a CRD of its own */
	c = proxy_table_crd_cols_parse(js, n, "v1");
	if (c) {
		print(c, &d);
		proxy_table_crd_cols_free(c);
	}
out:
	buf_free(&crd);
	json_doc_free(&d);
	free(path);
	return 0;
}
