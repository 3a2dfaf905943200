/*
 * table_jsonpath: a small recursive evaluator for the printer-column subset
 * (see table_jsonpath_int.h). The path is parsed into steps once per call; paths
 * are short and the objects small, so nothing is cached.
 */
#include "proxy/table/table_jsonpath_int.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"

#define MAX_STEPS 32
#define NAME_MAX_LEN 256

enum step_kind {
	S_NAME,	  /* .name, ['name'] */
	S_ANY,	  /* .*, [*] */
	S_INDEX,  /* [N] */
	S_FILTER, /* [?(@.path OP lit)] */
};

enum op {
	OP_EXISTS,
	OP_EQ,
	OP_NE,
	OP_LT,
	OP_LE,
	OP_GT,
	OP_GE
};

struct step {
	enum step_kind kind;
	char name[NAME_MAX_LEN]; /* S_NAME; for S_FILTER the @ path */
	long index;
	enum op op;
	bool lit_str;		/* the literal is a string */
	char lit[NAME_MAX_LEN]; /* as written, unquoted */
};

struct path {
	struct step s[MAX_STEPS];
	int n;
};

/* A member name after '.', up to '.', '[' or the end; '\' escapes. */
static const char *parse_name(const char *p, char *out, size_t cap)
{
	size_t n = 0;
	while (*p && *p != '.' && *p != '[') {
		if (*p == '\\' && p[1])
			p++;
		if (n + 1 >= cap)
			return NULL;
		out[n++] = *p++;
	}
	out[n] = '\0';
	return n ? p : NULL;
}

/* A quoted string at p ('…' or "…"), into out; past the closing quote. */
static const char *parse_quoted(const char *p, char *out, size_t cap)
{
	char q = *p++;
	size_t n = 0;
	while (*p && *p != q) {
		if (*p == '\\' && p[1])
			p++;
		if (n + 1 >= cap)
			return NULL;
		out[n++] = *p++;
	}
	if (*p != q)
		return NULL;
	out[n] = '\0';
	return p + 1;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* [?(@.a.b OP lit)] from just after "[?(". */
static const char *parse_filter(const char *p, struct step *s)
{
	size_t n = 0;
	static const struct {
		const char *t;
		enum op op;
	} ops[] = { { "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE },
		    { ">=", OP_GE }, { "<", OP_LT },  { ">", OP_GT } };
	p = skip_ws(p);
	if (p[0] != '@' || p[1] != '.')
		return NULL;
	p += 2;
	while (*p && *p != ' ' && *p != '=' && *p != '!' && *p != '<' &&
	       *p != '>' && *p != ')') {
		if (n + 1 >= sizeof(s->name))
			return NULL;
		s->name[n++] = *p++;
	}
	s->name[n] = '\0';
	if (!n)
		return NULL;
	p = skip_ws(p);
	s->op = OP_EXISTS;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(p, ops[i].t, strlen(ops[i].t))) {
			s->op = ops[i].op;
			p = skip_ws(p + strlen(ops[i].t));
			break;
		}
	if (s->op != OP_EXISTS) {
		if (*p == '\'' || *p == '"') {
			s->lit_str = true;
			p = parse_quoted(p, s->lit, sizeof(s->lit));
		} else {
			char *end;
			strtod(p, &end);
			if (end == p || (size_t)(end - p) >= sizeof(s->lit))
				return NULL;
			snprintf(s->lit, sizeof(s->lit), "%.*s", (int)(end - p),
				 p);
			p = end;
		}
		if (!p)
			return NULL;
		p = skip_ws(p);
	}
	if (p[0] != ')' || p[1] != ']')
		return NULL;
	return p + 2;
}

static int parse(const char *p, struct path *out)
{
	out->n = 0;
	if (*p != '.')
		return -EINVAL;
	while (*p) {
		struct step *s;
		if (out->n == MAX_STEPS)
			return -EINVAL;
		s = &out->s[out->n];
		memset(s, 0, sizeof(*s));
		if (p[0] == '.' && p[1] == '\0' && out->n == 0) {
			p++; /* "." alone: the object itself */
			continue;
		}
		if (*p == '.') {
			p++;
			if (*p == '*') {
				s->kind = S_ANY;
				p++;
			} else if (*p == '.' || *p == '[') {
				return -EINVAL; /* no recursive descent */
			} else {
				s->kind = S_NAME;
				p = parse_name(p, s->name, sizeof(s->name));
			}
		} else if (*p == '[') {
			p++;
			if (*p == '*' && p[1] == ']') {
				s->kind = S_ANY;
				p += 2;
			} else if (*p == '\'' || *p == '"') {
				s->kind = S_NAME;
				p = parse_quoted(p, s->name, sizeof(s->name));
				if (p && *p++ != ']')
					p = NULL;
			} else if (p[0] == '?' && p[1] == '(') {
				s->kind = S_FILTER;
				p = parse_filter(p + 2, s);
			} else {
				char *end;
				s->kind = S_INDEX;
				s->index = strtol(p, &end, 10);
				p = end != p && *end == ']' ? end + 1 : NULL;
			}
		} else {
			return -EINVAL;
		}
		if (!p)
			return -EINVAL;
		out->n++;
	}
	return 0;
}

/* parse(), taking the path bare (".spec.x") or in braces ("{.spec.x}"),
 * as kubectl's columns do. */
static int parse_braced(const char *path, struct path *p)
{
	size_t n = strlen(path);
	if (n < 2 || path[0] != '{' || path[n - 1] != '}')
		return parse(path, p);
	char *inner = xstrndup(path + 1, n - 2);
	int r = inner ? parse(inner, p) : -ENOMEM;
	free(inner);
	return r;
}

int proxy_table_jsonpath_check(const char *path)
{
	struct path *p = malloc(sizeof(*p));
	int r = p ? parse_braced(path, p) : -ENOMEM;
	free(p);
	return r;
}

/* The member of obj named by dotted path (escapes not needed here). */
static int dotted(const struct json_doc *d, int obj, const char *path)
{
	return json_path(d, obj, path);
}

static bool is_string(const struct json_doc *d, int t)
{
	return json_type(d, t) == JSMN_STRING;
}

/* Whether element el passes filter s. */
static bool filter_ok(const struct json_doc *d, int el, const struct step *s)
{
	int v = json_type(d, el) == JSMN_OBJECT ? dotted(d, el, s->name) : -1;
	size_t n;
	const char *raw;
	int c;
	if (v < 0)
		return false;
	if (s->op == OP_EXISTS)
		return true;
	raw = json_raw(d, v, &n);
	if (s->lit_str) {
		char *val;
		if (!is_string(d, v))
			return s->op == OP_NE;
		val = malloc(json_str_len(d, v) + 1);
		if (!val)
			return false;
		json_str(d, v, val, json_str_len(d, v) + 1);
		c = strcmp(val, s->lit);
		free(val);
	} else {
		double a, b = strtod(s->lit, NULL);
		char tmp[64];
		if (is_string(d, v) || n >= sizeof(tmp) ||
		    json_type(d, v) != JSMN_PRIMITIVE)
			return s->op == OP_NE;
		snprintf(tmp, sizeof(tmp), "%.*s", (int)n, raw);
		a = strtod(tmp, NULL);
		c = a < b ? -1 : a > b;
	}
	switch (s->op) {
	case OP_EQ:
		return c == 0;
	case OP_NE:
		return c != 0;
	case OP_LT:
		return c < 0;
	case OP_LE:
		return c <= 0;
	case OP_GT:
		return c > 0;
	default:
		return c >= 0;
	}
}

static int eval(const struct json_doc *d, int t, const struct path *p, int i)
{
	const struct step *s;
	int type;
	if (i == p->n)
		return t;
	s = &p->s[i];
	type = json_type(d, t);
	switch (s->kind) {
	case S_NAME: {
		int v = type == JSMN_OBJECT ? json_get(d, t, s->name) : -1;
		return v < 0 ? -1 : eval(d, v, p, i + 1);
	}
	case S_INDEX: {
		int n = type == JSMN_ARRAY ? d->tok[t].size : 0, k = 0;
		long want = s->index < 0 ? n + s->index : s->index;
		if (want < 0 || want >= n)
			return -1;
		for (int e = json_first(d, t); e > 0; e = json_next(d, t, e))
			if (k++ == want)
				return eval(d, e, p, i + 1);
		return -1;
	}
	case S_ANY:
		if (type == JSMN_ARRAY) {
			for (int e = json_first(d, t); e > 0;
			     e = json_next(d, t, e)) {
				int r = eval(d, e, p, i + 1);
				if (r >= 0)
					return r;
			}
		} else if (type == JSMN_OBJECT) {
			for (int k = json_first(d, t); k > 0;
			     k = json_next(d, t, k)) {
				int r = eval(d, k + 1, p, i + 1);
				if (r >= 0)
					return r;
			}
		}
		return -1;
	case S_FILTER:
		if (type != JSMN_ARRAY)
			return -1;
		for (int e = json_first(d, t); e > 0; e = json_next(d, t, e))
			if (filter_ok(d, e, s)) {
				int r = eval(d, e, p, i + 1);
				if (r >= 0)
					return r;
			}
		return -1;
	}
	return -1;
}

int proxy_table_jsonpath_first(const struct json_doc *d, int root,
			       const char *path)
{
	struct path *p = malloc(sizeof(*p));
	int r = -1;
	if (p && !parse_braced(path, p))
		r = eval(d, root, p, 0);
	free(p);
	return r;
}
