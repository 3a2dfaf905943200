/*
 * bench_jsonc: the json-c adapter of the JSON benchmark (see bench_json.h).
 *
 * json-c cannot say where in the input an object began, so an item's
 * bytes are only available by re-serializing it. It has no allocator
 * hook; the driver measures it with mallinfo2().
 *
 * Do not call json_object_get() or json-c's iterator API here: jansson
 * exports the same names and is linked first (see the Makefile).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "bench_json.h"

static struct json_tokener *tok;

/* Strict (RFC 8259) and UTF-8 checking, so the comparison with the other
 * validating parsers is fair; json-c is lenient without these flags. */
static struct json_object *parse(const char *p, size_t n)
{
	struct json_object *o;

	if (!tok) {
		tok = json_tokener_new();
		if (!tok)
			return NULL;
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
						    JSON_TOKENER_VALIDATE_UTF8);
	}
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, p, (int)n);
	if (o && (json_tokener_get_error(tok) != json_tokener_success ||
		  json_tokener_get_parse_end(tok) != n)) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

static struct strv str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return (struct strv){ NULL, 0 };
	return (struct strv){ json_object_get_string(v),
			      (size_t)json_object_get_string_len(v) };
}

static void item(struct json_object *it, struct meta *m, struct sink *s)
{
	struct json_object *md, *labels;

	if (json_object_object_get_ex(it, "metadata", &md)) {
		m->name = str_of(md, "name");
		m->ns = str_of(md, "namespace");
		m->uid = str_of(md, "uid");
		m->rv = str_of(md, "resourceVersion");
		if (json_object_object_get_ex(md, "labels", &labels) &&
		    json_object_is_type(labels, json_type_object)) {
			json_object_object_foreach(labels, k, v)
			{
				if (!json_object_is_type(v, json_type_string))
					continue;
				meta_label(
					m, k, strlen(k),
					json_object_get_string(v),
					(size_t)json_object_get_string_len(v));
			}
		}
	}
	sink_meta(s, m);
	if (s->reser) {
		size_t len;
		const char *txt = json_object_to_json_string_length(
			it,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
			&len);
		sink_span(s, txt, len);
	}
}

int jsonc_list(const char *p, size_t n, struct sink *s)
{
	struct json_object *root = parse(p, n), *items;

	if (!root)
		return -EINVAL;
	probe_after_parse();
	if (json_object_object_get_ex(root, "items", &items)) {
		size_t len = json_object_array_length(items);
		for (size_t i = 0; i < len; i++) {
			struct meta m = { 0 };
			item(json_object_array_get_idx(items, i), &m, s);
		}
	}
	json_object_put(root);
	return 0;
}

int jsonc_event(const char *p, size_t n, struct sink *s)
{
	struct json_object *root = parse(p, n), *obj;
	struct meta m = { 0 };

	if (!root)
		return -EINVAL;
	probe_after_parse();
	m.type = str_of(root, "type");
	if (json_object_object_get_ex(root, "object", &obj))
		item(obj, &m, s);
	json_object_put(root);
	return 0;
}

int jsonc_validate(const char *p, size_t n)
{
	struct json_object *root = parse(p, n);

	if (!root)
		return -EINVAL;
	json_object_put(root);
	return 0;
}

void *jsonc_parse_keep(const char *p, size_t n)
{
	return parse(p, n);
}

void jsonc_free(void *tree)
{
	json_object_put(tree);
}

int jsonc_reserialize(const char *p, size_t n, char *out, size_t cap)
{
	struct json_object *root = parse(p, n);

	if (!root)
		return -EINVAL;
	snprintf(out, cap, "%s",
		 json_object_to_json_string_ext(
			 root, JSON_C_TO_STRING_PLAIN |
				       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return 0;
}

const char *jsonc_version(void)
{
	return json_c_version();
}
