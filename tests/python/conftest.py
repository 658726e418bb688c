"""Fixtures shared by the Python tests."""
import contextlib
import signal

import pytest


@pytest.fixture
def deadline():
    """`with deadline(seconds):` fails the test when the block is still running after that many seconds
    (a pipe opened for reading that waits for a writer, a device read for ever), instead of hanging
    the whole suite. The failure is not an OSError, so no `except OSError` on the way can take it
    for a refusal."""
    @contextlib.contextmanager
    def within(seconds):
        def expired(signum, frame):
            pytest.fail(f"still running after {seconds} s", pytrace=False)

        previous = signal.signal(signal.SIGALRM, expired)
        signal.alarm(seconds)
        try:
            yield
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    return within
