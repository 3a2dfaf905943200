"""Reads that must be fresh: an RV-less LIST/GET sees every write the
upstream acknowledged before it (a limit=1 probe, then a wait for the
watch), resourceVersion=N waits for N up to 3 s then 504, and the
waiting never blocks other requests."""
import json
import threading
import time
import unittest

import harness as h


class FreshReads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake(seed="pods=50")
        cls.proxy = h.proxy(cls.fake.url, "pods")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def patch(self, name, value):
        s, _, raw = h.request("PATCH", self.fake.url + "/api/v1/namespaces/ns-1/pods/" + name,
                              body=json.dumps({"metadata": {"labels": {"seq": str(value)}}}).encode(),
                              headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(s, 200)
        return json.loads(raw)["metadata"]["resourceVersion"]

    def test_write_then_list_sees_the_write(self):
        for i in range(100):
            rv = self.patch("web-1", i)
            s, lst = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-1/pods")
            self.assertEqual(s, 200)
            self.assertGreaterEqual(int(lst["metadata"]["resourceVersion"]), int(rv))
            pod = [o for o in lst["items"] if o["metadata"]["name"] == "web-1"][0]
            self.assertEqual(pod["metadata"]["labels"]["seq"], str(i))

    def test_write_then_get_sees_the_write(self):
        for i in range(100):
            rv = self.patch("web-11", i)
            s, pod = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-1/pods/web-11")
            self.assertEqual((s, pod["metadata"]["resourceVersion"]), (200, rv))

    def test_write_then_rvless_watch_starts_with_the_write(self):
        for i in range(20):
            rv = self.patch("web-31", i)
            w = h.Watch(self.proxy.url + "/api/v1/namespaces/ns-1/pods?watch=1&fieldSelector=metadata.name%3Dweb-31")
            try:
                evs = w.wait_for(1)
                self.assertEqual(evs[0]["type"], "ADDED")
                self.assertEqual(evs[0]["object"]["metadata"]["resourceVersion"], rv)
                self.assertEqual(evs[0]["object"]["metadata"]["labels"]["seq"], str(i))
            finally:
                w.close()

    def test_rv0_is_served_without_asking_upstream(self):
        # resourceVersion=0 is "any state": it must not wait or probe, even
        # with the upstream frozen
        self.fake.proc.send_signal(19)   # SIGSTOP
        try:
            t = time.time()
            s, lst = h.get_json(self.proxy.url + "/api/v1/pods?resourceVersion=0", timeout=5)
            self.assertEqual(s, 200)
            self.assertLess(time.time() - t, 1.0)
        finally:
            self.fake.proc.send_signal(18)   # SIGCONT

    def test_future_rv_waits_then_504(self):
        _, lst = h.get_json(self.proxy.url + "/api/v1/pods?resourceVersion=0")
        future = int(lst["metadata"]["resourceVersion"]) + 1000000
        # meanwhile other requests are answered at once
        done = {}

        def slow():
            t = time.time()
            done["r"] = h.request("GET", self.proxy.url + "/api/v1/pods?resourceVersion=%d&resourceVersionMatch=NotOlderThan" % future)
            done["t"] = time.time() - t
        th = threading.Thread(target=slow)
        th.start()
        # Time for the slow request to start waiting. Were it late, the
        # checks below would only be weaker, never wrong.
        time.sleep(0.2)
        for _ in range(20):
            t = time.time()
            self.assertEqual(h.request("GET", self.proxy.url + "/api/v1/pods?resourceVersion=0&limit=1")[0], 200)
            self.assertLess(time.time() - t, 0.5)
        th.join()
        s, hdrs, raw = done["r"]
        st = json.loads(raw)
        self.assertEqual((s, st["reason"], st["code"]), (504, "Timeout", 504))
        self.assertEqual(hdrs["Retry-After"], "1")
        self.assertEqual(st["details"]["causes"][0]["reason"], "ResourceVersionTooLarge")
        self.assertEqual(st["details"]["retryAfterSeconds"], 1)
        self.assertTrue(st["message"].startswith("Timeout: Too large resource version: %d, current: " % future))
        self.assertGreater(done["t"], 2.5)
        self.assertLess(done["t"], 5)

    def test_rv_reached_during_the_wait(self):
        _, lst = h.get_json(self.proxy.url + "/api/v1/pods?resourceVersion=0")
        want = int(lst["metadata"]["resourceVersion"]) + 1
        threading.Timer(0.5, lambda: self.patch("web-21", "late")).start()
        t = time.time()
        s, got = h.get_json(self.proxy.url + "/api/v1/pods?resourceVersion=%d" % want)
        self.assertEqual(s, 200)
        self.assertGreaterEqual(int(got["metadata"]["resourceVersion"]), want)
        self.assertLess(time.time() - t, 2.5)

    def test_consistent_read_with_upstream_down_serves_cache(self):
        self.fake.proc.send_signal(19)
        try:
            # the probe cannot be answered; the read is served from the
            # cache once the wait gives up, not failed
            t = time.time()
            s, lst = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-2/pods", timeout=30)
            self.assertEqual(s, 200)
            self.assertTrue(lst["items"])
            # the probe's own 5 s limit, not its stuck connection's 30 s
            self.assertLess(time.time() - t, 15)
        finally:
            self.fake.proc.send_signal(18)


if __name__ == "__main__":
    unittest.main()
