"""The proxy in front of a fake that behaves like a real cluster: the
global resourceVersion moves every second (Lease renewals), etcd is
compacted, and `events` is served without the watch cache (no BOOKMARKs).

ConsistentReads: reads without resourceVersion stay exact (they include
every write the upstream acknowledged before them) and never wait out a
quiet resource's next BOOKMARK; a quiet resource a probe just found behind
is forwarded without another probe until an event reaches the cache.

QuietEvents: a quiet `events` resource through nine watch renewals and
six compactions, what an hour brings, with every clock shortened
(compaction every 3 s instead of 5 min, watch deadlines of 2 s instead
of 5-10 min, a stall timeout of 2 s instead of 90 s): no stall, no
relist, no request but the watch renewals, and every event that does
happen reaches a local watcher.
"""
import json
import threading
import time
import unittest
import urllib.parse

import harness as h


def relists(m, resource):
    """A resource's relists, all reasons together."""
    head = 'informer_proxy_relists_total{resource="%s",' % resource
    return sum(v for k, v in m.items() if k.startswith(head))


def metrics(proxy):
    """{"name{labels}": value} from /metrics."""
    _, _, raw = h.request("GET", proxy.url + "/metrics")
    out = {}
    for line in raw.decode().splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def fake_stats(fake):
    return h.get_json(fake.url + "/fake/stats")[1]


def patch(base, path, labels):
    s, _, raw = h.request("PATCH", base + path,
                          body=json.dumps({"metadata": {"labels": labels}}).encode(),
                          headers={"Content-Type": "application/merge-patch+json"})
    assert s == 200, (s, raw[:300])
    return int(json.loads(raw)["metadata"]["resourceVersion"])


class ConsistentReads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Leases every second: the global RV moves under a quiet resource
        # ten times faster than in a real cluster.
        cls.fake = h.fake("--lease-interval", "1", "--bookmark-interval", "60",
                          seed="pods=40,configmaps=40")
        cls.proxy = h.proxy(cls.fake.url, "pods,configmaps")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def global_rv_moves(self):
        """Wait until a Lease renewal moved the RV past every write so far."""
        _, lst = h.get_json(self.fake.url + "/api/v1/namespaces/ns-0/pods?limit=1")
        rv = int(lst["metadata"]["resourceVersion"])
        h.wait_until(lambda: int(h.get_json(self.fake.url + "/api/v1/namespaces/ns-0/pods?limit=1")
                                 [1]["metadata"]["resourceVersion"]) > rv,
                     timeout=10, what="a background write upstream")

    def test_write_elsewhere_between_reads(self):
        stale0 = metrics(self.proxy)["informer_proxy_consistent_reads_stale_total"]
        cm = "/api/v1/namespaces/ns-3/configmaps/cm-3"
        for i in range(20):
            s, first = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-3/configmaps")
            self.assertEqual(s, 200)
            # a write to the read resource, straight at the upstream, then
            # a write to another resource, which moves the RV past it
            want = patch(self.fake.url, cm, {"seq": str(i)})
            other = patch(self.fake.url, "/api/v1/namespaces/ns-1/pods/web-1", {"seq": str(i)})
            self.assertGreater(other, want)
            t = time.time()
            s, lst = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-3/configmaps")
            took = time.time() - t
            self.assertEqual(s, 200)
            got = [o for o in lst["items"] if o["metadata"]["name"] == "cm-3"]
            self.assertEqual(got[0]["metadata"]["labels"].get("seq"), str(i),
                             "read %d missed a write the upstream acknowledged before it" % i)
            self.assertGreaterEqual(int(lst["metadata"]["resourceVersion"]), want)
            self.assertLess(took, 1.0, "an RV-less read of a quiet resource waited %.2fs" % took)
            s, obj = h.get_json(self.proxy.url + cm)
            self.assertEqual((s, obj["metadata"]["labels"].get("seq")), (200, str(i)))
        m = metrics(self.proxy)
        self.assertEqual(m["informer_proxy_consistent_reads_stale_total"], stale0,
                         "reads were served stale while the upstream answered")

    def test_quiet_resource_goes_upstream_and_matches_it(self):
        self.global_rv_moves()
        up0 = metrics(self.proxy)["informer_proxy_reads_sent_upstream_total"]
        path = "/api/v1/namespaces/ns-5/configmaps?labelSelector=" + urllib.parse.quote("app=web")
        s, mine = h.get_json(self.proxy.url + path)
        s2, theirs = h.get_json(self.fake.url + path)
        self.assertEqual((s, s2), (200, 200))
        self.assertTrue(theirs["items"])
        self.assertEqual([o["metadata"]["name"] for o in mine["items"]],
                         [o["metadata"]["name"] for o in theirs["items"]])
        self.assertGreater(metrics(self.proxy)["informer_proxy_reads_sent_upstream_total"], up0)

    def configmap_lists(self):
        return fake_stats(self.fake)["resources"]["configmaps"]["list"]

    def read_counting(self, path):
        """An RV-less read through the proxy: (its body, the LISTs the fake
        received meanwhile, the reads the proxy sent upstream)."""
        n0, up0 = self.configmap_lists(), metrics(self.proxy)["informer_proxy_reads_sent_upstream_total"]
        s, lst = h.get_json(self.proxy.url + path)
        self.assertEqual(s, 200, lst)
        return (lst, self.configmap_lists() - n0,
                metrics(self.proxy)["informer_proxy_reads_sent_upstream_total"] - up0)

    def test_quiet_resource_second_read_makes_one_request(self):
        # The first read of a quiet resource probes (limit=1) and, the cache
        # behind, is forwarded: two LISTs upstream. The next one, the cache
        # not having moved, is forwarded at once: one LIST, no probe. (A
        # probe the proxy sends in the background now and then, or an event
        # arriving in between, may add one; so the pair is tried again.)
        path = "/api/v1/namespaces/ns-6/configmaps"
        self.global_rv_moves()

        def one_request():
            _, lists, sent = self.read_counting(path)
            if (lists, sent) != (2, 1):
                return False
            _, lists, sent = self.read_counting(path)
            return (lists, sent) == (1, 1)
        self.assertTrue(h.poll(one_request, timeout=30, interval=2.2),
                        "every second read of a quiet resource probed before it was forwarded")

    def test_quiet_resource_event_brings_the_probe_back(self):
        # After a forwarded read without a probe: a write straight at the
        # upstream is in the very next read, whether the proxy saw its
        # event yet or not; once the event is in the cache, the next read
        # probes again. Tried again when the machine was too slow for the
        # sequence to fit in the 2 s the finding lasts (the finding would
        # then have ended by age, not by the event).
        path = "/api/v1/namespaces/ns-8/configmaps"
        cm = path + "/cm-8"
        unprobed = "informer_proxy_reads_sent_upstream_unprobed_total"
        tries = []
        for i in range(8):
            time.sleep(2.2)  # any earlier finding has ended
            self.global_rv_moves()
            t0 = time.monotonic()
            _, lists, sent = self.read_counting(path)
            _, lists2, sent2 = self.read_counting(path)
            if (lists, sent, lists2, sent2) != (2, 1, 1, 1):
                tries.append("pair %s" % ((lists, sent, lists2, sent2),))
                continue
            want = patch(self.fake.url, cm, {"ev": str(i)})
            lst, _, _ = self.read_counting(path)
            got = [o for o in lst["items"] if o["metadata"]["name"] == "cm-8"]
            self.assertEqual(got[0]["metadata"]["labels"].get("ev"), str(i),
                             "a read right after a write missed it")
            self.assertGreaterEqual(int(lst["metadata"]["resourceVersion"]), want)
            h.wait_until(lambda: int(h.get_json(self.proxy.url + path + "?resourceVersion=0")
                                     [1]["metadata"]["resourceVersion"]) >= want,
                         timeout=10, what="the event in the cache")
            un0, n0 = metrics(self.proxy)[unprobed], self.configmap_lists()
            lst, _, _ = self.read_counting(path)
            took = time.monotonic() - t0
            if took > 1.5:
                tries.append("slow %.2fs" % took)
                continue
            self.assertEqual(metrics(self.proxy)[unprobed], un0,
                             "a read after an event went upstream without a probe")
            self.assertGreaterEqual(self.configmap_lists() - n0, 1)
            return
        self.fail("the sequence never fit: %s" % tries)

    def test_rv_from_another_resource(self):
        # resourceVersion=N where N came from a write to another resource:
        # the configmaps cache may never reach N by itself before its next
        # bookmark; the answer must still come, at N or later
        n = patch(self.fake.url, "/api/v1/namespaces/ns-2/pods/web-2", {"x": str(int(time.time() * 1000))})
        t = time.time()
        s, lst = h.get_json(self.proxy.url + "/api/v1/configmaps?resourceVersion=%d" % n)
        self.assertEqual(s, 200, lst)
        self.assertGreaterEqual(int(lst["metadata"]["resourceVersion"]), n)
        self.assertLess(time.time() - t, 1.0)

    def test_old_rv_of_a_quiet_resource_still_resumes(self):
        # a local watch from the RV of an earlier LIST of a quiet resource,
        # after the global RV moved on: no 410, and later writes arrive
        _, lst = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-7/configmaps?resourceVersion=0")
        rv = lst["metadata"]["resourceVersion"]
        self.global_rv_moves()
        self.global_rv_moves()
        w = h.Watch(self.proxy.url + "/api/v1/namespaces/ns-7/configmaps?watch=1&resourceVersion=" + rv)
        try:
            want = patch(self.fake.url, "/api/v1/namespaces/ns-7/configmaps/cm-7", {"late": "1"})
            evs = w.wait_for(1)
            self.assertTrue(evs, "no event")
            self.assertEqual(evs[0]["type"], "MODIFIED", evs[0])
            self.assertEqual(int(evs[0]["object"]["metadata"]["resourceVersion"]), want)
        finally:
            w.close()


class QuietEvents(unittest.TestCase):
    WATCH_S = 2            # --watch-timeout: a renewal every 2 s
    RUN_S = 18             # nine renewals, six compactions

    def test_an_hour_of_quiet_events(self):
        fake = h.fake("--lease-interval", "1", "--event-interval", "0",
                      "--bookmark-interval", "1", "--compact-interval", "3",
                      seed="configmaps=20")
        self.addCleanup(fake.stop)
        proxy = h.proxy(fake.url, "events,configmaps", "--watch-timeout", str(self.WATCH_S),
                        "--upstream-stall-timeout", "2", "--upstream-settle", "1")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        _, lst = h.get_json(proxy.url + "/api/v1/events?resourceVersion=0")
        local = h.Watch(proxy.url + "/api/v1/events?watch=1&allowWatchBookmarks=false"
                        "&resourceVersion=" + lst["metadata"]["resourceVersion"],
                        timeout=self.RUN_S + 30)
        self.addCleanup(local.close)
        base = fake_stats(fake)["resources"]["events"]

        stop = threading.Event()

        def churn():  # other resources change all along
            i = 0
            while not stop.is_set():
                patch(fake.url, "/api/v1/namespaces/ns-%d/configmaps/cm-%d" % (i % 10, i % 20),
                      {"seq": str(i)})
                i += 1
                stop.wait(0.2)
        th = threading.Thread(target=churn, daemon=True)
        th.start()
        self.addCleanup(stop.set)
        t0 = time.time()
        time.sleep(self.RUN_S / 2)
        # one event happens half-way, long after the last change
        s, _, raw = h.request("POST", fake.url + "/api/v1/namespaces/default/events", body={
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "half-way", "namespace": "default"},
            "involvedObject": {"kind": "Node", "name": "node-0"},
            "reason": "Test", "message": "half-way", "type": "Normal"})
        self.assertEqual(s, 201, raw[:300])
        created = int(json.loads(raw)["metadata"]["resourceVersion"])
        time.sleep(max(0.0, self.RUN_S - (time.time() - t0)))
        stop.set()
        th.join(5)

        got = fake_stats(fake)["resources"]["events"]
        m = metrics(proxy)
        logs = proxy.logs()
        ev_lines = [l for l in logs.splitlines() if "events:" in l]
        renewals = got["watch"] - base["watch"]
        report = ("events over %ds (watches of %ds): upstream LISTs %d, WATCHes %d, "
                  "relists %d, quiet resumes %d, warnings %d" % (
                      self.RUN_S, self.WATCH_S,
                      got["list"] - base["list"], renewals,
                      relists(m, "events"),
                      m['informer_proxy_quiet_resumes_total{resource="events"}'],
                      sum(1 for l in ev_lines if "warn" in l.lower())))
        print("\n  " + report)
        self.assertEqual(got["list"], base["list"],
                         "the quiet events resource was LISTed upstream: " + report)
        self.assertEqual(relists(m, "events"), 0, report)
        self.assertEqual([l for l in ev_lines if "warn" in l.lower()], [], report)
        # renewals at the deadline only: one per watch, give or take one
        self.assertGreaterEqual(renewals, self.RUN_S // self.WATCH_S - 2, report)
        self.assertLessEqual(renewals, self.RUN_S // self.WATCH_S + 2, report)
        self.assertGreater(m['informer_proxy_quiet_resumes_total{resource="events"}'], 0, report)
        # the local watcher stayed open and saw the one event there was
        evs = local.wait_for(1, timeout=5)
        self.assertFalse(local.closed, "the local watch was closed")
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in evs],
                         [("ADDED", "half-way")])
        self.assertEqual(int(evs[0]["object"]["metadata"]["resourceVersion"]), created)


if __name__ == "__main__":
    unittest.main()


class WipedUpstream(unittest.TestCase):
    def test_quiet_resumes_forget_a_wiped_cluster(self):
        # RVs seen before a wipe say nothing about the new cluster's: a
        # quiet resource must not be moved back up to one of them after
        # its relist, or every renewal would find the upstream "below" it
        # and relist again.
        fake = h.fake("--lease-interval", "1", "--event-interval", "0",
                      seed="pods=20,configmaps=20")
        self.addCleanup(fake.stop)
        proxy = h.proxy(fake.url, "pods,configmaps", "--watch-timeout", "1",
                        "--upstream-settle", "1")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        for i in range(60):   # the clock learns high RVs
            patch(fake.url, "/api/v1/namespaces/ns-%d/configmaps/cm-%d" % (i % 10, i % 20),
                  {"seq": str(i)})
        time.sleep(1.5)       # past the settle time, and a renewal each
        s, _, raw = h.request("POST", fake.url + "/fake/faults", body={"wipe": True})
        self.assertEqual(s, 200, raw)

        def both_relists():
            m = metrics(proxy)
            return sum(relists(m, r) for r in ("pods", "configmaps"))

        def same():
            for path in ("/api/v1/pods", "/api/v1/configmaps"):
                a = h.get_json(proxy.url + path + "?resourceVersion=0")[1]
                b = h.get_json(fake.url + path)[1]
                if sorted(o["metadata"]["uid"] for o in a["items"]) != \
                        sorted(o["metadata"]["uid"] for o in b["items"]):
                    return False
            return True
        h.wait_until(same, timeout=20, what="the proxy to follow the wiped cluster")
        h.wait_until(lambda: both_relists() >= 2, timeout=20, what="both resources relisted")
        settled = both_relists()
        time.sleep(3)         # three renewals of 1 s each, settle 1 s
        self.assertEqual(both_relists(), settled, "relists went on after the wipe:\n" +
                         proxy.logs()[-3000:])
        self.assertTrue(same())
