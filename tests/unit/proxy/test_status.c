/*
 * test_status: the Status bodies the proxy answers errors with, byte for
 * byte as the apiserver writes them.
 */
#include <string.h>

#include "proxy/status.h"
#include "check.h"

static void test_bodies(void)
{
	struct buf b = BUF_INIT;
	struct proxy_status st = {
		.reason = PROXY_NotFound,
		.message = "pods \"x\" not found",
		.details = "{\"name\":\"x\",\"kind\":\"pods\"}"
	};
	proxy_status_body(&b, &st);
	CHECK_STR(
		b.p,
		"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		"\"status\":\"Failure\",\"message\":\"pods \\\"x\\\" not found\","
		"\"reason\":\"NotFound\",\"details\":{\"name\":\"x\",\"kind\":\"pods\"},"
		"\"code\":404}\n");
	buf_reset(&b);

	/* an unparsable resourceVersion: 500 with no reason */
	st = (struct proxy_status){ .reason = PROXY_InternalError,
				    .message = "m",
				    .no_reason = true };
	proxy_status_body(&b, &st);
	CHECK_STR(b.p,
		  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		  "\"status\":\"Failure\",\"message\":\"m\",\"code\":500}\n");
	buf_reset(&b);

	/* every reason carries its own code */
	static const struct {
		enum proxy_reason r;
		const char *tail;
	} codes[] = {
		{ PROXY_BadRequest,
		  "\"reason\":\"BadRequest\",\"code\":400}\n" },
		{ PROXY_Expired, "\"reason\":\"Expired\",\"code\":410}\n" },
		{ PROXY_Invalid, "\"reason\":\"Invalid\",\"code\":422}\n" },
		{ PROXY_TooManyRequests,
		  "\"reason\":\"TooManyRequests\",\"code\":429}\n" },
		{ PROXY_Timeout, "\"reason\":\"Timeout\",\"code\":504}\n" },
	};
	for (size_t i = 0; i < sizeof(codes) / sizeof(*codes); i++) {
		st = (struct proxy_status){ .reason = codes[i].r,
					    .message = NULL,
					    .metadata = "{\"x\":1}" };
		buf_reset(&b);
		proxy_status_body(&b, &st);
		size_t n = strlen(codes[i].tail);
		CHECK(b.len > n && !strcmp(b.p + b.len - n, codes[i].tail));
		CHECK(strstr(b.p, "\"metadata\":{\"x\":1},") != NULL);
		CHECK(strstr(b.p, "\"message\":\"\"") != NULL);
	}
	buf_free(&b);
}

#define TYPES \
	"application/json, application/yaml, application/vnd.kubernetes.protobuf"
#define ROUTER "406: Not Acceptable\n\nAvailable representations: "
#define NEGOTIATOR "only the following media types are accepted: "

/* The apiserver's 406s: its router refuses an Accept that names no type
 * the route produces (empty details), its negotiator one whose types it
 * cannot write as asked; the body is indented when no entry of Accept
 * can carry the Status itself. */
static void test_not_acceptable(void)
{
	static const struct {
		const char *accept;
		enum proxy_na_route route;
		const char *msg;
		bool details, indent;
	} cases[] = {
		/* a GET with application/x-protobuf: nothing to route to,
		 * nothing to write the error in */
		{ "application/x-protobuf", PROXY_NA_OBJECT, ROUTER TYPES, true,
		  true },
		/* "application/ *" is no route, but carries the error */
		{ "application/*", PROXY_NA_OBJECT, ROUTER TYPES, true, false },
		{ "text/html", PROXY_NA_COLLECTION,
		  ROUTER TYPES
		  ", application/json;stream=watch, "
		  "application/vnd.kubernetes.protobuf;stream=watch",
		  true, true },
		/* a Table in protobuf: routed, refused by the negotiator,
		 * and the error cannot be a Table */
		{ "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io",
		  PROXY_NA_COLLECTION, NEGOTIATOR TYPES, false, true },
		{ "application/json;as=Bogus;v=v1;g=meta.k8s.io, text/html",
		  PROXY_NA_OBJECT, NEGOTIATOR TYPES, false, true },
		{ "application/json;as=Bogus;v=v1;g=meta.k8s.io, */*;q=0.1",
		  PROXY_NA_OBJECT, NEGOTIATOR TYPES, false, false },
		/* YAML has no watch stream */
		{ "application/yaml", PROXY_NA_WATCH,
		  NEGOTIATOR "application/json;stream=watch, "
			     "application/vnd.kubernetes.protobuf;stream=watch",
		  false, false },
		/* YAML first: the negotiator picks it, the stream refuses it */
		{ "application/yaml, application/json", PROXY_NA_WATCH,
		  NEGOTIATOR "application/json;stream=watch, "
			     "application/vnd.kubernetes.protobuf;stream=watch",
		  false, false },
		{ "application/yaml;q=0.5, application/json", PROXY_NA_WATCH,
		  NEGOTIATOR TYPES, false, false },
		/* a stream of YAML is refused by the first negotiation
		 * already, and cannot carry the Status either */
		{ " application/yaml ; stream=watch", PROXY_NA_WATCH,
		  NEGOTIATOR TYPES, false, true },
	};
	/* the router: parameters aside, exact types or * / * */
	CHECK(proxy_status_accept_routed(NULL));
	CHECK(proxy_status_accept_routed(""));
	CHECK(proxy_status_accept_routed("application/json;as=Table;v=v1;"
					 "g=meta.k8s.io,application/json"));
	CHECK(proxy_status_accept_routed("text/html, */*;q=0.8"));
	CHECK(proxy_status_accept_routed(" application/yaml ;q=0.5"));
	CHECK(!proxy_status_accept_routed("application/*"));
	CHECK(!proxy_status_accept_routed("Application/JSON"));
	CHECK(!proxy_status_accept_routed("application/x-protobuf, text/*"));
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct proxy_status st;
		proxy_status_not_acceptable(&st, cases[i].accept,
					    cases[i].route);
		CHECK(st.reason == PROXY_NotAcceptable);
		CHECK_STR(st.message, cases[i].msg);
		CHECK(!!st.details == cases[i].details);
		if (st.details)
			CHECK_STR(st.details, "{}");
		CHECK(st.indent == cases[i].indent);
	}
}

int main(void)
{
	test_bodies();
	test_not_acceptable();
	return check_done("status");
}
