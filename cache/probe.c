/*
 * probe: the upstream's current resourceVersion (see probe.h).
 */
#include "cache/probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cache/json.h"
#include "cache/url.h"
#include "config/buf.h"

/* GET path into body on the keep handle (NULL: a connection of its own).
 * Returns the HTTP status or -1 with err set. */
static long probe_get(const struct cache_upstream *up, CURL **keep,
		      const char *path, const bool *stop, struct buf *body,
		      char *err, size_t errlen)
{
	struct cache_upstream_ask q = {
		.what = CACHE_UPSTREAM_PROBE,
		.path = path,
		.accept = "application/json",
		.stop = stop,
		.keep = keep,
	};
	return cache_upstream_ask(up, &q, body, NULL, err, errlen);
}

int cache_probe_rv_on(const struct cache_upstream *up, CURL **keep,
		      const struct cache_kind *kind, const char *ns,
		      const bool *stop, uint64_t *rv, char *err, size_t errlen)
{
	char path[600];
	cache_url_collection(kind, ns, path, sizeof(path));
	strncat(path, "?limit=1", sizeof(path) - strlen(path) - 1);
	struct buf body = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	long code = probe_get(up, keep, path, stop, &body, err, errlen);
	int rc = -EIO;
	if (code == 200 && !json_parse(&d, body.p, body.len, NULL, 0)) {
		int t = json_path(&d, 0, "metadata.resourceVersion");
		if (t >= 0 && !json_u64(&d, t, rv))
			rc = 0;
	}
	if (rc && code >= 0)
		snprintf(err, errlen,
			 "the upstream answered %ld without a resourceVersion",
			 code);
	buf_free(&body);
	json_doc_free(&d);
	return rc;
}

int cache_probe_upstream_rv(const struct cache_upstream *up,
			    const struct cache_kind *kind, const char *ns,
			    const bool *stop, uint64_t *rv, char *err,
			    size_t errlen)
{
	return cache_probe_rv_on(up, NULL, kind, ns, stop, rv, err, errlen);
}

int cache_probe_object(const struct cache_upstream *up, CURL **keep,
		       const struct cache_kind *kind, const char *ns,
		       const char *name, const bool *stop, bool *present,
		       uint64_t *rv, char *err, size_t errlen)
{
	char coll[600];
	cache_url_collection(kind, ns, coll, sizeof(coll));
	struct buf path = BUF_INIT, body = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	buf_adds(&path, coll);
	buf_addc(&path, '/');
	cache_url_escape(&path, name);
	int rc = -ENOMEM;
	if (!buf_ok(&path)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	long code = probe_get(up, keep, path.p, stop, &body, err, errlen);
	rc = -EIO;
	if ((code == 200 || code == 404) &&
	    !json_parse(&d, body.p, body.len, NULL, 0)) {
		if (code == 200) {
			int t = json_path(&d, 0, "metadata.resourceVersion");
			if (t >= 0 && !json_u64(&d, t, rv)) {
				*present = true;
				rc = 0;
			}
		} else if (json_str_eq(&d, json_get(&d, 0, "reason"),
				       "NotFound")) {
			/* the object's absence, not an unknown path */
			*present = false;
			*rv = 0;
			rc = 0;
		}
	}
	if (rc && code >= 0)
		snprintf(err, errlen,
			 "the upstream answered %ld, neither the object nor "
			 "its NotFound",
			 code);
	if (rc && (code == 401 || code == 403))
		rc = -EACCES;
out:
	buf_free(&path);
	buf_free(&body);
	json_doc_free(&d);
	return rc;
}

/* Whether the items of list d (token items) are those of snap: as many,
 * and each at the same ns/name with the same RV. */
static bool same_items(const struct json_doc *d, int items,
		       const struct cache_snap *snap)
{
	size_t n = 0;
	for (int k = json_first(d, items); k > 0; k = json_next(d, items, k)) {
		char ns[256], name[256];
		uint64_t rv;
		int m = json_get(d, k, "metadata");
		int tn = m < 0 ? -1 : json_get(d, m, "name");
		int tns = m < 0 ? -1 : json_get(d, m, "namespace");
		int trv = m < 0 ? -1 : json_get(d, m, "resourceVersion");
		if (tn < 0 || trv < 0 ||
		    json_str(d, tn, name, sizeof(name)) < 0 ||
		    json_u64(d, trv, &rv))
			return false;
		ns[0] = 0;
		if (tns >= 0 && json_str(d, tns, ns, sizeof(ns)) < 0)
			return false;
		struct cache_obj *o = cache_store_snap_find(snap, ns, name);
		if (!o || o->rv != rv)
			return false;
		n++;
	}
	return n == snap->count;
}

int cache_probe_same_state(const struct cache_upstream *up, CURL **keep,
			   const struct cache_kind *kind, const char *ns,
			   struct cache_store *store, int max, const bool *stop,
			   bool *same, uint64_t *rv, uint64_t *at, char *err,
			   size_t errlen)
{
	char path[640];
	cache_url_collection(kind, ns, path, sizeof(path));
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "?limit=%d",
		 max);
	struct buf body = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	long code = probe_get(up, keep, path, stop, &body, err, errlen);
	int rc = -EIO;
	if (code != 200 || json_parse(&d, body.p, body.len, NULL, 0))
		goto out;
	int t = json_path(&d, 0, "metadata.resourceVersion");
	int items = json_get(&d, 0, "items");
	if (t < 0 || json_u64(&d, t, rv) || items < 0)
		goto out;
	rc = 0;
	int cont = json_path(&d, 0, "metadata.continue");
	size_t clen = 0;
	if (cont >= 0)
		json_raw(&d, cont, &clen);
	struct cache_snap *snap = cache_store_snap(store);
	/* more than one page: not worth proving, the reads go upstream */
	*same = !clen && same_items(&d, items, snap);
	*at = snap->rv;
	cache_store_snap_put(snap);
out:
	if (rc && code >= 0)
		snprintf(err, errlen,
			 "the upstream answered %ld without a list", code);
	buf_free(&body);
	json_doc_free(&d);
	return rc;
}
