/*
 * test_listen: --listen addresses, what counts as loopback, and which
 * exposures the proxy refuses to start with.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "proxy/front/listen.h"
#include "check.h"

/* Whether --listen host may serve without delegated auth or the opt-in:
 * 0 for a loopback address, -EPERM for any other. */
static int exposure(const char *host)
{
	char err[512], h[64];
	snprintf(h, sizeof(h), "%s", host);
	struct config cfg = { .listen_host = h, .listen_port = 8001 };
	return proxy_listen_check_exposure(&cfg, err, sizeof(err));
}

static void test_addr(void)
{
	struct sockaddr_storage ss;
	char err[160] = "";
	CHECK(proxy_listen_addr("127.0.0.1", 8001, &ss, err, sizeof(err)) == 0);
	CHECK(ss.ss_family == AF_INET);
	CHECK(ntohs(((struct sockaddr_in *)&ss)->sin_port) == 8001);
	CHECK(proxy_listen_addr("[::1]", 0, &ss, err, sizeof(err)) == 0);
	CHECK(ss.ss_family == AF_INET6);
	CHECK(proxy_listen_addr("0.0.0.0", 1, &ss, err, sizeof(err)) == 0);

	/* a name resolves: localhost to a loopback address */
	CHECK(proxy_listen_addr("localhost", 1, &ss, err, sizeof(err)) == 0);
	CHECK(exposure("localhost") == 0);
	CHECK(proxy_listen_addr("bad_name!", 1, &ss, err, sizeof(err)) ==
	      -EINVAL);
	CHECK_STR(err, "--listen: \"bad_name!\" is not an IPv4 address");
	char num[64];
	CHECK(proxy_listen_addr("127.0.0.1", 1, &ss, err, sizeof(err)) == 0);
	proxy_listen_numeric(&ss, num, sizeof(num));
	CHECK_STR(num, "127.0.0.1");
	CHECK(proxy_listen_addr("[::1]", 1, &ss, err, sizeof(err)) == 0);
	CHECK(exposure("[::1]") == 0);
	proxy_listen_numeric(&ss, num, sizeof(num));
	CHECK_STR(num, "[::1]");
	CHECK(proxy_listen_addr("10.0.0.1", 1, &ss, err, sizeof(err)) == 0);
	CHECK(exposure("10.0.0.1") == -EPERM);
	CHECK(proxy_listen_addr("::1", 1, &ss, err, sizeof(err)) == -EINVAL);
	CHECK(proxy_listen_addr("[::1", 1, &ss, err, sizeof(err)) == -EINVAL);
	CHECK_STR(err, "--listen: \"[::1\" is not [IPv6]");
	CHECK(proxy_listen_addr("[]", 1, &ss, err, sizeof(err)) == -EINVAL);
	CHECK(proxy_listen_addr("[zz::1]", 1, &ss, err, sizeof(err)) ==
	      -EINVAL);
	CHECK_STR(err, "--listen: \"[zz::1]\" is not an IPv6 address");
	CHECK(proxy_listen_addr("256.0.0.1", 1, &ss, err, sizeof(err)) ==
	      -EINVAL);
}

static void test_exposure(void)
{
	char err[512];
	/* loopback is 127.0.0.0/8 and ::1, judged on the address */
	CHECK(exposure("127.0.0.1") == 0);
	CHECK(exposure("127.1.2.3") == 0);
	CHECK(exposure("[::1]") == 0);
	CHECK(exposure("0.0.0.0") == -EPERM);
	CHECK(exposure("128.0.0.1") == -EPERM);
	CHECK(exposure("[::]") == -EPERM);
	CHECK(exposure("[::2]") == -EPERM);

	struct config cfg = { .listen_host = "127.0.0.1", .listen_port = 8001 };
	CHECK(proxy_listen_check_exposure(&cfg, err, sizeof(err)) == 0);
	cfg.listen_host = "localhost"; /* judged on the address it names */
	CHECK(proxy_listen_check_exposure(&cfg, err, sizeof(err)) == 0);
	cfg.listen_host = "0.0.0.0";
	CHECK(proxy_listen_check_exposure(&cfg, err, sizeof(err)) == -EPERM);
	CHECK(strstr(err, "--listen 0.0.0.0:8001 is not a loopback address") !=
	      NULL);
	cfg.client_auth = CLIENT_AUTH_DELEGATED;
	CHECK(proxy_listen_check_exposure(&cfg, err, sizeof(err)) == 0);
	cfg.client_auth = CLIENT_AUTH_NONE;
	cfg.allow_unauth_remote = true;
	CHECK(proxy_listen_check_exposure(&cfg, err, sizeof(err)) == 0);
}

int main(void)
{
	test_addr();
	test_exposure();
	return check_done("listen");
}
