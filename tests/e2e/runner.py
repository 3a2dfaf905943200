"""Run every tests/e2e/test_*.py with unittest; print 'N passed, N failed'.

    runner.py                      every test
    runner.py test_x [test_y.C.m]  only these modules, classes or methods
"""
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(here), "lib"))
sys.path.insert(0, here)
if sys.argv[1:]:
    suite = unittest.defaultTestLoader.loadTestsFromNames(sys.argv[1:])
else:
    suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py")
result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
failed = len(result.failures) + len(result.errors)
print("e2e: %d passed, %d failed" % (result.testsRun - failed, failed))
sys.exit(1 if failed else 0)
