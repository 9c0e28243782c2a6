"""Work folders of the integration tests (server configurations, stores, logs): each made
under the system's temporary folder, removed when every test of the run passed, kept and
listed when one failed, for what they hold is what a failure is read from.

    folder = workfolders.make("canvas-lan-")
    ...
    if __name__ == "__main__":
        workfolders.run_tests()
"""

import shutil
import sys
import tempfile
import unittest

_made = []


def make(prefix):
    """A new, empty work folder whose name starts with `prefix`, removed with the others
    by `finish` (`run_tests`) when the run passed."""
    folder = tempfile.mkdtemp(prefix=prefix)
    _made.append(folder)
    return folder


def finish(passed):
    """Removes the work folders made so far when the run `passed`; otherwise lists them on
    standard error and keeps them."""
    if passed:
        for folder in _made:
            shutil.rmtree(folder, ignore_errors=True)
    elif _made:
        print("work folders kept for the failure:\n  " + "\n  ".join(_made), file=sys.stderr)
    _made.clear()


def run_tests(argv=None):
    """Runs the module's tests as `unittest.main(verbosity=2)` does, then `finish`es their
    work folders, and exits 0 when every test passed, 1 otherwise."""
    program = unittest.main(verbosity=2, argv=argv, exit=False)
    passed = program.result.wasSuccessful()
    finish(passed)
    sys.exit(0 if passed else 1)
