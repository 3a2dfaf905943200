/*
 * test_table_cols_cell: the column table's shared machinery
 * (table_cols_int.h), called directly: the readers on absent tokens, null
 * and each JSON type; strings unescaped and written back as JSON; ages of
 * timestamps and "<unknown>"; joined lists and their placeholder; and
 * the common cells ("<none>" for an unset pointer, labels sorted, a
 * selector that selects by nothing, booleans, counts). test_table_cols
 * covers the kinds' columns built on them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/json.h"
#include "proxy/table/table_cols_int.h"
#include "check.h"

/* 2026-01-01T00:00:00Z */
#define NOW 1767225600

static struct json_doc doc = JSON_DOC_INIT;
static struct tc_row row = { &doc, NOW, NULL };

static void parse(const char *js)
{
	json_doc_free(&doc);
	doc = (struct json_doc)JSON_DOC_INIT;
	CHECK(json_parse(&doc, js, strlen(js), NULL, 0) == 0);
}

/* What cell(arg) writes for the parsed object (static). */
static const char *cell(tc_cell_fn fn, const char *arg)
{
	static char out[1024];
	struct buf b = BUF_INIT;
	fn(&b, &row, arg);
	buf_addc(&b, '\0');
	snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
	buf_free(&b);
	return out;
}

static void test_readers(void)
{
	parse("{\"s\":\"a\\\"b\",\"n\":-42,\"f\":1.5,\"t\":true,\"z\":null,"
	      "\"o\":{\"x\":1,\"y\":2},\"a\":[1,2,3],\"e\":[],"
	      "\"ts\":\"2025-12-31T23:00:00Z\",\"bad\":\"yesterday\"}");
	CHECK(tc_at(&row, NULL) == -1);
	CHECK(tc_at(&row, "missing") == -1);
	CHECK(tc_at(&row, "o.x") > 0);
	CHECK(tc_is_str(&doc, tc_at(&row, "s")));
	CHECK(!tc_is_str(&doc, tc_at(&row, "n")));
	CHECK(!tc_is_str(&doc, -1));
	CHECK(tc_is_null(&doc, -1));
	CHECK(tc_is_null(&doc, tc_at(&row, "z")));
	CHECK(!tc_is_null(&doc, tc_at(&row, "t")));
	CHECK(!tc_is_null(&doc, tc_at(&row, "e")));
	/* compared as raw text, escapes and all */
	CHECK(tc_str_eq(&doc, tc_at(&row, "s"), "a\\\"b"));
	CHECK(!tc_str_eq(&doc, tc_at(&row, "s"), "a\"b"));
	CHECK(!tc_str_eq(&doc, tc_at(&row, "n"), "-42"));
	CHECK(!tc_str_eq(&doc, -1, ""));
	CHECK(tc_int_of(&doc, tc_at(&row, "n"), 7) == -42);
	CHECK(tc_int_of(&doc, tc_at(&row, "s"), 7) == 7);
	CHECK(tc_int_of(&doc, tc_at(&row, "f"), 7) == 7);
	CHECK(tc_int_of(&doc, -1, 7) == 7);
	CHECK(tc_members(&doc, tc_at(&row, "o")) == 2);
	CHECK(tc_members(&doc, tc_at(&row, "a")) == 3);
	CHECK(tc_members(&doc, tc_at(&row, "e")) == 0);
	CHECK(tc_members(&doc, tc_at(&row, "s")) == 0);
	CHECK(tc_members(&doc, -1) == 0);
	int64_t t = 0;
	CHECK(tc_time_of(&doc, tc_at(&row, "ts"), &t) && t == NOW - 3600);
	CHECK(!tc_time_of(&doc, tc_at(&row, "bad"), &t));
	CHECK(!tc_time_of(&doc, tc_at(&row, "n"), &t));
	CHECK(!tc_time_of(&doc, -1, &t));
	char *s = tc_dup_str(&doc, tc_at(&row, "s"));
	CHECK_STR(s, "a\"b");
	free(s);
	s = tc_dup_str(&doc, tc_at(&row, "n"));
	CHECK_STR(s, "");
	free(s);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void test_sort(void)
{
	int v[] = { 3, 1, 2 };
	char *w[] = { "b", "a", "c" };
	tc_sort_n(NULL, 0, sizeof(int), cmp_int); /* no base, no items */
	tc_sort_n(v, 1, sizeof(int), cmp_int);
	CHECK(v[0] == 3);
	tc_sort_n(v, 3, sizeof(int), cmp_int);
	CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3);
	tc_sort_n(w, 3, sizeof(*w), tc_cmp_str);
	CHECK_STR(w[0], "a");
	CHECK_STR(w[2], "c");
}

static void test_writers(void)
{
	struct buf b = BUF_INIT;
	tc_put_str(&b, NULL);
	buf_addc(&b, ',');
	tc_put_str(&b, "<x>\"");
	buf_addc(&b, ',');
	tc_put_int(&b, -9000000000LL);
	buf_addc(&b, ',');
	parse("{\"ts\":\"2025-12-31T22:30:00Z\",\"bad\":\"x\"}");
	tc_put_since(&b, &row, tc_at(&row, "ts"));
	buf_addc(&b, ',');
	tc_put_since(&b, &row, tc_at(&row, "bad"));
	buf_addc(&b, ',');
	tc_put_since(&b, &row, -1);
	buf_addc(&b, '\0');
	CHECK_STR(b.p, "\"\",\"\\u003cx\\u003e\\\"\",-9000000000,\"90m\","
		       "\"\\u003cunknown\\u003e\",\"\\u003cunknown\\u003e\"");
	buf_free(&b);
}

static void test_joined(void)
{
	struct tc_sbuf s = { BUF_INIT, 0 };
	struct buf b = BUF_INIT;
	parse("{\"a\":[\"x\",\"y\"],\"n\":5}");
	tc_sb_put(&b, &s, "<none>"); /* nothing added: the placeholder */
	buf_addc(&b, ' ');
	tc_sb_item(&s, ", ", "one", 3);
	tc_sb_item(&s, ", ", "twoXX", 3);
	tc_sb_token(&s, ", ", &doc, json_first(&doc, tc_at(&row, "a")));
	tc_sb_token(&s, ", ", &doc, tc_at(&row, "n")); /* not a string */
	tc_sb_put(&b, &s, "<none>");
	CHECK(s.n == 0); /* reset for reuse */
	buf_addc(&b, ' ');
	tc_sb_item(&s, ",", "", 0); /* items that are all empty */
	tc_sb_put(&b, &s, "<empty>");
	buf_addc(&b, '\0');
	CHECK_STR(b.p, "\"\\u003cnone\\u003e\" \"one, two, x, \" "
		       "\"\\u003cempty\\u003e\"");
	buf_free(&b);
}

static void test_cells(void)
{
	parse("{\"metadata\":{\"name\":\"n1\",\"creationTimestamp\":"
	      "\"2025-12-30T00:00:00Z\",\"labels\":{\"b\":\"2\",\"a\":\"1\","
	      "\"c\":\"\"}},\"spec\":{\"s\":\"v\",\"z\":null,\"i\":12,"
	      "\"on\":true,\"off\":false,\"l\":[1,2],"
	      "\"t\":\"2025-12-31T23:59:00Z\","
	      "\"sel\":{\"matchLabels\":{\"k\":\"v\"}},\"empty\":{}}}");
	CHECK_STR(cell(tc_cell_name, NULL), "\"n1\"");
	CHECK_STR(cell(tc_cell_age, NULL), "\"2d\"");
	CHECK_STR(cell(tc_cell_age, "spec.t"), "\"60s\"");
	CHECK_STR(cell(tc_cell_str, "spec.s"), "\"v\"");
	CHECK_STR(cell(tc_cell_str, "spec.none"), "\"\"");
	CHECK_STR(cell(tc_cell_str_or_none, "spec.s"), "\"v\"");
	CHECK_STR(cell(tc_cell_str_or_none, "spec.z"),
		  "\"\\u003cnone\\u003e\"");
	CHECK_STR(cell(tc_cell_str_or_none, "spec.none"),
		  "\"\\u003cnone\\u003e\"");
	CHECK_STR(cell(tc_cell_int, "spec.i"), "12");
	CHECK_STR(cell(tc_cell_int, "spec.none"), "0");
	CHECK_STR(cell(tc_cell_count, "spec.l"), "2");
	CHECK_STR(cell(tc_cell_count, "metadata.labels"), "3");
	CHECK_STR(cell(tc_cell_count, "spec.none"), "0");
	CHECK_STR(cell(tc_cell_bool, "spec.on"), "true");
	CHECK_STR(cell(tc_cell_bool, "spec.off"), "false");
	CHECK_STR(cell(tc_cell_bool, "spec.none"), "false");
	CHECK_STR(cell(tc_cell_labels, "metadata.labels"), "\"a=1,b=2,c=\"");
	CHECK_STR(cell(tc_cell_labels, "spec.l"), "\"\\u003cnone\\u003e\"");
	CHECK_STR(cell(tc_cell_labels, "spec.none"), "\"\\u003cnone\\u003e\"");
	CHECK_STR(cell(tc_cell_selector, "spec.sel"), "\"k=v\"");
	CHECK_STR(cell(tc_cell_selector, "spec.empty"),
		  "\"\\u003cnone\\u003e\"");
	CHECK_STR(cell(tc_cell_selector, "spec.none"),
		  "\"\\u003cnone\\u003e\"");
}

int main(void)
{
	test_readers();
	test_sort();
	test_writers();
	test_joined();
	test_cells();
	json_doc_free(&doc);
	return check_done("table_cols_cell");
}
