/*
 * test_table_pod: proxy_table_pod_summary against kubectl's printPod rules, on
 * crafted pods: READY with sidecars, STATUS from the phase, the pod's
 * reason, a scheduling gate, each kind of init container failure, the
 * last container first, "Completed" with a container still running,
 * terminating and lost pods; RESTARTS with the age of the latest
 * termination, and init restarts dropped once the pod is initialized.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cache/json.h"
#include "proxy/table/table_pod_int.h"
#include "check.h"

/* 2026-01-01T00:00:00Z */
#define NOW 1767225600
#define FIVE_MIN_AGO "2025-12-31T23:55:00Z"
#define TWO_HOURS_AGO "2025-12-31T22:00:00Z"

static struct proxy_table_pod_summary sum;

/* The summary of pod into sum; false when the JSON does not parse. */
static bool summary(const char *pod)
{
	struct json_doc d = JSON_DOC_INIT;
	memset(&sum, 0x55, sizeof(sum));
	if (json_parse(&d, pod, strlen(pod), NULL, 0)) {
		json_doc_free(&d);
		return false;
	}
	proxy_table_pod_summary(&d, NOW, &sum);
	json_doc_free(&d);
	return true;
}

#define RUNNING(name)                                               \
	"{\"name\":\"" name "\",\"ready\":true,\"restartCount\":0," \
	"\"state\":{\"running\":{\"startedAt\":\"" TWO_HOURS_AGO "\"}}}"
#define TWO_CONTAINERS "\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]"
#define READY_TRUE "{\"type\":\"Ready\",\"status\":\"True\"}"

static void test_running(void)
{
	CHECK(summary(
		"{\"spec\":{" TWO_CONTAINERS "},\"status\":{"
		"\"phase\":\"Running\",\"conditions\":[" READY_TRUE "],"
		"\"containerStatuses\":[" RUNNING("a") "," RUNNING("b") "]}}"));
	CHECK(sum.ready == 2 && sum.total == 2);
	CHECK_STR(sum.status, "Running");
	CHECK_STR(sum.restarts, "0");
	CHECK(sum.done == NULL);

	/* a running container that is not ready does not count */
	CHECK(summary("{\"spec\":{" TWO_CONTAINERS "},\"status\":{"
		      "\"phase\":\"Running\",\"containerStatuses\":[" RUNNING(
			      "a") ",{\"name\":\"b\",\"ready\":false,"
				   "\"state\":{\"running\":{}}}]}}"));
	CHECK(sum.ready == 1 && sum.total == 2);
	CHECK_STR(sum.status, "Running");
}

static void test_empty(void)
{
	CHECK(summary("{}"));
	CHECK(sum.ready == 0 && sum.total == 0);
	CHECK_STR(sum.status, "");
	CHECK_STR(sum.restarts, "0");
	CHECK(sum.done == NULL);
}

static void test_restarts(void)
{
	/* with a last termination: its age */
	CHECK(summary("{\"spec\":{" TWO_CONTAINERS "},\"status\":{"
		      "\"phase\":\"Running\",\"containerStatuses\":["
		      "{\"name\":\"a\",\"restartCount\":2,\"lastState\":{"
		      "\"terminated\":{\"finishedAt\":\"" TWO_HOURS_AGO "\"}},"
		      "\"ready\":true,\"state\":{\"running\":{}}},"
		      "{\"name\":\"b\",\"restartCount\":1,\"lastState\":{"
		      "\"terminated\":{\"finishedAt\":\"" FIVE_MIN_AGO "\"}},"
		      "\"ready\":true,\"state\":{\"running\":{}}}]}}"));
	CHECK_STR(sum.restarts, "3 (5m ago)"); /* the latest of the two */
	CHECK(sum.ready == 2);
	/* without one: the count alone */
	CHECK(summary("{\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
		      "\"status\":{\"phase\":\"Running\",\"containerStatuses\":"
		      "[{\"name\":\"a\",\"restartCount\":4}]}}"));
	CHECK_STR(sum.restarts, "4");
}

/* The pod's reason, a scheduling gate, the terminal phases. */
static void test_phase_and_reason(void)
{
	CHECK(summary("{\"status\":{\"phase\":\"Failed\",\"reason\":"
		      "\"Evicted\"}}"));
	CHECK_STR(sum.status, "Evicted");
	CHECK_STR(sum.done, "Failed");
	CHECK(summary("{\"status\":{\"phase\":\"Succeeded\"}}"));
	CHECK_STR(sum.status, "Succeeded");
	CHECK_STR(sum.done, "Succeeded");
	CHECK(summary("{\"status\":{\"phase\":\"Pending\",\"conditions\":["
		      "{\"type\":\"PodScheduled\",\"status\":\"False\","
		      "\"reason\":\"SchedulingGated\"}]}}"));
	CHECK_STR(sum.status, "SchedulingGated");
	CHECK(sum.done == NULL);
	/* the reason of another condition type does not count */
	CHECK(summary("{\"status\":{\"phase\":\"Pending\",\"conditions\":["
		      "{\"type\":\"Ready\",\"status\":\"False\","
		      "\"reason\":\"SchedulingGated\"}]}}"));
	CHECK_STR(sum.status, "Pending");
}

#define THREE_INITS                                                \
	"\"initContainers\":[{\"name\":\"i0\"},{\"name\":\"i1\"}," \
	"{\"name\":\"i2\"}],\"containers\":[{\"name\":\"a\"}]"
#define INIT_DONE(name) \
	"{\"name\":\"" name "\",\"state\":{\"terminated\":{\"exitCode\":0}}}"

static const char *init_status(const char *second)
{
	static char pod[1024];
	snprintf(pod, sizeof(pod),
		 "{\"spec\":{" THREE_INITS "},\"status\":{\"phase\":"
		 "\"Pending\",\"initContainerStatuses\":[" INIT_DONE(
			 "i0") ",%s,{\"name\":\"i2\",\"state\":{\"waiting\":"
			       "{\"reason\":\"PodInitializing\"}}}],"
			       "\"containerStatuses\":[{\"name\":\"a\","
			       "\"state\":{\"waiting\":{\"reason\":"
			       "\"PodInitializing\"}}}]}}",
		 second);
	return pod;
}

static void test_init(void)
{
	/* the first unfinished one decides, numbered from 0 */
	CHECK(summary(init_status("{\"name\":\"i1\",\"state\":{\"waiting\":"
				  "{\"reason\":\"PodInitializing\"}}}")));
	CHECK_STR(sum.status, "Init:1/3");
	CHECK(summary(init_status("{\"name\":\"i1\",\"state\":{\"running\":"
				  "{}}}")));
	CHECK_STR(sum.status, "Init:1/3");
	CHECK(summary(init_status("{\"name\":\"i1\",\"state\":{\"waiting\":"
				  "{\"reason\":\"CrashLoopBackOff\"}}}")));
	CHECK_STR(sum.status, "Init:CrashLoopBackOff");
	CHECK(summary(init_status("{\"name\":\"i1\",\"state\":{\"terminated\":"
				  "{\"reason\":\"Error\",\"exitCode\":1}}}")));
	CHECK_STR(sum.status, "Init:Error");
	CHECK(summary(init_status("{\"name\":\"i1\",\"state\":{\"terminated\":"
				  "{\"signal\":9,\"exitCode\":137}}}")));
	CHECK_STR(sum.status, "Init:Signal:9");
	CHECK(summary(init_status("{\"name\":\"i1\",\"state\":{\"terminated\":"
				  "{\"exitCode\":2}}}")));
	CHECK_STR(sum.status, "Init:ExitCode:2");
	CHECK(sum.ready == 0 && sum.total == 1);
	/* two done: the third, numbered 2, is next */
	CHECK(summary(init_status(INIT_DONE("i1"))));
	CHECK_STR(sum.status, "Init:2/3");
}

/* Init restarts count while initializing, not after; an Initialized pod
 * whose init container fails again keeps the Init: status. */
static void test_init_restarts(void)
{
	CHECK(summary("{\"spec\":{\"initContainers\":[{\"name\":\"i\"}],"
		      "\"containers\":[{\"name\":\"a\"}]},\"status\":{"
		      "\"phase\":\"Pending\",\"initContainerStatuses\":[{"
		      "\"name\":\"i\",\"restartCount\":3,\"state\":{"
		      "\"waiting\":{\"reason\":\"CrashLoopBackOff\"}}}],"
		      "\"containerStatuses\":[{\"name\":\"a\","
		      "\"restartCount\":1}]}}"));
	CHECK_STR(sum.status, "Init:CrashLoopBackOff");
	CHECK_STR(sum.restarts, "3");
	CHECK(summary("{\"spec\":{\"initContainers\":[{\"name\":\"i\"}],"
		      "\"containers\":[{\"name\":\"a\"}]},\"status\":{"
		      "\"phase\":\"Running\",\"conditions\":[{\"type\":"
		      "\"Initialized\",\"status\":\"True\"}],"
		      "\"initContainerStatuses\":[{"
		      "\"name\":\"i\",\"restartCount\":3,\"state\":{"
		      "\"waiting\":{\"reason\":\"CrashLoopBackOff\"}}}],"
		      "\"containerStatuses\":[{\"name\":\"a\",\"ready\":true,"
		      "\"restartCount\":1,\"state\":{\"running\":{}}}]}}"));
	CHECK_STR(sum.status, "Init:CrashLoopBackOff");
	CHECK_STR(sum.restarts, "1");
	CHECK(sum.ready == 1);
}

/* A restartable init container (a sidecar) is a container for READY and
 * RESTARTS once started. */
static void test_sidecar(void)
{
	CHECK(summary(
		"{\"spec\":{\"initContainers\":[{\"name\":\"s\","
		"\"restartPolicy\":\"Always\"},{\"name\":\"i\"}],"
		"\"containers\":[{\"name\":\"a\"}]},\"status\":{\"phase\":"
		"\"Running\",\"initContainerStatuses\":[{\"name\":\"s\","
		"\"started\":true,\"ready\":true,\"restartCount\":2,"
		"\"lastState\":{\"terminated\":{\"finishedAt\":\"" FIVE_MIN_AGO
		"\"}},\"state\":{\"running\":{}}}," INIT_DONE(
			"i") "],"
			     "\"containerStatuses\":[" RUNNING("a") "]}}"));
	CHECK(sum.ready == 2 && sum.total == 2);
	CHECK_STR(sum.status, "Running");
	CHECK_STR(sum.restarts, "2 (5m ago)");
	/* not started yet: it holds the pod in Init */
	CHECK(summary(
		"{\"spec\":{\"initContainers\":[{\"name\":\"s\","
		"\"restartPolicy\":\"Always\"}],"
		"\"containers\":[{\"name\":\"a\"}]},\"status\":{\"phase\":"
		"\"Pending\",\"initContainerStatuses\":[{\"name\":\"s\","
		"\"started\":false,\"state\":{\"running\":{}}}]}}"));
	CHECK(sum.ready == 0 && sum.total == 2);
	CHECK_STR(sum.status, "Init:0/1");
}

static void test_containers(void)
{
	/* the last container is looked at first, so the first one's
	 * reason wins */
	CHECK(summary("{\"spec\":{" TWO_CONTAINERS "},\"status\":{"
		      "\"phase\":\"Running\",\"containerStatuses\":["
		      "{\"name\":\"a\",\"state\":{\"waiting\":{\"reason\":"
		      "\"ErrImagePull\"}}},{\"name\":\"b\",\"state\":{"
		      "\"waiting\":{\"reason\":\"CrashLoopBackOff\"}}}]}}"));
	CHECK_STR(sum.status, "ErrImagePull");
	CHECK(sum.ready == 0);
	CHECK(summary("{\"spec\":{" TWO_CONTAINERS "},\"status\":{"
		      "\"phase\":\"Running\",\"containerStatuses\":["
		      "{\"name\":\"a\",\"state\":{\"terminated\":{"
		      "\"signal\":15,\"exitCode\":143}}}," RUNNING("b") "]}}"));
	CHECK_STR(sum.status, "Signal:15");
	CHECK(sum.ready == 1);
	CHECK(summary("{\"spec\":{" TWO_CONTAINERS "},\"status\":{"
		      "\"phase\":\"Running\",\"containerStatuses\":["
		      "{\"name\":\"a\",\"state\":{\"terminated\":{"
		      "\"exitCode\":137}}}," RUNNING("b") "]}}"));
	CHECK_STR(sum.status, "ExitCode:137");
	/* Completed while another still runs: Running or NotReady, by the
	 * pod's Ready condition */
	static const char completed[] =
		"{\"spec\":{" TWO_CONTAINERS "},\"status\":{"
		"\"phase\":\"Running\",\"conditions\":[%s],"
		"\"containerStatuses\":[{\"name\":\"a\",\"state\":{"
		"\"terminated\":{\"reason\":\"Completed\",\"exitCode\":0}}},"
		"" RUNNING("b") "]}}";
	char pod[1024];
	snprintf(pod, sizeof(pod), completed, READY_TRUE);
	CHECK(summary(pod));
	CHECK_STR(sum.status, "Running");
	snprintf(pod, sizeof(pod), completed,
		 "{\"type\":\"Ready\",\"status\":\"False\"}");
	CHECK(summary(pod));
	CHECK_STR(sum.status, "NotReady");
	CHECK(sum.ready == 1 && sum.total == 2);
}

static void test_deleted(void)
{
	CHECK(summary("{\"metadata\":{\"deletionTimestamp\":\"" FIVE_MIN_AGO
		      "\"},\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
		      "\"status\":{\"phase\":\"Running\",\"containerStatuses\":"
		      "[" RUNNING("a") "]}}"));
	CHECK_STR(sum.status, "Terminating");
	CHECK(sum.ready == 1);
	CHECK(summary("{\"metadata\":{\"deletionTimestamp\":\"" FIVE_MIN_AGO
		      "\"},\"status\":{\"phase\":\"Running\",\"reason\":"
		      "\"NodeLost\"}}"));
	CHECK_STR(sum.status, "Unknown");
	/* a finished pod being deleted keeps its phase */
	CHECK(summary("{\"metadata\":{\"deletionTimestamp\":\"" FIVE_MIN_AGO
		      "\"},\"status\":{\"phase\":\"Succeeded\"}}"));
	CHECK_STR(sum.status, "Succeeded");
	/* a null deletionTimestamp is no deletion */
	CHECK(summary("{\"metadata\":{\"deletionTimestamp\":null},"
		      "\"status\":{\"phase\":\"Running\"}}"));
	CHECK_STR(sum.status, "Running");
}

int main(void)
{
	test_running();
	test_empty();
	test_restarts();
	test_phase_and_reason();
	test_init();
	test_init_restarts();
	test_sidecar();
	test_containers();
	test_deleted();
	return check_done("table_pod");
}
