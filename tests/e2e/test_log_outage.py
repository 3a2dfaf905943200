"""An upstream outage of most of a minute logs two lines per resource: the
first failure, and when the upstream is back, one folded line with the
count of the retries between (the fold window is 60 s; docs/OBSERVABILITY.md
"Logs"). The same test as test_logs' Folding, with the upstream away for
55 s instead of 4 (a module of its own, so the suite runs it beside the
others)."""

import unittest

import test_logs


class LongOutage(test_logs.Folding):
    OUTAGE_S = 55


if __name__ == "__main__":
    unittest.main()
