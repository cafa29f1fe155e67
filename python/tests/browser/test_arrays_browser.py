"""BertViz's head_view / model_view from Python (headscope.head_view) and `headscope html --arrays` in Chromium:
the page draws attention HeadScope did not compute, stores exactly the float32 arrays given, shows hostile tokens
as text, switches between an encoder-decoder's parts, and makes no network request."""
import json
import os
import sys

import numpy as np
import pytest

from page_support import REPO, headscope

sys.path.insert(0, str(REPO / "python"))
import headscope as hs  # noqa: E402

pytestmark = pytest.mark.slow  # the slow tier: ./headscope test slow

HOSTILE = ["[CLS]", "</script><img src=x onerror=alert(1)>", "<b>bold</b>", "&amp;", "\u0120world", "\u2028",
           "<!--", "[SEP]"]


class TensorLike:
    """What head_view reads of a torch tensor (torch is not installed here): detach(), cpu(), numpy(); a
    tensor with requires_grad has no __array__ that NumPy may use, so neither has this."""

    def __init__(self, a):
        self._a = a

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self._a

    def __array__(self, *args, **kwargs):
        raise AssertionError("read through numpy(), as a tensor that requires grad must be")


def softmax_rows(rng, shape):
    x = rng.standard_normal(shape)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.fixture(scope="module")
def arrays_pages(tmp_path_factory):
    d = tmp_path_factory.mktemp("arrays")
    rng = np.random.default_rng(42)
    n = len(HOSTILE)
    layers = [softmax_rows(rng, (1, 6, n, n)).astype(np.float32) for _ in range(4)]
    out = {"layers": layers}
    # BertViz's call, a tuple of (batch=1, head, query, key) tensors, as a notebook passes outputs.attentions
    page = hs.head_view(tuple(TensorLike(a) for a in layers), HOSTILE, sentence_b_start=5, html_action="return")
    out["head"] = page.save(str(d / "head.html"))
    page = hs.model_view(np.stack([a[0] for a in layers]), HOSTILE, include_layers=[3, 1], include_heads=[0, 5],
                         html_action="return")
    out["model"] = page.save(str(d / "model.html"))
    enc = softmax_rows(rng, (2, 3, 5, 5))  # float64, as NumPy makes it: the page holds its float32
    dec = np.tril(rng.random((2, 3, 3, 3)) + 0.1)
    dec /= dec.sum(-1, keepdims=True)
    cross = softmax_rows(rng, (2, 3, 3, 5))
    out["encdec"] = {"encoder": enc, "decoder": dec, "cross": cross}
    page = hs.head_view(encoder_attention=list(enc[:, None]), decoder_attention=list(dec[:, None]),
                        cross_attention=list(cross[:, None]), encoder_tokens=["\u2581a", "b", "<i>c", "d", "e"],
                        decoder_tokens=["x", "y", "z"], html_action="return")
    out["encdec_file"] = page.save(str(d / "encdec.html"))
    # the command line, from a .npz written by NumPy
    npz = d / "cli.npz"
    np.savez(npz, tokens=np.array(HOSTILE), attention=np.stack([a[0] for a in layers]))
    out["cli"] = str(d / "cli.html")
    headscope("html", "--arrays", str(npz), "--out", out["cli"])
    return out


def page_maps(browser):
    return np.array(browser.evaluate("Array.from(headscope.intact)"), dtype=np.float64)


def test_the_head_view_stores_the_arrays_given_and_draws_them(browser, arrays_pages):
    want = np.stack([a[0] for a in arrays_pages["layers"]])
    for name in ("head", "cli"):
        browser.open(arrays_pages[name])
        assert browser.evaluate("headscope.ready") is True, browser.evaluate("headscope.error")
        got = page_maps(browser).astype(np.float32)
        assert np.array_equal(got, want.ravel()), name
        # the value the page reads for a cell is the array's
        assert browser.evaluate("headscope.value('intact', 2, 4, 3, 1)") == float(want[2, 4, 3, 1])
        browser.evaluate("headscope.showView('head')")
        assert browser.evaluate("headscope.linesDrawn") > 0
        assert browser.evaluate("document.getElementById('tab-neuron').hidden") is True
    browser.open(arrays_pages["head"])
    assert browser.evaluate("headscope.data.segments") == [0, 0, 0, 0, 0, 1, 1, 1]
    assert browser.evaluate("headscope.data.tokens")[4] == " world"  # prettify_tokens, as BertViz


def test_the_model_view_shows_the_layers_and_heads_picked_by_their_numbers(browser, arrays_pages):
    browser.open(arrays_pages["model"])
    assert browser.evaluate("headscope.state.view") == "model"
    assert browser.evaluate("document.querySelectorAll('#grid canvas').length") == 4
    labels = browser.evaluate("[...document.querySelectorAll('#grid .rowlabel, #grid .collabel')].map(e => e.textContent)")
    assert labels == ["1", "6", "L4", "L2"]
    full = np.stack([a[0] for a in arrays_pages["layers"]])
    want = full[[3, 1]][:, [0, 5]]
    assert np.array_equal(page_maps(browser).astype(np.float32), want.ravel())
    browser.click_element("#thumb-1-1")
    assert "2-6" in browser.evaluate("document.getElementById('zoom-title').textContent")


def test_an_encoder_decoder_shows_each_part(browser, arrays_pages):
    browser.open(arrays_pages["encdec_file"])
    want = arrays_pages["encdec"]
    options = browser.evaluate("[...document.querySelectorAll('#part option')].map(o => o.textContent)")
    assert options == ["encoder", "decoder", "cross"]
    for i, name in enumerate(options):
        browser.evaluate("headscope.usePart(%d)" % i)
        assert np.array_equal(page_maps(browser).astype(np.float32), want[name].astype(np.float32).ravel()), name
        for v in ("model", "head"):
            browser.evaluate("headscope.showView(%s)" % json.dumps(v))
        assert browser.evaluate("headscope.linesDrawn") > 0
    p = browser.evaluate("headscope.tokenPoint('key', 4)")
    browser.mouse("mouseMoved", p["x"], p["y"])
    assert browser.evaluate("headscope.state.hover") == {"side": "key", "index": 4}
    browser.mouse("mouseMoved", 2, 2)
    legend = browser.evaluate("(() => { headscope.showView('model'); return document.getElementById('legend').textContent; })()")
    assert "not square" in legend


def test_hostile_tokens_are_text_and_nothing_runs_or_loads(browser, arrays_pages):
    dialogs = len(browser.events_named("Page.javascriptDialogOpening"))
    opened = []
    for name in ("head", "model", "cli", "encdec_file"):
        opened.append(browser.open(arrays_pages[name]))
        for v in ("model", "head"):
            browser.evaluate("headscope.showView(%s)" % json.dumps(v))
        assert browser.evaluate("document.querySelectorAll('img, [onerror], b, i').length") == 0
    browser.open(arrays_pages["cli"])
    assert browser.evaluate("headscope.data.tokens") == HOSTILE
    assert browser.evaluate("document.getElementById('input-text').textContent") == " ".join(HOSTILE)
    assert len(browser.events_named("Page.javascriptDialogOpening")) == dialogs
    urls = [e["params"]["request"]["url"] for e in browser.events_named("Network.requestWillBeSent")]
    assert [u for u in urls if u.startswith("http")] == []
    assert browser.events_named("Runtime.exceptionThrown") == []


def test_bad_arrays_are_one_clear_error():
    with pytest.raises(ValueError, match="batch of 2"):
        hs.head_view((np.zeros((2, 1, 3, 3)),), ["a", "b", "c"], html_action="return")
    with pytest.raises(ValueError, match="3 x 3 tokens but there are 2"):
        hs.head_view(np.zeros((1, 1, 3, 3)), ["a", "b"], html_action="return")
    with pytest.raises(ValueError, match="html_action"):
        hs.head_view(np.full((1, 1, 2, 2), 0.5), ["a", "b"], html_action="show")
    with pytest.raises(hs.HeadScopeError, match="finite"):
        hs.head_view(np.full((1, 1, 2, 2), np.nan), ["a", "b"], html_action="return")
