/*
 * test_histogram: the lock-free histogram: which bucket a value lands in
 * (upper bounds inclusive, as Prometheus's le), cumulative buckets and
 * the scaled sum on output, observations from several threads at once,
 * and the bounded label sets of codes and verbs.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "config/buf.h"
#include "config/histogram.h"
#include "check.h"

static const struct config_histogram_bounds b = { .n = 3,
						  .le = { 0.1, 1, 10 },
						  .unit = 1e-3 };

static void test_buckets(void)
{
	struct config_histogram h;
	memset(&h, 0, sizeof(h));
	config_histogram_observe(&h, &b, 0.05, 50);  /* <= 0.1 */
	config_histogram_observe(&h, &b, 0.1, 100);  /* le is inclusive */
	config_histogram_observe(&h, &b, 5, 5000);   /* <= 10 */
	config_histogram_observe(&h, &b, 11, 11000); /* +Inf */
	CHECK(config_histogram_count(&h, &b) == 4);
	struct buf out = BUF_INIT;
	config_histogram_write(&out, "x_seconds", "a=\"b\"", &h, &b);
	CHECK_STR(out.p, "x_seconds_bucket{a=\"b\",le=\"0.1\"} 2\n"
			 "x_seconds_bucket{a=\"b\",le=\"1\"} 2\n"
			 "x_seconds_bucket{a=\"b\",le=\"10\"} 3\n"
			 "x_seconds_bucket{a=\"b\",le=\"+Inf\"} 4\n"
			 "x_seconds_sum{a=\"b\"} 16.15\n"
			 "x_seconds_count{a=\"b\"} 4\n");
	buf_reset(&out);
	config_histogram_write(&out, "y", "", &h, &b); /* no labels */
	CHECK(strstr(out.p,
		     "y_bucket{le=\"+Inf\"} 4\ny_sum 16.15\ny_count 4\n") !=
	      NULL);
	buf_free(&out);
}

static struct config_histogram shared;

static void *hammer(void *arg)
{
	for (int i = 0; i < 100000; i++)
		config_histogram_observe(&shared, &b, i % 2 ? 0.5 : 50, 1);
	return arg;
}

static void test_threads(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, hammer, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK(config_histogram_count(&shared, &b) == 400000);
	CHECK(shared.counts[1] == 200000 && shared.counts[3] == 200000);
	CHECK(shared.sum == 400000);
}

static void test_labels(void)
{
	CHECK_STR(config_histogram_code_name(config_histogram_code_slot(200)),
		  "200");
	CHECK_STR(config_histogram_code_name(config_histogram_code_slot(410)),
		  "410");
	CHECK_STR(config_histogram_code_name(config_histogram_code_slot(418)),
		  "other");
	CHECK_STR(
		config_histogram_code_name(config_histogram_code_slot(999999)),
		"other");
	CHECK_STR(config_histogram_code_name(config_histogram_code_slot(0)),
		  "error");
	CHECK_STR(config_histogram_code_name(config_histogram_code_slot(-1)),
		  "error");
	CHECK_STR(config_histogram_code_name(-5), "other");
	CHECK_STR(config_histogram_verb_name(
			  config_histogram_verb_slot("GET", true, false)),
		  "get");
	CHECK_STR(config_histogram_verb_name(
			  config_histogram_verb_slot("GET", false, false)),
		  "list");
	CHECK_STR(config_histogram_verb_name(
			  config_histogram_verb_slot("HEAD", false, true)),
		  "watch");
	CHECK_STR(config_histogram_verb_name(
			  config_histogram_verb_slot("POST", false, false)),
		  "create");
	CHECK_STR(config_histogram_verb_name(
			  config_histogram_verb_slot("PUT", true, false)),
		  "update");
	CHECK_STR(config_histogram_verb_name(
			  config_histogram_verb_slot("PATCH", true, false)),
		  "patch");
	CHECK_STR(config_histogram_verb_name(
			  config_histogram_verb_slot("DELETE", true, false)),
		  "delete");
	CHECK_STR(config_histogram_verb_name(
			  config_histogram_verb_slot("DELETE", false, false)),
		  "deletecollection");
	CHECK_STR(config_histogram_verb_name(
			  config_histogram_verb_slot("BREW", true, false)),
		  "other");
}

int main(void)
{
	test_buckets();
	test_threads();
	test_labels();
	return check_done("histogram");
}
