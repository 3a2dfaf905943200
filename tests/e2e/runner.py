"""Run tests/e2e/test_*.py with unittest; print 'N passed, N failed'.

With arguments, only the named modules run: `runner.py test_limits
test_security` (a name may end in .py)."""
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(here), "lib"))
loader = unittest.defaultTestLoader
if len(sys.argv) > 1:
    suite = unittest.TestSuite(
        loader.discover(here, pattern=os.path.basename(name).removesuffix(".py") + ".py")
        for name in sys.argv[1:])
else:
    suite = loader.discover(here, pattern="test_*.py")
result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
failed = len(result.failures) + len(result.errors)
print("e2e: %d passed, %d failed" % (result.testsRun - failed, failed))
sys.exit(1 if failed else 0)
