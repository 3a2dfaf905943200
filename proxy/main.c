/*
 * main: bin/informer-proxy. Parse flags, start one reflector per cached
 * resource, serve, and on SIGINT/SIGTERM shut down in the order that lets
 * LeakSanitizer find nothing: HTTP first, then the reflectors, then an
 * RCU barrier, then the caches.
 */
#include <curl/curl.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <urcu-bp.h>

#include "cache/discover.h"
#include "cache/ratelimit.h"
#include "cache/reflector.h"
#include "config/alloc.h"
#include "config/flags.h"
#include "config/kubeconfig.h"
#include "config/log.h"
#include "proxy/server.h"

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	quit = sig;
}

/* A kind the built-in table lacks, from upstream discovery. Waits for an
 * upstream that cannot be reached yet; gives up on one that answers that
 * it does not serve the resource. */
static const struct cache_kind *discover(const struct cache_upstream *up,
					 const char *spec,
					 struct cache_kind **out)
{
	char err[512];
	int why;
	bool stop = false;
	for (int attempt = 0; !quit; attempt++) {
		*out = cache_kind_discover(up, spec, &stop, &why, err, sizeof(err));
		if (*out) {
			log_info("--resources: %s is %s in %s%s%s (from discovery)", spec,
				 (*out)->kind, (*out)->group[0] ? (*out)->group : "core",
				 "/", (*out)->version);
			return *out;
		}
		if (why != -EAGAIN) {
			log_error("--resources: %s", err);
			return NULL;
		}
		if (attempt % 10 == 0)
			log_warn("--resources: cannot resolve %s yet: %s; retrying", spec, err);
		struct timespec ts = { 1, 0 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct config cfg;
	char err[512];
	int rc = config_parse_flags(&cfg, argc, argv, err, sizeof(err));
	if (rc == 1) {
		config_free(&cfg);
		return 0;
	}
	log_setup(cfg.log_format, cfg.verbosity, "informer-proxy");
	if (rc) {
		log_error("%s", err);
		config_free(&cfg);
		return 2;
	}
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	curl_global_init(CURL_GLOBAL_DEFAULT);

	struct config_upstream creds;
	if (config_upstream_resolve(cfg.kubeconfig, cfg.context, cfg.server,
				    &creds, err, sizeof(err))) {
		log_error("%s", err);
		config_free(&cfg);
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
		.page_size = cfg.page_size,
		.watch_timeout = cfg.watch_timeout,
		.strip_managed_fields = cfg.strip_managed_fields,
	};
	struct proxy p = { .cfg = &cfg, .up = &up };
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

	for (int i = 0; i < cfg.nresources; i++) {
		const struct cache_kind *k = cache_kind_lookup(cfg.resources[i]);
		if (!k) {
			k = discover(&up, cfg.resources[i], &discovered[ndiscovered]);
			if (!k)
				goto out;
			ndiscovered++;
		}
		for (int j = 0; j < p.nres; j++)
			if (p.res[j]->kind == k) {
				log_error("--resources: \"%s\" named twice", cfg.resources[i]);
				goto out;
			}
		p.res[p.nres] = cache_resource_new(k, &up, (size_t)cfg.history);
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
		if (cache_resource_start(p.res[i])) {
			log_error("cannot start the reflector thread");
			goto out;
		}
	}
	log_info("caching %d resource(s) from %s", p.nres, creds.server);
	while (!quit) {
		struct timespec ts = { 0, 100 * 1000000L };
		nanosleep(&ts, NULL);
	}
	log_info("shutting down (signal %d)", (int)quit);
	exit_code = 0;
out:
	proxy_stop(&p);
	for (int i = 0; i < p.nres; i++)
		cache_resource_stop(p.res[i]);
	proxy_release(&p);
	rcu_barrier();
	for (int i = 0; i < p.nres; i++)
		cache_resource_free(p.res[i]);
	free(p.res);
	for (int i = 0; i < ndiscovered; i++)
		cache_kind_free(discovered[i]);
	config_upstream_free(&creds);
	cache_ratelimit_destroy(&limit);
	curl_global_cleanup();
	config_free(&cfg);
	return exit_code;
}
