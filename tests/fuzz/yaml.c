/*
 * fuzz yaml: the JSON-to-YAML writer of Accept: application/yaml answers.
 *
 * The input is one JSON document (anything: most inputs are refused).
 * One the writer takes is parsed back with libyaml's parser and compared
 * with the JSON, node by node; when it is an array of objects it is also
 * written as a LIST's items, a part at a time.
 *
 * Invariants beyond "no crash":
 *   - what json_parse() accepts, the writer writes (no failure but memory);
 *   - the YAML parses, as one document, back to the same tree: objects to
 *     mappings with the same keys (a duplicate key's last value), arrays
 *     to sequences, strings to scalars of the same text, true, false and
 *     null to those plain words, numbers to plain scalars of the same
 *     value;
 *   - a plain scalar from a string never reads as a bool, null or number;
 *   - keys come out in the writer's order with no repeats;
 *   - a LIST made a part at a time (part sizes the input picks) is the
 *     same bytes as the whole document written at once.
 */
#include <math.h>
#include <yaml.h>

#include "cache/json.h"
#include "cache/obj.h"
#include "config/buf.h"
#include "proxy/yaml.h"
#include "tests/fuzz/fuzz.h"

#define MAX_CMP_DEPTH 200 /* deeper nodes are not compared (stack) */

static const char *reserved[] = { "true", "false", "null", "~",	  "yes",
				  "no",	  "on",	   "off",  "y",	  "n",
				  "True", "False", "Null", "NULL" };

/* Whether a plain scalar would read back as a decimal number (one past
 * a double's range stays text to go-yaml: ParseFloat fails on it). */
static bool numeric(const char *s)
{
	char *end;
	if (!*s || strpbrk(s, "xXpPiInN"))
		return false;
	double v = strtod(s, &end);
	return *end == '\0' && isfinite(v);
}

static bool same_number(const char *json, size_t n, const char *y)
{
	char tmp[512];
	if (n >= sizeof(tmp))
		return true; /* long digit runs: not compared */
	memcpy(tmp, json, n);
	tmp[n] = '\0';
	double a = strtod(tmp, NULL), b = strtod(y, NULL);
	if (isinf(a))
		return !strcmp(tmp, y); /* go-yaml keeps the text */
	return a == b;
}

static bool cmp(const struct json_doc *d, int i, yaml_document_t *yd,
		yaml_node_t *node, int depth);

static bool cmp_key(const struct json_doc *d, int k, yaml_node_t *kn)
{
	if (!kn || kn->type != YAML_SCALAR_NODE)
		return false;
	size_t len = json_str_len(d, k);
	char *s = malloc(len + 1);
	if (!s)
		return true;
	int l = json_str(d, k, s, len + 1);
	bool ok = l >= 0 && (size_t)l == kn->data.scalar.length &&
		  !memcmp(s, kn->data.scalar.value, (size_t)l);
	free(s);
	return ok;
}

static bool cmp(const struct json_doc *d, int i, yaml_document_t *yd,
		yaml_node_t *node, int depth)
{
	if (!node)
		return false;
	if (depth > MAX_CMP_DEPTH)
		return true;
	int t = json_type(d, i);
	if (t == JSMN_OBJECT) {
		if (node->type != YAML_MAPPING_NODE)
			return false;
		/* every pair's key is a member whose last value it has */
		size_t pairs = 0;
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; p++, pairs++) {
			yaml_node_t *kn = yaml_document_get_node(yd, p->key);
			int last = -1;
			for (int k = json_first(d, i); k > 0;
			     k = json_next(d, i, k))
				if (cmp_key(d, k, kn))
					last = k;
			if (last < 0)
				return false;
			for (yaml_node_pair_t *q =
				     node->data.mapping.pairs.start;
			     q < p; q++) {
				yaml_node_t *qk =
					yaml_document_get_node(yd, q->key);
				if (qk->data.scalar.length ==
					    kn->data.scalar.length &&
				    !memcmp(qk->data.scalar.value,
					    kn->data.scalar.value,
					    kn->data.scalar.length))
					return false; /* a repeat */
			}
			if (!cmp(d, last + 1, yd,
				 yaml_document_get_node(yd, p->value),
				 depth + 1))
				return false;
		}
		/* and every member has a pair */
		for (int k = json_first(d, i); k > 0; k = json_next(d, i, k)) {
			bool found = false;
			for (yaml_node_pair_t *p =
				     node->data.mapping.pairs.start;
			     !found && p < node->data.mapping.pairs.top; p++)
				found = cmp_key(
					d, k,
					yaml_document_get_node(yd, p->key));
			if (!found)
				return false;
		}
		return pairs <= (size_t)d->tok[i].size;
	}
	if (t == JSMN_ARRAY) {
		if (node->type != YAML_SEQUENCE_NODE)
			return false;
		yaml_node_item_t *it = node->data.sequence.items.start;
		for (int k = json_first(d, i); k > 0;
		     k = json_next(d, i, k), it++) {
			if (it >= node->data.sequence.items.top)
				return false;
			if (!cmp(d, k, yd, yaml_document_get_node(yd, *it),
				 depth + 1))
				return false;
		}
		return it == node->data.sequence.items.top;
	}
	if (node->type != YAML_SCALAR_NODE)
		return false;
	const char *v = (const char *)node->data.scalar.value;
	size_t vn = node->data.scalar.length;
	bool plain = node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	if (t == JSMN_STRING) {
		size_t len = json_str_len(d, i);
		char *s = malloc(len + 1);
		if (!s)
			return true;
		int l = json_str(d, i, s, len + 1);
		bool ok = l >= 0 && (size_t)l == vn && !memcmp(s, v, vn);
		free(s);
		if (ok && plain) {
			for (size_t r = 0;
			     r < sizeof(reserved) / sizeof(reserved[0]); r++)
				ok = ok && strcmp(v, reserved[r]);
			ok = ok && !numeric(v) && vn > 0;
		}
		return ok;
	}
	size_t n;
	const char *raw = json_raw(d, i, &n);
	if (!plain)
		return false;
	if (raw[0] == 't' || raw[0] == 'f' || raw[0] == 'n')
		return vn == n && !memcmp(raw, v, n);
	return same_number(raw, n, v);
}

/* The YAML parses to one document equal to the JSON. */
static void check_tree(const struct json_doc *d, const struct buf *y)
{
	yaml_parser_t p;
	yaml_document_t yd;
	FUZZ_CHECK(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)y->p, y->len);
	int ok = yaml_parser_load(&p, &yd);
	if (!ok)
		fprintf(stderr, "libyaml: %s at %zu\n", p.problem,
			p.problem_mark.index);
	FUZZ_CHECK(ok);
	ok = cmp(d, 0, &yd, yaml_document_get_root_node(&yd), 0);
	if (!ok)
		fprintf(stderr, "YAML:\n%.*s\n", (int)y->len, y->p);
	FUZZ_CHECK(ok);
	yaml_document_delete(&yd);
	yaml_parser_delete(&p);
}

/* An array of objects as a LIST's items: parts equal the whole. */
static void check_list(const struct json_doc *d, uint32_t seed)
{
	if (json_type(d, 0) != JSMN_ARRAY)
		return;
	size_t n = 0;
	for (int k = json_first(d, 0); k > 0; k = json_next(d, 0, k))
		if (json_type(d, k) != JSMN_OBJECT)
			return;
		else
			n++;
	struct cache_obj *objs = calloc(n ? n : 1, sizeof(*objs));
	struct cache_obj **items = calloc(n ? n : 1, sizeof(*items));
	struct buf whole = BUF_INIT, json = BUF_INIT, parts = BUF_INIT;
	if (!objs || !items)
		goto out;
	buf_adds(&json, "{\"apiVersion\":\"v1\",\"items\":[");
	size_t i = 0;
	for (int k = json_first(d, 0); k > 0; k = json_next(d, 0, k), i++) {
		size_t s, e;
		json_span(d, k, &s, &e);
		objs[i].json = d->js + s;
		objs[i].len = e - s;
		objs[i].item_off = 1;
		items[i] = &objs[i];
		buf_adds(&json, i ? "," : "");
		buf_add(&json, d->js + s, e - s);
	}
	buf_adds(
		&json,
		"],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"1\"}}");
	if (!buf_ok(&json) || proxy_yaml_from_json(&whole, json.p, json.len))
		goto out;
	struct proxy_yaml_list *l = proxy_yaml_list_new(
		"v1", "List", "{\"resourceVersion\":\"1\"}", items, n);
	if (!l)
		goto out;
	size_t want = (seed % 200) + 1;
	while (proxy_yaml_list_next(l, &parts, want))
		;
	proxy_yaml_list_free(l);
	if (buf_ok(&parts) && buf_ok(&whole))
		FUZZ_CHECK(parts.len == whole.len &&
			   !memcmp(parts.p, whole.p, whole.len));
out:
	buf_free(&whole);
	buf_free(&json);
	buf_free(&parts);
	free(objs);
	free(items);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_doc d = JSON_DOC_INIT;
	if (json_parse(&d, (const char *)data, size, NULL, 0)) {
		json_doc_free(&d);
		return 0;
	}
	struct buf y = BUF_INIT;
	int r = proxy_yaml_from_json(&y, (const char *)data, size);
	FUZZ_CHECK(r == 0 || r == -ENOMEM);
	if (!r && buf_ok(&y))
		check_tree(&d, &y);
	buf_free(&y);
	check_list(&d, size ? data[0] : 0);
	json_doc_free(&d);
	return 0;
}
