/*
 * continue: continue tokens (see continue.h).
 */
#include "proxy/continue.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
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

/*
 * The apiserver decodes a token with Go's base64 and encoding/json, and
 * its 400 quotes their error text. What follows gives the same words for
 * the same input: the offset of the first byte base64 refuses, and the
 * message of Go's JSON scanner for the first byte it refuses.
 */

#define BAD_TOKEN "invalid continue token: continue key is not valid: "

/* The offset Go's RawURLEncoding reports for tok, or -1 when it decodes.
 * CR and LF are skipped, as Go's decoder skips them. */
static long b64_bad_offset(const char *tok)
{
	size_t i, quantum = 0, last = 0;
	for (i = 0; tok[i]; i++) {
		char c = tok[i];
		if (c == '\r' || c == '\n')
			continue;
		bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_';
		if (!ok)
			return (long)i;
		last = i;
		quantum = (quantum + 1) % 4;
	}
	return quantum == 1 ? (long)last : -1;
}

/* Go's quoteChar: a byte as a quoted rune, "'x'" or "'\u0088'". */
static void go_quote_char(unsigned char c, char *out, size_t cap)
{
	if (c == '\'')
		snprintf(out, cap, "'\\''");
	else if (c == '"')
		snprintf(out, cap, "'\"'");
	else if (c >= 0x20 && c < 0x7f)
		snprintf(out, cap, "'%c'", c);
	else if (c == '\a' || c == '\b' || c == '\f' || c == '\n' ||
		 c == '\r' || c == '\t' || c == '\v')
		snprintf(out, cap, "'\\%c'", "abfnrtv"[strchr("\a\b\f\n\r\t\v",
							     c) -
						      "\a\b\f\n\r\t\v"]);
	else if (c < 0x20 || c == 0x7f)
		snprintf(out, cap, "'\\x%02x'", c);
	else if (c < 0xa1 || c == 0xad) /* C1 controls, NBSP, soft hyphen */
		snprintf(out, cap, "'\\u%04x'", c);
	else /* a printable Latin-1 rune, written in UTF-8 */
		snprintf(out, cap, "'%c%c'", 0xc0 | (c >> 6), 0x80 | (c & 0x3f));
}

enum scan {
	S_VALUE, /* a value begins */
	S_VALUE_OR_CLOSE, /* after '[' */
	S_KEY, /* an object key begins */
	S_KEY_OR_CLOSE, /* after '{' */
	S_END, /* a value ended */
	S_STR,
	S_ESC,
	S_U, /* 4 hex digits to go: u_left */
	S_NEG,
	S_INT, /* in 1-9 digits */
	S_ZERO,
	S_DOT,
	S_FRAC,
	S_EXP,
	S_EXP_SIGN,
	S_EXP_DIGITS,
	S_LIT, /* the rest of true, false or null */
};

#define SCAN_DEPTH 64 /* past it the decoder below refuses the token anyway */

/* Check p[0..n) as Go's JSON scanner does: 0, or -EINVAL with its
 * message in err. */
static int go_json_check(const unsigned char *p, size_t n, char *err,
			 size_t errlen)
{
	enum scan st = S_VALUE;
	char stack[SCAN_DEPTH]; /* 'k': object key, 'v': object value, 'a' */
	int depth = 0, u_left = 0;
	const char *lit = NULL, *lit_name = NULL;
	const char *what = NULL;
	size_t i;
	for (i = 0; i < n; i++) {
		unsigned char c = p[i];
		bool ws = c == ' ' || c == '\t' || c == '\r' || c == '\n';
		bool digit = c >= '0' && c <= '9';
	again:
		switch (st) {
		case S_VALUE_OR_CLOSE:
			if (ws)
				continue;
			if (c == ']') {
				depth--;
				st = S_END;
				continue;
			}
			st = S_VALUE;
			goto again;
		case S_VALUE:
			if (ws)
				continue;
			if (c == '{' || c == '[') {
				if (depth == SCAN_DEPTH) {
					what = "exceeded max depth";
					goto bad;
				}
				stack[depth++] = c == '{' ? 'k' : 'a';
				st = c == '{' ? S_KEY_OR_CLOSE :
						S_VALUE_OR_CLOSE;
			} else if (c == '"') {
				st = S_STR;
			} else if (c == '-') {
				st = S_NEG;
			} else if (c == '0') {
				st = S_ZERO;
			} else if (c >= '1' && c <= '9') {
				st = S_INT;
			} else if (c == 't' || c == 'f' || c == 'n') {
				lit_name = c == 't' ? "true" :
				           c == 'f' ? "false" : "null";
				lit = lit_name + 1;
				st = S_LIT;
			} else {
				what = "looking for beginning of value";
				goto bad;
			}
			continue;
		case S_KEY_OR_CLOSE:
			if (ws)
				continue;
			if (c == '}') {
				depth--;
				st = S_END;
				continue;
			}
			st = S_KEY;
			goto again;
		case S_KEY:
			if (ws)
				continue;
			if (c != '"') {
				what = "looking for beginning of object key string";
				goto bad;
			}
			st = S_STR;
			continue;
		case S_END:
			if (ws)
				continue;
			if (!depth) {
				what = "after top-level value";
				goto bad;
			}
			if (stack[depth - 1] == 'k') {
				if (c != ':') {
					what = "after object key";
					goto bad;
				}
				stack[depth - 1] = 'v';
				st = S_VALUE;
			} else if (stack[depth - 1] == 'v') {
				if (c == ',') {
					stack[depth - 1] = 'k';
					st = S_KEY;
				} else if (c == '}') {
					depth--;
				} else {
					what = "after object key:value pair";
					goto bad;
				}
			} else if (c == ',') {
				st = S_VALUE;
			} else if (c == ']') {
				depth--;
			} else {
				what = "after array element";
				goto bad;
			}
			continue;
		case S_STR:
			if (c == '"')
				st = S_END;
			else if (c == '\\')
				st = S_ESC;
			else if (c < 0x20) {
				what = "in string literal";
				goto bad;
			}
			continue;
		case S_ESC:
			if (c == 'u') {
				u_left = 4;
				st = S_U;
			} else if (c && strchr("bfnrt\\/\"", c)) {
				st = S_STR;
			} else {
				what = "in string escape code";
				goto bad;
			}
			continue;
		case S_U:
			if (!isxdigit(c)) {
				what = "in \\u hexadecimal character escape";
				goto bad;
			}
			if (!--u_left)
				st = S_STR;
			continue;
		case S_NEG:
			if (c == '0')
				st = S_ZERO;
			else if (c >= '1' && c <= '9')
				st = S_INT;
			else {
				what = "in numeric literal";
				goto bad;
			}
			continue;
		case S_INT:
			if (digit)
				continue;
			st = S_ZERO;
			goto again;
		case S_ZERO:
			if (c == '.') {
				st = S_DOT;
				continue;
			}
			if (c == 'e' || c == 'E') {
				st = S_EXP;
				continue;
			}
			st = S_END;
			goto again;
		case S_DOT:
			if (!digit) {
				what = "after decimal point in numeric literal";
				goto bad;
			}
			st = S_FRAC;
			continue;
		case S_FRAC:
			if (digit)
				continue;
			if (c == 'e' || c == 'E') {
				st = S_EXP;
				continue;
			}
			st = S_END;
			goto again;
		case S_EXP:
			if (c == '+' || c == '-') {
				st = S_EXP_SIGN;
				continue;
			}
			st = S_EXP_SIGN;
			goto again;
		case S_EXP_SIGN:
			if (!digit) {
				what = "in exponent of numeric literal";
				goto bad;
			}
			st = S_EXP_DIGITS;
			continue;
		case S_EXP_DIGITS:
			if (digit)
				continue;
			st = S_END;
			goto again;
		case S_LIT:
			if (c != (unsigned char)*lit) {
				char q[16];
				go_quote_char(c, q, sizeof(q));
				snprintf(err, errlen,
					 BAD_TOKEN "invalid character %s in "
						   "literal %s (expecting '%c')",
					 q, lit_name, *lit);
				return -EINVAL;
			}
			if (!*++lit)
				st = S_END;
			continue;
		}
	}
	/* the end: a number may end here, nothing else but S_END at the
	 * top */
	if (!depth && (st == S_END || st == S_INT || st == S_ZERO ||
		       st == S_FRAC || st == S_EXP_DIGITS))
		return 0;
	snprintf(err, errlen, BAD_TOKEN "unexpected end of JSON input");
	return -EINVAL;
bad:
	if (!strcmp(what, "exceeded max depth")) {
		snprintf(err, errlen, BAD_TOKEN "exceeded max depth");
		return -EINVAL;
	}
	char q[16];
	go_quote_char(p[i], q, sizeof(q));
	snprintf(err, errlen, BAD_TOKEN "invalid character %s %s", q, what);
	return -EINVAL;
}

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
	long bad = b64_bad_offset(tok);
	if (bad >= 0) {
		snprintf(err, errlen,
			 BAD_TOKEN "illegal base64 data at input byte %ld", bad);
		goto out;
	}
	if (buf_base64url_decode(tok, strlen(tok), &raw)) {
		snprintf(err, errlen, BAD_TOKEN "illegal base64 data");
		goto out;
	}
	if (go_json_check((const unsigned char *)raw.p, raw.len, err, errlen))
		goto out;
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
