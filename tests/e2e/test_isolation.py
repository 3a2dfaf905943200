"""Clients do not share upstream connections: one client's bad token
cannot break another client's requests.

The apiserver ends the connection of an unauthenticated request
("Connection: close" on HTTP/1.1, GOAWAY on HTTP/2). Here the upstream is
the fake (which closes after each 401) behind tests/lib/h2front.mjs, an
HTTP/2 front that turns that close into a GOAWAY as the apiserver's Go
HTTP/2 server does, so libcurl multiplexes passthrough requests on it as
it would on a real apiserver. One client reads with a valid token through
passthrough while another sends invalid tokens (reads and writes): the
first must see no 503 and no cut-off answer, and every answer the second
gets is whole (its 401) or a clear Status. Through the same front, a
request whose reused connection fails under it (the front resets its
stream) is sent again once if it is a read, never if it is a write.

ISOLATION_REQUESTS sets how many reads the valid client makes (3,000 in
make test, about 6 s; `make soak` runs 10,000, about 20 s on two busy
cores).
"""
import http.client
import json
import os
import shutil
import socket
import ssl
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
sys.path.insert(0, HERE)
import certs  # noqa: E402
import harness as h  # noqa: E402

PROXY_TOKEN = "proxy-admin-3b9f"
ADMIN = "admin-tok-61d2"
FRONT = os.path.join(os.path.dirname(HERE), "lib", "h2front.mjs")
REQUESTS = int(os.environ.get("ISOLATION_REQUESTS", "3000"))
READERS = 4
ATTACKERS = 3  # two share one bad token, one sends a new one each time


def node():
    return shutil.which("node") or shutil.which("nodejs")


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.codes = {}
        self.cut = []  # (what, detail) of answers cut short
        self.bad = []  # answers that are not what they should be

    def add(self, code):
        with self.lock:
            self.codes[code] = self.codes.get(code, 0) + 1

    def note(self, where, what):
        with self.lock:
            where.append(what)


def exchange(conn, method, path, headers, body=None):
    """One request on a kept-alive connection: (status, headers, body),
    raising on an answer cut short (http.client checks its framing)."""
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    return r.status, r.getheader("Content-Type") or "", r.read()


class Isolation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not node():
            raise unittest.SkipTest("node is not installed")
        d = tempfile.mkdtemp(prefix="isolation-")
        cls.addClassCleanup(shutil.rmtree, d, True)
        users = os.path.join(d, "users.csv")
        with open(users, "w") as f:
            f.write("%s,admin,uid-admin,system:masters\n" % ADMIN)
        pki = certs.make_pki(os.path.join(d, "pki"))
        cls.fake = h.fake("--quiet", "--token", PROXY_TOKEN, "--users", users,
                          seed="pods=5,configmaps=5")
        cls.addClassCleanup(cls.fake.stop)
        cls.front = h.Server("h2front", [node(), FRONT, cls.fake.url,
                                         pki["server_cert"], pki["server_key"]])
        cls.addClassCleanup(cls.front.stop, False)
        kc = certs.kubeconfig(d, cls.front.url, pki=pki, token=PROXY_TOKEN)
        cls.proxy = h.proxy(cls.front.url, "pods", "--kubeconfig", kc)
        cls.addClassCleanup(cls.proxy.stop)
        h.wait_ready(cls.proxy.url)
        host, port = cls.proxy.url.rsplit("/", 1)[1].rsplit(":", 1)
        cls.addr = (host, int(port))
        code, _, cm = h.request("GET", cls.fake.url + "/api/v1/configmaps",
                                 headers={"Authorization": "Bearer " + ADMIN})
        assert code == 200, code
        items = json.loads(cm)["items"]
        cls.cm = items[0]["metadata"]

    def conn(self):
        return http.client.HTTPConnection(*self.addr, timeout=60)

    def read_loop(self, n, tally, errors):
        """n passthrough GETs of a ConfigMap (not cached here) as admin."""
        path = "/api/v1/namespaces/%s/configmaps/%s" % (self.cm["namespace"],
                                                        self.cm["name"])
        hdrs = {"Authorization": "Bearer " + ADMIN}
        c = self.conn()
        for i in range(n):
            try:
                code, ctype, body = exchange(c, "GET", path, hdrs)
            except (http.client.HTTPException, OSError) as e:
                tally.note(tally.cut, "GET #%d: %r" % (i, e))
                c.close()
                c = self.conn()
                continue
            tally.add(code)
            if code != 200:
                tally.note(errors, (code, body[:300]))
            elif json.loads(body)["metadata"]["name"] != self.cm["name"]:
                tally.note(errors, (code, body[:300]))
        c.close()

    def attack_loop(self, stop, tally, fixed):
        """Invalid tokens until stop: reads, and writes with a body; one
        token (fixed), or a new one for each request."""
        c = self.conn()
        i = 0
        while not stop.is_set():
            i += 1
            hdrs = {"Authorization": "Bearer " + (fixed or "not-a-token-%d" % i)}
            write = i % 2 == 0
            body = None
            path = "/api/v1/namespaces/default/configmaps"
            if write:
                body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                                   "metadata": {"name": "x%d" % i},
                                   "data": {"k": "v" * 2000}})
                hdrs["Content-Type"] = "application/json"
            try:
                code, ctype, raw = exchange(c, "POST" if write else "GET",
                                            path, hdrs, body)
            except (http.client.HTTPException, OSError) as e:
                tally.note(tally.cut, "%s #%d: %r" % ("POST" if write else "GET", i, e))
                c.close()
                c = self.conn()
                continue
            tally.add(code)
            st = json.loads(raw) if raw.startswith(b"{") else None
            # whole: the upstream's 401, or the proxy's own clear Status
            ok = st and st.get("kind") == "Status" and st.get("code") == code and (
                code == 401 or code in (502, 503))
            if not ok:
                tally.note(tally.bad, (code, raw[:300]))
        c.close()

    def metric(self, name):
        m = h.request("GET", self.proxy.url + "/metrics")[2].decode()
        for line in m.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[-1])
        return 0.0

    def faulty(self, method, resets, tag):
        """A request as admin that the front resets, before any answer,
        the first resets times it comes, on a connection the admin's pool
        has used before; returns (status, Status or object, attempts the
        front saw, retries the proxy counted)."""
        ns = self.cm["namespace"]
        hdrs = {"Authorization": "Bearer " + ADMIN}
        c = self.conn()
        self.addCleanup(c.close)
        # the pool's connection, made and kept
        code, _, _ = exchange(c, "GET", "/api/v1/namespaces/%s/configmaps/%s" % (
            ns, self.cm["name"]), hdrs)
        self.assertEqual(code, 200)
        body = None
        if method == "POST":
            hdrs["Content-Type"] = "application/json"
            body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "retry-" + tag}, "data": {"k": "v"}})
            path = "/api/v1/namespaces/%s/configmaps" % ns
        else:
            path = "/api/v1/namespaces/%s/configmaps/%s" % (ns, self.cm["name"])
        before = self.metric("informer_proxy_passthrough_retries_total")
        code, _, raw = exchange(c, method, path + "?h2frontReset=%d&h2frontId=%s" % (resets, tag),
                                hdrs, body)
        retries = self.metric("informer_proxy_passthrough_retries_total") - before
        return code, json.loads(raw), self.front.logs().count("attempt %s\n" % tag), retries

    def test_read_retried_once(self):
        code, obj, attempts, retries = self.faulty("GET", 1, "get-once")
        self.assertEqual(code, 200, obj)
        self.assertEqual(obj["metadata"]["name"], self.cm["name"])
        self.assertEqual((attempts, retries), (2, 1))

    def test_read_failing_again_is_503(self):
        code, st, attempts, retries = self.faulty("GET", 5, "get-twice")
        self.assertEqual((code, st["kind"], st["code"], st["reason"], st["message"]),
                         (503, "Status", 503, "ServiceUnavailable",
                          "the upstream apiserver could not be reached"), st)
        self.assertEqual((attempts, retries), (2, 1))  # once only

    def test_write_not_retried(self):
        code, st, attempts, retries = self.faulty("POST", 1, "post")
        self.assertEqual((code, st["kind"], st["code"]), (503, "Status", 503), st)
        self.assertEqual((attempts, retries), (1, 0))
        code, _, _ = h.request("GET", self.fake.url + "/api/v1/namespaces/%s/configmaps/retry-post" %
                               self.cm["namespace"], headers={"Authorization": "Bearer " + ADMIN})
        self.assertEqual(code, 404)  # never created

    def test_bad_tokens_do_not_break_another_client(self):
        readers, attackers = Tally(), Tally()
        errors = []
        stop = threading.Event()
        ats = [threading.Thread(target=self.attack_loop,
                                args=(stop, attackers, "bad-token" if k else None))
               for k in range(ATTACKERS)]
        for t in ats:
            t.start()
        per = REQUESTS // READERS
        rts = [threading.Thread(target=self.read_loop,
                                args=(per + (1 if k < REQUESTS % READERS else 0),
                                      readers, errors))
               for k in range(READERS)]
        t0 = time.time()
        for t in rts:
            t.start()
        for t in rts:
            t.join()
        stop.set()
        for t in ats:
            t.join()
        took = time.time() - t0
        goaways = self.front.logs().count("goaway\n")
        m = h.request("GET", self.proxy.url + "/metrics")[2].decode()
        counts = {k: [line.split()[-1] for line in m.splitlines() if line.startswith(k + " ")]
                  for k in ("informer_proxy_passthrough_retries_total",
                            "informer_proxy_passthrough_unpooled_total")}
        sys.stderr.write("isolation: %d reads in %.1f s, reader codes %s, "
                         "attacker codes %s, %d GOAWAYs, %s\n" % (
                             REQUESTS, took, readers.codes, attackers.codes,
                             goaways, counts))
        # the attack happened: the upstream ended many connections
        self.assertGreater(attackers.codes.get(401, 0), 10, attackers.codes)
        self.assertGreater(goaways, 10)
        self.assertEqual(readers.cut, [], "reads cut short")
        self.assertEqual(errors, [], "reads that failed")
        self.assertEqual(readers.codes, {200: REQUESTS})
        self.assertEqual(attackers.cut, [], "invalid-token answers cut short")
        self.assertEqual(attackers.bad, [], "invalid-token answers not a Status")


class FakeEndsUnauthenticated(unittest.TestCase):
    """The fake, as the apiserver on HTTP/1.1, answers an unauthenticated
    request with Connection: close and closes; an authenticated one keeps
    its connection."""

    def test_401_closes(self):
        d = tempfile.mkdtemp(prefix="isolation-fake-")
        self.addCleanup(shutil.rmtree, d, True)
        users = os.path.join(d, "users.csv")
        with open(users, "w") as f:
            f.write("%s,admin,uid-admin,system:masters\n" % ADMIN)
        fake = h.fake("--quiet", "--users", users, seed="configmaps=1")
        self.addCleanup(fake.stop)
        host, port = fake.url.rsplit("/", 1)[1].rsplit(":", 1)
        c = http.client.HTTPConnection(host, int(port), timeout=10)
        self.addCleanup(c.close)
        for _ in range(2):  # kept alive
            c.request("GET", "/api/v1/configmaps", headers={"Authorization": "Bearer " + ADMIN})
            r = c.getresponse()
            r.read()
            self.assertEqual((r.status, r.getheader("Connection")), (200, None))
        for authz in ("Authorization: Bearer nobody\r\n", ""):
            sock = socket.create_connection((host, int(port)), timeout=10)
            self.addCleanup(sock.close)
            sock.sendall(("GET /api/v1/configmaps HTTP/1.1\r\nHost: x\r\n%s\r\n" %
                          authz).encode())
            raw = b""
            while True:  # until the fake closes: a timeout fails the test
                chunk = sock.recv(65536)
                if not chunk:
                    break
                raw += chunk
            head, _, body = raw.partition(b"\r\n\r\n")
            self.assertTrue(head.startswith(b"HTTP/1.1 401 "), head)
            self.assertIn(b"\r\nConnection: close", head)
            self.assertEqual(json.loads(body)["reason"], "Unauthorized")

class WholeOrStatus(unittest.TestCase):
    """An upstream answer cut short before the proxy sent any of it is
    answered with a clear Status, never passed on cut: to a read (which
    has its headers already, so is not sent again) and to a write (which
    cannot be)."""

    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=5,configmaps=300")
        cls.addClassCleanup(cls.fake.stop)
        cls.proxy = h.proxy(cls.fake.url, "pods")
        cls.addClassCleanup(cls.proxy.stop)
        h.wait_ready(cls.proxy.url)
        host, port = cls.proxy.url.rsplit("/", 1)[1].rsplit(":", 1)
        cls.addr = (host, int(port))
        code, _, cm = h.request("GET", cls.fake.url + "/api/v1/configmaps")
        assert code == 200, code
        cls.cm = json.loads(cm)["items"][0]["metadata"]

    def cut_next(self, n):
        code, _, out = h.request("POST", self.fake.url + "/fake/faults",
                                 body={"cutAfterBytes": n})
        self.assertEqual(code, 200, out)

    def standing_cut(self):
        return h.get_json(self.fake.url + "/fake/faults")[1]["cutAfterBytes"]

    def check(self, method, path, body, good):
        """Until the cut lands on this request (the proxy's own requests
        may take it first): every answer is whole, and the cut one is a
        503 Status."""
        hdrs = {"Content-Type": "application/json"} if body else {}
        for attempt in range(20):
            self.cut_next(40)
            c = http.client.HTTPConnection(*self.addr, timeout=30)
            try:
                code, _, raw = exchange(c, method, path, hdrs,
                                        body and json.dumps(body(attempt)))
            except (http.client.HTTPException, OSError) as e:
                self.fail("%s %s: the answer was cut: %r" % (method, path, e))
            finally:
                c.close()
            if code == good:
                json.loads(raw)  # whole: the cut went to another request
                h.wait_until(lambda: self.standing_cut() < 0, timeout=10)
                continue
            st = json.loads(raw)
            self.assertEqual((code, st["kind"], st["code"], st["reason"]),
                             (503, "Status", 503, "ServiceUnavailable"), raw)
            self.assertIn("ended early", st["message"])
            return
        self.fail("the cut never landed on %s %s" % (method, path))

    def test_read_cut_short(self):
        self.check("GET", "/api/v1/namespaces/%s/configmaps/%s" % (
            self.cm["namespace"], self.cm["name"]), None, 200)

    def test_long_answer_cut_short(self):
        """Past the 64 KiB held, the answer streams: cut after that, the
        client's connection is closed before the body's end, which the
        client sees as an error, never as a shorter answer (or, if the
        cut came before the proxy began to send, a 503 Status)."""
        code, _, whole = h.request("GET", self.fake.url + "/api/v1/configmaps")
        self.assertEqual(code, 200)
        self.assertGreater(len(whole), 200 * 1024)
        for attempt in range(20):
            self.cut_next(150 * 1024)
            c = http.client.HTTPConnection(*self.addr, timeout=30)
            try:
                code, _, raw = exchange(c, "GET", "/api/v1/configmaps", {})
            except http.client.IncompleteRead as e:
                self.assertGreater(len(e.partial), 64 * 1024)  # it streamed
                return
            finally:
                c.close()
            if code == 503:
                st = json.loads(raw)
                self.assertEqual((st["kind"], st["code"]), ("Status", 503), st)
                self.assertIn("ended early", st["message"])
                return
            # whole: the cut went to another request
            self.assertEqual(code, 200, raw[:300])
            json.loads(raw)
            h.wait_until(lambda: self.standing_cut() < 0, timeout=10)
        self.fail("the cut never landed")

    def test_write_cut_short(self):
        self.check("POST", "/api/v1/namespaces/%s/configmaps" % self.cm["namespace"],
                   lambda i: {"apiVersion": "v1", "kind": "ConfigMap",
                              "metadata": {"name": "cut-%d" % i}, "data": {"k": "v"}},
                   201)


if __name__ == "__main__":
    unittest.main()
