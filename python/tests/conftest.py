"""The bridge's fixtures: one real server on bert-base-uncased for the whole session (helpers in
bridge_support.py)."""

import pytest

from bridge_support import MODEL, ROOT, START_TIMEOUT, headscope


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def hs():
    server = headscope.open(MODEL, timeout=START_TIMEOUT)
    yield server
    server.close()
