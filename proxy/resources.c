/*
 * resources: one --config entry into its reflectors (see resources.h).
 */
#include "proxy/resources.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cache/scope.h"
#include "cache/selector.h"

int proxy_resources_count(const struct config_scope *sc)
{
	return sc->nnamespaces ? sc->nnamespaces : 1;
}

/* The selectors parse as the apiserver would parse them. */
static int check_selectors(const struct cache_kind *k,
			   const struct config_scope *sc, char *err,
			   size_t errlen)
{
	char msg[256];
	struct cache_lsel *l = NULL;
	struct cache_fsel *f = NULL;
	int rc = cache_selector_label_parse(sc->label_selector, &l, msg,
					    sizeof(msg));
	if (rc == -EINVAL)
		snprintf(err, errlen, "%s: labelSelector: %s",
			 sc->label_where ? sc->label_where : sc->resource, msg);
	cache_selector_label_free(l);
	if (rc)
		return rc;
	rc = cache_selector_field_parse(sc->field_selector, k->fields, &f, msg,
					sizeof(msg));
	if (rc == -EINVAL)
		snprintf(err, errlen, "%s: fieldSelector: %s",
			 sc->field_where ? sc->field_where : sc->resource, msg);
	cache_selector_field_free(f);
	return rc;
}

/* Whether dotted path a is b or lies above it ("status" above
 * "status.phase"), segment by segment ("\\." a dot inside one). */
static bool covers(const char *a, const char *b)
{
	char sa[8][256], sb[8][256];
	int na = config_file_path_split(a, sa, 8),
	    nb = config_file_path_split(b, sb, 8);
	if (na <= 0 || nb <= 0 || na > nb)
		return false;
	for (int i = 0; i < na; i++)
		if (strcmp(sa[i], sb[i]))
			return false;
	return true;
}

/* A stripped path must not take a field the kind can select on: the
 * cache would then answer a field selector on it wrongly. */
static int check_strip(const struct cache_kind *k,
		       const struct config_scope *sc, const char *where,
		       char *err, size_t errlen)
{
	for (int i = 0; i < sc->nstrip; i++)
		for (int f = 0; k->fields[f]; f++)
			if (covers(sc->strip[i], k->fields[f])) {
				snprintf(err, errlen,
					 "%s: stripFields: \"%s\" would remove "
					 "%s, which field selectors on %s read",
					 where, sc->strip[i], k->fields[f],
					 k->resource);
				return -EINVAL;
			}
	return 0;
}

int proxy_resources_make(const struct cache_kind *k,
			 const struct config_scope *sc,
			 const struct cache_upstream *up, size_t history,
			 struct cache_resource **out, int max, char *err,
			 size_t errlen)
{
	const char *where = sc->where ? sc->where : "--resources";
	int n = proxy_resources_count(sc), made = 0, rc;
	if (sc->nnamespaces && !k->namespaced) {
		snprintf(err, errlen,
			 "%s: %s: namespaces given, but %s are not namespaced",
			 where, sc->resource, k->resource);
		return -EINVAL;
	}
	if ((rc = check_selectors(k, sc, err, errlen)) ||
	    (rc = check_strip(k, sc, where, err, errlen))) {
		if (rc == -ENOMEM) /* the parsers say nothing of it */
			snprintf(err, errlen, "out of memory");
		return rc;
	}
	if (n > max) {
		snprintf(err, errlen, "%s: too many reflectors", where);
		return -ENOSPC;
	}
	for (; made < n; made++) {
		struct cache_scope s;
		const char *ns = sc->nnamespaces ? sc->namespaces[made] : NULL;
		rc = cache_scope_init(&s, ns, sc->label_selector,
				      sc->field_selector, sc->strip,
				      sc->nstrip);
		if (rc == -EINVAL) {
			snprintf(err, errlen, "%s: too many stripFields",
				 where);
			goto fail;
		}
		out[made] = rc ? NULL : cache_resource_new(k, up, history);
		if (!out[made]) {
			cache_scope_free(&s);
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
			goto fail;
		}
		cache_resource_set_scope(out[made], &s);
		if (sc->nindexes &&
		    cache_store_index_only(out[made]->store, sc->indexes,
					   sc->nindexes)) {
			cache_resource_free(out[made]);
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
			goto fail;
		}
	}
	return made;
fail:
	while (made-- > 0)
		cache_resource_free(out[made]);
	return rc;
}
