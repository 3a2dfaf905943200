/*
 * kubeconfig_fixture: the kubeconfig text and secrets that
 * test_kubeconfig.c and test_source.c both load: every supported field
 * across three clusters and four contexts, and the token and key bytes that must never
 * reach a message, and the allocation-failure loop both run. For those
 * tests only.
 */
#ifndef TESTS_UNIT_CONFIG_KUBECONFIG_FIXTURE_H
#define TESTS_UNIT_CONFIG_KUBECONFIG_FIXTURE_H

#include <errno.h>
#include <stdio.h>

#include "config/alloc.h"
#include "config/upstream.h"
#include "tests/unit/check.h"

/* Secrets that must never reach a message: the token, and the key. */
#define TOKEN "SeCrEtToKeN.abc123"
#define KEY_PEM \
	"-----BEGIN PRIVATE KEY-----\nSECRETKEYBYTES\n-----END PRIVATE KEY-----\n"
#define KEY_B64 \
	"LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tClNFQ1JFVEtFWUJZVEVTCi0tLS0tRU5EIFBSSVZBVEUgS0VZLS0tLS0K"
#define CA_PEM "-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n"
/* CA_PEM in standard base64, folded the way some tools wrap it */
#define CA_B64 \
	"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClEwRT0KLS0tLS1FTkQgQ0VSVElGSUNB\n      VEUtLS0tLQo="

/* The kubeconfig used by most tests: two contexts, every supported field. */
static const char *full = "apiVersion: v1\n"
			  "kind: Config\n"
			  "current-context: dev\n"
			  "clusters:\n"
			  "- name: c1\n"
			  "  cluster:\n"
			  "    server: https://10.1.2.3:6443/\n"
			  "    certificate-authority-data: " CA_B64 "\n"
			  "    tls-server-name: api.internal\n"
			  "- name: c2\n"
			  "  cluster:\n"
			  "    server: https://[fd00::5]:443/prefix//\n"
			  "    insecure-skip-tls-verify: true\n"
			  "    extensions: [ {name: x, extension: {}} ]\n"
			  "- name: c3\n"
			  "  cluster:\n"
			  "    server: kube.example:8443\n"
			  "    certificate-authority: certs/ca.crt\n"
			  "users:\n"
			  "- name: u1\n"
			  "  user:\n"
			  "    token: " TOKEN "\n"
			  "    client-certificate: certs/client.crt\n"
			  "    client-key-data: " KEY_B64 "\n"
			  "- name: u2\n"
			  "  user:\n"
			  "    tokenFile: tok\n"
			  "    exec: null\n"
			  "    username: \"\"\n"
			  "- name: u3\n"
			  "  user: {}\n"
			  "contexts:\n"
			  "- name: dev\n"
			  "  context: {cluster: c1, user: u1, namespace: ns}\n"
			  "- name: prod\n"
			  "  context:\n"
			  "    cluster: c2\n"
			  "    user: u2\n"
			  "- name: third\n"
			  "  context: {cluster: c3, user: u3}\n"
			  "- name: nouser\n"
			  "  context: {cluster: c3}\n";

/* Pieces of a small kubeconfig: cluster c (its body given), user u with
 * a token and a key, context x naming both, and a server. */
#define CL(body) "clusters:\n- name: c\n  cluster:\n" body
#define US(body)                                             \
	"users:\n- name: u\n  user:\n    token: " TOKEN "\n" \
	"    client-key-data: " KEY_B64 "\n" body
#define CTX \
	"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
#define SRV "    server: https://h:1\n"

/* The last load's message (the tests print it on a failure). */
static char err[1024];

/* Every allocation of a load fails in turn: -ENOMEM, nothing leaked. */
static void alloc_loop(const char *what, int (*load)(struct config_upstream *))
{
	struct config_upstream up;
	int rc = -ENOMEM, n;
	for (n = 1; n < 10000; n++) {
		alloc_fail_after(n);
		rc = load(&up);
		long failed = alloc_failures();
		alloc_fail_after(0);
		if (!failed)
			break;
		if (rc != -ENOMEM)
			fprintf(stderr, "  %s: allocation %d: rc %d (%s)\n",
				what, n, rc, err);
		CHECK(rc == -ENOMEM);
		config_upstream_free(&up);
	}
	CHECK(rc == 0);
	CHECK(n > 3);
	config_upstream_free(&up);
}

#endif
