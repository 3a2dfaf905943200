/*
 * yaml: the apiserver's YAML form of a JSON answer (the rules: yaml.h).
 *
 * The JSON is tokenized (cache/json.h) and walked with an explicit stack,
 * each object's members sorted the way go-yaml sorts map keys, and the
 * walk is fed as events to libyaml's emitter, configured as go-yaml
 * configures its port of it (unicode, default width and indent). What
 * go-yaml decides itself (the requested style of each scalar, number
 * formatting, key order) is done here.
 */
#include "proxy/yaml.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>
#include <yaml.h>

#include "cache/json.h"
#include "config/alloc.h"

/* ---- which strings go-yaml quotes ---- */

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Go's getnum(s, false): one or two digits. */
static bool getnum(const char **p, const char *end, int *v)
{
	const char *s = *p;
	if (s >= end || !digit(*s))
		return false;
	*v = *s++ - '0';
	if (s < end && digit(*s))
		*v = *v * 10 + (*s++ - '0');
	*p = s;
	return true;
}

static int days_in(int month, int year)
{
	static const int d[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	if (month == 2 && ((year % 4 == 0 && year % 100) || year % 400 == 0))
		return 29;
	return d[month - 1];
}

/* go-yaml's parseTimestamp: time.Parse with "2006-1-2T15:4:5.999999999Z07:00"
 * (or a lower-case t), "2006-1-2 15:4:5.999999999" or "2006-1-2". */
static bool is_timestamp(const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	int year = 0, month, day, h, m, sec;
	if (len < 5)
		return false;
	for (int i = 0; i < 4; i++) {
		if (!digit(p[i]))
			return false;
		year = year * 10 + (p[i] - '0');
	}
	p += 4;
	if (*p++ != '-' || !getnum(&p, end, &month) || p >= end ||
	    *p++ != '-' || !getnum(&p, end, &day))
		return false;
	if (month < 1 || month > 12 || day < 1 || day > days_in(month, year))
		return false;
	if (p == end)
		return true;
	char sep = *p++;
	if (sep != 'T' && sep != 't' && sep != ' ')
		return false;
	if (!getnum(&p, end, &h) || p >= end || *p++ != ':' ||
	    !getnum(&p, end, &m) || p >= end || *p++ != ':' ||
	    !getnum(&p, end, &sec))
		return false;
	if (h > 23 || m > 59 || sec > 59)
		return false;
	if (end - p >= 2 && (*p == '.' || *p == ',') && digit(p[1]))
		for (p++; p < end && digit(*p); p++)
			;
	if (sep == ' ')
		return p == end;
	if (p < end && *p == 'Z')
		return p + 1 == end;
	if (end - p != 6 || (*p != '+' && *p != '-') || p[3] != ':' ||
	    !digit(p[1]) || !digit(p[2]) || !digit(p[4]) || !digit(p[5]))
		return false;
	return (p[1] - '0') * 10 + (p[2] - '0') <= 24 &&
	       (p[4] - '0') * 10 + (p[5] - '0') <= 60;
}

/* Go's strconv.ParseUint(s, base, 64) succeeds (base 0: a 0x, 0o, 0b or 0
 * prefix picks it). */
static bool go_parse_uint(const char *s, size_t n, int base, uint64_t *out)
{
	if (!n)
		return false;
	if (base == 0) {
		base = 10;
		if (s[0] == '0') {
			char c = n >= 3 ? (char)(s[1] | 0x20) : 0;
			if (c == 'b' || c == 'o' || c == 'x') {
				base = c == 'b' ? 2 : c == 'o' ? 8 : 16;
				s += 2;
				n -= 2;
			} else {
				base = 8;
				s++;
				n--;
			}
		}
	}
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		int d;
		char c = s[i];
		if (digit(c))
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
			d = (c | 0x20) - 'a' + 10;
		else
			return false;
		if (d >= base)
			return false;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return true;
}

/* Go's strconv.ParseInt(s, base, 64) succeeds. */
static bool go_parse_int(const char *s, size_t n, int base)
{
	bool neg = false;
	uint64_t v;
	if (n && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		s++;
		n--;
	}
	if (!go_parse_uint(s, n, base, &v))
		return false;
	return neg ? v <= (uint64_t)INT64_MAX + 1 : v <= (uint64_t)INT64_MAX;
}

/* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_style_float(const char *s, size_t n)
{
	size_t i = 0, d;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i < n && s[i] == '.') {
		for (d = ++i; i < n && digit(s[i]); i++)
			;
		if (i == d)
			return false;
	} else {
		for (d = i; i < n && digit(s[i]); i++)
			;
		if (i == d)
			return false;
		if (i < n && s[i] == '.')
			for (i++; i < n && digit(s[i]); i++)
				;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (d = i; i < n && digit(s[i]); i++)
			;
		if (i == d)
			return false;
	}
	return i == n;
}

/* A float text strtod reads without overflow (Go's ParseFloat errs then). */
static bool finite_float(const char *s, size_t n)
{
	char tmp[512];
	if (n >= sizeof(tmp))
		return true; /* digits only: too long to overflow matters not */
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return isfinite(strtod(tmp, NULL));
}

/* ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$ */
static bool base60_float(const char *s, size_t n)
{
	size_t i = 0;
	if (!memchr(s, ':', n))
		return false;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i >= n || !digit(s[i]))
		return false;
	for (i++; i < n && (digit(s[i]) || s[i] == '_'); i++)
		;
	int groups = 0;
	while (i < n && s[i] == ':') {
		i++;
		size_t d = i;
		while (i < n && digit(s[i]) && i - d < 2)
			i++;
		if (i == d || (i - d == 2 && s[d] > '5'))
			return false;
		groups++;
	}
	if (!groups)
		return false;
	if (i < n && s[i] == '.')
		for (i++; i < n && (digit(s[i]) || s[i] == '_'); i++)
			;
	return i == n;
}

static bool in_resolve_map(const char *s, size_t n)
{
	static const char *const words[] = {
		"y",	 "Y",	  "yes",   "Yes",   "YES",   "true",  "True",
		"TRUE",	 "on",	  "On",	   "ON",    "n",     "N",     "no",
		"No",	 "NO",	  "false", "False", "FALSE", "off",   "Off",
		"OFF",	 "~",	  "null",  "Null",  "NULL",  ".nan",  ".NaN",
		".NAN",	 ".inf",  ".Inf",  ".INF",  "+.inf", "+.Inf", "+.INF",
		"-.inf", "-.Inf", "-.INF",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && !memcmp(words[i], s, n))
			return true;
	return false;
}

bool proxy_yaml_needs_quotes(const char *s, size_t n)
{
	if (!n)
		return true; /* null */
	char c = s[0];
	bool sign = c == '+' || c == '-';
	if (!digit(c) && !sign && c != '.' && !strchr("yYnNtTfFoO~", c))
		return false; /* go-yaml's resolver does not look further */
	if (in_resolve_map(s, n))
		return true;
	if (c == '.') {
		/* Go's ParseFloat on ".5", ".5e3" */
		return yaml_style_float(s, n) && finite_float(s, n);
	}
	if (!digit(c) && !sign)
		return false;
	if (is_timestamp(s, n))
		return true;
	char *p = xmalloc(n + 1);
	if (!p)
		return true; /* quoting is always safe */
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '_')
			p[k++] = s[i];
	p[k] = '\0';
	uint64_t u;
	bool q = go_parse_int(p, k, 0) || go_parse_uint(p, k, 0, &u) ||
		 (yaml_style_float(p, k) && finite_float(p, k));
	if (!q && k > 2 && !strncmp(p, "0b", 2))
		q = go_parse_int(p + 2, k - 2, 2) ||
		    go_parse_uint(p + 2, k - 2, 2, &u);
	else if (!q && k > 3 && !strncmp(p, "-0b", 3)) {
		p[2] = '-';
		q = go_parse_int(p + 2, k - 2, 2);
	}
	free(p);
	return q || base60_float(s, n);
}

/* ---- numbers ---- */

/* Go's strconv.FormatFloat(v, 'g', -1, 64). */
static void go_float(double v, char *out, size_t cap)
{
	if (isinf(v)) {
		snprintf(out, cap, "%s", v > 0 ? ".inf" : "-.inf");
		return;
	}
	if (isnan(v)) {
		snprintf(out, cap, ".nan");
		return;
	}
	if (v == 0) {
		snprintf(out, cap, "%s", signbit(v) ? "-0" : "0");
		return;
	}
	char e[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec - 1, v);
		if (strtod(e, NULL) == v)
			break;
	}
	/* e: [-]d[.ddd]e[+-]xx: the shortest digits and the exponent */
	const char *p = e;
	bool neg = *p == '-';
	if (neg)
		p++;
	char digs[24];
	int nd = 0;
	for (; *p && *p != 'e'; p++)
		if (digit(*p))
			digs[nd++] = *p;
	while (nd > 1 && digs[nd - 1] == '0')
		nd--;
	int x = atoi(p + 1);
	struct buf b = BUF_INIT;
	if (neg)
		buf_addc(&b, '-');
	if (x < -4 || x >= 6) { /* Go's %e for the shortest digits */
		buf_addc(&b, digs[0]);
		if (nd > 1) {
			buf_addc(&b, '.');
			buf_add(&b, digs + 1, (size_t)nd - 1);
		}
		buf_printf(&b, "e%c%02d", x < 0 ? '-' : '+', abs(x));
	} else if (x < 0) {
		buf_adds(&b, "0.");
		for (int i = 0; i < -x - 1; i++)
			buf_addc(&b, '0');
		buf_add(&b, digs, (size_t)nd);
	} else {
		for (int i = 0; i <= x; i++)
			buf_addc(&b, i < nd ? digs[i] : '0');
		if (nd > x + 1) {
			buf_addc(&b, '.');
			buf_add(&b, digs + x + 1, (size_t)(nd - x - 1));
		}
	}
	snprintf(out, cap, "%s", buf_ok(&b) ? b.p : "0");
	buf_free(&b);
}

void proxy_yaml_number(struct buf *out, const char *num, size_t len)
{
	uint64_t u;
	char f[40];
	char *tmp = xmalloc(len + 1);
	if (!tmp) {
		buf_add(out, num, len); /* marks nothing: the caller checks */
		return;
	}
	memcpy(tmp, num, len);
	tmp[len] = '\0';
	if (!yaml_style_float(tmp, len)) {
		buf_add(out, num, len); /* not a JSON number: kept */
	} else if (go_parse_int(tmp, len, 0)) {
		buf_printf(out, "%lld", strtoll(tmp, NULL, 10));
	} else if (go_parse_uint(tmp, len, 0, &u)) {
		buf_printf(out, "%llu", (unsigned long long)u);
	} else {
		double v = strtod(tmp, NULL);
		if (isfinite(v)) {
			go_float(v, f, sizeof(f));
			buf_adds(out, f);
		} else { /* ParseFloat fails: go-yaml keeps the text */
			buf_add(out, num, len);
		}
	}
	free(tmp);
}

/* ---- key order ---- */

struct key {
	int tok; /* the key's token; its value is the next one */
	size_t pos;
	char *s; /* unescaped */
	size_t n;
	uint32_t *r; /* s as runes */
	size_t nr;
};

static locale_t utf8_locale;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_init(void)
{
	utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* Go's unicode.IsLetter, exact for ASCII. */
static bool is_letter(uint32_t r)
{
	if (r < 0x80)
		return (r | 0x20) >= 'a' && (r | 0x20) <= 'z';
	pthread_once(&utf8_once, utf8_init);
	return utf8_locale && iswalpha_l((wint_t)r, utf8_locale);
}

static bool is_digit_rune(uint32_t r)
{
	return r >= '0' && r <= '9';
}

/* s as code points; an invalid byte reads as U+FFFD, as in Go. */
static size_t runes(const char *s, size_t n, uint32_t *out)
{
	size_t k = 0;
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t c = p[i];
		size_t len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		if (c >= 0x80 && (c < 0xc2 || c > 0xf4 || i + len > n)) {
			out[k++] = 0xfffd;
			i++;
			continue;
		}
		if (len > 1) {
			c &= 0xff >> (len + 1);
			bool ok = true;
			for (size_t j = 1; j < len; j++) {
				if ((p[i + j] & 0xc0) != 0x80)
					ok = false;
				c = (c << 6) | (p[i + j] & 0x3f);
			}
			if (!ok) {
				out[k++] = 0xfffd;
				i++;
				continue;
			}
		}
		out[k++] = c;
		i += len;
	}
	return k;
}

/* go-yaml's keyList.Less on two strings. */
static bool key_less(const struct key *ka, const struct key *kb)
{
	const uint32_t *a = ka->r, *b = kb->r;
	size_t na = ka->nr, nb = kb->nr;
	for (size_t i = 0; i < na && i < nb; i++) {
		if (a[i] == b[i])
			continue;
		bool al = is_letter(a[i]), bl = is_letter(b[i]);
		if (al && bl)
			return a[i] < b[i];
		if (al || bl)
			return bl;
		int64_t an = 0, bn = 0;
		size_t ai, bi;
		if (a[i] == '0' || b[i] == '0') {
			for (size_t j = i; j-- > 0 && is_digit_rune(a[j]);) {
				if (a[j] != '0') {
					an = 1;
					bn = 1;
					break;
				}
			}
		}
		for (ai = i; ai < na && is_digit_rune(a[ai]); ai++)
			an = (int64_t)((uint64_t)an * 10 + (a[ai] - '0'));
		for (bi = i; bi < nb && is_digit_rune(b[bi]); bi++)
			bn = (int64_t)((uint64_t)bn * 10 + (b[bi] - '0'));
		if (an != bn)
			return an < bn;
		if (ai != bi)
			return ai < bi;
		return a[i] < b[i];
	}
	return na < nb;
}

/* Ties (equal keys) in member order. */
static bool key_before(const struct key *a, const struct key *b)
{
	if (key_less(a, b))
		return true;
	if (key_less(b, a))
		return false;
	return a->pos < b->pos;
}

/* Bytes, then member order: to find duplicates. */
static bool key_bytes_before(const struct key *a, const struct key *b)
{
	size_t n = a->n < b->n ? a->n : b->n;
	int c = memcmp(a->s, b->s, n);
	if (c || a->n != b->n)
		return c ? c < 0 : a->n < b->n;
	return a->pos < b->pos;
}

/* A merge sort: safe whatever the order's consistency. */
static void sort_keys(struct key *k, struct key *tmp, size_t n,
		      bool (*before)(const struct key *, const struct key *))
{
	if (n < 2)
		return;
	size_t h = n / 2;
	sort_keys(k, tmp, h, before);
	sort_keys(k + h, tmp, n - h, before);
	size_t i = 0, j = h, o = 0;
	while (i < h && j < n)
		tmp[o++] = before(&k[j], &k[i]) ? k[j++] : k[i++];
	while (i < h)
		tmp[o++] = k[i++];
	while (j < n)
		tmp[o++] = k[j++];
	memcpy(k, tmp, n * sizeof(*k));
}

static void keys_free(struct key *k, size_t n)
{
	for (size_t i = 0; k && i < n; i++) {
		free(k[i].s);
		free(k[i].r);
	}
	free(k);
}

/* The members of object obj in go-yaml's order, a duplicate key keeping
 * its last value. Returns 0 or -ENOMEM. */
static int keys_of(const struct json_doc *d, int obj, struct key **out,
		   size_t *nout)
{
	size_t n = 0, cap = (size_t)d->tok[obj].size;
	struct key *k = xcalloc(cap ? cap : 1, sizeof(*k));
	struct key *tmp = xcalloc(cap ? cap : 1, sizeof(*k));
	int r = -ENOMEM;
	if (!k || !tmp)
		goto out;
	for (int m = json_first(d, obj); m > 0 && n < cap;
	     m = json_next(d, obj, m)) {
		size_t len = json_str_len(d, m);
		struct key *e = &k[n++];
		e->tok = m;
		e->pos = n;
		e->s = xmalloc(len + 1);
		e->r = xmalloc((len + 1) * sizeof(uint32_t));
		if (!e->s || !e->r)
			goto out;
		int l = json_str(d, m, e->s, len + 1);
		e->n = l < 0 ? 0 : (size_t)l;
		e->nr = runes(e->s, e->n, e->r);
	}
	/* go-yaml sorts a map's keys: a duplicate is gone before (the last
	 * value kept), whatever the order makes of equal keys */
	sort_keys(k, tmp, n, key_bytes_before);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && k[i].n == k[i + 1].n &&
		    !memcmp(k[i].s, k[i + 1].s, k[i].n)) {
			free(k[i].s);
			free(k[i].r);
			continue; /* a later duplicate wins */
		}
		k[w++] = k[i];
	}
	n = w;
	sort_keys(k, tmp, n, key_before);
	r = 0;
out:
	free(tmp);
	if (r) {
		keys_free(k, n);
		k = NULL;
		n = 0;
	}
	*out = k;
	*nout = n;
	return r;
}

/* ---- events ---- */

struct emit {
	yaml_emitter_t em;
	bool ready;
	struct buf *out; /* where the emitter's bytes go now */
	int err;
};

static int emit_write(void *data, unsigned char *p, size_t n)
{
	struct emit *e = data;
	if (!e->out || buf_add(e->out, p, n)) {
		e->err = -ENOMEM;
		return 0;
	}
	return 1;
}

static int emit_init(struct emit *e)
{
	memset(e, 0, sizeof(*e));
	if (!yaml_emitter_initialize(&e->em))
		return -ENOMEM;
	e->ready = true;
	yaml_emitter_set_unicode(&e->em, 1);
	yaml_emitter_set_output(&e->em, emit_write, e);
	return 0;
}

static void emit_fini(struct emit *e)
{
	if (e->ready)
		yaml_emitter_delete(&e->em);
	e->ready = false;
}

static int emit_ev(struct emit *e, yaml_event_t *v, int made)
{
	if (e->err)
		return e->err;
	if (!made)
		return e->err = -ENOMEM;
	if (!yaml_emitter_emit(&e->em, v) && !e->err)
		e->err = -EINVAL;
	return e->err;
}

/* s with each invalid UTF-8 byte replaced by U+FFFD, into b. */
static void utf8_fix(struct buf *b, const char *s, size_t n)
{
	uint32_t *r = xmalloc((n + 1) * sizeof(*r));
	if (!r) {
		buf_add(b, "?", 1);
		return;
	}
	size_t k = runes(s, n, r);
	for (size_t i = 0; i < k; i++) {
		uint32_t c = r[i];
		char u[4];
		if (c < 0x80) {
			buf_addc(b, (char)c);
			continue;
		}
		if (c >= 0xd800 && c < 0xe000)
			c = 0xfffd;
		if (c < 0x800) {
			u[0] = (char)(0xc0 | (c >> 6));
			u[1] = (char)(0x80 | (c & 0x3f));
			buf_add(b, u, 2);
		} else if (c < 0x10000) {
			u[0] = (char)(0xe0 | (c >> 12));
			u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
			u[2] = (char)(0x80 | (c & 0x3f));
			buf_add(b, u, 3);
		} else {
			u[0] = (char)(0xf0 | (c >> 18));
			u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
			u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
			u[3] = (char)(0x80 | (c & 0x3f));
			buf_add(b, u, 4);
		}
	}
	free(r);
}

static int emit_scalar(struct emit *e, const char *s, size_t n,
		       yaml_scalar_style_t style)
{
	yaml_event_t v;
	if (e->err)
		return e->err;
	if (n > INT32_MAX)
		return e->err = -EINVAL;
	if (yaml_scalar_event_initialize(&v, NULL, NULL,
					 (yaml_char_t *)(uintptr_t)s, (int)n, 1,
					 1, style))
		return emit_ev(e, &v, 1);
	/* libyaml takes valid UTF-8 only (the apiserver's JSON always is) */
	struct buf fixed = BUF_INIT;
	utf8_fix(&fixed, s, n);
	int made = buf_ok(&fixed) &&
		   yaml_scalar_event_initialize(&v, NULL, NULL,
						(yaml_char_t *)fixed.p,
						(int)fixed.len, 1, 1, style);
	int r = emit_ev(e, &v, made);
	buf_free(&fixed);
	return r;
}

/* A string as go-yaml asks its emitter for it. */
static int emit_string(struct emit *e, const char *s, size_t n)
{
	yaml_scalar_style_t st = memchr(s, '\n', n) ?
					 YAML_LITERAL_SCALAR_STYLE :
				 proxy_yaml_needs_quotes(s, n) ?
					 YAML_DOUBLE_QUOTED_SCALAR_STYLE :
					 YAML_PLAIN_SCALAR_STYLE;
	return emit_scalar(e, s, n, st);
}

static int emit_plain(struct emit *e, const char *s)
{
	return emit_scalar(e, s, strlen(s), YAML_PLAIN_SCALAR_STYLE);
}

/* One open container of the walk. */
struct frame {
	int tok;
	bool obj;
	struct key *keys;
	size_t n, i;
	int next; /* an array's next element, or <= 0 */
};

struct walk {
	struct frame *f;
	size_t depth, cap;
};

/* Start value i: a scalar whole, a container opened (and pushed). */
static int emit_open(struct emit *e, struct walk *w, const struct json_doc *d,
		     int i)
{
	yaml_event_t v;
	int t = json_type(d, i);
	if (t == JSMN_STRING) {
		size_t len = json_str_len(d, i);
		char *s = xmalloc(len + 1);
		if (!s)
			return e->err = -ENOMEM;
		int l = json_str(d, i, s, len + 1);
		int r = emit_string(e, s, l < 0 ? 0 : (size_t)l);
		free(s);
		return r;
	}
	if (t == JSMN_PRIMITIVE) {
		size_t n;
		const char *raw = json_raw(d, i, &n);
		if (raw[0] == 't' || raw[0] == 'f' || raw[0] == 'n')
			return emit_scalar(e, raw, n, YAML_PLAIN_SCALAR_STYLE);
		struct buf num = BUF_INIT;
		proxy_yaml_number(&num, raw, n);
		int r = buf_ok(&num) ? emit_plain(e, num.p) :
				       (e->err = -ENOMEM);
		buf_free(&num);
		return r;
	}
	if (w->depth == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct frame *nf = xrealloc(w->f, cap * sizeof(*nf));
		if (!nf)
			return e->err = -ENOMEM;
		w->f = nf;
		w->cap = cap;
	}
	struct frame *f = &w->f[w->depth];
	memset(f, 0, sizeof(*f));
	f->tok = i;
	if (t == JSMN_OBJECT) {
		f->obj = true;
		if (keys_of(d, i, &f->keys, &f->n))
			return e->err = -ENOMEM;
		w->depth++;
		return emit_ev(
			e, &v,
			yaml_mapping_start_event_initialize(
				&v, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE));
	}
	f->next = json_first(d, i);
	w->depth++;
	return emit_ev(e, &v,
		       yaml_sequence_start_event_initialize(
			       &v, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE));
}

/* Value root of d, whole. */
static int emit_value(struct emit *e, const struct json_doc *d, int root)
{
	struct walk w = { 0 };
	yaml_event_t v;
	emit_open(e, &w, d, root);
	while (!e->err && w.depth) {
		struct frame *f = &w.f[w.depth - 1];
		if (f->obj && f->i < f->n) {
			struct key *k = &f->keys[f->i++];
			int val = k->tok + 1;
			if (!emit_string(e, k->s, k->n))
				emit_open(e, &w, d, val);
		} else if (!f->obj && f->next > 0) {
			int el = f->next;
			f->next = json_next(d, f->tok, el);
			emit_open(e, &w, d, el);
		} else {
			bool obj = f->obj;
			keys_free(f->keys, f->n);
			f->keys = NULL;
			w.depth--;
			if (obj)
				emit_ev(e, &v,
					yaml_mapping_end_event_initialize(&v));
			else
				emit_ev(e, &v,
					yaml_sequence_end_event_initialize(&v));
		}
	}
	for (; w.depth; w.depth--) /* after an error */
		keys_free(w.f[w.depth - 1].keys, w.f[w.depth - 1].n);
	free(w.f);
	return e->err;
}

static int emit_begin(struct emit *e)
{
	yaml_event_t v;
	emit_ev(e, &v,
		yaml_stream_start_event_initialize(&v, YAML_UTF8_ENCODING));
	return emit_ev(
		e, &v,
		yaml_document_start_event_initialize(&v, NULL, NULL, NULL, 1));
}

static int emit_end(struct emit *e)
{
	yaml_event_t v;
	emit_ev(e, &v, yaml_document_end_event_initialize(&v, 1));
	emit_ev(e, &v, yaml_stream_end_event_initialize(&v));
	if (!e->err && !yaml_emitter_flush(&e->em) && !e->err)
		e->err = -EINVAL;
	return e->err;
}

int proxy_yaml_from_json(struct buf *out, const char *js, size_t len)
{
	struct json_doc d = JSON_DOC_INIT;
	struct emit e;
	int r = json_parse(&d, js, len, NULL, 0);
	if (!r) {
		size_t at = out->len;
		r = emit_init(&e);
		if (!r) {
			e.out = out;
			emit_begin(&e);
			emit_value(&e, &d, 0);
			r = emit_end(&e);
			emit_fini(&e);
		}
		if (r && buf_ok(out))
			out->len = at; /* nothing half-written */
	}
	json_doc_free(&d);
	return r;
}

/* ---- a LIST ---- */

struct proxy_yaml_list {
	struct emit e;
	char *apiv, *kind, *meta;
	struct cache_obj *const *items;
	size_t n, i;
	int stage; /* 0: nothing yet, 1: in the items, 2: all given */
};

struct proxy_yaml_list *proxy_yaml_list_new(const char *api_version,
					    const char *kind, const char *meta,
					    struct cache_obj *const *items,
					    size_t n)
{
	struct proxy_yaml_list *l = xcalloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->apiv = strdup(api_version);
	l->kind = strdup(kind);
	l->meta = strdup(meta);
	l->items = items;
	l->n = n;
	if (!l->apiv || !l->kind || !l->meta || emit_init(&l->e)) {
		proxy_yaml_list_free(l);
		return NULL;
	}
	return l;
}

void proxy_yaml_list_free(struct proxy_yaml_list *l)
{
	if (!l)
		return;
	emit_fini(&l->e);
	free(l->apiv);
	free(l->kind);
	free(l->meta);
	free(l);
}

/* A document's whole value, parsed from js[0..len). */
static int emit_json(struct emit *e, const char *js, size_t len)
{
	struct json_doc d = JSON_DOC_INIT;
	int r = json_parse(&d, js, len, NULL, 0);
	if (r)
		e->err = r;
	else
		emit_value(e, &d, 0);
	json_doc_free(&d);
	return e->err;
}

bool proxy_yaml_list_next(struct proxy_yaml_list *l, struct buf *b, size_t want)
{
	struct emit *e = &l->e;
	yaml_event_t v;
	if (l->stage == 2)
		return false;
	size_t start = b->len;
	e->out = b;
	if (l->stage == 0) {
		emit_begin(e);
		emit_ev(e, &v,
			yaml_mapping_start_event_initialize(
				&v, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE));
		emit_plain(e, "apiVersion");
		emit_string(e, l->apiv, strlen(l->apiv));
		emit_plain(e, "items");
		emit_ev(e, &v,
			yaml_sequence_start_event_initialize(
				&v, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE));
		l->stage = 1;
	}
	struct buf item = BUF_INIT;
	while (!e->err && l->i < l->n && b->len - start < want) {
		const struct cache_obj *o = l->items[l->i++];
		buf_reset(&item);
		buf_addc(&item, '{');
		buf_add(&item, o->json + o->item_off, o->len - o->item_off);
		if (!buf_ok(&item))
			e->err = -ENOMEM;
		else
			emit_json(e, item.p, item.len);
		if (!e->err && !yaml_emitter_flush(&e->em) && !e->err)
			e->err = -EINVAL;
	}
	buf_free(&item);
	if (!e->err && l->i == l->n) {
		emit_ev(e, &v, yaml_sequence_end_event_initialize(&v));
		emit_plain(e, "kind");
		emit_string(e, l->kind, strlen(l->kind));
		emit_plain(e, "metadata");
		if (!e->err)
			emit_json(e, l->meta, strlen(l->meta));
		emit_ev(e, &v, yaml_mapping_end_event_initialize(&v));
		emit_end(e);
		l->stage = 2;
	}
	e->out = NULL;
	if (e->err)
		l->stage = 2;
	return b->len > start || l->stage != 2;
}
