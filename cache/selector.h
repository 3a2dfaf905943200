/*
 * selector: Kubernetes label and field selectors, parsed once, matched
 * many times.
 *
 * Label selectors take the full apiserver grammar: "k=v", "k==v", "k!=v",
 * "k in (a,b)", "k notin (a,b)", "k", "!k", joined by commas. Field
 * selectors take "f=v", "f==v", "f!=v" joined by commas, over
 * metadata.name, metadata.namespace and the fields a kind declares.
 * Errors carry the apiserver's own message text, so it can go straight
 * into a 400 Status.
 *
 * Matching reads through plain arrays and a callback, so the cache and
 * the fake apiserver can both use it without sharing object types.
 * A parsed selector is immutable and may be shared across threads.
 */
#ifndef CACHE_SELECTOR_H
#define CACHE_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>

struct cache_label {
	const char *key;
	const char *val;
};

struct cache_lsel; /* a parsed label selector */
struct cache_fsel; /* a parsed field selector */

/*
 * Parse s (already URL-decoded). An empty or NULL s gives a selector that
 * matches everything. Returns 0, or -EINVAL with err set to the
 * apiserver's message (e.g. "unable to parse requirement: found '=',
 * expected: identifier"), or -ENOMEM.
 */
int cache_selector_label_parse(const char *s, struct cache_lsel **out,
			       char *err, size_t errlen);
/* labels: n entries sorted by key (strcmp). */
bool cache_selector_label_match(const struct cache_lsel *sel,
				const struct cache_label *labels, size_t n);
bool cache_selector_label_empty(const struct cache_lsel *sel);
/* The value of the first "key=value" (or "==") requirement, for index
 * use; NULL when there is none. */
const char *cache_selector_label_eq(const struct cache_lsel *sel,
				    const char **key);
void cache_selector_label_free(struct cache_lsel *sel);

/*
 * Parse s over the fields metadata.name, metadata.namespace and the
 * NULL-terminated list extra (may be NULL). An unknown field gives
 * -EINVAL with "field label not supported: FIELD".
 */
int cache_selector_field_parse(const char *s, const char *const *extra,
			       struct cache_fsel **out, char *err,
			       size_t errlen);
/* get(ctx, field) returns the object's value of field ("" when the
 * object has none, which is what the apiserver compares against). */
bool cache_selector_field_match(const struct cache_fsel *sel,
				const char *(*get)(const void *ctx,
						   const char *field),
				const void *ctx);
bool cache_selector_field_empty(const struct cache_fsel *sel);
/* The value required by "field=value" for field, or NULL. Lets a caller
 * narrow a scan, e.g. to one namespace or one name. */
const char *cache_selector_field_eq(const struct cache_fsel *sel,
				    const char *field);
void cache_selector_field_free(struct cache_fsel *sel);

#endif
