/*
 * continue: the opaque token that binds a paged LIST's pages together.
 *
 * The token is the apiserver's own: base64url (no padding) of
 * {"v":"meta.k8s.io/v1","rv":RV,"start":"ns/name\u0000"}, where start is
 * the key just after the last item sent. Tokens the apiserver wrote decode
 * here too, so a client may carry a token from one to the other.
 */
#ifndef PROXY_CONTINUE_H
#define PROXY_CONTINUE_H

#include <stddef.h>
#include <stdint.h>

#include "config/buf.h"

/* Append the token for a page that ended at ns/name (ns "" when cluster
 * scoped) of the snapshot at rv. */
void proxy_continue_encode(struct buf *out, uint64_t rv, const char *ns,
			   const char *name);

/*
 * Decode tok (NUL-terminated, as the client sent it) into the snapshot's
 * rv and the last item's ns (nscap bytes) and name (namecap bytes).
 * Accepts what proxy_continue_encode() writes; refuses bad base64url, a
 * non-object, another "v", a non-numeric rv, and a start key that is
 * empty or does not fit. Returns 0, or -EINVAL with err set to the
 * apiserver's message for a 400.
 */
int proxy_continue_decode(const char *tok, uint64_t *rv, char *ns,
			  size_t nscap, char *name, size_t namecap, char *err,
			  size_t errlen);

#endif
