"""What keeps the proxy from starting is one error line, the first.

Each case starts bin/informer-proxy against an upstream that cannot work
(rejected credentials, nothing listening, a server that is no apiserver,
a resource the identity may not list, a resource that can only be
created, a misspelt or repeated resource in --config) and runs it to its
exit. The log must hold exactly one error line, and no warning before
it: the same failure retried is not news. What retrying cannot fix must
be said well before --startup-timeout; names from --config carry their
FILE:LINE:COLUMN.
"""
import http.server
import os
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import harness as h

PROXY = os.path.join(h.BIN, "informer-proxy")
LONG = "120"          # --startup-timeout where the error must come at once
AT_ONCE = 60          # seconds: "well before" that timeout, on a loaded machine


def levels(out):
    """The (level, line) of each log line at warning or error."""
    got = []
    for ln in out.splitlines():
        parts = ln.split(" ", 3)
        if len(parts) > 2 and parts[1] in ("warning", "error"):
            got.append((parts[1], ln))
    return got


class StartupErrors(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="startup-errors-")

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def fake(self, *extra, seed="pods=2,configmaps=2"):
        f = h.fake("--quiet", *extra, seed=seed)
        self.addCleanup(f.stop)
        return f

    def fails(self, server, *args, timeout=150):
        """Run the proxy to its exit; assert one error line and no warning
        before it; return (that line, seconds taken, the whole log)."""
        t0 = time.monotonic()
        p = subprocess.run([PROXY, "--listen", "127.0.0.1:0", "--server", server,
                            *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout)
        took = time.monotonic() - t0
        self.assertNotEqual(p.returncode, 0, p.stdout)
        got = levels(p.stdout)
        self.assertEqual([lv for lv, _ in got], ["error"],
                         "want one error line and no warning:\n" + p.stdout)
        return got[0][1], took, p.stdout

    def test_rejected_credentials(self):
        f = self.fake("--token", "right-token")
        tok = self.write("token", "wrong-token\n")
        line, took, _ = self.fails(f.url, "--resources", "pods",
                                   "--token-file", tok, "--startup-timeout", LONG)
        self.assertIn("rejected the credentials (401 Unauthorized)", line)
        self.assertIn("check the token", line)
        self.assertLess(took, AT_ONCE)

    def test_nothing_listening(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()   # a port nothing listens on
        line, took, out = self.fails("http://127.0.0.1:%d" % port, "--resources", "pods",
                                     "--startup-timeout", "3")
        self.assertGreaterEqual(took, 3)  # not a whole second of time() short
        self.assertIn("cannot reach the upstream http://127.0.0.1:%d" % port, line)
        self.assertIn("gave up after --startup-timeout (3 s)", line)
        # the wait was said once, at info level
        self.assertEqual(out.count("waiting for the upstream"), 1, out)

    def test_not_an_apiserver(self):
        class NotFound(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *a):
                pass
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        self.addCleanup(srv.server_close)
        self.addCleanup(srv.shutdown)
        line, took, _ = self.fails("http://127.0.0.1:%d" % srv.server_address[1],
                                   "--resources", "pods", "--startup-timeout", LONG)
        self.assertIn("does not serve pods (404)", line)
        self.assertLess(took, AT_ONCE)

    def test_resource_not_allowed(self):
        users = self.write("users", "tok-a,alice,u1\n")
        rules = self.write("authz", "alice list configmaps *\nalice watch configmaps *\n")
        f = self.fake("--users", users, "--authz", rules)
        tok = self.write("token", "tok-a\n")
        line, took, _ = self.fails(f.url, "--resources", "configmaps,pods",
                                   "--token-file", tok, "--startup-timeout", LONG)
        self.assertIn("refused to list pods (403 Forbidden)", line)
        self.assertIn("grant get, list and watch on pods", line)
        self.assertLess(took, AT_ONCE)

    def test_unlistable_resource_named_at_once(self):
        # discovery lists tokenreviews with the one verb create, as a real
        # apiserver does: it can never be cached, so no waiting
        f = self.fake()
        line, took, _ = self.fails(f.url, "--resources", "pods,tokenreviews",
                                   "--startup-timeout", LONG)
        self.assertIn("tokenreviews", line)
        self.assertIn("cannot be cached", line)
        self.assertIn("no list/watch verb", line)
        self.assertIn("remove it from --resources/--config", line)
        self.assertLess(took, AT_ONCE)
        st = h.get_json(f.url + "/fake/stats")[1]["resources"]
        self.assertEqual(st["pods"]["list"], 0)   # nothing was started

    def test_config_typo_names_its_place(self):
        f = self.fake()
        cfg = self.write("proxy.yaml", "resources:\n  - resource: pods\n"
                                       "  - resource: pdos\n")
        line, _, _ = self.fails(f.url, "--config", cfg, "--startup-timeout", "2")
        self.assertIn(cfg + ":3:5: pdos: ", line)
        self.assertIn("--startup-timeout", line)
        self.assertNotIn(":2:5", line)   # pods resolved

    def test_config_same_resource_twice_names_both_places(self):
        f = self.fake()
        cfg = self.write("proxy.yaml", "resources:\n  - resource: pods\n"
                                       "  - resource: configmaps\n  - resource: po\n")
        line, took, _ = self.fails(f.url, "--config", cfg, "--startup-timeout", LONG)
        self.assertIn(cfg + ':4:5: "po" named twice: the same resource as "pods" at '
                      + cfg + ":2:5", line)
        self.assertLess(took, AT_ONCE)


if __name__ == "__main__":
    unittest.main()
