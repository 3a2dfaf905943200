/*
 * test_upstream: the life of a struct config_upstream and the rules of
 * its server URL: accepted schemes, a bare host:port read as https,
 * trailing slashes dropped, refusals that name where the URL came from,
 * the URL and connect-to pair that tls-server-name makes (IPv4, IPv6,
 * default port, a path), freeing twice, and allocation failure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "config/upstream.h"
#include "check.h"

static char err[256];

/* url through config_upstream_set_server: want_rc, and the stored server
 * (NULL: unchanged from before). */
static void expect_server(const char *url, int want_rc, const char *want)
{
	struct config_upstream up;
	config_upstream_init(&up);
	err[0] = '\0';
	int rc = config_upstream_set_server(&up, url, "--server", err,
					    sizeof(err));
	CHECK(rc == want_rc);
	if (want)
		CHECK_STR(up.server, want);
	else
		CHECK(up.server == NULL && strstr(err, "--server") != NULL);
	config_upstream_free(&up);
}

static void test_server(void)
{
	expect_server("https://h:6443/", 0, "https://h:6443");
	expect_server("http://127.0.0.1:8080//", 0, "http://127.0.0.1:8080");
	expect_server("https://[fd00::5]:443/prefix/", 0,
		      "https://[fd00::5]:443/prefix");
	expect_server("kube.example:8443", 0, "https://kube.example:8443");
	expect_server("kube.example", 0, "https://kube.example");
	expect_server("ftp://h", -EINVAL, NULL);
	CHECK(strstr(err, "only http:// and https://") != NULL);
	expect_server("https://", -EINVAL, NULL);
	CHECK(strstr(err, "has no host") != NULL);
	expect_server("https://:443", -EINVAL, NULL);
	expect_server("https:///path", -EINVAL, NULL);
	expect_server("https://h /x", -EINVAL, NULL);
	CHECK(strstr(err, "spaces or control characters") != NULL);
	expect_server("https://h\x01", -EINVAL, NULL);

	/* a refused URL leaves the one already set */
	struct config_upstream up;
	config_upstream_init(&up);
	CHECK(config_upstream_set_server(&up, "https://a:1", "x", err,
					 sizeof(err)) == 0);
	CHECK(config_upstream_set_server(&up, "gopher://b", "x", err,
					 sizeof(err)) == -EINVAL);
	CHECK_STR(up.server, "https://a:1");
	config_upstream_free(&up);
}

/* server and tls-server-name into url_base and connect_to. */
static void expect_base(const char *server, const char *tls,
			const char *want_base, const char *want_connect)
{
	struct config_upstream up;
	config_upstream_init(&up);
	CHECK(config_upstream_set_server(&up, server, "t", err, sizeof(err)) ==
	      0);
	up.tls_server_name = tls ? strdup(tls) : NULL;
	CHECK(config_upstream_set_url_base(&up) == 0);
	CHECK_STR(up.url_base, want_base);
	if (want_connect)
		CHECK_STR(up.connect_to, want_connect);
	else
		CHECK(up.connect_to == NULL);
	/* again: the old strings are replaced, not leaked */
	CHECK(config_upstream_set_url_base(&up) == 0);
	CHECK_STR(up.url_base, want_base);
	config_upstream_free(&up);
}

static void test_url_base(void)
{
	expect_base("https://10.1.2.3:6443", NULL, "https://10.1.2.3:6443",
		    NULL);
	expect_base("https://10.1.2.3:6443", "api.internal",
		    "https://api.internal:6443",
		    "api.internal:6443:10.1.2.3:6443");
	expect_base("https://10.1.2.3", "api.internal",
		    "https://api.internal:443",
		    "api.internal:443:10.1.2.3:443");
	expect_base("https://[fd00::5]:7443/prefix", "api.internal",
		    "https://api.internal:7443/prefix",
		    "api.internal:7443:[fd00::5]:7443");
	/* plain http sends no SNI: the name changes nothing */
	expect_base("http://10.1.2.3:8080", "api.internal",
		    "http://10.1.2.3:8080", NULL);
}

static void test_free(void)
{
	struct config_upstream up = { 0 };
	config_upstream_free(&up); /* zeroed: nothing to free */
	config_upstream_free(NULL);
	config_upstream_init(&up);
	up.token = strdup("secret");
	up.key.data = (unsigned char *)strdup("key");
	up.key.len = 3;
	config_upstream_free(&up);
	CHECK(up.token == NULL && up.key.data == NULL && !up.lock_ready);
	config_upstream_free(&up); /* twice is fine */
}

static void test_alloc(void)
{
	struct config_upstream up;
	int n, rc = -ENOMEM;
	for (n = 1; n < 100; n++) {
		config_upstream_init(&up);
		up.tls_server_name = strdup("name");
		alloc_fail_after(n);
		rc = config_upstream_set_server(&up, "https://h:1/p", "t", err,
						sizeof(err));
		if (!rc)
			rc = config_upstream_set_url_base(&up);
		long failed = alloc_failures();
		alloc_fail_after(0);
		config_upstream_free(&up);
		if (!failed)
			break;
		CHECK(rc == -ENOMEM);
	}
	CHECK(rc == 0 && n > 2);
}

int main(void)
{
	test_server();
	test_url_base();
	test_free();
	test_alloc();
	return check_done("upstream");
}
