"""The bridge's fixtures: one real server on bert-base-uncased for the whole session (helpers in
bridge_support.py)."""

import pytest

from bridge_support import MODEL, ROOT, START_TIMEOUT, headscope


def pytest_configure(config):
    # the slow tier (README, "Run the tests"): ./headscope test leaves it out, ./headscope test slow runs it
    config.addinivalue_line("markers", "slow: minutes-long tests (a notebook run, pip into a venv, a browser "
                                       "on many pages): ./headscope test slow, ./headscope test all")

@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def hs():
    server = headscope.open(MODEL, timeout=START_TIMEOUT)
    yield server
    server.close()
