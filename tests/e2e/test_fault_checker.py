"""tests/lib/consistency.py on hand-made streams: it accepts true
histories and names every way a stream can lie (no servers started)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import consistency as cc  # noqa: E402


def pod(name, rv, ns="d"):
    return {"metadata": {"namespace": ns, "name": name, "resourceVersion": str(rv)}}


def ev(typ, name, rv, **kw):
    return {"type": typ, "object": pod(name, rv, **kw)}


def bm(rv, end=False):
    md = {"resourceVersion": str(rv)}
    if end:
        md["annotations"] = {cc.INITIAL_EVENTS_END: "true"}
    return {"type": "BOOKMARK", "object": {"kind": "Pod", "apiVersion": "v1", "metadata": md}}


def expired(rv):
    return {"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                        "status": "Failure", "reason": "Expired", "code": 410,
                                        "message": "too old resource version: %d (%d)" % (rv, rv + 5)}}


INITIAL = [pod("a", 5), pod("b", 8)]
# the upstream's state at each RV, as the fake's Exact LIST would say
STATES = {10: {"d/a": 5, "d/b": 8}, 11: {"d/a": 11, "d/b": 8}, 12: {"d/a": 11},
          13: {"d/a": 11, "d/c": 13}, 14: {"d/a": 11, "d/c": 13}}
GOOD = [ev("MODIFIED", "a", 11), ev("DELETED", "b", 12), bm(12), ev("ADDED", "c", 13), bm(14)]


def ref(rv):
    return STATES.get(rv)


def check(events, **kw):
    kw.setdefault("reference", ref)
    kw.setdefault("final", STATES[14])
    return cc.check_stream(INITIAL, 10, events, **kw)


class Checker(unittest.TestCase):
    def assertViolation(self, res, text):
        self.assertFalse(res.ok, res.describe())
        self.assertTrue(any(text in v for v in res.violations),
                        "no violation mentioning %r in:\n%s" % (text, res.describe()))

    def test_true_history(self):
        res = check(GOOD)
        self.assertTrue(res.ok, res.describe())
        self.assertFalse(res.expired)
        self.assertEqual((res.events, res.bookmarks, res.bookmarks_checked), (3, 2, 2))
        self.assertTrue(res.final_checked)
        self.assertEqual(res.last_rv, 14)

    def test_incremental_equals_whole(self):
        c = cc.StreamChecker(INITIAL, "10", reference=ref)
        for e in GOOD:
            c.feed(e)
        self.assertTrue(c.finish(final=STATES[14]).ok)

    def test_duplicate(self):
        res = check(GOOD[:1] + GOOD[:1] + GOOD[1:])
        self.assertViolation(res, "duplicate event MODIFIED d/a at rv 11")

    def test_backwards(self):
        res = check([ev("MODIFIED", "a", 11), ev("ADDED", "c", 13), ev("DELETED", "b", 12)])
        self.assertViolation(res, "not increasing")

    def test_event_already_in_the_list(self):
        self.assertViolation(check([ev("MODIFIED", "a", 9)]), "not newer than the starting rv 10")

    def test_added_present_modified_absent(self):
        self.assertViolation(check([ev("ADDED", "a", 11)]), "already present")
        self.assertViolation(check([ev("MODIFIED", "z", 11)]), "MODIFIED d/z at rv 11 but the key is absent")
        self.assertViolation(check([ev("DELETED", "z", 11)]), "DELETED d/z at rv 11 but the key is absent")

    def test_gap_shows_at_the_bookmark_and_the_end(self):
        res = check([ev("MODIFIED", "a", 11), bm(12), ev("ADDED", "c", 13), bm(14)])
        self.assertViolation(res, "at rv 12 differs from the reference at that rv: 1 extra (d/b@8)")
        self.assertViolation(res, "differs from the final reference")

    def test_bookmarks(self):
        self.assertViolation(check(GOOD[:3] + [bm(11)]), "goes back")
        self.assertViolation(check([ev("MODIFIED", "a", 11), bm(10)]), "older than the last event")
        self.assertViolation(check([bm(12), ev("MODIFIED", "a", 11)]), "after a BOOKMARK at rv 12")

    def test_no_reference_is_counted_not_failed(self):
        res = check(GOOD, reference=lambda rv: None)
        self.assertTrue(res.ok, res.describe())
        self.assertEqual((res.bookmarks_checked, res.bookmarks_unknown), (0, 2))

    def test_expired(self):
        stream = GOOD[:3] + [expired(12)]
        res = check(stream, closed=True, allow_expired=True)
        self.assertTrue(res.ok and res.expired, res.describe())
        self.assertFalse(res.final_checked)
        self.assertViolation(check(stream, closed=True), "expired path is not allowed")
        self.assertViolation(check(stream, closed=False, allow_expired=True), "stayed open")
        self.assertViolation(check(stream + [ev("ADDED", "c", 13)], allow_expired=True),
                             "after the ERROR event")
        # the prefix must be true too
        bad = [ev("MODIFIED", "z", 11), expired(11)]
        self.assertViolation(check(bad, closed=True, allow_expired=True), "absent")

    def test_other_error(self):
        e = {"type": "ERROR", "object": {"kind": "Status", "code": 500, "message": "boom"}}
        self.assertViolation(check([e], closed=True, allow_expired=True), "only 410")

    def test_initial_events(self):
        stream = [ev("ADDED", "b", 8), ev("ADDED", "a", 5), bm(10, end=True)] + GOOD
        res = cc.check_stream(None, None, stream, reference=ref, final=STATES[14],
                              initial_events=True)
        self.assertTrue(res.ok, res.describe())
        self.assertEqual(res.bookmarks_checked, 3)
        res = cc.check_stream(None, None, stream[:2], initial_events=True)
        self.assertViolation(res, "before the initial-events-end BOOKMARK")
        res = cc.check_stream(None, None, [ev("ADDED", "a", 5), ev("MODIFIED", "a", 6)],
                              initial_events=True)
        self.assertViolation(res, "only ADDED may come first")


if __name__ == "__main__":
    unittest.main()
