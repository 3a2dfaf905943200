/*
 * flags: the command line of bin/informer-proxy, parsed into a struct
 * config that the rest of the process reads and never changes.
 *
 * The parser is a table (name, kind, destination, help), so new flags
 * are one line each. Errors fill a message buffer for the caller to log.
 */
#ifndef CONFIG_FLAGS_H
#define CONFIG_FLAGS_H

#include <stdbool.h>
#include <stddef.h>

#include "config/log.h"

#define CONFIG_MAX_RESOURCES 64

struct config {
	char *server;			/* --server: overrides the kubeconfig's */
	char *kubeconfig;		/* --kubeconfig */
	char *context;			/* --context */
	char *serviceaccount_dir;	/* in-cluster token and ca.crt */
	char *resources[CONFIG_MAX_RESOURCES];	/* kubectl spelling */
	int nresources;
	char *listen_host;		/* IPv4, or [IPv6] */
	char *unix_socket;		/* also serve on this unix socket */
	int listen_port;
	enum log_format log_format;
	int verbosity;
	int page_size;			/* upstream LIST limit */
	int watch_timeout;		/* upstream watch timeoutSeconds */
	int history;			/* events kept per resource */
	int bookmark_interval;		/* seconds between local bookmarks */
	int threads;			/* HTTP worker threads */
	int discovery_refresh;		/* seconds between discovery refreshes */
	int upstream_qps, upstream_burst; /* the proxy's own upstream requests */
	int backoff_max_ms;		/* cap of the upstream retry backoff */
	int stall_seconds;		/* a silent upstream stream is dead after this */
	int settle_seconds;		/* a seen RV has reached an open watch after this */
	int grace_seconds;		/* /readyz stays 200 this long with upstream away */
	int startup_timeout;		/* exit if never synced after this long */
	bool strip_managed_fields;
};

/* Parse argv into cfg (defaults first). Returns 0, 1 when --help was
 * printed, or -EINVAL with err set. */
int config_parse_flags(struct config *cfg, int argc, char **argv, char *err,
		       size_t errlen);
void config_free(struct config *cfg);

#endif
