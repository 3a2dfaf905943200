"""The fan-out ceiling program (bench/fanout_ceiling.c) in every send mode.

make bench's B3 and B16 compare the proxy, and the send modes with each
other, against this program, so its figures are only worth something if
every mode delivers the bytes it claims to: each of the four modes (send
with copy, MSG_ZEROCOPY, vmsplice+splice, tee+splice) runs briefly on
loopback with --verify on, and every stream must be the event repeated
byte for byte. --verify self-test checks against a copy with one byte
changed, so the check itself is shown to see a difference. Unknown modes
are refused.

Nothing here asserts speed; `make bench` measures that.
"""
import json
import os
import subprocess
import tempfile
import unittest

import harness

SRC = os.path.join(harness.ROOT, "bench", "fanout_ceiling.c")
MODES = ("copy", "zerocopy", "splice", "tee")


def event_line():
    """A watch-event-like line of about 5 KB whose bytes vary, so that a
    stream resumed at a wrong offset cannot match by chance."""
    filler = "".join(chr(ord("a") + (i * 7) % 26) for i in range(5000))
    return ('{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"p",'
            '"annotations":{"x":"%s"}}}}\n' % filler).encode()


class FanoutCeiling(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Built here, into the temporary directory: make's target would
        # switch the build tree's mode stamp under a sanitizer run.
        cls.tmp = tempfile.TemporaryDirectory()
        cls.prog = os.path.join(cls.tmp.name, "fanout_ceiling")
        subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-D_GNU_SOURCE", "-pthread",
                        "-O2", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter",
                        SRC, "-o", cls.prog], check=True, timeout=300)
        cls.event = os.path.join(cls.tmp.name, "event.json")
        with open(cls.event, "wb") as f:
            f.write(event_line())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_prog(self, *args):
        return subprocess.run([self.prog, "--event", self.event, "--conns", "40",
                               "--seconds", "0.5"] + [str(a) for a in args],
                              capture_output=True, text=True, timeout=60)

    def measure(self, *args):
        p = self.run_prog(*args)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def test_every_mode_delivers_the_event_intact(self):
        for mode in MODES:
            with self.subTest(mode=mode):
                out = self.measure("--mode", mode, "--batch", 3, "--verify", "on")
                self.assertEqual(out["mode"], mode)
                self.assertEqual(out["event_bytes"], len(event_line()))
                self.assertGreater(out["deliveries_per_s"], 0)
                self.assertEqual(out["verify"], 1)
                self.assertEqual(out["bad"], 0)
                if mode == "zerocopy":
                    # completions were read back from the error queue
                    self.assertGreater(out["zc_done"], 0)
                else:
                    self.assertEqual(out["zc_done"], 0)

    def test_the_check_sees_a_changed_byte(self):
        for mode in MODES:
            with self.subTest(mode=mode):
                out = self.measure("--mode", mode, "--batch", 3, "--verify", "self-test")
                self.assertEqual(out["verify"], 2)
                self.assertGreater(out["deliveries_per_s"], 0)
                self.assertGreater(out["bad"], 0)

    def test_splice_batches_larger_than_a_default_pipe(self):
        # 32 events are about 160 KB, more than a pipe holds by default
        for mode in ("splice", "tee"):
            with self.subTest(mode=mode):
                out = self.measure("--mode", mode, "--batch", 32, "--verify", "on")
                self.assertGreater(out["deliveries_per_s"], 0)
                self.assertEqual(out["bad"], 0)

    def test_unknown_mode_or_verify_is_refused(self):
        for args in (("--mode", "sendfile"), ("--verify", "maybe")):
            with self.subTest(args=args):
                p = self.run_prog(*args)
                self.assertEqual(p.returncode, 2)
                self.assertIn("usage:", p.stderr)
                self.assertEqual(p.stdout, "")


if __name__ == "__main__":
    unittest.main()
