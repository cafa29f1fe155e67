"""``hs.run``: TransformerLens's ``run_with_cache`` and ``run_with_hooks`` over the bridge.

    log_probs, cache = hs.run("The cat sat on the [MASK] .", cache=["blocks.*.attn.hook_pattern"])
    cache["blocks.3.attn.hook_pattern"]            # (batch, head, query, key), layers 0-based
    hs.run(text, interventions=[{"hook": "blocks.11.attn.hook_z", "op": "zero", "heads": [3]}])

Names and shapes are TransformerLens's (docs/NOTEBOOK.md has the table); the edits run inside the engine.
"""

import io
import json
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

__all__ = ["Run", "ActivationCache"]


class ActivationCache(dict):
    """The activations a run kept, by TransformerLens's names: NumPy float32 arrays, batch first, padded to the
    batch's longest input (``Run.lengths`` says how much of each row is real)."""

    def __repr__(self):
        return "ActivationCache(%s)" % ", ".join("%s %s" % (k, tuple(v.shape)) for k, v in self.items())


@dataclass
class Run:
    """What ``HeadScope.run`` returns; unpacks as TransformerLens's ``logits, cache = model.run_with_cache(...)``.

    Attributes:
        tokens: per input, its tokens (unpadded).
        ids: int32 (batch, position), padded with 0.
        lengths: int32 (batch,), each input's real length.
        log_probs: float32 (batch, position, vocab): log-softmax of the masked-LM (GPT-2: next-token) logits at
            every position; None for a model without a language-model head or with ``logits=False``.
            TransformerLens returns the logits themselves, which differ by a constant per position (the same
            softmax, the same argmax).
        class_probabilities: float32 (batch, labels) for a sequence classifier, else None.
        cache: an ``ActivationCache``.
    """
    tokens: List[List[str]]
    ids: np.ndarray
    lengths: np.ndarray
    log_probs: Optional[np.ndarray]
    class_probabilities: Optional[np.ndarray]
    cache: ActivationCache = field(default_factory=ActivationCache)

    @property
    def probabilities(self):
        """``exp(log_probs)``: the masked-LM distribution at every position."""
        return None if self.log_probs is None else np.exp(self.log_probs.astype(np.float64)).astype(np.float32)

    def __iter__(self):
        yield self.log_probs
        yield self.cache

    @classmethod
    def from_npz(cls, data):
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            names = list(z.files)
            lengths = z["lengths"]
            tokens = z["tokens"]
            fixed = {"tokens", "ids", "lengths", "log_probs", "class_probabilities"}
            cache = ActivationCache((n, z[n]) for n in names if n not in fixed)
            return cls(tokens=[tokens[i, :lengths[i]].tolist() for i in range(len(lengths))], ids=z["ids"],
                       lengths=lengths, log_probs=z["log_probs"] if "log_probs" in names else None,
                       class_probabilities=z["class_probabilities"] if "class_probabilities" in names else None,
                       cache=cache)

    def __repr__(self):
        return "Run(%d inputs, %d positions, cache of %d)" % (len(self.tokens), self.ids.shape[1], len(self.cache))


_EDIT_KEYS = {"hook", "op", "heads", "positions", "inputs", "value", "source", "source_pair"}


def _edit(e):
    if not isinstance(e, dict):
        raise TypeError("an intervention is a dict such as {'hook': 'blocks.11.attn.hook_z', 'op': 'zero', "
                        "'heads': [3]}, not %r" % (e,))
    unknown = set(e) - _EDIT_KEYS
    if unknown:
        raise ValueError("an intervention has %s; the keys are %s" % (sorted(unknown), sorted(_EDIT_KEYS)))
    out = {}
    for k, v in e.items():
        if v is None:
            continue
        if k in ("heads", "positions", "inputs"):
            v = [int(x) for x in np.atleast_1d(v).tolist()]
        elif k == "value":
            v = float(v)
        out[k] = v
    return out


def request_args(text_or_texts, pair=None, cache=None, interventions=None, logits=True):
    """The ``run`` op's arguments (the CLI's ``./headscope run`` options)."""
    args = {}
    if isinstance(text_or_texts, str):
        args["text"] = text_or_texts
        args["pair"] = pair
    else:
        if pair is not None:
            raise ValueError("pair= goes with one text; in a batch give (text, pair) tuples")
        items = []
        for t in text_or_texts:
            items.append(list(t) if isinstance(t, (tuple, list)) else str(t))
        if not items:
            raise ValueError("no inputs")
        args["inputs"] = json.dumps(items, ensure_ascii=False)
    if cache:
        names = [cache] if isinstance(cache, str) else list(cache)
        for n in names:
            if "," in n:
                raise ValueError("a hook name has no comma: %r" % n)
        args["cache"] = names
    if interventions:
        args["interventions"] = json.dumps([_edit(e) for e in interventions], ensure_ascii=False)
    if not logits:
        args["no_logits"] = True
    args["format"] = "npz"
    return args
