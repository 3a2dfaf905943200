/*
 * kubeconfig: a kubeconfig file read into a struct config_upstream
 * (config/upstream.h): the server URL, the TLS material (CA, client
 * certificate and key, each a file path or PEM bytes) and the bearer
 * token (a literal, or a file that is re-read when it rotates). It reads
 * the subset of client-go's format that needs no plugin. Which file to
 * read, if any, is config/source.h's choice.
 *
 * Anything in a kubeconfig that would change how we authenticate and that
 * we cannot honour (exec, auth-provider, username/password, impersonation,
 * proxy-url) is an error naming the field, never silently ignored.
 * Error messages never carry token or key bytes.
 */
#ifndef CONFIG_KUBECONFIG_H
#define CONFIG_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "config/upstream.h"

/*
 * Load context `context` (NULL or "" for current-context) of the kubeconfig
 * at path into *out (which is overwritten; free with config_upstream_free).
 * need_server: the cluster must name a server; false when the caller sets
 * one anyway (--server), and out->server may then stay NULL.
 * Relative paths in the file are taken relative to the file's directory,
 * as client-go does. Referenced files must be readable now; tokenFile is
 * read once here so that a bad one fails at startup.
 * On failure *out is left zeroed (config_upstream_free is still safe).
 * Returns 0, -ENOENT (file, context, cluster or user missing), -EINVAL
 * (bad content), -ENOTSUP (a field we cannot honour, named in err),
 * -ENOMEM, or another -errno from reading; err says what to fix.
 * Any thread; the file is read once, with no lock held.
 */
int config_kubeconfig_load(const char *path, const char *context,
			   bool need_server, struct config_upstream *out,
			   char *err, size_t errlen);

#endif
