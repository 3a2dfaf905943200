/*
 * read: a whole file into memory (see read.h). One open and one fstat,
 * so the size checked is the size of the file read, and the stat handed
 * back describes the same inode (the token file cache compares it).
 */
#include "config/read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/alloc.h"

int config_read_file(const char *path, size_t max, char **out, size_t *lenp,
		     struct stat *stp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	int rc = 0;
	char *p = NULL;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
		goto out;
	}
	if (st.st_size > (off_t)max) {
		rc = -EFBIG;
		goto out;
	}
	size_t cap = (size_t)st.st_size + 1, len = 0;
	p = xmalloc(cap);
	if (!p) {
		rc = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, p + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == cap - 1)
			break; /* grew since fstat: keep what it said */
	}
	p[len] = '\0';
	*out = p;
	p = NULL;
	if (lenp)
		*lenp = len;
	if (stp)
		*stp = st;
out:
	free(p);
	close(fd);
	return rc;
}
