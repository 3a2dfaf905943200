/*
 * test_error: config_error_format() fills the caller's buffer, cuts a
 * long message to fit, and does nothing with no buffer or no room.
 */
#include <string.h>

#include "config/error.h"
#include "check.h"

int main(void)
{
	char err[8];
	config_error_format(err, sizeof(err), "%s %d", "ab", 7);
	CHECK_STR(err, "ab 7");
	config_error_format(err, sizeof(err), "%s", "a long message");
	CHECK_STR(err, "a long ");
	memcpy(err, "keep", 5);
	config_error_format(err, 0, "%s", "x");
	CHECK_STR(err, "keep");
	config_error_format(NULL, 8, "%s", "x"); /* no crash */
	CHECK_STR(err, "keep");
	return check_done("error");
}
