"""The interactive page's browser tests: pages written by the real `headscope html`, opened in Chromium."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import headscope_cdp  # noqa: E402
from page_support import LONG, SHORT, SHORT_OFF, SHORT_PAIR, XSS, headscope  # noqa: E402


@pytest.fixture(scope="session")
def pages(tmp_path_factory):
    """Every page the tests open, written once per session, with the attention JSON of each input."""
    d = tmp_path_factory.mktemp("pages")
    out = {}

    def page(name, text, *more, pair=None):
        f = d / (name + ".html")
        args = ["html", "--text", text, "--out", str(f), "--force", *more]
        if pair:
            args += ["--pair", pair]
        headscope(*args)
        att = ["attention", "--text", text] + (["--pair", pair] if pair else [])
        out[name] = {"file": f, "attention": json.loads(headscope(*att))}

    page("short", SHORT, "--disable", SHORT_OFF, pair=SHORT_PAIR)
    page("xss", XSS)
    page("long", LONG)
    return out


@pytest.fixture(scope="session")
def browser():
    if headscope_cdp.chromium_path() is None:
        pytest.fail(headscope_cdp.MISSING, pytrace=False)
    b = headscope_cdp.Browser(1280, 800)
    yield b
    b.close()
