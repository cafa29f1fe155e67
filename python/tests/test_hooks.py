"""hs.run on bert-base against the command line: TransformerLens's names and shapes, the cache against
`./headscope attention`, a zeroed hook_z against `./headscope predict --disable`, and edits against hand-edited
plain runs."""
import numpy as np
import pytest

from bridge_support import cli_json, headscope

TEXT = "The cat sat on the [MASK] because it was tired ."
OTHER = "The dog lay on the [MASK] because it was lazy ."


def test_the_cached_pattern_is_the_attention_commands_layer(hs):
    r = hs.run(TEXT, cache=["blocks.3.attn.hook_pattern"])
    cli = cli_json("attention", "--text", TEXT)
    got = r.cache["blocks.3.attn.hook_pattern"]
    want = np.array(cli["attention"][3], dtype=np.float32)  # layer 4, 1-based
    assert got.shape == (1,) + want.shape
    assert np.max(np.abs(got[0] - want)) <= 1e-6
    assert r.tokens == [cli["tokens"]]


def test_zeroing_hook_z_of_a_head_is_predict_with_the_head_off(hs):
    cli = cli_json("predict", "--text", TEXT, "--disable", "12-4", "--top", "10")
    r = hs.run(TEXT, interventions=[{"hook": "blocks.11.attn.hook_z", "op": "zero", "heads": [3]}])
    for p in cli["predictions"]:
        probs = r.probabilities[0, p["position"]]
        for t in p["top"]:
            assert abs(float(probs[t["id"]]) - t["probability"]) <= 1e-5, t
        assert int(np.argmax(probs)) == p["top"][0]["id"]
    # TransformerLens's unpacking
    log_probs, cache = r
    assert log_probs.shape == (1, len(r.tokens[0]), 30522) and len(cache) == 0


def test_names_and_shapes_are_transformer_lenses(hs):
    names = ["hook_embed", "blocks.0.hook_resid_pre", "blocks.0.attn.hook_q", "blocks.0.attn.hook_k",
             "blocks.0.attn.hook_v", "blocks.0.attn.hook_z", "blocks.0.attn.hook_attn_scores",
             "blocks.0.attn.hook_pattern", "blocks.0.hook_attn_out", "blocks.0.hook_resid_mid",
             "blocks.0.hook_mlp_out", "blocks.0.hook_resid_post", "blocks.0.mlp.hook_pre"]
    r = hs.run([TEXT, "A short one ."], cache=names + ["blocks.*.attn.hook_pattern"])
    n = len(r.tokens[0])
    assert r.lengths.tolist() == [n, len(r.tokens[1])]
    want = {"hook_embed": (2, n, 768), "blocks.0.attn.hook_q": (2, n, 12, 64), "blocks.0.attn.hook_z": (2, n, 12, 64),
            "blocks.0.attn.hook_attn_scores": (2, 12, n, n), "blocks.0.attn.hook_pattern": (2, 12, n, n),
            "blocks.0.hook_resid_post": (2, n, 768), "blocks.0.mlp.hook_pre": (2, n, 3072)}
    for k, shape in want.items():
        assert r.cache[k].shape == shape, k
    assert sum(k.endswith("attn.hook_pattern") for k in r.cache) == 12
    c = r.cache
    # z by hand from the pattern and v, per head: z[b, i, h] = sum_j pattern[b, h, i, j] v[b, j, h]
    z = np.einsum("bhij,bjhd->bihd", c["blocks.0.attn.hook_pattern"].astype(np.float64),
                  c["blocks.0.attn.hook_v"].astype(np.float64))
    assert np.max(np.abs(z[0, :n] - c["blocks.0.attn.hook_z"][0, :n])) < 1e-5
    # bert: resid_mid = LayerNorm(resid_pre + attn_out); resid_pre of block 0 is hook_embed
    assert np.array_equal(c["hook_embed"], c["blocks.0.hook_resid_pre"])


def test_edits_are_the_same_as_hand_edited_runs(hs):
    # patch_from: the other input's resid_pre at one position, as TransformerLens's residual patching; by hand:
    # the whole other stream patched at every position is the other input's own run
    other = hs.run(OTHER, cache=["blocks.5.hook_resid_pre"])
    mine = hs.run(TEXT)
    n = len(mine.tokens[0])
    assert len(other.tokens[0]) == n
    every = hs.run(TEXT, interventions=[{"hook": "blocks.0.hook_resid_pre", "op": "patch_from", "source": OTHER}])
    assert np.max(np.abs(every.log_probs - other.log_probs)) <= 1e-5
    one = hs.run(TEXT, cache=["blocks.5.hook_resid_pre"], interventions=[
        {"hook": "blocks.5.hook_resid_pre", "op": "patch_from", "source": OTHER, "positions": [2]}])
    got = one.cache["blocks.5.hook_resid_pre"][0]
    assert np.array_equal(got[2], other.cache["blocks.5.hook_resid_pre"][0, 2])
    plain = hs.run(TEXT, cache=["blocks.5.hook_resid_pre"]).cache["blocks.5.hook_resid_pre"][0]
    assert np.array_equal(np.delete(got, 2, 0), np.delete(plain, 2, 0))
    # scale by 1 and add 0 change nothing, bit for bit; scale a head's pattern by 0 = zero it
    same = hs.run(TEXT, interventions=[{"hook": "blocks.*.hook_mlp_out", "op": "scale", "value": 1.0},
                                      {"hook": "blocks.2.attn.hook_q", "op": "add", "value": 0.0}])
    assert np.array_equal(same.log_probs, mine.log_probs)
    a = hs.run(TEXT, interventions=[{"hook": "blocks.4.attn.hook_pattern", "op": "scale", "value": 0.0, "heads": 2}])
    b = hs.run(TEXT, interventions=[{"hook": "blocks.4.attn.hook_pattern", "op": "zero", "heads": [2]}])
    assert np.array_equal(a.log_probs, b.log_probs)
    # mean over a batch of two identical inputs is the input itself
    m = hs.run([TEXT, TEXT], interventions=[{"hook": "blocks.3.hook_resid_mid", "op": "mean"}])
    assert np.max(np.abs(m.log_probs[0] - mine.log_probs[0])) <= 1e-5


def test_bad_interventions_are_one_clear_error(hs):
    with pytest.raises(headscope.HeadScopeError, match="op"):
        hs.run(TEXT, interventions=[{"hook": "blocks.0.attn.hook_z", "op": "erase"}])
    with pytest.raises(headscope.HeadScopeError, match="no hook point"):
        hs.run(TEXT, cache=["blocks.12.attn.hook_z"])
    with pytest.raises(ValueError, match="keys"):
        hs.run(TEXT, interventions=[{"hook": "blocks.0.attn.hook_z", "op": "zero", "head": 3}])
    with pytest.raises(headscope.HeadScopeError, match="same number of tokens"):
        hs.run(TEXT, interventions=[{"hook": "blocks.0.hook_resid_pre", "op": "patch_from", "source": "Hi ."}])


def test_python_hook_functions_run_during_the_pass(hs):
    plain = hs.run(TEXT)
    # TransformerLens's head_ablation_hook, word for word, on block 11's z: predict --disable 12-4
    def head_ablation_hook(value, hook):
        value[:, :, 3, :] = 0.
    seen = []

    def look(value, hook):
        seen.append((hook.name, hook.layer(), value.shape, float(np.abs(value[:, :, 3]).max())))

    r = hs.run(TEXT, hooks=[("blocks.11.attn.hook_z", head_ablation_hook), ("blocks.11.attn.hook_z", look)])
    n = len(r.tokens[0])
    assert seen == [("blocks.11.attn.hook_z", 11, (1, n, 12, 64), 0.0)]  # the second hook sees the first's edit
    cli = cli_json("predict", "--text", TEXT, "--disable", "12-4", "--top", "10")
    for p in cli["predictions"]:
        for t in p["top"]:
            assert abs(float(r.probabilities[0, p["position"], t["id"]]) - t["probability"]) <= 1e-5
    # hooks that return their input change nothing, bit for bit; one per layer
    same = hs.run(TEXT, hooks=[("blocks.%d.hook_resid_post" % l, lambda v, hook: v) for l in range(12)])
    assert np.array_equal(same.log_probs, plain.log_probs)
    # a returned array is what flows on: the hand-edited run is the declarative one
    def add(value, hook):
        return value + np.float32(0.5)
    fn = hs.run(TEXT, hooks=[("blocks.4.hook_resid_mid", add)], cache=["blocks.4.hook_resid_mid"])
    decl = hs.run(TEXT, interventions=[{"hook": "blocks.4.hook_resid_mid", "op": "add", "value": 0.5}],
                  cache=["blocks.4.hook_resid_mid"])
    assert np.array_equal(fn.cache["blocks.4.hook_resid_mid"], decl.cache["blocks.4.hook_resid_mid"])
    assert np.array_equal(fn.log_probs, decl.log_probs)


def test_a_failing_hook_raises_its_own_error_and_the_server_goes_on(hs):
    with pytest.raises(ZeroDivisionError):
        hs.run(TEXT, hooks=[("blocks.0.hook_resid_pre", lambda v, hook: 1 / 0)])
    with pytest.raises(ValueError, match="shape"):
        hs.run(TEXT, hooks=[("blocks.0.hook_resid_pre", lambda v, hook: v[:, :1])])
    assert hs.run(TEXT).tokens[0][0] == "[CLS]"
