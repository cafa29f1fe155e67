"""TransformerLens's activation patching of the residual stream, one position at a time, on BERT.

TransformerLens:
    def patch_residual_component(corrupted_residual, hook, pos, clean_cache):
        corrupted_residual[:, pos, :] = clean_cache[hook.name][:, pos, :]
        return corrupted_residual
    for layer in range(model.cfg.n_layers):
        for position in range(tokens.shape[1]):
            hook_fn = partial(patch_residual_component, pos=position, clean_cache=clean_cache)
            patched_logits = model.run_with_hooks(corrupted_tokens,
                fwd_hooks=[(utils.get_act_name("resid_pre", layer), hook_fn)])
            patched_logit_diff[layer, position] = logits_to_logit_diff(patched_logits)

HeadScope: one run per layer, a batch of one corrupted copy per position, each patched at its own position.
"""
import json
import sys

import numpy as np

import headscope

CLEAN = "The doctor said that [MASK] was tired ."
CORRUPTED = "The nurse said that [MASK] was tired ."
TARGET, CONTRAST = "he", "she"

with headscope.open("bert-base-uncased") as hs:
    clean = hs.run(CLEAN)
    tokens = clean.tokens[0]
    n = len(tokens)
    mask = tokens.index("[MASK]")
    ids = {}
    for word in (TARGET, CONTRAST):
        alone = hs.run(word, logits=False)  # [CLS] word [SEP]: a one-piece word's id
        assert len(alone.tokens[0]) == 3, "%r is more than one wordpiece" % word
        ids[word] = int(alone.ids[0, 1])

    def logit_diff(log_probs):
        # log p(he) - log p(she) = logit(he) - logit(she): the softmax's normaliser cancels
        return log_probs[..., mask, ids[TARGET]] - log_probs[..., mask, ids[CONTRAST]]

    grid = np.zeros((hs.layers, n))
    for layer in range(hs.layers):
        patched = hs.run([CORRUPTED] * n, logits=True, interventions=[
            {"hook": "blocks.%d.hook_resid_pre" % layer, "op": "patch_from", "source": CLEAN,
             "inputs": [p], "positions": [p]} for p in range(n)])
        grid[layer] = logit_diff(patched.log_probs)
    corrupted = hs.run(CORRUPTED)
    print("clean %.4f, corrupted %.4f" % (logit_diff(clean.log_probs)[0], logit_diff(corrupted.log_probs)[0]),
          file=sys.stderr)
    print(json.dumps({"tokens": tokens, "clean": float(logit_diff(clean.log_probs)[0]),
                      "corrupted": float(logit_diff(corrupted.log_probs)[0]), "patched": grid.tolist()}))
