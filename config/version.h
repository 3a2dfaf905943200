/*
 * version: what this binary is, for --version, the startup log and the
 * informer_proxy_build_info metric.
 *
 * The Makefile passes the release from the VERSION file and the git
 * commit it was built from (empty outside a git checkout) when it
 * compiles config/version.c, and only that file, so a new commit
 * recompiles one object.
 */
#ifndef CONFIG_VERSION_H
#define CONFIG_VERSION_H

/* The release, e.g. "0.1.0". A static string. */
const char *config_version_release(void);
/* The full git commit hash the binary was built from, or "" when it was
 * not built in a git checkout. A static string. */
const char *config_version_commit(void);

#endif
