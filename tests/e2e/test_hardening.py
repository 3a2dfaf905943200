"""Hostile inputs from a client: numbers past their type's range get a
clear answer and never crash or hang the proxy (issue: hardening).

Runs under `make SANITIZE=1 test` too, where UBSan aborts the proxy on a
signed overflow: the harness then fails the test at stop.
"""
import json
import unittest

import harness as h


class Numbers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=5")
        cls.proxy = h.proxy(cls.fake.url, "pods")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()   # checks the exit code and for sanitizer reports
        cls.fake.stop()

    def test_huge_timeout_seconds_is_a_long_watch(self):
        w = h.Watch(self.proxy.url + "/api/v1/pods?watch=1&resourceVersion=0"
                    "&timeoutSeconds=9223372036854775807", timeout=10)
        try:
            self.assertEqual(w.status, 200)
            evs = w.wait_for(5)
            self.assertEqual([e["type"] for e in evs], ["ADDED"] * 5)
        finally:
            w.close()
        self.assertEqual(h.request("GET", self.proxy.url + "/healthz")[0], 200)

    def test_resource_version_past_uint64(self):
        big = "18446744073709551616"   # 2^64
        s, _, raw = h.request("GET", self.proxy.url + "/api/v1/pods?watch=1&resourceVersion=" + big)
        st = json.loads(raw)
        self.assertEqual((s, st["kind"], st["reason"]), (400, "Status", "BadRequest"))
        # LIST answers it as the apiserver answers any unparsable value
        s, _, raw = h.request("GET", self.proxy.url + "/api/v1/pods?resourceVersion=" + big)
        self.assertEqual(s, 500)
        self.assertIn("resourceVersion: Invalid value", json.loads(raw)["message"])
        # the largest value is a number like any other: a watch from it
        # is accepted (nothing newer), not an error
        w = h.Watch(self.proxy.url + "/api/v1/pods?watch=1&timeoutSeconds=2"
                    "&resourceVersion=18446744073709551615", timeout=10)
        try:
            self.assertEqual(w.status, 200)
        finally:
            w.close()
        for bad in ("+5", " 5", "5 ", "-1", "0x10"):
            s, _, _ = h.request("GET", self.proxy.url + "/api/v1/pods?watch=1&resourceVersion="
                                + bad.replace(" ", "%20").replace("+", "%2B"))
            self.assertEqual(s, 400, bad)


if __name__ == "__main__":
    unittest.main()
