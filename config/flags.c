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
#include "config/source.h"
#include "config/limits.h"
#include "config/version.h"

enum flag_kind {
	F_STR,
	F_INT,
	F_MIB,
	F_BOOL,
	F_LISTEN,
	F_HOSTPORT,
	F_LIST,
	F_LOGFMT,
	F_AUTH,
	F_MODE
};

/*
 * One row per flag: where it goes, what it accepts, its default and its
 * help. The default is applied from the row and printed from the row, so
 * --help cannot drift from the code: DEF(n) is a number (bytes for F_MIB,
 * printed in MiB; octal for F_MODE), .def_str a value applied as if given
 * on the command line, and .note text after the default inside the
 * parentheses, or the whole of it when the flag has no single default.
 */
struct flag {
	const char *name;
	enum flag_kind kind;
	size_t off;   /* offset into struct config */
	int min, max; /* for F_INT; F_MIB, in MiB */
	const char *help;
	bool has_def;
	long long def;
	const char *def_str;
	const char *note;
};

#define OFF(f) offsetof(struct config, f)
#define FLAG(n, k, o, lo, hi) \
	.name = (n), .kind = (k), .off = (o), .min = (lo), .max = (hi)
#define DEF(n) .has_def = true, .def = (n)

static const struct flag flags[] = {
	{ FLAG("kubeconfig", F_STR, OFF(kubeconfig), 0, 0),
	  .help = "kubeconfig file",
	  .note = "in-cluster, else $KUBECONFIG, else ~/.kube/config" },
	{ FLAG("context", F_STR, OFF(context), 0, 0),
	  .help = "kubeconfig context", .note = "its current-context" },
	{ FLAG("serviceaccount-dir", F_STR, OFF(serviceaccount_dir), 0, 0),
	  .help = "in-cluster token and ca.crt directory",
	  .note = CONFIG_SOURCE_INCLUSTER_ROOT },
	{ FLAG("server", F_STR, OFF(server), 0, 0),
	  .help = "upstream apiserver URL, overriding the kubeconfig's (http:// or https://)" },
	{ FLAG("resources", F_LIST, OFF(resources), 0, 0),
	  .help = "resources to cache, kubectl spelling: pods,configmaps,deployments.apps" },
	{ FLAG("config", F_STR, OFF(config_file), 0, 0),
	  .help = "YAML file: resources with their scope, and any flag by name; "
		  "flags given on the command line win (docs/CONFIG.md)" },
	{ FLAG("watch-config", F_BOOL, OFF(watch_config), 0, 0),
	  .help = "reload --config when the file changes, as on SIGHUP" },
	{ FLAG("listen", F_LISTEN, 0, 0, 0),
	  .help = "local HOST:PORT to serve on", .def_str = "127.0.0.1:8001",
	  .note = "; port 0 picks one" },
	{ FLAG("metrics-listen", F_HOSTPORT, OFF(metrics_listen), 0, 0),
	  .help = "also serve /metrics and the health probes (no API, no "
		  "identity) on this HOST:PORT, e.g. 0.0.0.0:9090 for a "
		  "Prometheus scrape by pod IP",
	  .note = "off" },
	{ FLAG("unix-socket", F_STR, OFF(unix_socket), 0, 0),
	  .help = "also serve on this unix socket (mode 0600 unless --unix-socket-mode)" },
	{ FLAG("log-format", F_LOGFMT, OFF(log_format), 0, 0),
	  .help = "text or json", .def_str = "text" },
	{ FLAG("v", F_INT, OFF(verbosity), 0, 10),
	  .help = "log verbosity (0-10)", DEF(0) },
	{ FLAG("page-size", F_INT, OFF(page_size), 1, 100000),
	  .help = "items per upstream LIST page", DEF(500) },
	{ FLAG("watch-timeout", F_INT, OFF(watch_timeout), 1, 86400),
	  .help = "upstream watch timeoutSeconds",
	  .note = "300-600, randomized" },
	{ FLAG("history", F_INT, OFF(history), 16, 10000000),
	  .help = "watch events kept per resource", DEF(10000) },
	{ FLAG("bookmark-interval", F_INT, OFF(bookmark_interval), 1, 3600),
	  .help = "seconds between BOOKMARK events to local watchers",
	  DEF(60) },
	{ FLAG("discovery-refresh", F_INT, OFF(discovery_refresh), 1, 86400),
	  .help = "seconds between refreshes of the upstream's discovery documents",
	  DEF(60) },
	{ FLAG("upstream-qps", F_INT, OFF(upstream_qps), 0, 100000),
	  .help = "requests per second the proxy itself makes upstream (a paged LIST counts once), 0 = no limit",
	  DEF(50) },
	{ FLAG("upstream-burst", F_INT, OFF(upstream_burst), 1, 100000),
	  .help = "burst above --upstream-qps", DEF(100) },
	{ FLAG("backoff-max-ms", F_INT, OFF(backoff_max_ms), 10, 600000),
	  .help = "cap of the exponential backoff after upstream errors",
	  DEF(5000) },
	{ FLAG("upstream-stall-timeout", F_INT, OFF(stall_seconds), 1, 86400),
	  .help = "seconds without a byte after which an upstream stream that sends "
		  "BOOKMARKs counts as dead; streams without BOOKMARKs rely on TCP "
		  "keepalive and their deadline",
	  DEF(90) },
	{ FLAG("upstream-settle", F_INT, OFF(settle_seconds), 1, 3600),
	  .help = "seconds after which a resourceVersion seen upstream counts as "
		  "delivered to an open watch, so a quiet resource resumes from it",
	  DEF(30) },
	{ FLAG("upstream-grace", F_INT, OFF(grace_seconds), 0, 86400),
	  .help = "seconds /readyz/upstream stays 200 while a resource's upstream "
		  "requests fail (no answer or an error), then 503; /readyz does "
		  "not follow the upstream",
	  DEF(300) },
	{ FLAG("startup-timeout", F_INT, OFF(startup_timeout), 1, 86400),
	  .help = "seconds an unreachable upstream is retried at startup before exiting 1",
	  DEF(60) },
	{ FLAG("threads", F_INT, OFF(threads), 1, 256),
	  .help = "HTTP worker threads", .note = "number of CPUs" },
	{ FLAG("watch-inline-max", F_INT, OFF(watch_inline_max), 0, 1000000),
	  .help = "idle watch streams a reflector writes itself after a batch of "
		  "upstream events when no more than this many were woken; the "
		  "fan-out threads write the others; 0 = the fan-out threads "
		  "write all",
	  DEF(128) },
	{ FLAG("list-progress-interval", F_INT, OFF(list_progress_interval), 0,
	       3600),
	  .help = "seconds between the info lines that tell a full upstream LIST's "
		  "progress (0: after every page)",
	  DEF(5) },
	{ FLAG("strip-managed-fields", F_BOOL, OFF(strip_managed_fields), 0, 0),
	  .help = "drop metadata.managedFields from cached objects" },
	{ FLAG("client-auth", F_AUTH, OFF(client_auth), 0, 0),
	  .help = "none (loopback only: a client without credentials acts as the proxy) "
		  "or delegated (TokenReview and SubjectAccessReview upstream for every "
		  "request; required for a non-loopback --listen)",
	  .def_str = "none" },
	{ FLAG("allow-unauthenticated-remote", F_BOOL, OFF(allow_unauth_remote),
	       0, 0),
	  .help = "start with a non-loopback --listen and --client-auth=none (anyone who "
		  "reaches the port acts as the proxy)" },
	{ FLAG("accept-hosts", F_STR, OFF(accept_hosts), 0, 0),
	  .help = "with --client-auth=none, Host names served over TCP: comma-separated "
		  "POSIX extended regexps, searched case-insensitively in the Host "
		  "header without its port; the --listen host is accepted too; other "
		  "hosts get 403 (DNS rebinding)",
	  .def_str = "^localhost$,^127\\.0\\.0\\.1$,^\\[::1\\]$" },
	{ FLAG("accept-origins", F_STR, OFF(accept_origins), 0, 0),
	  .help = "with --client-auth=none, browser origins served over TCP: "
		  "comma-separated, exact (https://host:port); a request with another "
		  "Origin header gets 403",
	  .note = "none" },
	{ FLAG("unix-socket-mode", F_MODE, OFF(unix_socket_mode), 0, 0),
	  .help = "permissions of --unix-socket, octal", DEF(0600) },
	{ FLAG("tls-cert-file", F_STR, OFF(tls_cert_file), 0, 0),
	  .help = "serve HTTPS with this certificate (PEM; re-read when it changes)" },
	{ FLAG("tls-private-key-file", F_STR, OFF(tls_key_file), 0, 0),
	  .help = "the key of --tls-cert-file (PEM; re-read when it changes)" },
	{ FLAG("tls-min-version", F_STR, OFF(tls_min_version), 0, 0),
	  .help = "lowest TLS version the HTTPS listener accepts: VersionTLS10, "
		  "VersionTLS11, VersionTLS12 or VersionTLS13",
	  .def_str = "VersionTLS12" },
	{ FLAG("tls-cipher-suites", F_STR, OFF(tls_cipher_suites), 0, 0),
	  .help = "TLS 1.0-1.2 cipher suites of the HTTPS listener, comma-separated "
		  "IANA names as the apiserver takes them "
		  "(TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,...); TLS 1.3's are fixed",
	  .note = "the ECDHE AES-GCM, ChaCha20-Poly1305 and AES-CBC-SHA suites, "
		  "Go's default" },
	{ FLAG("passthrough-timeout", F_INT, OFF(passthrough_timeout), 0,
	       86400),
	  .help = "seconds a forwarded request may take, watches, logs with follow, exec, "
		  "attach, port-forward and proxy excepted; 0 = no limit",
	  DEF(LIMIT_PASSTHROUGH_TIMEOUT_S), .note = ", the apiserver's own" },
	{ FLAG("max-connections", F_INT, OFF(max_connections), 1, 1000000),
	  .help = "open client connections; one more is answered 429 with Retry-After",
	  DEF(LIMIT_MAX_CONNECTIONS),
	  .note = ", lowered to what the open-file limit allows" },
	{ FLAG("max-watchers", F_INT, OFF(max_watchers), 1, 1000000),
	  .help = "open local watches, all resources together; one more is answered 429",
	  DEF(LIMIT_MAX_WATCHERS) },
	{ FLAG("idle-timeout", F_INT, OFF(idle_timeout), 1, 86400),
	  .help = "seconds a client connection may be silent before it is closed",
	  DEF(LIMIT_IDLE_TIMEOUT_S) },
	{ FLAG("connection-memory-kib", F_INT, OFF(connection_memory), 8, 1024),
	  .help = "KiB of memory per client connection; a request header must fit "
		  "in it, or it is answered 431",
	  DEF(LIMIT_CONNECTION_MEMORY_KIB) },
	{ FLAG("header-timeout", F_INT, OFF(header_timeout), 1, 3600),
	  .help = "seconds a client has to send a whole request header",
	  DEF(LIMIT_HEADER_TIMEOUT_S), .note = ", the apiserver's" },
	{ FLAG("request-body-timeout", F_INT, OFF(request_body_timeout), 1,
	       3600),
	  .help = "seconds a request body may go without a byte before its "
		  "connection is closed",
	  DEF(LIMIT_REQUEST_BODY_TIMEOUT_S) },
	{ FLAG("max-request-body-bytes", F_INT, OFF(max_request_body), 1,
	       1 << 30),
	  .help = "bytes of one request body; a larger one is answered 413",
	  DEF(LIMIT_REQUEST_BODY_BYTES), .note = ", the apiserver's" },
	{ FLAG("upstream-page-max-mib", F_MIB, OFF(upstream_page_max), 1,
	       65536),
	  .help = "MiB of one upstream LIST page; a larger one is fetched again in "
		  "smaller pages",
	  DEF((long long)LIMIT_UPSTREAM_PAGE_BYTES) },
	{ FLAG("upstream-line-max-mib", F_MIB, OFF(upstream_line_max), 1, 4096),
	  .help = "MiB of one upstream watch event or list item; a larger event ends "
		  "the watch, a larger item is skipped and logged",
	  DEF((long long)LIMIT_UPSTREAM_LINE_BYTES) },
	{ FLAG("upstream-list-max-mib", F_MIB, OFF(upstream_list_max), 1,
	       1048576),
	  .help = "MiB of all the pages of one upstream LIST",
	  DEF((long long)LIMIT_UPSTREAM_LIST_BYTES) },
	{ FLAG("upstream-answer-max-mib", F_MIB, OFF(upstream_answer_max), 1,
	       4096),
	  .help = "MiB of one upstream answer the proxy reads whole for itself "
		  "(RV probe, discovery, delegated-auth review); a larger one "
		  "fails that request",
	  DEF((long long)LIMIT_UPSTREAM_ANSWER_BYTES) },
	{ FLAG("authn-allow-ttl", F_INT, OFF(authn_allow_ttl), 1, 86400),
	  .help = "seconds a delegated allow decision is cached", DEF(300) },
	{ FLAG("authn-deny-ttl", F_INT, OFF(authn_deny_ttl), 1, 3600),
	  .help = "seconds a delegated deny decision is cached", DEF(10) },
	{ FLAG("authn-source-reviews", F_INT, OFF(authn_source_reviews), 1,
	       100000),
	  .help = "reviews a second one client address may start for tokens the "
		  "proxy has not seen accepted (twice that in a burst); past it "
		  "429",
	  DEF(LIMIT_AUTHN_SOURCE_REVIEWS) },
	{ FLAG("certificate-authority", F_STR, OFF(certificate_authority), 0,
	       0),
	  .help = "CA file (PEM) to verify the upstream with, over the kubeconfig's" },
	{ FLAG("insecure-skip-tls-verify", F_BOOL,
	       OFF(insecure_skip_tls_verify), 0, 0),
	  .help = "do not verify the upstream's certificate (insecure: for tests only)" },
	{ FLAG("token-file", F_STR, OFF(token_file), 0, 0),
	  .help = "bearer token file for the upstream, over the kubeconfig's (re-read "
		  "when it changes and on SIGHUP)" },
	{ FLAG("shutdown-grace", F_INT, OFF(shutdown_grace), 0, 3600),
	  .help = "seconds SIGTERM waits for open requests to finish once the "
		  "listeners are closed and local watches ended",
	  DEF(10) },
};

#define NFLAGS (sizeof(flags) / sizeof(flags[0]))

/* The " (default ...)" of f into out, or "" when it has none to tell. */
static void default_text(const struct flag *f, char *out, size_t outlen)
{
	const char *note = f->note ? f->note : "";
	if (f->has_def && f->kind == F_MIB)
		snprintf(out, outlen, " (default %lld%s)", f->def >> 20, note);
	else if (f->has_def && f->kind == F_MODE)
		snprintf(out, outlen, " (default %04llo%s)", f->def, note);
	else if (f->has_def)
		snprintf(out, outlen, " (default %lld%s)", f->def, note);
	else if (f->def_str)
		snprintf(out, outlen, " (default %s%s)", f->def_str, note);
	else if (*note)
		snprintf(out, outlen, " (default %s)", note);
	else
		out[0] = '\0';
}

/* The --help text, every flag with its default, to out. */
static void usage(FILE *out)
{
	char def[256];
	fprintf(out,
		"usage: informer-proxy [--kubeconfig PATH] [--server URL] --resources LIST [flags]\n"
		"       informer-proxy --probe URL   (exit 0 if URL answers 200: an exec health check)\n"
		"       informer-proxy --version     (print the version and git commit)\n\n");
	for (size_t i = 0; i < NFLAGS; i++) {
		default_text(&flags[i], def, sizeof(def));
		fprintf(out, "  --%-22s %s%s\n", flags[i].name, flags[i].help,
			def);
	}
}

int config_flags_hostport(const char *flag, const char *v, char **host,
			  int *port, char *err, size_t errlen)
{
	const char *colon = strrchr(v, ':');
	char *end;
	long n = colon ? strtol(colon + 1, &end, 10) : -1;
	if (!colon || colon == v || !colon[1] || *end || n < 0 || n > 65535) {
		snprintf(err, errlen, "--%s: want HOST:PORT, got \"%s\"", flag,
			 v);
		return -EINVAL;
	}
	if (host && !(*host = xstrndup(v, (size_t)(colon - v))))
		return -ENOMEM;
	if (port)
		*port = (int)n;
	return 0;
}

static int parse_listen(struct config *cfg, const char *v, char *err,
			size_t errlen)
{
	char *host;
	int port, rc = config_flags_hostport("listen", v, &host, &port, err,
					     errlen);
	if (rc)
		return rc;
	free(cfg->listen_host);
	cfg->listen_host = host;
	cfg->listen_port = port;
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
			struct config_scope *sc = &cfg->scopes[cfg->nresources];
			cfg->resources[cfg->nresources++] = r;
			if (!(sc->resource = xstrdup(r)))
				return -ENOMEM;
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
			snprintf(
				err, errlen,
				"--%s: want a number from %d to %d, got \"%s\"",
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
			snprintf(err, errlen, "--%s: want true or false",
				 f->name);
			return -EINVAL;
		}
		return 0;
	case F_LISTEN:
		return parse_listen(cfg, v, err, errlen);
	case F_HOSTPORT: {
		int rc = config_flags_hostport(f->name, v, NULL, NULL, err,
					       errlen);
		if (rc)
			return rc;
		char *copy = xstrdup(v);
		if (!copy)
			return -ENOMEM;
		free(*(char **)dst);
		*(char **)dst = copy;
		return 0;
	}
	case F_LIST:
		return parse_list(cfg, v, err, errlen);
	case F_AUTH:
		if (!strcmp(v, "none")) {
			cfg->client_auth = CLIENT_AUTH_NONE;
		} else if (!strcmp(v, "delegated")) {
			cfg->client_auth = CLIENT_AUTH_DELEGATED;
		} else {
			snprintf(
				err, errlen,
				"--client-auth: want none or delegated, got \"%s\"",
				v);
			return -EINVAL;
		}
		return 0;
	case F_MODE: {
		char *end;
		errno = 0;
		long m = strtol(v, &end, 8);
		if (!*v || *end || errno || m < 0 || m > 0777) {
			snprintf(
				err, errlen,
				"--%s: want an octal mode such as 0600, got \"%s\"",
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
			snprintf(err, errlen,
				 "--log-format: want text or json");
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

/* Every row's default into cfg; the parsers take .def_str as they take a
 * value from the command line. */
static int apply_defaults(struct config *cfg, char *err, size_t errlen)
{
	for (size_t i = 0; i < NFLAGS; i++) {
		const struct flag *f = &flags[i];
		char *dst = (char *)cfg + f->off;
		if (f->def_str) {
			int rc = set_flag(cfg, f, f->def_str, err, errlen);
			if (rc)
				return rc;
		} else if (f->has_def && f->kind == F_MIB) {
			*(long long *)dst = f->def;
		} else if (f->has_def) {
			*(int *)dst = (int)f->def;
		}
	}
	return 0;
}

/* The --config file's flags, then its resources, into cfg: before the
 * command line's, which therefore win (a --resources list adds to the
 * file's resources). */
static int apply_file(struct config *cfg, const char *path, char *err,
		      size_t errlen)
{
	struct config_file f;
	int rc = config_file_load(path, &f, err, errlen);
	if (rc)
		return rc;
	for (int i = 0; !rc && i < f.nglobals; i++) {
		const struct config_file_global *g = &f.globals[i];
		const struct flag *fl = NULL;
		for (size_t k = 0; k < NFLAGS; k++)
			if (!strcmp(flags[k].name, g->key))
				fl = &flags[k];
		if (!fl || !strcmp(g->key, "config")) {
			snprintf(err, errlen,
				 "%s: unknown key \"%s\" (want resources or "
				 "a flag's name, see --help)",
				 g->where, g->key);
			rc = -EINVAL;
			break;
		}
		char msg[384];
		rc = set_flag(cfg, fl, g->value, msg, sizeof(msg));
		if (rc == -EINVAL)
			snprintf(err, errlen, "%s: %s", g->where,
				 msg[0] == '-' && msg[1] == '-' ? msg + 2 :
								  msg);
	}
	for (int i = 0; !rc && i < f.nres; i++) {
		if (cfg->nresources == CONFIG_MAX_RESOURCES) {
			snprintf(err, errlen, "%s: at most %d resources",
				 f.res[i].where, CONFIG_MAX_RESOURCES);
			rc = -EINVAL;
			break;
		}
		char *r = xstrdup(f.res[i].resource);
		if (!r || config_file_scope_copy(&cfg->scopes[cfg->nresources],
						 &f.res[i])) {
			free(r);
			rc = -ENOMEM;
			break;
		}
		cfg->resources[cfg->nresources++] = r;
	}
	config_file_free(&f);
	return rc;
}

/* The value of --config in argv, or NULL: a first pass that skips the
 * values of other flags, so a value spelled like a flag is not taken. */
static const char *config_arg(int argc, char **argv)
{
	const char *v = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-')
			continue;
		a += a[1] == '-' ? 2 : 1;
		if (!strncmp(a, "config=", 7)) {
			v = a + 7;
			continue;
		}
		if (strchr(a, '=') || i + 1 >= argc)
			continue;
		for (size_t k = 0; k < NFLAGS; k++)
			if (!strcmp(flags[k].name, a) &&
			    flags[k].kind != F_BOOL) {
				i++;
				if (!strcmp(a, "config"))
					v = argv[i];
			}
	}
	return v;
}

int config_flags_parse(struct config *cfg, int argc, char **argv, char *err,
		       size_t errlen)
{
	memset(cfg, 0, sizeof(*cfg));
	int rc = apply_defaults(cfg, err, errlen);
	if (rc)
		return rc;
	const char *file = config_arg(argc, argv);
	if (file && (rc = apply_file(cfg, file, err, errlen)))
		return rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		}
		if (!strcmp(a, "--version")) {
			const char *commit = config_version_commit();
			printf("informer-proxy %s%s%s%s\n",
			       config_version_release(),
			       commit[0] ? " (commit " : "", commit,
			       commit[0] ? ")" : "");
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
		for (size_t k = 0; k < NFLAGS; k++)
			if (strlen(flags[k].name) == n &&
			    !strncmp(flags[k].name, a, n))
				f = &flags[k];
		if (!f) {
			snprintf(err, errlen,
				 "unknown flag \"%s\" (see --help)", argv[i]);
			return -EINVAL;
		}
		const char *v = eq ? eq + 1 : NULL;
		if (!v && f->kind == F_BOOL)
			v = "true";
		if (!v) {
			if (i + 1 >= argc) {
				snprintf(err, errlen, "--%s needs a value",
					 f->name);
				return -EINVAL;
			}
			v = argv[++i];
		}
		int r = set_flag(cfg, f, v, err, errlen);
		if (r)
			return r;
	}
	if (cfg->server && strncmp(cfg->server, "http://", 7) &&
	    strncmp(cfg->server, "https://", 8)) {
		snprintf(
			err, errlen,
			"--server: want an http:// or https:// URL, got \"%s\"",
			cfg->server);
		return -EINVAL;
	}
	if (cfg->certificate_authority && cfg->insecure_skip_tls_verify) {
		snprintf(
			err, errlen,
			"--certificate-authority and --insecure-skip-tls-verify "
			"exclude each other");
		return -EINVAL;
	}
	if (!cfg->tls_cert_file != !cfg->tls_key_file) {
		snprintf(
			err, errlen,
			"--tls-cert-file and --tls-private-key-file go together");
		return -EINVAL;
	}
	if (!cfg->nresources) {
		snprintf(
			err, errlen,
			"--resources is required, e.g. --resources pods,configmaps");
		return -EINVAL;
	}
	for (int i = 0; i < cfg->nresources; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(cfg->resources[i], cfg->resources[k])) {
				snprintf(err, errlen,
					 "resource \"%s\" named twice%s%s",
					 cfg->resources[i],
					 cfg->scopes[k].where ? ", first at " :
								"",
					 cfg->scopes[k].where ?
						 cfg->scopes[k].where :
						 "");
				return -EINVAL;
			}
	return 0;
}

void config_flags_free(struct config *cfg)
{
	free(cfg->server);
	free(cfg->kubeconfig);
	free(cfg->context);
	free(cfg->serviceaccount_dir);
	free(cfg->listen_host);
	free(cfg->unix_socket);
	free(cfg->metrics_listen);
	free(cfg->tls_cert_file);
	free(cfg->tls_key_file);
	free(cfg->accept_hosts);
	free(cfg->accept_origins);
	free(cfg->tls_min_version);
	free(cfg->tls_cipher_suites);
	free(cfg->certificate_authority);
	free(cfg->token_file);
	free(cfg->config_file);
	for (int i = 0; i < cfg->nresources; i++) {
		free(cfg->resources[i]);
		config_file_scope_free(&cfg->scopes[i]);
	}
	memset(cfg, 0, sizeof(*cfg));
}

/* Whether flag f holds the same value in a and b. */
static bool flag_same(const struct config *a, const struct config *b,
		      const struct flag *f)
{
	const char *x = (const char *)a + f->off, *y = (const char *)b + f->off;
	switch (f->kind) {
	case F_STR:
	case F_HOSTPORT: {
		const char *s = *(char *const *)x, *t = *(char *const *)y;
		return s == t || (s && t && !strcmp(s, t));
	}
	case F_INT:
	case F_MODE:
		return *(const int *)x == *(const int *)y;
	case F_MIB:
		return *(const long long *)x == *(const long long *)y;
	case F_BOOL:
		return *(const bool *)x == *(const bool *)y;
	case F_LISTEN:
		return a->listen_port == b->listen_port &&
		       !strcmp(a->listen_host ? a->listen_host : "",
			       b->listen_host ? b->listen_host : "");
	case F_LOGFMT:
		return a->log_format == b->log_format;
	case F_AUTH:
		return a->client_auth == b->client_auth;
	case F_LIST:
		break;
	}
	return true; /* the resources: a reload applies them */
}

int config_flags_changed(const struct config *a, const struct config *b,
			 char *out, size_t outlen)
{
	int n = 0;
	size_t used = 0;
	bool full = !outlen;
	if (outlen)
		out[0] = '\0';
	for (size_t i = 0; i < NFLAGS; i++) {
		if (flag_same(a, b, &flags[i]))
			continue;
		n++;
		if (full)
			continue;
		int k = snprintf(out + used, outlen - used, "%s%s",
				 n > 1 ? ", " : "", flags[i].name);
		if (k > 0 && used + (size_t)k < outlen) {
			used += (size_t)k;
		} else { /* whole names only, and none after a cut */
			out[used] = '\0';
			full = true;
		}
	}
	return n;
}
