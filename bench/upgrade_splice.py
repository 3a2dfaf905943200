"""upgrade_splice: what one upgraded stream (kubectl exec, port-forward)
costs the proxy: its CPU while the stream is open and idle (a busy loop
would show here), and the throughput and CPU of echoing 256 MiB both ways
at once through proxy/upgrade.c's splice, against the scripted upstream
of tests/e2e/test_upgrade.py. Loopback only; not part of `make bench`.

    make all && /usr/bin/python3 bench/upgrade_splice.py
"""
import os
import socket
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "tests", "e2e"), os.path.join(HERE, "..", "tests", "lib")]
import harness as h  # noqa: E402
from test_upgrade import SPDY_HEAD, Scripted, read_head, upgrade_request  # noqa: E402

MIB = 256


def main():
    fake = h.fake("--quiet", seed="pods=1")
    up = Scripted(int(fake.url.rsplit(":", 1)[1]))
    p = h.proxy(up.url, "pods")
    h.wait_ready(p.url)

    def echo(c, head, rest):
        c.sendall(SPDY_HEAD)
        while True:
            d = c.recv(1 << 16)
            if not d:
                break
            c.sendall(d)
        c.close()
    up.script = echo

    def cpu():
        f = open("/proc/%d/stat" % p.proc.pid).read().split(")")[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

    s = socket.create_connection(("127.0.0.1", int(p.url.rsplit(":", 1)[1])))
    s.sendall(upgrade_request())
    read_head(s)
    c0 = cpu()
    time.sleep(5)
    print("idle open stream: proxy CPU %.3f s in 5 s" % (cpu() - c0))
    blk = os.urandom(1 << 20)

    def send():
        for _ in range(MIB):
            s.sendall(blk)
        s.shutdown(socket.SHUT_WR)
    t0, c0, got = time.monotonic(), cpu(), 0
    th = threading.Thread(target=send)
    th.start()
    while True:
        d = s.recv(1 << 20)
        if not d:
            break
        got += len(d)
    th.join()
    t = time.monotonic() - t0
    assert got == MIB << 20, got
    print("%d MiB echoed through the splice: %.2f s, %.0f MiB/s each way, proxy CPU %.2f s"
          % (MIB, t, MIB / t, cpu() - c0))
    p.stop()
    fake.stop()


if __name__ == "__main__":
    main()
