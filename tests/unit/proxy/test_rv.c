/*
 * test_rv: resourceVersion, resourceVersionMatch and sendInitialEvents as
 * the apiserver reads them for a LIST or GET and for a WATCH, its error
 * texts included.
 */
#include <string.h>

#include "proxy/rv.h"
#include "check.h"

static void test_accepted(void)
{
	struct proxy_rv_req q;
	char msg[512];
	CHECK(proxy_rv_parse(NULL, NULL, &q, msg, sizeof(msg)) == PROXY_RV_OK);
	CHECK(!q.rv && !q.any && !q.exact); /* a consistent read */
	CHECK(proxy_rv_parse("", "", &q, msg, sizeof(msg)) == PROXY_RV_OK);
	CHECK(!q.rv && !q.any);
	CHECK(proxy_rv_parse("0", NULL, &q, msg, sizeof(msg)) == PROXY_RV_OK);
	CHECK(q.any && !q.rv);
	CHECK(proxy_rv_parse("42", "NotOlderThan", &q, msg, sizeof(msg)) ==
	      PROXY_RV_OK);
	CHECK(q.rv == 42 && !q.exact && !q.any);
	CHECK(proxy_rv_parse("42", "Exact", &q, msg, sizeof(msg)) ==
	      PROXY_RV_OK);
	CHECK(q.rv == 42 && q.exact);
	CHECK(proxy_rv_parse("0", "NotOlderThan", &q, msg, sizeof(msg)) ==
	      PROXY_RV_OK);
	CHECK(q.any);
}

static void test_refused(void)
{
	struct proxy_rv_req q;
	char msg[512];
	CHECK(proxy_rv_parse("abc", NULL, &q, msg, sizeof(msg)) ==
	      PROXY_RV_SYNTAX);
	CHECK_STR(msg,
		  "resourceVersion: Invalid value: \"abc\": strconv.ParseUint: "
		  "parsing \"abc\": invalid syntax");
	CHECK(proxy_rv_parse("-1", NULL, &q, msg, sizeof(msg)) ==
	      PROXY_RV_SYNTAX);
	CHECK(proxy_rv_parse("12x", NULL, &q, msg, sizeof(msg)) ==
	      PROXY_RV_SYNTAX);
	CHECK(proxy_rv_parse("5", "Bogus", &q, msg, sizeof(msg)) ==
	      PROXY_RV_MATCH);
	CHECK_STR(msg, "Unsupported value: \"Bogus\": supported values: "
		       "\"Exact\", \"NotOlderThan\", \"\"");
	CHECK(proxy_rv_parse(NULL, "Exact", &q, msg, sizeof(msg)) ==
	      PROXY_RV_MATCH);
	CHECK_STR(msg, "Forbidden: resourceVersionMatch is forbidden unless "
		       "resourceVersion is provided");
	CHECK(proxy_rv_parse("", "NotOlderThan", &q, msg, sizeof(msg)) ==
	      PROXY_RV_MATCH);
	CHECK(proxy_rv_parse("0", "Exact", &q, msg, sizeof(msg)) ==
	      PROXY_RV_MATCH);
	CHECK_STR(msg, "Forbidden: resourceVersionMatch \"exact\" is forbidden "
		       "for resourceVersion \"0\"");
	/* the match is case-sensitive, as in the apiserver */
	CHECK(proxy_rv_parse("5", "exact", &q, msg, sizeof(msg)) ==
	      PROXY_RV_MATCH);
	/* every field error at once, one a line, in the apiserver's order */
	CHECK(proxy_rv_parse(NULL, "Bogus", &q, msg, sizeof(msg)) ==
	      PROXY_RV_MATCH);
	CHECK_STR(msg, "Forbidden: resourceVersionMatch is forbidden unless "
		       "resourceVersion is provided\n"
		       "Unsupported value: \"Bogus\": supported values: "
		       "\"Exact\", \"NotOlderThan\", \"\"");
	/* the options are validated before the resourceVersion is parsed */
	CHECK(proxy_rv_parse("abc", "Bogus", &q, msg, sizeof(msg)) ==
	      PROXY_RV_MATCH);
	CHECK(proxy_rv_parse("abc", "Exact", &q, msg, sizeof(msg)) ==
	      PROXY_RV_SYNTAX);
	/* a number past uint64 is out of range, not a syntax error */
	CHECK(proxy_rv_parse("18446744073709551616", NULL, &q, msg,
			     sizeof(msg)) == PROXY_RV_SYNTAX);
	CHECK_STR(msg, "resourceVersion: Invalid value: "
		       "\"18446744073709551616\": strconv.ParseUint: parsing "
		       "\"18446744073709551616\": value out of range");
}

/* A watch's rules: which watches begin with the current state, and the
 * two errors, in the apiserver's order. */
static void test_watch(void)
{
	struct proxy_rv_watch w;
	char msg[512];
	CHECK(proxy_rv_parse_watch(NULL, NULL, NULL, &w, msg, sizeof(msg)) ==
	      PROXY_RV_OK);
	CHECK(!w.has_rv && w.initial && !w.list);
	CHECK(proxy_rv_parse_watch("0", NULL, NULL, &w, msg, sizeof(msg)) ==
	      PROXY_RV_OK);
	CHECK(w.has_rv && w.rv == 0 && w.initial);
	CHECK(proxy_rv_parse_watch("17", NULL, NULL, &w, msg, sizeof(msg)) ==
	      PROXY_RV_OK);
	CHECK(w.has_rv && w.rv == 17 && !w.initial && !w.list);
	/* sendInitialEvents decides, whatever the RV */
	CHECK(proxy_rv_parse_watch("17", "NotOlderThan", "true", &w, msg,
				   sizeof(msg)) == PROXY_RV_OK);
	CHECK(w.rv == 17 && w.initial && w.list);
	CHECK(proxy_rv_parse_watch("", "NotOlderThan", "false", &w, msg,
				   sizeof(msg)) == PROXY_RV_OK);
	CHECK(!w.initial && !w.list);
	CHECK(proxy_rv_parse_watch(NULL, "NotOlderThan", "TRUE", &w, msg,
				   sizeof(msg)) == PROXY_RV_OK);
	CHECK(w.list && w.initial);
	CHECK(proxy_rv_parse_watch(NULL, "NotOlderThan", "yes", &w, msg,
				   sizeof(msg)) == PROXY_RV_OK);
	CHECK(w.list && w.initial);

	/* sendInitialEvents (true or false) needs NotOlderThan */
	CHECK(proxy_rv_parse_watch("0", NULL, "true", &w, msg, sizeof(msg)) ==
	      PROXY_RV_MATCH);
	CHECK_STR(
		msg,
		"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: "
		"Forbidden: sendInitialEvents requires setting "
		"resourceVersionMatch to NotOlderThan");
	CHECK(proxy_rv_parse_watch(NULL, NULL, "false", &w, msg, sizeof(msg)) ==
	      PROXY_RV_MATCH);
	/* Exact: both refusals, in one bracketed message */
	CHECK(proxy_rv_parse_watch("5", "Exact", "true", &w, msg,
				   sizeof(msg)) == PROXY_RV_MATCH);
	CHECK_STR(
		msg,
		"ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: "
		"Forbidden: sendInitialEvents requires setting "
		"resourceVersionMatch to NotOlderThan, resourceVersionMatch: "
		"Unsupported value: \"Exact\": supported values: "
		"\"NotOlderThan\"]");

	CHECK(proxy_rv_parse_watch(NULL, "NotOlderThan", NULL, &w, msg,
				   sizeof(msg)) == PROXY_RV_MATCH);
	CHECK_STR(
		msg,
		"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: "
		"Forbidden: resourceVersionMatch is forbidden for watch unless "
		"sendInitialEvents is provided");
	CHECK(proxy_rv_parse_watch("x1", NULL, NULL, &w, msg, sizeof(msg)) ==
	      PROXY_RV_SYNTAX);
	CHECK_STR(msg, "resourceVersion: Invalid value: \"x1\": "
		       "strconv.ParseUint: parsing \"x1\": invalid syntax");
	CHECK(w.has_rv && w.rv == 0); /* filled even so */
	/* both wrong: the match is reported first */
	CHECK(proxy_rv_parse_watch("x1", "Exact", "", &w, msg, sizeof(msg)) ==
	      PROXY_RV_MATCH);
}

int main(void)
{
	test_accepted();
	test_refused();
	test_watch();
	return check_done("rv");
}
