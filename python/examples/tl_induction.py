"""TransformerLens's induction-score loop on BERT: a random sequence repeated, and per head the mean attention
from each token of the repeat to the token after its earlier occurrence.

TransformerLens:
    def induction_score_hook(pattern, hook):       # pattern: (batch, head, query, key)
        induction_stripe = pattern.diagonal(dim1=-2, dim2=-1, offset=1 - seq_len)
        induction_score_store[hook.layer(), :] = induction_stripe.mean(-1).mean(0)
    model.run_with_hooks(repeated_tokens, return_type=None,
        fwd_hooks=[(lambda name: name.endswith("pattern"), induction_score_hook)])

HeadScope: the patterns of every layer in one run (a wildcard), the stripe in NumPy.
"""
import json
import random
import sys

import numpy as np

import headscope

WORDS = ("apple river stone cloud green music paper window silver garden table orange mountain letter "
         "bridge candle forest yellow engine pocket").split()
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
first = random.sample(WORDS, 10)
TEXT = " ".join(first + first)

with headscope.open("bert-base-uncased") as hs:
    run = hs.run(TEXT, cache=["blocks.*.attn.hook_pattern"], logits=False)
    tokens = run.tokens[0]
    seq_len = (len(tokens) - 2) // 2  # [CLS] a... a... [SEP]
    assert tokens[1:1 + seq_len] == tokens[1 + seq_len:1 + 2 * seq_len], "a word split differently the second time"
    scores = np.zeros((hs.layers, hs.heads))
    for layer in range(hs.layers):
        pattern = run.cache["blocks.%d.attn.hook_pattern" % layer]  # (1, head, query, key)
        stripe = np.diagonal(pattern[..., 1:-1, 1:-1], offset=1 - seq_len, axis1=-2, axis2=-1)
        scores[layer] = stripe.mean(-1).mean(0)
    best = np.unravel_index(np.argmax(scores), scores.shape)
    print("strongest induction head: %d-%d, score %.3f" % (best[0] + 1, best[1] + 1, scores[best]), file=sys.stderr)
    print(json.dumps({"text": TEXT, "seq_len": seq_len, "scores": scores.tolist()}))
