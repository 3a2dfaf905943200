/*
 * main: bin/informer-proxy. Parse flags, start one reflector per cached
 * resource, serve, and on SIGINT/SIGTERM shut down in the order that lets
 * LeakSanitizer find nothing: HTTP first, then the reflectors, then an
 * RCU barrier, then the caches.
 */
#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <urcu-bp.h>

#include "cache/discover.h"
#include "cache/ratelimit.h"
#include "cache/reflector.h"
#include "config/alloc.h"
#include "config/flags.h"
#include "config/creds.h"
#include "config/kubeconfig.h"
#include "config/log.h"
#include "proxy/server.h"

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	quit = sig;
}

/*
 * Resolve every --resources name as kubectl would (cache/discover.h).
 * What the upstream does not serve yet (a CRD about to be installed) or
 * cannot be asked about is retried every second until --startup-timeout;
 * then one error line names each name still unresolved. kinds[i] gets
 * the kind of names[i]; discovered kinds go to owned (*nowned of them).
 */
static int resolve_all(const struct cache_upstream *up, char **names, int n,
		       int timeout_s, const struct cache_kind **kinds,
		       struct cache_kind **owned, int *nowned)
{
	char err[512];
	bool stop = false;
	time_t began = time(NULL);
	for (int attempt = 0; !quit; attempt++) {
		struct buf why = BUF_INIT;
		int left = 0;
		for (int i = 0; i < n; i++) {
			if (kinds[i])
				continue;
			struct cache_kind *own = NULL;
			int rc = cache_discover_resolve(up, names[i], &stop,
							&kinds[i], &own, err,
							sizeof(err));
			if (own)
				owned[(*nowned)++] = own;
			if (!rc) {
				if (own || strcmp(names[i], kinds[i]->resource))
					log_info("--resources: %s is %s in "
						 "%s/%s",
						 names[i], kinds[i]->kind,
						 kinds[i]->group[0] ?
							 kinds[i]->group :
							 "core",
						 kinds[i]->version);
				continue;
			}
			if (rc == -ENOMEM || rc == -EACCES) {
				log_error("--resources: %s: %s", names[i],
					  rc == -ENOMEM ? "out of memory" :
							  err);
				buf_free(&why);
				return rc;
			}
			left++;
			buf_printf(&why, "%s%s: %s", why.len ? "; " : "",
				   names[i], err);
		}
		if (!left) {
			buf_free(&why);
			return 0;
		}
		if (time(NULL) - began >= timeout_s) {
			log_error("--resources: not served by the upstream "
				  "after %d s (--startup-timeout): %s",
				  timeout_s, buf_ok(&why) ? why.p : "");
			buf_free(&why);
			return -ENOENT;
		}
		if (attempt % 10 == 0)
			log_warn("--resources: cannot resolve yet: %s; "
				 "retrying",
				 buf_ok(&why) ? why.p : "");
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
 * it. Exit 0 on a 200 within 2 s, else 1. */
static int probe(const char *url)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *c = curl_easy_init();
	long code = 0;
	if (c) {
		curl_easy_setopt(c, CURLOPT_URL, url);
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2000L);
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
		if (curl_easy_perform(c) == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		curl_easy_cleanup(c);
	}
	curl_global_cleanup();
	if (code != 200)
		fprintf(stderr, "probe %s: %ld\n", url, code);
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
	switch (rc) {
	case CURLE_OK:
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
		snprintf(
			msg, len,
			"cannot verify the upstream %s over TLS (%s): set "
			"certificate-authority or certificate-authority-data in the "
			"kubeconfig to the CA that signed its certificate",
			up->server, curl_easy_strerror(rc));
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
	default:
		snprintf(msg, len,
			 "the upstream %s answered %ld to a LIST of %s",
			 up->server, code, k->resource);
		return -EAGAIN;
	}
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
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	curl_global_init(CURL_GLOBAL_DEFAULT);

	struct config_upstream creds;
	if (config_upstream_resolve(cfg.kubeconfig, cfg.context, cfg.server,
				    cfg.serviceaccount_dir, &creds, err,
				    sizeof(err))) {
		log_error("%s", err);
		config_flags_free(&cfg);
		curl_global_cleanup();
		return 2;
	}
	char desc[512];
	config_upstream_describe(&creds, desc, sizeof(desc));
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
		.page_max = (size_t)cfg.upstream_page_max,
		.line_max = (size_t)cfg.upstream_line_max,
		.list_max = (size_t)cfg.upstream_list_max,
	};
	struct proxy p = { .cfg = &cfg, .up = &up, .nofile = raise_nofile() };
	struct cache_kind *discovered[CONFIG_MAX_RESOURCES];
	int ndiscovered = 0;
	int exit_code = 1;
	p.res = xcalloc((size_t)cfg.nresources, sizeof(*p.res));
	if (!p.res)
		goto out;
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	const struct cache_kind *kinds[CONFIG_MAX_RESOURCES] = { 0 };
	if (resolve_all(&up, cfg.resources, cfg.nresources, cfg.startup_timeout,
			kinds, discovered, &ndiscovered))
		goto out;
	for (int i = 0; i < cfg.nresources; i++) {
		const struct cache_kind *k = kinds[i];
		for (int j = 0; j < p.nres; j++) /* po and pods alike */
			if (!strcmp(p.res[j]->kind->group, k->group) &&
			    !strcmp(p.res[j]->kind->resource, k->resource)) {
				log_error("--resources: \"%s\" named twice",
					  cfg.resources[i]);
				goto out;
			}
		p.res[p.nres] = cache_refl_new(k, &up, (size_t)cfg.history);
		if (!p.res[p.nres]) {
			log_error("out of memory");
			goto out;
		}
		p.nres++;
	}

	if (proxy_start(&p, err, sizeof(err))) {
		log_error("%s", err);
		goto out;
	}
	for (int i = 0; i < p.nres; i++) {
		if (cache_refl_start(p.res[i])) {
			log_error("cannot start the reflector thread");
			goto out;
		}
	}
	log_info("caching %d resource(s) from %s", p.nres, creds.server);
	/* Until every resource has synced once, say plainly what is wrong
	 * with the upstream; give up on what retrying cannot fix, and on an
	 * upstream still unreachable after --startup-timeout. */
	time_t began = time(NULL), next_check = 0;
	int unsynced = p.nres;
	while (!quit) {
		struct timespec ts = { 0, 100 * 1000000L };
		nanosleep(&ts, NULL);
		if (!unsynced || time(NULL) < next_check)
			continue;
		next_check = time(NULL) + 2;
		unsynced = 0;
		for (int i = 0; i < p.nres; i++) {
			if (cache_refl_synced(p.res[i]))
				continue;
			unsynced++;
			char msg[768];
			int why = classify(&up, p.res[i], msg, sizeof(msg));
			bool late = time(NULL) - began > cfg.startup_timeout;
			if (why == -EACCES || (late && why)) {
				log_error("%s", msg);
				exit_code = 1;
				goto out;
			}
			if (why)
				log_warn("%s; retrying", msg);
		}
	}
	log_info("shutting down (signal %d)", (int)quit);
	exit_code = 0;
out:
	proxy_stop(&p);
	for (int i = 0; i < p.nres; i++)
		cache_refl_stop(p.res[i]);
	proxy_release(&p);
	rcu_barrier();
	for (int i = 0; i < p.nres; i++)
		cache_refl_free(p.res[i]);
	free(p.res);
	for (int i = 0; i < ndiscovered; i++)
		cache_discover_free(discovered[i]);
	config_upstream_free(&creds);
	cache_ratelimit_destroy(&limit);
	curl_global_cleanup();
	config_flags_free(&cfg);
	return exit_code;
}
