/*
 * test_log: one line per message, as text or JSON, levels filtered,
 * strings escaped, and a long message cut, not spilled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/log.h"
#include "check.h"

static char out[8192];

/* What the logging in fn wrote to stderr. */
static const char *capture(void (*fn)(void))
{
	int fds[2];
	if (pipe(fds))
		return "";
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	dup2(fds[1], STDERR_FILENO);
	close(fds[1]);
	fn();
	dup2(saved, STDERR_FILENO);
	close(saved);
	ssize_t n = read(fds[0], out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	return out;
}

static void text_lines(void)
{
	log_setup(LOG_TEXT, 1, "unit");
	log_error("disk %s", "full");
	log_v(1, "shown");
	log_v(2, "hidden");
}

static void json_line(void)
{
	log_setup(LOG_JSON, 0, "co\"mp");
	log_warn("a \"quoted\"\nline <&>");
	log_v(1, "hidden");
}

static void long_line(void)
{
	static char big[5000];
	memset(big, 'x', sizeof(big) - 1);
	log_setup(LOG_TEXT, 0, "unit");
	log_info("%s", big);
}

int main(void)
{
	const char *s = capture(text_lines);
	CHECK(strstr(s, " error unit: disk full\n") != NULL);
	CHECK(strstr(s, " debug unit: shown\n") != NULL);
	CHECK(strstr(s, "hidden") == NULL);
	CHECK(s[4] == '-' && s[10] == 'T' && strstr(s, "Z error") != NULL);
	CHECK(log_enabled(1) && !log_enabled(2));

	s = capture(json_line);
	CHECK(!strncmp(s, "{\"ts\":\"", 7));
	CHECK(strstr(s,
		     "\"level\":\"warning\",\"component\":\"co\\\"mp\","
		     "\"msg\":\"a \\\"quoted\\\"\\nline \\u003c\\u0026\\u003e\"}\n") !=
	      NULL);
	CHECK(strchr(s, '\n') == s + strlen(s) - 1); /* one line */
	CHECK(!log_enabled(1) && log_enabled(0));

	s = capture(long_line);
	CHECK(strlen(s) > 2000 && strlen(s) < 2200);
	CHECK(s[strlen(s) - 1] == '\n');
	return check_done("log");
}
