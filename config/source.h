/*
 * source: where the upstream apiserver and its credentials come from.
 *
 * The candidates, as kubectl and client-go order them: the --kubeconfig
 * file, the pod's service account (in-cluster), $KUBECONFIG,
 * ~/.kube/config, or --server alone. --server replaces the server URL of
 * whichever is chosen. The result is one struct config_upstream
 * (config/upstream.h); reading a kubeconfig is config/kubeconfig.h.
 */
#ifndef CONFIG_SOURCE_H
#define CONFIG_SOURCE_H

#include <stddef.h>

#include "config/upstream.h"

/* Where a pod's service account token and CA are mounted. */
#define CONFIG_SOURCE_INCLUSTER_ROOT \
	"/var/run/secrets/kubernetes.io/serviceaccount"

/*
 * Resolve the upstream into *out (overwritten; free with
 * config_upstream_free). Which source: --kubeconfig if given; else
 * in-cluster when KUBERNETES_SERVICE_HOST is set (and --context is not:
 * a context only means something in a kubeconfig); else the first file
 * of $KUBECONFIG that exists; else ~/.kube/config if it exists.
 *
 * In-cluster: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
 * (an IPv6 host gets brackets), token file DIR/token (re-read on
 * rotation), CA DIR/ca.crt, where DIR is sa_dir (--serviceaccount-dir)
 * or CONFIG_SOURCE_INCLUSTER_ROOT.
 *
 * --server (server_flag) overrides the server URL, and with --server and
 * no kubeconfig found anywhere the result is just that server with no
 * credentials. Any flag may be NULL or "". Reads the environment; call
 * from one thread at startup or on SIGHUP.
 *
 * Returns 0, -ENOENT (no source; a named file, context, cluster or user
 * missing; in-cluster env or files missing), -EINVAL (bad content),
 * -ENOTSUP (a kubeconfig field we cannot honour), -ENOMEM or another
 * -errno; err says what to fix. On failure *out is zeroed.
 */
int config_source_resolve(const char *kubeconfig_flag, const char *context_flag,
			  const char *server_flag, const char *sa_dir,
			  struct config_upstream *out, char *err,
			  size_t errlen);

#endif
