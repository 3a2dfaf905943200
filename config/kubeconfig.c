/*
 * kubeconfig: a kubeconfig file read into a struct config_upstream (see
 * kubeconfig.h). Which file, and what else may supply the upstream, is
 * config/source.c; the URL rules are config/upstream.c; what is done
 * with the credentials at run time is config/creds.c.
 *
 * The kubeconfig is read with libyaml's document API. We follow client-go
 * (k8s.io/client-go/tools/clientcmd) where it matters: relative paths are
 * relative to the file's directory, *-data fields are standard base64,
 * certificate-authority and certificate-authority-data together or a CA
 * with insecure-skip-tls-verify are errors, unknown keys are ignored. We
 * differ by refusing, with the field named, everything that would change
 * authentication and that we do not implement.
 */
#include "config/kubeconfig.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "config/alloc.h"
#include "config/buf.h"
#include "config/creds.h"
#include "config/error.h"
#include "config/read.h"
#include "config/yaml.h"

#define KUBECONFIG_MAX_BYTES (16 << 20)


/* ---- paths and URLs ---------------------------------------------------- */

/* p made absolute against dir (absolute itself), as client-go's
 * ResolvePaths does; NULL on allocation failure. */
static char *path_join(const char *dir, const char *p)
{
	if (p[0] == '/')
		return xstrdup(p);
	size_t n = strlen(dir) + strlen(p) + 2;
	char *r = xmalloc(n);
	if (r)
		snprintf(r, n, "%s/%s", dir, p);
	return r;
}

/* The absolute directory holding file path, into dir. */
static int dir_of(const char *path, char *dir, size_t dirlen)
{
	const char *slash = strrchr(path, '/');
	char cwd[PATH_MAX];
	if (slash == path)
		return snprintf(dir, dirlen, "/") < (int)dirlen ? 0 :
								  -ENAMETOOLONG;
	if (path[0] == '/')
		return snprintf(dir, dirlen, "%.*s", (int)(slash - path),
				path) < (int)dirlen ?
			       0 :
			       -ENAMETOOLONG;
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	int n = slash ? snprintf(dir, dirlen, "%s/%.*s", cwd,
				 (int)(slash - path), path) :
			snprintf(dir, dirlen, "%s", cwd);
	return n >= 0 && n < (int)dirlen ? 0 : -ENAMETOOLONG;
}

/* ---- YAML helpers ------------------------------------------------------- */

struct kdoc {
	yaml_document_t doc;
	const char *path;   /* for messages */
	char dir[PATH_MAX]; /* absolute directory of path */
	char *err;
	size_t errlen;
};

static yaml_node_t *node_at(struct kdoc *k, int idx)
{
	return yaml_document_get_node(&k->doc, idx);
}

/* The value under key in mapping m, or NULL. */
static yaml_node_t *map_get(struct kdoc *k, yaml_node_t *m, const char *key)
{
	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
	     p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node_at(k, p->key);
		if (kn && kn->type == YAML_SCALAR_NODE &&
		    strcmp((char *)kn->data.scalar.value, key) == 0)
			return node_at(k, p->value);
	}
	return NULL;
}

static bool scalar_is_null(const yaml_node_t *n)
{
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") ||
	       !strcmp(v, "Null") || !strcmp(v, "NULL");
}

/* Whether a field is set to something: a non-empty scalar, mapping or
 * sequence. client-go treats empty values as unset, so do we. */
static bool node_set(const yaml_node_t *n)
{
	if (!n)
		return false;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return n->data.scalar.length && !scalar_is_null(n);
	case YAML_MAPPING_NODE:
		return n->data.mapping.pairs.top > n->data.mapping.pairs.start;
	case YAML_SEQUENCE_NODE:
		return n->data.sequence.items.top >
		       n->data.sequence.items.start;
	default:
		return false;
	}
}

/* The string under key in m into *out (NULL when unset or empty).
 * where names the object for messages ("cluster \"c\""). */
static int get_str(struct kdoc *k, yaml_node_t *m, const char *key,
		   const char *where, const char **out)
{
	yaml_node_t *n = map_get(k, m, key);
	*out = NULL;
	if (!node_set(n))
		return 0;
	if (n->type != YAML_SCALAR_NODE) {
		config_error_format(k->err, k->errlen,
				    "kubeconfig %s: %s: %s must be a string",
				    k->path, where, key);
		return -EINVAL;
	}
	if (strlen((char *)n->data.scalar.value) != n->data.scalar.length) {
		config_error_format(k->err, k->errlen,
				    "kubeconfig %s: %s: %s contains a NUL "
				    "character",
				    k->path, where, key);
		return -EINVAL;
	}
	*out = (const char *)n->data.scalar.value;
	return 0;
}

static int get_bool(struct kdoc *k, yaml_node_t *m, const char *key,
		    const char *where, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes",
					   "YES",  "on",   "On",   "ON" };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No",
					  "NO",	   "off",   "Off",   "OFF" };
	const char *v;
	int rc = get_str(k, m, key, where, &v);
	*out = false;
	if (rc || !v)
		return rc;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(v, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(v, no[i]))
			return 0;
	}
	config_error_format(k->err, k->errlen,
			    "kubeconfig %s: %s: %s must be true or false",
			    k->path, where, key);
	return -EINVAL;
}

/* Names of the entries of list `list` (clusters/users/contexts), for
 * messages: "a, b, c" or "none". */
static void list_names(struct kdoc *k, yaml_node_t *root, const char *list,
		       char *out, size_t outlen)
{
	yaml_node_t *seq = map_get(k, root, list);
	size_t used = 0;
	out[0] = '\0';
	if (seq && seq->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *i = seq->data.sequence.items.start;
		     i < seq->data.sequence.items.top; i++) {
			yaml_node_t *nm = map_get(k, node_at(k, *i), "name");
			if (!nm || nm->type != YAML_SCALAR_NODE)
				continue;
			int w = snprintf(out + used, outlen - used, "%s%s",
					 used ? ", " : "",
					 (char *)nm->data.scalar.value);
			if (w < 0 || (size_t)w >= outlen - used) {
				if (outlen > 4)
					strcpy(out + outlen - 4, "...");
				return;
			}
			used += (size_t)w;
		}
	}
	if (!used)
		snprintf(out, outlen, "none");
}

/* The `inner` mapping of the entry of `list` whose name is `name`, e.g.
 * clusters[name=c].cluster. Returns 0 with *out NULL when not found. */
static int find_named(struct kdoc *k, yaml_node_t *root, const char *list,
		      const char *inner, const char *name, yaml_node_t **out)
{
	yaml_node_t *seq = map_get(k, root, list);
	*out = NULL;
	if (!node_set(seq))
		return 0;
	if (seq->type != YAML_SEQUENCE_NODE) {
		config_error_format(k->err, k->errlen,
				    "kubeconfig %s: %s must be a list", k->path,
				    list);
		return -EINVAL;
	}
	for (yaml_node_item_t *i = seq->data.sequence.items.start;
	     i < seq->data.sequence.items.top; i++) {
		yaml_node_t *e = node_at(k, *i);
		yaml_node_t *nm = map_get(k, e, "name");
		if (!nm || nm->type != YAML_SCALAR_NODE ||
		    strcmp((char *)nm->data.scalar.value, name) != 0)
			continue;
		yaml_node_t *in = map_get(k, e, inner);
		if (node_set(in) && in->type != YAML_MAPPING_NODE) {
			config_error_format(k->err, k->errlen,
					    "kubeconfig %s: %s \"%s\": %s "
					    "must be a mapping",
					    k->path, list, name, inner);
			return -EINVAL;
		}
		/* An entry with no body stays NULL: map_get finds nothing. */
		*out = node_set(in) ? in : NULL;
		return 1;
	}
	return 0;
}

/* ---- kubeconfig fields -------------------------------------------------- */

/* A file a field names: absolute, and readable now so that a typo fails
 * at startup rather than at the first TLS handshake. */
static int file_field(struct kdoc *k, const char *where, const char *field,
		      const char *value, char **out)
{
	char *p = path_join(k->dir, value);
	if (!p) {
		config_error_format(k->err, k->errlen, "out of memory");
		return -ENOMEM;
	}
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		config_error_format(k->err, k->errlen,
				    "kubeconfig %s: %s: %s %s: %s", k->path,
				    where, field, p, strerror(e));
		free(p);
		return -e;
	}
	close(fd);
	*out = p;
	return 0;
}

/* A *-data field: standard base64 (newlines and spaces ignored, padding
 * optional) that must decode to PEM. The value never reaches a message. */
static int data_field(struct kdoc *k, const char *where, const char *field,
		      const char *value, struct config_pem *pem, bool secret)
{
	size_t n = strlen(value), m = 0;
	char *clean = xmalloc(n + 1);
	struct buf b = BUF_INIT;
	int rc;
	if (!clean) {
		config_error_format(k->err, k->errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (value[i] == '-' || value[i] == '_') {
			rc = -EINVAL; /* base64url: not what kubeconfig uses */
			goto bad;
		}
		if (!isspace((unsigned char)value[i]))
			clean[m++] = value[i];
	}
	rc = buf_base64url_decode(clean, m, &b);
	if (rc == -ENOMEM) {
		config_error_format(k->err, k->errlen, "out of memory");
		goto out;
	}
	if (rc || !b.len)
		goto bad;
	size_t len;
	char *data = buf_steal(&b, &len);
	if (!data) {
		rc = -ENOMEM;
		config_error_format(k->err, k->errlen, "out of memory");
		goto out;
	}
	if (!memmem(data, len, "-----BEGIN ", 11)) {
		if (secret)
			explicit_bzero(data, len);
		free(data);
		config_error_format(
			k->err, k->errlen,
			"kubeconfig %s: %s: %s decodes to "
			"something that is not PEM (no -----BEGIN line); is it "
			"base64-encoded twice?",
			k->path, where, field);
		rc = -EINVAL;
		goto out;
	}
	pem->data = (unsigned char *)data;
	pem->len = len;
	rc = 0;
	goto out;
bad:
	rc = -EINVAL;
	config_error_format(k->err, k->errlen,
			    "kubeconfig %s: %s: %s is not valid base64",
			    k->path, where, field);
out:
	if (b.p && secret)
		explicit_bzero(b.p, b.cap);
	buf_free(&b);
	explicit_bzero(clean, n + 1);
	free(clean);
	return rc;
}

/* One PEM item given as `field` (a path) or `field-data` (base64). */
static int pem_field(struct kdoc *k, yaml_node_t *m, const char *where,
		     const char *field, struct config_pem *pem, bool secret)
{
	char datakey[64];
	const char *file, *data;
	int rc;
	snprintf(datakey, sizeof(datakey), "%s-data", field);
	if ((rc = get_str(k, m, field, where, &file)) ||
	    (rc = get_str(k, m, datakey, where, &data)))
		return rc;
	if (file && data) {
		config_error_format(k->err, k->errlen,
				    "kubeconfig %s: %s: both %s and %s are "
				    "set; keep one",
				    k->path, where, field, datakey);
		return -EINVAL;
	}
	if (data)
		return data_field(k, where, datakey, data, pem, secret);
	if (file)
		return file_field(k, where, field, file, &pem->path);
	return 0;
}

static int load_cluster(struct kdoc *k, yaml_node_t *c, const char *name,
			bool need_server, struct config_upstream *up)
{
	char where[300];
	const char *server, *tls, *proxy;
	int rc;
	snprintf(where, sizeof(where), "cluster \"%s\"", name);
	if ((rc = get_str(k, c, "proxy-url", where, &proxy)))
		return rc;
	if (proxy) {
		config_error_format(
			k->err, k->errlen,
			"kubeconfig %s: %s sets proxy-url, which "
			"informer-proxy does not support; remove it or reach the "
			"apiserver directly",
			k->path, where);
		return -ENOTSUP;
	}
	if ((rc = get_str(k, c, "server", where, &server)) ||
	    (rc = get_str(k, c, "tls-server-name", where, &tls)) ||
	    (rc = get_bool(k, c, "insecure-skip-tls-verify", where,
			   &up->insecure_skip_tls_verify)))
		return rc;
	if (!server && need_server) {
		config_error_format(
			k->err, k->errlen,
			"kubeconfig %s: %s has no server; set "
			"clusters[].cluster.server or pass --server",
			k->path, where);
		return -EINVAL;
	}
	if (server) {
		char what[PATH_MAX + 320];
		snprintf(what, sizeof(what), "kubeconfig %s: %s", k->path,
			 where);
		if ((rc = config_upstream_set_server(up, server, what, k->err,
						     k->errlen))) {
			if (rc == -ENOMEM)
				config_error_format(k->err, k->errlen,
						    "out of memory");
			return rc;
		}
	}
	if (tls && !(up->tls_server_name = xstrdup(tls))) {
		config_error_format(k->err, k->errlen, "out of memory");
		return -ENOMEM;
	}
	if ((rc = pem_field(k, c, where, "certificate-authority", &up->ca,
			    false)))
		return rc;
	if (up->insecure_skip_tls_verify && (up->ca.path || up->ca.data)) {
		config_error_format(
			k->err, k->errlen,
			"kubeconfig %s: %s: a certificate "
			"authority together with insecure-skip-tls-verify is not "
			"allowed; drop one",
			k->path, where);
		return -EINVAL;
	}
	return 0;
}

/* Fields of a user that change how we must authenticate and that we do
 * not implement. */
static const struct {
	const char *field;
	const char *what;
} unsupported_user[] = {
	{ "exec", "credential plugins" },
	{ "auth-provider", "auth provider plugins" },
	{ "username", "basic authentication" },
	{ "password", "basic authentication" },
	{ "as", "impersonation" },
	{ "as-uid", "impersonation" },
	{ "as-groups", "impersonation" },
	{ "as-user-extra", "impersonation" },
};

static int load_user(struct kdoc *k, yaml_node_t *u, const char *name,
		     struct config_upstream *up)
{
	char where[300];
	const char *token, *tfile;
	int rc;
	snprintf(where, sizeof(where), "user \"%s\"", name);
	for (size_t i = 0;
	     i < sizeof(unsupported_user) / sizeof(unsupported_user[0]); i++) {
		if (!node_set(map_get(k, u, unsupported_user[i].field)))
			continue;
		config_error_format(
			k->err, k->errlen,
			"kubeconfig %s: %s sets %s (%s), which "
			"informer-proxy does not support; use token, tokenFile or "
			"client-certificate and client-key instead",
			k->path, where, unsupported_user[i].field,
			unsupported_user[i].what);
		return -ENOTSUP;
	}
	if ((rc = pem_field(k, u, where, "client-certificate", &up->cert,
			    false)) ||
	    (rc = pem_field(k, u, where, "client-key", &up->key, true)))
		return rc;
	if (!(up->cert.path || up->cert.data) !=
	    !(up->key.path || up->key.data)) {
		config_error_format(
			k->err, k->errlen,
			"kubeconfig %s: %s: a client certificate "
			"needs both client-certificate(-data) and client-key(-data)",
			k->path, where);
		return -EINVAL;
	}
	if ((rc = get_str(k, u, "token", where, &token)) ||
	    (rc = get_str(k, u, "tokenFile", where, &tfile)))
		return rc;
	if (token) {
		/* client-go: a literal token wins over tokenFile */
		if (!config_creds_token_valid(token)) {
			config_error_format(k->err, k->errlen,
					    "kubeconfig %s: %s: token contains "
					    "spaces or control characters",
					    k->path, where);
			return -EINVAL;
		}
		if (!(up->token = xstrdup(token))) {
			config_error_format(k->err, k->errlen, "out of memory");
			return -ENOMEM;
		}
	} else if (tfile) {
		if ((rc = file_field(k, where, "tokenFile", tfile,
				     &up->token_file)))
			return rc;
	}
	return 0;
}

static int load_doc(struct kdoc *k, const char *context, bool need_server,
		    struct config_upstream *up)
{
	yaml_node_t *root = yaml_document_get_root_node(&k->doc);
	yaml_node_t *ctx = NULL, *cl = NULL, *us = NULL;
	const char *ctxname = context, *clname, *usname;
	char names[256];
	int rc;
	if (root && node_set(root) && root->type != YAML_MAPPING_NODE) {
		config_error_format(k->err, k->errlen,
				    "kubeconfig %s: not a kubeconfig (the "
				    "top level is not a mapping)",
				    k->path);
		return -EINVAL;
	}
	if (!ctxname || !*ctxname) {
		if ((rc = get_str(k, root, "current-context", "top level",
				  &ctxname)))
			return rc;
		if (!ctxname) {
			list_names(k, root, "contexts", names, sizeof(names));
			config_error_format(
				k->err, k->errlen,
				"kubeconfig %s: current-context "
				"is not set; pass --context NAME (contexts: %s)",
				k->path, names);
			return -ENOENT;
		}
	}
	if ((rc = find_named(k, root, "contexts", "context", ctxname, &ctx)) <
	    0)
		return rc;
	if (!rc) {
		list_names(k, root, "contexts", names, sizeof(names));
		config_error_format(k->err, k->errlen,
				    "kubeconfig %s: context \"%s\" not found "
				    "(contexts: %s)",
				    k->path, ctxname, names);
		return -ENOENT;
	}
	char where[300];
	snprintf(where, sizeof(where), "context \"%s\"", ctxname);
	if ((rc = get_str(k, ctx, "cluster", where, &clname)) ||
	    (rc = get_str(k, ctx, "user", where, &usname)))
		return rc;
	if (!clname) {
		config_error_format(k->err, k->errlen,
				    "kubeconfig %s: context \"%s\" names no "
				    "cluster; set contexts[].context.cluster",
				    k->path, ctxname);
		return -EINVAL;
	}
	if ((rc = find_named(k, root, "clusters", "cluster", clname, &cl)) < 0)
		return rc;
	if (!rc) {
		list_names(k, root, "clusters", names, sizeof(names));
		config_error_format(
			k->err, k->errlen,
			"kubeconfig %s: context \"%s\" refers to "
			"cluster \"%s\", which is not in clusters (clusters: %s)",
			k->path, ctxname, clname, names);
		return -ENOENT;
	}
	if ((rc = load_cluster(k, cl, clname, need_server, up)))
		return rc;
	if (usname) {
		if ((rc = find_named(k, root, "users", "user", usname, &us)) <
		    0)
			return rc;
		if (!rc) {
			list_names(k, root, "users", names, sizeof(names));
			config_error_format(
				k->err, k->errlen,
				"kubeconfig %s: context \"%s\" "
				"refers to user \"%s\", which is not in users "
				"(users: %s)",
				k->path, ctxname, usname, names);
			return -ENOENT;
		}
		if ((rc = load_user(k, us, usname, up)))
			return rc;
	}
	size_t n = strlen(k->path) + strlen(ctxname) + 32;
	if (!(up->source = xmalloc(n))) {
		config_error_format(k->err, k->errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(up->source, n, "kubeconfig %s context %s", k->path, ctxname);
	return 0;
}

int config_kubeconfig_load(const char *path, const char *context,
			   bool need_server, struct config_upstream *out,
			   char *err, size_t errlen)
{
	struct kdoc *k = NULL;
	bool parsed = false;
	char *text = NULL;
	size_t len;
	int rc;

	config_upstream_init(out);
	if (!path || !*path) {
		config_error_format(err, errlen, "kubeconfig: empty path");
		rc = -EINVAL;
		goto out;
	}
	rc = config_read_file(path, KUBECONFIG_MAX_BYTES, &text, &len, NULL);
	if (rc) {
		if (rc == -ENOMEM)
			config_error_format(err, errlen, "out of memory");
		else if (rc == -EFBIG)
			config_error_format(err, errlen,
					    "kubeconfig %s: larger than %d MiB",
					    path, KUBECONFIG_MAX_BYTES >> 20);
		else
			config_error_format(
				err, errlen, "kubeconfig %s: cannot read: %s%s",
				path, strerror(-rc),
				rc == -ENOENT ? "; pass --kubeconfig PATH or "
						"--server URL" :
						"");
		goto out;
	}
	if (!(k = xcalloc(1, sizeof(*k)))) {
		config_error_format(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	k->path = path;
	k->err = err;
	k->errlen = errlen;
	if ((rc = dir_of(path, k->dir, sizeof(k->dir)))) {
		config_error_format(
			err, errlen,
			"kubeconfig %s: cannot resolve its directory: "
			"%s",
			path, strerror(-rc));
		goto out;
	}
	struct config_yaml_error why;
	if ((rc = config_yaml_load(&k->doc, text, len, &why))) {
		if (rc == -ENOMEM)
			config_error_format(err, errlen, "out of memory");
		else
			config_error_format(
				err, errlen,
				"kubeconfig %s: invalid YAML at line "
				"%zu column %zu: %s",
				path, why.line, why.column, why.problem);
		goto out;
	}
	parsed = true;
	if ((rc = load_doc(k, context, need_server, out)))
		goto out;
	if (out->server && (rc = config_upstream_set_url_base(out))) {
		config_error_format(err, errlen, "out of memory");
		goto out;
	}
	char prefix[PATH_MAX + 32];
	snprintf(prefix, sizeof(prefix), "kubeconfig %s: ", path);
	rc = config_creds_token_check(out, prefix, err, errlen);
out:
	if (parsed)
		yaml_document_delete(&k->doc);
	free(k);
	if (text) {
		explicit_bzero(text, len); /* it may hold keys and tokens */
		free(text);
	}
	if (rc)
		config_upstream_free(out);
	return rc;
}
