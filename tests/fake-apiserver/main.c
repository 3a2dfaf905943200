/*
 * fake-apiserver: a real HTTP server speaking the Kubernetes list, watch
 * and write API over in-memory state, for tests, demos and load runs.
 *
 * This file holds the command line, seeding and the process lifecycle:
 * parse flags, seed the store (the system namespaces always, then what
 * --seed asks), start the daemon and the control plane's background
 * writers (fake_cluster.c), wait for SIGTERM or SIGINT, then stop the
 * writers, the watches, the daemon and free everything.
 *
 * By default the fake behaves like a real v1.32 cluster: Leases renewed
 * every 10 s, an Event a minute, BOOKMARKs every 60 s, etcd compacted
 * every 5 minutes and events served without the watch cache; --quiet
 * and the interval flags shorten or silence that for tests.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/log.h"
#include "fake_auth.h"
#include "fake_cluster.h"
#include "fake_crd.h"
#include "fake_http.h"
#include "fake_kinds.h"
#include "fake_kinds_seed.h"
#include "fake_res.h"
#include "fake_seed.h"
#include "fake_store.h"
#include "fake_tls.h"
#include "fake_watch.h"

struct opts {
	char host[64];
	unsigned port;
	unsigned long history;
	const char *seed;
	unsigned seed_ns;
	unsigned bookmark_s;
	struct fake_cluster_opts cluster;
	const char *uncached;
	int verbosity;
	struct fake_tls_opts tls;
	const char *users_file, *authz_file;
	bool crd_cluster;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fake-apiserver [flags]\n"
		"  --listen HOST:PORT       address (default 127.0.0.1:8080; "
		"port 0 picks one)\n"
		"  --history N              watch events kept before 410 "
		"(default 10000)\n"
		"  --seed RES=N,...         seed pods, configmaps, services, "
		"namespaces\n"
		"  --list-stream-min B      a LIST whose items pass B bytes is sent\n"
		"                           as it is produced, uncompressed, not\n"
		"                           built first (default 1 GiB)\n"
		"  --seed-namespaces N      spread seeded objects over "
		"ns-0..ns-N-1 (default 10)\n"
		"  --bookmark-interval S    seconds between watch bookmarks "
		"(default 60)\n"
		"  --nodes N                simulated nodes renewing a Lease "
		"(default 3)\n"
		"  --lease-interval S       Lease renewal period, 0 = none "
		"(default 10)\n"
		"  --event-interval S       one node Event every S s in "
		"namespace\n"
		"                           default, 0 = none (default 60)\n"
		"  --quiet                  no background writes at all (no "
		"Leases,\n"
		"                           no Events): the RV moves only on "
		"request\n"
		"  --compact-interval S     compact etcd to the previous "
		"tick's RV\n"
		"                           every S s, 0 = never (default "
		"300)\n"
		"  --uncached-resources L   served without the watch cache: "
		"no\n"
		"                           bookmarks, 410 past compaction "
		"(default\n"
		"                           events; \"\" for none)\n"
		"  -v N                     log verbosity\n"
		"  --tls-cert F --tls-key F serve HTTPS\n"
		"  --client-ca F            accept client certificates signed "
		"by F\n"
		"  --token T                require Authorization: Bearer T\n"
		"  --token-file F           accept the tokens in F (one a "
		"line,\n"
		"                           re-read when F changes)\n"
		"  --users F                kube-apiserver's static token "
		"file:\n"
		"                           "
		"token,user,uid[,\"group1,group2\"]\n"
		"  --authz F                rules, one a line: USER_OR_GROUP "
		"VERB\n"
		"                           RESOURCE NAMESPACE (* any); what "
		"no\n"
		"                           rule allows is 403 (docs/FAKE.md)\n"
		"  --crd plural.group/version:Kind[:Cluster]   serve a custom\n"
		"                           resource (repeatable; namespaced "
		"unless\n"
		"                           :Cluster or --crd-cluster before "
		"it)\n"
		"  --crd-cluster            later --crd are cluster-scoped\n"
		"  --crd-column plural.group=Name:type:.json.path[:priority]\n"
		"                           a printer column of an earlier --crd "
		"(repeatable);\n"
		"                           serves customresourcedefinitions\n"
		"  --all-kinds              also serve deployments, replicasets,\n"
		"                           statefulsets, daemonsets, jobs, "
		"cronjobs,\n"
		"                           secrets, serviceaccounts, endpoints\n"
		"The /fake/ control paths and health checks need no "
		"credentials;\n"
		"the control API answers loopback clients only.\n");
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || !*s || *end || *s == '-' || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_listen(const char *s, struct opts *o)
{
	const char *colon = strrchr(s, ':');
	unsigned long port;
	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(o->host) ||
	    parse_uint(colon + 1, 65535, &port))
		return -EINVAL;
	memcpy(o->host, s, (size_t)(colon - s));
	o->host[colon - s] = '\0';
	o->port = (unsigned)port;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	unsigned long v;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(0);
		}
		if (strcmp(a, "--all-kinds") == 0) {
			if (fake_kinds_enable() || fake_crd_enable()) {
				fprintf(stderr, "fake-apiserver: --all-kinds: "
						"too many resources\n");
				return -1;
			}
			continue;
		}
		if (strcmp(a, "--crd-cluster") == 0) {
			o->crd_cluster = true;
			continue;
		}
		if (strcmp(a, "--quiet") == 0) {
			o->cluster.quiet = true;
			continue;
		}
		if (!val)
			goto bad;
		if (strcmp(a, "--listen") == 0) {
			if (parse_listen(val, o))
				goto bad;
		} else if (strcmp(a, "--history") == 0) {
			if (parse_uint(val, 100000000, &v))
				goto bad;
			o->history = v;
		} else if (strcmp(a, "--list-stream-min") == 0) {
			if (parse_uint(val, ULONG_MAX, &v))
				goto bad;
			fake_list_stream_min = v;
		} else if (strcmp(a, "--seed") == 0) {
			o->seed = val;
		} else if (strcmp(a, "--seed-namespaces") == 0) {
			if (parse_uint(val, 100000, &v) || v == 0)
				goto bad;
			o->seed_ns = (unsigned)v;
		} else if (strcmp(a, "--bookmark-interval") == 0) {
			if (parse_uint(val, 86400, &v) || v == 0)
				goto bad;
			o->bookmark_s = (unsigned)v;
		} else if (strcmp(a, "--nodes") == 0) {
			if (parse_uint(val, 1000, &v))
				goto bad;
			o->cluster.nodes = (unsigned)v;
		} else if (strcmp(a, "--lease-interval") == 0) {
			if (parse_uint(val, 86400, &v))
				goto bad;
			o->cluster.lease_s = (unsigned)v;
		} else if (strcmp(a, "--event-interval") == 0) {
			if (parse_uint(val, 86400, &v))
				goto bad;
			o->cluster.event_s = (unsigned)v;
		} else if (strcmp(a, "--compact-interval") == 0) {
			if (parse_uint(val, 86400, &v))
				goto bad;
			o->cluster.compact_s = (unsigned)v;
		} else if (strcmp(a, "--uncached-resources") == 0) {
			o->uncached = val;
		} else if (strcmp(a, "--tls-cert") == 0) {
			o->tls.cert_file = val;
		} else if (strcmp(a, "--tls-key") == 0) {
			o->tls.key_file = val;
		} else if (strcmp(a, "--client-ca") == 0) {
			o->tls.client_ca_file = val;
		} else if (strcmp(a, "--token") == 0) {
			if (!*val)
				goto bad;
			o->tls.token = val;
		} else if (strcmp(a, "--token-file") == 0) {
			o->tls.token_file = val;
		} else if (strcmp(a, "--users") == 0) {
			o->users_file = val;
		} else if (strcmp(a, "--authz") == 0) {
			o->authz_file = val;
		} else if (strcmp(a, "--crd-column") == 0) {
			char err[700];
			if (fake_crd_add_column(val, err, sizeof(err))) {
				fprintf(stderr, "fake-apiserver: %s\n", err);
				return -EINVAL;
			}
		} else if (strcmp(a, "--crd") == 0) {
			char err[300];
			if (fake_res_add_crd(val, o->crd_cluster, err,
					     sizeof(err))) {
				fprintf(stderr, "fake-apiserver: %s\n", err);
				return -EINVAL;
			}
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--v") == 0) {
			if (parse_uint(val, 10, &v))
				goto bad;
			o->verbosity = (int)v;
		} else {
			goto bad;
		}
		i++;
		continue;
bad:
		/* never echo a token */
		if (strcmp(a, "--token") == 0)
			val = NULL;
		fprintf(stderr, "fake-apiserver: bad flag: %s%s%s\n", a,
			val ? " " : "", val ? val : "");
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* Mark the resources of list (comma-separated keys, after every --crd)
 * as served without the watch cache. */
static int set_uncached(const char *list)
{
	char *copy = xstrdup(list), *p = copy, *item;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (int i = 0; i < fake_nres; i++)
		fake_res_table[i].uncached = false;
	while ((item = strsep(&p, ","))) {
		int res;
		if (!*item)
			continue;
		if ((res = fake_res_find(item)) < 0) {
			fprintf(stderr,
				"fake-apiserver: --uncached-resources: "
				"unknown resource %s (want a key of "
				"/fake/stats: "
				"events, pods, leases.coordination.k8s.io, "
				"...)\n",
				item);
			rc = -EINVAL;
			break;
		}
		fake_res_table[res].uncached = true;
	}
	free(copy);
	return rc;
}

/* Add one seeded object from b (reset after). */
static int seed_one(int res, struct buf *b)
{
	size_t len;
	if (!buf_ok(b))
		return -ENOMEM;
	char *json = buf_steal(b, &len);
	/* The buffer grew by doubling: give back its slack, a third of a
	 * pod's bytes, which a million seeded pods would keep for good. */
	char *fit = json ? realloc(json, len + 1) : NULL;
	if (fit)
		json = fit;
	struct fake_obj *o = json ? fake_obj_new(res, json, len) : NULL;
	if (!o)
		return -EINVAL;
	return fake_store_seed_add(o);
}

static int seed(const char *spec, unsigned nns)
{
	unsigned long want[FAKE_RES_MAX] = { 0 };
	char *copy = xstrdup(spec ? spec : ""), *p = copy, *item;
	struct buf b = BUF_INIT;
	unsigned long long rv = 0;
	int rc = 0;
	char ns[64];

	if (!copy)
		return -ENOMEM;
	while ((item = strsep(&p, ","))) {
		char *eq = strchr(item, '=');
		unsigned long n;
		int res;
		if (!*item)
			continue;
		if (!eq || (*eq = '\0', res = fake_res_find(item)) < 0 ||
		    ((res == FAKE_RES_EVENTS || res == FAKE_RES_LEASES) &&
		     !fake_kinds_enabled()) ||
		    parse_uint(eq + 1, 10000000, &n)) {
			fprintf(stderr,
				"fake-apiserver: --seed: bad item %s "
				"(want pods=N,configmaps=N,services=N,"
				"namespaces=N or a --crd's plural.group=N)\n",
				item);
			free(copy);
			return -EINVAL;
		}
		want[res] = n;
	}
	free(copy);

	int64_t t0 = fake_now_ms();
	unsigned long nsn = want[FAKE_RES_NAMESPACES];
	bool namespaced = false;
	for (int res = FAKE_RES_PODS; res < fake_nres; res++)
		namespaced |= want[res] && fake_res_table[res].namespaced;
	if (namespaced && nsn < nns)
		nsn = nns;
	/* namespaces first, so every seeded object's namespace exists; the
	 * system ones exist in every cluster */
	rc = fake_cluster_seed_namespaces(&rv);
	for (int res = 0; res < fake_nres && !rc && fake_crd_res() >= 0; res++)
		if (fake_res_table[res].custom &&
		    !(rc = fake_crd_object(&b, res, ++rv)))
			rc = seed_one(fake_crd_res(), &b);
	for (unsigned long i = 0; i < nsn && !rc; i++) {
		fake_seed_ns_name((unsigned)i, (unsigned)nsn, ns, sizeof(ns));
		if (!(rc = fake_seed_namespace(&b, ns, ++rv)))
			rc = seed_one(FAKE_RES_NAMESPACES, &b);
	}
	for (int res = FAKE_RES_PODS; res < fake_nres && !rc; res++) {
		const struct fake_res *r = &fake_res_table[res];
		for (unsigned long i = 0; i < want[res] && !rc; i++) {
			fake_seed_ns_name((unsigned)i, nns, ns, sizeof(ns));
			rc = fake_kinds_seed(&b, res, (unsigned)i,
					     r->namespaced ? ns : NULL, ++rv);
			if (rc == -ENOENT)
				rc = r->custom ?
					     fake_seed_custom(
						     &b, (unsigned)i,
						     r->namespaced ? ns : NULL,
						     r->kind, r->api_version,
						     r->singular, rv) :
				     res == FAKE_RES_PODS ?
					     fake_seed_pod(&b, (unsigned)i, ns,
							   rv) :
				     res == FAKE_RES_CONFIGMAPS ?
					     fake_seed_configmap(
						     &b, (unsigned)i, ns, rv) :
					     fake_seed_service(&b, (unsigned)i,
							       ns, rv);
			if (!rc)
				rc = seed_one(res, &b);
		}
	}
	buf_free(&b);
	fake_store_seed_done();
	if (rc) {
		fprintf(stderr, "fake-apiserver: seeding failed: %s\n",
			strerror(-rc));
		return rc;
	}
	log_info("seeded %llu objects in %lld ms, resourceVersion %llu", rv,
		 (long long)(fake_now_ms() - t0),
		 (unsigned long long)fake_store_rv());
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.host = "127.0.0.1",
		.port = 8080,
		.history = 10000,
		.seed_ns = 10,
		.bookmark_s = 60,
		.cluster = { .nodes = 3,
			     .lease_s = 10,
			     .event_s = 60,
			     .compact_s = 300 },
		.uncached = "events",
	};
	char err[256];
	sigset_t set;
	int sig = 0, rc;

	if (parse_args(argc, argv, &o) || set_uncached(o.uncached))
		return 2;
	log_setup(LOG_TEXT, o.verbosity, "fake-apiserver");
	json_set_alloc_funcs(xmalloc, free);
	srandom((unsigned)time(NULL) ^ (unsigned)getpid());
	fake_watch_set_bookmark_interval(o.bookmark_s);

	/* Every thread inherits this mask; only sigwait() sees the signals. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (fake_tls_setup(&o.tls, err, sizeof(err))) {
		fprintf(stderr, "fake-apiserver: %s\n", err);
		return 2;
	}
	if (fake_auth_setup(o.users_file, o.authz_file, err, sizeof(err))) {
		fprintf(stderr, "fake-apiserver: %s\n", err);
		fake_tls_free();
		return 2;
	}
	if (fake_store_init(o.history)) {
		fprintf(stderr, "fake-apiserver: out of memory\n");
		return 1;
	}
	if ((rc = seed(o.seed, o.seed_ns))) {
		fake_store_free();
		fake_tls_free();
		fake_auth_free();
		return rc == -EINVAL ? 2 : 1;
	}
	if (fake_http_start(o.host, o.port, err, sizeof(err))) {
		log_error("%s", err);
		fake_store_free();
		fake_tls_free();
		fake_auth_free();
		return 1;
	}
	if ((rc = fake_cluster_start(&o.cluster)))
		log_error("background writers: %s", strerror(-rc));
	sigwait(&set, &sig);
	log_info("%s: shutting down", strsignal(sig));
	fake_cluster_stop();
	fake_store_stop();
	fake_http_stop();
	fake_store_free();
	fake_tls_free();
	fake_auth_free();
	return 0;
}
