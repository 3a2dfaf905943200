"""A full LIST tells its progress: an info line every
--list-progress-interval seconds (here 0: after every page) with the
objects so far, the total from remainingItemCount, MB/s and ETA, a last
line when it is done, and gauges in /metrics that move while it runs.
100,000 pods, each page delayed by the fake so that the sync lasts long
enough to be watched whatever the machine's speed.
"""
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import harness as h  # noqa: E402

N = 100000
LINE = re.compile(r"pods: list: (\d+) of (\d+) objects \(remainingItemCount\), "
                  r"([\d.]+) MB so far, ([\d.]+) MB/s, ETA (\d+) s")
DONE = re.compile(r"pods: list: (\d+) objects, ([\d.]+) MB in ([\d.]+) s \(([\d.]+) MB/s\)")


def metrics(url):
    out = {}
    s, _, body = h.request("GET", url + "/metrics")
    for line in body.decode().splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


class Progress(unittest.TestCase):
    def test_large_sync(self):
        fake = h.fake("--quiet", seed="pods=%d" % N)
        self.addCleanup(fake.stop)
        # 500 pods a page, 200 pages of at least 15 ms each
        st, _, _ = h.request("POST", fake.url + "/fake/faults", body={"latencyMs": 15})
        self.assertEqual(st, 200)
        proxy = h.proxy(fake.url, "pods", "--list-progress-interval", "0")
        self.addCleanup(proxy.stop)
        seen = []  # the gauges while the LIST runs

        def sample():
            m = metrics(proxy.url)
            if m.get('informer_proxy_list_in_progress{resource="pods"}') == 1:
                seen.append(m)
            return m.get('informer_proxy_cache_synced{resource="pods"}') == 1
        h.wait_until(sample, timeout=120, interval=0.05, what="the 100k-pod sync")
        h.request("POST", fake.url + "/fake/faults", body={})

        log = proxy.logs()
        lines = [tuple(float(g) for g in m.groups()) for m in LINE.finditer(log)]
        self.assertGreaterEqual(len(lines), 10, log[-2000:])
        got = [l[0] for l in lines]
        self.assertEqual(got, sorted(got))  # objects only grow
        self.assertTrue(all(l[1] == N for l in lines), lines[:5])  # the exact total
        self.assertTrue(all(l[2] > 0 and l[3] > 0 for l in lines))
        self.assertEqual(lines[0][4] >= lines[-1][4], True)  # the ETA shrinks
        done = DONE.findall(log)
        self.assertEqual(len(done), 1, log[-2000:])
        self.assertEqual(int(done[0][0]), N)
        self.assertGreater(float(done[0][1]), 10)  # MB: real pods, not stubs

        # the gauges moved while it ran ...
        self.assertTrue(seen)
        mid = [m['informer_proxy_list_objects{resource="pods"}'] for m in seen]
        self.assertTrue(any(0 < n < N for n in mid), mid[:10])
        self.assertTrue(any(m['informer_proxy_list_eta_seconds{resource="pods"}'] > 0 for m in seen))
        self.assertTrue(any(m['informer_proxy_list_expected_objects{resource="pods"}'] == N for m in seen))
        # ... and tell the last LIST once it is over
        m = metrics(proxy.url)
        self.assertEqual(m['informer_proxy_list_in_progress{resource="pods"}'], 0)
        self.assertEqual(m['informer_proxy_list_objects{resource="pods"}'], N)
        self.assertEqual(m['informer_proxy_list_expected_objects{resource="pods"}'], N)
        self.assertEqual(m['informer_proxy_list_eta_seconds{resource="pods"}'], 0)
        self.assertGreater(m['informer_proxy_list_received_bytes{resource="pods"}'], 10e6)
        self.assertGreater(m['informer_proxy_list_duration_seconds{resource="pods"}'], 0)
        self.assertGreater(m['informer_proxy_list_receive_bytes_per_second{resource="pods"}'], 0)

    def test_quiet_by_default_for_a_short_list(self):
        fake = h.fake("--quiet", seed="pods=10")
        self.addCleanup(fake.stop)
        proxy = h.proxy(fake.url, "pods")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        log = proxy.logs()
        # no progress line within the default 5 s, one line at the end
        self.assertEqual(LINE.findall(log), [])
        self.assertEqual([int(d[0]) for d in DONE.findall(log)], [10])


if __name__ == "__main__":
    unittest.main()
