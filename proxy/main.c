/*
 * main: bin/informer-proxy. Parse flags, start one reflector per cached
 * resource, serve, and on SIGINT/SIGTERM drain (listeners closed, watches
 * ended, requests in flight given --shutdown-grace) and shut down in the
 * order that lets LeakSanitizer find nothing: HTTP first, then the
 * reflectors, then an RCU barrier, then the caches. SIGHUP reloads
 * (reload(): --config's resources; on_reload(): the credentials) and
 * never exits.
 */
#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <urcu-bp.h>

#include "cache/discover.h"
#include "cache/ratelimit.h"
#include "cache/reflector.h"
#include "cache/rvclock.h"
#include "cache/upstream.h"
#include "config/alloc.h"
#include "config/flags.h"
#include "config/creds.h"
#include "config/source.h"
#include "config/limits.h"
#include "config/log.h"
#include "config/override.h"
#include "config/version.h"
#include "proxy/reload.h"
#include "proxy/resources.h"
#include "proxy/server.h"
#include "proxy/table/table.h"

/* Set by the signal handlers, on whichever thread the signal lands, and
 * read by main: atomics (lock-free, so safe in a handler), as a volatile
 * sig_atomic_t is only for a handler on the reading thread. */
static int quit, hup;
static bool stopping; /* atomic; quit, for libcurl's transfers to see */

static int signalled(int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_RELAXED);
}

static void on_signal(int sig)
{
	__atomic_store_n(&quit, sig, __ATOMIC_RELAXED);
	__atomic_store_n(&stopping, true, __ATOMIC_RELAXED);
}

static void on_hup(int sig)
{
	__atomic_store_n(&hup, 1, __ATOMIC_RELAXED);
}

/* The upstream as the flags say: kubeconfig, in-cluster or --server,
 * then --certificate-authority, --insecure-skip-tls-verify and
 * --token-file over it. */
static int resolve_upstream(const struct config *cfg,
			    struct config_upstream *out, char *err,
			    size_t errlen)
{
	int rc = config_source_resolve(cfg->kubeconfig, cfg->context,
				       cfg->server, cfg->serviceaccount_dir,
				       out, err, errlen);
	if (!rc)
		rc = config_override_apply(out, cfg->certificate_authority,
					   cfg->insecure_skip_tls_verify,
					   cfg->token_file, err, errlen);
	return rc;
}

/* SIGHUP, part one: read the kubeconfig (or the service account) and the
 * token again, and take what may change at run time into the credentials
 * every thread uses. One log line says what; on an error the current
 * credentials stay. */
static void reload_upstream(const struct config *cfg,
			    struct config_upstream *live)
{
	struct config_upstream fresh;
	char err[512], msg[1024];
	if (resolve_upstream(cfg, &fresh, err, sizeof(err))) {
		log_error("SIGHUP: cannot re-read the upstream's credentials, "
			  "keeping the current ones: %s",
			  err);
		config_upstream_free(&fresh);
		return;
	}
	if (config_override_reload(live, &fresh, msg, sizeof(msg)))
		log_error("SIGHUP: re-read %s: %s", live->source, msg);
	else
		log_info("SIGHUP: re-read %s: %s", live->source, msg);
}

/* SIGHUP, part two (after config_reload() below): the credentials.
 * From the main loop, never from the signal handler. */
static void on_reload(const struct config *cfg, struct config_upstream *live)
{
	reload_upstream(cfg, live);
}

/* Whether the host:port of an http:// URL answers a TLS handshake: a
 * plain request to an HTTPS port gets a 400 or no answer at all, which
 * says nothing by itself. */
static bool speaks_tls(const char *http_url)
{
	char url[1024];
	if (strncmp(http_url, "http://", 7) ||
	    (size_t)snprintf(url, sizeof(url), "https://%s", http_url + 7) >=
		    sizeof(url))
		return false;
	CURL *c = curl_easy_init();
	if (!c)
		return false;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2000L);
	bool tls = curl_easy_perform(c) == CURLE_OK;
	curl_easy_cleanup(c);
	return tls;
}

/* --config's modification time (0: unreadable), for --watch-config. */
static int64_t config_mtime(const char *path)
{
	struct stat st;
	if (!path || stat(path, &st))
		return 0;
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

/* SIGHUP, or a changed --config with --watch-config: the new resources
 * (proxy/reload.h); a configuration that does not validate is refused
 * and the running one stays. */
static void reload(struct proxy *p, int argc, char **argv)
{
	char err[512];
	int added, removed;
	if (proxy_reload_config(p, argc, argv, &added, &removed, err,
				sizeof(err)))
		log_error("reload refused, the running configuration stays: %s",
			  err);
	else
		log_info("reload: %d resource entr%s added, %d removed, the "
			 "rest untouched",
			 added, added == 1 ? "y" : "ies", removed);
}

/*
 * Before the reflectors start (once the listeners are up, so that a
 * silent upstream holds no health probe back), and when discovery cannot
 * be asked: one GET /api, so that what retrying will not fix is one
 * error line, the first, before anything else is tried:
 * an untrusted or misnamed certificate, rejected credentials, an HTTPS
 * upstream named http://. Any other outcome passes, and the reflectors'
 * first LISTs tell the rest (classify() below): an upstream that cannot
 * be reached is waited for until --startup-timeout there. Returns 0, or
 * -1 once the line is logged.
 */
static int check_upstream(const struct cache_upstream *up)
{
	char err[512], msg[1024] = "";
	struct buf body = BUF_INIT;
	int crc = CURLE_OK;
	struct cache_upstream_ask q = { .what = CACHE_UPSTREAM_DISCOVERY,
					.path = "/api",
					.stop = &stopping,
					.curl_code = &crc };
	long code = cache_upstream_ask(up, &q, &body, NULL, err, sizeof(err));
	buf_free(&body);
	if (cache_upstream_tls_failure(crc))
		cache_upstream_tls_explain(up, crc, msg, sizeof(msg));
	else if ((code == 400 || crc == CURLE_GOT_NOTHING ||
		  crc == CURLE_RECV_ERROR || crc == CURLE_WEIRD_SERVER_REPLY) &&
		 speaks_tls(up->server))
		snprintf(msg, sizeof(msg),
			 "the upstream %s speaks HTTPS; use https://%s",
			 up->server, up->server + 7);
	else if (code == 401)
		snprintf(msg, sizeof(msg),
			 "the upstream %s rejected the credentials (401 "
			 "Unauthorized): check the token, token file or client "
			 "certificate in the kubeconfig",
			 up->server);
	if (!msg[0])
		return 0;
	log_error("%s", msg);
	return -1;
}

/* Where entry i of the resources was given, for error lines: its
 * --config FILE:LINE:COLUMN, or --resources. */
static const char *entry_where(const struct config *cfg, int i)
{
	return cfg->scopes[i].where ? cfg->scopes[i].where : "--resources";
}

/*
 * Resolve every resource name as kubectl would (cache/discover.h). What
 * the upstream does not serve yet (a CRD about to be installed) or cannot
 * be asked about is retried every second until --startup-timeout, said
 * once at info level; then one error line names each name still
 * unresolved, with where it was given. What retrying cannot fix (refused,
 * a resource that cannot be listed, and when discovery cannot be asked,
 * what check_upstream() finds) is one error line at once. kinds[i]
 * gets the kind of entry i; discovered kinds go to owned (*nowned of
 * them).
 */
static int resolve_all(const struct cache_upstream *up,
		       const struct config *cfg,
		       const struct cache_kind **kinds,
		       struct cache_kind **owned, int *nowned)
{
	char err[512];
	bool stop = false;
	int checked = 0;
	/* monotonic milliseconds: whole seconds of time() can end the
	 * wait up to one second early */
	int64_t began = cache_rvclock_now_ms();
	for (int attempt = 0; !signalled(&quit); attempt++) {
		struct buf why = BUF_INIT;
		int left = 0;
		for (int i = 0; i < cfg->nresources; i++) {
			const char *name = cfg->resources[i];
			if (kinds[i])
				continue;
			struct cache_kind *own = NULL;
			int rc = cache_discover_resolve(up, name, &stop,
							&kinds[i], &own, err,
							sizeof(err));
			if (own)
				owned[(*nowned)++] = own;
			if (!rc) {
				if (own || strcmp(name, kinds[i]->resource))
					log_info("%s: %s is %s in %s/%s",
						 entry_where(cfg, i), name,
						 kinds[i]->kind,
						 kinds[i]->group[0] ?
							 kinds[i]->group :
							 "core",
						 kinds[i]->version);
				continue;
			}
			if (rc == -ENOMEM || rc == -EACCES ||
			    rc == -EOPNOTSUPP) {
				log_error(
					"%s: %s: %s", entry_where(cfg, i), name,
					rc == -ENOMEM ? "out of memory" : err);
				buf_free(&why);
				return rc;
			}
			/* discovery could not be asked: say at once what
			 * retrying will not fix */
			if (rc == -EAGAIN && !checked++ && check_upstream(up)) {
				buf_free(&why);
				return -EACCES;
			}
			left++;
			buf_printf(&why, "%s%s: %s: %s", why.len ? "; " : "",
				   entry_where(cfg, i), name, err);
		}
		if (!left) {
			buf_free(&why);
			return 0;
		}
		if (cache_rvclock_now_ms() - began >=
		    cfg->startup_timeout * 1000LL) {
			log_error("not served by the upstream after %d s "
				  "(--startup-timeout): %s; fix the name, or "
				  "install its CRD first",
				  cfg->startup_timeout,
				  buf_ok(&why) ? why.p : "");
			buf_free(&why);
			return -ENOENT;
		}
		if (attempt % 30 == 0)
			log_info("waiting for the upstream to serve: %s; "
				 "retrying until --startup-timeout (%d s)",
				 buf_ok(&why) ? why.p : "",
				 cfg->startup_timeout);
		buf_free(&why);
		struct timespec ts = { 1, 0 };
		nanosleep(&ts, NULL);
	}
	return -EINTR;
}

/* Every client connection is a descriptor: take all the kernel allows
 * (the soft RLIMIT_NOFILE raised to the hard one), and say what that is.
 * Returns the limit in force, or -1 when it cannot be read. */
static long raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		log_warn("RLIMIT_NOFILE: %s", strerror(errno));
		return -1;
	}
	rlim_t was = rl.rlim_cur;
	if (rl.rlim_cur != rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			log_warn(
				"RLIMIT_NOFILE: cannot raise %llu to the hard limit %llu: %s",
				(unsigned long long)was,
				(unsigned long long)rl.rlim_max,
				strerror(errno));
			rl.rlim_cur = was;
		} else {
			log_info(
				"RLIMIT_NOFILE raised from %llu to %llu (the hard limit)",
				(unsigned long long)was,
				(unsigned long long)rl.rlim_cur);
		}
	} else {
		log_info("RLIMIT_NOFILE %llu (the hard limit)",
			 (unsigned long long)rl.rlim_cur);
	}
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)LONG_MAX ?
		       -1 :
		       (long)rl.rlim_cur;
}

/* `informer-proxy --probe URL`: an exec health check for a proxy that
 * listens on loopback only, where the kubelet's HTTP probes cannot reach
 * it. Exit 0 on a 200 within 2 s, else 1 with one line on stderr saying
 * why: the status answered, or why there was no answer. */
static int probe(const char *url)
{
	char why[CURL_ERROR_SIZE] = "";
	long code = 0;
	CURLcode rc = CURLE_FAILED_INIT;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *c = curl_easy_init();
	if (c) {
		curl_easy_setopt(c, CURLOPT_URL, url);
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2000L);
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
		curl_easy_setopt(c, CURLOPT_ERRORBUFFER, why);
		rc = curl_easy_perform(c);
		if (rc == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		curl_easy_cleanup(c);
	}
	if (rc != CURLE_OK)
		fprintf(stderr, "probe %s: no answer: %s\n", url,
			why[0] ? why : curl_easy_strerror(rc));
	else if (code != 200)
		fprintf(stderr, "probe %s: answered %ld, not 200\n", url, code);
	curl_global_cleanup();
	return code == 200 ? 0 : 1;
}

/*
 * One clear line for what keeps a resource from its first sync, from the
 * reflector's last upstream failure: 0 when there is none yet, -EACCES
 * for what retrying will not fix (an untrusted certificate, rejected or
 * insufficient credentials, a resource the upstream does not serve),
 * -EAGAIN for what it may (unreachable, overloaded).
 */
static int classify(const struct cache_upstream *up, struct cache_resource *r,
		    char *msg, size_t len)
{
	int rc = __atomic_load_n(&r->last_curl_error, __ATOMIC_RELAXED);
	long code = __atomic_load_n(&r->last_http_status, __ATOMIC_RELAXED);
	const struct cache_kind *k = r->kind;
	if (__atomic_load_n(&r->list_over, __ATOMIC_RELAXED)) {
		/* the transfer was cut on purpose: not a network error */
		snprintf(msg, len,
			 "the upstream's LIST of %s is larger than "
			 "--upstream-list-max-mib (%zu MiB): raise it",
			 k->resource,
			 (up->list_max ? up->list_max :
					 LIMIT_UPSTREAM_LIST_BYTES) >>
				 20);
		return -EACCES;
	}
	if (__atomic_load_n(&r->list_cycle, __ATOMIC_RELAXED)) {
		snprintf(msg, len,
			 "the upstream's LIST of %s goes round in a cycle: "
			 "a page's continue token names an earlier page",
			 k->resource);
		return -EAGAIN;
	}
	if ((code == 400 || rc == CURLE_GOT_NOTHING || rc == CURLE_RECV_ERROR ||
	     rc == CURLE_WEIRD_SERVER_REPLY) &&
	    speaks_tls(up->server)) {
		snprintf(msg, len,
			 "the upstream %s speaks HTTPS; use https://%s",
			 up->server, up->server + 7);
		return -EACCES;
	}
	switch (rc) {
	case CURLE_OK:
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
		cache_upstream_tls_explain(up, rc, msg, len);
		return -EACCES;
	default:
		snprintf(msg, len, "cannot reach the upstream %s (%s)",
			 up->server, curl_easy_strerror(rc));
		return -EAGAIN;
	}
	switch (code) {
	case 0:
	case 200:
		return 0;
	case 401:
		snprintf(msg, len,
			 "the upstream %s rejected the credentials (401 "
			 "Unauthorized): check the token, token file or client "
			 "certificate in the kubeconfig",
			 up->server);
		return -EACCES;
	case 403:
		snprintf(msg, len,
			 "the upstream %s refused to list %s (403 Forbidden): "
			 "grant get, list and watch on %s%s%s to this identity",
			 up->server, k->resource, k->resource,
			 k->group[0] ? "." : "", k->group);
		return -EACCES;
	case 404:
		snprintf(msg, len, "the upstream %s does not serve %s (404)",
			 up->server, k->resource);
		return -EACCES;
	case 405:
		snprintf(
			msg, len,
			"resource %s cannot be cached: the upstream %s does "
			"not allow listing it (405 MethodNotAllowed); remove it "
			"from --resources/--config",
			k->resource, up->server);
		return -EACCES;
	default:
		snprintf(msg, len,
			 "the upstream %s answered %ld to a LIST of %s",
			 up->server, code, k->resource);
		return -EAGAIN;
	}
}

/* The CRDs' reflector when a cached resource is a custom one: the one
 * --resources names, or one of the proxy's own (*own), which only the
 * Tables read. */
static void crd_source(struct proxy *p, const struct cache_upstream *up,
		       struct cache_resource **crds, bool *own)
{
	const struct cache_kind *k = cache_kind_find(
		"apiextensions.k8s.io", "customresourcedefinitions");
	bool custom = false;
	for (int i = 0; i < p->nres; i++) {
		custom |=
			proxy_table_crd_group_is_custom(p->res[i]->kind->group);
		if (p->res[i]->kind == k)
			*crds = p->res[i];
	}
	if (!custom || *crds)
		return;
	*crds = cache_resource_new(k, up, 64);
	*own = *crds != NULL;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--probe"))
		return probe(argv[2]);
	alloc_tune();
	struct config cfg;
	char err[512];
	int rc = config_flags_parse(&cfg, argc, argv, err, sizeof(err));
	if (rc == 1) {
		config_flags_free(&cfg);
		return 0;
	}
	log_setup(cfg.log_format, cfg.verbosity, "informer-proxy");
	if (rc) {
		log_error("%s", err);
		config_flags_free(&cfg);
		return 2;
	}
	struct sigaction hsa = { .sa_handler = on_hup };
	sigaction(SIGHUP, &hsa, NULL);
	log_info("informer-proxy %s%s%s", config_version_release(),
		 config_version_commit()[0] ? " commit " : "",
		 config_version_commit());
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	curl_global_init(CURL_GLOBAL_DEFAULT);

	struct config_upstream creds;
	if (resolve_upstream(&cfg, &creds, err, sizeof(err))) {
		log_error("%s", err);
		config_upstream_free(&creds);
		config_flags_free(&cfg);
		curl_global_cleanup();
		return 2;
	}
	char desc[512];
	config_creds_describe(&creds, desc, sizeof(desc));
	log_info("upstream: %s", desc);
	struct cache_ratelimit limit;
	cache_ratelimit_init(&limit, cfg.upstream_qps, cfg.upstream_burst);
	struct cache_upstream up = {
		.server = creds.url_base,
		.creds = &creds,
		.limit = &limit,
		.backoff_max_ms = cfg.backoff_max_ms,
		.stall_seconds = cfg.stall_seconds,
		.settle_seconds = cfg.settle_seconds,
		.page_size = cfg.page_size,
		.watch_timeout = cfg.watch_timeout,
		.strip_managed_fields = cfg.strip_managed_fields,
		.progress_interval = cfg.list_progress_interval ?
					     cfg.list_progress_interval :
					     -1, /* 0: every page */
		.page_max = (size_t)cfg.upstream_page_max,
		.line_max = (size_t)cfg.upstream_line_max,
		.list_max = (size_t)cfg.upstream_list_max,
		.answer_max = (size_t)cfg.upstream_answer_max,
	};
	struct proxy p = { .cfg = &cfg, .up = &up, .nofile = raise_nofile() };
	struct cache_kind *discovered[CONFIG_MAX_RESOURCES];
	int ndiscovered = 0;
	int exit_code = 1;
	struct cache_resource *crds = NULL; /* custom resources' columns */
	bool own_crds = false;
	int want = 0; /* reflectors: one per namespace of an entry */
	for (int i = 0; i < cfg.nresources; i++)
		want += proxy_resources_count(&cfg.scopes[i]);
	if (want > PROXY_MAX_REFLECTORS) {
		log_error("more than %d reflectors (namespaces of all entries)",
			  PROXY_MAX_REFLECTORS);
		goto out;
	}
	/* room for what reloads add */
	p.res = xcalloc(PROXY_MAX_REFLECTORS, sizeof(*p.res));
	if (!p.res)
		goto out;
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	const struct cache_kind *kinds[CONFIG_MAX_RESOURCES] = { 0 };
	if (resolve_all(&up, &cfg, kinds, discovered, &ndiscovered))
		goto out;
	for (int i = 0; i < cfg.nresources; i++) {
		const struct cache_kind *k = kinds[i];
		for (int j = 0; j < i; j++) /* po and pods alike */
			if (!strcmp(kinds[j]->group, k->group) &&
			    !strcmp(kinds[j]->resource, k->resource)) {
				log_error("%s: \"%s\" named twice: the same "
					  "resource as \"%s\"%s%s",
					  entry_where(&cfg, i),
					  cfg.resources[i], cfg.resources[j],
					  cfg.scopes[j].where ? " at " : "",
					  cfg.scopes[j].where ?
						  cfg.scopes[j].where :
						  "");
				goto out;
			}
		int n = proxy_resources_make(
			k, &cfg.scopes[i], &up, (size_t)cfg.history,
			&p.res[p.nres], want - p.nres, err, sizeof(err));
		if (n < 0) {
			log_error("%s", err);
			goto out;
		}
		p.nres += n;
	}

	/* Custom resources print the columns of their CRD: keep the CRDs. */
	crd_source(&p, &up, &crds, &own_crds);
	if (crds)
		proxy_table_crd_attach(crds->store);

	if (proxy_server_start(&p, err, sizeof(err))) {
		log_error("%s", err);
		goto out;
	}
	if (check_upstream(&up))
		goto out;
	/* until the first sync, the loop below says what fails */
	for (int i = 0; i < p.nres; i++)
		p.res[i]->quiet_start = true;
	if (own_crds)
		crds->quiet_start = true;
	for (int i = 0; i < p.nres; i++) {
		if (cache_reflector_start(p.res[i])) {
			log_error("cannot start the reflector thread");
			goto out;
		}
	}
	if (own_crds && cache_reflector_start(crds)) {
		log_error("cannot start the reflector thread");
		goto out;
	}
	log_info("caching %d resource(s) from %s", p.nres, creds.server);
	if (proxy_reload_init(&p)) {
		log_error("out of memory");
		goto out;
	}
	int64_t mtime = config_mtime(cfg.config_file);
	time_t next_stat = 0;
	/* Until every resource has synced once, say plainly what is wrong
	 * with the upstream; give up on what retrying cannot fix, and on an
	 * upstream still unreachable after --startup-timeout. */
	int64_t began = cache_rvclock_now_ms();
	time_t next_check = 0;
	int unsynced = p.nres;
	bool said_waiting = false;
	while (!signalled(&quit)) {
		struct timespec ts = { 0, 100 * 1000000L };
		nanosleep(&ts, NULL);
		if (cfg.watch_config && cfg.config_file &&
		    time(NULL) >= next_stat) {
			next_stat = time(NULL) + 1;
			int64_t m = config_mtime(cfg.config_file);
			if (m && m != mtime) {
				mtime = m;
				log_info("--config %s changed: reloading",
					 cfg.config_file);
				reload(&p, argc, argv);
			}
		}
		if (__atomic_exchange_n(&hup, 0, __ATOMIC_RELAXED)) {
			log_info("SIGHUP: reloading the credentials and the "
				 "configuration");
			on_reload(&cfg, &creds);
			mtime = config_mtime(cfg.config_file);
			reload(&p, argc, argv);
		}
		if (!unsynced || time(NULL) < next_check)
			continue;
		next_check = time(NULL) + 2;
		unsynced = 0;
		for (int i = 0; i < p.nres; i++) {
			if (cache_resource_synced(p.res[i]) ||
			    cache_resource_retired(p.res[i]))
				continue;
			unsynced++;
			char msg[768];
			int why = classify(&up, p.res[i], msg, sizeof(msg));
			bool late = cache_rvclock_now_ms() - began >=
				    cfg.startup_timeout * 1000LL;
			if (why == -EACCES) {
				log_error("%s", msg);
				exit_code = 1;
				goto out;
			}
			if (late && why) {
				log_error("%s; gave up after --startup-timeout "
					  "(%d s)",
					  msg, cfg.startup_timeout);
				exit_code = 1;
				goto out;
			}
			if (why && !said_waiting)
				log_info(
					"waiting for the upstream: %s; "
					"retrying until --startup-timeout (%d s)",
					msg, cfg.startup_timeout);
			else if (why) /* the same, retried */
				log_v(1, "waiting for the upstream: %s", msg);
			said_waiting |= why != 0;
		}
	}
	log_info("shutting down (signal %d)", signalled(&quit));
	proxy_server_drain(&p, cfg.shutdown_grace);
	exit_code = 0;
out:
	proxy_server_stop(&p);
	proxy_table_crd_attach(NULL);
	for (int i = 0; i < p.nres; i++) /* all at once, then join each */
		cache_resource_ask_stop(p.res[i]);
	if (own_crds)
		cache_resource_ask_stop(crds);
	for (int i = 0; i < p.nres; i++)
		cache_reflector_stop(p.res[i]);
	if (own_crds)
		cache_reflector_stop(crds);
	proxy_server_release(&p);
	rcu_barrier();
	for (int i = 0; i < p.nres; i++)
		cache_resource_free(p.res[i]);
	if (own_crds)
		cache_resource_free(crds);
	proxy_reload_free(&p);
	free(p.res);
	for (int i = 0; i < ndiscovered; i++)
		cache_discover_free(discovered[i]);
	config_upstream_free(&creds);
	cache_ratelimit_destroy(&limit);
	curl_global_cleanup();
	config_flags_free(&cfg);
	return exit_code;
}
