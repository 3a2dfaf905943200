/*
 * test_log: one line per message, as text or JSON, levels filtered,
 * fields written logfmt-style or as JSON members, hostile strings
 * escaped (control bytes, quotes, invalid UTF-8), a long message cut,
 * not spilled, repeats of a fold key folded into one line a window, and
 * URLs redacted.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/log.h"
#include "check.h"

static char out[16384];

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

static size_t lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
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

/* Strings an attacker may put in a name or an upstream's message: a
 * line break, quotes, a backslash, an ANSI escape, a NUL-free C0 byte,
 * DEL, a lone continuation byte, a truncated and an overlong sequence, a
 * surrogate, and valid UTF-8 (é, €, 😀) that stays as is. */
static const char hostile[] = "a\nb\"c\\d\x1b[31m\x01\x7f"
			      "\x80|\xe2\x82|\xc0\xaf|\xed\xa0\x80|"
			      "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";

static void json_fields(void)
{
	log_setup(LOG_JSON, 0, "unit");
	log_warn_kv(LOG_FIELDS(LOG_STR("resource", "pods"),
			       LOG_INT("attempt", 3), LOG_NUM("ms", 1.5),
			       LOG_STR("absent", NULL),
			       LOG_STR("error", hostile)),
		    "list failed: %s", hostile);
}

static void text_fields(void)
{
	log_setup(LOG_TEXT, 0, "unit");
	log_warn_kv(LOG_FIELDS(LOG_STR("resource", "pods"),
			       LOG_INT("attempt", -2), LOG_STR("empty", ""),
			       LOG_STR("error", "Couldn't connect to server"),
			       LOG_STR("eq", "a=b"), LOG_STR("bad", hostile)),
		    "list failed: %s", hostile);
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&t, NULL);
}

static void fold_text(void)
{
	log_setup(LOG_TEXT, 0, "unit");
	log_set_fold_ms(300);
	for (int i = 1; i <= 5; i++)
		log_warn_fold("pods list", LOG_FIELDS(LOG_INT("attempt", i)),
			      "pods: list: refused");
	log_warn_fold("svc list", NULL, "services: list: refused");
	sleep_ms(400);
	/* the window is over: this one closes it, with the four before */
	log_warn_fold("pods list", LOG_FIELDS(LOG_INT("attempt", 6)),
		      "pods: list: refused");
	log_warn_fold("pods list", LOG_FIELDS(LOG_INT("attempt", 7)),
		      "pods: list: refused");
	sleep_ms(400);
	/* any line closes a window that is over */
	log_info("synced");
	log_info("synced again");
}

static void fold_json(void)
{
	log_setup(LOG_JSON, 0, "unit");
	log_set_fold_ms(300);
	for (int i = 1; i <= 3; i++)
		log_warn_fold("k", LOG_FIELDS(LOG_STR("url", "http://x/\"")),
			      "refused %d", i);
	sleep_ms(400);
	log_info("back");
}

static void *fold_many(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++)
		log_warn_fold("many k", LOG_FIELDS(LOG_INT("i", i)), "again");
	return NULL;
}

/* Four threads repeat one warning: one line, and the close tells the
 * other 799, none lost; a key of another prefix stays. */
static void fold_threads(void)
{
	log_setup(LOG_TEXT, 0, "unit");
	log_set_fold_ms(600000);
	log_warn_fold("other", NULL, "elsewhere");
	log_warn_fold("other", NULL, "elsewhere");
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, fold_many, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	log_fold_close("many ");
	log_fold_close("many "); /* nothing left to tell */
}

/* -v 1 asks for detail: every repeat is written */
static void fold_verbose(void)
{
	log_setup(LOG_TEXT, 1, "unit");
	log_set_fold_ms(60000);
	for (int i = 0; i < 3; i++)
		log_warn_fold("v", NULL, "refused again");
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
	CHECK(!strncmp(s, "{\"time\":\"", 9));
	CHECK(s[13] == '-' && s[19] == 'T' && s[28] == '.' && s[32] == 'Z');
	CHECK(strstr(s,
		     "\"level\":\"warning\",\"component\":\"co\\\"mp\","
		     "\"msg\":\"a \\\"quoted\\\"\\nline \\u003c\\u0026\\u003e\"}\n") !=
	      NULL);
	CHECK(lines(s) == 1 && s[strlen(s) - 1] == '\n');
	CHECK(!log_enabled(1) && log_enabled(0) && log_json());

	s = capture(long_line);
	CHECK(strlen(s) > 2000 && strlen(s) < 2200);
	CHECK(s[strlen(s) - 1] == '\n');

	/* fields as JSON members; every hostile byte escaped, valid UTF-8
	 * kept, an absent field left out */
	static const char esc[] = "a\\nb\\\"c\\\\d\\u001b[31m\\u0001\\u007f"
				  "\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd|"
				  "\\ufffd\\ufffd\\ufffd|"
				  "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	char want[1024];
	snprintf(want, sizeof(want),
		 "\"msg\":\"list failed: %s\",\"resource\":\"pods\","
		 "\"attempt\":3,\"ms\":1.500,\"error\":\"%s\"}\n",
		 esc, esc);
	s = capture(json_fields);
	CHECK(strstr(s, want) != NULL);
	CHECK(!strstr(s, "absent"));
	CHECK(lines(s) == 1);
	for (const char *p = s; *p; p++) /* no raw control byte but the end */
		CHECK((unsigned char)*p >= 0x20 || (*p == '\n' && !p[1]));

	/* text: logfmt after the message, quoted where need be */
	s = capture(text_fields);
	snprintf(
		want, sizeof(want),
		" warning unit: list failed: a\\x0ab\"c\\d\\x1b[31m\\x01\\x7f"
		"\x80|\xe2\x82|\xc0\xaf|\xed\xa0\x80|"
		"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
		" resource=pods attempt=-2 empty=\"\""
		" error=\"Couldn't connect to server\" eq=\"a=b\" bad=\"%s\"\n",
		esc);
	CHECK(strstr(s, want) != NULL);
	CHECK(lines(s) == 1);

	/* folding: the first line, then one for the repeats a window */
	s = capture(fold_text);
	CHECK(lines(s) == 6);
	CHECK(count(s, "pods: list: refused") == 3);
	CHECK(count(s, "services: list: refused") == 1);
	CHECK(strstr(s, "pods: list: refused attempt=1\n") != NULL);
	/* closed by the sixth: five in the window (the first's repeats and
	 * itself), its fields the last's */
	CHECK(strstr(s, "pods: list: refused (repeated 5 times in the last ") !=
	      NULL);
	CHECK(strstr(s, ") attempt=6 count=5 since=") != NULL);
	/* then closed by another line: the seventh alone */
	CHECK(strstr(s, "(repeated 1 times in the last ") != NULL);
	CHECK(strstr(s, ") attempt=7 count=1 since=") != NULL);
	CHECK(strstr(s, "synced again\n") != NULL);

	s = capture(fold_json);
	CHECK(lines(s) == 3);
	CHECK(strstr(s, "\"msg\":\"refused 1\",\"url\":\"http://x/\\\"\"}\n") !=
	      NULL);
	CHECK(strstr(s, "\"msg\":\"refused 3 (repeated 2 times in the last ") !=
	      NULL);
	CHECK(strstr(s, "s, first at 20") != NULL);
	CHECK(strstr(s, ")\",\"url\":\"http://x/\\\"\",\"count\":2,"
			"\"since\":\"20") != NULL);
	CHECK(strstr(s, "\"msg\":\"back\"}\n") != NULL);

	s = capture(fold_threads);
	CHECK(lines(s) == 3);
	CHECK(count(s, "again i=") == 1);
	CHECK(strstr(s, "again (repeated 799 times in the last ") != NULL);
	CHECK(strstr(s, " count=799 since=") != NULL);
	CHECK(count(s, "elsewhere") == 1);

	s = capture(fold_verbose);
	CHECK(lines(s) == 3 && count(s, "refused again\n") == 3);

	/* redaction: user information and unknown query parameters go */
	char r[256];
	log_redact_url("https://u:p4ss@h:6443/api/v1/pods?limit=5&token=s3"
		       "&watch=1&s3cr3t",
		       r, sizeof(r));
	CHECK_STR(r, "https://REDACTED@h:6443/api/v1/pods?limit=5&REDACTED"
		     "&watch=1&REDACTED");
	log_redact_url("/x?a=1@b", r, sizeof(r));
	CHECK_STR(r, "/x?REDACTED");
	log_redact_url("http://h/p\"\n", r, sizeof(r));
	CHECK_STR(r, "http://h/p%22%0A");
	log_redact_url("https://u:p@h", r, 8);
	CHECK(strlen(r) < 8 && !strstr(r, "u:p"));
	return check_done("log");
}
