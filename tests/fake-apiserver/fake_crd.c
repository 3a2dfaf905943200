/*
 * fake_crd: CRD objects and custom resources' Tables (see fake_crd.h).
 *
 * A column's JSONPath is walked directly over the jansson value, one
 * step at a time: .name, .*, [N], [*], ['name'] and the filter
 * [?(@.field=="value")] (also != and numbers). The first value found is
 * the cell, formatted as the apiextensions apiserver's table convertor
 * does for the column's type.
 */
#include "fake_crd.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_res.h"
#include "fake_table.h"

#define MAX_COLS 16

struct column {
	char name[64], type[16], path[256];
	int priority;
};

static struct {
	struct column c[MAX_COLS];
	int n;
	char *defs; /* the columnDefinitions JSON, made on first use */
} cols[FAKE_RES_MAX];

static int crd_res = -1;

static const struct fake_res crd_resource = {
	.resource = "customresourcedefinitions",
	.group = "apiextensions.k8s.io",
	.version = "v1",
	.api_version = "apiextensions.k8s.io/v1",
	.key = "customresourcedefinitions.apiextensions.k8s.io",
	.singular = "customresourcedefinition",
	.kind = "CustomResourceDefinition",
	.list_kind = "CustomResourceDefinitionList",
	.namespaced = false,
	.short_name = "crd",
	.hash = "jfWCUB31mvA=",
	.fields = { NULL },
	.bookmark_tail =
		",\"spec\":{\"group\":\"\",\"names\":{\"plural\":\"\","
		"\"kind\":\"\"},\"scope\":\"\",\"versions\":null},"
		"\"status\":{\"conditions\":null,\"acceptedNames\":"
		"{\"plural\":\"\",\"kind\":\"\"},\"storedVersions\":null}",
};

int fake_crd_enable(void)
{
	if (crd_res >= 0)
		return 0;
	if (fake_nres >= FAKE_RES_MAX)
		return -ENOSPC;
	crd_res = fake_nres;
	fake_res_table[fake_nres++] = crd_resource;
	return 0;
}

int fake_crd_res(void)
{
	return crd_res;
}

static void make_defs(int res);

int fake_crd_add_column(const char *spec, char *err, size_t errlen)
{
	char key[300], rest[400], *f[4] = { 0 };
	const char *eq = strchr(spec, '=');
	int res, nf = 0;
	struct column *c;

	if (!eq || (size_t)(eq - spec) >= sizeof(key) ||
	    strlen(eq + 1) >= sizeof(rest))
		goto bad;
	snprintf(key, sizeof(key), "%.*s", (int)(eq - spec), spec);
	snprintf(rest, sizeof(rest), "%s", eq + 1);
	res = fake_res_find(key);
	if (res < 0 || !fake_res_table[res].custom) {
		snprintf(err, errlen, "--crd-column %s: no --crd %s before it",
			 spec, key);
		return -EINVAL;
	}
	/* Name:type:jsonPath[:priority]; the path may hold ':' only in
	 * a quoted filter literal, so split the priority off the end */
	f[nf++] = rest;
	for (char *p = rest; *p && nf < 3; p++)
		if (*p == ':') {
			*p = '\0';
			f[nf++] = p + 1;
		}
	if (nf < 3 || cols[res].n == MAX_COLS || !*f[0] || f[2][0] != '.')
		goto bad;
	char *last = strrchr(f[2], ':');
	if (last && last[1] &&
	    strspn(last + 1, "0123456789") == strlen(last + 1)) {
		*last = '\0';
		f[3] = last + 1;
	}
	if (strlen(f[0]) >= sizeof(c->name) || strlen(f[2]) >= sizeof(c->path))
		goto bad;
	if (strcmp(f[1], "string") && strcmp(f[1], "integer") &&
	    strcmp(f[1], "number") && strcmp(f[1], "boolean") &&
	    strcmp(f[1], "date"))
		goto bad;
	c = &cols[res].c[cols[res].n++];
	snprintf(c->name, sizeof(c->name), "%s", f[0]);
	snprintf(c->type, sizeof(c->type), "%s", f[1]);
	snprintf(c->path, sizeof(c->path), "%s", f[2]);
	c->priority = f[3] ? atoi(f[3]) : 0;
	make_defs(res);
	return fake_crd_enable();
bad:
	snprintf(err, errlen,
		 "--crd-column %s: want plural.group=Name:type:.json.path"
		 "[:priority], type one of string, integer, number, boolean, "
		 "date",
		 spec);
	return -EINVAL;
}

int fake_crd_object(struct buf *out, int res, uint64_t rv)
{
	const struct fake_res *r = &fake_res_table[res];
	json_t *apc = json_array();
	char *s, crd_name[512];
	snprintf(crd_name, sizeof(crd_name), "%s.%s", r->resource, r->group);
	for (int i = 0; i < cols[res].n; i++) {
		const struct column *c = &cols[res].c[i];
		json_t *col = json_pack("{s:s,s:s,s:s}", "name", c->name,
					"type", c->type, "jsonPath", c->path);
		if (c->priority)
			json_object_set_new(col, "priority",
					    json_integer(c->priority));
		json_array_append_new(apc, col);
	}
	json_t *version = json_pack(
		"{s:s,s:b,s:b,s:{s:{s:s,s:b}}}", "name", r->version, "served",
		1, "storage", 1, "schema", "openAPIV3Schema", "type", "object",
		"x-kubernetes-preserve-unknown-fields", 1);
	if (cols[res].n)
		json_object_set_new(version, "additionalPrinterColumns", apc);
	else
		json_decref(apc);
	json_t *crd = json_pack(
		"{s:s,s:s,s:{s:s,s:s,s:s,s:i,s:s},"
		"s:{s:s,s:{s:s,s:s,s:s,s:s},s:s,s:[o]},"
		"s:{s:{s:s,s:s,s:s,s:s},s:[s]}}",
		"kind", "CustomResourceDefinition", "apiVersion",
		"apiextensions.k8s.io/v1", "metadata", "name", crd_name, "uid",
		"0c7d0000-0000-4000-8000-00000000c7d0", "resourceVersion", "0",
		"generation", 1, "creationTimestamp", "2025-10-01T00:00:00Z",
		"spec", "group", r->group, "names", "plural", r->resource,
		"singular", r->singular, "kind", r->kind, "listKind",
		r->list_kind, "scope", r->namespaced ? "Namespaced" : "Cluster",
		"versions", version, "status", "acceptedNames", "plural",
		r->resource, "singular", r->singular, "kind", r->kind,
		"listKind", r->list_kind, "storedVersions", r->version);
	if (!crd)
		return -ENOMEM;
	char rvs[24];
	snprintf(rvs, sizeof(rvs), "%llu", (unsigned long long)rv);
	json_object_set_new(json_object_get(crd, "metadata"), "resourceVersion",
			    json_string(rvs));
	s = json_dumps(crd, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(crd);
	if (!s)
		return -ENOMEM;
	buf_adds(out, s);
	free(s);
	return buf_ok(out) ? 0 : -ENOMEM;
}

/* A JSON string as the apiserver's encoder writes it (< > & escaped). */
static void go_str(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			buf_printf(b, "\\%c", ch);
		else if (ch == '\n')
			buf_adds(b, "\\n");
		else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&')
			buf_printf(b, "\\u%04x", ch);
		else
			buf_addc(b, (char)ch);
	}
	buf_addc(b, '"');
}

static const char name_desc[] =
	"Name must be unique within a namespace. Is required when creating "
	"resources, although some resources may allow a client to request the "
	"generation of an appropriate name automatically. Name is primarily "
	"intended for creation idempotence and configuration definition. "
	"Cannot be updated. More info: https://kubernetes.io/docs/concepts/"
	"overview/working-with-objects/names#names";
/* Make cols[res].defs again (before serving, after a column is added). */
static void make_defs(int res)
{
	struct buf b = BUF_INIT;
	free(cols[res].defs);
	buf_adds(&b, "[{\"name\":\"Name\",\"type\":\"string\",\"format\":"
		     "\"name\",\"description\":");
	go_str(&b, name_desc);
	buf_adds(&b, ",\"priority\":0}");
	for (int i = 0; i < cols[res].n; i++) {
		const struct column *c = &cols[res].c[i];
		char desc[320];
		snprintf(desc, sizeof(desc),
			 "Custom resource definition column (in JSONPath "
			 "format): %s",
			 c->path);
		buf_adds(&b, ",{\"name\":");
		go_str(&b, c->name);
		buf_printf(&b,
			   ",\"type\":\"%s\",\"format\":\"\",\"description\":",
			   c->type);
		go_str(&b, desc);
		buf_printf(&b, ",\"priority\":%d}", c->priority);
	}
	buf_addc(&b, ']');
	buf_addc(&b, '\0');
	cols[res].defs = b.p;
}

const char *fake_crd_table_columns(int res)
{
	/* without columns: the default, Name and a date Age */
	return cols[res].n ? cols[res].defs : NULL;
}

/* --- JSONPath walk ---------------------------------------------------- */

static json_t *walk(json_t *v, const char *p);

/* The remainder after a filter "[?(@.f OP lit)]" at p, or NULL; whether
 * element e passes it in *ok. */
static const char *filter(const char *p, json_t *e, bool *ok)
{
	char field[128], lit[128];
	const char *q = p + 5; /* past "[?(@." */
	size_t n = strcspn(q, "=!<> )");
	bool ne;
	json_t *v;
	*ok = false;
	if (n == 0 || n >= sizeof(field))
		return NULL;
	memcpy(field, q, n);
	field[n] = '\0';
	q += n;
	while (*q == ' ')
		q++;
	if (!strncmp(q, ")]", 2)) { /* exists */
		char dotted[130];
		snprintf(dotted, sizeof(dotted), ".%s", field);
		*ok = walk(e, dotted) != NULL;
		return q + 2;
	}
	if (strncmp(q, "==", 2) && strncmp(q, "!=", 2))
		return NULL;
	ne = q[0] == '!';
	q += 2;
	while (*q == ' ')
		q++;
	if (*q == '"' || *q == '\'') {
		char quote = *q++;
		size_t m = strcspn(q, quote == '"' ? "\"" : "'");
		if (m >= sizeof(lit) || q[m] != quote)
			return NULL;
		memcpy(lit, q, m);
		lit[m] = '\0';
		q += m + 1;
		char dotted[130];
		snprintf(dotted, sizeof(dotted), ".%s", field);
		v = walk(e, dotted);
		*ok = json_is_string(v) && !strcmp(json_string_value(v), lit);
	} else {
		char *end;
		double want = strtod(q, &end);
		char dotted[130];
		if (end == q)
			return NULL;
		q = end;
		snprintf(dotted, sizeof(dotted), ".%s", field);
		v = walk(e, dotted);
		*ok = json_is_number(v) && json_number_value(v) == want;
	}
	if (ne)
		*ok = !*ok;
	while (*q == ' ')
		q++;
	return strncmp(q, ")]", 2) ? NULL : q + 2;
}

/* The first value the path p selects under v, or NULL. */
static json_t *walk(json_t *v, const char *p)
{
	char name[256];
	size_t n = 0;
	if (!v)
		return NULL;
	if (!*p)
		return v;
	if (p[0] == '.' && p[1] == '*') {
		const char *k;
		json_t *x, *r;
		json_object_foreach(v, k, x) if ((r = walk(x, p + 2))) return r;
		return NULL;
	}
	if (p[0] == '.') {
		p++;
		while (*p && *p != '.' && *p != '[' && n + 1 < sizeof(name)) {
			if (*p == '\\' && p[1])
				p++;
			name[n++] = *p++;
		}
		name[n] = '\0';
		return walk(json_object_get(v, name), p);
	}
	if (p[0] != '[')
		return NULL;
	if (p[1] == '\'' || p[1] == '"') {
		const char *end = strchr(p + 2, p[1]);
		if (!end || end[1] != ']' ||
		    (size_t)(end - p - 2) >= sizeof(name))
			return NULL;
		snprintf(name, sizeof(name), "%.*s", (int)(end - p - 2), p + 2);
		return walk(json_object_get(v, name), end + 2);
	}
	if (!strncmp(p, "[*]", 3)) {
		size_t i;
		json_t *x, *r;
		json_array_foreach(v, i, x) if ((r = walk(x, p + 3))) return r;
		return NULL;
	}
	if (!strncmp(p, "[?(@.", 5)) {
		size_t i;
		json_t *x, *r;
		const char *rest = NULL;
		json_array_foreach(v, i, x)
		{
			bool ok;
			rest = filter(p, x, &ok);
			if (!rest)
				return NULL;
			if (ok && (r = walk(x, rest)))
				return r;
		}
		return NULL;
	}
	char *end;
	long i = strtol(p + 1, &end, 10);
	if (end == p + 1 || *end != ']' || !json_is_array(v))
		return NULL;
	if (i < 0)
		i += (long)json_array_size(v);
	return i < 0 ? NULL : walk(json_array_get(v, (size_t)i), end + 1);
}

/* --- cells ------------------------------------------------------------ */

static json_t *cell(const struct column *c, json_t *v, time_t now)
{
	if (!v || json_is_null(v))
		return json_null();
	if (!strcmp(c->type, "string")) {
		char *s;
		json_t *r;
		if (json_is_string(v))
			return json_incref(v);
		s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		r = json_string(s ? s : "");
		free(s);
		return r;
	}
	if (!strcmp(c->type, "integer"))
		return json_is_integer(v) ?
			       json_incref(v) :
		       json_is_real(v) ?
			       json_integer((json_int_t)json_real_value(v)) :
			       json_null();
	if (!strcmp(c->type, "number"))
		return json_is_number(v) ? json_incref(v) : json_null();
	if (!strcmp(c->type, "boolean"))
		return json_is_boolean(v) ? json_incref(v) : json_null();
	if (!strcmp(c->type, "date") && json_is_string(v)) {
		struct tm tm;
		char age[32];
		const char *s = json_string_value(v), *end;
		if (!*s || !strcmp(s, "null"))
			return json_string("<unknown>");
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
		if (!end || (*end != 'Z' && *end != '.'))
			return json_string("<invalid>");
		fake_human_duration((long long)(now - timegm(&tm)), age,
				    sizeof(age));
		return json_string(age);
	}
	return json_null();
}

json_t *fake_crd_cells(int res, json_t *o, time_t now)
{
	json_t *r;
	if (!cols[res].n)
		return NULL;
	r = json_array();
	json_array_append_new(
		r,
		json_string(
			json_string_value(json_object_get(json_object_get(o, "metadata"), "name")) ?:
				""));
	for (int i = 0; i < cols[res].n; i++)
		json_array_append_new(r,
				      cell(&cols[res].c[i],
					   walk(o, cols[res].c[i].path), now));
	return r;
}
