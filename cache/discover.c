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
#include "config/alloc.h"
#include "config/buf.h"

static long get(const struct cache_upstream *up, const char *path,
		const bool *stop, struct buf *body, struct json_doc *d, char *err,
		size_t errlen)
{
	buf_reset(body);
	long code = cache_upstream_get(up, path, "application/json", stop, body,
				       NULL, err, errlen);
	if (code == 200 && json_parse(d, body->p, body->len, err, errlen))
		return -1;
	return code;
}

void cache_kind_free(struct cache_kind *k)
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

struct cache_kind *cache_kind_discover(const struct cache_upstream *up,
				       const char *spec, const bool *stop,
				       int *why, char *err, size_t errlen)
{
	struct cache_kind_spec ks;
	char *res = ks.resource, *ver = ks.version, *group = ks.group;
	char path[400];
	struct buf body = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	struct cache_kind *k = NULL;
	*why = -ENOENT;
	if (cache_kind_spec_parse(spec, &ks)) {
		snprintf(err, errlen, "\"%s\" is not a resource name", spec);
		goto out;
	}
	if (!ver[0]) {
		if (!group[0]) {
			snprintf(ver, sizeof(ks.version), "v1");
		} else {
			snprintf(path, sizeof(path), "/apis/%s", group);
			long code = get(up, path, stop, &body, &d, err, errlen);
			if (code != 200) {
				if (code < 0 || code >= 500)
					*why = -EAGAIN;
				else
					snprintf(err, errlen, "the upstream serves no API group \"%s\"", group);
				goto out;
			}
			int pv = json_path(&d, 0, "preferredVersion.version");
			if (pv < 0 || json_str(&d, pv, ver, sizeof(ks.version)) < 1) {
				snprintf(err, errlen, "API group \"%s\" names no preferred version", group);
				goto out;
			}
		}
	}
	if (group[0])
		snprintf(path, sizeof(path), "/apis/%s/%s", group, ver);
	else
		snprintf(path, sizeof(path), "/api/%s", ver);
	long code = get(up, path, stop, &body, &d, err, errlen);
	if (code != 200) {
		if (code < 0 || code >= 500)
			*why = -EAGAIN;
		else
			snprintf(err, errlen, "the upstream does not serve %s", path);
		goto out;
	}
	int list = json_get(&d, 0, "resources");
	for (int r = json_first(&d, list); r > 0; r = json_next(&d, list, r)) {
		int name = json_get(&d, r, "name");
		if (name < 0 || !json_str_eq(&d, name, res))
			continue;
		char kind[128];
		int kt = json_get(&d, r, "kind"), ns = json_get(&d, r, "namespaced");
		if (kt < 0 || json_str(&d, kt, kind, sizeof(kind)) < 1)
			break;
		k = xcalloc(1, sizeof(*k));
		struct buf lk = BUF_INIT;
		buf_printf(&lk, "%sList", kind);
		if (k) {
			k->group = xstrdup(group);
			k->version = xstrdup(ver);
			k->resource = xstrdup(res);
			k->kind = xstrdup(kind);
			k->list_kind = buf_steal(&lk, NULL);
			k->namespaced = ns >= 0 && d.js[d.tok[ns].start] == 't';
		}
		buf_free(&lk);
		if (!k || !k->group || !k->version || !k->resource || !k->kind ||
		    !k->list_kind) {
			cache_kind_free(k);
			k = NULL;
			snprintf(err, errlen, "out of memory");
		}
		goto out;
	}
	snprintf(err, errlen, "the upstream serves no resource \"%s\" in %s", res, path);
out:
	buf_free(&body);
	json_doc_free(&d);
	return k;
}
