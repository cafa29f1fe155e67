"""docs/NOTEBOOK.md's TransformerLens examples (python/examples) run as a user runs them, each checked against
HeadScope's command line: head ablation against `predict --disable`, residual patching against `patch --by
resid`, the induction scores against the maps of `attention`."""
import csv
import io
import json
import os
import subprocess
import sys

import numpy as np

from bridge_support import ROOT, cli_json, run_cli

EXAMPLES = os.path.join(ROOT, "python", "examples")


def example(name, *args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), HEADSCOPE_HOME=ROOT)
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)] + list(args), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=1800)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-3000:]
    return json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1])


def test_head_ablation_is_predict_with_the_head_off():
    text = "The cat sat on the [MASK] because it was tired ."
    got = example("tl_head_ablation.py", text)
    cli = cli_json("predict", "--text", text, "--disable", "1-9")
    p = cli["predictions"][0]
    assert p["position"] == got["position"] and p["original"]["id"] == got["token_id"]
    # the CLI prints probabilities to 6 decimals: 5e-7, and float32 rounding well below 1e-5
    assert abs(got["before"] - p["original"]["probabilityBefore"]) <= 1e-5
    assert abs(got["after"] - p["original"]["probabilityAfter"]) <= 1e-5


def test_residual_patching_is_the_patch_commands_grid():
    got = example("tl_residual_patching.py")
    rows = list(csv.DictReader(io.StringIO(run_cli(
        "patch", "--clean", "The doctor said that [MASK] was tired .", "--corrupted",
        "The nurse said that [MASK] was tired .", "--target", "he", "--contrast", "she", "--by", "resid"))))
    pre = [r for r in rows if r["stream"] == "resid_pre"]
    assert len(pre) == len(got["patched"]) * len(got["tokens"])
    grid = np.array(got["patched"])
    scale = abs(got["clean"] - got["corrupted"])
    for r in pre:
        layer, position = int(r["layer"]) - 1, int(r["position"])
        # two routes through the engine (the CLI batches its own way): float32 sums in another order, and the
        # CSV's printed digits; 1e-4 of the clean-corrupted gap is far above both and far below any finding
        assert abs(grid[layer, position] - float(r["patched_logit_diff"])) <= 1e-4 * max(1.0, scale), r
    assert abs(got["clean"] - float(pre[0]["clean_logit_diff"])) <= 1e-4 * max(1.0, scale)
    assert abs(got["corrupted"] - float(pre[0]["corrupted_logit_diff"])) <= 1e-4 * max(1.0, scale)


def test_induction_scores_are_those_of_the_attention_commands_maps():
    got = example("tl_induction.py", "3")
    att = cli_json("attention", "--text", got["text"])
    a = np.array(att["attention"], dtype=np.float64)  # (layer, head, query, key)
    s = got["seq_len"]
    stripe = np.diagonal(a[..., 1:-1, 1:-1], offset=1 - s, axis1=-2, axis2=-1)
    want = stripe.mean(-1)
    # the same maps (1e-6 apart at most) averaged: the mean stays within 1e-6
    assert np.max(np.abs(np.array(got["scores"]) - want)) <= 1e-6
