/*
 * continue: continue tokens (see continue.h).
 */
#include "proxy/continue.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cache/json.h"
#include "config/goerr.h"

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

#define BAD_TOKEN "invalid continue token: continue key is not valid: "

/* Go's name of a JSON value's kind in an UnmarshalTypeError. */
static const char *go_kind(const struct json_doc *d, int i)
{
	switch (json_type(d, i)) {
	case JSMN_OBJECT:
		return "object";
	case JSMN_ARRAY:
		return "array";
	case JSMN_STRING:
		return "string";
	default:
		break;
	}
	size_t n;
	const char *raw = json_raw(d, i, &n);
	return raw[0] == 't' || raw[0] == 'f' ? "bool" :
	       raw[0] == 'n'		      ? "null" :
						"number";
}

/* The first type error json.Unmarshal reports for the token's members,
 * as Go words it; 0 when there is none. */
static int go_type_check(const struct json_doc *d, char *err, size_t errlen)
{
	if (json_type(d, 0) != JSMN_OBJECT) {
		const char *k = go_kind(d, 0);
		if (!strcmp(k, "null"))
			return 0;
		snprintf(err, errlen,
			 BAD_TOKEN "json: cannot unmarshal %s into Go value "
				   "of type storage.continueToken",
			 k);
		return -EINVAL;
	}
	for (int k = json_first(d, 0); k > 0; k = json_next(d, 0, k)) {
		int v = k + 1;
		const char *kind = go_kind(d, v);
		if (!strcmp(kind, "null"))
			continue;
		if ((json_str_eq(d, k, "v") || json_str_eq(d, k, "start")) &&
		    strcmp(kind, "string")) {
			size_t n;
			const char *name = json_raw(d, k, &n);
			snprintf(err, errlen,
				 BAD_TOKEN "json: cannot unmarshal %s into Go "
					   "struct field continueToken.%.*s of "
					   "type string",
				 kind, (int)n, name);
			return -EINVAL;
		}
		if (!json_str_eq(d, k, "rv"))
			continue;
		int64_t i64;
		if (!strcmp(kind, "number") && !json_i64(d, v, &i64))
			continue;
		if (!strcmp(kind, "number")) {
			size_t n;
			const char *raw = json_raw(d, v, &n);
			snprintf(err, errlen,
				 BAD_TOKEN "json: cannot unmarshal number %.*s "
					   "into Go struct field "
					   "continueToken.rv of type int64",
				 (int)(n > 64 ? 64 : n), raw);
		} else {
			snprintf(err, errlen,
				 BAD_TOKEN "json: cannot unmarshal %s into Go "
					   "struct field continueToken.rv of "
					   "type int64",
				 kind);
		}
		return -EINVAL;
	}
	return 0;
}

/* Go's %q of s, for the printable ASCII a version string holds. */
static void go_quote(const char *s, char *out, size_t cap)
{
	size_t k = 0;
	if (cap < 8)
		return;
	out[k++] = '"';
	for (; *s && k + 7 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			k += (size_t)snprintf(out + k, cap - k, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			k += (size_t)snprintf(out + k, cap - k, "\\x%02x", c);
		else
			out[k++] = (char)c;
	}
	out[k++] = '"';
	out[k] = '\0';
}

int proxy_continue_decode(const char *tok, uint64_t *rv, char *ns, size_t nscap,
			  char *name, size_t namecap, char *err, size_t errlen)
{
	struct buf raw = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	char start[600], version[64];
	int r = -EINVAL;
	long bad = goerr_base64url_offset(tok);
	if (bad >= 0) {
		snprintf(err, errlen,
			 BAD_TOKEN "illegal base64 data at input byte %ld",
			 bad);
		goto out;
	}
	if (buf_base64url_decode(tok, strlen(tok), &raw)) {
		snprintf(err, errlen, BAD_TOKEN "illegal base64 data");
		goto out;
	}
	char why[128];
	if (goerr_json_syntax((const unsigned char *)raw.p, raw.len, why,
			      sizeof(why))) {
		snprintf(err, errlen, BAD_TOKEN "%s", why);
		goto out;
	}
	if (json_parse(&d, raw.p, raw.len, NULL, 0)) {
		snprintf(err, errlen, BAD_TOKEN "unexpected end of JSON input");
		goto out;
	}
	if (go_type_check(&d, err, errlen))
		goto out;
	int obj = json_type(&d, 0) == JSMN_OBJECT;
	int v = obj ? json_get(&d, 0, "v") : -1,
	    rvt = obj ? json_get(&d, 0, "rv") : -1,
	    st = obj ? json_get(&d, 0, "start") : -1;
	version[0] = '\0';
	if (v >= 0 && json_type(&d, v) == JSMN_STRING &&
	    json_str(&d, v, version, sizeof(version)) < 0)
		snprintf(version, sizeof(version), "?");
	if (strcmp(version, "meta.k8s.io/v1")) {
		char q[160];
		go_quote(version, q, sizeof(q));
		snprintf(err, errlen,
			 "invalid continue token: continue key is not valid: "
			 "server does not recognize this encoded version %s",
			 q);
		goto out;
	}
	int64_t i64 = 0;
	if (rvt >= 0 && json_type(&d, rvt) != JSMN_PRIMITIVE)
		rvt = -1;
	if (rvt < 0 || json_i64(&d, rvt, &i64) || i64 == 0) {
		snprintf(
			err, errlen,
			"invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
		goto out;
	}
	start[0] = '\0';
	if (st >= 0 && json_type(&d, st) == JSMN_STRING &&
	    json_str(&d, st, start, sizeof(start)) < 0)
		snprintf(start, sizeof(start), "?");
	if (!start[0]) {
		snprintf(
			err, errlen,
			"invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)");
		goto out;
	}
	if (i64 < 0 || json_u64(&d, rvt, rv)) {
		/* an inconsistent continuation (rv -1): the cache keeps no
		 * such snapshot */
		snprintf(err, errlen,
			 "invalid continue token: continue key is not valid: "
			 "invalid start or resourceVersion");
		goto out;
	}
	/* json_str stops at the NUL: start is "ns/name" or "name" */
	const char *slash = strchr(start, '/');
	const char *nm = slash ? slash + 1 : start;
	size_t nsl = slash ? (size_t)(slash - start) : 0;
	if (nsl >= nscap || strlen(nm) >= namecap || !*nm) {
		snprintf(err, errlen,
			 "invalid continue token: continue key is not valid: "
			 "%.400s",
			 start);
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
