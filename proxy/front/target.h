/*
 * target: request-target hygiene, in one place.
 *
 * Every request's target is checked here, as it came on the request line,
 * before anything routes it or forwards it:
 *   - only origin-form targets, "/..." (no "host:port/...", no
 *     "http://...", no "@host" that libcurl would read as a user name
 *     and a host), so the upstream host always comes from configuration;
 *   - visible ASCII only, no '#' or '\', every '%' followed by two hex
 *     digits, and no %00 anywhere, path or query;
 *   - no "." or ".." segment, raw or encoded.
 * The path is then decoded for routing, except that %2F stays "%2F": an
 * encoded slash is part of its segment, never a separator. Requests are
 * forwarded upstream with the target exactly as received (libcurl told
 * not to normalise it), so what the upstream sees is what was checked.
 *
 * Threads: any; the check reads only its arguments, keeps no state,
 * allocates nothing and suspends nothing. The server calls it on the
 * libmicrohttpd request thread, at a request's first call.
 */
#ifndef PROXY_TARGET_H
#define PROXY_TARGET_H

#include <stddef.h>

/*
 * Check raw (the request target, path and query) and write the decoded
 * path for routing into route (routelen bytes). Returns 0, or -EINVAL
 * with err set to the message for a 400 BadRequest, or -ENAMETOOLONG
 * when route is too small. route and err are the caller's buffers;
 * routelen = strlen(raw) + 1 is always enough.
 */
int proxy_target_check(const char *raw, char *route, size_t routelen, char *err,
		       size_t errlen);

#endif
