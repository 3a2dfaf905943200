/*
 * reqinfo: a request's authorization attributes, read as the apiserver
 * reads them (see reqinfo.h).
 */
#include "proxy/front/reqinfo.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define SEGS 8 /* no rule looks further than the eighth segment */

struct seg {
	const char *p;
	size_t n;
};

static bool is(const struct seg *s, const char *lit)
{
	return s->n == strlen(lit) && !memcmp(s->p, lit, s->n);
}

static int put(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		return -ENAMETOOLONG;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* The path without its outer slashes, split at every slash: empty
 * segments inside stay, as the apiserver keeps them. At most SEGS. */
static int split(const char *path, struct seg *seg)
{
	size_t b = 0, e = strlen(path);
	while (b < e && path[b] == '/')
		b++;
	while (e > b && path[e - 1] == '/')
		e--;
	if (b == e)
		return 0;
	int n = 0;
	for (size_t i = b; n < SEGS;) {
		const char *slash = memchr(path + i, '/', e - i);
		size_t l = slash ? (size_t)(slash - (path + i)) : e - i;
		seg[n++] = (struct seg){ path + i, l };
		if (!slash)
			break;
		i += l + 1;
	}
	return n;
}

bool proxy_reqinfo_namespace_sub(const char *seg, size_t n)
{
	return (n == 6 && !memcmp(seg, "status", 6)) ||
	       (n == 8 && !memcmp(seg, "finalize", 8));
}

/* One selector value unescaped (\\, \, and \= only; a bare , or = is
 * refused), into out; false when it does not parse or fit. */
static bool unescape(const char *s, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == ',' || c == '=')
			return false;
		if (c == '\\') {
			if (++i == n ||
			    (s[i] != '\\' && s[i] != ',' && s[i] != '='))
				return false;
			c = s[i];
		}
		if (o + 1 >= cap)
			return false;
		out[o++] = c;
	}
	out[o] = '\0';
	return true;
}

bool proxy_reqinfo_selector_name(const char *fs, char *out, size_t cap)
{
	bool found = false;
	char val[512], name[512] = "";
	if (!cap)
		return false;
	out[0] = '\0';
	for (const char *t = fs; t;) {
		/* a term ends at a comma no backslash escapes */
		const char *e = t;
		bool esc = false;
		for (; *e && (esc || *e != ','); e++)
			esc = !esc && *e == '\\';
		size_t n = (size_t)(e - t);
		const char *next = *e ? e + 1 : NULL;
		if (!n) {
			t = next;
			continue;
		}
		/* the first operator, scanning from the left: != == = */
		size_t i, opn = 0;
		for (i = 0; i < n; i++) {
			if (i + 1 < n && (t[i] == '!' || t[i] == '=') &&
			    t[i + 1] == '=') {
				opn = 2;
				break;
			}
			if (t[i] == '=') {
				opn = 1;
				break;
			}
		}
		if (!opn ||
		    !unescape(t + i + opn, n - i - opn, val, sizeof(val)))
			return false; /* the whole selector is refused */
		if (!found && t[i] != '!' && i == 13 &&
		    !memcmp(t, "metadata.name", 13)) {
			found = true;
			if (strlen(val) >= cap)
				return false;
			strcpy(name, val);
		}
		t = next;
	}
	/* only now: a later term that does not parse refuses it all */
	if (!found || !name[0] || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strpbrk(name, "/%"))
		return false;
	strcpy(out, name);
	return true;
}

static const char *method_verb(const char *m)
{
	static const char *const map[][2] = {
		{ "GET", "get" },     { "HEAD", "get" },
		{ "POST", "create" }, { "PUT", "update" },
		{ "PATCH", "patch" }, { "DELETE", "delete" },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(m, map[i][0]))
			return map[i][1];
	return "";
}

bool proxy_reqinfo_watch_value(const char *v)
{
	return v && strcmp(v, "0") && strcasecmp(v, "false");
}

int proxy_reqinfo_parse(const char *method, const char *path,
			const struct proxy_reqinfo_query *q,
			struct proxy_reqinfo *ri)
{
	static const struct proxy_reqinfo_query none = { 0 };
	struct seg s[SEGS];
	int n = split(path, s), i = 0;
	memset(ri, 0, sizeof(*ri));
	ri->path = path;
	if (!q)
		q = &none;
	/* not a resource: the lowercase method */
	size_t ml = strlen(method);
	if (ml >= sizeof(ri->verb))
		return -ENAMETOOLONG;
	for (size_t k = 0; k <= ml; k++)
		ri->verb[k] = (char)(method[k] >= 'A' && method[k] <= 'Z' ?
					     method[k] - 'A' + 'a' :
					     method[k]);
	if (n < 3 || !(is(&s[0], "api") || is(&s[0], "apis")))
		return 0;
	i = 1;
	if (is(&s[0], "apis")) {
		if (n < 4)
			return 0;
		if (put(ri->group, sizeof(ri->group), s[1].p, s[1].n))
			return -ENAMETOOLONG;
		i = 2;
	}
	ri->resource = true;
	if (put(ri->version, sizeof(ri->version), s[i].p, s[i].n))
		return -ENAMETOOLONG;
	i++;
	if (is(&s[i], "watch") || is(&s[i], "proxy")) {
		if (n - i < 2) {
			/* the apiserver refuses it; nothing to authorize */
			ri->resource = false;
			return 0;
		}
		snprintf(ri->verb, sizeof(ri->verb), "%s",
			 is(&s[i], "watch") ? "watch" : "proxy");
		i++;
	} else {
		snprintf(ri->verb, sizeof(ri->verb), "%s", method_verb(method));
	}
	if (is(&s[i], "namespaces") && n - i > 1) {
		if (put(ri->ns, sizeof(ri->ns), s[i + 1].p, s[i + 1].n))
			return -ENAMETOOLONG;
		if (n - i > 2 &&
		    !proxy_reqinfo_namespace_sub(s[i + 2].p, s[i + 2].n))
			i += 2;
	}
	int parts = n - i;
	bool proxy = !strcmp(ri->verb, "proxy");
	if ((parts >= 3 && !proxy &&
	     put(ri->sub, sizeof(ri->sub), s[i + 2].p, s[i + 2].n)) ||
	    (parts >= 2 &&
	     put(ri->name, sizeof(ri->name), s[i + 1].p, s[i + 1].n)) ||
	    (parts >= 1 && put(ri->res, sizeof(ri->res), s[i].p, s[i].n)))
		return -ENAMETOOLONG;
	if (!ri->name[0] && !strcmp(ri->verb, "get")) {
		strcpy(ri->verb,
		       proxy_reqinfo_watch_value(q->watch) ? "watch" : "list");
		if (q->field_selector && !q->options_bad)
			proxy_reqinfo_selector_name(q->field_selector, ri->name,
						    sizeof(ri->name));
	}
	if (!ri->name[0] && !strcmp(ri->verb, "delete"))
		strcpy(ri->verb, "deletecollection");
	return 0;
}
