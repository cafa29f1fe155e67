"""docs/notebook/headscope-lab.ipynb executed by nbclient (Debian: python3-nbclient, python3-ipykernel), as a
user's Jupyter runs it, and its outputs checked: the head view shown inline, the cache equal to `attention`, the
ablation equal to `predict --disable`."""
import os
import re

import pytest

from bridge_support import ROOT

NOTEBOOK = os.path.join(ROOT, "docs", "notebook", "headscope-lab.ipynb")


def test_the_notebook_runs_and_its_outputs_hold():
    try:
        import nbformat
        from nbclient import NotebookClient
    except ImportError:
        pytest.fail("this test runs the notebook with nbclient: apt-get install python3-nbclient python3-ipykernel",
                    pytrace=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.path.join(ROOT, "python") + (os.pathsep + env_path if env_path else "")
    try:
        NotebookClient(nb, timeout=1800, kernel_name="python3", resources={"metadata": {"path": ROOT}}).execute()
    finally:
        if env_path:
            os.environ["PYTHONPATH"] = env_path
        else:
            del os.environ["PYTHONPATH"]
    code = [c for c in nb.cells if c.cell_type == "code"]
    text = ["".join(o.get("text", "") for o in c.outputs if o.output_type == "stream") for c in code]
    shown = [o for o in code[1].outputs if o.output_type == "display_data"]
    assert shown and "<iframe srcdoc=" in shown[0]["data"]["text/html"]
    assert "CSP True" in text[2]
    assert "z (1, 13, 12, 64)" in text[3]
    pattern = float(re.search(r"layer 4: (\S+)", text[3]).group(1))
    assert pattern <= 1e-6
    ablated = float(re.search(r"12-4: (\S+)", text[4]).group(1))
    assert ablated <= 1e-5
