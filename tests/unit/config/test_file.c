/*
 * test_file: --config FILE. Every field of a resources entry read into
 * its config_scope, flags set by name, how the file and the command line
 * combine, and each validation error with the FILE:LINE:COLUMN it names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/file.h"
#include "config/flags.h"
#include "check.h"

static char err[512];
static char path[64];

/* text into a fresh temporary file named in path */
static void write_file(const char *text)
{
	snprintf(path, sizeof(path), "/tmp/test_file_XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	size_t n = strlen(text);
	CHECK(write(fd, text, n) == (ssize_t)n);
	close(fd);
}

static int load(const char *text, struct config_file *f)
{
	write_file(text);
	err[0] = '\0';
	int rc = config_file_load(path, f, err, sizeof(err));
	unlink(path);
	return rc;
}

static void test_every_field(void)
{
	struct config_file f;
	int rc = load("resources:\n"
		      "  - resource: pods                # kubectl spelling\n"
		      "    namespaces: [team-a, team-b]\n"
		      "    labelSelector: \"app in (web,db)\"\n"
		      "    fieldSelector: \"status.phase!=Succeeded\"\n"
		      "    stripFields: [metadata.managedFields, "
		      "metadata.annotations.kubectl\\.kubernetes\\.io/"
		      "last-applied-configuration]\n"
		      "    indexes: [metadata.labels.app]\n"
		      "  - resource: deployments.apps\n"
		      "page-size: 200\n",
		      &f);
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(f.nres == 2);
	struct config_scope *s = &f.res[0];
	CHECK_STR(s->resource, "pods");
	CHECK(s->nnamespaces == 2);
	CHECK_STR(s->namespaces[0], "team-a");
	CHECK_STR(s->namespaces[1], "team-b");
	CHECK(s->namespaces[2] == NULL);
	CHECK_STR(s->label_selector, "app in (web,db)");
	CHECK_STR(s->field_selector, "status.phase!=Succeeded");
	CHECK(s->nstrip == 2);
	CHECK_STR(s->strip[0], "metadata.managedFields");
	CHECK_STR(s->strip[1], "metadata.annotations.kubectl\\.kubernetes\\.io/"
			       "last-applied-configuration");
	CHECK(s->nindexes == 1);
	CHECK_STR(s->indexes[0], "app"); /* the label key alone */
	CHECK(s->where && strstr(s->where, ":2:5"));
	CHECK(s->label_where && strstr(s->label_where, ":4:20"));
	CHECK(s->field_where && strstr(s->field_where, ":5:20"));
	struct config_scope *d = &f.res[1];
	CHECK_STR(d->resource, "deployments.apps");
	CHECK(!d->namespaces && !d->label_selector && !d->field_selector &&
	      !d->strip && !d->indexes);
	CHECK(f.nglobals == 1);
	CHECK_STR(f.globals[0].key, "page-size");
	CHECK_STR(f.globals[0].value, "200");
	CHECK(strstr(f.globals[0].where, ":9:1") != NULL);

	struct config_scope c;
	CHECK(config_file_scope_copy(&c, s) == 0);
	CHECK(config_file_scope_equal(&c, s));
	CHECK(!config_file_scope_equal(&c, d));
	free(c.label_selector);
	c.label_selector = strdup("app=web");
	CHECK(!config_file_scope_equal(&c, s));
	config_file_scope_free(&c);
	config_file_free(&f);
}

static void test_path_split(void)
{
	char seg[4][256];
	CHECK(config_file_path_split("metadata.managedFields", seg, 4) == 2);
	CHECK_STR(seg[1], "managedFields");
	CHECK(config_file_path_split("a.b\\.c.d", seg, 4) == 3);
	CHECK_STR(seg[1], "b.c");
	CHECK(config_file_path_split("a..b", seg, 4) == -EINVAL);
	CHECK(config_file_path_split(".a", seg, 4) == -EINVAL);
	CHECK(config_file_path_split("a.", seg, 4) == -EINVAL);
	CHECK(config_file_path_split("a\\", seg, 4) == -EINVAL);
	CHECK(config_file_path_split("a.b.c.d.e", seg, 4) == -EINVAL);
}

/* Each error names the file, line and column of the node at fault. */
static void test_errors(void)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		{ "resources: [\n", "invalid YAML" },
		{ "- a\n", ":1:1: want a mapping at the top" },
		{ "resources: pods\n", ":1:12: resources: want a list" },
		{ "resources:\n  - pods\n",
		  ":2:5: resources: each entry is a mapping" },
		{ "resources:\n  - namespaces: [a]\n",
		  ":2:5: resources: entry without \"resource\"" },
		{ "resources:\n  - resource: \"\"\n",
		  ":2:15: resource: must not be empty" },
		{ "resources:\n  - resource: [pods]\n",
		  ":2:15: resource: want a string" },
		{ "resources:\n  - resource: pods\n    colour: red\n",
		  ":3:5: resources: unknown key \"colour\"" },
		{ "resources:\n  - resource: pods\n    namespaces: a\n",
		  ":3:17: namespaces: want a list" },
		{ "resources:\n  - resource: pods\n    namespaces: []\n",
		  ":3:17: namespaces: must not be empty" },
		{ "resources:\n  - resource: pods\n    namespaces: [a, Team_B]\n",
		  ":3:21: namespaces: \"Team_B\" is not a namespace name" },
		{ "resources:\n  - resource: pods\n    namespaces: [a, a]\n",
		  ":3:21: namespaces: \"a\" named twice, first at /tmp/" },
		{ "resources:\n  - resource: pods\n    labelSelector: [a]\n",
		  ":3:20: labelSelector: want a string" },
		{ "resources:\n  - resource: pods\n    fieldSelector: {a: b}\n",
		  ":3:20: fieldSelector: want a string" },
		{ "resources:\n  - resource: pods\n    stripFields: [a..b]\n",
		  ":3:19: stripFields: \"a..b\" is not a dotted path" },
		{ "resources:\n  - resource: pods\n    stripFields: [metadata.name]\n",
		  "would remove metadata.name" },
		{ "resources:\n  - resource: pods\n    stripFields: [metadata]\n",
		  "would remove metadata, which" },
		{ "resources:\n  - resource: pods\n    stripFields: "
		  "[metadata.labels.app]\n",
		  "would remove metadata.labels" },
		{ "resources:\n  - resource: pods\n    indexes: [app]\n",
		  ":3:15: indexes: \"app\" is not metadata.labels.KEY" },
		{ "resources:\n  - resource: pods\n    indexes: "
		  "[metadata.labels.-x]\n",
		  "is not metadata.labels.KEY" },
		{ "resources:\n  - resource: pods\n  - resource: pods\n",
		  ":3:5: resources: \"pods\" named twice, first at /tmp/" },
		{ "resources: []\nresources: []\n",
		  ":2:1: \"resources\" set twice, first at /tmp/" },
		{ "resources:\n  - resource: pods\n    indexes: [metadata.labels.a]\n"
		  "    indexes: [metadata.labels.b]\n",
		  ":4:5: resources: \"indexes\" set twice, first at /tmp/" },
		{ "page-size: [1]\n", ":1:12: page-size: want a single value" },
		{ "", "empty configuration" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct config_file f;
		CHECK(load(cases[i].yaml, &f) == -EINVAL);
		if (!strstr(err, cases[i].want) ||
		    !strstr(err, "/tmp/test_file_"))
			fprintf(stderr, "case %zu: got \"%s\", want \"%s\"\n",
				i, err, cases[i].want);
		CHECK(strstr(err, cases[i].want) != NULL);
		CHECK(f.nres == 0 && f.res == NULL);
	}
	struct config_file f;
	CHECK(config_file_load("/nonexistent/x.yaml", &f, err, sizeof(err)) ==
	      -ENOENT);
	CHECK(strstr(err, "--config /nonexistent/x.yaml: cannot read") != NULL);
}

/* A name given twice: the error is at the second, and says where the
 * first was. */
static void test_twice(void)
{
	static const struct {
		const char *yaml, *second, *first;
	} cases[] = {
		{ "resources:\n  - resource: pods\n    namespaces: [a, a]\n",
		  ":3:21: ", "first at /tmp/test_file_" },
		{ "resources:\n  - resource: pods\n  - resource: pods\n",
		  ":3:5: ", ":2:5 (list every namespace" },
		{ "resources: []\nresources: []\n", ":2:1: ", ":1:1" },
		{ "resources:\n  - resource: pods\n    indexes: [metadata.labels.a]\n"
		  "    indexes: [metadata.labels.b]\n",
		  ":4:5: ", ":3:5" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct config_file f;
		CHECK(load(cases[i].yaml, &f) == -EINVAL);
		const char *first = strstr(err, "first at ");
		if (!first || !strstr(first, cases[i].first) ||
		    !strstr(err, cases[i].second) ||
		    strstr(err, cases[i].second) > first)
			fprintf(stderr, "case %zu: got \"%s\"\n", i, err);
		CHECK(first && strstr(first, cases[i].first));
		CHECK(strstr(err, cases[i].second) &&
		      strstr(err, cases[i].second) < first);
	}
	/* the namespace's first "a" is at column 18 */
	struct config_file f;
	CHECK(load(cases[0].yaml, &f) == -EINVAL);
	CHECK(strstr(err, ":3:21: namespaces: \"a\" named twice, first at "
			  "/tmp/") &&
	      strstr(strstr(err, "first at"), ":3:18"));
}

#define PARSE(cfg, ...)                                                       \
	({                                                                    \
		char *argv_[] = { "informer-proxy", __VA_ARGS__, NULL };      \
		config_flags_parse(cfg,                                       \
				   (int)(sizeof(argv_) / sizeof(*argv_)) - 1, \
				   argv_, err, sizeof(err));                  \
	})

/* Flags in the file by name; the command line wins; --resources adds. */
static void test_with_flags(void)
{
	struct config c;
	write_file("page-size: 200\nhistory: 300\nstrip-managed-fields: true\n"
		   "resources:\n  - resource: pods\n    namespaces: [a]\n");
	CHECK(PARSE(&c, "--config", path, "--history=400") == 0);
	CHECK(c.page_size == 200);	       /* from the file */
	CHECK(c.history == 400);	       /* the flag wins */
	CHECK(c.strip_managed_fields == true); /* a bool by name */
	CHECK(c.nresources == 1);
	CHECK_STR(c.resources[0], "pods");
	CHECK_STR(c.scopes[0].namespaces[0], "a");
	CHECK_STR(c.config_file, path);
	config_flags_free(&c);

	/* --resources adds cluster-wide resources to the file's */
	CHECK(PARSE(&c, "--resources", "configmaps", "--config=", path) != 0);
	config_flags_free(&c);
	CHECK(PARSE(&c, "--resources", "configmaps", "--config", path) == 0);
	CHECK(c.nresources == 2);
	CHECK_STR(c.resources[0], "pods");
	CHECK_STR(c.resources[1], "configmaps");
	CHECK_STR(c.scopes[1].resource, "configmaps");
	CHECK(c.scopes[1].namespaces == NULL && c.scopes[1].where == NULL);
	config_flags_free(&c);

	/* ... but a resource in both is an error naming the file's entry */
	CHECK(PARSE(&c, "--config", path, "--resources", "pods") == -EINVAL);
	CHECK(strstr(err, "resource \"pods\" named twice, first at /tmp/") !=
	      NULL);
	CHECK(strstr(err, ":5:5") != NULL);
	config_flags_free(&c);
	unlink(path);

	/* a bad value for a flag, and an unknown key, name their place */
	write_file("resources: [{resource: pods}]\npage-size: lots\n");
	CHECK(PARSE(&c, "--config", path) == -EINVAL);
	CHECK(strstr(err, ":2:1: page-size: want a number from 1 to 100000, "
			  "got \"lots\"") != NULL);
	config_flags_free(&c);
	unlink(path);
	write_file("resources: [{resource: pods}]\npagesize: 3\n");
	CHECK(PARSE(&c, "--config", path) == -EINVAL);
	CHECK(strstr(err, ":2:1: unknown key \"pagesize\"") != NULL);
	config_flags_free(&c);
	unlink(path);
	write_file("config: /etc/other.yaml\n");
	CHECK(PARSE(&c, "--config", path) == -EINVAL);
	CHECK(strstr(err, ":1:1: unknown key \"config\"") != NULL);
	config_flags_free(&c);
	unlink(path);

	/* a file without resources still needs some from somewhere */
	write_file("page-size: 7\n");
	CHECK(PARSE(&c, "--config", path) == -EINVAL);
	CHECK(strstr(err, "--resources is required") != NULL);
	config_flags_free(&c);
	CHECK(PARSE(&c, "--config", path, "--resources", "pods") == 0);
	CHECK(c.page_size == 7 && c.nresources == 1);
	config_flags_free(&c);
	unlink(path);

	/* a flag value that looks like --config is not taken for it */
	CHECK(PARSE(&c, "--resources", "pods", "--context", "--config") == 0);
	CHECK_STR(c.context, "--config");
	CHECK(c.config_file == NULL);
	config_flags_free(&c);
}

int main(void)
{
	test_every_field();
	test_path_split();
	test_errors();
	test_twice();
	test_with_flags();
	return check_done("test_file");
}
