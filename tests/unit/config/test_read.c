/*
 * test_read: config_read_file(): a whole file with its length and stat,
 * a file over the bound, a directory, a missing file, and allocation
 * failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/read.h"
#include "check.h"
#include "scratch.h"


static void test_read_file(void)
{
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	scratch_put_n("f", "12345", 5);
	CHECK(config_read_file(scratch_at("f"), 100, &text, &len, &st) == 0);
	CHECK(len == 5 && !strcmp(text, "12345") && st.st_size == 5);
	free(text);
	CHECK(config_read_file(scratch_at("f"), 4, &text, NULL, NULL) ==
	      -EFBIG);
	CHECK(config_read_file(scratch_dir, 100, &text, NULL, NULL) == -EISDIR);
	CHECK(config_read_file(scratch_at("none"), 100, &text, NULL, NULL) ==
	      -ENOENT);
	alloc_fail_after(1);
	CHECK(config_read_file(scratch_at("f"), 100, &text, NULL, NULL) ==
	      -ENOMEM);
	alloc_fail_after(0);
}

int main(void)
{
	scratch_make("read");
	test_read_file();
	scratch_remove();
	return check_done("read");
}
