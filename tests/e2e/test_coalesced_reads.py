"""Consistent reads that share probes (docs/CONSISTENCY.md, "Coalesced
reads"): every RV-less read that arrives before a probe is sent joins it;
a quiet resource's reads are proven by a GET of their object or a LIST
of a small collection instead of each going upstream; and none of it
ever serves a read older than a write that came before it.

The fake runs its background writes (Leases every few seconds), so the
upstream's RV moves past a quiet resource's cache, as in a real cluster.
"""
import http.client
import json
import threading
import time
import unittest

import harness as h

PROBES = "informer_proxy_freshness_probes_total"


def metrics(url):
    """name{labels} -> value, summed over a name without its labels too."""
    _, _, body = h.request("GET", url + "/metrics")
    out = {}
    for line in body.decode().splitlines():
        if line.startswith("#") or " " not in line:
            continue
        key, val = line.rsplit(" ", 1)
        out[key] = float(val)
        name = key.split("{", 1)[0]
        if name != key:
            out[name] = out.get(name, 0) + float(val)
    return out


def faults(fake, body):
    st, _, out = h.request("POST", fake.url + "/fake/faults",
                           body=json.dumps(body).encode(),
                           headers={"Content-Type": "application/json"})
    assert st == 200, (st, out)


class Client:
    """One keep-alive connection."""

    def __init__(self, url):
        host, port = url.split("//", 1)[1].rsplit(":", 1)
        self.c = http.client.HTTPConnection(host, int(port), timeout=60)

    def get(self, path):
        self.c.request("GET", path)
        r = self.c.getresponse()
        return r.status, r.read()

    def close(self):
        self.c.close()


def together(n, fn):
    """Run fn(i) in n threads released at once; their results."""
    gate = threading.Barrier(n)
    out = [None] * n

    def run(i):
        try:
            gate.wait(30)
            out[i] = fn(i)
        except Exception as e:  # reported by the caller's asserts
            out[i] = ("error", repr(e))
    ts = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    return out, [t for t in ts if t.is_alive()]


class CoalescedReads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake(seed="pods=50,configmaps=5")
        cls.proxy = h.proxy(cls.fake.url, "pods")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def tearDown(self):
        faults(self.fake, {})

    def write(self, name, value):
        s, _, raw = h.request(
            "PATCH", self.fake.url + "/api/v1/namespaces/ns-1/pods/" + name,
            body=json.dumps({"metadata": {"labels": {"seq": str(value)}}}).encode(),
            headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(s, 200, raw)
        return json.loads(raw)["metadata"]["resourceVersion"]

    def move_upstream_rv(self):
        """A write the proxy does not cache: the upstream's RV moves past
        the pods cache, which stays where it was (a quiet resource)."""
        s, _, raw = h.request(
            "PATCH", self.fake.url + "/api/v1/namespaces/ns-1/configmaps/cm-1",
            body=json.dumps({"metadata": {"labels": {"t": str(time.time())}}}).encode(),
            headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(s, 200, raw)

    def quiet(self):
        """No pod written for over the 2 s that make a resource busy."""
        time.sleep(2.5)
        self.move_upstream_rv()

    def test_never_stale_under_concurrent_readers(self):
        # the proxy's watch brings each write 30 ms late, past a busy
        # resource's 15 ms grace: a read right after a write is proven by
        # a probe of its object or collection, or sent upstream
        faults(self.fake, {"watchDelayMs": 30})
        before = metrics(self.proxy.url)
        stop = threading.Event()
        errors = []

        def reader(path):
            c = Client(self.proxy.url)
            try:
                while not stop.is_set():
                    s, body = c.get(path)
                    if s != 200:
                        errors.append((path, s, body[:200]))
            finally:
                c.close()
        readers = [threading.Thread(target=reader, args=(p,)) for p in (
            "/api/v1/namespaces/ns-1/pods/web-1", "/api/v1/namespaces/ns-1/pods/web-1",
            "/api/v1/pods", "/api/v1/namespaces/ns-1/pods/web-11")]
        for t in readers:
            t.start()
        stale = []
        c = Client(self.proxy.url)
        try:
            for i in range(1000):
                rv = self.write("web-1", i)
                if i % 2:
                    s, body = c.get("/api/v1/pods")
                    self.assertEqual(s, 200)
                    lst = json.loads(body)
                    pod = [o for o in lst["items"] if o["metadata"]["name"] == "web-1"
                           and o["metadata"]["namespace"] == "ns-1"][0]
                else:
                    s, body = c.get("/api/v1/namespaces/ns-1/pods/web-1")
                    self.assertEqual(s, 200)
                    pod = json.loads(body)
                if pod["metadata"]["labels"].get("seq") != str(i) or \
                        int(pod["metadata"]["resourceVersion"]) < int(rv):
                    stale.append((i, rv, pod["metadata"]["resourceVersion"]))
        finally:
            stop.set()
            for t in readers:
                t.join(60)
            c.close()
        self.assertEqual(stale[:5], [])
        self.assertEqual(len(stale), 0)
        self.assertEqual(errors[:3], [])
        after = metrics(self.proxy.url)
        # the probes that can prove a read were asked, and said no
        for kind in ("object", "list"):
            key = PROBES + '{kind="%s"}' % kind
            self.assertGreater(after.get(key, 0) - before.get(key, 0), 0, key)
        self.assertEqual(after["informer_proxy_consistent_reads_stale_total"],
                         before["informer_proxy_consistent_reads_stale_total"])

    def test_quiet_reads_are_proven_not_forwarded(self):
        # a quiet resource the upstream's RV moved past: its RV-less reads
        # come from the cache after a probe of what they read, not one
        # upstream read each
        self.quiet()
        before = metrics(self.proxy.url)
        c = Client(self.proxy.url)
        try:
            for i in range(20):
                if i % 5 == 0:
                    self.move_upstream_rv()
                s, body = c.get("/api/v1/namespaces/ns-2/pods/web-2")
                self.assertEqual(s, 200)
                self.assertEqual(json.loads(body)["metadata"]["name"], "web-2")
                s, body = c.get("/api/v1/pods")
                self.assertEqual(s, 200)
                self.assertEqual(len(json.loads(body)["items"]), 50)
        finally:
            c.close()
        after = metrics(self.proxy.url)
        up = "informer_proxy_reads_sent_upstream_total"
        self.assertLessEqual(after[up] - before[up], 2)
        self.assertGreater(after[PROBES] - before[PROBES], 0)

    def test_a_narrower_list_is_sent_upstream_not_probed_whole(self):
        # one namespace of a collection cached whole: a list probe of all
        # of it would cost more than the LIST itself, so it goes upstream
        self.quiet()
        before = metrics(self.proxy.url)
        for _ in range(5):
            s, lst = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-2/pods")
            self.assertEqual((s, len(lst["items"])), (200, 5))
        after = metrics(self.proxy.url)
        key = PROBES + '{kind="list"}'
        self.assertEqual(after.get(key, 0), before.get(key, 0))
        up = "informer_proxy_reads_sent_upstream_total"
        self.assertEqual(after[up] - before[up], 5)

    def concurrent(self, path, n=40):
        """n RV-less reads of path at once, each probe 150 ms long: the
        upstream requests they cost (probes and reads sent upstream)."""
        faults(self.fake, {"latencyMs": 150})
        before = metrics(self.proxy.url)
        out, hung = together(n, lambda i: h.request("GET", self.proxy.url + path,
                                                     timeout=60)[0])
        self.assertEqual(hung, [])
        self.assertEqual(out, [200] * n)
        after = metrics(self.proxy.url)
        return sum(after.get(k, 0) - before.get(k, 0) for k in (
            PROBES, "informer_proxy_reads_sent_upstream_total"))

    def test_concurrent_reads_share_probes(self):
        # 40 reads at once: the probe in flight and the next, of each kind
        # a read may need (the RV, then its object or collection); a read
        # never costs an upstream request of its own
        for path in ("/api/v1/namespaces/ns-1/pods/web-21", "/api/v1/pods"):
            self.quiet()
            cost = self.concurrent(path)
            self.assertLessEqual(cost, 6, path)

    def test_failing_probes_answer_every_reader(self):
        # the probes fail (500): the joined readers are answered as
        # docs/CONSISTENCY.md says, from the cache or sent upstream (which
        # may fail too); nobody hangs
        self.quiet()
        faults(self.fake, {"latencyMs": 100, "failNext": {"count": 4, "code": 500}})
        out, hung = together(30, lambda i: h.request(
            "GET", self.proxy.url + ("/api/v1/namespaces/ns-1/pods/web-31" if i % 2
                                     else "/api/v1/namespaces/ns-1/pods"), timeout=60)[0])
        self.assertEqual(hung, [])
        self.assertTrue(all(s in (200, 500) for s in out), out)
        self.assertGreaterEqual(out.count(200), 20, out)

    def test_silent_probe_answers_every_reader(self):
        # a probe slower than its 5 s: the readers waiting on it are
        # answered at that deadline (from the cache, or sent upstream,
        # which then answers in its own time), none later
        self.quiet()
        faults(self.fake, {"latencyMs": 6000})
        t0 = time.monotonic()
        out, hung = together(6, lambda i: h.request(
            "GET", self.proxy.url + ("/api/v1/namespaces/ns-1/pods/web-41" if i % 2
                                     else "/api/v1/namespaces/ns-1/pods"), timeout=60)[0])
        self.assertEqual(hung, [])
        self.assertEqual(out, [200] * 6)
        self.assertLess(time.monotonic() - t0, 40)


if __name__ == "__main__":
    unittest.main()
