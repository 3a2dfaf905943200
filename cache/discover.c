/*
 * discover: kinds from upstream discovery (see discover.h).
 *
 * A discovered kind owns its strings; the built-in table's never need
 * freeing. Selectable fields of discovered kinds are metadata.name and
 * metadata.namespace only.
 */
#include "cache/discover.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/json.h"
#include "cache/url.h"
#include "config/alloc.h"
#include "config/buf.h"

/*
 * GET path into body and parse it into d. Returns 0 on a 200 with JSON;
 * else -EAGAIN for an upstream that could not be asked (transport error,
 * 5xx) with err set by the request, -EACCES for a 401 or 403, or -ENOENT
 * with err set to missing, for any other answer.
 */
static int fetch_as(const struct cache_upstream *up, const char *path,
		    const char *accept, const bool *stop, struct buf *body,
		    struct json_doc *d, const char *missing, char *err,
		    size_t errlen)
{
	buf_reset(body);
	long code = cache_upstream_get(up, CACHE_UPSTREAM_DISCOVERY, path,
				       accept, stop, body, NULL, err, errlen);
	if (code == 200 && json_parse(d, body->p, body->len, err, errlen))
		code = -1;
	if (code == 200)
		return 0;
	if (code < 0 || code >= 500)
		return -EAGAIN;
	if (code == 401 || code == 403) {
		snprintf(
			err, errlen,
			"the upstream refused to tell what it serves (%s %ld): "
			"check the credentials and their RBAC",
			path, code);
		return -EACCES;
	}
	snprintf(err, errlen, "%s", missing);
	return -ENOENT;
}

static int fetch(const struct cache_upstream *up, const char *path,
		 const bool *stop, struct buf *body, struct json_doc *d,
		 const char *missing, char *err, size_t errlen)
{
	return fetch_as(up, path, "application/json", stop, body, d, missing,
			err, errlen);
}

void cache_discover_free(struct cache_kind *k)
{
	if (!k)
		return;
	free((char *)k->group);
	free((char *)k->version);
	free((char *)k->resource);
	free((char *)k->kind);
	free((char *)k->list_kind);
	free(k);
}

int cache_discover_preferred(const struct json_doc *d, char *ver, size_t cap)
{
	int pv = json_path(d, 0, "preferredVersion.version");
	if (pv < 0 || json_str(d, pv, ver, cap) < 1)
		return -ENOENT;
	return 0;
}

/* Whether resource entry r's verbs include list and watch, without
 * which a reflector cannot cache it; an entry that gives no verbs is
 * taken at its word. */
static bool listable(const struct json_doc *d, int r)
{
	int vs = json_get(d, r, "verbs");
	bool list = false, watch = false;
	if (vs < 0)
		return true;
	for (int v = json_first(d, vs); v > 0; v = json_next(d, vs, v)) {
		list |= json_str_eq(d, v, "list");
		watch |= json_str_eq(d, v, "watch");
	}
	return list && watch;
}

/* The line for a kind discovery lists without list or watch. */
static void unlistable_msg(const struct cache_kind *k, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "resource %s%s%s cannot be cached: discovery lists no "
		 "list/watch verb for it; remove it from --resources/--config",
		 k->resource, k->group[0] ? "." : "", k->group);
}

int cache_discover_from_list(const struct json_doc *d,
			     const struct cache_kind_spec *ks,
			     struct cache_kind **out)
{
	struct cache_kind *k = NULL;
	*out = NULL;
	int list = json_get(d, 0, "resources");
	for (int r = json_first(d, list); r > 0; r = json_next(d, list, r)) {
		int name = json_get(d, r, "name");
		if (name < 0 || !json_str_eq(d, name, ks->resource))
			continue;
		char kind[128];
		int kt = json_get(d, r, "kind"),
		    ns = json_get(d, r, "namespaced");
		if (kt < 0 || json_str(d, kt, kind, sizeof(kind)) < 1)
			break;
		k = xcalloc(1, sizeof(*k));
		struct buf lk = BUF_INIT;
		buf_printf(&lk, "%sList", kind);
		if (k) {
			k->group = xstrdup(ks->group);
			k->version = xstrdup(ks->version);
			k->resource = xstrdup(ks->resource);
			k->kind = xstrdup(kind);
			k->list_kind = buf_steal(&lk, NULL);
			k->namespaced =
				ns >= 0 && d->js[d->tok[ns].start] == 't';
		}
		buf_free(&lk);
		if (!k || !k->group || !k->version || !k->resource ||
		    !k->kind || !k->list_kind) {
			cache_discover_free(k);
			return -ENOMEM;
		}
		*out = k;
		return listable(d, r) ? 0 : -EOPNOTSUPP;
	}
	return -ENOENT;
}

struct cache_kind *cache_discover_kind(const struct cache_upstream *up,
				       const char *spec, const bool *stop,
				       int *why, char *err, size_t errlen)
{
	struct cache_kind_spec ks;
	char path[400], missing[512];
	struct buf body = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	struct cache_kind *k = NULL;
	*why = -ENOENT;
	if (cache_kind_spec_parse(spec, &ks)) {
		snprintf(err, errlen, "\"%s\" is not a resource name", spec);
		goto out;
	}
	if (!ks.version[0] && !ks.group[0]) {
		snprintf(ks.version, sizeof(ks.version), "v1");
	} else if (!ks.version[0]) {
		snprintf(path, sizeof(path), "/apis/%s", ks.group);
		snprintf(missing, sizeof(missing),
			 "the upstream serves no API group \"%s\"", ks.group);
		*why = fetch(up, path, stop, &body, &d, missing, err, errlen);
		if (*why)
			goto out;
		*why = -ENOENT;
		if (cache_discover_preferred(&d, ks.version,
					     sizeof(ks.version))) {
			snprintf(err, errlen,
				 "API group \"%s\" names no preferred version",
				 ks.group);
			goto out;
		}
	}
	cache_url_group_version(ks.group, ks.version, path, sizeof(path));
	snprintf(missing, sizeof(missing), "the upstream does not serve %s",
		 path);
	*why = fetch(up, path, stop, &body, &d, missing, err, errlen);
	if (*why)
		goto out;
	int rc = cache_discover_from_list(&d, &ks, &k);
	*why = rc == -EOPNOTSUPP ? rc : -ENOENT;
	if (rc == -EOPNOTSUPP) {
		unlistable_msg(k, err, errlen);
		cache_discover_free(k);
		k = NULL;
	} else if (rc == -ENOMEM) {
		snprintf(err, errlen, "out of memory");
	} else if (!k)
		snprintf(err, errlen,
			 "the upstream serves no resource \"%s\" in %s",
			 ks.resource, path);
out:
	buf_free(&body);
	json_doc_free(&d);
	return k;
}

/* ---- kubectl's names: aggregated discovery ---- */

#define AGGREGATED                                                      \
	"application/json;g=apidiscovery.k8s.io;v=v2;as="               \
	"APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;" \
	"v=v2beta1;as=APIGroupDiscoveryList,application/json"

/* Whether string token i equals s, ignoring case (kubectl lower-cases
 * what it is given, and a Kind matches as its lower-case spelling). */
static bool str_eq_nocase(const struct json_doc *d, int i, const char *s)
{
	char v[256];
	return i >= 0 && json_str(d, i, v, sizeof(v)) > 0 && !strcasecmp(v, s);
}

static bool resource_named(const struct json_doc *d, int r, const char *name,
			   bool short_names)
{
	if (short_names) {
		int sn = json_get(d, r, "shortNames");
		for (int k = json_first(d, sn); k > 0; k = json_next(d, sn, k))
			if (str_eq_nocase(d, k, name))
				return true;
		return false;
	}
	return str_eq_nocase(d, json_get(d, r, "resource"), name) ||
	       str_eq_nocase(d, json_get(d, r, "singularResource"), name) ||
	       str_eq_nocase(d, json_path(d, r, "responseKind.kind"), name);
}

/* A kind for resource entry r of group/version, into *out. */
static int kind_of_entry(const struct json_doc *d, int r, const char *group,
			 const char *version, struct cache_kind **out)
{
	char res[128], kind[128];
	int rt = json_get(d, r, "resource");
	int kt = json_path(d, r, "responseKind.kind");
	if (rt < 0 || json_str(d, rt, res, sizeof(res)) < 1 || kt < 0 ||
	    json_str(d, kt, kind, sizeof(kind)) < 1)
		return -ENOENT;
	struct cache_kind *k = xcalloc(1, sizeof(*k));
	struct buf lk = BUF_INIT;
	buf_printf(&lk, "%sList", kind);
	if (k) {
		k->group = xstrdup(group);
		k->version = xstrdup(version);
		k->resource = xstrdup(res);
		k->kind = xstrdup(kind);
		k->list_kind = buf_steal(&lk, NULL);
		k->namespaced =
			json_str_eq(d, json_get(d, r, "scope"), "Namespaced");
	}
	buf_free(&lk);
	if (!k || !k->group || !k->version || !k->resource || !k->kind ||
	    !k->list_kind) {
		cache_discover_free(k);
		return -ENOMEM;
	}
	*out = k;
	return 0;
}

int cache_discover_match(const struct json_doc *d,
			 const struct cache_kind_spec *ks, bool short_names,
			 struct cache_kind **out)
{
	*out = NULL;
	/* "pods.v1" names the core group: a version without a group */
	bool any_group = !ks->group[0] && !ks->version[0];
	int items = json_get(d, 0, "items");
	for (int it = json_first(d, items); it > 0;
	     it = json_next(d, items, it)) {
		char group[254] = "", version[64];
		int gn = json_path(d, it, "metadata.name");
		if (gn >= 0 && json_str(d, gn, group, sizeof(group)) < 0)
			continue;
		if (!any_group && strcmp(group, ks->group))
			continue;
		/* the preferred version is the first */
		int vs = json_get(d, it, "versions"), v = -1;
		for (int k = json_first(d, vs); k > 0; k = json_next(d, vs, k))
			if (!ks->version[0] ||
			    json_str_eq(d, json_get(d, k, "version"),
					ks->version)) {
				v = k;
				break;
			}
		int vt = v > 0 ? json_get(d, v, "version") : -1;
		if (vt < 0 || json_str(d, vt, version, sizeof(version)) < 1)
			continue;
		int rs = json_get(d, v, "resources");
		for (int r = json_first(d, rs); r > 0;
		     r = json_next(d, rs, r)) {
			if (!resource_named(d, r, ks->resource, short_names))
				continue;
			int rc = kind_of_entry(d, r, group, version, out);
			return rc || listable(d, r) ? rc : -EOPNOTSUPP;
		}
	}
	return -ENOENT;
}

int cache_discover_resolve(const struct cache_upstream *up, const char *spec,
			   const bool *stop, const struct cache_kind **kind,
			   struct cache_kind **owned, char *err, size_t errlen)
{
	struct cache_kind_spec ks;
	struct buf body[2] = { BUF_INIT, BUF_INIT }; /* the docs point in */
	struct json_doc docs[2] = { JSON_DOC_INIT, JSON_DOC_INIT };
	struct cache_kind *k = NULL;
	char lower[512];
	int rc = -ENOENT;
	*kind = NULL;
	*owned = NULL;
	size_t n = 0;
	for (; spec[n] && n + 1 < sizeof(lower); n++)
		lower[n] = (char)tolower((unsigned char)spec[n]);
	lower[n] = '\0';
	if (spec[n] || cache_kind_spec_parse(lower, &ks)) {
		snprintf(err, errlen, "\"%s\" is not a resource name", spec);
		return -ENOENT;
	}
	/* the built-in table's own spelling needs no upstream */
	if ((*kind = cache_kind_lookup(lower)))
		return 0;
	static const char *const paths[2] = { "/api", "/apis" };
	for (int i = 0; i < 2; i++) {
		rc = fetch_as(up, paths[i], AGGREGATED, stop, &body[i],
			      &docs[i], "the upstream serves no discovery", err,
			      errlen);
		if (rc)
			goto out;
		if (!json_str_eq(&docs[i], json_get(&docs[i], 0, "kind"),
				 "APIGroupDiscoveryList")) {
			/* an upstream older than aggregated discovery: the
			 * plural spelling, one group at a time */
			int why;
			k = cache_discover_kind(up, lower, stop, &why, err,
						errlen);
			rc = k ? 0 : why;
			goto found;
		}
	}
	/* short names first, as kubectl expands them before it matches */
	rc = -ENOENT;
	for (int pass = 0; pass < 2 && rc == -ENOENT; pass++)
		for (int i = 0; i < 2 && rc == -ENOENT; i++)
			rc = cache_discover_match(&docs[i], &ks, pass == 0, &k);
	if (rc == -EOPNOTSUPP) {
		unlistable_msg(k, err, errlen);
		cache_discover_free(k);
		k = NULL;
	} else if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (rc)
		snprintf(err, errlen,
			 "the upstream serves no resource \"%s\" (not a "
			 "resource, singular, short name or kind it lists)",
			 spec);
found:
	if (!rc) {
		const struct cache_kind *b =
			cache_kind_find(k->group, k->resource);
		if (b && !strcmp(b->version, k->version)) {
			*kind = b; /* with its selectable fields */
			cache_discover_free(k);
		} else {
			*kind = *owned = k;
		}
	}
out:
	buf_free(&body[0]);
	buf_free(&body[1]);
	json_doc_free(&docs[0]);
	json_doc_free(&docs[1]);
	return rc;
}
