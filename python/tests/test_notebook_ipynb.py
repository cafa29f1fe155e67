"""docs/notebook/headscope-lab.ipynb executed by nbclient (Debian: python3-nbclient, python3-ipykernel,
python3-numpy), as a user's Jupyter runs it, and its outputs checked: the head view shown inline, the cache equal
to `attention`, the ablation equal to `predict --disable`. nbclient runs under the first Python that has it
(this one, python3, Debian's /usr/bin/python3), its kernel under the same."""
import json
import os
import re
import subprocess
import sys
import tempfile

import pytest

from bridge_support import ROOT

pytestmark = pytest.mark.slow  # the slow tier: ./headscope test slow

NOTEBOOK = os.path.join(ROOT, "docs", "notebook", "headscope-lab.ipynb")
DRIVER = """
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=1800, kernel_name="python3", resources={"metadata": {"path": sys.argv[3]}}).execute()
nbformat.write(nb, sys.argv[2])
"""


def python_with_nbclient():
    for python in (sys.executable, "python3", "/usr/bin/python3"):
        try:
            done = subprocess.run([python, "-c", "import nbclient, nbformat, ipykernel, numpy"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        except OSError:
            continue
        if done.returncode == 0:
            return python
    pytest.fail("this test runs the notebook with nbclient: apt-get install python3-nbclient python3-ipykernel "
                "python3-numpy (no python3 here imports nbclient, nbformat, ipykernel and numpy)", pytrace=False)


def test_the_notebook_runs_and_its_outputs_hold():
    python = python_with_nbclient()
    handle, executed = tempfile.mkstemp(suffix=".ipynb")
    os.close(handle)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), HEADSCOPE_HOME=ROOT)
    try:
        done = subprocess.run([python, "-c", DRIVER, NOTEBOOK, executed, ROOT], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=2400)
        assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-3000:]
        with open(executed, encoding="utf-8") as f:
            nb = json.load(f)
    finally:
        os.unlink(executed)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert all(c["execution_count"] for c in code)
    text = ["".join("".join(o.get("text", "")) for o in c["outputs"] if o["output_type"] == "stream") for c in code]
    shown = [o for o in code[1]["outputs"] if o["output_type"] == "display_data"]
    assert shown and "<iframe srcdoc=" in "".join(shown[0]["data"]["text/html"])
    assert "CSP True" in text[2]
    assert "z (1, 13, 12, 64)" in text[3]
    assert float(re.search(r"layer 4: (\S+)", text[3]).group(1)) <= 1e-6
    assert float(re.search(r"12-4: (\S+)", text[4]).group(1)) <= 1e-5
