"""The fault matrix: the proxy converges on the fake's state after each
upstream fault, and its watchers see a true history; on TLS with token
auth.

Every fake apiserver here serves HTTPS (a throwaway CA made by certs.py)
and requires a bearer token; the proxy reaches it through a kubeconfig,
and the test's own requests to it (writer, /fake/*, reference LISTs) go
through the harness with that CA and token (tls_fake registers them).

Each case starts a fresh fake apiserver (seeded, bookmarks every second,
a long history so the checker can ask for the state at any recent RV) and
a proxy in front of it, opens 10 local watchers on the proxy (whole
resource, one namespace, label selectors; LIST-then-watch and
sendInitialEvents), runs a writer that creates, merge-patches and deletes
pods through the fake at ~20 writes/s, injects one fault, clears it, and
then asserts:

  (a) within 5 s of the fault clearing, the proxy's LIST equals the
      fake's LIST: the same keys at the same resourceVersions, and the same
      list resourceVersion;
  (b) every local watcher's stream passes tests/lib/consistency.py as a
      true history, or, only for `wipe`, ends with the 410 ERROR event
      and the close.

Faults that act on the next request (failNext, cutAfterBytes) are paired
with dropWatches, so the proxy's next request is the one that meets them;
while such a fault is outstanding the writer holds (its own requests
would otherwise take it) and resumes as soon as the proxy has consumed it.

A failing case lists everything it saw: the convergence difference, each
watcher's checker violations, and the proxy's log tail.
"""
import json
import os
import random
import secrets
import signal
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
sys.path.insert(0, HERE)
import certs  # noqa: E402
import consistency as cc  # noqa: E402
import harness as h  # noqa: E402

SEED_PODS = 200
NAMESPACES = 10
WRITE_RATE = 20          # writes per second
CONVERGE_S = 5           # (a): within this many seconds of clearing
BOOKMARK_S = 1           # the fake's and the proxy's bookmark interval
VERBOSE = os.environ.get("FAULTS_VERBOSE")

# backoff of cache/reflector.c: 5 ms doubling to --backoff-max-ms (here
# 1 s, not the default 5 s: a recovery waits out at most one step),
# jitter in [d/2, d]
BACKOFF_MIN_MS = 5
BACKOFF_MAX_MS = 1000


STALL_S = 2 * BOOKMARK_S  # upstream stall timeout: the bookmark interval plus a margin
# what the proxy logs when it gives up on a silent watch (cache/xfer.c)
STALL_LOG = "from an upstream that sends BOOKMARKs: reconnecting"
_HELP = None


def proxy_supports(flag):
    global _HELP
    if _HELP is None:
        import subprocess
        r = subprocess.run([os.path.join(h.BIN, "informer-proxy"), "--help"],
                           capture_output=True, text=True, timeout=10)
        _HELP = r.stdout + r.stderr
    return flag in _HELP


def proxy_args():
    """The flags every proxy here runs with; the resilience ones only when
    this build has them (they are being added alongside these tests)."""
    args = ["--bookmark-interval", str(BOOKMARK_S), "--watch-timeout", "30",
            "--discovery-refresh", "3600"]
    if proxy_supports("--upstream-stall-timeout"):
        args += ["--upstream-stall-timeout", str(STALL_S)]
    if proxy_supports("--backoff-max-ms"):
        args += ["--backoff-max-ms", str(BACKOFF_MAX_MS)]
    return args


PKI = {}                  # setUpModule: the CA and server certificate
TOKEN = "faults-tok-" + secrets.token_hex(16)


def setUpModule():
    PKI.update(certs.make_pki(tempfile.mkdtemp(prefix="faults-pki-")))


def tls_fake(test, *extra, **kw):
    """h.fake on HTTPS with --token; registered with the harness (CA and
    token) until the test ends; fake.kubeconfig is for a proxy."""
    fake = h.fake("--tls-cert", PKI["server_cert"], "--tls-key", PKI["server_key"],
                  "--token", TOKEN, *extra, **kw)
    test.addCleanup(h.register(fake.url, PKI["ca"], TOKEN))
    assert fake.url.startswith("https://"), fake.url
    fake.kubeconfig = certs.kubeconfig(fake.dir, fake.url, PKI, token=TOKEN)
    return fake


def tls_proxy(fake, *extra):
    return h.proxy(fake.url, "pods", "--kubeconfig", fake.kubeconfig, *proxy_args(), *extra)


def log(msg):
    sys.stderr.write("    " + msg + "\n")
    sys.stderr.flush()


def faults(fake, body):
    status, _, out = h.request("POST", fake.url + "/fake/faults", body=body, timeout=10)
    if status != 200:
        raise AssertionError("POST /fake/faults %s: %s %s" % (json.dumps(body), status, out[:300]))
    return json.loads(out)


def standing(fake):
    return h.get_json(fake.url + "/fake/faults", timeout=10)[1]


def stats(fake, res="pods"):
    return h.get_json(fake.url + "/fake/stats", timeout=10)[1]["resources"][res]


def list_state(url, path="/api/v1/pods", timeout=10):
    status, body = h.get_json(url + path, timeout=timeout)
    if status != 200:
        return status, None, None
    return status, int(body["metadata"]["resourceVersion"]), cc.state_of(body)


class Writer(threading.Thread):
    """Creates, merge-patches and deletes pods through the fake at a steady
    rate. pause() returns once no write is in flight."""

    def __init__(self, fake_url, rate=WRITE_RATE, seed=1):
        super().__init__(daemon=True)
        self.url = fake_url
        self.period = 1.0 / rate
        self.rnd = random.Random(seed)
        self.go = threading.Event()
        self.go.set()
        self.done = threading.Event()
        self.busy = threading.Lock()
        self.known = []
        self.i = 0
        self.ok = self.failed = 0
        self.resync()

    def resync(self):
        _, body = h.get_json(self.url + "/api/v1/pods", timeout=10)
        self.known = [(o["metadata"]["namespace"], o["metadata"]["name"]) for o in body["items"]]

    def pause(self):
        self.go.clear()
        with self.busy:
            pass

    def resume(self):
        self.go.set()

    def stop(self):
        self.done.set()
        self.go.set()
        self.join(30)

    def one(self):
        self.i += 1
        r = self.rnd.random()
        labels = {"shard": str(self.rnd.randrange(10)), "gen": str(self.i)}
        if r < 0.6 and self.known:
            ns, name = self.rnd.choice(self.known)
            st, _, _ = h.request("PATCH", "%s/api/v1/namespaces/%s/pods/%s" % (self.url, ns, name),
                                 body=json.dumps({"metadata": {"labels": labels}}).encode(),
                                 headers={"Content-Type": "application/merge-patch+json"}, timeout=10)
            if st == 404:
                self.known.remove((ns, name))
        elif r < 0.8 or not self.known:
            ns, name = "ns-%d" % self.rnd.randrange(NAMESPACES), "w-%d" % self.i
            st, _, _ = h.request("POST", "%s/api/v1/namespaces/%s/pods" % (self.url, ns), body={
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "labels": labels},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]}}, timeout=10)
            if st == 201 or st == 200:
                self.known.append((ns, name))
        else:
            ns, name = self.rnd.choice(self.known)
            st, _, _ = h.request("DELETE", "%s/api/v1/namespaces/%s/pods/%s" % (self.url, ns, name),
                                 timeout=10)
            if st in (200, 404):
                self.known.remove((ns, name))
        return st

    def run(self):
        nxt = time.time()
        while not self.done.is_set():
            self.go.wait()
            if self.done.is_set():
                break
            with self.busy:
                if not self.go.is_set():
                    continue
                try:
                    st = self.one()
                    if 200 <= st < 300:
                        self.ok += 1
                    else:
                        self.failed += 1
                except Exception:
                    self.failed += 1
            nxt = max(nxt + self.period, time.time() - self.period)
            time.sleep(max(0, nxt - time.time()))


# (name, path, labelSelector, sendInitialEvents)
WATCHERS = [
    ("all-1", "/api/v1/pods", None, False),
    ("all-2", "/api/v1/pods", None, False),
    ("all-3", "/api/v1/pods", None, False),
    ("all-4", "/api/v1/pods", None, False),
    ("all-initial-1", "/api/v1/pods", None, True),
    ("all-initial-2", "/api/v1/pods", None, True),
    ("ns-1", "/api/v1/namespaces/ns-1/pods", None, False),
    ("ns-2-initial", "/api/v1/namespaces/ns-2/pods", None, True),
    ("shard=3", "/api/v1/pods", "shard=3", False),
    ("shard-in-1-2", "/api/v1/pods", "shard in (1,2)", False),
]


class LocalWatcher:
    def __init__(self, proxy_url, fake_url, spec):
        self.name, self.path, self.sel, self.initial = spec
        self.ref = cc.FakeReference(fake_url, self.path, label_selector=self.sel)
        q = {"watch": "true", "allowWatchBookmarks": "true", "timeoutSeconds": "300"}
        if self.sel:
            q["labelSelector"] = self.sel
        self.items = self.rv = None
        if self.initial:
            q["sendInitialEvents"] = "true"
            q["resourceVersionMatch"] = "NotOlderThan"
            q["resourceVersion"] = ""
        else:
            lq = {"labelSelector": self.sel} if self.sel else {}
            status, body = h.get_json(proxy_url + self.path +
                                      ("?" + urllib.parse.urlencode(lq) if lq else ""))
            assert status == 200, "LIST %s on the proxy: %s" % (self.path, status)
            self.items, self.rv = body["items"], int(body["metadata"]["resourceVersion"])
            q["resourceVersion"] = str(self.rv)
        self.w = h.Watch(proxy_url + self.path + "?" + urllib.parse.urlencode(q), timeout=60)
        assert self.w.status == 200, "watch %s: %s" % (self.name, self.w.status)

    def events(self):
        with self.w.cond:
            return list(self.w.events)

    def last_rv(self):
        rv = self.rv or 0
        for ev in self.events():
            r = cc.obj_rv(ev.get("object") or {})
            if r is not None and ev.get("type") != "ERROR":
                rv = max(rv, r)
        return rv

    def bookmark_rvs(self):
        return cc.event_rvs(self.events())

    def check(self, final, allow_expired, closed, err=None):
        res = cc.check_stream(self.items, self.rv, self.events(), reference=self.ref,
                              final=final, closed=closed, allow_expired=allow_expired,
                              initial_events=self.initial, name=self.name)
        if err is not None and not isinstance(err, (ConnectionError, OSError)):
            # a line that is not JSON, for instance
            res.violations.append("%s: reading the stream failed: %r" % (self.name, err))
        for e in self.ref.errors:
            res.violations.append("%s: %s" % (self.name, e))
        return res


class Case:
    """One fault run: fake, proxy, writer, watchers."""

    def __init__(self, test, extra_args=(), before_proxy=None):
        self.t = test
        self.fake = tls_fake(test, "--bookmark-interval", str(BOOKMARK_S),
                             seed="pods=%d" % SEED_PODS, history=200000)
        test.addCleanup(self._stop_fake)
        self.writer = Writer(self.fake.url)
        self.writer.start()
        test.addCleanup(self.writer.stop)
        self.pre = before_proxy(self) if before_proxy else None
        self.proxy = tls_proxy(self.fake, *extra_args)
        self.proxy_stopped = False
        test.addCleanup(self._stop_proxy)
        self.watchers = []

    def _stop_fake(self):
        try:
            os.kill(self.fake.proc.pid, signal.SIGCONT)
        except OSError:
            pass
        self.fake.stop(check=False)

    def _stop_proxy(self):
        if not self.proxy_stopped:
            try:
                os.kill(self.proxy.proc.pid, signal.SIGCONT)
            except OSError:
                pass
            self.proxy.stop(check=False)

    def open_watchers(self):
        h.wait_ready(self.proxy.url, timeout=30)
        for spec in WATCHERS:
            w = LocalWatcher(self.proxy.url, self.fake.url, spec)
            self.watchers.append(w)
            self.t.addCleanup(w.w.close)

    def wait_midstream(self, n=5):
        """Until the first whole-resource watcher has n events past its
        LIST: the writer's changes are reaching the local watchers."""
        w = self.watchers[0]
        h.wait_until(lambda: len(w.events()) >= n, timeout=30,
                     what="%d events on local watcher %s" % (n, w.name))

    def converge(self, t_clear, timeout=CONVERGE_S):
        """(a): poll until the proxy's LIST equals the fake's; returns a
        problem description or None."""
        deadline = t_clear + timeout
        last = "no comparison made"
        while True:
            try:
                fs, frv, fstate = list_state(self.fake.url)
                ps, prv, pstate = list_state(self.proxy.url)
                if fs != 200 or ps != 200:
                    last = "LIST answered %s on the fake, %s on the proxy" % (fs, ps)
                else:
                    d = cc.diff_states(pstate, fstate)
                    if not d and frv == prv:
                        return None, time.time() - t_clear
                    last = ("proxy list rv %s, fake list rv %s; %d items on the proxy, %d on "
                            "the fake%s" % (prv, frv, len(pstate), len(fstate),
                                            ("; proxy vs fake: " + d) if d else ""))
            except Exception as e:  # noqa: BLE001
                last = "LIST failed: %r" % e
            if time.time() >= deadline:
                return last, time.time() - t_clear
            time.sleep(0.1)

    def finish(self, t_clear, allow_expired=False, require_expired=False, extra=()):
        """Writer stops 0.5 s after clearing (ten writes that follow the
        fault); then (a) and (b)."""
        problems = list(extra)
        time.sleep(max(0, t_clear + 0.5 - time.time()))
        self.writer.pause()
        bad, took = self.converge(t_clear)
        if bad:
            problems.append("(a) the proxy's LIST did not equal the fake's within %ds of "
                            "clearing the fault: %s" % (CONVERGE_S, bad))
        else:
            log("(a) converged %.2fs after clearing" % took)
        # the final state of each watcher's scope; let every watcher catch up
        finals = {}
        frv = None
        for w in self.watchers:
            frv, finals[w.name] = w.ref.current()
        deadline = time.time() + 2 * BOOKMARK_S + 2
        while time.time() < deadline:
            if all(w.w.closed or w.last_rv() >= frv for w in self.watchers):
                break
            time.sleep(0.1)
        results = []
        for w in self.watchers:
            with w.w.cond:
                closed = w.w.closed
                err = getattr(w.w, "error", None) if closed else None
            w.w.close()
            res = w.check(finals[w.name], allow_expired, closed, err)
            results.append((w, res))
            if require_expired and not res.expired:
                res.violations.append("%s: not given the 410 path (ERROR 410 then close) "
                                      "after the fault" % w.name)
            if not res.ok:
                problems.append("(b) " + res.describe())
            elif VERBOSE:
                log(res.summary())
        n_ok = sum(1 for _, r in results if r.ok)
        n_exp = sum(1 for _, r in results if r.expired)
        nb = sum(r.bookmarks_checked for _, r in results)
        log("(b) %d/%d watchers pass (%d expired); %d bookmark states checked; writer "
            "%d ok / %d failed writes" % (n_ok, len(results), n_exp, nb, self.writer.ok,
                                          self.writer.failed))
        self.writer.stop()
        plog = self.proxy.logs()
        try:
            self.proxy.stop()
        except AssertionError as e:
            problems.append("proxy shutdown: %s" % str(e)[:600])
        self.proxy_stopped = True
        if problems:
            self.t.fail("\n".join(problems) + "\n--- proxy log (tail) ---\n" +
                        "\n".join(plog.splitlines()[-40:]))


def wait_consumed(fake, field, timeout=10):
    """Until the standing fault field is used up; returns seconds taken."""
    t0 = time.time()

    def done():
        s = standing(fake)
        if field == "failNext":
            return s["failNext"]["count"] == 0
        if field == "cutAfterBytes":
            return s["cutAfterBytes"] < 0
        return s[field] == 0
    h.wait_until(done, timeout=timeout, interval=0.02, what="the proxy to meet " + field)
    return time.time() - t0


class FaultMatrix(unittest.TestCase):
    maxDiff = None

    def start(self, **kw):
        c = Case(self, **kw)
        c.open_watchers()
        # the fault lands on watchers in mid-stream: the writer's events
        # are flowing to them. Nothing asserted depends on how many
        # arrived by then.
        c.wait_midstream()
        return c

    def test_drop_watches(self):
        c = self.start()
        w0 = stats(c.fake)["watch"]
        for _ in range(3):
            faults(c.fake, {"dropWatches": True})
            time.sleep(0.2)      # the pace of the drops, not a wait
        faults(c.fake, {})
        t = time.time()
        extra = []
        if not h.poll(lambda: stats(c.fake)["watch"] >= w0 + 3):
            extra.append("the proxy did not re-watch after each drop (watch count %d -> %d)"
                         % (w0, stats(c.fake)["watch"]))
        c.finish(t, extra=extra)

    def test_compact(self):
        # The proxy must be behind the compaction for it to matter: freeze
        # it, compact and drop its watch, write more, compact again, thaw.
        # It resumes from an RV below the floor, gets 410 and relists.
        c = self.start()
        os.kill(c.proxy.proc.pid, signal.SIGSTOP)
        try:
            faults(c.fake, {"compact": True, "dropWatches": True})
            time.sleep(0.3)      # writes land between the two compactions
            faults(c.fake, {"compact": True})
        finally:
            os.kill(c.proxy.proc.pid, signal.SIGCONT)
        met = h.poll(lambda: "expired" in c.proxy.logs())
        faults(c.fake, {})
        t = time.time()
        extra = []
        if not met:
            extra.append("the compaction was not met (no 'watch expired' in the proxy log)")
        c.finish(t, extra=extra)

    def _fail_next(self, body, expect_s=None):
        c = self.start()
        c.writer.pause()
        faults(c.fake, {"failNext": body, "dropWatches": True})
        t0 = time.time()
        try:
            took = wait_consumed(c.fake, "failNext", timeout=15)
        finally:
            c.writer.resume()
        log("failNext %s met by the proxy in %.2fs" % (json.dumps(body), took))
        time.sleep(0.5)          # writes go on after the failures, before clearing
        faults(c.fake, {})
        c.finish(time.time())
        return took, t0

    def test_fail_next_500_x5(self):
        self._fail_next({"count": 5, "code": 500})

    def test_fail_next_429_retry_after(self):
        self._fail_next({"count": 3, "code": 429, "retryAfter": 1})

    def test_latency(self):
        c = self.start()
        faults(c.fake, {"latencyMs": 300, "dropWatches": True})
        time.sleep(1.0)          # how long the latency lasts, under writes
        faults(c.fake, {})
        c.finish(time.time())

    def test_cut_during_watch(self):
        c = self.start()
        c.writer.pause()
        faults(c.fake, {"cutAfterBytes": 9000, "dropWatches": True})
        try:
            wait_consumed(c.fake, "cutAfterBytes")
        finally:
            c.writer.resume()
        time.sleep(1.0)          # events flow into the cut watch
        faults(c.fake, {})
        t = time.time()
        # a cut watch may resume from the last whole event or relist:
        # either is a true history; only the streams are judged
        log("proxy noticed the cut: %s" % [l.split("informer-proxy: ")[-1] for l in
                                            c.proxy.logs().splitlines() if "watch:" in l])
        c.finish(t)

    def test_cut_during_initial_list(self):
        def before(case):
            case.writer.pause()
            faults(case.fake, {"cutAfterBytes": 100000})
        c = Case(self, before_proxy=before)
        try:
            wait_consumed(c.fake, "cutAfterBytes")
        finally:
            c.writer.resume()
        t = time.time()
        extra = []
        n = stats(c.fake)["list"]
        if n < 2:
            # the cut went to another request (discovery) and not the LIST
            self.skipTest("the cut was taken by a request other than the LIST (%d LISTs)" % n)
        c.open_watchers()
        c.wait_midstream()
        c.finish(t, extra=extra)

    def test_malformed(self):
        c = self.start()
        r0 = stats(c.fake)["list"]
        faults(c.fake, {"malformedNext": 2})
        wait_consumed(c.fake, "malformedNext")
        relisted = h.poll(lambda: stats(c.fake)["list"] > r0)
        faults(c.fake, {})
        t = time.time()
        extra = []
        if not relisted:
            extra.append("no relist after the malformed event line")
        c.finish(t, extra=extra)

    def test_wipe(self):
        c = self.start()
        c.writer.pause()
        # the states at the bookmarks seen so far, before the RVs restart
        for w in c.watchers:
            w.ref.prefill(w.bookmark_rvs())
            w.ref.frozen = True
        faults(c.fake, {"wipe": True})
        # a new cluster at the same address: no namespaces either
        for i in range(NAMESPACES):
            h.request("POST", c.fake.url + "/api/v1/namespaces", body={
                "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns-%d" % i}})
        c.writer.resync()
        c.writer.resume()
        time.sleep(0.75)         # writes into the new cluster before clearing
        faults(c.fake, {})
        c.finish(time.time(), allow_expired=True, require_expired=True)

    def test_sigstop_partition(self):
        c = self.start()
        extra = []
        unset = {}

        def list_unset():
            t0 = time.time()
            try:
                st, _, _ = h.request("GET", c.proxy.url + "/api/v1/pods?limit=1", timeout=8)
            except Exception as e:  # noqa: BLE001
                st = repr(e)
            unset["result"] = (st, time.time() - t0)
        os.kill(c.fake.proc.pid, signal.SIGSTOP)
        try:
            time.sleep(3 * BOOKMARK_S)   # the partition's length, not a wait
            st, _, _ = h.request("GET", c.proxy.url + "/readyz", timeout=5)
            if st != 200:
                extra.append("/readyz answered %s during a 3 s partition (grace is 5 min)" % st)
            st, _, _ = h.request("GET", c.proxy.url + "/api/v1/pods?resourceVersion=0&limit=1",
                                 timeout=5)
            if st != 200:
                extra.append("LIST resourceVersion=0 answered %s during the partition (must "
                             "serve the last state)" % st)
            th = threading.Thread(target=list_unset, daemon=True)
            th.start()
            th.join(1.0)
        finally:
            os.kill(c.fake.proc.pid, signal.SIGCONT)
        t = time.time()
        th.join(10)
        log("LIST without resourceVersion started during the partition: %r (the fake was "
            "thawed 1 s after it started)" % (unset.get("result"),))
        c.finish(t, extra=extra)


def backoff_ceiling(window_s):
    """The most requests a reflector can make in window_s of continuous
    failures: two at once (after the dropped watch, the limit=1 RV check
    that follows any watch the server ended, then the next watch or list),
    then one after each sleep, the k-th sleep being at least d_k/2 with
    d_k = min(5 ms * 2^k, 5 s)."""
    n, spent, d = 2, 0.0, BACKOFF_MIN_MS
    while True:
        spent += d / 2.0
        if spent > window_s * 1000:
            return n
        n += 1
        d = min(d * 2, BACKOFF_MAX_MS)


class Backoff(unittest.TestCase):
    def test_fail_next_1000_is_not_a_hot_loop(self):
        fake = tls_fake(self, "--bookmark-interval", str(BOOKMARK_S), seed="pods=50")
        self.addCleanup(fake.stop, check=False)
        proxy = tls_proxy(fake)
        self.addCleanup(proxy.stop, check=False)
        h.wait_ready(proxy.url)
        # /readyz does not wait for discovery, which on a loaded machine may
        # still be fetching its documents (and retrying every second until
        # it has them): those requests would meet the fault too, and the
        # ceiling below counts the reflector's alone.
        h.wait_discovery(proxy.url)
        s0 = stats(fake)
        t0 = time.time()
        faults(fake, {"failNext": {"count": 1000, "code": 500}, "dropWatches": True})
        # The window the requests are counted in: a duration, not a wait.
        # A hot loop makes hundreds of requests in it, the backoff ten.
        time.sleep(1.5)
        left = standing(fake)["failNext"]["count"]
        s1 = stats(fake)
        window = time.time() - t0
        used = 1000 - left
        counted = (s1["list"] - s0["list"]) + (s1["watch"] - s0["watch"])
        ceiling = backoff_ceiling(window)
        log("failNext 1000 x 500 for %.2fs: %d requests met the fault, %d list+watch counted "
            "in /fake/stats; ceiling from the backoff %d" % (window, used, counted, ceiling))
        faults(fake, {})
        self.assertGreaterEqual(used, 1, "the proxy made no request at all after the drop")
        self.assertLessEqual(used, ceiling,
                             "%d upstream requests in %.2fs of 500s: more than the %d the "
                             "backoff (5 ms doubling, jitter [d/2, d]) allows: a hot loop"
                             % (used, window, ceiling))
        self.assertLessEqual(counted, ceiling)
        # and it recovers: at most one backoff step (1 s), then a relist
        s, _, _ = list_state(fake.url)
        h.wait_until(lambda: list_state(proxy.url)[1:] == list_state(fake.url)[1:],
                     timeout=12, what="the proxy to converge after the failures stop")


class Extras(unittest.TestCase):
    """Resilience behaviour beyond convergence: Retry-After is honoured; a
    silent partition is detected."""

    def setUp(self):
        self.fake = tls_fake(self, "--bookmark-interval", str(BOOKMARK_S), seed="pods=50")
        self.addCleanup(self._cont_and_stop)
        self.proxy = tls_proxy(self.fake)
        self.addCleanup(self.proxy.stop, check=False)
        h.wait_ready(self.proxy.url)

    def _cont_and_stop(self):
        try:
            os.kill(self.fake.proc.pid, signal.SIGCONT)
        except OSError:
            pass
        self.fake.stop(check=False)

    def test_retry_after_is_honoured(self):
        # Three 429s with Retry-After: 1 after the watch is dropped: the
        # proxy's next successful watch (the only requests /fake/stats
        # counts) comes >= 2 s later if Retry-After is honoured. (libcurl
        # may send one request on the dropped keep-alive connection and
        # retry it at once, which uses one of the three: hence >= 1.8 s
        # rather than 3 s.)
        # Startup discovery would meet the 429s too and use them up.
        h.wait_discovery(self.proxy.url)
        w0 = stats(self.fake)["watch"]
        faults(self.fake, {"failNext": {"count": 3, "code": 429, "retryAfter": 1}})
        t0 = time.time()
        faults(self.fake, {"dropWatches": True})
        h.wait_until(lambda: stats(self.fake)["watch"] > w0, timeout=15, interval=0.02,
                     what="a successful re-watch")
        took = time.time() - t0
        log("3 x 429 with Retry-After: 1, then a successful watch after %.2fs" % took)
        self.assertGreaterEqual(took, 1.8, "three 429s with Retry-After: 1 were all retried "
                                "within %.2fs: Retry-After is not honoured" % took)

    def test_silent_partition_reconnects(self):
        # Silence counts as a stall only where the upstream sends BOOKMARKs
        # (an uncached resource may rightly stay silent for minutes); the
        # proxy learns that from the first one, which comes once the RV
        # has moved past the watch's start.
        h.request("PATCH", self.fake.url + "/api/v1/namespaces/ns-0/pods/web-0",
                  body=json.dumps({"metadata": {"labels": {"moved": "1"}}}).encode(),
                  headers={"Content-Type": "application/merge-patch+json"})
        h.wait_until(lambda: 'informer_proxy_upstream_sends_bookmarks{resource="pods"} 1'
                     in h.request("GET", self.proxy.url + "/metrics")[2].decode(),
                     timeout=15, what="a BOOKMARK from the upstream")
        w0 = stats(self.fake)["watch"]
        os.kill(self.fake.proc.pid, signal.SIGSTOP)
        # The partition lasts until the proxy says it gave up on the silent
        # watch, or for long past the stall timeout if it never does.
        t0 = time.time()
        h.poll(lambda: STALL_LOG in self.proxy.logs(), timeout=STALL_S + 10)
        silent = time.time() - t0
        os.kill(self.fake.proc.pid, signal.SIGCONT)
        # A proxy that missed the stall keeps its old watch, which the fake
        # serves again once thawed: no new watch would ever come.
        if not h.poll(lambda: stats(self.fake)["watch"] > w0, timeout=5):
            self.fail("no new upstream watch after %.1fs without a byte "
                      "(bookmarks every %ds): the silent partition was not detected"
                      % (silent, BOOKMARK_S))


if __name__ == "__main__":
    unittest.main()
