/*
 * kubeconfig: how to reach the upstream apiserver, and as whom.
 *
 * One struct config_upstream holds the server URL, the TLS material (CA,
 * client certificate and key, each a file path or PEM bytes) and the
 * bearer token (a literal, or a file that is re-read when it rotates).
 * It comes from a kubeconfig file (the subset of client-go's format that
 * needs no plugin), from the in-cluster service account, or from --server
 * alone; config_upstream_resolve() picks among them (the rule is stated
 * at its declaration below).
 *
 * Anything in a kubeconfig that would change how we authenticate and that
 * we cannot honour (exec, auth-provider, username/password, impersonation,
 * proxy-url) is an error naming the field, never silently ignored.
 * Error messages and descriptions never carry token or key bytes.
 *
 * The struct is config/upstream.h; using a loaded one at run time (the
 * bearer token, the startup description) is config/creds.h.
 */
#ifndef CONFIG_KUBECONFIG_H
#define CONFIG_KUBECONFIG_H

#include <stddef.h>

#include "config/upstream.h"

#define CONFIG_INCLUSTER_ROOT "/var/run/secrets/kubernetes.io/serviceaccount"

/*
 * Load context `context` (NULL or "" for current-context) of the kubeconfig
 * at path into *out (which is overwritten; free with config_upstream_free).
 * Relative paths in the file are taken relative to the file's directory,
 * as client-go does. Referenced files must be readable now; tokenFile is
 * read once here so that a bad one fails at startup.
 * On failure *out is left zeroed (config_upstream_free is still safe).
 * Returns 0, -ENOENT (file, context, cluster or user missing), -EINVAL
 * (bad content), -ENOTSUP (a field we cannot honour, named in err),
 * -ENOMEM, or another -errno from reading; err says what to fix.
 */
int config_kubeconfig_load(const char *path, const char *context,
			   struct config_upstream *out, char *err,
			   size_t errlen);

/*
 * The pod's service account: https://$KUBERNETES_SERVICE_HOST:
 * $KUBERNETES_SERVICE_PORT (an IPv6 host gets brackets), token file
 * root/token (re-read on rotation), CA root/ca.crt. root NULL means
 * CONFIG_INCLUSTER_ROOT. Returns 0, -ENOENT (env unset, file missing),
 * -ENOMEM or -errno, with err set.
 */
int config_incluster_load(const char *root, struct config_upstream *out,
			  char *err, size_t errlen);

/*
 * Which source to use: --kubeconfig if given; else in-cluster when
 * KUBERNETES_SERVICE_HOST is set; else $KUBECONFIG; else ~/.kube/config.
 * --server (server_flag) overrides the server URL, and with --server and
 * no kubeconfig found anywhere the result is just that server with no
 * credentials. sa_dir (--serviceaccount-dir) replaces the in-cluster
 * token and CA directory. Any flag may be NULL or "". Returns as the
 * loaders do.
 */
int config_upstream_resolve(const char *kubeconfig_flag,
			    const char *context_flag, const char *server_flag,
			    const char *sa_dir, struct config_upstream *out,
			    char *err, size_t errlen);

/* Free every field (key and token bytes are wiped first). Safe on a
 * zeroed struct and twice in a row. Not while other threads use it. */
void config_upstream_free(struct config_upstream *up);

#endif
