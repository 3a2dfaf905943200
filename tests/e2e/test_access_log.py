"""The access log at -v 2: one line per request, from the cache or passed
through, with method, path (query secrets redacted), status, bytes,
duration and client; a token, in a header or in a query, never appears
anywhere in the log. At -v 0 there is no access line at all.
"""
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import harness as h  # noqa: E402

TOKEN = "tok-3f9a7c21-never-logged"
LINE = re.compile(r"access: (\S+) (\S+) (\d+|-) bytes=(\d+|-) ms=([\d.]+) client=(\S+)")


class AccessLog(unittest.TestCase):
    def lines(self, proxy, n):
        def enough():
            got = [m.groups() for m in LINE.finditer(proxy.logs())]
            return got if len(got) >= n else None
        return h.wait_until(enough, what="%d access lines" % n)

    def test_a_line_per_request(self):
        fake, proxy = h.fake_and_proxy(self, "pods", "-v", "2", seed="pods=5")
        base = len(LINE.findall(proxy.logs()))
        s, _, body = h.request("GET", proxy.url + "/api/v1/pods?limit=2&resourceVersion=0")
        self.assertEqual(s, 200)
        h.request("GET", proxy.url + "/api/v1/namespaces/ns-0/pods/nope?resourceVersion=0")
        # passed through, with a token in a header and one in the query
        h.request("GET", proxy.url + "/api/v1/services?access_token=" + TOKEN,
                  headers={"Authorization": "Bearer " + TOKEN})
        # by path: a health probe's line may still land after base
        want = ("/api/v1/pods?limit=2&resourceVersion=0",
                "/api/v1/namespaces/ns-0/pods/nope?resourceVersion=0",
                "/api/v1/services?REDACTED")
        h.wait_until(lambda: all(p in [g[1] for g in self.lines(proxy, base)[base:]]
                                 for p in want), what="the three requests' lines")
        got = self.lines(proxy, base + 3)[base:]
        by_path = {g[1]: g for g in got}
        m, path, st, nbytes, ms, client = by_path["/api/v1/pods?limit=2&resourceVersion=0"]
        self.assertEqual((m, st), ("GET", "200"))
        self.assertGreaterEqual(int(nbytes), len(body))  # the body, and headers
        self.assertGreater(float(ms), 0)
        self.assertRegex(client, r"^127\.0\.0\.1:\d+$")
        self.assertEqual(by_path["/api/v1/namespaces/ns-0/pods/nope?resourceVersion=0"][2], "404")
        self.assertIn("/api/v1/services?REDACTED", by_path)
        self.assertNotIn(TOKEN, proxy.logs())

    def test_unknown_and_bare_keys_are_redacted(self):
        fake, proxy = h.fake_and_proxy(self, "pods", "-v", "2", seed="pods=5")
        base = len(LINE.findall(proxy.logs()))
        secret = "s3cr3t" + TOKEN
        h.request("GET", proxy.url + "/api/v1/pods?" + secret + "&limit=1")
        h.request("GET", proxy.url + "/api/v1/pods?" + secret + "=1&watchx=2&pretty")
        # by path: a health probe's line may still land after base
        h.wait_until(lambda: len([g for g in self.lines(proxy, base)[base:]
                                  if g[1].startswith("/api/v1/pods?")]) >= 2,
                     what="both requests' lines")
        got = [g[1] for g in self.lines(proxy, base + 2)[base:]]
        self.assertIn("/api/v1/pods?REDACTED&limit=1", got)
        self.assertIn("/api/v1/pods?REDACTED&REDACTED&pretty", got)
        self.assertNotIn(secret, proxy.logs())

    def test_quiet_at_v0(self):
        fake, proxy = h.fake_and_proxy(self, "pods", seed="pods=5")
        h.request("GET", proxy.url + "/api/v1/pods?access_token=" + TOKEN)
        h.request("GET", proxy.url + "/api/v1/services")
        self.assertEqual(h.request("GET", proxy.url + "/metrics")[0], 200)
        self.assertEqual(LINE.findall(proxy.logs()), [])
        self.assertNotIn(TOKEN, proxy.logs())

    def test_no_token_at_high_verbosity(self):
        fake, proxy = h.fake_and_proxy(self, "pods", "-v", "10", seed="pods=5")
        h.request("GET", proxy.url + "/api/v1/pods?resourceVersion=0&token=" + TOKEN,
                  headers={"Authorization": "Bearer " + TOKEN})
        h.request("GET", proxy.url + "/api/v1/configmaps?password=" + TOKEN,
                  headers={"Authorization": "Bearer " + TOKEN})
        self.lines(proxy, 2)
        self.assertNotIn(TOKEN, proxy.logs())


if __name__ == "__main__":
    unittest.main()
