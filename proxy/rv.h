/*
 * rv: the resourceVersion rules of a LIST or GET, as the apiserver
 * applies them.
 *
 * resourceVersion is unset (a consistent read), "0" (any state will do)
 * or N (a state at least as new as N; exactly N with
 * resourceVersionMatch=Exact). resourceVersionMatch must be Exact,
 * NotOlderThan or empty, needs a resourceVersion, and Exact refuses "0".
 *
 * Threads: the _parse functions are pure (any thread). The _read
 * functions run on the libmicrohttpd thread serving c, and on a bad value
 * queue the Status answer themselves (reply.h); they never suspend c.
 */
#ifndef PROXY_RV_H
#define PROXY_RV_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proxy_rv_req {
	bool exact;	/* resourceVersionMatch=Exact */
	bool not_older; /* resourceVersionMatch=NotOlderThan, said so */
	bool any;	/* "0": any state will do */
	uint64_t rv;	/* 0 = unset */
};

enum proxy_rv_error {
	PROXY_RV_OK,
	PROXY_RV_SYNTAX, /* resourceVersion is not a number: the
				 * apiserver answers 500 with no reason */
	PROXY_RV_MATCH,	 /* resourceVersionMatch refused: 422 */
};

/* Parse the two values (NULL or "" when absent) into q. On an error msg
 * holds the apiserver's text: the whole message for PROXY_RV_SYNTAX, the
 * field error ("Unsupported value: ..." or "Forbidden: ...") for
 * PROXY_RV_MATCH. */
enum proxy_rv_error proxy_rv_parse(const char *rv, const char *match,
				   struct proxy_rv_req *q, char *msg,
				   size_t msglen);

/* Read resourceVersion and resourceVersionMatch from the query. Returns
 * true, or false after queueing the error answer in *res. */
bool proxy_rv_read(struct MHD_Connection *c, struct proxy_rv_req *q,
		   enum MHD_Result *res);

/*
 * A WATCH reads the same parameters by other rules: resourceVersionMatch
 * only with sendInitialEvents; sendInitialEvents=true makes a watch-list
 * (initial state, then events), and without it a watch begins with the
 * initial state exactly when resourceVersion is unset or "0".
 */
struct proxy_rv_watch {
	bool has_rv;  /* resourceVersion given (not "") */
	uint64_t rv;  /* its value; 0 for "0" or a bad value */
	bool list;    /* sendInitialEvents=true */
	bool initial; /* begins with the current state as ADDED */
};

/* Parse the three values into w, which is filled even on an error: rv
 * and match NULL or "" when absent, sie NULL when absent (present, any
 * value but "", "0" and "false" is true). Errors, with msg the whole
 * message: PROXY_RV_MATCH (422) for what apimachinery's validation
 * refuses (sendInitialEvents without resourceVersionMatch=NotOlderThan,
 * resourceVersionMatch without sendInitialEvents or other than
 * NotOlderThan; several at once in one message), then PROXY_RV_SYNTAX
 * (500, no reason, as a LIST's) for a resourceVersion that is not a
 * number. */
enum proxy_rv_error proxy_rv_parse_watch(const char *rv, const char *match,
					 const char *sie,
					 struct proxy_rv_watch *w, char *msg,
					 size_t msglen);
/* Read them from the query. Returns true, or false after queueing the
 * error answer in *res. */
bool proxy_rv_read_watch(struct MHD_Connection *c, struct proxy_rv_watch *w,
			 enum MHD_Result *res);

#endif
