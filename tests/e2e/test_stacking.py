"""Two proxies stacked, B -> A -> fake (B's --server is A's URL): real
clients get the same answers through B as through A, and the fake still
serves one LIST and one open WATCH per resource."""
import json
import os
import sys
import threading
import time
import unittest

import harness as h

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clients"))
import clients as c  # noqa: E402

NS = "stk"


class StackedProxies(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake(seed="pods=80,configmaps=20")
        cls.a = cls.b = None
        try:
            c.namespace(cls.fake.url, NS)
            for p in c.crafted_pods():
                c.create(cls.fake.url, "pods", NS, p)
            cls.a = h.proxy(cls.fake.url, "pods,configmaps")
            h.wait_ready(cls.a.url)
            cls.a_stats = c.stats(cls.fake.url)
            cls.b = h.proxy(cls.a.url, "pods,configmaps")
            h.wait_ready(cls.b.url)
            cls.synced_stats = c.stats(cls.fake.url)
        except Exception:
            for s in (cls.b, cls.a, cls.fake):
                if s:
                    s.stop(check=False)
            raise
        cls.ka = c.Kubectl(cls.a.url)
        cls.kb = c.Kubectl(cls.b.url)

    @classmethod
    def tearDownClass(cls):
        cls.b.stop()
        cls.a.stop()
        cls.fake.stop()

    def test_fake_serves_one_list_and_one_watch_per_resource(self):
        # Right after both proxies synced, before any client: the fake holds
        # one WATCH per resource (B's go to A) and served A's one LIST. B's
        # first LIST is RV-less, a consistent read, which A answers after one
        # limit=1 probe of the fake: at most one more LIST, never a relist.
        st = self.synced_stats
        for res in ("pods", "configmaps"):
            self.assertEqual((st[res]["watch"], st[res]["watchOpen"]), (1, 1),
                             "fake /fake/stats once A and B were ready: %s" % st)
            self.assertEqual(self.a_stats[res]["list"], 1, self.a_stats)
            self.assertLessEqual(st[res]["list"], 2, st)

    def test_clients_of_both_cost_the_fake_no_watch_and_no_relist(self):
        st = self.synced_stats
        # Clients of both proxies. Reads at resourceVersion=0 are answered from
        # the cache and cost the fake nothing. A read without resourceVersion
        # must be as fresh as the fake (a consistent read); it may cost at most
        # one cheap probe at the fake (a limit=1 LIST), never a relist or a new
        # watch.
        api_b = c.python_core_api(self.b.url)
        api_a = c.python_core_api(self.a.url)
        for api in (api_a, api_b):
            api.list_pod_for_all_namespaces(resource_version="0")
            api.list_namespaced_config_map("ns-1", resource_version="0")
        mid = c.stats(self.fake.url)
        for res in ("pods", "configmaps"):
            self.assertEqual(mid[res]["list"], st[res]["list"],
                             "resourceVersion=0 reads reached the fake: %s" % mid)
        rv_less = {"pods": 0, "configmaps": 0}
        for k in (self.ka, self.kb):
            k.out("get", "pods", "-A")
            k.out("get", "configmaps", "-A")
            rv_less["pods"] += 1
            rv_less["configmaps"] += 1
        for url in (self.a.url, self.b.url):
            self.assertEqual(c.get(url, "pods", "ns-1")[0], 200)
            rv_less["pods"] += 1
        end = c.stats(self.fake.url)
        for res in ("pods", "configmaps"):
            self.assertEqual((end[res]["watch"], end[res]["watchOpen"]), (1, 1),
                             "a client made a proxy watch the fake again: %s" % end)
            self.assertLessEqual(end[res]["list"] - st[res]["list"], rv_less[res],
                                 "%d reads without resourceVersion cost the fake more LISTs: %s"
                                 % (rv_less[res], end))

    def test_kubectl_same_answers_through_b_as_through_a(self):
        for args in (["get", "pods", "-n", NS], ["get", "pods", "-A"],
                     ["get", "configmaps", "-n", "ns-2"], ["get", "pod", "crashloop", "-n", NS]):
            oa, ob = self.ka.out(*args), self.kb.out(*args)
            self.assertEqual(c.table(ob)[0], c.table(oa)[0], args)
            # AGE may tick between the two calls; every other cell is equal.
            strip = lambda t: [r[:-1] for r in c.table(t)[1]]
            self.assertEqual(strip(ob), strip(oa), args)
        hdr, _ = c.table(self.kb.out("get", "pods", "-n", NS))
        self.assertEqual(hdr, ["NAME", "READY", "STATUS", "RESTARTS", "AGE"])
        for args in (["get", "pods", "-A"], ["get", "configmaps", "-n", "ns-3"],
                     ["get", "pods", "-A", "--chunk-size=9"]):
            ja, jb = self.ka.json(*args), self.kb.json(*args)
            self.assertEqual(jb["items"], ja["items"], args)
            self.assertEqual(len(jb["items"]), len(ja["items"]))
        s, lst = c.get(self.fake.url, "pods")
        self.assertEqual(len(jb["items"]), len(lst["items"]))
        self.assertEqual(self.kb.out("describe", "pod", "crashloop", "-n", NS).splitlines()[:3],
                         self.ka.out("describe", "pod", "crashloop", "-n", NS).splitlines()[:3])

    def test_kubectl_watch_through_b(self):
        w = self.kb.watch("get", "pods", "-n", NS, "-w")
        try:
            w.expect(lambda l: l.startswith("running "), what="the initial rows")
            time.sleep(0.3)
            c.create(self.fake.url, "pods", NS, c.simple_pod("stacked-new"))
            w.expect(lambda l: l.startswith("stacked-new "), what="the new pod through B")
        finally:
            w.kill()
            c.delete(self.fake.url, "pods", NS, "stacked-new")

    def test_python_watch_same_through_b_as_through_a(self):
        ns = "stkw"
        c.namespace(self.fake.url, ns)
        c.create(self.fake.url, "pods", ns, c.simple_pod("seed"))
        api_a, api_b = c.python_core_api(self.a.url), c.python_core_api(self.b.url)
        h.wait_until(lambda: len(api_b.list_namespaced_pod(ns).items) == 1, what="B in sync")
        la, lb = api_a.list_namespaced_pod(ns), api_b.list_namespaced_pod(ns)
        ser = api_a.api_client.sanitize_for_serialization
        self.assertEqual(ser(lb.items), ser(la.items))
        rv = lb.metadata.resource_version
        self.assertEqual(rv, la.metadata.resource_version)

        done = threading.Event()
        want = lambda evs: done.is_set() and len(evs) >= 45
        results = {}

        def run(name, api):
            results[name] = c.python_watch_rounds(api, ns, rv, want, timeout_seconds=2, deadline=30)

        threads = [threading.Thread(target=run, args=(n, api), daemon=True)
                   for n, api in (("a", api_a), ("b", api_b))]
        for t in threads:
            t.start()
        try:
            for i in range(20):
                c.create(self.fake.url, "pods", ns, c.simple_pod("w-%d" % i))
                time.sleep(0.05)
            for i in range(15):
                c.patch(self.fake.url, "pods", ns, "w-%d" % i, {"metadata": {"labels": {"n": str(i)}}})
                time.sleep(0.05)
            for i in range(10):
                c.delete(self.fake.url, "pods", ns, "w-%d" % i)
                time.sleep(0.05)
        finally:
            done.set()
        for t in threads:
            t.join(40)
        ea, ra = results["a"]
        eb, rb = results["b"]
        self.assertEqual(len(ea), 45, ra)
        self.assertEqual(eb, ea)
        self.assertGreaterEqual(len(rb), 2, "B's watch should have crossed a timeout: %s" % rb)


if __name__ == "__main__":
    unittest.main()
