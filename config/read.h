/*
 * read: a whole file into memory, with a bound on its size, for the
 * files config/ loads: the kubeconfig, the --config file and the bearer
 * token file.
 */
#ifndef CONFIG_READ_H
#define CONFIG_READ_H

#include <stddef.h>

struct stat;

/*
 * Read the whole file at path (at most max bytes, else -EFBIG; a
 * directory gives -EISDIR) into a NUL-terminated xmalloc'd *out that the
 * caller frees (wiping it first if it may hold secrets), its length into
 * *lenp and its fstat() into *stp (both may be NULL). Returns 0, -ENOMEM
 * or -errno; on failure *out is untouched. Any thread.
 */
int config_read_file(const char *path, size_t max, char **out, size_t *lenp,
		     struct stat *stp);

#endif
