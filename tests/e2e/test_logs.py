"""Logs a machine reads: with --log-format json every line the proxy
writes is one JSON object with time (RFC 3339, UTC, ms), level, msg and
the message's own fields; access entries carry method, path (secrets
redacted), status, bytes, duration_ms, client, served_by (cache,
upstream or proxy) and, with delegated auth, the user. An upstream
outage is folded: the first retry warning of a resource, then one line
with how many followed, not a line a retry.
"""
import json
import os
import re
import sys
import tempfile
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import certs  # noqa: E402
import harness as h  # noqa: E402

TOKEN = "tok-6d0e1b77-never-logged"
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
PROXY_TOKEN = "proxy-admin-2b8c"
ALICE = "alice-tok-9f31"


def entries(proxy):
    """Every line of the proxy's log, each parsed as JSON (a line that is
    not fails the test)."""
    return [json.loads(line) for line in proxy.logs().splitlines()]


def access(proxy):
    return [e for e in entries(proxy) if e["msg"].startswith("access:")]


class JsonLogs(unittest.TestCase):
    def check_lines(self, got):
        self.assertTrue(got)
        for e in got:
            self.assertRegex(e["time"], TIME)
            self.assertIn(e["level"], ("error", "warning", "info", "debug"))
            self.assertIsInstance(e["msg"], str)
            self.assertNotIn("\n", e["msg"])

    def test_every_line_is_json_with_fields(self):
        fake, proxy = h.fake_and_proxy(self, "pods", "--log-format", "json", "-v", "2",
                                       seed="pods=5")
        s, _, body = h.request("GET", proxy.url + "/api/v1/pods?limit=2&resourceVersion=0")
        self.assertEqual(s, 200)
        # passed through, a token in the query and one in a header
        s, _, _ = h.request("GET", proxy.url + "/api/v1/services?access_token=" + TOKEN,
                            headers={"Authorization": "Bearer " + TOKEN})
        self.assertEqual(s, 200)
        # refused by the proxy itself: a target it will not serve
        self.assertEqual(h.request("GET", proxy.url + "/api/v1/pods/../secrets")[0], 400)

        # by path: the readiness probes' lines count among the entries
        def three():
            paths = {e["path"] for e in access(proxy)}
            return {"/api/v1/pods?limit=2&resourceVersion=0", "/api/v1/services?REDACTED",
                    "/api/v1/pods/../secrets"} <= paths or None
        h.wait_until(three, what="the 3 requests' access entries")
        got = entries(proxy)
        self.check_lines(got)
        self.assertTrue(any(e["msg"].startswith("listening on http://") for e in got))
        by_path = {e["path"]: e for e in access(proxy)}
        cached = by_path["/api/v1/pods?limit=2&resourceVersion=0"]
        self.assertEqual(cached["msg"], "access: GET /api/v1/pods?limit=2&resourceVersion=0 200")
        self.assertEqual((cached["method"], cached["status"], cached["served_by"]),
                         ("GET", 200, "cache"))
        self.assertIsInstance(cached["bytes"], int)
        self.assertGreaterEqual(cached["bytes"], len(body))
        self.assertIsInstance(cached["duration_ms"], float)
        self.assertGreater(cached["duration_ms"], 0)
        self.assertRegex(cached["client"], r"^127\.0\.0\.1:\d+$")
        self.assertNotIn("user", cached)  # no delegated auth
        passed = by_path["/api/v1/services?REDACTED"]
        self.assertEqual((passed["status"], passed["served_by"]), (200, "upstream"))
        refused = [e for e in access(proxy) if e["status"] == 400]
        self.assertEqual([e["served_by"] for e in refused], ["proxy"])
        self.assertNotIn(TOKEN, proxy.logs())

    def test_delegated_user(self):
        d = tempfile.mkdtemp(prefix="logs-delegated-")
        users = os.path.join(d, "users.csv")
        with open(users, "w") as f:
            f.write("%s,alice,uid-alice\n" % ALICE)
        rules = os.path.join(d, "authz")
        with open(rules, "w") as f:
            f.write("alice list pods ns-1\n")
        fake = h.fake("--token", PROXY_TOKEN, "--users", users, "--authz", rules,
                      seed="pods=5")
        self.addCleanup(fake.stop)
        kc = certs.kubeconfig(d, fake.url, token=PROXY_TOKEN)
        proxy = h.proxy(fake.url, "pods", "--kubeconfig", kc, "--client-auth", "delegated",
                        "--log-format", "json", "-v", "2")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        bearer = {"Authorization": "Bearer " + ALICE}
        self.assertEqual(h.request("GET", proxy.url + "/api/v1/namespaces/ns-1/pods",
                                   headers=bearer)[0], 200)
        self.assertEqual(h.request("GET", proxy.url + "/api/v1/namespaces/ns-2/pods",
                                   headers=bearer)[0], 403)
        self.assertEqual(h.request("GET", proxy.url + "/api/v1/namespaces/ns-1/pods")[0], 401)
        self.assertEqual(h.request("GET", proxy.url + "/api/v1/namespaces/ns-1/pods",
                                   headers={"Authorization": "Bearer " + TOKEN})[0], 401)

        def four():
            got = [e for e in access(proxy) if "/namespaces/" in e["path"]]
            return got if len(got) >= 4 else None
        got = h.wait_until(four, what="4 access entries")
        self.check_lines(entries(proxy))
        by = [(e["status"], e.get("user"), e["served_by"]) for e in got]
        self.assertIn((200, "alice", "cache"), by)
        self.assertIn((403, "alice", "proxy"), by)
        self.assertEqual([b for b in by if b[0] == 401], [(401, None, "proxy")] * 2)
        self.assertNotIn(ALICE, proxy.logs())
        self.assertNotIn(TOKEN, proxy.logs())


# An upstream's Status message made to break a log: a line break that
# starts a forged line, quotes, a backslash, an escape sequence, HTML,
# and bytes that are not UTF-8.
HOSTILE = (b'pods \\"x\\" is bad\\\\\\nFORGED warning informer-proxy: injected '
           b'\\u001b[31m<script>&\xff\xc0\xaf end')


class Refusing:
    """An upstream that answers every request 500 with HOSTILE as its
    Status message."""
    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                body = (b'{"kind":"Status","apiVersion":"v1","status":"Failure",'
                        b'"message":"' + HOSTILE + b'","reason":"InternalError","code":500}')
                self.send_response(500)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass
        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.srv.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


class Hostile(unittest.TestCase):
    def run_proxy(self, *extra):
        up = Refusing()
        self.addCleanup(up.close)
        proxy = h.proxy(up.url, "pods", *extra)
        self.addCleanup(proxy.stop)
        return proxy

    def test_json_escapes_what_the_upstream_says(self):
        # before the first sync the retries are debug lines (the start-up
        # check tells the operator once): -v 1 shows them
        proxy = self.run_proxy("--log-format", "json", "-v", "1")

        def refused():
            got = [e for e in entries(proxy) if e.get("code") == 500]
            return got or None
        e = h.wait_until(refused, timeout=30, what="the 500's warning")[0]
        self.assertEqual((e["level"], e["resource"], e["verb"], e["reason"]),
                         ("debug", "pods", "list", "InternalError"))
        # what the upstream said, whole, as a string: the line break and
        # quotes are characters of it, the bytes that are not UTF-8 are
        # U+FFFD
        self.assertIn('pods "x" is bad\\\nFORGED warning', e["error"])
        self.assertIn("\x1b[31m<script>&", e["error"])
        self.assertIn("\ufffd", e["error"])
        self.assertIn(e["error"], e["msg"])
        raw = open(proxy.log_path, "rb").read()
        self.assertNotIn(b"\xff", raw)
        self.assertNotIn(b"<script>", raw)   # written \u003c, as Go does
        self.assertFalse([l for l in raw.splitlines() if l.startswith(b"FORGED")])

    def test_text_keeps_it_on_one_line(self):
        proxy = self.run_proxy("-v", "1")
        h.wait_until(lambda: "upstream answered 500" in proxy.logs(), timeout=30,
                     what="the 500's warning")
        raw = open(proxy.log_path, "rb").read()
        self.assertFalse([l for l in raw.splitlines() if l.startswith(b"FORGED")], raw)
        self.assertFalse([l for l in raw.splitlines() if b"\x1b" in l], raw)
        line = [l for l in raw.splitlines() if b"upstream answered 500" in l][0]
        self.assertIn(b' code=500 reason=InternalError attempt=1 '
                      b'error="pods \\"x\\" is bad\\\\\\nFORGED warning', line)


class Folding(unittest.TestCase):
    # how long the upstream stays away once each resource has warned;
    # test_log_outage runs this for most of the 60 s fold window
    OUTAGE_S = 4

    def retries(self, proxy, resource):
        """The warnings that the resource's upstream is unreachable (a
        watch cut as the upstream stops may say something else first)."""
        return [e for e in entries(proxy)
                if e["level"] == "warning" and e.get("resource") == resource
                and e.get("error") == "Couldn't connect to server"]

    def test_an_outage_is_one_folded_line_per_resource(self):
        fake = h.fake("--quiet")
        port = fake.url.rsplit(":", 1)[1]
        proxy = h.proxy(fake.url, "pods,services", "--log-format", "json",
                        "--backoff-max-ms", "200")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        fake.stop()
        # the upstream refuses connections: every retry fails, at most
        # 200 ms apart
        for r in ("pods", "services"):
            h.wait_until(lambda: self.retries(proxy, r), timeout=30,
                         what="a retry warning for " + r)
        time.sleep(self.OUTAGE_S)
        for r in ("pods", "services"):
            got = self.retries(proxy, r)
            self.assertEqual(len(got), 1, got)
            first = got[0]
            self.assertIn(first["verb"], ("list", "watch"))
            self.assertTrue(first["url"].startswith("%s/api/v1/%s?" % (fake.url, r)),
                            first["url"])
            self.assertIsInstance(first["attempt"], int)
        back = h.Server("fake-apiserver", [os.path.join(h.BIN, "fake-apiserver"),
                                           "--listen", "127.0.0.1:" + port, "--quiet"])
        self.addCleanup(back.stop)
        # once the upstream answers again, the repeats are told, folded
        for r in ("pods", "services"):
            h.wait_until(lambda: len(self.retries(proxy, r)) >= 2, timeout=30,
                         what="the folded line for " + r)
            first, folded = self.retries(proxy, r)
            self.assertGreaterEqual(folded["count"], 3)
            self.assertEqual(folded["since"], first["time"])
            self.assertIn(" (repeated %d times in the last " % folded["count"],
                          folded["msg"])
            self.assertGreater(folded["attempt"], first["attempt"])
            self.assertTrue(folded["url"].startswith("%s/api/v1/%s?" % (fake.url, r)))
        self.check_no_more(proxy)

    def check_no_more(self, proxy):
        # healthy again: no further warning
        time.sleep(1)
        for r in ("pods", "services"):
            self.assertEqual(len(self.retries(proxy, r)), 2)


if __name__ == "__main__":
    unittest.main()
