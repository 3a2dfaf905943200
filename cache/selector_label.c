/*
 * selector_label: label selectors with the apiserver's grammar and error
 * messages (see selector.h).
 *
 * The parser follows k8s.io/apimachinery pkg/labels: a lexer that knows
 * the tokens = == != ! ( ) , < > in notin and identifiers, and a
 * recursive-descent parser whose error texts are the Go ones, byte for
 * byte, including the "<nil>: Invalid value: ..." form of a bad key and
 * the "values[0][key]: ..." form of a bad value. Keys and values are
 * checked as content.IsLabelKey and content.IsLabelValue do. A parsed
 * selector is never written again; matching binary-searches the object's
 * sorted labels.
 */
#include "cache/selector.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/selector_int.h"
#include "config/alloc.h"

/* Go's %q of a string, close enough: printable ASCII and valid UTF-8
 * as is, the usual backslash escapes, \xNN for anything else. */
static void msg_quote(struct msg *m, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, l;

	msg_add(m, "\"");
	while (i < n) {
		unsigned char c = u[i];

		switch (c) {
		case '"':
			msg_add(m, "\\\"");
			break;
		case '\\':
			msg_add(m, "\\\\");
			break;
		case '\a':
			msg_add(m, "\\a");
			break;
		case '\b':
			msg_add(m, "\\b");
			break;
		case '\f':
			msg_add(m, "\\f");
			break;
		case '\n':
			msg_add(m, "\\n");
			break;
		case '\r':
			msg_add(m, "\\r");
			break;
		case '\t':
			msg_add(m, "\\t");
			break;
		case '\v':
			msg_add(m, "\\v");
			break;
		default:
			if (c >= 0x20 && c < 0x7f) {
				msg_addn(m, s + i, 1);
			} else if (c >= 0x80 && (l = utf8_len(u + i, n - i))) {
				msg_addn(m, s + i, l);
				i += l;
				continue;
			} else {
				msg_addf(m, "\\x%02x", c);
			}
		}
		i++;
	}
	msg_add(m, "\"");
}

/* ------------------------------------------------------------------ */
/* Label keys and values (k8s.io/apimachinery validation)              */

#define LABEL_NAME_MAX 63
#define LABEL_VALUE_MAX 63
#define DNS1123_SUBDOMAIN_MAX 253

static const char label_key_re_msg[] =
	"must consist of alphanumeric characters, '-', '_' or '.', and must "
	"start and end with an alphanumeric character (e.g. 'MyName',  or "
	"'my.name',  or '123-abc', regex used for validation is "
	"'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
static const char dns1123_subdomain_re_msg[] =
	"a lowercase RFC 1123 subdomain must consist of lower case "
	"alphanumeric characters, '-' or '.', and must start and end with an "
	"alphanumeric character (e.g. 'example.com', regex used for "
	"validation is "
	"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
static const char label_value_re_msg[] =
	"a valid label must be an empty string or consist of alphanumeric "
	"characters, '-', '_' or '.', and must start and end with an "
	"alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
	"'12345', regex used for validation is "
	"'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]: the name part of a key, and
 * (when non-empty) a label value. */
static bool label_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
		return false;
	for (i = 1; i + 1 < n; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' &&
		    s[i] != '.')
			return false;
	return true;
}

/* Dot-separated RFC 1123 labels: [a-z0-9]([-a-z0-9]*[a-z0-9])? each. */
static bool dns1123_subdomain_ok(const char *s, size_t n)
{
	size_t i, start = 0;

	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '.') {
			if (!is_lower_alnum(s[i]) && s[i] != '-')
				return false;
			continue;
		}
		if (i == start || !is_lower_alnum(s[start]) ||
		    !is_lower_alnum(s[i - 1]))
			return false;
		start = i + 1;
	}
	return true;
}

static void join(struct msg *m, int *nerr, const char *s)
{
	if (m) {
		if ((*nerr)++)
			msg_add(m, "; ");
		msg_add(m, s);
	} else {
		(*nerr)++;
	}
}

/*
 * Check a label key as content.IsLabelKey does. Returns how many problems
 * it found; with m, also writes them joined by "; ".
 */
static int label_key_errors(const char *k, size_t n, struct msg *m)
{
	const char *slash = memchr(k, '/', n);
	const char *name = k;
	size_t nlen = n;
	int nerr = 0;

	if (slash) {
		size_t plen = (size_t)(slash - k);

		if (memchr(slash + 1, '/', n - plen - 1)) {
			join(m, &nerr, "a valid label key ");
			if (m) {
				msg_add(m, label_key_re_msg);
				msg_add(m, " with an optional DNS subdomain "
					   "prefix and '/' (e.g. "
					   "'example.com/MyName')");
			}
			return nerr;
		}
		if (plen == 0) {
			join(m, &nerr, "prefix part must be non-empty");
		} else {
			if (plen > DNS1123_SUBDOMAIN_MAX)
				join(m, &nerr,
				     "prefix part must be no more "
				     "than 253 bytes");
			if (!dns1123_subdomain_ok(k, plen)) {
				join(m, &nerr, "prefix part ");
				if (m)
					msg_add(m, dns1123_subdomain_re_msg);
			}
		}
		name = slash + 1;
		nlen = n - plen - 1;
	}
	if (nlen == 0)
		join(m, &nerr, "name part must be non-empty");
	else if (nlen > LABEL_NAME_MAX)
		join(m, &nerr, "name part must be no more than 63 bytes");
	if (!label_name_ok(name, nlen)) {
		join(m, &nerr, "name part ");
		if (m)
			msg_add(m, label_key_re_msg);
	}
	return nerr;
}

/* As content.IsLabelValue: count, and with m write, the problems. */
static int label_value_errors(const char *v, struct msg *m)
{
	size_t n = strlen(v);
	int nerr = 0;

	if (n > LABEL_VALUE_MAX)
		join(m, &nerr, "must be no more than 63 bytes");
	if (n && !label_name_ok(v, n))
		join(m, &nerr, label_value_re_msg);
	return nerr;
}

/* strconv.ParseInt(s, 10, 64): optional sign, decimal digits, in range. */
static bool parse_int64(const char *s, long long *out)
{
	unsigned long long v = 0, lim = (unsigned long long)INT64_MAX;
	bool neg = false;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (!*s)
		return false;
	if (neg)
		lim++;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (lim - (unsigned long long)(*s - '0')) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	*out = neg ? (long long)(0 - v) : (long long)v;
	return true;
}

/* ------------------------------------------------------------------ */
/* Label selectors                                                     */

enum lop {
	OP_IN,
	OP_NOTIN,
	OP_EQ,
	OP_DEQ,
	OP_NEQ,
	OP_GT,
	OP_LT,
	OP_EXISTS,
	OP_NOTEXISTS,
};

struct lreq {
	char *key;
	enum lop op;
	size_t nvals;
	char **vals;   /* sorted, no duplicates */
	long long num; /* the bound of OP_GT and OP_LT */
};

struct cache_lsel {
	size_t n;
	struct lreq *reqs; /* sorted by key, stable */
};

enum tok {
	T_END,
	T_ID,
	T_IN,
	T_NOTIN,
	T_NOT, /* ! */
	T_EQ,  /* = */
	T_DEQ, /* == */
	T_NEQ, /* != */
	T_GT,  /* > */
	T_LT,  /* < */
	T_OPAR,
	T_CPAR,
	T_COMMA,
};

struct token {
	enum tok t;
	const char *p; /* the literal, in the input */
	int len;
};

/* In the Values context, "in" and "notin" are plain identifiers. */
enum lctx {
	CTX_OP,
	CTX_VALUES
};

struct lparser {
	const char *s;
	size_t pos;
	bool in_req; /* errors get "unable to parse requirement: " */
	struct msg m;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_special(char c)
{
	return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' ||
	       c == '>' || c == '<';
}

/* The token at *pos; advances *pos past it. */
static struct token lex(const char *s, size_t *pos, enum lctx ctx)
{
	struct token t = { T_END, s + *pos, 0 };
	size_t i = *pos;

	while (is_space(s[i]))
		i++;
	t.p = s + i;
	if (!s[i]) {
		*pos = i;
		return t;
	}
	if (is_special(s[i])) {
		/* Longest match among the operators; only "==" and "!="
		 * are two characters long. */
		switch (s[i]) {
		case '=':
			t.t = T_EQ;
			break;
		case '!':
			t.t = T_NOT;
			break;
		case '(':
			t.t = T_OPAR;
			break;
		case ')':
			t.t = T_CPAR;
			break;
		case ',':
			t.t = T_COMMA;
			break;
		case '>':
			t.t = T_GT;
			break;
		case '<':
			t.t = T_LT;
			break;
		}
		t.len = 1;
		if (s[i + 1] == '=' && (s[i] == '=' || s[i] == '!')) {
			t.t = s[i] == '=' ? T_DEQ : T_NEQ;
			t.len = 2;
		}
		*pos = i + (size_t)t.len;
		return t;
	}
	while (s[i] && !is_special(s[i]) && !is_space(s[i]))
		i++;
	t.len = (int)(s + i - t.p);
	t.t = T_ID;
	if (ctx == CTX_OP && t.len == 2 && !memcmp(t.p, "in", 2))
		t.t = T_IN;
	else if (ctx == CTX_OP && t.len == 5 && !memcmp(t.p, "notin", 5))
		t.t = T_NOTIN;
	*pos = i;
	return t;
}

static struct token peek(struct lparser *p, enum lctx ctx)
{
	size_t pos = p->pos;

	return lex(p->s, &pos, ctx);
}

static struct token next(struct lparser *p, enum lctx ctx)
{
	return lex(p->s, &p->pos, ctx);
}

/* Write "found 'LIT'" plus what was expected; returns -EINVAL. */
static int found(struct lparser *p, struct token t, const char *expected)
{
	if (p->in_req)
		msg_add(&p->m, "unable to parse requirement: ");
	msg_addf(&p->m, "found '%.*s'%s", t.len, t.p, expected);
	return -EINVAL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void lreq_clear(struct lreq *r)
{
	size_t i;

	free(r->key);
	for (i = 0; i < r->nvals; i++)
		free(r->vals[i]);
	free(r->vals);
	memset(r, 0, sizeof(*r));
}

static int lreq_add_value(struct lreq *r, const char *s, size_t n)
{
	char **v;
	char *dup;

	v = xrealloc(r->vals, (r->nvals + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->vals = v;
	dup = xstrndup(s, n);
	if (!dup)
		return -ENOMEM;
	r->vals[r->nvals++] = dup;
	return 0;
}

/* Go keeps values in a set and reads them back sorted. */
static void lreq_sort_values(struct lreq *r)
{
	size_t i, j;

	qsort(r->vals, r->nvals, sizeof(*r->vals), cmp_str);
	for (i = j = 0; i < r->nvals; i++) {
		if (j && !strcmp(r->vals[j - 1], r->vals[i]))
			free(r->vals[i]);
		else
			r->vals[j++] = r->vals[i];
	}
	r->nvals = j;
}

/* "(a,b,,c)" as parseValues and parseIdentifiersList read it. */
static int parse_values(struct lparser *p, struct lreq *r)
{
	struct token t = next(p, CTX_VALUES);
	int ret;

	if (t.t != T_OPAR)
		return found(p, t, " expected: '('");
	t = peek(p, CTX_VALUES);
	if (t.t == T_CPAR) {
		next(p, CTX_VALUES);
		return lreq_add_value(r, "", 0);
	}
	if (t.t != T_ID && t.t != T_COMMA)
		return found(p, t, ", expected: ',', ')' or identifier");
	for (;;) {
		t = next(p, CTX_VALUES);
		if (t.t == T_ID) {
			ret = lreq_add_value(r, t.p, (size_t)t.len);
			if (ret)
				return ret;
			t = peek(p, CTX_VALUES);
			if (t.t == T_CPAR)
				break;
			if (t.t != T_COMMA)
				return found(p, t, ", expected: ',' or ')'");
		} else if (t.t == T_COMMA) {
			/* "(," ",)" and ",," stand for the empty value. */
			t = peek(p, CTX_VALUES);
			if (r->nvals == 0 || t.t == T_CPAR || t.t == T_COMMA) {
				ret = lreq_add_value(r, "", 0);
				if (ret)
					return ret;
			}
			if (t.t == T_CPAR)
				break;
			if (t.t == T_COMMA)
				next(p, CTX_VALUES);
		} else {
			return found(p, t, ", expected: ',', or identifier");
		}
	}
	next(p, CTX_VALUES); /* the ')' */
	return 0;
}

/* The one value after = == != > <; nothing before ',' or the end is "". */
static int parse_exact_value(struct lparser *p, struct lreq *r)
{
	struct token t = peek(p, CTX_VALUES);

	if (t.t == T_END || t.t == T_COMMA)
		return lreq_add_value(r, "", 0);
	t = next(p, CTX_VALUES);
	if (t.t != T_ID)
		return found(p, t, ", expected: identifier");
	return lreq_add_value(r, t.p, (size_t)t.len);
}

/*
 * NewRequirement's checks on a parsed requirement: Gt/Lt take one
 * integer, and every value must be a valid label value. Several problems
 * are reported as Go's aggregate does, "[a, b]".
 */
static int check_values(struct lparser *p, struct lreq *r)
{
	bool want_int = r->op == OP_GT || r->op == OP_LT;
	bool bad_int = want_int && !parse_int64(r->vals[0], &r->num);
	int nerr = bad_int;
	size_t i;

	for (i = 0; i < r->nvals; i++)
		nerr += label_value_errors(r->vals[i], NULL) ? 1 : 0;
	if (!nerr)
		return 0;

	msg_add(&p->m, "unable to parse requirement: ");
	if (nerr > 1)
		msg_add(&p->m, "[");
	nerr = 0;
	if (bad_int) {
		msg_add(&p->m, "values[0]: Invalid value: ");
		msg_quote(&p->m, r->vals[0], strlen(r->vals[0]));
		msg_add(&p->m, ": for 'Gt', 'Lt' operators, the value must "
			       "be an integer");
		nerr++;
	}
	for (i = 0; i < r->nvals; i++) {
		if (!label_value_errors(r->vals[i], NULL))
			continue;
		if (nerr++)
			msg_add(&p->m, ", ");
		msg_addf(&p->m, "values[%zu][%s]: Invalid value: ", i, r->key);
		msg_quote(&p->m, r->vals[i], strlen(r->vals[i]));
		msg_add(&p->m, ": ");
		label_value_errors(r->vals[i], &p->m);
	}
	if (nerr > 1)
		msg_add(&p->m, "]");
	return -EINVAL;
}

/* [!]KEY [op values]: parseRequirement and parseKeyAndInferOperator. */
static int parse_requirement(struct lparser *p, struct lreq *r)
{
	struct token t = next(p, CTX_VALUES);
	bool not = false;
	int ret;

	p->in_req = true;
	if (t.t == T_NOT) {
		not = true;
		t = next(p, CTX_VALUES);
	}
	if (t.t != T_ID)
		return found(p, t, ", expected: identifier");
	if (label_key_errors(t.p, (size_t)t.len, NULL)) {
		msg_add(&p->m, "unable to parse requirement: <nil>: Invalid "
			       "value: ");
		msg_quote(&p->m, t.p, (size_t)t.len);
		msg_add(&p->m, ": ");
		label_key_errors(t.p, (size_t)t.len, &p->m);
		return -EINVAL;
	}
	r->key = xstrndup(t.p, (size_t)t.len);
	if (!r->key)
		return -ENOMEM;

	/* "!k" is complete whatever follows; the caller then insists on
	 * ',' or the end. */
	t = peek(p, CTX_VALUES);
	if (not || t.t == T_END || t.t == T_COMMA) {
		r->op = not ? OP_NOTEXISTS : OP_EXISTS;
		return 0;
	}

	t = next(p, CTX_OP);
	switch (t.t) {
	case T_IN:
		r->op = OP_IN;
		break;
	case T_NOTIN:
		r->op = OP_NOTIN;
		break;
	case T_EQ:
		r->op = OP_EQ;
		break;
	case T_DEQ:
		r->op = OP_DEQ;
		break;
	case T_NEQ:
		r->op = OP_NEQ;
		break;
	case T_GT:
		r->op = OP_GT;
		break;
	case T_LT:
		r->op = OP_LT;
		break;
	default:
		return found(p, t, ", expected: in, notin, =, ==, !=, gt, lt");
	}
	if (r->op == OP_IN || r->op == OP_NOTIN)
		ret = parse_values(p, r);
	else
		ret = parse_exact_value(p, r);
	if (ret)
		return ret;
	lreq_sort_values(r);
	return check_values(p, r);
}

void cache_selector_label_free(struct cache_lsel *sel)
{
	size_t i;

	if (!sel)
		return;
	for (i = 0; i < sel->n; i++)
		lreq_clear(&sel->reqs[i]);
	free(sel->reqs);
	free(sel);
}

/* Stable insertion sort by key: Go sorts requirements by key. */
static void sort_reqs(struct cache_lsel *sel)
{
	size_t i, j;

	for (i = 1; i < sel->n; i++) {
		struct lreq r = sel->reqs[i];

		for (j = i; j > 0 && strcmp(sel->reqs[j - 1].key, r.key) > 0;
		     j--)
			sel->reqs[j] = sel->reqs[j - 1];
		sel->reqs[j] = r;
	}
}

static int lsel_parse(struct lparser *p, struct cache_lsel *sel)
{
	struct token t;
	struct lreq *reqs;
	int ret;

	for (;;) {
		t = peek(p, CTX_VALUES);
		if (t.t == T_END)
			return 0;
		if (t.t != T_ID && t.t != T_NOT)
			return found(p, t,
				     ", expected: !, identifier, or "
				     "'end of string'");

		reqs = xrealloc(sel->reqs, (sel->n + 1) * sizeof(*reqs));
		if (!reqs)
			return -ENOMEM;
		sel->reqs = reqs;
		memset(&reqs[sel->n], 0, sizeof(*reqs));
		ret = parse_requirement(p, &reqs[sel->n]);
		if (ret) {
			lreq_clear(&reqs[sel->n]);
			return ret;
		}
		sel->n++;
		p->in_req = false;

		t = next(p, CTX_VALUES);
		if (t.t == T_END)
			return 0;
		if (t.t != T_COMMA)
			return found(p, t,
				     ", expected: ',' or 'end of "
				     "string'");
		t = peek(p, CTX_VALUES);
		if (t.t != T_ID && t.t != T_NOT)
			return found(p, t, ", expected: identifier after ','");
	}
}

int cache_selector_label_parse(const char *s, struct cache_lsel **out,
			       char *err, size_t errlen)
{
	struct lparser p = { .s = s ? s : "" };
	struct cache_lsel *sel;
	int ret;

	*out = NULL;
	msg_init(&p.m, err, errlen);
	sel = xcalloc(1, sizeof(*sel));
	if (!sel) {
		ret = -ENOMEM;
		goto out;
	}
	ret = lsel_parse(&p, sel);
	if (ret)
		goto out;
	sort_reqs(sel);
	*out = sel;
	sel = NULL; /* the caller owns it now */
out:
	if (ret == -ENOMEM) {
		msg_init(&p.m, err, errlen);
		msg_add(&p.m, "out of memory");
	}
	cache_selector_label_free(sel);
	return ret;
}

static const char *label_get(const struct cache_label *labels, size_t n,
			     const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(labels[mid].key, key);

		if (c == 0)
			return labels[mid].val ? labels[mid].val : "";
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool has_value(const struct lreq *r, const char *v)
{
	return bsearch(&v, r->vals, r->nvals, sizeof(*r->vals), cmp_str);
}

static bool lreq_match(const struct lreq *r, const struct cache_label *labels,
		       size_t n)
{
	const char *v = label_get(labels, n, r->key);
	long long num;

	switch (r->op) {
	case OP_IN:
	case OP_EQ:
	case OP_DEQ:
		return v && has_value(r, v);
	case OP_NOTIN:
	case OP_NEQ:
		return !v || !has_value(r, v);
	case OP_EXISTS:
		return v;
	case OP_NOTEXISTS:
		return !v;
	case OP_GT:
	case OP_LT:
		if (!v || !parse_int64(v, &num))
			return false;
		return r->op == OP_GT ? num > r->num : num < r->num;
	}
	return false;
}

bool cache_selector_label_match(const struct cache_lsel *sel,
				const struct cache_label *labels, size_t n)
{
	size_t i;

	for (i = 0; sel && i < sel->n; i++)
		if (!lreq_match(&sel->reqs[i], labels, n))
			return false;
	return true;
}

bool cache_selector_label_empty(const struct cache_lsel *sel)
{
	return !sel || sel->n == 0;
}

const char *cache_selector_label_eq(const struct cache_lsel *sel,
				    const char **key)
{
	size_t i;

	for (i = 0; sel && i < sel->n; i++) {
		const struct lreq *r = &sel->reqs[i];

		if (r->op == OP_EQ || r->op == OP_DEQ) {
			if (key)
				*key = r->key;
			return r->vals[0];
		}
	}
	return NULL;
}
