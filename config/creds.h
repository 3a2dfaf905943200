/*
 * creds: using a loaded struct config_upstream at run time.
 *
 * config/upstream.h defines the struct and config/source.h fills it
 * (from a kubeconfig, the in-cluster service account or --server alone).
 * This module is what the proxy does with it afterwards, on every
 * request: hand out the current bearer token (re-reading a rotated token
 * file), describe the upstream for the startup log. Applying it to a transfer is the upstream
 * client's job (cache/upstream_creds.h); this module knows no HTTP client.
 *
 * Error messages and descriptions never carry token or key bytes.
 */
#ifndef CONFIG_CREDS_H
#define CONFIG_CREDS_H

#include <stdbool.h>
#include <stddef.h>

#include "config/upstream.h"

/* The largest token file read, and so the largest Authorization value. */
#define CONFIG_TOKEN_MAX_BYTES (64 << 10)

/* Whether requests should carry a bearer token at all. */
bool config_creds_has_token(const struct config_upstream *up);

/*
 * The current bearer token into out (NUL-terminated, whitespace trimmed).
 * A literal token is returned as is. A token file is re-read when its
 * inode, size or mtime changed, or a minute after the last read (kubelet
 * swaps projected tokens by symlink, which changes the inode); otherwise
 * the cached value is returned. Thread-safe: reflector and passthrough
 * threads may call it at once.
 * Returns 0; -ENOENT when no token is configured; -ERANGE when out is
 * too small; or -errno / -EINVAL (empty file) when the file cannot be
 * read, with the reason kept for config_creds_token_explain(). A failed
 * read never hands out the previous token.
 */
int config_creds_token_get(struct config_upstream *up, char *out,
			   size_t outlen);
/* Read the token file again now, whatever stat() says (SIGHUP). Returns
 * 0, -ENOENT without a token file, or the read's error (kept for
 * config_creds_token_explain()). Call without up->lock held. */
int config_creds_token_reread(struct config_upstream *up);
/* Why the last config_creds_token_get() failed ("" if it did not). */
void config_creds_token_explain(struct config_upstream *up, char *out,
				size_t outlen);

/* One line for the startup log: server, TLS name, CA source, auth kind,
 * insecure warning. Never a secret. */
void config_creds_describe(const struct config_upstream *up, char *out,
			   size_t outlen);

/* Whether s can be a bearer token, i.e. one header value: printable ASCII
 * without spaces. The kubeconfig loader checks a literal token with it,
 * and the token file is checked the same way on every read. */
bool config_creds_token_valid(const char *s);

/*
 * For the loaders: read up's token file once now (when it has one and no
 * literal token), so that a bad one fails at startup rather than on the
 * first request. Returns 0 (also when there is no file to read), -ENOMEM,
 * or the read's -errno / -EINVAL with err set to prefix followed by the
 * reason ("kubeconfig F: token file T: cannot read: ...").
 */
int config_creds_token_check(struct config_upstream *up, const char *prefix,
			     char *err, size_t errlen);

#endif
