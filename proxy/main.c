/*
 * main: bin/informer-proxy. Parse flags, start one reflector per cached
 * resource, serve, and on SIGINT/SIGTERM shut down in the order that lets
 * LeakSanitizer find nothing: HTTP first, then the reflectors, then an
 * RCU barrier, then the caches.
 */
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <urcu-bp.h>

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
	struct cache_upstream up = {
		.server = creds.url_base,
		.creds = &creds,
		.page_size = cfg.page_size,
		.watch_timeout = cfg.watch_timeout,
		.strip_managed_fields = cfg.strip_managed_fields,
	};
	struct proxy p = { .cfg = &cfg, .up = &up };
	int exit_code = 1;
	p.res = xcalloc((size_t)cfg.nresources, sizeof(*p.res));
	if (!p.res)
		goto out;
	for (int i = 0; i < cfg.nresources; i++) {
		const struct cache_kind *k = cache_kind_lookup(cfg.resources[i]);
		if (!k) {
			log_error("--resources: unknown resource \"%s\" (built-in kinds "
				  "only until discovery lands)", cfg.resources[i]);
			goto out;
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

	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

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
	rcu_barrier();
	for (int i = 0; i < p.nres; i++)
		cache_resource_free(p.res[i]);
	free(p.res);
	config_upstream_free(&creds);
	curl_global_cleanup();
	config_free(&cfg);
	return exit_code;
}
