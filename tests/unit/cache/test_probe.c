/*
 * test_probe: reading the upstream's current resourceVersion with one
 * limit=1 LIST, and every answer that must not yield one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cache/kind.h"
#include "cache/probe.h"
#include "http_stub.h"
#include "check.h"

#define JSON_200(body)                                          \
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" \
	"Connection: close\r\n\r\n" body

int main(void)
{
	struct http_stub_route routes[] = {
		{ .match = "GET /api/v1/pods?limit=1 ",
		  .response = JSON_200(
			  "{\"kind\":\"PodList\",\"metadata\":"
			  "{\"resourceVersion\":\"4242\"},\"items\":[]}") },
		{ .match = "GET /apis/apps/v1/deployments?limit=1 ",
		  .response = JSON_200("{\"metadata\":{}}") },
		{ .match = "GET /api/v1/configmaps?limit=1 ",
		  .response = JSON_200(
			  "{\"metadata\":{\"resourceVersion\":\"x1\"}}") },
		{ .match = "GET /api/v1/secrets?limit=1 ",
		  .response = JSON_200("{\"metadata\":") },
		{ .match = "GET /api/v1/nodes?limit=1 ",
		  .response = "HTTP/1.1 410 Gone\r\nConnection: close\r\n"
			      "Content-Length: 2\r\n\r\n{}" },
	};
	struct http_stub s;
	CHECK(http_stub_start(&s, routes, 5) == 0);
	char server[64], err[256] = "";
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", s.port);
	struct cache_upstream up = { .server = server };
	uint64_t rv = 7;

	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("pods"), NULL,
				      NULL, &rv, err, sizeof(err)) == 0 &&
	      rv == 4242);
	rv = 7;
	CHECK(cache_probe_upstream_rv(
		      &up, cache_kind_lookup("deployments.apps"), NULL, NULL,
		      &rv, err, sizeof(err)) == -EIO);
	CHECK_STR(err, "the upstream answered 200 without a resourceVersion");
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("configmaps"),
				      NULL, NULL, &rv, err,
				      sizeof(err)) == -EIO);
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("secrets"), NULL,
				      NULL, &rv, err, sizeof(err)) == -EIO);
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("nodes"), NULL,
				      NULL, &rv, err, sizeof(err)) == -EIO);
	CHECK_STR(err, "the upstream answered 410 without a resourceVersion");
	CHECK(rv == 7);
	CHECK(http_stub_count(&s) == 5);
	http_stub_stop(&s);

	err[0] = '\0';
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("pods"), NULL,
				      NULL, &rv, err, sizeof(err)) == -EIO);
	CHECK(strstr(err, "GET /api/v1/pods?limit=1: ") == err);
	/* a namespaced scope asks its namespace only */
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("pods"), "team-a",
				      NULL, &rv, err, sizeof(err)) == -EIO);
	CHECK(strstr(err, "GET /api/v1/namespaces/team-a/pods?limit=1: ") ==
	      err);
	bool stop = true;
	CHECK(cache_probe_upstream_rv(&up, cache_kind_lookup("pods"), NULL,
				      &stop, &rv, err, sizeof(err)) == -EIO);
	return check_done("probe");
}
