"""Run every end-to-end test module with unittest; print 'N passed, N failed'.

The modules are tests/e2e/test_*.py (the proxy) and
tests/fake-apiserver/tests/test_*.py (the fake apiserver's own tests).

    runner.py                      every test
    runner.py test_x [test_y.C.m]  only these modules, classes or methods
"""
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
tests = os.path.dirname(here)
dirs = [here, os.path.join(tests, "fake-apiserver", "tests")]
sys.path.insert(0, os.path.join(tests, "lib"))
for d in reversed(dirs):
    sys.path.insert(0, d)
if sys.argv[1:]:
    suite = unittest.defaultTestLoader.loadTestsFromNames(sys.argv[1:])
else:
    # One loader per directory: discover() remembers its top-level dir.
    suite = unittest.TestSuite(
        unittest.TestLoader().discover(d, pattern="test_*.py", top_level_dir=d)
        for d in dirs)
result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
failed = len(result.failures) + len(result.errors)
print("e2e: %d passed, %d failed" % (result.testsRun - failed, failed))
sys.exit(1 if failed else 0)
