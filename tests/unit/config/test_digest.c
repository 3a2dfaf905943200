/*
 * test_digest: config_sha256 against the standard's test vectors, the
 * two parts hashed as one, and one context per thread.
 */
#include <pthread.h>
#include <string.h>

#include "check.h"
#include "config/digest.h"

static const char abc_hex[] =
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char empty_hex[] =
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

static void hex(const uint8_t d[CONFIG_SHA256_LEN], char out[65])
{
	static const char x[] = "0123456789abcdef";
	for (int i = 0; i < CONFIG_SHA256_LEN; i++) {
		out[2 * i] = x[d[i] >> 4];
		out[2 * i + 1] = x[d[i] & 15];
	}
	out[64] = '\0';
}

static void test_vectors(void)
{
	uint8_t d[CONFIG_SHA256_LEN];
	char h[65];
	CHECK(config_sha256("abc", 3, NULL, 0, d) == 0);
	hex(d, h);
	CHECK_STR(h, abc_hex);
	CHECK(config_sha256("a", 1, "bc", 2, d) == 0); /* a then b */
	hex(d, h);
	CHECK_STR(h, abc_hex);
	CHECK(config_sha256("", 0, NULL, 0, d) == 0);
	hex(d, h);
	CHECK_STR(h, empty_hex);
	/* a context is reused: the next digest does not carry the last */
	CHECK(config_sha256("abc", 3, NULL, 0, d) == 0);
	hex(d, h);
	CHECK_STR(h, abc_hex);
}

static void *thread_run(void *arg)
{
	int *ok = arg;
	uint8_t d[CONFIG_SHA256_LEN];
	char h[65];
	*ok = 1;
	for (int i = 0; i < 1000; i++) {
		if (config_sha256("ab", 2, "c", 1, d)) {
			*ok = 0;
			break;
		}
		hex(d, h);
		if (strcmp(h, abc_hex)) {
			*ok = 0;
			break;
		}
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t t[4];
	int ok[4];
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, thread_run, &ok[i]) == 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK(ok[i] == 1);
	}
}

int main(void)
{
	test_vectors();
	test_threads();
	return check_done("digest");
}
