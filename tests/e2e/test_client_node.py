"""@kubernetes/client-node 1.4.0's informer (makeInformer), unchanged,
against informer-proxy: every change seen exactly once.

tests/clients/node/informer.mjs runs the informer and prints what it sees
as JSON lines; this test makes the changes through the fake apiserver and
checks that the informer saw each exactly once, including across a drop of
the proxy's upstream watch."""
import collections
import os
import sys
import time
import unittest

import harness as h

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clients"))
import clients as c  # noqa: E402

NS = "nd"


class NodeInformerThroughProxy(unittest.TestCase):
    def setUp(self):
        self.fake = h.fake(seed="pods=20")
        self.inf = self.proxy = None
        try:
            c.namespace(self.fake.url, NS)
            for i in range(10):
                c.create(self.fake.url, "pods", NS, c.simple_pod("old-%d" % i))
            self.proxy = h.proxy(self.fake.url, "pods")
            h.wait_ready(self.proxy.url)
        except Exception:
            if self.proxy:
                self.proxy.stop(check=False)
            self.fake.stop(check=False)
            raise

    def tearDown(self):
        if self.inf:
            self.inf.close()
        self.proxy.stop()
        self.fake.stop()

    def wait_events(self, pred, timeout=20, what="events"):
        if pred(self.inf.events):
            return
        self.inf.next_event(lambda _: pred(self.inf.events), timeout=timeout, what=what)

    def changes(self, creates, updates, deletes, tag):
        """Writes through the fake; returns [(informer event, name, rv)],
        with rv None for deletes (checked against the fake's state instead)."""
        out = []
        for n in creates:
            o = c.create(self.fake.url, "pods", NS, c.simple_pod(n))
            out.append(("add", n, o["metadata"]["resourceVersion"]))
        for n in updates:
            o = c.patch(self.fake.url, "pods", NS, n, {"metadata": {"labels": {"step": tag}}})
            out.append(("update", n, o["metadata"]["resourceVersion"]))
        for n in deletes:
            c.delete(self.fake.url, "pods", NS, n)
            out.append(("delete", n, None))
        return out

    def fake_state(self):
        s, lst = c.get(self.fake.url, "pods", NS)
        self.assertEqual(s, 200)
        return sorted([NS, o["metadata"]["name"], o["metadata"]["resourceVersion"]]
                      for o in lst["items"])

    def seen(self, kinds=("add", "update", "delete")):
        return [(e["ev"], e["name"], e["rv"]) for e in self.inf.events if e.get("ev") in kinds]

    def check_once(self, wrote, seen):
        """`seen` is exactly the writes, in order, each with the fake's resourceVersion."""
        self.assertEqual([(g[0], g[1]) for g in seen], [(w[0], w[1]) for w in wrote])
        for g, w in zip(seen, wrote):
            if w[2] is not None:
                self.assertEqual(g[2], w[2], g)
        dup = [k for k, n in collections.Counter(seen).items() if n > 1]
        self.assertEqual(dup, [], "events delivered twice")

    def test_informer_syncs_then_sees_every_change_even_across_upstream_drop(self):
        self.inf = c.node_informer(self.proxy.url, NS)
        synced = self.inf.next_event(lambda e: e.get("ev") in ("synced", "error"), timeout=20,
                                     what="synced")
        self.assertEqual(synced["ev"], "synced", synced)
        self.assertEqual(synced["n"], 10)
        self.assertEqual(sorted(e[1] for e in self.seen()), sorted("old-%d" % i for i in range(10)))
        self.assertEqual(self.inf.dump()["items"], self.fake_state())

        # 100 changes: 40 adds, 40 updates, 20 deletes.
        new = ["new-%d" % i for i in range(40)]
        wrote = self.changes(new, new, new[:20], "one")
        self.wait_events(lambda evs: len(self.seen()) >= 10 + 100, what="100 changes")
        time.sleep(0.3)   # a duration: no duplicate event may arrive in it
        self.inf.dump()
        self.check_once(wrote, self.seen()[10:])
        self.assertEqual(self.inf.dump()["items"], self.fake_state())

        # Drop the proxy's upstream watch; change things while it reconnects.
        n1 = len(self.seen())
        before = c.stats(self.fake.url)["pods"]
        s, _, body = h.request("POST", self.fake.url + "/fake/faults", {"dropWatches": True})
        self.assertEqual(s, 200, body)
        more = ["after-%d" % i for i in range(10)]
        wrote2 = self.changes(more, new[20:30] + ["old-0", "old-1"], new[30:40] + ["old-2"], "two")
        h.wait_until(lambda: c.stats(self.fake.url)["pods"]["watch"] > before["watch"],
                     what="the proxy to watch the fake again")
        want = self.fake_state()
        deadline = time.time() + 15
        while time.time() < deadline:
            got = self.inf.dump()["items"]
            if got == want:
                break
            time.sleep(0.2)
        self.assertEqual(got, want, "the informer's cache differs from the fake's LIST")
        time.sleep(0.3)   # a duration: no duplicate event may arrive in it
        self.inf.dump()
        self.check_once(wrote2, self.seen()[n1:])
        errors = [e for e in self.inf.events if e.get("ev") == "error"]
        self.assertEqual(errors, [], "the informer reported errors")
        st = c.stats(self.fake.url)["pods"]
        self.assertEqual(st["watchOpen"], 1, st)


if __name__ == "__main__":
    unittest.main()
