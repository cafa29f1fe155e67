"""What the page's browser tests share: the repository, the inputs, and running ./headscope."""
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(os.environ.get("HEADSCOPE_HOME") or pathlib.Path(__file__).resolve().parents[3])

SHORT = "The cat sat on the [MASK] because it was tired."
SHORT_PAIR = "It slept all day."
SHORT_OFF = "5-4,8-10"
XSS = "</script><img src=x onerror=alert(1)> & \"quoted\" <b>bold</b> \u2028 the [MASK] <!-- end"
LONG = " ".join(" ".join(["the quick brown fox jumps over the lazy dog while a small bird sings in the old tree near "
                          "the river"] * 20).split()[:126])


def headscope(*args):
    """Runs ./headscope; returns stdout (fails the test with its stderr)."""
    r = subprocess.run([str(REPO / "headscope"), *args], cwd=str(REPO), capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail("./headscope %s failed (%d): %s" % (" ".join(args[:2]), r.returncode, r.stderr[-2000:]))
    return r.stdout
