"""loadgen smoke: the load tool runs, and its consistency checker sees.

A fake apiserver seeded with pods, the proxy in front, and bin/loadgen
with 100 watchers spread over namespaces and label selectors for ten
seconds at a modest write rate. The run must end with exit 0, no
missed, duplicated or out-of-order events, and deliveries > 0.

The checker must not be blind: the same run straight against the fake
is clean too, while the self-test modes, which drop or repeat one
received event per watcher before checking, must be reported.

Nothing here asserts speed; `make bench` measures that.
"""
import json
import os
import subprocess
import unittest

import harness

LOADGEN = os.path.join(harness.BIN, "loadgen")
VIOLATIONS = ("missed", "duplicated", "out_of_order", "unexpected", "mismatched")


def run_loadgen(target, writer, *extra, timeout=120):
    """Run loadgen; returns (exit code, summary dict, stderr)."""
    args = [LOADGEN, "--target", target, "--writer", writer, "--quiet"]
    p = subprocess.run(args + [str(a) for a in extra], capture_output=True,
                       text=True, timeout=timeout)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if len(lines) != 1:
        raise AssertionError("loadgen printed %d JSON lines (exit %d):\n%s\n%s"
                             % (len(lines), p.returncode, p.stdout, p.stderr))
    return p.returncode, json.loads(lines[0]), p.stderr


class LoadgenSmoke(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(LOADGEN, os.X_OK):
            raise AssertionError("bin/loadgen is missing: `make` builds it")
        cls.fake = harness.fake(seed="pods=500")
        try:
            cls.proxy = harness.proxy(cls.fake.url, "pods")
            harness.wait_ready(cls.proxy.url)
        except Exception:
            cls.fake.stop(check=False)
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            cls.proxy.stop()
        finally:
            cls.fake.stop()

    def assertClean(self, rc, out, err):
        self.assertEqual({k: out["violations"][k] for k in VIOLATIONS},
                         {k: 0 for k in VIOLATIONS}, err)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out["errors"], 0, err)
        self.assertEqual(out["expired"], 0, err)
        self.assertGreater(out["writes"], 0, err)
        self.assertGreater(out["deliveries"], 0, err)
        # every delivered event was expected, and nothing was left over
        self.assertEqual(out["deliveries"], out["expected"], err)

    def test_smoke_through_proxy(self):
        rc, out, err = run_loadgen(
            self.proxy.url, self.fake.url, "--watchers", 100, "--selectors",
            "--namespaces", 4, "--write-rate", 30, "--list-rate", 5,
            "--get-rate", 20, "--duration", 10)
        self.assertClean(rc, out, err)
        self.assertEqual(out["watchers"], 100)
        self.assertGreater(out["lists"], 0)
        self.assertGreater(out["gets"], 0)
        self.assertGreater(out["latency_ms"]["n"], 0)
        for k in ("deliveries_per_s", "latency_ms", "last_ms", "list_ms", "get_ms"):
            self.assertIn(k, out)
        # last_ms: one figure per write that reached a watcher, the wait
        # of its slowest watcher, so at least any one delivery's
        self.assertGreater(out["last_ms"]["n"], 0)
        self.assertLessEqual(out["last_ms"]["n"], out["writes"])
        self.assertGreaterEqual(out["last_ms"]["max"], out["latency_ms"]["p50"])

    def test_checker_clean_against_the_fake(self):
        # the reference: the fake itself as the target
        rc, out, err = run_loadgen(
            self.fake.url, self.fake.url, "--watchers", 40, "--selectors",
            "--namespaces", 4, "--write-rate", 30, "--duration", 2)
        self.assertClean(rc, out, err)

    def test_checker_reports_a_dropped_event(self):
        rc, out, err = run_loadgen(
            self.proxy.url, self.fake.url, "--watchers", 20,
            "--write-rate", 30, "--duration", 2, "--self-test-drop", 3)
        self.assertEqual(rc, 1, err)
        # every watcher is cluster-wide, so each saw > 3 events and lost one
        self.assertEqual(out["violations"]["missed"], 20, out)
        self.assertEqual(out["violations"]["duplicated"], 0, out)

    def test_checker_reports_a_repeated_event(self):
        rc, out, err = run_loadgen(
            self.proxy.url, self.fake.url, "--watchers", 20,
            "--write-rate", 30, "--duration", 2, "--self-test-dup", 3)
        self.assertEqual(rc, 1, err)
        self.assertEqual(out["violations"]["duplicated"], 20, out)
        self.assertEqual(out["violations"]["missed"], 0, out)

    def test_watchers_spread_over_two_targets(self):
        # the proxy and the fake side by side in one run: each watcher is
        # checked against the writes whatever target it watches, and each
        # target reports its own deliveries and latencies
        rc, out, err = run_loadgen(
            self.proxy.url, self.fake.url, "--target", self.fake.url,
            "--watchers", 10, "--write-rate", 30, "--duration", 2)
        self.assertClean(rc, out, err)
        urls = [t["url"] for t in out["targets"]]
        self.assertEqual(urls, [self.proxy.url, self.fake.url])
        for t in out["targets"]:
            # 5 cluster-wide watchers each: every one sees every write
            self.assertEqual(t["deliveries"], out["deliveries"] // 2, out)
            self.assertGreater(t["latency_ms"]["n"], 0, out)
        self.assertEqual(sum(t["deliveries"] for t in out["targets"]),
                         out["deliveries"])
        # the lag of the second target behind the first, per event: the
        # proxy against the fake it is in front of, so the fake's watchers
        # are mostly ahead and the proxy's mostly behind
        self.assertNotIn("lag_ms", out["targets"][0])
        self.assertEqual(out["targets"][1]["lag_ms"]["n"], out["writes"], out)

    def test_two_targets_still_report_a_dropped_event(self):
        rc, out, err = run_loadgen(
            self.proxy.url, self.fake.url, "--target", self.fake.url,
            "--watchers", 6, "--write-rate", 30, "--duration", 2,
            "--self-test-drop", 3)
        self.assertEqual(rc, 1, err)
        self.assertEqual(out["violations"]["missed"], 6, out)

    def test_one_target_prints_no_per_target_list(self):
        rc, out, err = run_loadgen(
            self.proxy.url, self.fake.url, "--watchers", 2,
            "--write-rate", 30, "--duration", 1)
        self.assertClean(rc, out, err)
        self.assertNotIn("targets", out)


if __name__ == "__main__":
    unittest.main()
