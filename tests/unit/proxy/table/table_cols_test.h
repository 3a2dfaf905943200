/*
 * table_cols_test: what the tests of the column table's area files
 * share: one row's cells through the public printer, and the checks every
 * column array must pass.
 */
#ifndef TESTS_TABLE_COLS_TEST_H
#define TESTS_TABLE_COLS_TEST_H

#include <stdio.h>
#include <string.h>

#include "cache/json.h"
#include "proxy/table/table_cols_int.h"
#include "check.h"

/* 2026-01-01T00:00:00Z */
#define NOW 1767225600
#define META                                                  \
	"\"metadata\":{\"name\":\"x\",\"creationTimestamp\":" \
	"\"2025-12-31T00:00:00Z\"}"

/* The cells of obj printed as group/res, into a static string. */
static const char *cells(const char *group, const char *res, const char *obj)
{
	static char out[4096];
	struct json_doc d = JSON_DOC_INIT;
	struct buf b = BUF_INIT;
	const struct proxy_table_cols *p = proxy_table_cols_find(group, res);
	if (!p || json_parse(&d, obj, strlen(obj), NULL, 0)) {
		json_doc_free(&d);
		return "(no printer or bad json)";
	}
	proxy_table_cols_cells(&b, p, &d, NOW, NULL);
	buf_addc(&b, '\0');
	snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
	buf_free(&b);
	json_doc_free(&d);
	return out;
}

static int count_of(const char *text, const char *s)
{
	int n = 0;
	for (const char *at = text; (at = strstr(at, s)); at++)
		n++;
	return n;
}

/*
 * cols, the array printers[] names for group/res: one NAME column (first,
 * but last and wide only for events), every column a known type with a
 * description (but a runtime class's HANDLER, as the apiserver's), a priority of 0 or 1 and a cell function, and as many
 * columnDefinitions as the array has columns.
 */
static void check_cols(const struct tc_col *cols, const char *group,
		       const char *res)
{
	static const char *const types[] = { "string", "integer", "number",
					     "boolean", "date" };
	const struct proxy_table_cols *p = proxy_table_cols_find(group, res);
	int n = 0, bad = 0, names = 0;
	CHECK(p != NULL);
	for (const struct tc_col *c = cols; c->name; c++, n++) {
		bool known = false;
		names += !strcmp(c->name, "Name") && !strcmp(c->format, "name");
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			known |= !strcmp(c->type, types[i]);
		/* the apiserver's RuntimeClass HANDLER has an empty one */
		bool no_desc =
			!c->desc || (!c->desc[0] && strcmp(c->name, "Handler"));
		if (!known || !c->format || no_desc ||
		    (c->priority != 0 && c->priority != 1) || !c->cell) {
			fprintf(stderr, "%s/%s: column %s\n", group, res,
				c->name);
			bad++;
		}
	}
	CHECK(bad == 0);
	CHECK(names == 1);
	if (!p)
		return;
	struct buf b = BUF_INIT;
	proxy_table_cols_definitions(&b, p);
	buf_addc(&b, '\0');
	CHECK(b.p && count_of(b.p, "\"priority\":") == n);
	buf_free(&b);
}

#endif
