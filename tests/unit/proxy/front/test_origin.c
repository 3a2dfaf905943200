/*
 * test_origin: the Host and Origin rules against DNS rebinding: the
 * host part of a Host header, kubectl proxy's default patterns, the
 * --listen host, widening with --accept-hosts, bad patterns refused, and
 * exact origins.
 */
#include <errno.h>
#include <string.h>

#include "proxy/front/origin.h"
#include "check.h"

static void test_host_part(void)
{
	static const struct {
		const char *in, *out;
	} good[] = {
		{ "localhost", "localhost" },
		{ "localhost:8001", "localhost" },
		{ "127.0.0.1:1", "127.0.0.1" },
		{ "[::1]", "[::1]" },
		{ "[::1]:8001", "[::1]" },
		{ "Example.COM:", "Example.COM" },
	};
	char out[PROXY_ORIGIN_MAX_HOST + 1];
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		CHECK(proxy_origin_host_part(good[i].in, out, sizeof(out)) ==
		      0);
		CHECK_STR(out, good[i].out);
	}
	static const char *bad[] = {
		"",	      ":8001",	      "::1",	   "[::1",
		"[::1]x",     "[::1]:80x",    "[[::1]]",   "a:b",
		"host:80:80", "localhost:-1", "[::1]:8:8", "[]x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int rc = proxy_origin_host_part(bad[i], out, sizeof(out));
		CHECK(rc == -EINVAL);
		if (rc != -EINVAL)
			fprintf(stderr, "  accepted \"%s\"\n", bad[i]);
	}
	char big[PROXY_ORIGIN_MAX_HOST + 2];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(proxy_origin_host_part(big, out, sizeof(out)) == -EINVAL);
	CHECK(proxy_origin_host_part("localhost", out, 5) == -EINVAL);
}

static void test_default_hosts(void)
{
	char err[256] = "";
	struct proxy_origin *o =
		proxy_origin_new(PROXY_ORIGIN_DEFAULT_HOSTS, NULL, "127.0.0.1",
				 err, sizeof(err));
	CHECK(o != NULL);
	if (!o)
		return;
	static const char *ok[] = {
		"localhost",	  "localhost:8001", "LOCALHOST:8001",
		"127.0.0.1:8001", "127.0.0.1",	    "[::1]:8001",
		"[::1]",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++)
		CHECK(proxy_origin_host_ok(o, ok[i]));
	static const char *no[] = {
		"attacker.example.com",
		"attacker.example.com:8001",
		"localhost.attacker.example.com:8001", /* anchored */
		"127.0.0.1.attacker.example.com",
		"127a0b0c1:8001", /* the dots are literal */
		"localhost:8001:8001",
		"::1",
		"0.0.0.0:8001",
		"127.0.0.2:8001",
		"",
		"localhost\n",
	};
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++) {
		bool r = proxy_origin_host_ok(o, no[i]);
		CHECK(!r);
		if (r)
			fprintf(stderr, "  accepted \"%s\"\n", no[i]);
	}
	CHECK(proxy_origin_host_ok(o, NULL)); /* HTTP/1.0, no Host */
	proxy_origin_free(o);
}

static void test_listen_host(void)
{
	char err[256] = "";
	struct proxy_origin *o =
		proxy_origin_new("", NULL, "[::1]", err, sizeof(err));
	CHECK(o && proxy_origin_host_ok(o, "[::1]:9"));
	CHECK(o && !proxy_origin_host_ok(o, "localhost:9"));
	proxy_origin_free(o);
	o = proxy_origin_new(PROXY_ORIGIN_DEFAULT_HOSTS, NULL, "proxy.internal",
			     err, sizeof(err));
	CHECK(o && proxy_origin_host_ok(o, "Proxy.Internal:8001"));
	CHECK(o && !proxy_origin_host_ok(o, "xproxy.internal:8001"));
	proxy_origin_free(o);
	/* a wildcard address is not a name any client should send */
	o = proxy_origin_new("", NULL, "0.0.0.0", err, sizeof(err));
	CHECK(o && !proxy_origin_host_ok(o, "0.0.0.0:8001"));
	proxy_origin_free(o);
}

static void test_widened(void)
{
	char err[256] = "";
	struct proxy_origin *o = proxy_origin_new(
		"^my-proxy\\.internal$,,\\.svc\\.cluster\\.local$", NULL, NULL,
		err, sizeof(err));
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK(proxy_origin_host_ok(o, "my-proxy.internal:8001"));
	CHECK(proxy_origin_host_ok(o, "p.ns.svc.cluster.local"));
	CHECK(!proxy_origin_host_ok(o, "localhost:8001")); /* replaced */
	CHECK(!proxy_origin_host_ok(o, "my-proxy.internal.evil:8001"));
	proxy_origin_free(o);
}

static void test_bad_pattern(void)
{
	char err[256] = "";
	CHECK(proxy_origin_new("^ok$,(unclosed", NULL, NULL, err,
			       sizeof(err)) == NULL);
	CHECK(strstr(err, "--accept-hosts") && strstr(err, "(unclosed"));
	/* what glibc would compile in exponential memory */
	static const char *costly[] = {
		"a++++++++++++++",
		"(((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+)",
		"(a{99}){99}",
		"a{99999999999999999999}",
		"a{99999}",
		"^_+*++st$",
		"a*b*c*d*e*f*g*h*i*",
	};
	for (size_t i = 0; i < sizeof(costly) / sizeof(*costly); i++) {
		err[0] = '\0';
		CHECK(proxy_origin_new(costly[i], NULL, NULL, err,
				       sizeof(err)) == NULL);
		CHECK(strstr(err, "repeats too much") != NULL);
	}
	char longpat[PROXY_ORIGIN_MAX_PATTERN + 2];
	memset(longpat, 'a', sizeof(longpat) - 1);
	longpat[sizeof(longpat) - 1] = '\0';
	CHECK(proxy_origin_new(longpat, NULL, NULL, err, sizeof(err)) == NULL);
	/* what a reader writes is fine: */
	struct proxy_origin *o = proxy_origin_new(
		"^[a-z0-9]([-a-z0-9]{61}[a-z0-9])?\\.example\\.com$,"
		"^[a-z0-9][-a-z0-9]*\\.example\\.com$,"
		"^[[:alpha:]]+\\.[a-z]+\\.internal$,[+]{2}",
		NULL, NULL, err, sizeof(err));
	CHECK(o && proxy_origin_host_ok(o, "web-1.example.com:443"));
	CHECK(o && proxy_origin_host_ok(o, "a.b.internal"));
	proxy_origin_free(o);
	/* a comma always separates patterns, as in kubectl proxy */
	CHECK(proxy_origin_new("^a{0,61}$", NULL, NULL, err, sizeof(err)) ==
	      NULL);
	err[0] = '\0';
	CHECK(proxy_origin_new("", "http://ok:1,ftp://x", NULL, err,
			       sizeof(err)) == NULL);
	CHECK(strstr(err, "--accept-origins") && strstr(err, "ftp://x"));
	CHECK(proxy_origin_new("", "https://a/path", NULL, err, sizeof(err)) ==
	      NULL);
	CHECK(proxy_origin_new("", "https://", NULL, err, sizeof(err)) == NULL);
}

static void test_origins(void)
{
	char err[256] = "";
	struct proxy_origin *o = proxy_origin_new(PROXY_ORIGIN_DEFAULT_HOSTS,
						  NULL, NULL, err, sizeof(err));
	CHECK(o && proxy_origin_origin_ok(o, NULL));
	CHECK(o && !proxy_origin_origin_ok(o, "http://attacker.example.com"));
	CHECK(o && !proxy_origin_origin_ok(o, "null"));
	CHECK(o && !proxy_origin_origin_ok(o, ""));
	proxy_origin_free(o);
	o = proxy_origin_new("", "https://dash.internal:8443,http://x", NULL,
			     err, sizeof(err));
	CHECK(o && proxy_origin_origin_ok(o, "https://dash.internal:8443"));
	CHECK(o && proxy_origin_origin_ok(o, "HTTPS://Dash.Internal:8443"));
	CHECK(o && proxy_origin_origin_ok(o, "http://x"));
	CHECK(o && !proxy_origin_origin_ok(o, "https://dash.internal"));
	CHECK(o && !proxy_origin_origin_ok(o, "https://dash.internal:84431"));
	CHECK(o && !proxy_origin_origin_ok(o, "http://x.evil"));
	proxy_origin_free(o);
}

int main(void)
{
	test_host_part();
	test_default_hosts();
	test_listen_host();
	test_widened();
	test_bad_pattern();
	test_origins();
	return check_done("test_origin");
}
