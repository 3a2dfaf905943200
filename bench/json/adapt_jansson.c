/*
 * adapt_jansson: the jansson adapter of the JSON benchmark (see
 * bench_json.h).
 *
 * jansson builds a DOM and cannot say where in the input an object began,
 * so in the "+ser" row an item's bytes come from json_dumpb() into the
 * driver's buffer. Its allocator hook (json_set_alloc_funcs) lets the
 * driver count what a parse allocates.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "bench_json.h"

static struct strv ja_str(json_t *o, const char *k, size_t kn)
{
	json_t *v = json_object_getn(o, k, kn);

	if (!json_is_string(v))
		return (struct strv){ NULL, 0 };
	return (struct strv){ json_string_value(v), json_string_length(v) };
}

#define JA_STR(o, lit) ja_str((o), (lit), sizeof(lit) - 1)

static void ja_item(json_t *it, struct meta *m, struct sink *s)
{
	json_t *md = json_object_getn(it, "metadata", 8), *labels, *v;
	const char *k;
	size_t kn;

	m->name = JA_STR(md, "name");
	m->ns = JA_STR(md, "namespace");
	m->uid = JA_STR(md, "uid");
	m->rv = JA_STR(md, "resourceVersion");
	labels = json_object_getn(md, "labels", 6);
	json_object_keylen_foreach(labels, k, kn, v)
	{
		if (json_is_string(v))
			meta_label(m, k, kn, json_string_value(v),
				   json_string_length(v));
	}
	sink_meta(s, m);
	if (s->reser) {
		size_t len = json_dumpb(it, bench_rbuf, BENCH_RBUF_CAP,
					JSON_COMPACT);
		if (len <= BENCH_RBUF_CAP)
			sink_span(s, bench_rbuf, len);
	}
}

int ja_list(const char *p, size_t n, struct sink *s)
{
	json_error_t err;
	json_t *root = json_loadb(p, n, 0, &err), *items, *it;
	size_t i;

	if (!root)
		return -EINVAL;
	probe_after_parse();
	items = json_object_getn(root, "items", 5);
	json_array_foreach(items, i, it)
	{
		struct meta m = { 0 };
		ja_item(it, &m, s);
	}
	json_decref(root);
	return 0;
}

int ja_event(const char *p, size_t n, struct sink *s)
{
	json_error_t err;
	json_t *root = json_loadb(p, n, 0, &err);
	struct meta m = { 0 };

	if (!root)
		return -EINVAL;
	probe_after_parse();
	m.type = JA_STR(root, "type");
	ja_item(json_object_getn(root, "object", 6), &m, s);
	json_decref(root);
	return 0;
}

int ja_validate(const char *p, size_t n)
{
	json_error_t err;
	json_t *root = json_loadb(p, n, 0, &err);

	json_decref(root);
	return root ? 0 : -EINVAL;
}

void ja_count_alloc(bool on)
{
	if (on)
		json_set_alloc_funcs(count_malloc, count_free);
	else
		json_set_alloc_funcs(malloc, free);
}

int ja_reserialize(const char *p, size_t n, char *out, size_t cap, char *err,
		   size_t errlen)
{
	json_error_t jerr;
	json_t *j = json_loadb(p, n, 0, &jerr);
	size_t len = j ? json_dumpb(j, out, cap, JSON_COMPACT) : 0;
	int rc = 0;

	if (j && len < cap) {
		out[len] = '\0';
	} else {
		snprintf(err, errlen, "%s", jerr.text);
		rc = -EINVAL;
	}
	json_decref(j);
	return rc;
}

const char *ja_version(void)
{
	return JANSSON_VERSION;
}
