"""The interactive page's browser tests: pages written by the real `headscope html`, opened in Chromium."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import cdp  # noqa: E402

REPO = pathlib.Path(os.environ.get("HEADSCOPE_HOME") or pathlib.Path(__file__).resolve().parents[3])

SHORT = "The cat sat on the [MASK] because it was tired."
SHORT_PAIR = "It slept all day."
SHORT_OFF = "5-4,8-10"
XSS = "</script><img src=x onerror=alert(1)> & \"quoted\" <b>bold</b> \u2028 the [MASK] <!-- end"
LONG = " ".join(("the quick brown fox jumps over the lazy dog while a small bird sings in the old tree near "
                 "the river").split() * 20).split()[:126]
LONG = " ".join(LONG)


def headscope(*args):
    """Runs ./headscope; returns stdout (fails the test with its stderr)."""
    r = subprocess.run([str(REPO / "headscope"), *args], cwd=str(REPO), capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail("./headscope %s failed (%d): %s" % (" ".join(args[:2]), r.returncode, r.stderr[-2000:]))
    return r.stdout


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
    if cdp.chromium_path() is None:
        pytest.fail(cdp.MISSING, pytrace=False)
    b = cdp.Browser(1280, 800)
    yield b
    b.close()
