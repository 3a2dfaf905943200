/*
 * forward: who the upstream sees for a request the proxy forwards, and
 * which of the client's headers go with it.
 *
 * One rule set for every forwarding path (pass.c through libcurl,
 * upgrade.c through its own connection), so that the two can never
 * drift apart on a question of identity (README, "Security model"):
 *
 * - a client that sent credentials (a non-empty Authorization) is
 *   forwarded with those alone: no proxy token, no proxy client
 *   certificate;
 * - one that sent none goes as the proxy where the proxy lends its
 *   identity (the loopback-only --client-auth=none mode), anonymous
 *   elsewhere; either way every header with which it asks to be taken
 *   for someone else (Impersonate-*, X-Remote-*, Authorization,
 *   Proxy-Authorization, Cookie) is removed;
 * - hop-by-hop headers, Host and Expect are never passed on: the
 *   forwarding side writes its own;
 * - a request with a header name that is not a token is not forwarded
 *   at all (proxy_forward_names_ok()).
 *
 * Threads: proxy_forward_who() reads c's headers, on c's libmicrohttpd
 * request thread; the other two read only their arguments and may be
 * called from any thread (the passthrough thread filters the upstream's
 * answer with proxy_forward_hop_by_hop()). Nothing here allocates, keeps
 * state or suspends a connection.
 */
#ifndef PROXY_FORWARD_H
#define PROXY_FORWARD_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

struct proxy_forward_who {
	bool client_creds;   /* the client's own Authorization goes alone */
	bool as_proxy;	     /* go with the proxy's credentials */
	bool strip_identity; /* drop the headers that ask for an identity */
};

/* Who the upstream sees for the request on c; lend_identity as for
 * proxy_pass_pool_new() (pass.h). */
struct proxy_forward_who proxy_forward_who(struct MHD_Connection *c,
					   bool lend_identity);

/* Whether the client's header key goes upstream. upgrade: the request is
 * an upgrade, whose Upgrade header is what it asks for and goes on (its
 * Connection does not: the forwarder writes "Connection: Upgrade"). */
bool proxy_forward_header(const char *key, bool strip_identity, bool upgrade);

/* Whether a header (its name: n bytes at name, not NUL-terminated) is
 * one of a single connection (RFC 9110 7.6.1), or Content-Length, which
 * the sending side writes itself: such headers of an upstream answer
 * are not passed on to the client either. */
bool proxy_forward_hop_by_hop(const char *name, size_t n);
/* Whether a header of an upstream answer (its name: n bytes at name) is
 * passed on to the client: not hop-by-hop, and no Access-Control-*
 * header, since the proxy gives no browser cross-origin permission, the
 * upstream's included. Any thread. */
bool proxy_forward_answer_kept(const char *name, size_t n);

/* Whether s is a token (RFC 9110 5.6.2), which a header name must be:
 * no white space, no separator, not empty. Any thread. */
bool proxy_forward_token(const char *s);
/* Whether every header name of the request on c is a token: a request
 * with one that is not is refused (400), as the apiserver's HTTP server
 * does, and never forwarded. c's request thread. */
bool proxy_forward_names_ok(struct MHD_Connection *c);

#endif
