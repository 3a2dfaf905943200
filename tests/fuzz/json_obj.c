/*
 * fuzz json_obj: the JSON validator and the object parser, as the
 * reflector uses them on a LIST page and on one object.
 *
 * The input is one JSON document. It goes through json_parse(); a page
 * ({"metadata":...,"items":[...]}) has each item parsed in place with
 * cache_obj_from_doc(), the way the lister takes a page, and the whole
 * document is also parsed as one object with cache_obj_parse(). Both with
 * and without --strip-managed-fields.
 *
 * Invariants beyond "no crash":
 *   - what jansson (an independent parser) accepts, json_parse accepts
 *     (objects and arrays nested less deeply than our limit, and no raw
 *     NUL byte, which jansson skips);
 *   - an object the parser keeps is served as valid JSON, both as itself
 *     and as a list item ("{" + json + item_off), it starts with the
 *     kind's {"kind":..,"apiVersion":.., prefix, and parsing those bytes
 *     again gives the same key, uid, resourceVersion, labels and fields;
 *   - cache_obj_parse() and cache_obj_from_doc() agree;
 *   - a kept object's bytes parsed with json_parse_trusted() (as the
 *     Table reads them) give the validating parse's tokens;
 *   - a copy at another resourceVersion (a deletion's) keeps the key;
 *   - the tokenizer's stage one at every level the CPU has (json_int.h)
 *     gives the byte loop's verdict, message and tokens.
 */
#include <stdbool.h>

#include "cache/json.h"
#include "cache/json_int.h"
#include "cache/kind.h"
#include "cache/obj.h"
#include "cache/shape.h"
#include "tests/fuzz/fuzz.h"

/* jansson's json_type clashes with ours: declare the two calls we make.
 * A value fresh from json_loadb holds one reference, so json_delete()
 * is what json_decref() would do. */
struct json_t;
struct json_t *json_loadb(const char *buffer, size_t buflen, size_t flags,
			  void *error);
void json_delete(struct json_t *json);

/* The input of the current run, for the checks below. */
static const uint8_t *in;
static size_t in_len;

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void check_same(const struct cache_obj *a, const struct cache_obj *b)
{
	FUZZ_CHECK(!strcmp(a->name, b->name) && !strcmp(a->ns, b->ns));
	FUZZ_CHECK(!strcmp(a->uid, b->uid));
	FUZZ_CHECK(a->nlabels == b->nlabels);
	for (uint32_t i = 0; i < a->nlabels; i++) {
		FUZZ_CHECK(!strcmp(a->labels[i].key, b->labels[i].key));
		FUZZ_CHECK(!strcmp(a->labels[i].val, b->labels[i].val));
	}
	for (int f = 0; a->kind && a->kind->fields[f]; f++)
		FUZZ_CHECK(same(a->fields[f], b->fields[f]));
}

static bool valid_json(const char *s, size_t n)
{
	struct json_doc d = JSON_DOC_INIT;
	bool ok = !json_parse(&d, s, n, NULL, 0) &&
		  json_type(&d, 0) == JSMN_OBJECT;
	json_doc_free(&d);
	return ok;
}

/* A kept object's bytes read again as the Table and PartialObjectMetadata
 * do, with json_parse_trusted(): the same tokens as the validating parse
 * with the same shape, at every level the CPU has. */
static const struct json_shape_key meta_keys[] = {
	{ "managedFields", 13, &json_shape_skip },
};
static const struct json_shape meta_shape = { NULL, 1, meta_keys };
static const struct json_shape_key row_keys[] = {
	{ "metadata", 8, &meta_shape },
};
static const struct json_shape row_shape = { NULL, 1, row_keys };
static const struct json_shape meta_only = { &json_shape_skip, 1, row_keys };

static void check_trusted(const char *js, size_t n)
{
	const struct json_shape *shapes[] = { &row_shape, &meta_only,
					      &json_shape_skip };
	for (size_t s = 0; s < 3; s++) {
		struct json_doc want = JSON_DOC_INIT;
		FUZZ_CHECK(
			!json_parse_shaped(&want, js, n, shapes[s], NULL, 0));
		for (int isa = JSON_ISA_BYTES; isa <= json_isa_best(); isa++) {
			struct json_doc d = JSON_DOC_INIT;
			json_isa_force(isa);
			FUZZ_CHECK(!json_parse_trusted(&d, js, n, shapes[s]));
			json_isa_force(-1);
			FUZZ_CHECK(d.ntok == want.ntok &&
				   d.ndeep == want.ndeep &&
				   d.newline == want.newline);
			for (int i = 0; i < d.ntok; i++)
				FUZZ_CHECK(!memcmp(&d.tok[i], &want.tok[i],
						   sizeof(d.tok[i])) &&
					   d.next[i] == want.next[i]);
			json_doc_free(&d);
		}
		json_doc_free(&want);
	}
}

/* What is done with an object the cache keeps. */
static void check_kept(const struct cache_kind *kind, struct cache_obj *o)
{
	char prefix[256], apiv[128];
	cache_kind_api_version(kind, apiv, sizeof(apiv));
	int plen = snprintf(prefix, sizeof(prefix),
			    "{\"kind\":\"%s\",\"apiVersion\":\"%s\",",
			    kind->kind, apiv);
	FUZZ_CHECK(o->len >= (size_t)plen &&
		   !memcmp(o->json, prefix, (size_t)plen));
	FUZZ_CHECK(o->item_off == (uint32_t)plen);
	FUZZ_CHECK(strlen(o->json) == o->len);
	/* a kept object has a name a key can hold (no NUL cuts it) */
	FUZZ_CHECK(o->name[0] && !memchr(o->name, '/', strlen(o->name)));
	FUZZ_CHECK(valid_json(o->json, o->len));
	check_trusted(o->json, o->len);
	/* a LIST writes "{" and then the members after the prefix */
	size_t ilen = 1 + o->len - o->item_off;
	char *item = malloc(ilen);
	if (item) {
		item[0] = '{';
		memcpy(item + 1, o->json + o->item_off, ilen - 1);
		FUZZ_CHECK(valid_json(item, ilen));
		free(item);
	}
	char err[160];
	struct cache_obj *again =
		cache_obj_parse(kind, o->json, o->len, false, err, sizeof(err));
	if (!again) {
		fprintf(stderr, "reparse: %s\n%.*s\n", err, (int)o->len,
			o->json);
		FUZZ_CHECK(again);
	}
	FUZZ_CHECK(again->rv == o->rv && again->len == o->len);
	check_same(o, again);
	cache_obj_put(again);
	/* a deletion's copy, the object validated whole and jumped over
	 * where the kind's shape skips: the same bytes */
	struct cache_obj *del = cache_obj_with_rv(o, o->rv ^ 1, NULL);
	struct cache_shape *sh = cache_shape_new(kind);
	struct cache_obj *del2 =
		sh ? cache_obj_with_rv(o, o->rv ^ 1, cache_shape_object(sh)) :
		     NULL;
	if (del) {
		FUZZ_CHECK(del->rv == (o->rv ^ 1));
		check_same(o, del);
	}
	if (del && del2) {
		FUZZ_CHECK(del2->rv == del->rv && del2->len == del->len &&
			   !memcmp(del2->json, del->json, del->len));
		check_same(del, del2);
	}
	cache_obj_put(del);
	cache_obj_put(del2);
	cache_shape_free(sh);
}

/* Nesting depth outside strings, for the comparison with jansson, whose
 * own limit is lower than ours might become. */
static int depth_of(const uint8_t *p, size_t n)
{
	int depth = 0, max = 0;
	bool in_str = false;
	for (size_t i = 0; i < n; i++) {
		if (in_str) {
			if (p[i] == '\\')
				i++;
			else if (p[i] == '"')
				in_str = false;
		} else if (p[i] == '"') {
			in_str = true;
		} else if (p[i] == '{' || p[i] == '[') {
			if (++depth > max)
				max = depth;
		} else if (p[i] == '}' || p[i] == ']') {
			depth--;
		}
	}
	return max;
}

/* js at each stage-one level against the byte loop's d (rc, err). */
static void same_at_every_isa(const char *js, size_t size,
			      const struct json_doc *d, int rc, const char *err)
{
	for (int isa = JSON_ISA_PORTABLE; isa <= json_isa_best(); isa++) {
		struct json_doc x = JSON_DOC_INIT;
		char xerr[160] = "";
		json_isa_force(isa);
		int xrc = json_parse(&x, js, size, xerr, sizeof(xerr));
		json_isa_force(JSON_ISA_BYTES);
		FUZZ_CHECK(xrc == rc);
		FUZZ_CHECK(!rc || !strcmp(err, xerr));
		if (!rc) {
			FUZZ_CHECK(x.ntok == d->ntok && x.len == d->len &&
				   x.newline == d->newline);
			FUZZ_CHECK(!memcmp(x.js, d->js, d->len));
			FUZZ_CHECK(!memcmp(x.tok, d->tok,
					   (size_t)d->ntok * sizeof(*d->tok)));
			FUZZ_CHECK(!memcmp(x.next, d->next,
					   (size_t)d->ntok * sizeof(*d->next)));
		}
		json_doc_free(&x);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct cache_kind *kind = cache_kind_find("", "pods");
	const char *js = (const char *)data;
	in = data;
	in_len = size;
	struct json_doc d = JSON_DOC_INIT;
	char err[160] = "";
	json_isa_force(JSON_ISA_BYTES);
	int rc = json_parse(&d, js, size, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	same_at_every_isa(js, size, &d, rc, err);
	/* jansson reads a raw NUL byte between tokens as white space
	 * ("[1,false\0]" loads), where JSON has none: no comparison then */
	if (rc && depth_of(data, size) < 500 && !memchr(data, '\0', size)) {
		struct json_t *j = json_loadb(js, size, 0, NULL);
		if (j) {
			fprintf(stderr,
				"json_parse refused what jansson took: %s\n",
				err);
			json_delete(j);
		}
		FUZZ_CHECK(!j);
	}
	for (int strip = 0; strip < 2 && !rc; strip++) {
		int items = json_type(&d, 0) == JSMN_OBJECT ?
				    json_get(&d, 0, "items") :
				    -1;
		if (items > 0 && json_type(&d, items) == JSMN_ARRAY)
			for (int it = json_first(&d, items); it > 0;
			     it = json_next(&d, items, it)) {
				struct cache_obj *o = cache_obj_from_doc(
					kind, &d, it, strip, err, sizeof(err));
				if (o)
					check_kept(kind, o);
				cache_obj_put(o);
			}
		struct cache_obj *a = cache_obj_from_doc(kind, &d, 0, strip,
							 err, sizeof(err));
		struct cache_obj *b = cache_obj_parse(kind, js, size, strip,
						      err, sizeof(err));
		FUZZ_CHECK(!a == !b);
		if (a) {
			FUZZ_CHECK(a->len == b->len &&
				   !memcmp(a->json, b->json, a->len));
			check_kept(kind, a);
		}
		cache_obj_put(a);
		cache_obj_put(b);
	}
	json_doc_free(&d);
	return 0;
}
