/*
 * continue: the continue token of a paged LIST.
 *
 * The token is the apiserver's: base64url of
 * {"v":"meta.k8s.io/v1","rv":RV,"start":"NS/NAME\u0000"}, the start key
 * being "the next key after" the last item sent. Every page of a LIST is
 * bound to the first page's snapshot through rv.
 *
 * Pure: any thread; output goes into the caller's buffers.
 */
#ifndef PROXY_CONTINUE_H
#define PROXY_CONTINUE_H

#include <stddef.h>
#include <stdint.h>

#include "config/buf.h"

/* Append the token for a page that ended at ns/name ("" ns: cluster
 * scope) of the snapshot at rv. */
void proxy_continue_encode(struct buf *out, uint64_t rv, const char *ns,
			   const char *name);
/* Decode tok into rv, ns and name. Returns 0, or -EINVAL with err set to
 * the apiserver's message (a 400). */
int proxy_continue_decode(const char *tok, uint64_t *rv, char *ns, size_t nscap,
			  char *name, size_t namecap, char *err, size_t errlen);

#endif
