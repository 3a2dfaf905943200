/*
 * version: the release and commit the Makefile compiled in (version.h).
 */
#include "config/version.h"

#ifndef INFORMER_PROXY_VERSION
#define INFORMER_PROXY_VERSION "unknown"
#endif
#ifndef INFORMER_PROXY_COMMIT
#define INFORMER_PROXY_COMMIT ""
#endif

const char *config_version_release(void)
{
	return INFORMER_PROXY_VERSION;
}

const char *config_version_commit(void)
{
	return INFORMER_PROXY_COMMIT;
}
