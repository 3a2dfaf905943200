/*
 * test_kubeconfig: upstream credentials from kubeconfig files written to a
 * temp dir: every supported field, each context, relative paths; a
 * cluster without a server when the caller supplies one; token rotation;
 * the libcurl settings; every error message (naming what to fix, never
 * carrying a secret); and allocation failure at every step. Choosing
 * among the sources is test_source.c.
 */
#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/upstream_creds.h"
#include "config/alloc.h"
#include "config/creds.h"
#include "config/kubeconfig.h"
#include "tests/unit/check.h"
#include "scratch.h"
#include "tests/unit/config/kubeconfig_fixture.h"


static void no_secret(const char *msg)
{
	CHECK(!strstr(msg, TOKEN));
	CHECK(!strstr(msg, "SECRETKEYBYTES"));
	CHECK(!strstr(msg, KEY_B64));
}

static void test_full(void)
{
	struct config_upstream up;
	char line[2048];
	scratch_put("kc", full);
	int rc = config_kubeconfig_load(scratch_at("kc"), NULL, true, &up, err,
					sizeof(err));
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "  %s\n", err);
		return;
	}
	CHECK_STR(up.server, "https://10.1.2.3:6443");
	CHECK_STR(up.tls_server_name, "api.internal");
	CHECK_STR(up.url_base, "https://api.internal:6443");
	CHECK_STR(up.connect_to, "api.internal:6443:10.1.2.3:6443");
	CHECK(up.ca.path == NULL);
	CHECK(up.ca.len == strlen(CA_PEM) &&
	      !memcmp(up.ca.data, CA_PEM, up.ca.len));
	CHECK(!up.insecure_skip_tls_verify);
	CHECK_STR(up.cert.path, scratch_at("certs/client.crt"));
	CHECK(up.cert.data == NULL);
	CHECK(up.key.path == NULL);
	CHECK(up.key.len == strlen(KEY_PEM) &&
	      !memcmp(up.key.data, KEY_PEM, up.key.len));
	CHECK_STR(up.token, TOKEN);
	CHECK(up.token_file == NULL);
	char src[PATH_MAX + 64];
	snprintf(src, sizeof(src), "kubeconfig %s context dev",
		 scratch_at("kc"));
	CHECK_STR(up.source, src);
	char tok[256];
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, TOKEN);
	CHECK(config_creds_token_get(&up, tok, 4) == -ERANGE);
	config_creds_describe(&up, line, sizeof(line));
	CHECK(strstr(line, "https://10.1.2.3:6443") != NULL);
	CHECK(strstr(line, "tls-server-name api.internal") != NULL);
	CHECK(strstr(line, "CA: data from kubeconfig") != NULL);
	CHECK(strstr(line, "bearer token + client certificate") != NULL);
	CHECK(!strstr(line, "WARNING"));
	no_secret(line);
	config_upstream_free(&up);
	config_upstream_free(&up); /* twice is fine */

	/* --context: insecure, IPv6, a path prefix, tokenFile relative */
	scratch_put("tok", "  file-token-1\n\n");
	rc = config_kubeconfig_load(scratch_at("kc"), "prod", true, &up, err,
				    sizeof(err));
	CHECK(rc == 0);
	CHECK_STR(up.server, "https://[fd00::5]:443/prefix");
	CHECK_STR(up.url_base, "https://[fd00::5]:443/prefix");
	CHECK(up.insecure_skip_tls_verify);
	CHECK(!up.ca.path && !up.ca.data && !up.cert.path && !up.key.data);
	CHECK(up.token == NULL);
	CHECK_STR(up.token_file, scratch_at("tok"));
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, "file-token-1");
	config_creds_describe(&up, line, sizeof(line));
	CHECK(strstr(line, "WARNING: insecure-skip-tls-verify") != NULL);
	CHECK(strstr(line, "bearer token from file") != NULL);
	config_upstream_free(&up);

	/* a bare host:port gets https://; a relative CA file */
	mkdir(scratch_at("certs"), 0700);
	scratch_put("certs/ca.crt", CA_PEM);
	scratch_put("certs/client.crt", "-----BEGIN CERTIFICATE-----\n");
	rc = config_kubeconfig_load(scratch_at("kc"), "third", true, &up, err,
				    sizeof(err));
	CHECK(rc == 0);
	CHECK_STR(up.server, "https://kube.example:8443");
	CHECK_STR(up.ca.path, scratch_at("certs/ca.crt"));
	CHECK(!config_creds_has_token(&up));
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == -ENOENT);
	config_creds_describe(&up, line, sizeof(line));
	CHECK(strstr(line, "auth: none") != NULL);
	CHECK(strstr(line, "CA: file ") != NULL);
	config_upstream_free(&up);
	rc = config_kubeconfig_load(scratch_at("kc"), "nouser", true, &up, err,
				    sizeof(err));
	CHECK(rc == 0);
	config_upstream_free(&up);

	/* relative to the kubeconfig's directory, not the working directory */
	char cwd[PATH_MAX];
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK(chdir(scratch_dir) == 0);
	rc = config_kubeconfig_load("kc", "third", true, &up, err, sizeof(err));
	CHECK(rc == 0);
	CHECK_STR(up.ca.path, scratch_at("certs/ca.crt"));
	config_upstream_free(&up);
	CHECK(chdir("/") == 0);
	rc = config_kubeconfig_load(scratch_at("kc"), "third", true, &up, err,
				    sizeof(err));
	CHECK(rc == 0);
	CHECK_STR(up.ca.path, scratch_at("certs/ca.crt"));
	config_upstream_free(&up);
	CHECK(chdir(cwd) == 0);
}

/* Load text as a kubeconfig and expect rc with every `want` in err. */
static void expect_err(int line, const char *text, const char *ctx, int want,
		       const char *w1, const char *w2)
{
	struct config_upstream up;
	scratch_put("bad", text);
	err[0] = '\0';
	int rc = config_kubeconfig_load(scratch_at("bad"), ctx, true, &up, err,
					sizeof(err));
	bool ok = rc == want && (!w1 || strstr(err, w1)) &&
		  (!w2 || strstr(err, w2)) && strstr(err, scratch_at("bad"));
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "  line %d: rc %d, err \"%s\"\n", line, rc,
			err);
	no_secret(err);
	CHECK(up.server == NULL && up.token == NULL);
	config_upstream_free(&up);
}
#define EXPECT_ERR(text, ctx, rc, w1, w2) \
	expect_err(__LINE__, text, ctx, rc, w1, w2)

static void test_errors(void)
{
	static const char *fields[] = { "exec",	     "auth-provider",
					"username",  "password",
					"as",	     "as-uid",
					"as-groups", "as-user-extra" };
	char text[4096], want[64];
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		snprintf(text, sizeof(text), CL(SRV) US("    %s: {a: b}\n") CTX,
			 fields[i]);
		snprintf(want, sizeof(want), "sets %s (", fields[i]);
		EXPECT_ERR(text, NULL, -ENOTSUP, want, "user \"u\"");
	}
	EXPECT_ERR(
		CL(SRV) US(
			"    exec:\n      command: get-token\n"
			"      apiVersion: client.authentication.k8s.io/v1\n")
			CTX,
		NULL, -ENOTSUP, "sets exec (credential plugins)",
		"does not support");
	EXPECT_ERR(CL(SRV) US("    auth-provider: {name: oidc}\n") CTX, NULL,
		   -ENOTSUP, "sets auth-provider", NULL);
	EXPECT_ERR(CL(SRV "    proxy-url: http://p:3128\n") US("") CTX, NULL,
		   -ENOTSUP, "cluster \"c\" sets proxy-url", NULL);
	EXPECT_ERR(CL(SRV) US("") CTX, "nope", -ENOENT,
		   "context \"nope\" not found", "(contexts: x)");
	EXPECT_ERR(CL(SRV) US("") "contexts:\n- name: a\n- name: b\n", NULL,
		   -ENOENT, "current-context is not set; pass --context",
		   "(contexts: a, b)");
	EXPECT_ERR("", NULL, -ENOENT, "current-context is not set",
		   "(contexts: none)");
	EXPECT_ERR(CL(SRV) US("") "current-context: x\ncontexts:\n- name: x\n"
				  "  context: {cluster: zz, user: u}\n",
		   NULL, -ENOENT,
		   "refers to cluster \"zz\", which is not in clusters",
		   "(clusters: c)");
	EXPECT_ERR(CL(SRV) US("") "current-context: x\ncontexts:\n- name: x\n"
				  "  context: {cluster: c, user: who}\n",
		   NULL, -ENOENT,
		   "refers to user \"who\", which is not in users",
		   "(users: u)");
	EXPECT_ERR(CL(SRV) US("") "current-context: x\ncontexts:\n- name: x\n"
				  "  context: {user: u}\n",
		   NULL, -EINVAL, "context \"x\" names no cluster", NULL);
	EXPECT_ERR(CL("    insecure-skip-tls-verify: false\n") US("") CTX, NULL,
		   -EINVAL, "cluster \"c\" has no server", "--server");
	EXPECT_ERR(CL("    server: ftp://h\n") US("") CTX, NULL, -EINVAL,
		   "only http:// and https://", NULL);
	EXPECT_ERR(CL(SRV "    certificate-authority-data: not*base64\n") US("")
			   CTX,
		   NULL, -EINVAL,
		   "certificate-authority-data is not valid base64", NULL);
	/* "hello" base64-encoded decodes fine but is not PEM */
	EXPECT_ERR(CL(SRV "    certificate-authority-data: aGVsbG8=\n") US("")
			   CTX,
		   NULL, -EINVAL, "is not PEM", "twice");
	EXPECT_ERR(CL(SRV) "users:\n- name: u\n  user:\n    token: " TOKEN "\n"
			   "    client-certificate: certs/client.crt\n"
			   "    client-key-data: " KEY_B64 "=====x\n" CTX,
		   NULL, -EINVAL, "client-key-data is not valid base64", NULL);
	EXPECT_ERR(CL(SRV "    certificate-authority-data: " CA_B64 "\n"
			  "    certificate-authority: certs/ca.crt\n") US("")
			   CTX,
		   NULL, -EINVAL,
		   "both certificate-authority and "
		   "certificate-authority-data are set",
		   NULL);
	EXPECT_ERR(CL(SRV "    certificate-authority: certs/ca.crt\n"
			  "    insecure-skip-tls-verify: true\n") US("") CTX,
		   NULL, -EINVAL, "insecure-skip-tls-verify is not allowed",
		   NULL);
	EXPECT_ERR(CL(SRV "    certificate-authority: missing.crt\n") US("")
			   CTX,
		   NULL, -ENOENT, "certificate-authority ",
		   "missing.crt: No such file");
	EXPECT_ERR(CL(SRV "    insecure-skip-tls-verify: maybe\n") US("") CTX,
		   NULL, -EINVAL,
		   "insecure-skip-tls-verify must be true "
		   "or false",
		   NULL);
	EXPECT_ERR(CL(SRV) US("") CTX, NULL, -EINVAL,
		   "needs both client-certificate(-data) and client-key", NULL);
	EXPECT_ERR(CL(SRV) "users:\n- name: u\n  user:\n    token: \"a b" TOKEN
			   "\"\n" CTX,
		   NULL, -EINVAL, "token contains spaces or control characters",
		   NULL);
	EXPECT_ERR(
		CL(SRV) "users:\n- name: u\n  user:\n    tokenFile: nofile\n" CTX,
		NULL, -ENOENT, "tokenFile ", "nofile: No such file");
	scratch_put("emptytok", " \n");
	EXPECT_ERR(
		CL(SRV) "users:\n- name: u\n  user:\n    tokenFile: emptytok\n" CTX,
		NULL, -EINVAL, "emptytok is empty", NULL);
	EXPECT_ERR(CL(SRV) US("") CTX "clusters: [\n", NULL, -EINVAL,
		   "invalid YAML at line", NULL);
	EXPECT_ERR("- just\n- a list\n", NULL, -EINVAL, "not a kubeconfig",
		   NULL);
	EXPECT_ERR(CL("    server: [a]\n") US("") CTX, NULL, -EINVAL,
		   "server must be a string", NULL);
	EXPECT_ERR("clusters: {c: 1}\n" CTX, NULL, -EINVAL,
		   "clusters must be a list", NULL);

	/* a missing file: the message says what to do */
	struct config_upstream up;
	int rc = config_kubeconfig_load(scratch_at("nothere"), NULL, true, &up,
					err, sizeof(err));
	CHECK(rc == -ENOENT);
	CHECK(strstr(err, "nothere: cannot read: No such file") != NULL);
	CHECK(strstr(err, "--kubeconfig") != NULL);
	config_upstream_free(&up);
}

/* need_server false: a cluster with no server loads, with its TLS
 * settings, and leaves the server to the caller (--server). */
static void test_no_server(void)
{
	struct config_upstream up;
	scratch_put(
		"noserver",
		CL("    insecure-skip-tls-verify: true\n") "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\n");
	CHECK(config_kubeconfig_load(scratch_at("noserver"), NULL, false, &up,
				     err, sizeof(err)) == 0);
	CHECK(up.server == NULL && up.url_base == NULL);
	CHECK(up.insecure_skip_tls_verify);
	config_upstream_free(&up);
	CHECK(config_kubeconfig_load(scratch_at("noserver"), NULL, true, &up,
				     err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "has no server") != NULL);
	/* a server that is given is still checked */
	scratch_put("badserver",
		    CL("    server: ftp://h\n") "current-context: x\n"
						"contexts:\n- name: x\n"
						"  context: {cluster: c}\n");
	CHECK(config_kubeconfig_load(scratch_at("badserver"), NULL, false, &up,
				     err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "only http:// and https://") != NULL);
}

/* Replace name's content through a new inode, as kubelet's symlink swap
 * does, so that even a same-size rewrite is seen. */
static void swap_in(const char *name, const char *text)
{
	char tmp[PATH_MAX];
	scratch_put("swap.tmp", text);
	snprintf(tmp, sizeof(tmp), "%s", scratch_at("swap.tmp"));
	CHECK(rename(tmp, scratch_at(name)) == 0);
}

static struct config_upstream *shared_up;

static void *token_reader(void *arg)
{
	char tok[128];
	int *bad = arg;
	for (int i = 0; i < 2000; i++) {
		int rc = config_creds_token_get(shared_up, tok, sizeof(tok));
		if (rc == 0 && strcmp(tok, "rot-A") && strcmp(tok, "rot-BB"))
			(*bad)++;
	}
	return NULL;
}

static void test_rotation(void)
{
	struct config_upstream up;
	char tok[128], msg[512];
	scratch_put("rot", "rot-A\n");
	scratch_put(
		"rotkc",
		CL(SRV) "users:\n- name: u\n  user:\n    tokenFile: rot\n" CTX);
	CHECK(config_kubeconfig_load(scratch_at("rotkc"), NULL, true, &up, err,
				     sizeof(err)) == 0);
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, "rot-A");
	scratch_put("rot", "rot-BB\n"); /* in place, a new size */
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, "rot-BB");
	swap_in("rot", "rot-CC\n"); /* same size, new inode */
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, "rot-CC");
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0); /* cached */
	CHECK_STR(tok, "rot-CC");

	CHECK(unlink(scratch_at("rot")) == 0);
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == -ENOENT);
	CHECK_STR(tok, "");
	config_creds_token_explain(&up, msg, sizeof(msg));
	CHECK(strstr(msg, "rot: cannot read: No such file") != NULL);
	no_secret(msg);
	scratch_put("rot", "   \n");
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == -EINVAL);
	config_creds_token_explain(&up, msg, sizeof(msg));
	CHECK(strstr(msg, "is empty") != NULL);
	scratch_put("rot", "rot-A\n");
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, "rot-A");
	config_creds_token_explain(&up, msg, sizeof(msg));
	CHECK_STR(msg, "");

	/* several threads at once while the file rotates */
	shared_up = &up;
	pthread_t th[4];
	int bad[4] = { 0 };
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, token_reader, &bad[i]);
	for (int i = 0; i < 50; i++)
		swap_in("rot", i % 2 ? "rot-A\n" : "rot-BB\n");
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK(bad[i] == 0);
	}
	config_upstream_free(&up);
}

static bool has_header(struct curl_slist *l, const char *h)
{
	for (; l; l = l->next)
		if (!strcmp(l->data, h))
			return true;
	return false;
}

static void test_curl(void)
{
	struct config_upstream up;
	struct curl_slist *hdrs = NULL;
	CURL *h = curl_easy_init();
	CHECK(h != NULL);
	scratch_put("certs/client.crt", "-----BEGIN CERTIFICATE-----\n");
	CHECK(config_kubeconfig_load(scratch_at("kc"), NULL, true, &up, err,
				     sizeof(err)) == 0);
	int rc = cache_upstream_creds_apply(&up, h, &hdrs, true, err,
					    sizeof(err));
	CHECK(rc == 0);
	if (rc)
		fprintf(stderr, "  %s\n", err);
	CHECK(has_header(hdrs, "Authorization: Bearer " TOKEN));
	CHECK(has_header(hdrs, "Host: 10.1.2.3:6443"));
	curl_slist_free_all(hdrs);
	hdrs = NULL;
	config_upstream_free(&up);

	scratch_put("rot", "curl-tok\n");
	scratch_put(
		"ckc",
		CL("    server: http://127.0.0.1:9\n") "users:\n- name: u\n"
						       "  user:\n    tokenFile: rot\n" CTX);
	CHECK(config_kubeconfig_load(scratch_at("ckc"), NULL, true, &up, err,
				     sizeof(err)) == 0);
	char line[1024];
	config_creds_describe(&up, line, sizeof(line));
	CHECK(strstr(line, "WARNING: the token is sent over plain http") !=
	      NULL);
	CHECK(cache_upstream_creds_apply(&up, h, &hdrs, true, err,
					 sizeof(err)) == 0);
	CHECK(has_header(hdrs, "Authorization: Bearer curl-tok"));
	CHECK(hdrs && !hdrs->next);
	curl_slist_free_all(hdrs);
	hdrs = NULL;
	unlink(scratch_at("rot"));
	CHECK(cache_upstream_creds_apply(&up, h, &hdrs, true, err,
					 sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "cannot read") != NULL);
	CHECK(hdrs == NULL);
	config_upstream_free(&up);
	curl_easy_cleanup(h);
}

static int load_full(struct config_upstream *up)
{
	return config_kubeconfig_load(scratch_at("kc"), NULL, true, up, err,
				      sizeof(err));
}

static int load_prod(struct config_upstream *up)
{
	return config_kubeconfig_load(scratch_at("kc"), "prod", true, up, err,
				      sizeof(err));
}

static void test_alloc(void)
{
	scratch_put("tok", "file-token-1\n");
	alloc_loop("full", load_full);
	alloc_loop("prod", load_prod);
}

int main(void)
{
	scratch_make("kubeconfig");
	curl_global_init(CURL_GLOBAL_DEFAULT);
	mkdir(scratch_at("certs"), 0700);
	scratch_put("certs/client.crt", "-----BEGIN CERTIFICATE-----\n");
	scratch_put("certs/ca.crt", CA_PEM);
	test_full();
	test_errors();
	test_no_server();
	test_rotation();
	test_curl();
	test_alloc();
	curl_global_cleanup();
	scratch_remove();
	return check_done("kubeconfig");
}
