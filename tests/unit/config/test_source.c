/*
 * test_source: choosing where the upstream comes from, through
 * config_source_resolve(): the pod's service account (IPv4 and IPv6
 * hosts, missing env, missing CA or token), --kubeconfig, $KUBECONFIG
 * (first existing file), ~/.kube/config, --server alone or over any of
 * them, --context skipping in-cluster; and allocation failure at every
 * step.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/creds.h"
#include "config/source.h"
#include "tests/unit/check.h"
#include "scratch.h"
#include "tests/unit/config/kubeconfig_fixture.h"


static void set_sa_env(const char *host, const char *port)
{
	if (host)
		setenv("KUBERNETES_SERVICE_HOST", host, 1);
	else
		unsetenv("KUBERNETES_SERVICE_HOST");
	if (port)
		setenv("KUBERNETES_SERVICE_PORT", port, 1);
	else
		unsetenv("KUBERNETES_SERVICE_PORT");
}

/* In-cluster through the public entry: no --kubeconfig, --context or
 * --server, with sa_dir (--serviceaccount-dir) pointing at root, and
 * KUBERNETES_SERVICE_HOST set by the caller. */
static int incluster(const char *root, struct config_upstream *up)
{
	return config_source_resolve(NULL, NULL, NULL, root, up, err,
				     sizeof(err));
}

static void test_incluster(void)
{
	struct config_upstream up;
	char tok[128];
	mkdir(scratch_at("sa"), 0700);
	scratch_put("sa/token", "sa-token-1\n");
	scratch_put("sa/ca.crt", CA_PEM);
	set_sa_env("10.96.0.1", "443");
	int rc = incluster(scratch_at("sa"), &up);
	CHECK(rc == 0);
	CHECK_STR(up.server, "https://10.96.0.1:443");
	CHECK_STR(up.url_base, "https://10.96.0.1:443");
	CHECK_STR(up.token_file, scratch_at("sa/token"));
	CHECK_STR(up.ca.path, scratch_at("sa/ca.crt"));
	CHECK_STR(up.source, "in-cluster");
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, "sa-token-1");
	config_upstream_free(&up);

	set_sa_env("fd00:10:96::1", "6443");
	CHECK(incluster(scratch_at("sa"), &up) == 0);
	CHECK_STR(up.server, "https://[fd00:10:96::1]:6443");
	config_upstream_free(&up);

	set_sa_env("10.96.0.1", NULL);
	CHECK(incluster(scratch_at("sa"), &up) == -ENOENT);
	CHECK(strstr(err, "KUBERNETES_SERVICE_PORT") != NULL);

	set_sa_env("10.96.0.1", "443");
	CHECK(incluster(scratch_at("nosa"), &up) == -ENOENT);
	CHECK(strstr(err, "nosa/ca.crt: No such file") != NULL);
	mkdir(scratch_at("sa2"), 0700);
	scratch_put("sa2/ca.crt", CA_PEM);
	CHECK(incluster(scratch_at("sa2"), &up) == -ENOENT);
	CHECK(strstr(err, "sa2/token: cannot read: No such file") != NULL);
	config_upstream_free(&up);
	set_sa_env(NULL, NULL);
}

static void test_resolve(void)
{
	struct config_upstream up;
	char home[PATH_MAX], kenv[2 * PATH_MAX];

	set_sa_env(NULL, NULL);
	unsetenv("KUBECONFIG");
	snprintf(home, sizeof(home), "%s/home", scratch_dir);
	mkdir(home, 0700);
	setenv("HOME", home, 1);

	/* nothing anywhere */
	CHECK(config_source_resolve(NULL, NULL, NULL, NULL, &up, err,
				    sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "no upstream configured") != NULL);
	/* --server alone: a plain config, how tests run */
	CHECK(config_source_resolve(NULL, "", "http://127.0.0.1:18080/", NULL,
				    &up, err, sizeof(err)) == 0);
	CHECK_STR(up.server, "http://127.0.0.1:18080");
	CHECK_STR(up.url_base, "http://127.0.0.1:18080");
	CHECK_STR(up.source, "--server");
	CHECK(!config_creds_has_token(&up) && !up.ca.path && !up.ca.data);
	config_upstream_free(&up);
	CHECK(config_source_resolve(NULL, NULL, "gopher://x", NULL, &up, err,
				    sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "--server") != NULL);

	/* ~/.kube/config */
	mkdir(scratch_at("home/.kube"), 0700);
	scratch_put(
		"home/.kube/config",
		CL("    server: https://from-home:6443\n") "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\n");
	CHECK(config_source_resolve(NULL, NULL, NULL, NULL, &up, err,
				    sizeof(err)) == 0);
	CHECK_STR(up.server, "https://from-home:6443");
	config_upstream_free(&up);

	/* $KUBECONFIG wins over ~/.kube/config; first existing file used */
	snprintf(kenv, sizeof(kenv), "%s::%s", scratch_at("absent"),
		 scratch_at("kc"));
	setenv("KUBECONFIG", kenv, 1);
	CHECK(config_source_resolve(NULL, "prod", NULL, NULL, &up, err,
				    sizeof(err)) == 0);
	CHECK_STR(up.server, "https://[fd00::5]:443/prefix");
	config_upstream_free(&up);
	setenv("KUBECONFIG", scratch_at("absent"), 1);
	CHECK(config_source_resolve(NULL, NULL, NULL, NULL, &up, err,
				    sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "KUBECONFIG=") && strstr(err, "absent"));
	CHECK(config_source_resolve(NULL, NULL, "http://127.0.0.1:1", NULL, &up,
				    err, sizeof(err)) == 0);
	CHECK_STR(up.server, "http://127.0.0.1:1");
	config_upstream_free(&up);

	/* --kubeconfig wins over everything; --server overrides its server
	 * but keeps its credentials */
	set_sa_env("10.96.0.1", "443");
	CHECK(config_source_resolve(scratch_at("kc"), NULL,
				    "https://other:7443", NULL, &up, err,
				    sizeof(err)) == 0);
	CHECK_STR(up.server, "https://other:7443");
	CHECK_STR(up.url_base, "https://api.internal:7443");
	CHECK_STR(up.token, TOKEN);
	CHECK(strstr(up.source, "server from --server") != NULL);
	config_upstream_free(&up);
	/* a kubeconfig cluster with no server is fine when --server is given */
	scratch_put(
		"noserver",
		CL("    insecure-skip-tls-verify: true\n") "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\n");
	CHECK(config_source_resolve(scratch_at("noserver"), NULL, "https://s:1",
				    NULL, &up, err, sizeof(err)) == 0);
	CHECK_STR(up.server, "https://s:1");
	CHECK(up.insecure_skip_tls_verify);
	config_upstream_free(&up);
	CHECK(config_source_resolve(scratch_at("noserver"), NULL, NULL, NULL,
				    &up, err, sizeof(err)) == -EINVAL);

	/* KUBERNETES_SERVICE_HOST: in-cluster before $KUBECONFIG (the default
	 * root is absent here, so it fails saying so) ... */
	setenv("KUBECONFIG", scratch_at("kc"), 1);
	struct stat st;
	if (stat(CONFIG_SOURCE_INCLUSTER_ROOT "/ca.crt", &st) != 0) {
		CHECK(config_source_resolve(NULL, NULL, NULL, NULL, &up, err,
					    sizeof(err)) == -ENOENT);
		CHECK(strstr(err,
			     "in-cluster: CA " CONFIG_SOURCE_INCLUSTER_ROOT) !=
		      NULL);
	}
	/* ... unless --context asks for a kubeconfig */
	CHECK(config_source_resolve(NULL, "third", NULL, NULL, &up, err,
				    sizeof(err)) == 0);
	CHECK_STR(up.server, "https://kube.example:8443");
	config_upstream_free(&up);
	set_sa_env(NULL, NULL);
	unsetenv("KUBECONFIG");
}

static int load_incluster(struct config_upstream *up)
{
	return incluster(scratch_at("sa"), up);
}

static int load_resolve(struct config_upstream *up)
{
	return config_source_resolve(scratch_at("kc"), NULL, "https://o:1",
				     NULL, up, err, sizeof(err));
}

static void test_alloc(void)
{
	scratch_put("tok", "file-token-1\n");
	set_sa_env("10.96.0.1", "443");
	alloc_loop("incluster", load_incluster);
	alloc_loop("resolve", load_resolve);
	set_sa_env(NULL, NULL);
}

int main(void)
{
	struct config_upstream up;
	scratch_make("source");
	mkdir(scratch_at("certs"), 0700);
	scratch_put("certs/client.crt", "-----BEGIN CERTIFICATE-----\n");
	scratch_put("certs/ca.crt", CA_PEM);
	scratch_put("tok", "file-token-1\n");
	scratch_put("kc", full);
	/* the fixture loads as a whole before the tests lean on it */
	CHECK(config_source_resolve(scratch_at("kc"), NULL, NULL, NULL, &up,
				    err, sizeof(err)) == 0);
	config_upstream_free(&up);
	test_incluster();
	test_resolve();
	test_alloc();
	scratch_remove();
	return check_done("source");
}
