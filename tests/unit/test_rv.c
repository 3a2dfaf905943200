/*
 * test_rv: resourceVersion and resourceVersionMatch as the apiserver
 * reads them for a LIST or GET, its error texts included.
 */
#include <string.h>

#include "proxy/rv.h"
#include "check.h"

static void test_accepted(void)
{
	struct proxy_rv_req q;
	char msg[512];
	CHECK(proxy_rv_parse(NULL, NULL, &q, msg, sizeof(msg)) == PROXY_RV_OK);
	CHECK(!q.rv && !q.any && !q.exact);	/* a consistent read */
	CHECK(proxy_rv_parse("", "", &q, msg, sizeof(msg)) == PROXY_RV_OK);
	CHECK(!q.rv && !q.any);
	CHECK(proxy_rv_parse("0", NULL, &q, msg, sizeof(msg)) == PROXY_RV_OK);
	CHECK(q.any && !q.rv);
	CHECK(proxy_rv_parse("42", "NotOlderThan", &q, msg, sizeof(msg)) == PROXY_RV_OK);
	CHECK(q.rv == 42 && !q.exact && !q.any);
	CHECK(proxy_rv_parse("42", "Exact", &q, msg, sizeof(msg)) == PROXY_RV_OK);
	CHECK(q.rv == 42 && q.exact);
	CHECK(proxy_rv_parse("0", "NotOlderThan", &q, msg, sizeof(msg)) == PROXY_RV_OK);
	CHECK(q.any);
}

static void test_refused(void)
{
	struct proxy_rv_req q;
	char msg[512];
	CHECK(proxy_rv_parse("abc", NULL, &q, msg, sizeof(msg)) == PROXY_RV_SYNTAX);
	CHECK_STR(msg, "resourceVersion: Invalid value: \"abc\": strconv.ParseUint: "
		       "parsing \"abc\": invalid syntax");
	CHECK(proxy_rv_parse("-1", NULL, &q, msg, sizeof(msg)) == PROXY_RV_SYNTAX);
	CHECK(proxy_rv_parse("12x", NULL, &q, msg, sizeof(msg)) == PROXY_RV_SYNTAX);
	CHECK(proxy_rv_parse("5", "Bogus", &q, msg, sizeof(msg)) == PROXY_RV_MATCH);
	CHECK_STR(msg, "Unsupported value: \"Bogus\": supported values: "
		       "\"Exact\", \"NotOlderThan\", \"\"");
	CHECK(proxy_rv_parse(NULL, "Exact", &q, msg, sizeof(msg)) == PROXY_RV_MATCH);
	CHECK_STR(msg, "Forbidden: resourceVersionMatch is forbidden unless "
		       "resourceVersion is provided");
	CHECK(proxy_rv_parse("", "NotOlderThan", &q, msg, sizeof(msg)) == PROXY_RV_MATCH);
	CHECK(proxy_rv_parse("0", "Exact", &q, msg, sizeof(msg)) == PROXY_RV_MATCH);
	CHECK_STR(msg, "Forbidden: resourceVersionMatch \"exact\" is forbidden "
		       "for resourceVersion \"0\"");
	/* the match is case-sensitive, as in the apiserver */
	CHECK(proxy_rv_parse("5", "exact", &q, msg, sizeof(msg)) == PROXY_RV_MATCH);
}

int main(void)
{
	test_accepted();
	test_refused();
	return check_done("rv");
}
