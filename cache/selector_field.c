/*
 * selector_field: field selectors with the apiserver's grammar and error
 * messages (see selector.h).
 *
 * The parser follows k8s.io/apimachinery pkg/fields: split on unescaped
 * commas, sort the terms, split each on the first "!=", "==" or "=",
 * unescape the value, then check the field name against the ones the kind
 * supports. A parsed selector is never written again; matching asks the
 * caller for each field's value through a callback.
 */
#include "cache/selector.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cache/selector_int.h"
#include "config/alloc.h"

struct fterm {
	char *field;
	char *value;
	bool neg; /* != */
};

struct cache_fsel {
	size_t n;
	struct fterm *terms; /* in the sorted order of their text */
};

struct span {
	const char *p;
	size_t len;
};

/* Go's string order: bytewise, a prefix first. */
static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->p, y->p, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

/* fields.UnescapeValue into a new string: "\\" "\," "\=" only. */
static int unescape_value(const char *s, size_t n, char **out, struct msg *m)
{
	char *v = xmalloc(n + 1);
	size_t i, j = 0, l;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (s[i] == ',' || s[i] == '=') {
			msg_addf(m,
				 "invalid field selector: unescaped "
				 "character in value: %d",
				 s[i]);
			goto out_inval;
		}
		if (s[i] != '\\') {
			v[j++] = s[i];
			continue;
		}
		if (++i == n) {
			msg_add(m, "invalid field selector: invalid escape "
				   "sequence: \\");
			goto out_inval;
		}
		if (s[i] != '\\' && s[i] != ',' && s[i] != '=') {
			/* Go names the whole rune after the backslash, or
			 * U+FFFD for a byte that starts none. */
			msg_add(m, "invalid field selector: invalid escape "
				   "sequence: \\");
			l = utf8_len((const unsigned char *)s + i, n - i);
			if (l)
				msg_addn(m, s + i, l);
			else
				msg_add(m, "\xef\xbf\xbd");
			goto out_inval;
		}
		v[j++] = s[i];
	}
	v[j] = '\0';
	*out = v;
	return 0;
out_inval:
	free(v);
	return -EINVAL;
}

/* Split one term on the first "!=", "==" or "=", as fields.splitTerm. */
static int parse_term(const char *sel, struct span part, struct fterm *t,
		      struct msg *m)
{
	const char *s = part.p;
	size_t i, n = part.len, oplen = 0;
	int ret;

	for (i = 0; i < n; i++) {
		if (i + 1 < n && (s[i] == '!' || s[i] == '=') &&
		    s[i + 1] == '=') {
			oplen = 2;
			break;
		}
		if (s[i] == '=') {
			oplen = 1;
			break;
		}
	}
	if (!oplen) {
		msg_addf(m, "invalid selector: '%s'; can't understand '%.*s'",
			 sel, (int)n, s);
		return -EINVAL;
	}
	t->neg = s[i] == '!';
	t->field = xstrndup(s, i);
	if (!t->field)
		return -ENOMEM;
	ret = unescape_value(s + i + oplen, n - i - oplen, &t->value, m);
	if (ret) {
		free(t->field);
		t->field = NULL;
	}
	return ret;
}

static bool field_known(const char *f, const char *const *extra)
{
	if (!strcmp(f, "metadata.name") || !strcmp(f, "metadata.namespace"))
		return true;
	for (; extra && *extra; extra++)
		if (!strcmp(f, *extra))
			return true;
	return false;
}

void cache_selector_field_free(struct cache_fsel *sel)
{
	size_t i;

	if (!sel)
		return;
	for (i = 0; i < sel->n; i++) {
		free(sel->terms[i].field);
		free(sel->terms[i].value);
	}
	free(sel->terms);
	free(sel);
}

/*
 * Go parses every term before it checks any field name, so a syntax error
 * anywhere wins over an unknown field; and it sorts the terms first, so
 * of two bad terms the one that sorts first is reported.
 */
static int fsel_parse(const char *s, const char *const *extra,
		      struct cache_fsel *sel, struct msg *m)
{
	struct span *parts;
	size_t i, nparts = 1, start = 0;
	bool slash = false;
	int ret = 0;

	for (i = 0; s[i]; i++)
		nparts += s[i] == ',';
	parts = xcalloc(nparts, sizeof(*parts));
	if (!parts)
		return -ENOMEM;
	nparts = 0;
	for (i = 0;; i++) {
		if (!s[i] || (s[i] == ',' && !slash)) {
			parts[nparts].p = s + start;
			parts[nparts++].len = i - start;
			start = i + 1;
		}
		if (!s[i])
			break;
		slash = !slash && s[i] == '\\';
	}
	qsort(parts, nparts, sizeof(*parts), cmp_span);

	sel->terms = xcalloc(nparts, sizeof(*sel->terms));
	if (!sel->terms) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nparts; i++) {
		if (!parts[i].len)
			continue;
		ret = parse_term(s, parts[i], &sel->terms[sel->n], m);
		if (ret)
			goto out;
		sel->n++;
	}
	for (i = 0; i < sel->n; i++) {
		if (!field_known(sel->terms[i].field, extra)) {
			msg_addf(m, "field label not supported: %s",
				 sel->terms[i].field);
			ret = -EINVAL;
			goto out;
		}
	}
out:
	free(parts);
	return ret;
}

int cache_selector_field_parse(const char *s, const char *const *extra,
			       struct cache_fsel **out, char *err,
			       size_t errlen)
{
	struct cache_fsel *sel;
	struct msg m;
	int ret;

	*out = NULL;
	msg_init(&m, err, errlen);
	sel = xcalloc(1, sizeof(*sel));
	if (!sel) {
		ret = -ENOMEM;
		goto out;
	}
	ret = s && *s ? fsel_parse(s, extra, sel, &m) : 0;
	if (ret)
		goto out;
	*out = sel;
	sel = NULL; /* the caller owns it now */
out:
	if (ret == -ENOMEM) {
		msg_init(&m, err, errlen);
		msg_add(&m, "out of memory");
	}
	cache_selector_field_free(sel);
	return ret;
}

bool cache_selector_field_match(const struct cache_fsel *sel,
				const char *(*get)(const void *ctx,
						   const char *field),
				const void *ctx)
{
	size_t i;

	for (i = 0; sel && i < sel->n; i++) {
		const char *v = get(ctx, sel->terms[i].field);

		if (!v)
			v = "";
		if ((strcmp(v, sel->terms[i].value) == 0) == sel->terms[i].neg)
			return false;
	}
	return true;
}

bool cache_selector_field_empty(const struct cache_fsel *sel)
{
	return !sel || sel->n == 0;
}

const char *cache_selector_field_eq(const struct cache_fsel *sel,
				    const char *field)
{
	size_t i;

	for (i = 0; sel && i < sel->n; i++)
		if (!sel->terms[i].neg && !strcmp(sel->terms[i].field, field))
			return sel->terms[i].value;
	return NULL;
}
