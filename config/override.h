/*
 * override: what the command line and a SIGHUP change in a loaded
 * struct config_upstream (config/upstream.h).
 *
 * config_override_apply() applies --certificate-authority,
 * --insecure-skip-tls-verify and --token-file over what the kubeconfig,
 * the in-cluster service account or --server alone gave, as kubectl's
 * flags of the same names do. config_override_reload() takes a freshly
 * resolved struct (the kubeconfig read again on SIGHUP) into the one the
 * running threads use: what can change under them (the bearer token, a
 * token file re-read now) is applied; what cannot (server, TLS material
 * given inline, the kind of credential) is named for a restart. Neither
 * ever puts token or key bytes into a message.
 */
#ifndef CONFIG_OVERRIDE_H
#define CONFIG_OVERRIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "config/upstream.h"

/*
 * Apply the flags to up (any may be NULL / false). ca_file and
 * token_file must be readable now; the token file is read once here so
 * that a bad one fails at startup. ca_file with insecure is refused.
 * Returns 0, or -EINVAL / -ENOENT / -errno with err saying what to fix;
 * up is left usable (and freeable) either way.
 */
int config_override_apply(struct config_upstream *up, const char *ca_file,
			  bool insecure, const char *token_file, char *err,
			  size_t errlen);

/*
 * Take fresh (resolved again from the same flags) into live, which other
 * threads may be using: a changed literal token is swapped in, a token
 * file is re-read now (a changed path is followed). Everything else that
 * differs is left as it is and named in msg ("server changed; restart to
 * apply"). msg also says what was applied, for one log line. fresh is
 * freed. Returns 0, or -errno when the token file cannot be read (msg
 * says why; requests then fail until it can, as on any rotation).
 */
int config_override_reload(struct config_upstream *live,
			   struct config_upstream *fresh, char *msg,
			   size_t msglen);

#endif
