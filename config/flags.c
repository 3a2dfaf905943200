/*
 * flags: table-driven parsing of bin/informer-proxy's flags (see flags.h).
 */
#include "config/flags.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "config/limits.h"

enum flag_kind { F_STR, F_INT, F_MIB, F_BOOL, F_LISTEN, F_LIST, F_LOGFMT, F_AUTH, F_MODE };

struct flag {
	const char *name;
	enum flag_kind kind;
	size_t off;		/* offset into struct config */
	int min, max;		/* for F_INT; F_MIB, in MiB */
	const char *help;
};

#define OFF(f) offsetof(struct config, f)

static const struct flag flags[] = {
	{ "kubeconfig", F_STR, OFF(kubeconfig), 0, 0,
	  "kubeconfig file (default: in-cluster, else $KUBECONFIG, else ~/.kube/config)" },
	{ "context", F_STR, OFF(context), 0, 0,
	  "kubeconfig context (default: its current-context)" },
	{ "serviceaccount-dir", F_STR, OFF(serviceaccount_dir), 0, 0,
	  "in-cluster token and ca.crt directory (default "
	  "/var/run/secrets/kubernetes.io/serviceaccount)" },
	{ "server", F_STR, OFF(server), 0, 0,
	  "upstream apiserver URL, overriding the kubeconfig's (http:// or https://)" },
	{ "resources", F_LIST, OFF(resources), 0, 0,
	  "resources to cache, kubectl spelling: pods,configmaps,deployments.apps" },
	{ "listen", F_LISTEN, 0, 0, 0,
	  "local HOST:PORT to serve on (default 127.0.0.1:8001; port 0 picks one)" },
	{ "unix-socket", F_STR, OFF(unix_socket), 0, 0,
	  "also serve on this unix socket (mode 0600 unless --unix-socket-mode)" },
	{ "log-format", F_LOGFMT, OFF(log_format), 0, 0, "text or json" },
	{ "v", F_INT, OFF(verbosity), 0, 10, "log verbosity (0-10)" },
	{ "page-size", F_INT, OFF(page_size), 1, 100000,
	  "items per upstream LIST page (default 500)" },
	{ "watch-timeout", F_INT, OFF(watch_timeout), 1, 86400,
	  "upstream watch timeoutSeconds (default 300-600, randomized)" },
	{ "history", F_INT, OFF(history), 16, 10000000,
	  "watch events kept per resource (default 10000)" },
	{ "bookmark-interval", F_INT, OFF(bookmark_interval), 1, 3600,
	  "seconds between BOOKMARK events to local watchers (default 60)" },
	{ "discovery-refresh", F_INT, OFF(discovery_refresh), 1, 86400,
	  "seconds between refreshes of the upstream's discovery documents (default 60)" },
	{ "upstream-qps", F_INT, OFF(upstream_qps), 0, 100000,
	  "requests per second the proxy itself makes upstream, 0 = no limit (default 50)" },
	{ "upstream-burst", F_INT, OFF(upstream_burst), 1, 100000,
	  "burst above --upstream-qps (default 100)" },
	{ "backoff-max-ms", F_INT, OFF(backoff_max_ms), 10, 600000,
	  "cap of the exponential backoff after upstream errors (default 5000)" },
	{ "upstream-stall-timeout", F_INT, OFF(stall_seconds), 1, 86400,
	  "seconds without a byte after which an upstream stream that sends "
	  "BOOKMARKs counts as dead (default 90); streams without BOOKMARKs "
	  "rely on TCP keepalive and their deadline" },
	{ "upstream-settle", F_INT, OFF(settle_seconds), 1, 3600,
	  "seconds after which a resourceVersion seen upstream counts as "
	  "delivered to an open watch, so a quiet resource resumes from it (default 30)" },
	{ "upstream-grace", F_INT, OFF(grace_seconds), 0, 86400,
	  "seconds /readyz stays 200 while the upstream cannot be reached (default 300)" },
	{ "startup-timeout", F_INT, OFF(startup_timeout), 1, 86400,
	  "seconds an unreachable upstream is retried at startup before exiting 1 (default 60)" },
	{ "threads", F_INT, OFF(threads), 1, 256,
	  "HTTP worker threads (default: number of CPUs)" },
	{ "strip-managed-fields", F_BOOL, OFF(strip_managed_fields), 0, 0,
	  "drop metadata.managedFields from cached objects" },
	{ "client-auth", F_AUTH, OFF(client_auth), 0, 0,
	  "none (loopback only: a client without credentials acts as the proxy) "
	  "or delegated (TokenReview and SubjectAccessReview upstream for every "
	  "request; required for a non-loopback --listen)" },
	{ "allow-unauthenticated-remote", F_BOOL, OFF(allow_unauth_remote), 0, 0,
	  "start with a non-loopback --listen and --client-auth=none (anyone who "
	  "reaches the port acts as the proxy)" },
	{ "unix-socket-mode", F_MODE, OFF(unix_socket_mode), 0, 0,
	  "permissions of --unix-socket, octal (default 0600)" },
	{ "tls-cert-file", F_STR, OFF(tls_cert_file), 0, 0,
	  "serve HTTPS with this certificate (PEM; re-read when it changes)" },
	{ "tls-private-key-file", F_STR, OFF(tls_key_file), 0, 0,
	  "the key of --tls-cert-file (PEM; re-read when it changes)" },
	{ "passthrough-timeout", F_INT, OFF(passthrough_timeout), 0, 86400,
	  "seconds a forwarded request may take, watches, logs with follow, exec, "
	  "attach, port-forward and proxy excepted; 0 = no limit (default 60, "
	  "the apiserver's own)" },
	{ "max-connections", F_INT, OFF(max_connections), 1, 1000000,
	  "open client connections; one more is answered 429 with Retry-After "
	  "(default 16384, lowered to what the open-file limit allows)" },
	{ "max-watchers", F_INT, OFF(max_watchers), 1, 1000000,
	  "open local watches, all resources together; one more is answered 429 "
	  "(default 16384)" },
	{ "idle-timeout", F_INT, OFF(idle_timeout), 1, 86400,
	  "seconds a client connection may be silent before it is closed (default 120)" },
	{ "header-timeout", F_INT, OFF(header_timeout), 1, 3600,
	  "seconds a client has to send a whole request header (default 32, "
	  "the apiserver's)" },
	{ "upstream-page-max-mib", F_MIB, OFF(upstream_page_max), 1, 65536,
	  "MiB of one upstream LIST page; a larger one is fetched again in "
	  "smaller pages (default 256)" },
	{ "upstream-line-max-mib", F_MIB, OFF(upstream_line_max), 1, 4096,
	  "MiB of one upstream watch event or list item; a larger event ends "
	  "the watch, a larger item is skipped and logged (default 64)" },
	{ "upstream-list-max-mib", F_MIB, OFF(upstream_list_max), 1, 1048576,
	  "MiB of all the pages of one upstream LIST (default 4096)" },
	{ "authn-allow-ttl", F_INT, OFF(authn_allow_ttl), 1, 86400,
	  "seconds a delegated allow decision is cached (default 300)" },
	{ "authn-deny-ttl", F_INT, OFF(authn_deny_ttl), 1, 3600,
	  "seconds a delegated deny decision is cached (default 10)" },
};

static void usage(void)
{
	printf("usage: informer-proxy [--kubeconfig PATH] [--server URL] --resources LIST [flags]\n"
	       "       informer-proxy --probe URL   (exit 0 if URL answers 200: an exec health check)\n\n");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		printf("  --%-22s %s\n", flags[i].name, flags[i].help);
}

static int parse_listen(struct config *cfg, const char *v, char *err,
			size_t errlen)
{
	const char *colon = strrchr(v, ':');
	char *end;
	long port = colon ? strtol(colon + 1, &end, 10) : -1;
	if (!colon || colon == v || !colon[1] || *end || port < 0 || port > 65535) {
		snprintf(err, errlen, "--listen: want HOST:PORT, got \"%s\"", v);
		return -EINVAL;
	}
	char *host = xstrndup(v, (size_t)(colon - v));
	if (!host)
		return -ENOMEM;
	free(cfg->listen_host);
	cfg->listen_host = host;
	cfg->listen_port = (int)port;
	return 0;
}

static int parse_list(struct config *cfg, const char *v, char *err,
		      size_t errlen)
{
	for (const char *p = v; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (n) {
			if (cfg->nresources == CONFIG_MAX_RESOURCES) {
				snprintf(err, errlen, "--resources: at most %d",
					 CONFIG_MAX_RESOURCES);
				return -EINVAL;
			}
			char *r = xstrndup(p, n);
			if (!r)
				return -ENOMEM;
			cfg->resources[cfg->nresources++] = r;
		}
		p += n + (comma ? 1 : 0);
	}
	return 0;
}

static int set_flag(struct config *cfg, const struct flag *f, const char *v,
		    char *err, size_t errlen)
{
	char *dst = (char *)cfg + f->off;
	switch (f->kind) {
	case F_STR: {
		char *s = xstrdup(v);
		if (!s)
			return -ENOMEM;
		free(*(char **)dst);
		*(char **)dst = s;
		return 0;
	}
	case F_INT:
	case F_MIB: {
		char *end;
		errno = 0;
		long n = strtol(v, &end, 10);
		if (!*v || *end || errno || n < f->min || n > f->max) {
			snprintf(err, errlen, "--%s: want a number from %d to %d, got \"%s\"",
				 f->name, f->min, f->max, v);
			return -EINVAL;
		}
		if (f->kind == F_MIB)
			*(long long *)dst = (long long)n << 20;
		else
			*(int *)dst = (int)n;
		return 0;
	}
	case F_BOOL:
		if (!strcmp(v, "true") || !strcmp(v, "1")) {
			*(bool *)dst = true;
		} else if (!strcmp(v, "false") || !strcmp(v, "0")) {
			*(bool *)dst = false;
		} else {
			snprintf(err, errlen, "--%s: want true or false", f->name);
			return -EINVAL;
		}
		return 0;
	case F_LISTEN:
		return parse_listen(cfg, v, err, errlen);
	case F_LIST:
		return parse_list(cfg, v, err, errlen);
	case F_AUTH:
		if (!strcmp(v, "none")) {
			cfg->client_auth = CLIENT_AUTH_NONE;
		} else if (!strcmp(v, "delegated")) {
			cfg->client_auth = CLIENT_AUTH_DELEGATED;
		} else {
			snprintf(err, errlen, "--client-auth: want none or delegated, got \"%s\"", v);
			return -EINVAL;
		}
		return 0;
	case F_MODE: {
		char *end;
		errno = 0;
		long m = strtol(v, &end, 8);
		if (!*v || *end || errno || m < 0 || m > 0777) {
			snprintf(err, errlen, "--%s: want an octal mode such as 0600, got \"%s\"",
				 f->name, v);
			return -EINVAL;
		}
		*(int *)dst = (int)m;
		return 0;
	}
	case F_LOGFMT:
		if (!strcmp(v, "text")) {
			cfg->log_format = LOG_TEXT;
		} else if (!strcmp(v, "json")) {
			cfg->log_format = LOG_JSON;
		} else {
			snprintf(err, errlen, "--log-format: want text or json");
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

int config_parse_flags(struct config *cfg, int argc, char **argv, char *err,
		       size_t errlen)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->listen_host = xstrdup("127.0.0.1");
	if (!cfg->listen_host)
		return -ENOMEM;
	cfg->listen_port = 8001;
	cfg->page_size = 500;
	cfg->history = 10000;
	cfg->bookmark_interval = 60;
	cfg->discovery_refresh = 60;
	cfg->upstream_qps = 50;
	cfg->upstream_burst = 100;
	cfg->backoff_max_ms = 5000;
	cfg->stall_seconds = 90;
	cfg->settle_seconds = 30;
	cfg->grace_seconds = 300;
	cfg->startup_timeout = 60;
	cfg->unix_socket_mode = 0600;
	cfg->authn_allow_ttl = 300;
	cfg->authn_deny_ttl = 10;
	cfg->passthrough_timeout = LIMIT_PASSTHROUGH_TIMEOUT_S;
	cfg->max_connections = LIMIT_MAX_CONNECTIONS;
	cfg->max_watchers = LIMIT_MAX_WATCHERS;
	cfg->idle_timeout = LIMIT_IDLE_TIMEOUT_S;
	cfg->header_timeout = LIMIT_HEADER_TIMEOUT_S;
	cfg->upstream_page_max = (long long)LIMIT_UPSTREAM_PAGE_BYTES;
	cfg->upstream_line_max = (long long)LIMIT_UPSTREAM_LINE_BYTES;
	cfg->upstream_list_max = (long long)LIMIT_UPSTREAM_LIST_BYTES;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage();
			return 1;
		}
		if (a[0] != '-') {
			snprintf(err, errlen, "unexpected argument \"%s\"", a);
			return -EINVAL;
		}
		a += a[1] == '-' ? 2 : 1;
		const char *eq = strchr(a, '=');
		size_t n = eq ? (size_t)(eq - a) : strlen(a);
		const struct flag *f = NULL;
		for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
			if (strlen(flags[k].name) == n && !strncmp(flags[k].name, a, n))
				f = &flags[k];
		if (!f) {
			snprintf(err, errlen, "unknown flag \"%s\" (see --help)", argv[i]);
			return -EINVAL;
		}
		const char *v = eq ? eq + 1 : NULL;
		if (!v && f->kind == F_BOOL)
			v = "true";
		if (!v) {
			if (i + 1 >= argc) {
				snprintf(err, errlen, "--%s needs a value", f->name);
				return -EINVAL;
			}
			v = argv[++i];
		}
		int r = set_flag(cfg, f, v, err, errlen);
		if (r)
			return r;
	}
	if (cfg->server &&
	    strncmp(cfg->server, "http://", 7) && strncmp(cfg->server, "https://", 8)) {
		snprintf(err, errlen, "--server: want an http:// or https:// URL, got \"%s\"",
			 cfg->server);
		return -EINVAL;
	}
	if (!cfg->tls_cert_file != !cfg->tls_key_file) {
		snprintf(err, errlen, "--tls-cert-file and --tls-private-key-file go together");
		return -EINVAL;
	}
	if (!cfg->nresources) {
		snprintf(err, errlen, "--resources is required, e.g. --resources pods,configmaps");
		return -EINVAL;
	}
	return 0;
}

void config_free(struct config *cfg)
{
	free(cfg->server);
	free(cfg->kubeconfig);
	free(cfg->context);
	free(cfg->serviceaccount_dir);
	free(cfg->listen_host);
	free(cfg->unix_socket);
	free(cfg->tls_cert_file);
	free(cfg->tls_key_file);
	for (int i = 0; i < cfg->nresources; i++)
		free(cfg->resources[i]);
	memset(cfg, 0, sizeof(*cfg));
}
