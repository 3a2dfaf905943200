/*
 * origin: which Host and Origin headers a listener that acts with the
 * proxy's own identity (--client-auth=none) accepts, against DNS
 * rebinding: a web page whose name is made to resolve to 127.0.0.1 lets
 * a browser on the same machine send requests to the proxy, with the
 * page's own name in Host and the page's origin in Origin.
 *
 *   --accept-hosts    comma-separated POSIX extended regular expressions,
 *                     searched (unanchored, case-insensitive) in the Host
 *                     header's host part: the port is cut off, an IPv6
 *                     literal keeps its brackets. kubectl proxy's default,
 *                     ^localhost$,^127\.0\.0\.1$,^\[::1\]$. The --listen
 *                     host, unless a wildcard address, is accepted too.
 *   --accept-origins  comma-separated origins (scheme://host[:port]),
 *                     compared whole and case-insensitively; empty by
 *                     default, so any request with an Origin is refused.
 *
 * Threads: proxy_origin_new() and proxy_origin_free() on main
 * (proxy_server_start(), proxy_server_stop()); the checks from any
 * thread, concurrently: they only read the compiled patterns.
 *
 * Ownership: proxy_origin_new() copies what it needs from its strings;
 * the caller frees the result with proxy_origin_free().
 */
#ifndef PROXY_ORIGIN_H
#define PROXY_ORIGIN_H

#include <stdbool.h>
#include <stddef.h>

struct proxy_origin;

/* The longest Host header whose host part is looked at; a longer one is
 * refused (a DNS name is at most 253 bytes). */
#define PROXY_ORIGIN_MAX_HOST 1024

/* The longest --accept-hosts pattern, and how much its repetitions may
 * multiply it: glibc compiles "x+" as "xx*" and "x{m,n}" as n copies of
 * x, so "a++++..." or "(a{99}){99}" would take memory exponential in the
 * pattern. The product of every "+" (2) and bound (n+1) must stay under
 * PROXY_ORIGIN_MAX_COPIES, with at most PROXY_ORIGIN_MAX_REPEATS
 * repetition operators and none right after another ("a+*"). */
#define PROXY_ORIGIN_MAX_PATTERN 256
#define PROXY_ORIGIN_MAX_COPIES 4096
#define PROXY_ORIGIN_MAX_REPEATS 8

/* kubectl proxy's --accept-hosts default. */
#define PROXY_ORIGIN_DEFAULT_HOSTS "^localhost$,^127\\.0\\.0\\.1$,^\\[::1\\]$"

/* Compile the rules. accept_hosts and accept_origins may be NULL or ""
 * (no pattern, no origin); listen_host (may be NULL) is accepted as a
 * literal unless it is a wildcard address (0.0.0.0, [::], empty).
 * Returns NULL with err set to one line naming the flag and the pattern
 * at fault, or "out of memory". */
struct proxy_origin *proxy_origin_new(const char *accept_hosts,
				      const char *accept_origins,
				      const char *listen_host, char *err,
				      size_t errlen);
void proxy_origin_free(struct proxy_origin *o);

/* The host part of a Host header value into out (NUL-terminated): the
 * port cut off ("h:8001" -> "h", "[::1]:8001" -> "[::1]"). Returns 0, or
 * -EINVAL for a value that is no host[:port] (empty host, a port that is
 * not digits, a bracket not closed, bytes after "]" other than a port,
 * longer than PROXY_ORIGIN_MAX_HOST or outlen). */
int proxy_origin_host_part(const char *host, char *out, size_t outlen);

/* Whether a request with this Host header may go on. NULL (no Host: an
 * HTTP/1.0 client; no browser sends one) is accepted. */
bool proxy_origin_host_ok(const struct proxy_origin *o, const char *host);

/* Whether a request with this Origin header may go on: NULL (not a
 * browser's cross-origin request) or one of --accept-origins. */
bool proxy_origin_origin_ok(const struct proxy_origin *o, const char *origin);

#endif
