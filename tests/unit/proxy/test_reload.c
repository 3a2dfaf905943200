/*
 * test_reload: a new --config applied to a proxy built here, with
 * reflectors made but never started against a live upstream (an address
 * that refuses): an unchanged file changes nothing; a removed entry's
 * reflectors are retired and stay in place; a changed entry is retired
 * and replaced; and every refusal (a file that does not parse, a
 * selector that does not, one resource named twice, namespaces on a
 * cluster-scoped kind, a resource the upstream cannot name, no
 * configuration to reload, allocation failure) leaves the proxy exactly
 * as it was.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cache/kind.h"
#include "cache/reflector.h"
#include "config/alloc.h"
#include "config/flags.h"
#include "proxy/reload.h"
#include "proxy/resources.h"
#include "check.h"

static char err[512], path[64];
static struct config cfg;
static struct proxy p;
static struct cache_resource *res[PROXY_MAX_REFLECTORS];
static const struct cache_upstream up = { .server = "http://127.0.0.1:1" };

static void write_config(const char *yaml)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(yaml, f);
	fclose(f);
}

/* A proxy caching what yaml says, as main.c builds it. */
static bool start(const char *yaml)
{
	char *argv[] = { "informer-proxy", "--config", path, NULL };
	snprintf(path, sizeof(path), "/tmp/test_reload_%d.yaml", (int)getpid());
	write_config(yaml);
	memset(&p, 0, sizeof(p));
	memset(res, 0, sizeof(res));
	if (config_flags_parse(&cfg, 3, argv, err, sizeof(err))) {
		CHECK(!"the first configuration parses");
		return false;
	}
	p.cfg = &cfg;
	p.up = &up;
	p.res = res;
	for (int i = 0; i < cfg.nresources; i++) {
		int n = proxy_resources_make(
			cache_kind_lookup(cfg.scopes[i].resource),
			&cfg.scopes[i], &up, 16, res + p.nres,
			PROXY_MAX_REFLECTORS - p.nres, err, sizeof(err));
		CHECK(n > 0);
		if (n <= 0)
			return false;
		p.nres += n;
	}
	CHECK(proxy_reload_init(&p) == 0);
	return true;
}

static void stop(void)
{
	for (int i = 0; i < p.nres; i++)
		cache_reflector_stop(res[i]);
	proxy_reload_free(&p);
	for (int i = 0; i < p.nres; i++)
		cache_resource_free(res[i]);
	config_flags_free(&cfg);
	unlink(path);
}

static int added, removed;

static int reload(const char *yaml)
{
	char *argv[] = { "informer-proxy", "--config", path, NULL };
	write_config(yaml);
	err[0] = '\0';
	added = removed = -1;
	return proxy_reload_config(&p, 3, argv, &added, &removed, err,
				   sizeof(err));
}

static int retired(void)
{
	int n = 0;
	for (int i = 0; i < p.nres; i++)
		n += cache_resource_retired(res[i]);
	return n;
}

#define TWO                                                        \
	"resources:\n  - resource: pods\n    labelSelector: app\n" \
	"  - resource: configmaps\n    namespaces: [a, b]\n"

static void test_unchanged(void)
{
	if (!start(TWO))
		return;
	struct cache_resource *before[3] = { res[0], res[1], res[2] };
	CHECK(p.nres == 3);
	/* the same entries, written otherwise, in another order */
	CHECK(reload("resources:\n"
		     "  - {resource: configmaps, namespaces: [a, b]}\n"
		     "  - {resource: pods, labelSelector: app}\n") == 0);
	CHECK(added == 0 && removed == 0);
	CHECK(p.nres == 3 && retired() == 0);
	CHECK(res[0] == before[0] && res[1] == before[1] &&
	      res[2] == before[2]);
	stop();
}

static void test_removed(void)
{
	if (!start(TWO))
		return;
	CHECK(reload("resources:\n  - resource: pods\n"
		     "    labelSelector: app\n") == 0);
	CHECK(added == 0 && removed == 1);
	/* both configmaps reflectors retired, kept in place; pods not */
	CHECK(p.nres == 3 && retired() == 2);
	CHECK(!cache_resource_retired(res[0]));
	CHECK(res[0]->kind == cache_kind_lookup("pods"));
	/* and the next reload compares with what is cached now */
	CHECK(reload("resources:\n  - resource: pods\n"
		     "    labelSelector: app\n") == 0);
	CHECK(added == 0 && removed == 0 && p.nres == 3);
	stop();
}

/* A changed entry is a removed one plus an added one: the new reflector
 * is appended (and started), the old one retired. */
static void test_changed(void)
{
	if (!start("resources:\n  - resource: pods\n"))
		return;
	CHECK(reload("resources:\n  - resource: pods\n"
		     "    fieldSelector: spec.nodeName=n1\n") == 0);
	CHECK(added == 1 && removed == 1);
	CHECK(p.nres == 2);
	CHECK(cache_resource_retired(res[0]) &&
	      !cache_resource_retired(res[1]));
	CHECK(res[1]->started);
	CHECK_STR(res[1]->scope.field_selector, "spec.nodeName=n1");
	stop();
}

/* Each refusal: an error, and the proxy as it was. */
static void test_refused(void)
{
	static const struct {
		const char *yaml, *want;
		int rc;
	} cases[] = {
		{ "resources: [\n", "invalid YAML", -EINVAL },
		{ "resources:\n  - resource: pods\n    labelSelector: 'a in ('\n",
		  "labelSelector", -EINVAL },
		{ "resources:\n  - resource: pods\n"
		  "  - resource: pods.v1\n",
		  ":3:5: \"pods.v1\" named twice: the same resource as "
		  "\"pods\" at /tmp/",
		  -EINVAL },
		{ "resources:\n  - resource: nodes\n    namespaces: [a]\n",
		  "nodes are not namespaced", -EINVAL },
		{ "resources:\n  - resource: pods\n"
		  "  - resource: widgets.v1.example.com\n",
		  "", -EINVAL },
	};
	if (!start(TWO))
		return;
	struct cache_resource *before[3] = { res[0], res[1], res[2] };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = reload(cases[i].yaml);
		CHECK(rc == cases[i].rc);
		CHECK(err[0] != '\0' && strstr(err, cases[i].want) != NULL);
		if (rc != cases[i].rc || !strstr(err, cases[i].want))
			fprintf(stderr, "case %zu: %d %s\n", i, rc, err);
		CHECK(added == 0 && removed == 0);
		CHECK(p.nres == 3 && retired() == 0);
		CHECK(res[0] == before[0] && res[1] == before[1] &&
		      res[2] == before[2]);
	}
	/* the configuration still in force is the first one */
	CHECK(reload(TWO) == 0 && added == 0 && removed == 0);
	stop();
}

static void test_not_inited(void)
{
	struct proxy none = { 0 };
	char *argv[] = { "informer-proxy", "--resources", "pods", NULL };
	int a = -1, r = -1;
	CHECK(proxy_reload_config(&none, 3, argv, &a, &r, err, sizeof(err)) ==
	      -EINVAL);
	CHECK_STR(err, "no configuration to reload");
	CHECK(a == 0 && r == 0);
}

/* Each allocation of a reload that removes an entry fails in turn: the
 * proxy stays as it was until the reload goes through whole. */
static void test_alloc_failure(void)
{
	if (!start(TWO))
		return;
	int rc = -ENOMEM, failed = 0, wrong = 0;
	for (int n = 1; n < 5000 && rc; n++) {
		write_config("resources:\n  - resource: configmaps\n"
			     "    namespaces: [a, b]\n");
		char *argv[] = { "informer-proxy", "--config", path, NULL };
		alloc_fail_after(n);
		rc = proxy_reload_config(&p, 3, argv, &added, &removed, err,
					 sizeof(err));
		alloc_fail_after(0);
		if (rc) {
			failed++;
			wrong += p.nres != 3 || retired() != 0 || added ||
				 removed;
		}
	}
	CHECK(failed > 0 && wrong == 0);
	CHECK(rc == 0 && removed == 1 && added == 0);
	CHECK(retired() == 1 && cache_resource_retired(res[0]));
	stop();
}

int main(void)
{
	test_unchanged();
	test_removed();
	test_changed();
	test_refused();
	test_not_inited();
	test_alloc_failure();
	return check_done("reload");
}
