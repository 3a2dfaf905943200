"""python3-kubernetes (Debian's, for /usr/bin/python3), unchanged, against
informer-proxy: its list, get and watch calls see what the fake apiserver
holds."""
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

SELECTORS = ["tier=backend", "shard in (1,11,21,31)", "app=web,shard!=1", "shard notin (1,2,3)",
             "!missing-label", "app", "tier==frontend,shard"]


class PythonClientThroughProxy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # quiet: a Lease renewal between the proxied read and the direct
        # one would move the global resourceVersion the two are compared at
        cls.fake = h.fake("--quiet", seed="pods=200,configmaps=20")
        try:
            cls.proxy = h.proxy(cls.fake.url, "pods,configmaps")
            h.wait_ready(cls.proxy.url)
        except Exception:
            cls.fake.stop(check=False)
            raise
        cls.api = c.python_core_api(cls.proxy.url)
        cls.api_fake = c.python_core_api(cls.fake.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def test_list_namespaced_pod_label_selector_equals_fake(self):
        nonempty = 0
        for ns in ("ns-1", "ns-4"):
            for sel in SELECTORS:
                # Typed: what a program using the client sees.
                got = self.api.list_namespaced_pod(ns, label_selector=sel)
                want = self.api_fake.list_namespaced_pod(ns, label_selector=sel)
                ser = self.api.api_client.sanitize_for_serialization
                self.assertEqual(ser(got.items), ser(want.items), sel)
                self.assertEqual(got.metadata.resource_version, want.metadata.resource_version)
                # Raw: the same bytes decoded, nothing lost by the typed model.
                rg = json.loads(self.api.list_namespaced_pod(
                    ns, label_selector=sel, _preload_content=False).data)
                s, rf = c.get(self.fake.url, "pods", ns,
                              query="?labelSelector=" + c.urllib.parse.quote(sel))
                self.assertEqual(s, 200)
                self.assertEqual(rg["items"], rf["items"], sel)
                nonempty += bool(rf["items"])
        self.assertGreaterEqual(nonempty, 8, "the selectors should select something")

    def test_watch_across_timeouts_sees_every_change_once(self):
        ns = "pyw"
        c.namespace(self.fake.url, ns)
        for i in range(5):
            c.create(self.fake.url, "pods", ns, c.simple_pod("before-%d" % i))
        h.wait_until(lambda: len(self.api.list_namespaced_pod(ns).items) == 5,
                     what="the proxy to see the first pods")
        start = self.api.list_namespaced_pod(ns)
        rv = start.metadata.resource_version

        # 100 changes through the fake over ~7 s (several 2 s streams): 40 creates, 40 updates, 20 deletes.
        wrote = []  # (type, name, rv from the fake's answer, or None for deletes)
        done = threading.Event()
        errors = []

        def writer():
            try:
                for i in range(40):
                    o = c.create(self.fake.url, "pods", ns, c.simple_pod("p-%d" % i))
                    wrote.append(("ADDED", o["metadata"]["name"], o["metadata"]["resourceVersion"]))
                    time.sleep(0.06)
                for i in range(40):
                    o = c.patch(self.fake.url, "pods", ns, "p-%d" % i,
                                {"metadata": {"labels": {"round": str(i)}}})
                    wrote.append(("MODIFIED", "p-%d" % i, o["metadata"]["resourceVersion"]))
                    time.sleep(0.06)
                for i in range(20):
                    c.delete(self.fake.url, "pods", ns, "p-%d" % i)
                    wrote.append(("DELETED", "p-%d" % i, None))
                    time.sleep(0.06)
            except Exception as e:  # reported by the test thread
                errors.append(e)
            finally:
                done.set()

        t = threading.Thread(target=writer, daemon=True)
        t.start()
        events, rounds = c.python_watch_rounds(
            self.api, ns, rv, lambda evs: done.is_set() and len(evs) >= 100,
            timeout_seconds=2, deadline=40)
        t.join(10)
        self.assertEqual(errors, [])
        # One more stream from the last resourceVersion: nothing may come again.
        more, last = c.python_watch_rounds(self.api, ns, events[-1][2] if events else rv,
                                           lambda evs: True, timeout_seconds=1, deadline=5)
        self.assertEqual(more, [], "events delivered again after resuming")

        self.assertEqual(len(events), 100, "rounds (seconds, events): %s" % rounds)
        self.assertEqual([(e[0], e[1]) for e in events], [(w[0], w[1]) for w in wrote])
        for e, w in zip(events, wrote):
            if w[2] is not None:
                self.assertEqual(e[2], w[2], e)
        rvs = [int(e[2]) for e in events]
        self.assertEqual(rvs, sorted(set(rvs)), "resourceVersions repeat or go back")
        self.assertGreater(rvs[0], int(rv))
        # The server ended each stream at timeoutSeconds=2, and the client resumed.
        self.assertGreaterEqual(len(rounds), 3, rounds)
        for secs, _ in rounds[:-1]:
            self.assertTrue(1.0 <= secs <= 5.0, "a stream with timeoutSeconds=2 lasted %.1fs: %s"
                            % (secs, rounds))
        self.assertTrue(0.5 <= last[0][0] <= 4.0, "timeoutSeconds=1 stream lasted %.1fs" % last[0][0])
        # What the watch built equals the fake's state.
        final = {e[1]: e[2] for e in events if e[0] != "DELETED"}
        for i in range(20):
            final.pop("p-%d" % i, None)
        s, lst = c.get(self.fake.url, "pods", ns)
        fake_state = {o["metadata"]["name"]: o["metadata"]["resourceVersion"]
                      for o in lst["items"] if o["metadata"]["name"].startswith("p-")}
        self.assertEqual(final, fake_state)


if __name__ == "__main__":
    unittest.main()
