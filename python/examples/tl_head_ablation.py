"""TransformerLens's first example, "ablating a head through hook_z", on BERT with HeadScope.

TransformerLens (Main Demo):
    def head_ablation_hook(value, hook):          # value: (batch, pos, head, d_head)
        value[:, :, head_index_to_ablate, :] = 0.
    model.run_with_hooks(tokens, fwd_hooks=[(utils.get_act_name("z", layer_to_ablate), head_ablation_hook)])

HeadScope: the same edit, declared, and run inside the engine.
"""
import json
import sys

import numpy as np

import headscope

TEXT = sys.argv[1] if len(sys.argv) > 1 else "The cat sat on the [MASK] because it was tired ."
LAYER, HEAD = 0, 8  # 0-based, as TransformerLens: the paper's head 1-9

with headscope.open("bert-base-uncased") as hs:
    original = hs.run(TEXT)
    ablated = hs.run(TEXT, interventions=[
        {"hook": "blocks.%d.attn.hook_z" % LAYER, "op": "zero", "heads": [HEAD]}])
    mask = original.tokens[0].index("[MASK]")
    top = int(np.argmax(original.log_probs[0, mask]))
    before = float(np.exp(original.log_probs[0, mask, top]))
    after = float(np.exp(ablated.log_probs[0, mask, top]))
    print("top token %r at [MASK]: %.6f intact, %.6f with head %d-%d off" % (
        original.tokens[0][mask], before, after, LAYER + 1, HEAD + 1), file=sys.stderr)
    print(json.dumps({"position": mask, "token_id": top, "before": before, "after": after}))
