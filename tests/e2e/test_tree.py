"""A tree of proxies: one parent in front of the fake and several children
whose --server is the parent. The fake serves one LIST and one WATCH per
resource whatever the number of children; every child's watchers see every
write in order; a parent restart (SIGTERM, then a new one on the same port)
converges every child with a bounded number of requests, their retries
spread by jitter rather than synchronized. Also: an upstream's Retry-After
is honoured with jitter, never as an exact period."""
import os
import re
import sys
import time
import unittest
import urllib.request

import harness as h

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clients"))
import clients as c  # noqa: E402

NS = "tree"
CHILDREN = 6
WATCHERS = 2  # per child
# The children's backoff cap: 2 s, not the default 5 s, so that they come
# back soon after the parent does; with jitter in [d/2, d] still at most
# one attempt a second once it is reached.
CHILD_BACKOFF_MAX_MS = 2000
RESOURCES = "pods,configmaps"
TS = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z ")


def stamp(ts):
    """Seconds since the epoch of a log line's timestamp."""
    return time.mktime(time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S")) + int(ts[20:23]) / 1000.0


def metric(url, name, resource):
    with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
        text = r.read().decode()
    m = re.search(r'^%s\{resource="%s"[^}]*\} (\S+)$' % (name, resource), text, re.M)
    if not m:
        raise AssertionError("no %s for %s in /metrics" % (name, resource))
    return float(m.group(1))


def requests_made(url):
    """LISTs plus WATCHes (attempts included) the proxy at url made upstream."""
    return {res: metric(url, "informer_proxy_upstream_lists_total", res) +
            metric(url, "informer_proxy_upstream_watches_total", res)
            for res in RESOURCES.split(",")}


def state(url):
    """{(ns, name): rv} of every pod and configmap in the cache at url (a
    resourceVersion=0 read: no probe upstream), or None."""
    out = {}
    for res in RESOURCES.split(","):
        s, body = h.get_json(url + "/api/v1/" + res + "?resourceVersion=0", timeout=10)
        if s != 200:
            return None
        for o in body["items"]:
            out[(res, o["metadata"].get("namespace"), o["metadata"]["name"])] = \
                o["metadata"]["resourceVersion"]
    return out


def cluster_wide(st, res):
    """(LISTs, WATCHes) the fake served for res across all namespaces:
    the proxies' requests, not the test's own namespaced reference."""
    reqs = [r for r in st[res]["requests"] if "namespace" not in r]
    return (sum(r["verb"] == "list" for r in reqs), sum(r["verb"] == "watch" for r in reqs))


def set_latency(fake, ms):
    s, _, out = h.request("POST", fake.url + "/fake/faults", body={"latencyMs": ms}, timeout=30)
    if s != 200:
        raise AssertionError("POST /fake/faults latencyMs: %s %s" % (s, out[:300]))


def parent_at(fake_url, port, *extra):
    return h.Server("informer-proxy", [
        os.path.join(h.BIN, "informer-proxy"), "--listen", "127.0.0.1:%d" % port,
        "--server", fake_url, "--resources", RESOURCES, "-v", "2", *extra])


class TreeOfProxies(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=40,configmaps=10")
        cls.parent, cls.children = None, []
        try:
            c.namespace(cls.fake.url, NS)
            cls.parent = parent_at(cls.fake.url, 0)
            cls.port = int(cls.parent.url.rsplit(":", 1)[1])
            h.wait_ready(cls.parent.url)
            for _ in range(CHILDREN):
                # -v 1: every retry's warning, unfolded, to time them
                cls.children.append(h.proxy(cls.parent.url, RESOURCES, "-v", "1",
                                            "--backoff-max-ms", str(CHILD_BACKOFF_MAX_MS)))
            for ch in cls.children:
                h.wait_ready(ch.url)
            cls.synced = c.stats(cls.fake.url)
        except Exception:
            cls.stop_all(check=False)
            raise

    @classmethod
    def stop_all(cls, check=True):
        for s in cls.children + [cls.parent, cls.fake]:
            if s:
                s.stop(check=check)

    @classmethod
    def tearDownClass(cls):
        cls.stop_all()

    def test_1_upstream_cost_and_watchers_see_every_write_in_order(self):
        # The fake's cost does not grow with the children: one WATCH per
        # resource, and one full LIST (the parent's). A child's first LIST
        # carries no resourceVersion, a consistent read, which the parent
        # answers from its cache after one limit=1 probe of the fake's
        # current RV: a one-item LIST per child start, never a full one.
        for res in RESOURCES.split(","):
            st = self.synced[res]
            self.assertEqual((st["watch"], st["watchOpen"]), (1, 1),
                             "fake /fake/stats with %d children synced: %s"
                             % (CHILDREN, self.synced))
            self.assertLessEqual(st["list"], 1 + CHILDREN, self.synced)
        _, lst = c.get(self.fake.url, "pods", NS)
        rv = lst["metadata"]["resourceVersion"]
        path = "/api/v1/namespaces/%s/pods?watch=1&resourceVersion=%s" % (NS, rv)
        ref = h.Watch(self.fake.url + path)
        watchers = [(ch, h.Watch(ch.url + path)) for ch in self.children for _ in range(WATCHERS)]
        try:
            n = 0
            for i in range(15):
                c.create(self.fake.url, "pods", NS, c.simple_pod("p-%d" % i))
                n += 1
            for i in range(10):
                c.patch(self.fake.url, "pods", NS, "p-%d" % i, {"metadata": {"labels": {"i": str(i)}}})
                n += 1
            for i in range(5):
                c.delete(self.fake.url, "pods", NS, "p-%d" % i)
                n += 1
            want = [(e["type"], e["object"]["metadata"]["name"],
                     e["object"]["metadata"]["resourceVersion"]) for e in ref.wait_for(n)]
            self.assertEqual(len(want), n)
            for ch, w in watchers:
                got = [(e["type"], e["object"]["metadata"]["name"],
                        e["object"]["metadata"]["resourceVersion"]) for e in w.wait_for(n)]
                self.assertEqual(got, want, "watcher on child %s" % ch.url)
        finally:
            ref.close()
            for _, w in watchers:
                w.close()
        end = c.stats(self.fake.url)
        for res in RESOURCES.split(","):
            self.assertEqual(cluster_wide(end, res), cluster_wide(self.synced, res),
                             "the writes cost the fake a LIST or WATCH: %s" % end)

    def test_2_parent_restart_converges_children_without_a_storm(self):
        before = [requests_made(ch.url) for ch in self.children]
        t0 = time.time()
        self.parent.stop()
        # Writes while the parent is away: every child must catch up.
        for i in range(5):
            c.create(self.fake.url, "configmaps", NS, {
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "gone-%d" % i}, "data": {"k": str(i)}})
            c.create(self.fake.url, "pods", NS, c.simple_pod("away-%d" % i))
        want = state(self.fake.url)
        time.sleep(1.5)
        # A slow upstream keeps the new parent unsynced for a few seconds,
        # while it answers its children 429 with Retry-After: 1.
        set_latency(self.fake, 3000)
        type(self).parent = parent_at(self.fake.url, self.port)
        try:
            h.wait_ready(self.parent.url, timeout=60)
        finally:
            set_latency(self.fake, 0)
        for ch in self.children:
            h.wait_until(lambda: state(ch.url) == want, timeout=30,
                         what="child %s equal to the fake after the parent restart" % ch.url)
        took = time.time() - t0
        after = [requests_made(ch.url) for ch in self.children]
        sys.stderr.write("    %d children converged %.2fs after the parent's SIGTERM; "
                         "requests per child: %s\n" % (
                             CHILDREN, took,
                             [int(sum(a.values()) - sum(b.values())) for a, b in zip(after, before)]))
        # No storm: each child's LISTs and WATCHes in the window are bounded
        # by its backoff, whatever the number of children: about a dozen
        # attempts while the wait doubles from 5 ms to a second, then at
        # most one a second (the backoff, or the unsynced parent's
        # Retry-After: 1). A retry loop at a fixed short period would make
        # hundreds.
        bound = 12 + took
        for a, b in zip(after, before):
            for res in a:
                self.assertLessEqual(a[res] - b[res], bound,
                                     "requests to the parent during its %.1f s restart: %s -> %s"
                                     % (took, b, a))
        # Every child honoured the unsynced parent's Retry-After: 1, each
        # after its own wait: at least the second asked for (or its own
        # backoff when that has grown longer, up to --backoff-max-ms),
        # both jittered, so not all after the same.
        refused = []
        for ch in self.children:
            at = [stamp(TS.match(l).group(1)) for l in ch.logs().splitlines()
                  if "pods: watch: upstream answered 429" in l and stamp(TS.match(l).group(1)) >= t0 - 1]
            self.assertTrue(at, "child %s never met the unsynced parent's 429" % ch.url)
            refused += [b - a for a, b in zip(at, at[1:])]
        sys.stderr.write("    gaps between a child's 429-refused watches: %s\n"
                         % " ".join("%.3f" % g for g in refused))
        self.assertGreaterEqual(len(refused), 3, refused)
        self.assertGreaterEqual(min(refused), 0.95, "Retry-After: 1 not honoured: %s" % refused)
        self.assertGreaterEqual(max(refused) - min(refused), 0.02,
                                "the children came back in step after Retry-After: %s" % refused)
        # The children's retries while the parent was away are spread by
        # jitter: exponential backoff from 5 ms without jitter would put
        # every gap between two refused attempts of a child on 5 ms * 2^k,
        # the same for every child (all of them lost the parent at the same
        # instant), so they would knock in step. With jitter in [d/2, d]
        # most gaps fall off that grid.
        gaps = []
        for ch in self.children:
            at = [stamp(TS.match(l).group(1)) for l in ch.logs().splitlines()
                  if "pods: watch: Couldn't connect" in l and stamp(TS.match(l).group(1)) >= t0 - 1]
            gaps += [b - a for a, b in zip(at, at[1:]) if b - a >= 0.1]
        self.assertGreaterEqual(len(gaps), CHILDREN, gaps)

        def on_grid(g):
            return any(abs(g - 0.005 * 2 ** k) <= 0.05 * 0.005 * 2 ** k for k in range(4, 12))
        off = [g for g in gaps if not on_grid(g)]
        sys.stderr.write("    %d of %d retry gaps >= 100 ms off the 5 ms * 2^k grid\n"
                         % (len(off), len(gaps)))
        self.assertGreaterEqual(len(off), len(gaps) / 2,
                                "children retried in step, without jitter: %s" % gaps)
        # The cost at the fake of the restart: the new parent's one full
        # LIST and one WATCH per resource; each child relists from the new
        # parent (its history starts at its LIST, so a child's resume gets
        # 410), which costs the fake at most two limit=1 probes per child
        # (the child's RV check and its consistent LIST), no full LIST.
        # (the new parent's WATCH may still be inside the fake's latency)
        h.wait_until(lambda: all(c.stats(self.fake.url)[res]["watchOpen"] == 1
                                 for res in RESOURCES.split(",")), timeout=20,
                     what="the new parent's watches open at the fake")
        st = c.stats(self.fake.url)
        for res in RESOURCES.split(","):
            lists, watches = cluster_wide(st, res)
            self.assertEqual(watches, cluster_wide(self.synced, res)[1] + 1, st)
            self.assertLessEqual(lists, cluster_wide(self.synced, res)[0] + 2 + 2 * CHILDREN, st)


class RetryAfterJitter(unittest.TestCase):
    def test_retry_after_is_honoured_with_jitter(self):
        # 429s with Retry-After: 1 on every request for a while: the proxy
        # waits at least a second between its watch attempts, and not the
        # same time each round (children of one parent that all hear
        # "Retry-After: 1" at once would otherwise come back at once,
        # forever in step).
        # -v 1: every retry's warning, unfolded, to time them
        fake, proxy = h.fake_and_proxy(self, "pods", "-v", "1", seed="pods=3")
        h.wait_discovery(proxy.url)
        w0 = c.stats(fake.url)["pods"]["watch"]
        s, _, out = h.request("POST", fake.url + "/fake/faults",
                              body={"failNext": {"count": 8, "code": 429, "retryAfter": 1},
                                    "dropWatches": True})
        self.assertEqual(s, 200, out)
        h.wait_until(lambda: c.stats(fake.url)["pods"]["watch"] > w0, timeout=30,
                     what="a successful watch after the 429s")
        at = [stamp(TS.match(l).group(1)) for l in proxy.logs().splitlines()
              if "pods: watch: upstream answered 429" in l]
        self.assertGreaterEqual(len(at), 5, proxy.logs()[-3000:])
        gaps = [b - a for a, b in zip(at, at[1:])]
        sys.stderr.write("    gaps between 429-refused watches: %s\n"
                         % " ".join("%.3f" % g for g in gaps))
        self.assertGreaterEqual(min(gaps), 0.95, "Retry-After: 1 not honoured: %s" % gaps)
        self.assertLessEqual(max(gaps), 2.0, gaps)
        self.assertGreaterEqual(max(gaps) - min(gaps), 0.02,
                                "every retry after Retry-After: 1 came after the same "
                                "time, no jitter: %s" % gaps)


if __name__ == "__main__":
    unittest.main()
