"""What a hostile upstream or a crowd of strangers may cost the proxy: an
answer it reads whole for itself (an RV probe, discovery) is cut at
--upstream-answer-max-mib; under --client-auth=delegated unknown tokens
have a budget per client address and a queue of their own, a passthrough
body is read only after its token's review, and reviews reuse their
upstream connections."""
import os
import random
import socket
import sys
import tempfile
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
sys.path.insert(0, HERE)
import certs  # noqa: E402
import harness as h  # noqa: E402
from test_hardening_upstream import Upstream, page  # noqa: E402

PROXY_TOKEN = "proxy-admin-7f1d2e"
ALICE = "alice-tok-51c0"
HUGE = 200 << 20


def rss_mib(proc):
    return h.rss_bytes(proc.proc.pid) / (1 << 20)


def peak_mib(pid):
    """The process's peak RSS (VmHWM): a buffer freed again still shows."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0


class HugeAnswers(unittest.TestCase):
    """A 200 MiB answer costs the cap, not 200 MiB, and the log says so."""

    def test_probe(self):
        big = page(5, []) + b" " * HUGE
        up = Upstream(lambda q, n: page(5, []), lambda q, n: [], on_probe=lambda: big)
        self.addCleanup(up.close)
        proxy = h.proxy(up.url, "pods", "--upstream-answer-max-mib", "8")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        before = peak_mib(proxy.proc.pid)
        for _ in range(3):   # a consistent read probes the upstream
            h.request("GET", proxy.url + "/api/v1/pods", timeout=60)
        grown = peak_mib(proxy.proc.pid) - before
        if h.RSS_MEANINGFUL:
            self.assertLess(grown, 40, "RSS grew %.0f MiB for 200 MiB probe answers" % grown)
        h.wait_until(lambda: "(probe) is larger than --upstream-answer-max-mib (8 MiB)"
                     in proxy.logs(), timeout=10, what="the log line")
        m = h.request("GET", proxy.url + "/metrics")[2].decode()
        self.assertRegex(m, r'informer_proxy_upstream_answer_too_large_total\{what="probe"\} [1-9]')

    def test_discovery(self):
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(HUGE))
                self.end_headers()
                chunk = b" " * (1 << 20)
                try:
                    for _ in range(HUGE >> 20):
                        self.wfile.write(chunk)
                except OSError:
                    pass
        srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        srv.daemon_threads = True
        srv.handle_error = lambda *a: None
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        self.addCleanup(srv.server_close)
        self.addCleanup(srv.shutdown)
        import subprocess
        log = tempfile.NamedTemporaryFile(prefix="floods-", suffix=".log", delete=False)
        proc = subprocess.Popen([
            os.path.join(h.BIN, "informer-proxy"), "--listen", "127.0.0.1:0",
            "--server", "http://127.0.0.1:%d" % srv.server_address[1],
            "--resources", "widgets.example.com", "--upstream-answer-max-mib", "8"],
            stdout=log, stderr=subprocess.STDOUT)
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)

        def logs():
            with open(log.name) as f:
                return f.read()
        h.wait_until(lambda: "(discovery) is larger than --upstream-answer-max-mib (8 MiB)"
                     in logs(), timeout=30, what="the log line")
        time.sleep(1)
        self.assertIsNone(proc.poll())
        # a sanitizer's shadow memory and quarantine add their own; an
        # unbounded answer was 1.5 GiB either way
        self.assertLess(peak_mib(proc.pid), 64 if h.RSS_MEANINGFUL else 256)


def delegated(test, *extra):
    d = tempfile.mkdtemp(prefix="delegated-floods-")
    users = os.path.join(d, "users.csv")
    with open(users, "w") as f:
        f.write('%s,alice,uid-alice\n' % ALICE)
    rules = os.path.join(d, "authz")
    with open(rules, "w") as f:
        f.write("alice get,list,watch pods *\nalice create configmaps ns-1\n")
    fake = h.fake("--token", PROXY_TOKEN, "--users", users, "--authz", rules,
                  "--quiet", seed="pods=20")
    test.addCleanup(fake.stop)
    spy, proxy = h.proxy_via_spy(fake, PROXY_TOKEN, d, "pods",
                                 "--client-auth", "delegated", *extra)
    test.addCleanup(spy.close)
    test.addCleanup(proxy.stop)
    return fake, spy, proxy


def hostport(proxy):
    host, port = proxy.url.split("//")[1].split(":")
    return host, int(port)


class Reviews(unittest.TestCase):
    def test_reviews_reuse_connections(self):
        fake, spy, proxy = delegated(self)
        h.request("GET", proxy.url + "/api", headers={"Authorization": "Bearer warm"})
        time.sleep(0.5)
        c0 = spy.connections
        r0 = len(spy.heads("tokenreviews"))
        for i in range(20):
            s = h.request("GET", proxy.url + "/api",
                          headers={"Authorization": "Bearer nobody-%d" % i})[0]
            self.assertEqual(s, 401)
        self.assertEqual(len(spy.heads("tokenreviews")) - r0, 20)
        # four reviewers, each over the connection it keeps
        self.assertLessEqual(spy.connections - c0, 4)

    def test_strangers_cannot_starve_a_user(self):
        fake, spy, proxy = delegated(self)
        host, port = hostport(proxy)
        auth = {"Authorization": "Bearer " + ALICE}
        self.assertEqual(h.request("GET", proxy.url + "/api", headers=auth)[0], 200)
        before = rss_mib(proxy)
        stop = threading.Event()
        socks = []
        # 300 bodies of 3 MiB announced, with unknown tokens, trickled
        head = ("POST /api/v1/namespaces/ns-1/configmaps HTTP/1.1\r\nHost: x\r\n"
                "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
                "Content-Length: %d\r\n\r\n")
        for i in range(300):
            try:
                s = socket.create_connection((host, port), timeout=5)
                tok = "junk" if i % 2 else "junk-%d" % i
                s.sendall((head % (tok, 3 << 20)).encode() + b"{" + b" " * (256 << 10))
                socks.append(s)
            except OSError:
                pass
        self.addCleanup(lambda: [s.close() for s in socks])

        def trickle():
            while not stop.wait(0.5):
                for s in list(socks):
                    try:
                        s.setblocking(False)
                        s.send(b" " * 65536)
                    except OSError:
                        pass

        def flood():
            while not stop.is_set():
                try:
                    h.request("GET", proxy.url + "/api/v1/namespaces/ns-%d/pods?name=%d"
                              % (random.randint(1, 3), random.random()),
                              headers={"Authorization": "Bearer r%x" % random.getrandbits(64)},
                              timeout=10)
                except Exception:
                    pass
        threads = [threading.Thread(target=trickle, daemon=True)]
        threads += [threading.Thread(target=flood, daemon=True) for _ in range(32)]
        for t in threads:
            t.start()
        self.addCleanup(stop.set)
        time.sleep(1)
        ok = 0
        for i in range(100):
            # a new name each time: a SubjectAccessReview each
            path = "/api/v1/namespaces/ns-%d/pods/web-%d?resourceVersion=0" % (i % 3 + 1, i)
            try:
                s = h.request("GET", proxy.url + path, headers=auth, timeout=20)[0]
            except Exception:
                s = 0
            ok += s in (200, 404)
        grown = rss_mib(proxy) - before
        stop.set()
        self.assertGreaterEqual(ok, 99)
        if h.RSS_MEANINGFUL:
            self.assertLess(grown, 64, "RSS grew %.0f MiB" % grown)
        # nothing of the strangers' bodies reached the upstream
        self.assertEqual(spy.heads("POST /api/v1/namespaces/ns-1/configmaps"), [])


if __name__ == "__main__":
    unittest.main()
