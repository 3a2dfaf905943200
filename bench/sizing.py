#!/usr/bin/env python3
"""bench/sizing.py: the memory per 10,000 objects of each kind, for the
chart's sizing table (charts/informer-proxy/README.md, "Sizing").

For each kind named (default: the kinds in the table), a fake apiserver
seeded with 10,000 objects of it, in 10 namespaces, and a proxy caching
it: the proxy's RSS 2 s after /readyz, less that of a proxy caching the
same kind with none of it, and the bytes of the full LIST. Release
binaries (`make build`), loopback only, about a minute; run it on one
core so the figures do not depend on the other's load:

    nice -n 10 taskset -c 1 python3 bench/sizing.py [KIND...]
"""

import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import harness  # noqa: E402

N = 10000
KINDS = ["pods", "configmaps", "secrets", "services", "endpoints",
         "serviceaccounts", "events"]


def rss(kind, url):
    p = harness.Server("informer-proxy", [os.path.join(harness.BIN, "informer-proxy"),
                                          "--listen", "127.0.0.1:0",
                                          "--server", url, "--resources", kind])
    try:
        harness.wait_ready(p.url, timeout=300)
        time.sleep(2)
        return harness.rss_bytes(p.proc.pid)
    finally:
        p.stop(check=False)


def main(kinds):
    print("| kind | LIST of %d | memory per 10,000 |" % N)
    print("|---|---|---|")
    for kind in kinds:
        empty = harness.fake("--all-kinds")
        try:
            r0 = rss(kind, empty.url)
        finally:
            empty.stop(check=False)
        f = harness.fake("--all-kinds", seed="%s=%d" % (kind, N))
        try:
            wire = len(urllib.request.urlopen(f.url + "/api/v1/" + kind).read())
            r1 = rss(kind, f.url)
        finally:
            f.stop(check=False)
        print("| `%s` | %.1f MB | %.1f MB |" % (kind, wire / 1e6,
                                              (r1 - r0) / 1e6 * 10000 / N))
        sys.stdout.flush()
    print("(a proxy caching nothing: %.1f MB)" % (r0 / 1e6))


if __name__ == "__main__":
    main(sys.argv[1:] or KINDS)
