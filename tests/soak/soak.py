"""make soak: the proxy under long load with upstream faults, and what it
gives back afterwards.

A fake apiserver (1000 pods) and the proxy in front of it. Writes alone
first fill the proxy's event history: what the proxy holds grows with
the writes until the history is full. Then RSS and open descriptors are
taken (the "start" figures), and bin/loadgen opens WATCHERS watches
through the proxy, writes WRITE_RATE changes a second through the fake
for SECONDS, and checks that every watcher saw exactly the writes it
should. Every FAULT_EVERY seconds an upstream fault is injected, in
turn: all watches dropped, a burst of 500s, an etcd compaction, a
malformed watch event, a slow upstream. RSS is taken again as soon as
the watchers have left, and, for the "end" figures, after the same
writes alone as before the start, so that what the faults' relists put
in the history has left it too.

It fails when a watcher missed, duplicated or reordered an event, when
the proxy died or wrote a sanitizer report, when RSS at the end is more
than 10% above the start, or when descriptors leaked.

    make soak                         10 minutes (and 5 of writes alone), 1000 watchers, 100 writes/s
    make soak SOAK_SECONDS=120        shorter
"""
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import harness as h  # noqa: E402

SECONDS = int(os.environ.get("SOAK_SECONDS", "600"))
WATCHERS = int(os.environ.get("SOAK_WATCHERS", "1000"))
WRITE_RATE = int(os.environ.get("SOAK_WRITE_RATE", "100"))
FAULT_EVERY = int(os.environ.get("SOAK_FAULT_EVERY", "60"))
RSS_SLACK = 0.10
HISTORY = 10000     # the proxy's --history default


def log(msg):
    print("soak: " + msg, file=sys.stderr, flush=True)


def rss_mb(pid):
    return h.rss_bytes(pid) / (1 << 20)


fds = h.open_fds


def settle(pid, interval=5.0, quiet=3):
    """RSS once it has stopped falling for quiet intervals in a row (the
    proxy gives freed memory back every 10 s)."""
    last, still = rss_mb(pid), 0
    for _ in range(60):
        time.sleep(interval)
        now = rss_mb(pid)
        still = still + 1 if now >= last - 0.5 else 0
        last = min(last, now)
        if still >= quiet:
            break
    return rss_mb(pid)


def loadgen(proxy, fake, *args):
    """Run bin/loadgen against the proxy, writing through the fake; its
    summary as a dict. Its writes only patch, so the set of objects, and
    with it what the proxy holds at rest, stays the same size throughout."""
    duration = int(args[list(args).index("--duration") + 1])
    lg = subprocess.run(
        [os.path.join(h.BIN, "loadgen"), "--target", proxy.url, "--writer", fake.url,
         "--create-pct", "0", "--delete-pct", "0", "--quiet", *args],
        capture_output=True, text=True, timeout=duration + 300)
    if not lg.stdout.strip():
        raise RuntimeError("loadgen printed nothing: " + lg.stderr[-2000:])
    return json.loads(lg.stdout.strip().splitlines()[-1])


def fault(fake, n):
    """Inject the n-th fault of the cycle; returns its name."""
    def post(body):
        s, _, raw = h.request("POST", fake.url + "/fake/faults", body=body)
        if s != 200:
            raise RuntimeError("fault %s: %d %s" % (body, s, raw[:200]))

    kind = n % 5
    if kind == 0:
        post({"dropWatches": True})
        return "all upstream watches dropped"
    if kind == 1:
        post({"failNext": {"count": 20, "code": 500}})
        return "20 upstream requests answer 500"
    if kind == 2:
        post({"compact": True})
        return "etcd compaction (watch history forgotten)"
    if kind == 3:
        # one malformed line on a watch: the proxy ends it and relists
        # (a cut response would hit the writers' PATCHes as often,
        # leaving loadgen unsure which writes were made)
        post({"malformedNext": 1})
        return "a malformed watch event"
    post({"latencyMs": 2000})
    time.sleep(5)
    post({})
    return "upstream 2 s slow for 5 s"


def main():
    fake = h.fake("--quiet", "--compact-interval", "0", seed="pods=1000",
                  history=100000)
    proxy = h.proxy(fake.url, "pods")
    ok = False
    try:
        h.wait_ready(proxy.url)
        pid = proxy.proc.pid
        # What the proxy holds grows with the writes until its history
        # (10,000 events by default) is full, and moves with the objects
        # in it; so the start and end figures are both taken after writes
        # alone that turn the history over one and a half times, at the
        # same rate, with some LISTs.
        calm = HISTORY * 3 // 2 // WRITE_RATE

        def writes_only(what):
            log("%s: %d s of writes alone" % (what, calm))
            loadgen(proxy, fake, "--watchers", "0", "--write-rate", str(WRITE_RATE),
                    "--duration", str(calm), "--list-rate", "2")

        writes_only("warming up")
        start_rss, start_fds = settle(pid), fds(pid)
        log("start: RSS %.1f MB, %d fds" % (start_rss, start_fds))

        stop = threading.Event()
        injected = []
        peak = [start_rss, start_fds]

        def faults():
            n = 0
            while not stop.wait(FAULT_EVERY):
                what = fault(fake, n)
                injected.append(what)
                log("fault %d: %s" % (n + 1, what))
                n += 1

        def sample():
            while not stop.wait(5):
                peak[0] = max(peak[0], rss_mb(pid))
                peak[1] = max(peak[1], fds(pid))

        threads = [threading.Thread(target=faults, daemon=True),
                   threading.Thread(target=sample, daemon=True)]
        for t in threads:
            t.start()
        log("%d watchers, %d writes/s, %d s, a fault every %d s" %
            (WATCHERS, WRITE_RATE, SECONDS, FAULT_EVERY))
        res = loadgen(proxy, fake, "--watchers", str(WATCHERS), "--write-rate",
                      str(WRITE_RATE), "--duration", str(SECONDS), "--drain", "30",
                      "--selectors")
        stop.set()
        for t in threads:
            t.join()
        h.request("POST", fake.url + "/fake/faults", body={})
        after_rss = settle(pid)
        log("watchers gone: RSS %.1f MB, %d fds" % (after_rss, fds(pid)))
        writes_only("cooling down")
        end_rss, end_fds = settle(pid), fds(pid)
        gauges = {l.split()[0]: float(l.split()[1]) for l in
                  h.request("GET", proxy.url + "/metrics")[2].decode().splitlines()
                  if l.startswith(("informer_proxy_open_", "informer_proxy_relists",
                                   "informer_proxy_watch_expired"))}
        log("end: RSS %.1f MB, %d fds" % (end_rss, end_fds))

        viol = res["violations"]
        report = {
            "seconds": SECONDS, "watchers": WATCHERS, "write_rate": WRITE_RATE,
            "writes": res["writes"], "deliveries": res["deliveries"],
            "violations": viol, "expired_watchers": res["expired"],
            "reconnects": res["reconnects"], "faults": len(injected),
            "rss_mb": {"start": round(start_rss, 1), "peak": round(peak[0], 1),
                       "watchers_gone": round(after_rss, 1), "end": round(end_rss, 1)},
            "fds": {"start": start_fds, "peak": peak[1], "end": end_fds},
            "proxy_metrics_at_end": gauges,
        }
        print(json.dumps(report, indent=1))
        problems = []
        if sum(viol.values()):
            problems.append("watchers saw a wrong stream: %s" % viol)
        if res["expired"]:
            problems.append("%d watchers were expired" % res["expired"])
        if proxy.proc.poll() is not None:
            problems.append("the proxy exited")
        if end_rss > start_rss * (1 + RSS_SLACK):
            problems.append("RSS %.1f MB at the end, %.1f MB at the start (over %d%%)"
                            % (end_rss, start_rss, RSS_SLACK * 100))
        if end_fds > start_fds + 2:
            problems.append("%d descriptors at the end, %d at the start" % (end_fds, start_fds))
        for p in problems:
            log("FAIL: " + p)
        ok = not problems
    finally:
        try:
            proxy.stop()
        except AssertionError as e:
            log("FAIL: %s" % e)
            ok = False
        fake.stop(check=False)
    log("PASS" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
