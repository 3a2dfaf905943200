/*
 * reload: apply a new --config without a restart (SIGHUP, or a changed
 * file with --watch-config).
 *
 * The resources are compared entry by entry (config_file_scope_equal):
 * - an unchanged entry keeps its reflectors, caches and watches as they
 *   are;
 * - a removed (or changed) entry's reflectors are retired: their local
 *   watches end with a clean close (clients watch again and, for a
 *   resource no longer cached, are passed through), they stop asking the
 *   upstream, and requests pass them by; they are freed at exit;
 * - an added (or changed) entry gets new reflectors, started at once.
 * A configuration that does not parse or validate, or names a resource
 * the upstream does not serve, is refused whole and the running one
 * stays. Flags other than the resources are read at start only.
 *
 * Call proxy_reload_init() once the startup reflectors exist, and
 * proxy_reload_config() from one thread at a time (main's).
 *
 * Threads: main's thread only (it handles SIGHUP and --watch-config);
 * request threads see appended reflectors through proxy_nres(). The
 * reflectors a reload makes belong to p and are freed at exit, after
 * every reflector stopped (proxy_reload_free()).
 */
#ifndef PROXY_RELOAD_H
#define PROXY_RELOAD_H

#include <stddef.h>

#include "proxy/request.h"

/* Remember which reflectors each of p->cfg's entries made (in order, as
 * proxy_resources_make() made them). Returns 0 or -ENOMEM. */
int proxy_reload_init(struct proxy *p);
/*
 * Parse argv again (the --config file is read anew) and apply its
 * resources to p. Returns 0 (changes or none; *added and *removed say
 * how many entries), or -EINVAL / -ENOMEM / -ENOSPC with err set and p
 * unchanged.
 */
int proxy_reload_config(struct proxy *p, int argc, char **argv, int *added,
			int *removed, char *err, size_t errlen);
/* After every reflector stopped. */
void proxy_reload_free(struct proxy *p);

#endif
