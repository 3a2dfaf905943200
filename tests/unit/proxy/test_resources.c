/*
 * test_resources: one --config entry into its reflectors: one per
 * namespace, each scoped; selectors, stripped paths and indexes carried
 * to each; and the refusals, each with its message: namespaces on a
 * cluster-scoped kind, selectors that do not parse, a stripped path that
 * would take a selectable field, too many stripped paths, no room, and
 * allocation failure with nothing made.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cache/kind.h"
#include "cache/resource.h"
#include "cache/store.h"
#include "config/alloc.h"
#include "proxy/resources.h"
#include "check.h"

static const struct cache_upstream up = { .server = "http://127.0.0.1:1" };
static char err[512];
static struct cache_resource *out[8];

static int make(const char *kind, const struct config_scope *sc, int max)
{
	err[0] = '\0';
	memset(out, 0, sizeof(out));
	return proxy_resources_make(cache_kind_lookup(kind), sc, &up, 16, out,
				    max, err, sizeof(err));
}

static void free_out(int n)
{
	for (int i = 0; i < n; i++)
		cache_resource_free(out[i]);
}

static void test_count(void)
{
	char *ns[] = { "a", "b", "c", NULL };
	struct config_scope one = { .resource = "pods" };
	struct config_scope three = { .resource = "pods",
				      .namespaces = ns,
				      .nnamespaces = 3 };
	CHECK(proxy_resources_count(&one) == 1);
	CHECK(proxy_resources_count(&three) == 3);
}

static void test_cluster_wide(void)
{
	char *strip[] = { "spec.containers", NULL };
	char *idx[] = { "app", NULL };
	struct config_scope sc = { .resource = "pods",
				   .label_selector = "app=web",
				   .field_selector = "spec.nodeName=n1",
				   .strip = strip,
				   .nstrip = 1,
				   .indexes = idx,
				   .nindexes = 1 };
	int n = make("pods", &sc, 8);
	CHECK(n == 1);
	if (n != 1)
		return;
	CHECK(out[0]->kind == cache_kind_lookup("pods"));
	CHECK(out[0]->scope.ns == NULL);
	CHECK_STR(out[0]->scope.label_selector, "app=web");
	CHECK_STR(out[0]->scope.field_selector, "spec.nodeName=n1");
	CHECK(out[0]->scope.nstrip == 1);
	CHECK_STR(out[0]->scope.strip[0], "spec.containers");
	CHECK(cache_store_indexes(out[0]->store, "app"));
	CHECK(!cache_store_indexes(out[0]->store, "tier"));
	CHECK(!out[0]->started); /* the caller starts them */
	free_out(n);
}

static void test_namespaces(void)
{
	char *ns[] = { "a", "b", NULL };
	struct config_scope sc = { .resource = "configmaps",
				   .namespaces = ns,
				   .nnamespaces = 2,
				   .label_selector = "x" };
	int n = make("configmaps", &sc, 8);
	CHECK(n == 2);
	if (n != 2)
		return;
	CHECK_STR(out[0]->scope.ns, "a");
	CHECK_STR(out[1]->scope.ns, "b");
	CHECK_STR(out[1]->scope.label_selector, "x");
	CHECK(out[0]->store != out[1]->store);
	free_out(n);
	/* no room for both: nothing made */
	CHECK(make("configmaps", &sc, 1) == -ENOSPC);
	CHECK(strstr(err, "too many reflectors") != NULL);
	CHECK(out[0] == NULL);
}

static void test_refused(void)
{
	char *ns[] = { "a", NULL };
	struct config_scope sc = { .resource = "nodes",
				   .where = "cfg.yaml:3:5",
				   .namespaces = ns,
				   .nnamespaces = 1 };
	CHECK(make("nodes", &sc, 8) == -EINVAL);
	CHECK_STR(err, "cfg.yaml:3:5: nodes: namespaces given, but nodes are "
		       "not namespaced");

	struct config_scope lab = { .resource = "pods",
				    .label_selector = "a in (",
				    .label_where = "cfg.yaml:4:20" };
	CHECK(make("pods", &lab, 8) == -EINVAL);
	CHECK(!strncmp(err, "cfg.yaml:4:20: labelSelector: ", 30));
	lab.label_where = NULL; /* from a flag: named by the resource */
	CHECK(make("pods", &lab, 8) == -EINVAL);
	CHECK(!strncmp(err, "pods: labelSelector: ", 21));

	/* a field pods cannot be selected on */
	struct config_scope fld = { .resource = "pods",
				    .field_selector = "spec.colour=red",
				    .field_where = "cfg.yaml:5:20" };
	CHECK(make("pods", &fld, 8) == -EINVAL);
	CHECK(!strncmp(err, "cfg.yaml:5:20: fieldSelector: ", 30));

	/* stripping spec would take spec.nodeName, a selectable field */
	char *strip[] = { "spec", NULL };
	struct config_scope st = { .resource = "pods",
				   .strip = strip,
				   .nstrip = 1 };
	CHECK(make("pods", &st, 8) == -EINVAL);
	CHECK_STR(err, "--resources: stripFields: \"spec\" would remove "
		       "spec.nodeName, which field selectors on pods read");
	/* the field itself too; a sibling path is fine */
	strip[0] = "status.phase";
	CHECK(make("pods", &st, 8) == -EINVAL);
	strip[0] = "status.phases";
	int n = make("pods", &st, 8);
	CHECK(n == 1);
	free_out(n > 0 ? n : 0);

	/* more stripped paths than a scope holds */
	char *many[CACHE_SCOPE_MAX_STRIP + 2];
	for (int i = 0; i <= CACHE_SCOPE_MAX_STRIP; i++)
		many[i] = "metadata.annotations";
	many[CACHE_SCOPE_MAX_STRIP + 1] = NULL;
	struct config_scope lots = { .resource = "configmaps",
				     .strip = many,
				     .nstrip = CACHE_SCOPE_MAX_STRIP + 1 };
	CHECK(make("configmaps", &lots, 8) == -EINVAL);
	CHECK_STR(err, "--resources: too many stripFields");
	CHECK(out[0] == NULL);
}

/* Each allocation fails in turn: -ENOMEM, said in err (the selectors'
 * parsers once left it empty), and nothing made (LeakSanitizer checks the
 * frees under make SANITIZE=1), until all three are made. */
static void test_alloc_failure(void)
{
	char *ns[] = { "a", "b", "c", NULL };
	char *idx[] = { "app", NULL };
	struct config_scope sc = { .resource = "pods",
				   .namespaces = ns,
				   .nnamespaces = 3,
				   .label_selector = "app",
				   .indexes = idx,
				   .nindexes = 1 };
	int n = -ENOMEM, failed = 0, wrong = 0;
	for (int i = 1; i < 2000 && n < 0; i++) {
		alloc_fail_after(i);
		n = make("pods", &sc, 8);
		alloc_fail_after(0);
		if (n < 0) {
			failed++;
			wrong += n != -ENOMEM || strcmp(err, "out of memory");
			if (n != -ENOMEM || strcmp(err, "out of memory"))
				fprintf(stderr, "alloc %d: %d %s\n", i, n, err);
		}
	}
	CHECK(failed > 0 && wrong == 0);
	CHECK(n == 3);
	if (n == 3)
		CHECK(cache_store_indexes(out[2]->store, "app"));
	free_out(n > 0 ? n : 0);
}

int main(void)
{
	test_count();
	test_cluster_wide();
	test_namespaces();
	test_refused();
	test_alloc_failure();
	return check_done("resources");
}
