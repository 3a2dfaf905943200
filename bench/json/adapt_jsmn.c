/*
 * adapt_jsmn: the jsmn adapter of the JSON benchmark (see bench_json.h).
 *
 * jsmn is a tokenizer: one flat array of tokens with start/end offsets and
 * child counts, no tree and no decoding. An item's bytes are its token's
 * span in the input; its strings are handed out still escaped, so the
 * ones holding a backslash are counted (the cache would have to unescape
 * them). jsmn allocates nothing; its memory is the token array, which
 * grows on demand and is kept from one parse to the next.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include "bench_json.h"

static jsmntok_t *toks;
static unsigned toks_cap, toks_used;

static int jsmn_grow(void)
{
	unsigned cap = toks_cap ? toks_cap * 2 : 4096;
	jsmntok_t *t = realloc(toks, cap * sizeof(*t));

	if (!t)
		return -ENOMEM;
	toks = t;
	toks_cap = cap;
	return 0;
}

/* Tokenize p[0..n); the token array grows and is kept for the next call,
 * as a reflector would keep one. Returns the token count or -errno. */
static int jsmn_run(const char *p, size_t n)
{
	jsmn_parser ps;

	jsmn_init(&ps);
	for (;;) {
		/* with tokens == NULL jsmn only counts: never pass it that */
		if (toks_cap == 0 && jsmn_grow())
			return -ENOMEM;
		int r = jsmn_parse(&ps, p, n, toks, toks_cap);
		if (r >= 0) {
			toks_used = (unsigned)r;
			/* jsmn alone accepts "{} {}" and a truncated tail
			 * after a complete value; insist on one value. */
			if (r == 0 || toks[0].type != JSMN_OBJECT ||
			    (size_t)toks[0].end != n)
				return -EINVAL;
			return r;
		}
		if (r != JSMN_ERROR_NOMEM)
			return -EINVAL;
		/* jsmn resumes where it stopped once given more tokens */
		if (jsmn_grow())
			return -ENOMEM;
	}
}

/* The index of the first token after the subtree rooted at i. */
static int jsmn_skip(const jsmntok_t *t, int n, int i)
{
	int end = t[i].end;

	for (i++; i < n && t[i].start < end; i++)
		;
	return i;
}

static bool jsmn_key(const char *p, const jsmntok_t *k, const char *s,
		     size_t len)
{
	return k->type == JSMN_STRING && (size_t)(k->end - k->start) == len &&
	       memcmp(p + k->start, s, len) == 0;
}

#define KEY(p, k, lit) jsmn_key((p), (k), (lit), sizeof(lit) - 1)

static unsigned jsmn_escaped; /* extracted strings holding a backslash */

/* jsmn hands out raw (still escaped) string bytes; the cache would have
 * to unescape any with a backslash. Counted so the figure is honest. */
static struct strv jsmn_str(const char *p, const jsmntok_t *t)
{
	struct strv v = { p + t->start, (size_t)(t->end - t->start) };

	if (t->type != JSMN_STRING)
		return (struct strv){ NULL, 0 };
	if (memchr(v.p, '\\', v.n))
		jsmn_escaped++;
	return v;
}

/* Item object at token i: span and metadata; returns the next token. */
static int jsmn_item(const char *p, const jsmntok_t *t, int n, int i,
		     struct meta *m, struct sink *s)
{
	int k = i + 1, pairs = t[i].size;

	sink_span(s, p + t[i].start, (size_t)(t[i].end - t[i].start));
	for (int a = 0; a < pairs; a++) {
		int v = k + 1;
		if (KEY(p, &t[k], "metadata") && t[v].type == JSMN_OBJECT) {
			int mk = v + 1, mpairs = t[v].size;
			for (int b = 0; b < mpairs; b++) {
				const jsmntok_t *key = &t[mk],
						*val = &t[mk + 1];
				if (KEY(p, key, "name"))
					m->name = jsmn_str(p, val);
				else if (KEY(p, key, "namespace"))
					m->ns = jsmn_str(p, val);
				else if (KEY(p, key, "uid"))
					m->uid = jsmn_str(p, val);
				else if (KEY(p, key, "resourceVersion"))
					m->rv = jsmn_str(p, val);
				else if (KEY(p, key, "labels") &&
					 val->type == JSMN_OBJECT) {
					int lk = mk + 2;
					for (int c = 0; c < val->size; c++) {
						struct strv kk =
							jsmn_str(p, &t[lk]);
						struct strv vv =
							jsmn_str(p, &t[lk + 1]);
						if (vv.p)
							meta_label(m, kk.p,
								   kk.n, vv.p,
								   vv.n);
						lk = jsmn_skip(t, n, lk + 1);
					}
				}
				mk = jsmn_skip(t, n, mk + 1);
			}
		}
		k = jsmn_skip(t, n, v);
	}
	sink_meta(s, m);
	return k;
}

int jm_list(const char *p, size_t len, struct sink *s)
{
	int n = jsmn_run(p, len);

	if (n < 0)
		return n;
	probe_after_parse();
	const jsmntok_t *t = toks;
	int k = 1;
	for (int a = 0; a < t[0].size; a++) {
		int v = k + 1;
		if (KEY(p, &t[k], "items") && t[v].type == JSMN_ARRAY) {
			int e = v + 1;
			for (int b = 0; b < t[v].size; b++) {
				struct meta m = { 0 };
				if (t[e].type == JSMN_OBJECT)
					e = jsmn_item(p, t, n, e, &m, s);
				else
					e = jsmn_skip(t, n, e);
			}
		}
		k = jsmn_skip(t, n, v);
	}
	return 0;
}

int jm_event(const char *p, size_t len, struct sink *s)
{
	int n = jsmn_run(p, len);
	struct meta m = { 0 };
	int obj = -1;

	if (n < 0)
		return n;
	probe_after_parse();
	const jsmntok_t *t = toks;
	int k = 1;
	for (int a = 0; a < t[0].size; a++) {
		if (KEY(p, &t[k], "type"))
			m.type = jsmn_str(p, &t[k + 1]);
		else if (KEY(p, &t[k], "object") &&
			 t[k + 1].type == JSMN_OBJECT)
			obj = k + 1;
		k = jsmn_skip(t, n, k + 1);
	}
	if (obj >= 0) /* "type" may come after "object" */
		jsmn_item(p, t, n, obj, &m, s);
	return 0;
}

int jm_validate(const char *p, size_t n)
{
	jsmn_parser ps;
	jsmntok_t t[64];

	jsmn_init(&ps);
	return jsmn_parse(&ps, p, n, t, 64) >= 0 ? 0 : -EINVAL;
}

int jm_validate_root(const char *p, size_t n)
{
	return jsmn_run(p, n) >= 0 ? 0 : -EINVAL;
}

size_t jm_tokens_bytes(void)
{
	return toks_used * sizeof(jsmntok_t);
}

size_t jm_token_size(void)
{
	return sizeof(jsmntok_t);
}

unsigned jm_escaped(void)
{
	return jsmn_escaped;
}

void jm_reset(void)
{
	free(toks);
	toks = NULL;
	toks_cap = 0;
}
