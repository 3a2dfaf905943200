/*
 * continue: continue tokens (see continue.h).
 */
#include "proxy/continue.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cache/json.h"

void proxy_continue_encode(struct buf *out, uint64_t rv, const char *ns,
			   const char *name)
{
	struct buf raw = BUF_INIT, start = BUF_INIT;
	if (ns[0])
		buf_printf(&start, "%s/", ns);
	buf_printf(&start, "%s", name);
	buf_printf(&raw, "{\"v\":\"meta.k8s.io/v1\",\"rv\":%llu,\"start\":",
		   (unsigned long long)rv);
	buf_add_json_str(&raw, start.p, start.len);
	/* Out of memory: raw may be empty (p NULL, len 0), and the len--
	 * below would wrap and have base64 read SIZE_MAX bytes at NULL; a
	 * failed start would give a wrong token. Fail out instead, as an
	 * append to it would. */
	if (!buf_ok(&raw) || !buf_ok(&start) || !raw.len) {
		out->failed = true;
		goto done;
	}
	/* the apiserver's start key ends in \u0000: "the next key after" */
	raw.len--;
	buf_adds(&raw, "\\u0000\"}");
	buf_add_base64url(out, raw.p, raw.len);
done:
	buf_free(&raw);
	buf_free(&start);
}

int proxy_continue_decode(const char *tok, uint64_t *rv, char *ns, size_t nscap,
			  char *name, size_t namecap, char *err, size_t errlen)
{
	struct buf raw = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	char start[600];
	int r = -EINVAL;
	if (buf_base64url_decode(tok, strlen(tok), &raw) || !raw.len ||
	    json_parse(&d, raw.p, raw.len, NULL, 0) ||
	    json_type(&d, 0) != JSMN_OBJECT) {
		snprintf(err, errlen,
			 "invalid continue token: continue key is not valid");
		goto out;
	}
	int v = json_get(&d, 0, "v"), rvt = json_get(&d, 0, "rv"),
	    st = json_get(&d, 0, "start");
	if (v < 0 || !json_str_eq(&d, v, "meta.k8s.io/v1")) {
		snprintf(
			err, errlen,
			"continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
		goto out;
	}
	if (rvt < 0 || json_u64(&d, rvt, rv) || st < 0 ||
	    json_str(&d, st, start, sizeof(start)) < 1) {
		snprintf(
			err, errlen,
			"continue key is not valid: invalid start or resourceVersion");
		goto out;
	}
	size_t n = strlen(start);
	if (n && start[n - 1] == '\0')
		n--;
	/* json_str stops at the NUL: start is "ns/name" or "name" */
	const char *slash = strchr(start, '/');
	const char *nm = slash ? slash + 1 : start;
	size_t nsl = slash ? (size_t)(slash - start) : 0;
	if (nsl >= nscap || strlen(nm) >= namecap || !*nm) {
		snprintf(err, errlen,
			 "continue key is not valid: bad start key");
		goto out;
	}
	memcpy(ns, start, nsl);
	ns[nsl] = '\0';
	memcpy(name, nm, strlen(nm) + 1); /* fits: checked above */
	r = 0;
out:
	buf_free(&raw);
	json_doc_free(&d);
	return r;
}
