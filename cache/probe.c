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

int cache_probe_upstream_rv(const struct cache_upstream *up,
			    const struct cache_kind *kind, const char *ns,
			    const bool *stop, uint64_t *rv, char *err,
			    size_t errlen)
{
	char path[600];
	cache_url_collection(kind, ns, path, sizeof(path));
	strncat(path, "?limit=1", sizeof(path) - strlen(path) - 1);
	struct buf body = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	long code = cache_upstream_get(up, CACHE_UPSTREAM_PROBE, path,
				       "application/json", stop, &body, NULL,
				       err, errlen);
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
