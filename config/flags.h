/*
 * flags: the command line of bin/informer-proxy, parsed into a struct
 * config that the rest of the process reads and never changes.
 *
 * The parser is a table (name, kind, destination, default, help), so a
 * new flag is one row, and --help prints each default from the row that
 * applies it. Errors fill a message buffer for the caller to log.
 */
#ifndef CONFIG_FLAGS_H
#define CONFIG_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config/file.h"
#include "config/log.h"

#define CONFIG_MAX_RESOURCES 64

enum config_client_auth {
	CLIENT_AUTH_NONE,      /* loopback only: a client without credentials
				 * acts as the proxy, as with kubectl proxy */
	CLIENT_AUTH_DELEGATED, /* TokenReview + SubjectAccessReview upstream */
};

struct config {
	char *server;		  /* --server: overrides the kubeconfig's */
	char *kubeconfig;	  /* --kubeconfig */
	char *context;		  /* --context */
	char *serviceaccount_dir; /* in-cluster token and ca.crt */
	char *resources[CONFIG_MAX_RESOURCES]; /* kubectl spelling */
	int nresources;
	/* scopes[i] is what resources[i] caches: from the --config file's
	 * entry, or cluster-wide for a --resources name (docs/CONFIG.md) */
	struct config_scope scopes[CONFIG_MAX_RESOURCES];
	char *config_file; /* --config */
	bool watch_config; /* --watch-config */
	char *listen_host; /* IPv4, or [IPv6] */
	char *unix_socket; /* also serve on this unix socket */
	int listen_port;
	char *metrics_listen; /* HOST:PORT of /metrics and probes, or NULL */
	enum log_format log_format;
	int verbosity;
	int page_size;	       /* upstream LIST limit */
	int watch_timeout;     /* upstream watch timeoutSeconds */
	int history;	       /* events kept per resource */
	int bookmark_interval; /* seconds between local bookmarks */
	int threads;	       /* HTTP worker threads */
	int watch_inline_max;  /* streams a reflector writes itself */
	int discovery_refresh; /* seconds between discovery refreshes */
	int upstream_qps,
		upstream_burst; /* the proxy's own upstream requests */
	int backoff_max_ms;	/* cap of the upstream retry backoff */
	int stall_seconds;  /* a silent upstream stream is dead after this */
	int settle_seconds; /* a seen RV has reached an open watch after this */
	int grace_seconds;  /* /readyz stays 200 this long with upstream away */
	int startup_timeout; /* exit if never synced after this long */
	bool strip_managed_fields;
	int list_progress_interval; /* seconds between LIST progress lines */
	/* security (README "Security model") */
	enum config_client_auth client_auth; /* --client-auth none|delegated */
	bool allow_unauth_remote; /* --allow-unauthenticated-remote */
	int unix_socket_mode;	  /* --unix-socket-mode, octal (0600) */
	char *tls_cert_file;	  /* --tls-cert-file: serve HTTPS */
	char *tls_key_file;	  /* --tls-private-key-file */
	char *tls_min_version;	  /* --tls-min-version (VersionTLS12) */
	char *tls_cipher_suites;  /* --tls-cipher-suites, or NULL: defaults */
	char *accept_hosts;	  /* --accept-hosts: regexps, comma-separated */
	char *accept_origins;	  /* --accept-origins, or NULL: none */
	int authn_allow_ttl;	  /* seconds an allowed decision is cached */
	int authn_deny_ttl;	  /* seconds a denied one is */
	int authn_source_reviews; /* strangers' reviews a second per address */
	/* limits (config/limits.h) */
	int passthrough_timeout;  /* seconds; non-long-running passthrough */
	int max_connections;	  /* open client connections */
	int max_watchers;	  /* open local watches */
	int idle_timeout;	  /* seconds of silence before a close */
	int connection_memory;	  /* KiB of libmicrohttpd pool a connection */
	int header_timeout;	  /* seconds from accept to a whole header */
	int request_body_timeout; /* seconds a body may send nothing */
	int max_request_body;	  /* bytes of one request body */
	long long upstream_page_max;   /* bytes of one upstream LIST page */
	long long upstream_line_max;   /* bytes of one watch event or item */
	long long upstream_list_max;   /* bytes of all pages of one LIST */
	long long upstream_answer_max; /* bytes of a probe, discovery, review */
	/* upstream overrides and shutdown (README "Signals") */
	char *certificate_authority;   /* --certificate-authority */
	bool insecure_skip_tls_verify; /* --insecure-skip-tls-verify */
	char *token_file;	       /* --token-file */
	int shutdown_grace; /* seconds SIGTERM waits for open requests */
};

/* Parse argv into cfg (defaults first). Returns 0, 1 when --help (every
 * flag with its default) or --version was printed to stdout, or -EINVAL
 * with err set. */
int config_flags_parse(struct config *cfg, int argc, char **argv, char *err,
		       size_t errlen);
void config_flags_free(struct config *cfg);
/* Split v, a --flag's HOST:PORT (port 0-65535), into *host (the caller
 * frees it; not set when host is NULL) and *port. Returns 0, -EINVAL
 * with err set, or -ENOMEM. */
int config_flags_hostport(const char *flag, const char *v, char **host,
			  int *port, char *err, size_t errlen);
/*
 * The flags other than the resources whose values differ between a and
 * b: their names, comma-separated, into out (cut to fit),
 * and how many. A reload applies only the resources; the caller says
 * which other settings wait for a restart.
 */
int config_flags_changed(const struct config *a, const struct config *b,
			 char *out, size_t outlen);

#endif
