"""BertViz's ``head_view`` and ``model_view`` on HeadScope's offline page: attention of any model, given as arrays.

    from headscope import head_view          # was: from bertviz import head_view
    outputs = model(inputs, output_attentions=True)
    head_view(outputs.attentions, tokens)

The arguments are BertViz's. The page is the one ``./headscope html --arrays FILE.npz`` writes (the same
Java code): self-contained, no network (a Content-Security-Policy forbids it), tokens shown as text.
Torch tensors are read without importing torch (``.detach().cpu().numpy()``, or ``__array__``).
"""

import io
import os
import subprocess
import tempfile

import numpy as np

from ._home import find_launcher

__all__ = ["head_view", "model_view", "attention_arrays"]


def _numpy(x, what):
    """A NumPy array from a NumPy array, a torch / TensorFlow / JAX tensor or nested lists, without importing
    any framework: torch's ``detach``, ``cpu`` and ``numpy`` (bfloat16 through ``float()``), else ``__array__``."""
    if isinstance(x, np.ndarray):
        return x
    detach = getattr(x, "detach", None)
    if callable(detach):
        x = detach()
    cpu = getattr(x, "cpu", None)
    if callable(cpu):
        x = cpu()
    to_numpy = getattr(x, "numpy", None)
    if callable(to_numpy):
        try:
            return np.asarray(to_numpy())
        except TypeError:  # torch.bfloat16 has no NumPy type
            as_float = getattr(x, "float", None)
            if callable(as_float):
                return np.asarray(as_float().numpy())
            raise
    try:
        return np.asarray(x)
    except Exception as e:
        raise TypeError("%s is a %s, which HeadScope cannot read as an array: %s" % (what, type(x).__name__, e)) from None


def _layers(attention, what):
    """(layer, head, query, key) float32 from BertViz's forms: a tuple or list of per-layer (batch, head, query,
    key) tensors with a batch of 1 (or per-layer (head, query, key)), or one (layer, head, query, key) array
    (or (layer, 1, head, query, key))."""
    if isinstance(attention, (tuple, list)):
        if not attention:
            raise ValueError("%s is empty: pass outputs.attentions of a model run with output_attentions=True" % what)
        layers = []
        for i, a in enumerate(attention):
            a = _numpy(a, "%s[%d]" % (what, i))
            if a.ndim == 4:
                if a.shape[0] != 1:
                    raise ValueError("%s[%d] holds a batch of %d inputs (shape %s): give one input's attention, e.g. "
                                     "tuple(a[i:i+1] for a in outputs.attentions)" % (what, i, a.shape[0], a.shape))
                a = a[0]
            if a.ndim != 3:
                raise ValueError("%s[%d] has shape %s: each layer's attention is (batch, head, query, key). Was the "
                                 "model run with output_attentions=True?" % (what, i, a.shape))
            layers.append(a)
        shapes = {a.shape for a in layers}
        if len(shapes) != 1:
            raise ValueError("the layers of %s differ in shape: %s" % (what, sorted(shapes)))
        out = np.stack(layers)
    else:
        out = _numpy(attention, what)
        if out.ndim == 5 and out.shape[1] == 1:
            out = out[:, 0]
        if out.ndim != 4:
            raise ValueError("%s has shape %s: give a tuple of per-layer (batch, head, query, key) tensors or one "
                             "(layer, head, query, key) array" % (what, out.shape))
    if not np.issubdtype(out.dtype, np.number):
        raise TypeError("%s holds %s, not numbers" % (what, out.dtype))
    return np.ascontiguousarray(out, dtype=np.float32)


def _tokens(tokens, what, prettify):
    if tokens is None:
        raise ValueError("%s is required" % what)
    if isinstance(tokens, str):
        raise TypeError("%s must be a list of tokens, not one string" % what)
    out = [str(t) for t in (_numpy(tokens, what).tolist() if not isinstance(tokens, (list, tuple)) else tokens)]
    if prettify:  # as BertViz's format_special_chars: GPT-2's and SentencePiece's space marks as spaces
        out = [t.replace("\u0120", " ").replace("\u2581", " ").replace("</w>", "") for t in out]
    return out


def attention_arrays(attention=None, tokens=None, sentence_b_start=None, prettify_tokens=True,
                     encoder_attention=None, decoder_attention=None, cross_attention=None, encoder_tokens=None,
                     decoder_tokens=None, include_layers=None, include_heads=None, layer=None, heads=None, view="head"):
    """The arrays ``./headscope html --arrays`` reads, as a dict (what ``head_view`` saves with ``np.savez``)."""
    arrays = {}
    if attention is not None:
        if any(x is not None for x in (encoder_attention, decoder_attention, cross_attention)):
            raise ValueError("give attention, or the encoder-decoder form (encoder_attention, decoder_attention, "
                             "cross_attention), not both")
        a = _layers(attention, "attention")
        t = _tokens(tokens, "tokens", prettify_tokens)
        if a.shape[2] != len(t) or a.shape[3] != len(t):
            raise ValueError("attention is %d x %d tokens but there are %d tokens" % (a.shape[2], a.shape[3], len(t)))
        arrays["attention"] = a
        arrays["tokens"] = np.array(t, dtype=str)
        if sentence_b_start is not None:
            arrays["sentence_b_start"] = np.array(int(sentence_b_start), dtype=np.int32)
        n_layers = a.shape[0]
    elif any(x is not None for x in (encoder_attention, decoder_attention, cross_attention)):
        n_layers = None
        if encoder_tokens is not None:
            arrays["encoder_tokens"] = np.array(_tokens(encoder_tokens, "encoder_tokens", prettify_tokens), dtype=str)
        if decoder_tokens is not None:
            arrays["decoder_tokens"] = np.array(_tokens(decoder_tokens, "decoder_tokens", prettify_tokens), dtype=str)
        for name, value in (("encoder_attention", encoder_attention), ("decoder_attention", decoder_attention),
                            ("cross_attention", cross_attention)):
            if value is not None:
                arrays[name] = _layers(value, name)
                n_layers = arrays[name].shape[0] if n_layers is None else n_layers
    else:
        raise ValueError("give attention (with tokens), or encoder_attention / decoder_attention / cross_attention "
                         "(with encoder_tokens and decoder_tokens)")
    if include_layers is not None:
        include_layers = [int(l) for l in include_layers]
        arrays["include_layers"] = np.array(include_layers, dtype=np.int32)
    if include_heads is not None:
        arrays["include_heads"] = np.array([int(h) for h in include_heads], dtype=np.int32)
    if layer is not None:
        # BertViz's layer is a layer's own index; the page's is its place among the layers shown
        shown = include_layers if include_layers is not None else list(range(n_layers))
        if int(layer) not in shown:
            raise ValueError("layer %d is not among the layers shown: %s" % (layer, shown))
        arrays["layer"] = np.array(shown.index(int(layer)), dtype=np.int32)
    if heads is not None:
        arrays["heads"] = np.array([int(h) for h in heads], dtype=np.int32)
    arrays["view"] = np.array(view)
    arrays["title"] = np.array("from Python")
    return arrays


def _page(arrays, server=None, home=None):
    """The page for the arrays: from an open HeadScope server (no new process), else from ``./headscope html``
    (``home``: the checkout, as ``headscope.open``'s)."""
    handle, path = tempfile.mkstemp(prefix="headscope-arrays-", suffix=".npz")
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez(out, **arrays)
        if server is None:
            from ._client import latest_open
            server = latest_open()
        if server is not None:
            return server._call("html", {"arrays": path})
        done = subprocess.run([find_launcher(home), "html", "--arrays", path], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            from ._client import HeadScopeError
            lines = [l for l in done.stderr.decode("utf-8", "replace").splitlines() if l.strip()]
            message = lines[-1] if lines else "./headscope html exited with code %d" % done.returncode
            if message.startswith("headscope: "):
                message = message[len("headscope: "):]
            raise HeadScopeError(message, "input" if done.returncode == 1 else "usage")
        return done.stdout.decode("utf-8")
    finally:
        os.unlink(path)


def _check_action(html_action):
    if html_action not in ("view", "return"):
        raise ValueError("html_action must be 'view' or 'return', not %r" % (html_action,))


def _show(page, html_action):
    from ._client import View
    view = View(page)
    if html_action == "return":
        return view
    try:
        from IPython.display import display
    except ImportError:
        raise RuntimeError("html_action='view' shows the page in a notebook (IPython); outside one, use "
                           "html_action='return' and .save(path)") from None
    display(view)
    return None


def head_view(attention=None, tokens=None, sentence_b_start=None, prettify_tokens=True, layer=None, heads=None,
              encoder_attention=None, decoder_attention=None, cross_attention=None, encoder_tokens=None,
              decoder_tokens=None, include_layers=None, html_action="view", server=None, home=None):
    """BertViz's head view (the same arguments) on HeadScope's offline page.

    ``attention``: a tuple of per-layer (batch=1, head, query, key) tensors (``outputs.attentions`` of a
    Hugging Face model), torch or NumPy, or one (layer, head, query, key) array; ``tokens`` the tokens.
    ``sentence_b_start``: the first token of the second sentence. ``layer``, ``heads``: where the view opens
    (0-based). ``include_layers``: the layers to show. The encoder-decoder form: ``encoder_attention``,
    ``decoder_attention``, ``cross_attention`` (decoder queries over encoder keys) with ``encoder_tokens``
    and ``decoder_tokens``. ``html_action``: ``"view"`` shows it in the notebook, ``"return"`` returns a
    ``View`` (``.data``/``.html`` the page, ``.save(path)``). ``server``: an open ``headscope.HeadScope``
    to render with (no new process; by default the one opened last, if still open); with none open,
    ``./headscope html --arrays`` runs (a new JVM: 1.6 s on an idle machine).
    """
    _check_action(html_action)
    arrays = attention_arrays(attention, tokens, sentence_b_start, prettify_tokens, encoder_attention,
                              decoder_attention, cross_attention, encoder_tokens, decoder_tokens, include_layers,
                              None, layer, heads, "head")
    return _show(_page(arrays, server, home), html_action)


def model_view(attention=None, tokens=None, sentence_b_start=None, prettify_tokens=True, display_mode="dark",
               encoder_attention=None, decoder_attention=None, cross_attention=None, encoder_tokens=None,
               decoder_tokens=None, include_layers=None, include_heads=None, html_action="view", server=None,
               home=None):
    """BertViz's model view (the same arguments): every head's map, layers down and heads across, framed in
    its Kovaleva category where the categories are defined. ``include_layers``, ``include_heads``: which to
    show (labelled by their own numbers). ``display_mode`` is accepted and ignored (the page is light)."""
    _check_action(html_action)
    if display_mode not in ("dark", "light"):
        raise ValueError("display_mode must be 'dark' or 'light'")
    arrays = attention_arrays(attention, tokens, sentence_b_start, prettify_tokens, encoder_attention,
                              decoder_attention, cross_attention, encoder_tokens, decoder_tokens, include_layers,
                              include_heads, None, None, "model")
    return _show(_page(arrays, server, home), html_action)
