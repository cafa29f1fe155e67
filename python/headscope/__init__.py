"""HeadScope from Python: BERT's attention heads as NumPy arrays.

    import headscope
    with headscope.open("bert-base-uncased") as hs:
        a = hs.attention("The cat sat on the mat.")
        a.attention.shape            # (layer, head, query, key) = (12, 12, 9, 9), float32
        hs.predict("The cat [MASK] on the mat.", disable=["8-10", "L11"])

``open`` starts one long-lived ``headscope serve --stdio`` (Java) on the model and talks to it over
its standard input and output (docs/PROTOCOL.md); the model is loaded once, calls take milliseconds.
"""

from ._client import (Attention, Cancelled, EncoderDecoderAttention, HeadScope, HeadScopeError, HeadScopeWarning, ServerError,
                      View, latest_open, open, read_table)
from ._bertviz import attention_arrays, head_view, model_view
from ._home import find_launcher, recorded_home
from ._run import ActivationCache, Run

__version__ = "0.1.0"

# shown as headscope.HeadScopeError (not headscope._client.HeadScopeError) in tracebacks and reprs
for _public in (Attention, EncoderDecoderAttention, Cancelled, HeadScope, HeadScopeError, HeadScopeWarning, ServerError, View, Run,
                ActivationCache):
    _public.__module__ = __name__
del _public

__all__ = ["open", "HeadScope", "Attention", "EncoderDecoderAttention", "View", "HeadScopeError", "Cancelled", "ServerError",
           "HeadScopeWarning", "find_launcher", "recorded_home", "read_table", "head_view", "model_view",
           "attention_arrays", "latest_open", "Run", "ActivationCache", "__version__"]
