/*
 * fuzz selector_field: field selector parsing and matching
 * (cache_selector_field_parse, cache_selector_field_match, cache_selector_field_eq) over the fields
 * of pods, the kind with the most.
 *
 * The input is a fieldSelector as a client sends it, once URL-decoded.
 * Objects to match against are made from the words of the input, so
 * that matches happen and not only misses.
 *
 * Invariants beyond "no crash":
 *   - the answer does not depend on the size of the error buffer, and an
 *     error always says something;
 *   - parsing twice gives selectors that match the same objects;
 *   - an empty selector matches everything;
 *   - a field=value that cache_selector_field_eq() offers to narrow a scan (to one
 *     namespace, one name) holds in every object the selector matches.
 */
#include <errno.h>
#include <stdbool.h>

#include "cache/kind.h"
#include "cache/selector.h"
#include "tests/fuzz/fuzz.h"

#define MAXW 8

/* An object: the value of each known field, "" when it has none. */
struct fake_obj {
	const char *const *names; /* NULL-terminated */
	const char *vals[CACHE_KIND_MAX_FIELDS + 3];
};

static const char *get(const void *ctx, const char *field)
{
	const struct fake_obj *o = ctx;
	for (int i = 0; o->names[i]; i++)
		if (!strcmp(o->names[i], field))
			return o->vals[i];
	return "";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct cache_kind *kind = cache_kind_find("", "pods");
	char *s = fuzz_cstr(data, size), *copy = fuzz_cstr(data, size);
	if (!s || !copy)
		goto out_free;
	struct cache_fsel *a = NULL, *b = NULL;
	char err[512], small[8];
	int ra = cache_selector_field_parse(s, kind->fields, &a, err,
					    sizeof(err));
	int rb = cache_selector_field_parse(s, kind->fields, &b, small,
					    sizeof(small));
	FUZZ_CHECK(ra == rb);
	FUZZ_CHECK(ra == 0 || ra == -EINVAL || ra == -ENOMEM);
	if (ra) {
		FUZZ_CHECK(!a && !b);
		FUZZ_CHECK(err[0] && strlen(err) < sizeof(err));
		FUZZ_CHECK(strlen(small) < sizeof(small));
		goto out_free;
	}
	const char *names[CACHE_KIND_MAX_FIELDS + 3];
	int nn = 0;
	names[nn++] = "metadata.name";
	names[nn++] = "metadata.namespace";
	for (int f = 0; kind->fields[f]; f++)
		names[nn++] = kind->fields[f];
	names[nn] = NULL;
	/* words of the input, the values we try */
	const char *w[MAXW];
	int nw = 0;
	for (char *t = strtok(copy, ",=!"); t && nw < MAXW;
	     t = strtok(NULL, ",=!"))
		w[nw++] = t;
	for (int shift = 0; shift <= nw; shift++) {
		struct fake_obj o = { .names = names };
		for (int i = 0; i < nn; i++)
			o.vals[i] = shift < nw ? w[(i + shift) % nw] : "";
		if (shift == nw) /* the narrowing pairs, exactly */
			for (int i = 0; i < nn; i++) {
				const char *v =
					cache_selector_field_eq(a, names[i]);
				o.vals[i] = v ? v : "";
			}
		bool m = cache_selector_field_match(a, get, &o);
		FUZZ_CHECK(m == cache_selector_field_match(b, get, &o));
		if (cache_selector_field_empty(a))
			FUZZ_CHECK(m);
		for (int i = 0; m && i < nn; i++) {
			const char *v = cache_selector_field_eq(a, names[i]);
			FUZZ_CHECK(!v || !strcmp(v, o.vals[i]));
		}
	}
	cache_selector_field_free(a);
	cache_selector_field_free(b);
out_free:
	free(s);
	free(copy);
	return 0;
}
