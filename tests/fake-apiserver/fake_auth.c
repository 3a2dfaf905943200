/*
 * fake_auth: static-token users, request attributes, rule-based
 * authorization and the 401/403 replies (see fake_auth.h).
 *
 * A rule (--authz) allows a request when every column matches:
 *   USER_OR_GROUP  the user's name or one of its groups
 *   VERB           the apiserver's verb: get, list, watch, create, update,
 *                  patch, delete, deletecollection (non-resource paths:
 *                  the lowercase method, get, post, ...)
 *   RESOURCE       the plural (pods), optionally group-qualified
 *                  (leases.coordination.k8s.io, matching only that group);
 *                  a subresource as pods/log, pods/'*' for every
 *                  subresource of pods, '*'/log for log of anything (the
 *                  quotes only keep this comment open); a path starting
 *                  with / matches a non-resource request (a trailing *
 *                  makes it a prefix)
 *   NAMESPACE      * matches every namespace and cluster-scope requests; a
 *                  name matches only requests in that namespace, so a
 *                  cluster-wide LIST needs *
 *   [NAMES]        optional, RBAC's resourceNames: the request's name must
 *                  be one of them (a LIST or WATCH is named only by its
 *                  field selector's metadata.name); * or absent: any
 * * in a column matches anything, including non-resource paths.
 * Besides the rules, two things are always allowed, as RBAC's defaults
 * do: everything for the group system:masters, and GET of discovery and
 * health paths (/api, /apis, /version, /openapi, /healthz, /livez,
 * /readyz) for anyone who authenticated. Then the RBAC objects written
 * to the fake decide (fake_rbac.c).
 */
#include "fake_auth.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/alloc.h"
#include "config/log.h"
#include "fake_http.h"
#include "fake_rbac.h"
#include "fake_tls.h"

#define MAX_TOKEN_LEN 4096
#define MAX_ITEMS 16 /* alternatives in one rule column */
#define MAX_CSV 8

/* One --users line; the strings point into line. */
struct user_entry {
	char *line;
	char *sa_group; /* system:serviceaccounts:NS of an SA's token */
	const char *token;
	size_t token_len;
	struct fake_user u;
};

struct col {
	const char *it[MAX_ITEMS];
	int n;
};

/* One --authz line; the items point into cols_text. */
struct rule {
	char *text; /* the columns joined by one space */
	char *cols_text;
	struct col subj, verb, res, ns;
	struct col names; /* resourceNames; none: any name */
	int lineno;
};

static struct {
	struct user_entry *users;
	int nusers;
	bool users_on;
	struct rule *rules;
	int nrules;
	bool authz_on;
} au;

static const struct fake_user admin = {
	.name = "admin",
	.uid = "",
	.groups = { "system:masters", "system:authenticated" },
	.ngroups = 2,
};
static const struct fake_user anonymous = {
	.name = "system:anonymous",
	.uid = "",
	.groups = { "system:unauthenticated" },
	.ngroups = 1,
};

/* --- the users file ---------------------------------------------------- */

/* Split a CSV line in place as Go's encoding/csv with TrimLeadingSpace
 * does: "..." quotes a field, "" inside is a quote. Returns the number of
 * fields (at most max, the rest ignored) or -1 for a broken quote. */
static int csv_split(char *line, char **f, int max)
{
	char *r = line, *w;
	int n = 0;

	for (;;) {
		while (*r == ' ' || *r == '\t')
			r++;
		if (n == max)
			return n;
		f[n++] = w = r;
		if (*r == '"') {
			for (r++;;) {
				if (!*r)
					return -1;
				if (*r == '"' && r[1] == '"') {
					*w++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*w++ = *r++;
				}
			}
			if (*r && *r != ',')
				return -1;
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
		}
		char sep = *r;
		*w = '\0';
		if (!sep)
			return n;
		r++;
	}
}

/* Parse one users line (owned by e on success). 0, 1 for a line to skip,
 * or -EINVAL with err set; err names the line, never its token. */
static int parse_user(char *line, int lineno, struct user_entry *e,
		      const char *path, char *err, size_t errlen)
{
	char *f[MAX_CSV];
	int n;

	line[strcspn(line, "\r\n")] = '\0';
	const char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 1;
	if ((n = csv_split(line, f, MAX_CSV)) < 0) {
		snprintf(err, errlen,
			 "--users %s: line %d: unterminated "
			 "quote",
			 path, lineno);
		return -EINVAL;
	}
	if (n < 3) {
		snprintf(err, errlen,
			 "--users %s: line %d: want at least 3 "
			 "columns (token, user name, user uid), found %d",
			 path, lineno, n);
		return -EINVAL;
	}
	if (!*f[0] || strlen(f[0]) >= MAX_TOKEN_LEN) {
		snprintf(err, errlen,
			 "--users %s: line %d: empty or too long "
			 "token",
			 path, lineno);
		return -EINVAL;
	}
	*e = (struct user_entry){ .line = line,
				  .token = f[0],
				  .token_len = strlen(f[0]) };
	e->u.name = f[1];
	e->u.uid = f[2];
	for (char *g = n > 3 ? f[3] : NULL, *s; g && (s = strsep(&g, ","));) {
		if (!*s)
			continue;
		if (e->u.ngroups == FAKE_AUTH_MAX_GROUPS - 1) {
			snprintf(err, errlen,
				 "--users %s: line %d: more than "
				 "%d groups",
				 path, lineno, FAKE_AUTH_MAX_GROUPS - 1);
			return -EINVAL;
		}
		e->u.groups[e->u.ngroups++] = s;
	}
	/* a service account's token: the groups its authenticator adds */
	static const char sa[] = "system:serviceaccount:";
	const char *colon = !strncmp(e->u.name, sa, sizeof(sa) - 1) ?
				    strchr(e->u.name + sizeof(sa) - 1, ':') :
				    NULL;
	if (colon && e->u.ngroups <= FAKE_AUTH_MAX_GROUPS - 3) {
		size_t nl = (size_t)(colon - e->u.name) - (sizeof(sa) - 1);
		e->sa_group = xmalloc(nl + sizeof("system:serviceaccounts:"));
		if (!e->sa_group) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		sprintf(e->sa_group, "system:serviceaccounts:%.*s", (int)nl,
			e->u.name + sizeof(sa) - 1);
		e->u.groups[e->u.ngroups++] = "system:serviceaccounts";
		e->u.groups[e->u.ngroups++] = e->sa_group;
	}
	e->u.groups[e->u.ngroups++] = "system:authenticated";
	return 0;
}

static int load_users(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;

	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "--users %s: %s", path, strerror(-rc));
		return rc;
	}
	while (getline(&line, &cap, f) >= 0) {
		struct user_entry e, *v;
		char *copy = xstrdup(line);
		if (!copy) {
			rc = -ENOMEM;
			break;
		}
		rc = parse_user(copy, ++lineno, &e, path, err, errlen);
		if (rc) {
			free(copy);
			if (rc > 0) {
				rc = 0;
				continue;
			}
			break;
		}
		v = xrealloc(au.users, (size_t)(au.nusers + 1) * sizeof(*v));
		if (!v) {
			free(copy);
			free(e.sa_group);
			rc = -ENOMEM;
			break;
		}
		au.users = v;
		au.users[au.nusers++] = e;
	}
	free(line);
	fclose(f);
	if (!rc && !au.nusers) {
		snprintf(err, errlen, "--users %s: no user in it", path);
		rc = -EINVAL;
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "--users %s: out of memory", path);
	log_v(1, "users: %d loaded", au.nusers);
	return rc;
}

/* --- the rules file ---------------------------------------------------- */

static int split_col(char *s, struct col *c)
{
	for (char *item; (item = strsep(&s, ","));) {
		if (!*item)
			continue;
		if (c->n == MAX_ITEMS)
			return -EINVAL;
		c->it[c->n++] = item;
	}
	return c->n ? 0 : -EINVAL;
}

static int parse_rule(const char *line, int lineno, struct rule *r,
		      const char *path, char *err, size_t errlen)
{
	char *copy = xstrdup(line), *p = copy, *w[6];
	int n = 0;

	if (!copy)
		return -ENOMEM;
	copy[strcspn(copy, "#\r\n")] = '\0';
	for (char *t; n < 6 && (t = strsep(&p, " \t"));)
		if (*t)
			w[n++] = t;
	if (n == 0) {
		free(copy);
		return 1;
	}
	if (n != 4 && n != 5) {
		snprintf(err, errlen,
			 "--authz %s: line %d: want USER_OR_GROUP "
			 "VERB RESOURCE NAMESPACE [NAMES], found %s columns",
			 path, lineno,
			 n > 5	? "more than 5" :
			 n == 3 ? "3" :
			 n == 2 ? "2" :
				  "1");
		free(copy);
		return -EINVAL;
	}
	struct buf t = BUF_INIT;
	buf_printf(&t, "%s %s %s %s%s%s", w[0], w[1], w[2], w[3],
		   n == 5 ? " " : "", n == 5 ? w[4] : "");
	if (!buf_ok(&t)) {
		free(copy);
		return -ENOMEM;
	}
	*r = (struct rule){ .text = buf_steal(&t, NULL),
			    .cols_text = copy,
			    .lineno = lineno };
	if (split_col(w[0], &r->subj) || split_col(w[1], &r->verb) ||
	    split_col(w[2], &r->res) || split_col(w[3], &r->ns) ||
	    (n == 5 && split_col(w[4], &r->names))) {
		snprintf(err, errlen,
			 "--authz %s: line %d: an empty column "
			 "or more than %d alternatives",
			 path, lineno, MAX_ITEMS);
		free(r->text);
		free(copy);
		return -EINVAL;
	}
	return 0;
}

static int load_rules(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;

	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "--authz %s: %s", path, strerror(-rc));
		return rc;
	}
	while (getline(&line, &cap, f) >= 0) {
		struct rule r, *v;
		rc = parse_rule(line, ++lineno, &r, path, err, errlen);
		if (rc > 0) {
			rc = 0;
			continue;
		}
		if (rc)
			break;
		v = xrealloc(au.rules, (size_t)(au.nrules + 1) * sizeof(*v));
		if (!v) {
			free(r.text);
			free(r.cols_text);
			rc = -ENOMEM;
			break;
		}
		au.rules = v;
		au.rules[au.nrules++] = r;
	}
	free(line);
	fclose(f);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "--authz %s: out of memory", path);
	log_v(1, "authz: %d rule(s) loaded", au.nrules);
	return rc;
}

int fake_auth_setup(const char *users_file, const char *authz_file, char *err,
		    size_t errlen)
{
	int rc = 0;

	if (users_file && (rc = load_users(users_file, err, errlen)))
		goto fail;
	if (authz_file && (rc = load_rules(authz_file, err, errlen)))
		goto fail;
	au.users_on = users_file != NULL;
	au.authz_on = authz_file != NULL;
	return 0;
fail:
	fake_auth_free();
	return rc;
}

void fake_auth_free(void)
{
	for (int i = 0; i < au.nusers; i++) {
		free(au.users[i].line);
		free(au.users[i].sa_group);
	}
	for (int i = 0; i < au.nrules; i++) {
		free(au.rules[i].text);
		free(au.rules[i].cols_text);
	}
	free(au.users);
	free(au.rules);
	memset(&au, 0, sizeof(au));
}

bool fake_auth_users_on(void)
{
	return au.users_on;
}

bool fake_auth_authz_on(void)
{
	return au.authz_on;
}

/* --- authentication ---------------------------------------------------- */

/* Constant time in the length of the presented token. */
static bool same(const char *a, size_t alen, const char *b, size_t blen)
{
	unsigned char d = alen != blen;
	for (size_t i = 0; i < blen; i++)
		d |= (unsigned char)(a[i % (alen ? alen : 1)] ^ b[i]);
	return d == 0;
}

bool fake_auth_token(const char *t, size_t n, struct fake_user *out)
{
	const struct user_entry *hit = NULL;

	if (!n || n >= MAX_TOKEN_LEN)
		return false;
	/* every entry is compared; a later duplicate wins, as in the
	 * apiserver's map */
	for (int i = 0; i < au.nusers; i++)
		if (same(au.users[i].token, au.users[i].token_len, t, n))
			hit = &au.users[i];
	/* a service account's token dies with its ServiceAccount */
	if (hit && fake_rbac_sa_alive(hit->u.name)) {
		*out = hit->u;
		return true;
	}
	if (hit)
		return false;
	if (fake_tls_token_ok(t, n)) {
		*out = admin;
		return true;
	}
	return false;
}

int fake_auth_request(struct MHD_Connection *c, struct fake_user *out)
{
	if (!au.users_on && !fake_tls_auth_required()) {
		*out = anonymous;
		return 0;
	}
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "Authorization");
	/* as the apiserver's bearer-token authenticator: the value
	 * trimmed, the scheme in any case, one space, and the token up to
	 * the next space ("Bearer  T" carries none) */
	size_t b = 0, e = h ? strlen(h) : 0;
	while (b < e && strchr(" \t\r\n\v\f", h[b]))
		b++;
	while (e > b && strchr(" \t\r\n\v\f", h[e - 1]))
		e--;
	if (h && e - b > 7 && strncasecmp(h + b, "Bearer ", 7) == 0) {
		const char *t = h + b + 7;
		size_t n = strcspn(t, " ");
		if (n > e - b - 7)
			n = e - b - 7;
		if (n && fake_auth_token(t, n, out))
			return 1;
	}
	if (fake_tls_client_cert_ok(c)) {
		*out = admin;
		return 1;
	}
	return -1;
}

/* --- request attributes ------------------------------------------------ */

static const char *method_verb(const char *m)
{
	static const char *const map[][2] = {
		{ "POST", "create" }, { "GET", "get" },
		{ "HEAD", "get" },    { "PUT", "update" },
		{ "PATCH", "patch" }, { "DELETE", "delete" },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(m, map[i][0]) == 0)
			return map[i][1];
	return "";
}

static const char *method_lower(const char *m)
{
	static const char *const known[] = { "get",   "head",	"post",	  "put",
					     "patch", "delete", "options" };
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcasecmp(m, known[i]) == 0)
			return known[i];
	return "unknown";
}

static bool watch_param(struct MHD_Connection *c)
{
	const char *v = fake_query(c, "watch");
	return v && !(strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0);
}

/* A selector value unescaped into out: \\ \, \= only, and no bare , or
 * = (fields.UnescapeValue); false when it does not parse. */
static bool unescape_value(const char *v, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] == ',' || v[i] == '=')
			return false;
		if (v[i] == '\\' && (++i == n || !strchr("\\,=", v[i])))
			return false;
		out[o++] = v[i];
	}
	out[o] = '\0';
	return true;
}

/* The name a fieldSelector requires, as the apiserver's RequestInfo
 * takes it: the first metadata.name= or == term, whatever terms beside
 * it, when the whole selector parses (terms split at unescaped commas,
 * each at its first != == or =), and the name could be a path segment.
 * Copied to out (room for strlen(fs) + 1), else NULL. */
static const char *selector_name(const char *fs, char *out)
{
	const char *found = NULL;
	while (fs && *fs) {
		size_t n = 0;
		for (bool esc = false; fs[n] && (esc || fs[n] != ','); n++)
			esc = !esc && fs[n] == '\\';
		if (n) {
			size_t i = 0, op = 0;
			for (; i < n && !op; i++)
				op = (i + 1 < n && fs[i + 1] == '=' &&
				      (fs[i] == '!' || fs[i] == '=')) ?
					     2 :
				     fs[i] == '=' ? 1 :
						    0;
			if (!op)
				return NULL;
			i--;
			char tmp[512];
			if (n - i - op >= sizeof(tmp) ||
			    !unescape_value(fs + i + op, n - i - op, tmp))
				return NULL;
			if (!found && fs[i] != '!' && i == 13 &&
			    strncmp(fs, "metadata.name", 13) == 0) {
				strcpy(out, tmp);
				found = out;
			}
		}
		fs += n + (fs[n] == ',');
	}
	if (found && (!*found || strcmp(found, ".") == 0 ||
		      strcmp(found, "..") == 0 || strpbrk(found, "/%")))
		return NULL;
	return found;
}

void fake_auth_attrs(struct MHD_Connection *c, const char *method,
		     const char *url, struct fake_attrs *a, char **scratch)
{
	const char *fs = fake_query(c, "fieldSelector");
	size_t ulen = strlen(url), flen = fs ? strlen(fs) : 0;
	char *parts[64], *p;
	int n = 0;

	*a = (struct fake_attrs){ .verb = method_lower(method),
				  .group = "",
				  .version = "",
				  .resource = "",
				  .subresource = "",
				  .ns = "",
				  .name = "",
				  .path = url };
	*scratch = p = xmalloc(ulen + flen + 2);
	if (!p)
		return;
	/* strings.Split(strings.Trim(path, "/"), "/") */
	while (*url == '/')
		url++, ulen--;
	while (ulen && url[ulen - 1] == '/')
		ulen--;
	memcpy(p, url, ulen);
	p[ulen] = '\0';
	for (char *s; ulen && n < 64 && (s = strsep(&p, "/"));)
		parts[n++] = s;

	char **cur = parts;
	if (n < 3 ||
	    (strcmp(cur[0], "api") != 0 && strcmp(cur[0], "apis") != 0))
		return;
	bool groupless = strcmp(cur[0], "api") == 0;
	cur++, n--;
	if (!groupless) {
		if (n < 3)
			return;
		a->group = cur[0];
		cur++, n--;
	}
	a->resource_request = true;
	a->version = cur[0];
	cur++, n--;
	if (n >= 2 && strcmp(cur[0], "watch") == 0) {
		a->verb = "watch";
		cur++, n--;
	} else {
		a->verb = method_verb(method);
	}
	if (n >= 1 && strcmp(cur[0], "namespaces") == 0 && n > 1) {
		a->ns = cur[1];
		if (n > 2 && strcmp(cur[2], "status") != 0 &&
		    strcmp(cur[2], "finalize") != 0)
			cur += 2, n -= 2;
	}
	if (n >= 3)
		a->subresource = cur[2];
	if (n >= 2)
		a->name = cur[1];
	if (n >= 1)
		a->resource = cur[0];
	if (!*a->name && strcmp(a->verb, "get") == 0) {
		a->verb = watch_param(c) ? "watch" : "list";
		const char *pinned = selector_name(fs, *scratch + ulen + 1);
		if (pinned)
			a->name = pinned;
	}
	if (!*a->name && strcmp(a->verb, "delete") == 0)
		a->verb = "deletecollection";
}

/* --- authorization ----------------------------------------------------- */

static bool col_has(const struct col *c, const char *v)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->it[i], "*") == 0 || strcmp(c->it[i], v) == 0)
			return true;
	return false;
}

static bool subject_match(const struct col *c, const char *name,
			  const char *const *groups, int ngroups)
{
	if (col_has(c, name))
		return true;
	for (int i = 0; i < ngroups; i++)
		if (col_has(c, groups[i]))
			return true;
	return false;
}

/* "pods", "pods.group", "*" (n bytes of item) against a's resource. */
static bool base_match(const char *item, size_t n, const struct fake_attrs *a)
{
	size_t rl = strlen(a->resource), gl = strlen(a->group);
	if (n == 1 && item[0] == '*')
		return true;
	if (n == rl && strncmp(item, a->resource, n) == 0)
		return true;
	return gl && n == rl + 1 + gl && strncmp(item, a->resource, rl) == 0 &&
	       item[rl] == '.' && strncmp(item + rl + 1, a->group, gl) == 0;
}

static bool resource_item_match(const char *item, const struct fake_attrs *a)
{
	if (strcmp(item, "*") == 0)
		return true;
	if (!a->resource_request) {
		size_t n = strlen(item);
		if (item[0] != '/')
			return false;
		if (n && item[n - 1] == '*')
			return strncmp(a->path, item, n - 1) == 0;
		return strcmp(a->path, item) == 0;
	}
	const char *slash = strchr(item, '/');
	size_t n = slash ? (size_t)(slash - item) : strlen(item);
	if (!base_match(item, n, a))
		return false;
	if (!slash)
		return !*a->subresource;
	if (strcmp(slash + 1, "*") == 0)
		return *a->subresource != '\0';
	return strcmp(slash + 1, a->subresource) == 0;
}

static bool rule_match(const struct rule *r, const char *name,
		       const char *const *groups, int ngroups,
		       const struct fake_attrs *a)
{
	bool res = false, ns;

	if (!subject_match(&r->subj, name, groups, ngroups) ||
	    !col_has(&r->verb, a->verb))
		return false;
	for (int i = 0; i < r->res.n && !res; i++)
		res = resource_item_match(r->res.it[i], a);
	ns = col_has(&r->ns, "*") || (*a->ns && col_has(&r->ns, a->ns));
	/* resourceNames, as RBAC reads them: a request without a name
	 * (a LIST not pinned by its field selector) matches none */
	if (r->names.n && !col_has(&r->names, "*") &&
	    !(*a->name && col_has(&r->names, a->name)))
		return false;
	return res && ns;
}

/* GET of the paths RBAC's system:discovery and system:public-info-viewer
 * open to everyone who authenticated. */
static bool discovery_path(const struct fake_attrs *a)
{
	static const char *const exact[] = { "/api",	 "/apis",  "/version",
					     "/healthz", "/livez", "/readyz",
					     "/openapi" };
	static const char *const prefix[] = { "/api/",	   "/apis/",
					      "/version/", "/openapi/",
					      "/healthz/", "/livez/",
					      "/readyz/" };
	if (a->resource_request ||
	    (strcmp(a->verb, "get") != 0 && strcmp(a->verb, "head") != 0))
		return false;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(a->path, exact[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (strncmp(a->path, prefix[i], strlen(prefix[i])) == 0)
			return true;
	return false;
}

bool fake_auth_allowed(const char *name, const char *const *groups, int ngroups,
		       const struct fake_attrs *a, struct buf *reason)
{
	if (!au.authz_on)
		return true;
	for (int i = 0; i < ngroups; i++)
		if (strcmp(groups[i], "system:masters") == 0)
			return true;
	if (discovery_path(a))
		return true;
	for (int i = 0; i < au.nrules; i++)
		if (rule_match(&au.rules[i], name, groups, ngroups, a)) {
			if (reason)
				buf_printf(reason,
					   "allowed by --authz line "
					   "%d: %s",
					   au.rules[i].lineno,
					   au.rules[i].text);
			return true;
		}
	/* then the RBAC objects written to the fake, as RBAC decides */
	return fake_rbac_allowed(name, groups, ngroups, a, reason);
}

/* --- replies ----------------------------------------------------------- */

/* Go's %q for the strings of a forbidden message, after the apiserver's
 * sanitizer (& < > as HTML entities). */
static void addq(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	for (; *s; s++) {
		switch (*s) {
		case '"':
			buf_adds(b, "\\\"");
			break;
		case '\\':
			buf_adds(b, "\\\\");
			break;
		case '&':
			buf_adds(b, "&amp;");
			break;
		case '<':
			buf_adds(b, "&lt;");
			break;
		case '>':
			buf_adds(b, "&gt;");
			break;
		default:
			if ((unsigned char)*s < 0x20)
				buf_printf(b, "\\x%02x", (unsigned char)*s);
			else
				buf_addc(b, *s);
		}
	}
	buf_addc(b, '"');
}

enum MHD_Result fake_reply_forbidden(struct MHD_Connection *c, const char *user,
				     const struct fake_attrs *a)
{
	struct buf m = BUF_INIT, d = BUF_INIT;
	enum MHD_Result r;

	if (!a->resource_request) {
		buf_adds(&m, "forbidden: User ");
		addq(&m, user);
		buf_printf(&m, " cannot %s path ", a->verb);
		addq(&m, a->path);
		buf_adds(&d, "{}");
	} else {
		/* apierrors.NewForbidden(group resource, name, message) */
		buf_adds(&m, a->resource);
		if (*a->group)
			buf_printf(&m, ".%s", a->group);
		if (*a->name) {
			buf_addc(&m, ' ');
			addq(&m, a->name);
		}
		buf_adds(&m, " is forbidden: User ");
		addq(&m, user);
		buf_printf(&m, " cannot %s resource ", a->verb);
		struct buf res = BUF_INIT;
		buf_adds(&res, a->resource);
		if (*a->subresource)
			buf_printf(&res, "/%s", a->subresource);
		addq(&m, res.p ? res.p : "");
		buf_free(&res);
		buf_adds(&m, " in API group ");
		addq(&m, a->group);
		if (*a->ns) {
			buf_adds(&m, " in the namespace ");
			addq(&m, a->ns);
		} else {
			buf_adds(&m, " at the cluster scope");
		}
		buf_addc(&d, '{');
		if (*a->name) {
			buf_adds(&d, "\"name\":");
			buf_add_json_str(&d, a->name, strlen(a->name));
			buf_addc(&d, ',');
		}
		if (*a->group) {
			buf_adds(&d, "\"group\":");
			buf_add_json_str(&d, a->group, strlen(a->group));
			buf_addc(&d, ',');
		}
		buf_adds(&d, "\"kind\":");
		buf_add_json_str(&d, a->resource, strlen(a->resource));
		buf_addc(&d, '}');
	}
	if (!buf_ok(&m) || !buf_ok(&d))
		r = MHD_NO;
	else
		r = fake_reply_status(c, 403, "Forbidden", d.p, "%s", m.p);
	buf_free(&m);
	buf_free(&d);
	return r;
}

enum MHD_Result fake_reply_unauthorized(struct MHD_Connection *c)
{
	return fake_reply_status(c, 401, "Unauthorized", NULL, "Unauthorized");
}
