/*
 * file: --config FILE, YAML read with libyaml's document API and checked
 * node by node (see file.h).
 */
#include "config/file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/alloc.h"
#include "config/error.h"
#include "config/read.h"
#include "config/yaml.h"

#define CONFIG_FILE_MAX_BYTES (1 << 20)

struct fdoc {
	yaml_document_t doc;
	const char *path;
	char *err;
	size_t errlen;
};

static yaml_node_t *node_at(struct fdoc *f, int idx)
{
	return yaml_document_get_node(&f->doc, idx);
}

/* "FILE:L:C" of node n, xmalloc'd (NULL on ENOMEM). */
static char *where_of(struct fdoc *f, const yaml_node_t *n)
{
	char w[4200];
	snprintf(w, sizeof(w), "%s:%zu:%zu", f->path, n->start_mark.line + 1,
		 n->start_mark.column + 1);
	return xstrdup(w);
}

__attribute__((format(printf, 3, 4))) static int
fail(struct fdoc *f, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	config_error_format(f->err, f->errlen, "%s:%zu:%zu: %s", f->path,
			    n->start_mark.line + 1, n->start_mark.column + 1,
			    msg);
	return -EINVAL;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ?
		       (const char *)n->data.scalar.value :
		       NULL;
}

/* A non-empty string scalar without NUL into *out (borrowed). */
static int want_str(struct fdoc *f, const yaml_node_t *n, const char *what,
		    const char **out)
{
	const char *v = scalar(n);
	if (!v)
		return fail(f, n, "%s: want a string", what);
	if (strlen(v) != n->data.scalar.length)
		return fail(f, n, "%s: contains a NUL character", what);
	if (!*v)
		return fail(f, n, "%s: must not be empty", what);
	*out = v;
	return 0;
}

/* The key of pair p of mapping m into *k (borrowed): a string that no
 * earlier pair of m has. ctx starts the messages ("resources: "). */
static int map_key(struct fdoc *f, const yaml_node_t *m,
		   const yaml_node_pair_t *p, const char *ctx, const char **k)
{
	yaml_node_t *kn = node_at(f, p->key);
	if (!(*k = scalar(kn)))
		return fail(f, kn, "%sa key must be a string", ctx);
	for (const yaml_node_pair_t *q = m->data.mapping.pairs.start; q < p;
	     q++) {
		yaml_node_t *pn = node_at(f, q->key);
		const char *prev = scalar(pn);
		if (prev && !strcmp(prev, *k))
			return fail(f, kn,
				    "%s\"%s\" set twice, first at %s:%zu:%zu",
				    ctx, *k, f->path, pn->start_mark.line + 1,
				    pn->start_mark.column + 1);
	}
	return 0;
}

/* A DNS-1123 label, what a namespace name is. */
static bool dns_label(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

/* A label key: [prefix/]name, name up to 63 of [A-Za-z0-9-_.] starting
 * and ending alphanumeric, prefix a DNS subdomain. */
static bool label_key(const char *s)
{
	const char *slash = strchr(s, '/');
	const char *name = slash ? slash + 1 : s;
	size_t n = strlen(name);
	if (!n || n > 63)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool an = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9');
		if (!an && ((i == 0 || i == n - 1) ||
			    (c != '-' && c != '_' && c != '.')))
			return false;
	}
	if (!slash)
		return true;
	size_t p = (size_t)(slash - s);
	if (!p || p > 253)
		return false;
	for (size_t i = 0; i < p; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		      s[i] == '.'))
			return false;
	return true;
}

int config_file_path_split(const char *path, char (*seg)[256], int max)
{
	int n = 0;
	size_t w = 0;
	for (const char *p = path;; p++) {
		if (*p == '\\') {
			if (!p[1])
				return -EINVAL;
			p++;
		} else if (*p == '.' || !*p) {
			if (!w || n == max)
				return -EINVAL;
			seg[n++][w] = '\0';
			w = 0;
			if (!*p)
				return n;
			continue;
		}
		if (n == max || w + 1 >= 256)
			return -EINVAL;
		seg[n][w++] = *p;
	}
}

/* Paths the cache itself reads: stripping them would break keys,
 * resourceVersions, label selectors or the Table's AGE. */
static const char *const unstrippable[] = {
	"kind",
	"apiVersion",
	"metadata",
	"metadata.name",
	"metadata.namespace",
	"metadata.uid",
	"metadata.resourceVersion",
	"metadata.creationTimestamp",
	"metadata.labels",
};

static int check_strip(struct fdoc *f, const yaml_node_t *n, const char *v)
{
	char seg[8][256];
	int ns = config_file_path_split(v, seg, 8);
	if (ns < 0)
		return fail(f, n,
			    "stripFields: \"%s\" is not a dotted path "
			    "(segments not empty, at most 8, \"\\.\" for a dot "
			    "inside a segment)",
			    v);
	for (size_t i = 0; i < sizeof(unstrippable) / sizeof(*unstrippable);
	     i++) {
		char u[2][256];
		int nu = config_file_path_split(unstrippable[i], u, 2);
		bool prefix = true;
		for (int k = 0; k < nu && k < ns; k++)
			prefix = prefix && !strcmp(u[k], seg[k]);
		/* the path is this field, inside it, or contains it */
		if (prefix &&
		    (ns <= nu || !strcmp(unstrippable[i], "metadata.labels")))
			return fail(f, n,
				    "stripFields: \"%s\" would remove %s, "
				    "which the cache needs",
				    v, unstrippable[i]);
	}
	return 0;
}

/* The sequence n of strings into a NULL-terminated xmalloc'd array;
 * check() (may be NULL) vets each. */
static int
str_list(struct fdoc *f, const yaml_node_t *n, const char *what, int max,
	 int (*check)(struct fdoc *, const yaml_node_t *, const char *),
	 char ***out, int *count)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(f, n, "%s: want a list", what);
	int len = (int)(n->data.sequence.items.top -
			n->data.sequence.items.start);
	if (!len)
		return fail(f, n, "%s: must not be empty (leave it out)", what);
	if (len > max)
		return fail(f, n, "%s: at most %d", what, max);
	char **v = xcalloc((size_t)len + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	*out = v;
	*count = 0;
	for (yaml_node_item_t *i = n->data.sequence.items.start;
	     i < n->data.sequence.items.top; i++) {
		yaml_node_t *e = node_at(f, *i);
		const char *s;
		int rc = want_str(f, e, what, &s);
		if (!rc && check)
			rc = check(f, e, s);
		for (int k = 0; !rc && k < *count; k++) {
			yaml_node_t *first =
				node_at(f, n->data.sequence.items.start[k]);
			if (!strcmp(v[k], s))
				rc = fail(f, e,
					  "%s: \"%s\" named twice, first at "
					  "%s:%zu:%zu",
					  what, s, f->path,
					  first->start_mark.line + 1,
					  first->start_mark.column + 1);
		}
		if (rc)
			return rc;
		if (!(v[*count] = xstrdup(s)))
			return -ENOMEM;
		(*count)++;
	}
	return 0;
}

static int check_ns(struct fdoc *f, const yaml_node_t *n, const char *v)
{
	if (!dns_label(v))
		return fail(f, n,
			    "namespaces: \"%s\" is not a namespace name "
			    "(a DNS-1123 label)",
			    v);
	return 0;
}

/* indexes: "metadata.labels.KEY"; keeps KEY. */
static int check_index(struct fdoc *f, const yaml_node_t *n, const char *v)
{
	static const char pre[] = "metadata.labels.";
	if (strncmp(v, pre, sizeof(pre) - 1) || !label_key(v + sizeof(pre) - 1))
		return fail(f, n,
			    "indexes: \"%s\" is not metadata.labels.KEY with "
			    "KEY a label key",
			    v);
	return 0;
}

static int load_entry(struct fdoc *f, yaml_node_t *e, struct config_scope *s)
{
	if (e->type != YAML_MAPPING_NODE)
		return fail(f, e,
			    "resources: each entry is a mapping with at least "
			    "\"resource\"");
	if (!(s->where = where_of(f, e)))
		return -ENOMEM;
	for (yaml_node_pair_t *p = e->data.mapping.pairs.start;
	     p < e->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node_at(f, p->key),
			    *vn = node_at(f, p->value);
		const char *k, *v;
		int rc;
		if ((rc = map_key(f, e, p, "resources: ", &k)))
			return rc;
		if (!strcmp(k, "resource")) {
			if ((rc = want_str(f, vn, "resource", &v)))
				return rc;
			if (!(s->resource = xstrdup(v)))
				return -ENOMEM;
		} else if (!strcmp(k, "namespaces")) {
			if ((rc = str_list(f, vn, "namespaces",
					   CONFIG_MAX_NAMESPACES, check_ns,
					   &s->namespaces, &s->nnamespaces)))
				return rc;
		} else if (!strcmp(k, "labelSelector") ||
			   !strcmp(k, "fieldSelector")) {
			bool l = k[0] == 'l';
			if ((rc = want_str(f, vn, k, &v)))
				return rc;
			char **sel =
				l ? &s->label_selector : &s->field_selector;
			char **w = l ? &s->label_where : &s->field_where;
			if (!(*sel = xstrdup(v)) || !(*w = where_of(f, vn)))
				return -ENOMEM;
		} else if (!strcmp(k, "stripFields")) {
			if ((rc = str_list(f, vn, "stripFields",
					   CONFIG_MAX_STRIP, check_strip,
					   &s->strip, &s->nstrip)))
				return rc;
		} else if (!strcmp(k, "indexes")) {
			if ((rc = str_list(f, vn, "indexes", CONFIG_MAX_INDEXES,
					   check_index, &s->indexes,
					   &s->nindexes)))
				return rc;
			/* keep the label key alone */
			for (int i = 0; i < s->nindexes; i++)
				memmove(s->indexes[i],
					s->indexes[i] +
						strlen("metadata.labels."),
					strlen(s->indexes[i]) -
						strlen("metadata.labels.") + 1);
		} else {
			return fail(f, kn,
				    "resources: unknown key \"%s\" (want "
				    "resource, namespaces, labelSelector, "
				    "fieldSelector, stripFields, indexes)",
				    k);
		}
	}
	if (!s->resource)
		return fail(f, e, "resources: entry without \"resource\"");
	return 0;
}

static int load_resources(struct fdoc *f, yaml_node_t *n,
			  struct config_file *out)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(f, n, "resources: want a list");
	int len = (int)(n->data.sequence.items.top -
			n->data.sequence.items.start);
	if (!(out->res = xcalloc((size_t)len + 1, sizeof(*out->res))))
		return -ENOMEM;
	for (int i = 0; i < len; i++) {
		yaml_node_t *e = node_at(f, n->data.sequence.items.start[i]);
		int rc = load_entry(f, e, &out->res[out->nres++]);
		if (rc)
			return rc;
		for (int k = 0; k + 1 < out->nres; k++)
			if (!strcmp(out->res[k].resource,
				    out->res[out->nres - 1].resource))
				return fail(f, e,
					    "resources: \"%s\" named twice, "
					    "first at %s (list every namespace "
					    "of a resource in one entry)",
					    out->res[k].resource,
					    out->res[k].where);
	}
	return 0;
}

static int load_root(struct fdoc *f, struct config_file *out)
{
	yaml_node_t *root = yaml_document_get_root_node(&f->doc);
	if (!root) {
		config_error_format(f->err, f->errlen,
				    "%s: empty configuration", f->path);
		return -EINVAL;
	}
	if (root->type != YAML_MAPPING_NODE)
		return fail(f, root, "want a mapping at the top");
	int len = (int)(root->data.mapping.pairs.top -
			root->data.mapping.pairs.start);
	if (!(out->globals = xcalloc((size_t)len + 1, sizeof(*out->globals))))
		return -ENOMEM;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node_at(f, p->key),
			    *vn = node_at(f, p->value);
		const char *k, *v;
		int rc;
		if ((rc = map_key(f, root, p, "", &k)))
			return rc;
		if (!strcmp(k, "resources")) {
			if ((rc = load_resources(f, vn, out)))
				return rc;
			continue;
		}
		if (vn->type != YAML_SCALAR_NODE)
			return fail(f, vn, "%s: want a single value", k);
		if ((rc = want_str(f, vn, k, &v)))
			return rc;
		struct config_file_global *g = &out->globals[out->nglobals++];
		if (!(g->key = xstrdup(k)) || !(g->value = xstrdup(v)) ||
		    !(g->where = where_of(f, kn)))
			return -ENOMEM;
	}
	return 0;
}

int config_file_load(const char *path, struct config_file *out, char *err,
		     size_t errlen)
{
	struct fdoc f = { .path = path, .err = err, .errlen = errlen };
	char *text = NULL;
	size_t len;
	bool parsed = false;
	memset(out, 0, sizeof(*out));
	int rc = config_read_file(path, CONFIG_FILE_MAX_BYTES, &text, &len,
				  NULL);
	if (rc) {
		config_error_format(
			err, errlen, "--config %s: cannot read: %s", path,
			rc == -EFBIG ? "larger than 1 MiB" : strerror(-rc));
		goto out;
	}
	struct config_yaml_error why;
	if ((rc = config_yaml_load(&f.doc, text, len, &why))) {
		if (rc == -EINVAL)
			config_error_format(
				err, errlen, "%s:%zu:%zu: invalid YAML: %s",
				path, why.line, why.column, why.problem);
		goto out;
	}
	parsed = true;
	rc = load_root(&f, out);
out:
	if (rc == -ENOMEM)
		config_error_format(err, errlen, "out of memory");
	if (parsed)
		yaml_document_delete(&f.doc);
	free(text);
	if (rc)
		config_file_free(out);
	return rc;
}

static void free_list(char **v)
{
	for (int i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void config_file_scope_free(struct config_scope *s)
{
	free(s->resource);
	free(s->where);
	free_list(s->namespaces);
	free(s->label_selector);
	free(s->label_where);
	free(s->field_selector);
	free(s->field_where);
	free_list(s->strip);
	free_list(s->indexes);
	memset(s, 0, sizeof(*s));
}

void config_file_free(struct config_file *f)
{
	for (int i = 0; f->res && i < f->nres; i++)
		config_file_scope_free(&f->res[i]);
	free(f->res);
	for (int i = 0; i < f->nglobals; i++) {
		free(f->globals[i].key);
		free(f->globals[i].value);
		free(f->globals[i].where);
	}
	free(f->globals);
	memset(f, 0, sizeof(*f));
}

static int dup_str(char **dst, const char *src)
{
	*dst = NULL;
	return src && !(*dst = xstrdup(src)) ? -ENOMEM : 0;
}

static int dup_list(char ***dst, char *const *src, int n)
{
	*dst = NULL;
	if (!src)
		return 0;
	if (!(*dst = xcalloc((size_t)n + 1, sizeof(**dst))))
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		if (!((*dst)[i] = xstrdup(src[i])))
			return -ENOMEM;
	return 0;
}

int config_file_scope_copy(struct config_scope *dst,
			   const struct config_scope *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->nnamespaces = src->nnamespaces;
	dst->nstrip = src->nstrip;
	dst->nindexes = src->nindexes;
	if (dup_str(&dst->resource, src->resource) ||
	    dup_str(&dst->where, src->where) ||
	    dup_list(&dst->namespaces, src->namespaces, src->nnamespaces) ||
	    dup_str(&dst->label_selector, src->label_selector) ||
	    dup_str(&dst->label_where, src->label_where) ||
	    dup_str(&dst->field_selector, src->field_selector) ||
	    dup_str(&dst->field_where, src->field_where) ||
	    dup_list(&dst->strip, src->strip, src->nstrip) ||
	    dup_list(&dst->indexes, src->indexes, src->nindexes)) {
		config_file_scope_free(dst);
		return -ENOMEM;
	}
	return 0;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool list_eq(char *const *a, int na, char *const *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

bool config_file_scope_equal(const struct config_scope *a,
			     const struct config_scope *b)
{
	return str_eq(a->resource, b->resource) &&
	       list_eq(a->namespaces, a->nnamespaces, b->namespaces,
		       b->nnamespaces) &&
	       str_eq(a->label_selector, b->label_selector) &&
	       str_eq(a->field_selector, b->field_selector) &&
	       list_eq(a->strip, a->nstrip, b->strip, b->nstrip) &&
	       list_eq(a->indexes, a->nindexes, b->indexes, b->nindexes);
}
