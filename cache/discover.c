/*
 * discover: kinds from upstream discovery (see discover.h).
 *
 * A discovered kind owns its strings; the built-in table's never need
 * freeing. Selectable fields of discovered kinds are metadata.name and
 * metadata.namespace only.
 */
#include "cache/discover.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/json.h"
#include "cache/url.h"
#include "config/alloc.h"
#include "config/buf.h"

/*
 * GET path into body and parse it into d. Returns 0 on a 200 with JSON;
 * else -EAGAIN for an upstream that could not be asked (transport error,
 * 5xx) with err set by the request, or -ENOENT with err set to
 * missing, for any other answer.
 */
static int fetch(const struct cache_upstream *up, const char *path,
		 const bool *stop, struct buf *body, struct json_doc *d,
		 const char *missing, char *err, size_t errlen)
{
	buf_reset(body);
	long code = cache_upstream_get(up, path, "application/json", stop, body,
				       NULL, err, errlen);
	if (code == 200 && json_parse(d, body->p, body->len, err, errlen))
		code = -1;
	if (code == 200)
		return 0;
	if (code < 0 || code >= 500)
		return -EAGAIN;
	snprintf(err, errlen, "%s", missing);
	return -ENOENT;
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
		return 0;
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
	*why = -ENOENT;
	if (cache_discover_from_list(&d, &ks, &k) == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (!k)
		snprintf(err, errlen,
			 "the upstream serves no resource \"%s\" in %s",
			 ks.resource, path);
out:
	buf_free(&body);
	json_doc_free(&d);
	return k;
}
