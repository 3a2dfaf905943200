/*
 * digest: SHA-256 for cache and pool keys (see digest.h).
 */
#include "config/digest.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <openssl/evp.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t ctx_key;
static EVP_MD *md; /* set once; lives as long as the process */

static void ctx_free(void *ctx)
{
	EVP_MD_CTX_free(ctx);
}

static void init(void)
{
	if (pthread_key_create(&ctx_key, ctx_free))
		abort();
	md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

int config_sha256(const void *a, size_t an, const void *b, size_t bn,
		  uint8_t out[CONFIG_SHA256_LEN])
{
	unsigned len = CONFIG_SHA256_LEN;
	pthread_once(&once, init);
	if (!md)
		return -ENOMEM;
	EVP_MD_CTX *c = pthread_getspecific(ctx_key);
	if (!c && (c = EVP_MD_CTX_new()) && pthread_setspecific(ctx_key, c)) {
		EVP_MD_CTX_free(c);
		c = NULL;
	}
	return c && EVP_DigestInit_ex(c, md, NULL) &&
			       EVP_DigestUpdate(c, a, an) &&
			       (!bn || EVP_DigestUpdate(c, b, bn)) &&
			       EVP_DigestFinal_ex(c, out, &len) &&
			       len == CONFIG_SHA256_LEN ?
		       0 :
		       -ENOMEM;
}
