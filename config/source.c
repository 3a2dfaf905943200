/*
 * source: where the upstream comes from (see source.h): --kubeconfig,
 * the pod's service account, $KUBECONFIG, ~/.kube/config, or --server
 * alone, in that order, and --server over any of them. Reading a
 * kubeconfig is config/kubeconfig.c; the URL rules are
 * config/upstream.c.
 */
#include "config/source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/creds.h"
#include "config/error.h"
#include "config/kubeconfig.h"

/* ---- in-cluster ---------------------------------------------------------- */

/* The pod's service account: https://$KUBERNETES_SERVICE_HOST:
 * $KUBERNETES_SERVICE_PORT (an IPv6 host gets brackets), token file
 * root/token (re-read on rotation), CA root/ca.crt. root NULL means
 * CONFIG_SOURCE_INCLUSTER_ROOT. */
static int incluster_load(const char *root, struct config_upstream *out,
			  char *err, size_t errlen)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	int rc;

	config_upstream_init(out);
	if (!root || !*root)
		root = CONFIG_SOURCE_INCLUSTER_ROOT;
	if (!host || !*host || !port || !*port) {
		config_error_format(
			err, errlen,
			"in-cluster: KUBERNETES_SERVICE_HOST and "
			"KUBERNETES_SERVICE_PORT must both be set; outside a pod "
			"pass --kubeconfig or --server");
		rc = -ENOENT;
		goto out;
	}
	bool v6 = strchr(host, ':') && host[0] != '[';
	size_t n = strlen(host) + strlen(port) + 16;
	size_t rn = strlen(root) + 16;
	out->server = xmalloc(n);
	out->token_file = xmalloc(rn);
	out->ca.path = xmalloc(rn);
	out->source = xstrdup("in-cluster");
	if (!out->server || !out->token_file || !out->ca.path || !out->source) {
		config_error_format(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	snprintf(out->server, n, "https://%s%s%s:%s", v6 ? "[" : "", host,
		 v6 ? "]" : "", port);
	snprintf(out->token_file, rn, "%s/token", root);
	snprintf(out->ca.path, rn, "%s/ca.crt", root);
	int fd = open(out->ca.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		config_error_format(err, errlen,
				    "in-cluster: CA %s: %s (is the service "
				    "account token mounted?)",
				    out->ca.path, strerror(-rc));
		goto out;
	}
	close(fd);
	if ((rc = config_upstream_set_url_base(out))) {
		config_error_format(err, errlen, "out of memory");
		goto out;
	}
	rc = config_creds_token_check(out, "in-cluster: ", err, errlen);
out:
	if (rc)
		config_upstream_free(out);
	return rc;
}

/* ---- selection: --kubeconfig, in-cluster, $KUBECONFIG, ~/.kube/config -- */

static bool file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* Apply --server over whatever was loaded. */
static int override_server(struct config_upstream *up, const char *server,
			   char *err, size_t errlen)
{
	int rc =
		config_upstream_set_server(up, server, "--server", err, errlen);
	if (!rc)
		rc = config_upstream_set_url_base(up);
	if (rc == -ENOMEM)
		config_error_format(err, errlen, "out of memory");
	if (rc)
		return rc;
	size_t n = (up->source ? strlen(up->source) : 0) + 32;
	char *s = xmalloc(n);
	if (!s) {
		config_error_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (up->source)
		snprintf(s, n, "%s, server from --server", up->source);
	else
		snprintf(s, n, "--server");
	free(up->source);
	up->source = s;
	return 0;
}

int config_source_resolve(const char *kubeconfig_flag, const char *context_flag,
			  const char *server_flag, const char *sa_dir,
			  struct config_upstream *out, char *err, size_t errlen)
{
	const char *sa_host = getenv("KUBERNETES_SERVICE_HOST");
	const char *env = getenv("KUBECONFIG");
	const char *home = getenv("HOME");
	bool have_server = server_flag && *server_flag;
	bool have_ctx = context_flag && *context_flag;
	char path[PATH_MAX];
	int rc;

	path[0] = '\0';
	if (kubeconfig_flag && *kubeconfig_flag) {
		snprintf(path, sizeof(path), "%s", kubeconfig_flag);
	} else if (sa_host && *sa_host && !have_ctx) {
		/* --context only makes sense with a kubeconfig, so it skips
		 * the in-cluster step. */
		rc = incluster_load(sa_dir && *sa_dir ? sa_dir : NULL, out, err,
				    errlen);
		if (!rc && have_server)
			rc = override_server(out, server_flag, err, errlen);
		goto out;
	} else if (env && *env) {
		/* client-go merges every file of the list; we take the first
		 * one that exists, which covers the common single-file use. */
		const char *p = env;
		while (*p && !path[0]) {
			size_t n = strcspn(p, ":");
			if (n && n < sizeof(path)) {
				snprintf(path, sizeof(path), "%.*s", (int)n, p);
				if (!file_exists(path))
					path[0] = '\0';
			}
			p += n + (p[n] == ':');
		}
		if (!path[0] && !have_server) {
			config_upstream_init(out);
			config_error_format(
				err, errlen,
				"KUBECONFIG=%s names no existing file; "
				"fix it, or pass --kubeconfig PATH or --server URL",
				env);
			rc = -ENOENT;
			goto out;
		}
	} else if (home && *home) {
		snprintf(path, sizeof(path), "%s/.kube/config", home);
		if (!file_exists(path))
			path[0] = '\0';
	}

	if (path[0]) {
		rc = config_kubeconfig_load(path, context_flag, !have_server,
					    out, err, errlen);
		if (!rc && have_server)
			rc = override_server(out, server_flag, err, errlen);
	} else if (have_server) {
		config_upstream_init(out);
		rc = override_server(out, server_flag, err, errlen);
	} else {
		config_upstream_init(out);
		config_error_format(
			err, errlen,
			"no upstream configured: pass --server URL or "
			"--kubeconfig PATH, set KUBECONFIG, create ~/.kube/config, "
			"or run in a pod with a service account");
		rc = -ENOENT;
	}
out:
	if (rc)
		config_upstream_free(out);
	return rc;
}
