/*
 * adapt_cjson: the cJSON adapter of the JSON benchmark (see bench_json.h).
 *
 * cJSON builds a DOM and cannot say where in the input an object began,
 * so in the "+ser" row an item's bytes come from cJSON_PrintPreallocated()
 * into the driver's buffer. It stops after the first value, so anything
 * left over is treated as an error here, as the other parsers do. Its
 * allocator hook (cJSON_InitHooks) lets the driver count what a parse
 * allocates.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "bench_json.h"

static struct strv cj_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!cJSON_IsString(v))
		return (struct strv){ NULL, 0 };
	return (struct strv){ v->valuestring, strlen(v->valuestring) };
}

/* cJSON stops after the first value; anything left is an error here. */
static cJSON *cj_parse(const char *p, size_t n)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(p, n, &end, 0);

	if (root && end != p + n) {
		cJSON_Delete(root);
		root = NULL;
	}
	return root;
}

static void cj_item(const cJSON *it, struct meta *m, struct sink *s)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(it, "metadata");
	const cJSON *l;

	m->name = cj_str(md, "name");
	m->ns = cj_str(md, "namespace");
	m->uid = cj_str(md, "uid");
	m->rv = cj_str(md, "resourceVersion");
	cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(md, "labels"))
	{
		if (cJSON_IsString(l))
			meta_label(m, l->string, strlen(l->string),
				   l->valuestring, strlen(l->valuestring));
	}
	sink_meta(s, m);
	if (s->reser && cJSON_PrintPreallocated((cJSON *)it, bench_rbuf,
						(int)BENCH_RBUF_CAP, 0))
		sink_span(s, bench_rbuf, strlen(bench_rbuf));
}

int cj_list(const char *p, size_t n, struct sink *s)
{
	cJSON *root = cj_parse(p, n);
	const cJSON *it;

	if (!root)
		return -EINVAL;
	probe_after_parse();
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "items"))
	{
		struct meta m = { 0 };
		cj_item(it, &m, s);
	}
	cJSON_Delete(root);
	return 0;
}

int cj_event(const char *p, size_t n, struct sink *s)
{
	cJSON *root = cj_parse(p, n);
	struct meta m = { 0 };

	if (!root)
		return -EINVAL;
	probe_after_parse();
	m.type = cj_str(root, "type");
	cj_item(cJSON_GetObjectItemCaseSensitive(root, "object"), &m, s);
	cJSON_Delete(root);
	return 0;
}

int cj_validate(const char *p, size_t n)
{
	cJSON *root = cj_parse(p, n);

	cJSON_Delete(root);
	return root ? 0 : -EINVAL;
}

void cj_count_alloc(bool on)
{
	if (on) {
		cJSON_Hooks hk = { count_malloc, count_free };
		cJSON_InitHooks(&hk);
	} else {
		cJSON_InitHooks(NULL);
	}
}

int cj_reserialize(const char *p, size_t n, char *out, size_t cap)
{
	cJSON *c = cj_parse(p, n);
	char *cs = c ? cJSON_PrintUnformatted(c) : NULL;
	int rc = cs ? 0 : -EINVAL;

	if (cs)
		snprintf(out, cap, "%s", cs);
	cJSON_free(cs);
	cJSON_Delete(c);
	return rc;
}

const char *cj_version(void)
{
	return cJSON_Version();
}
