"""The interactive page in a real browser (Chromium over the DevTools pipe): it draws, answers the mouse, shows
the neuron view's numbers, makes no network request, carries the numbers of `headscope attention`, and shows a
hostile input as text."""
import json
import os
import pathlib

import numpy as np

from page_support import REPO, XSS

CHECKSUM = """(() => { const c = document.querySelector(%s); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let ink = 0, sum = 0; for (let i = 0; i < d.length; i += 4) { const v = d[i] + d[i + 1] + d[i + 2];
  if (d[i + 3] > 0 && v < 750) ink++; sum = (sum * 31 + v * (i + 1)) %% 1000000007; } return [ink, sum]; })()"""


def ink(browser, selector):
    return browser.evaluate(CHECKSUM % json.dumps(selector))


def view(browser, name):
    browser.evaluate("headscope.showView(%s)" % json.dumps(name))


def test_the_head_view_draws_and_follows_the_pointer(browser, pages):
    browser.open(pages["short"]["file"])
    view(browser, "head")
    before = ink(browser, "#head-canvas")
    assert before[0] > 2000, "the head view drew almost nothing: %s" % before
    all_lines = browser.evaluate("headscope.linesDrawn")
    p = browser.evaluate("headscope.tokenPoint('query', 3)")
    browser.mouse("mouseMoved", p["x"], p["y"])
    hovered = ink(browser, "#head-canvas")
    assert hovered != before
    assert browser.evaluate("headscope.state.hover && headscope.state.hover.index") == 3
    assert 0 < browser.evaluate("headscope.linesDrawn") < all_lines
    browser.mouse("mouseMoved", 5, 5)
    assert ink(browser, "#head-canvas") == before


def test_a_head_swatch_hides_and_shows_its_lines(browser, pages):
    browser.open(pages["short"]["file"])
    view(browser, "head")
    before = ink(browser, "#head-canvas")
    browser.click_element("#swatch-0")
    assert browser.evaluate("headscope.state.heads.has(0)") is False
    after = ink(browser, "#head-canvas")
    assert after != before
    browser.click_element("#heads-none")
    assert browser.evaluate("headscope.linesDrawn") == 0
    browser.click_element("#swatch-4")
    assert browser.evaluate("[...headscope.state.heads]") == [4]
    assert browser.evaluate("headscope.linesDrawn") > 0


def test_the_model_view_draws_every_head_and_enlarges_a_click(browser, pages):
    browser.open(pages["short"]["file"])
    view(browser, "model")
    assert browser.evaluate("document.querySelectorAll('#grid canvas').length") == 144
    assert ink(browser, "#thumb-0-0 canvas")[0] > 10
    before = ink(browser, "#zoom-canvas")
    assert before[0] > 1000
    browser.click_element("#thumb-7-9")
    assert browser.evaluate("headscope.state.zoom") == [7, 9]
    assert "8-10" in browser.evaluate("document.getElementById('zoom-title').textContent")
    assert ink(browser, "#zoom-canvas") != before
    # the switched-off heads are crossed out and the difference is drawn on request
    assert browser.evaluate("document.querySelector('#thumb-4-3 .off').textContent") == "OFF"
    browser.evaluate("headscope.setMaps('difference')")
    assert ink(browser, "#thumb-11-0 canvas")[0] > 0


def test_the_neuron_view_opens_on_the_first_mask_and_the_pages_head(browser, pages):
    """Issue 40: it opened on head 1-1 at [CLS]; now on the head the page names (the app's, else the first one
    switched off) with the first [MASK] as its query."""
    browser.open(pages["short"]["file"])
    view(browser, "neuron")
    head = browser.evaluate("headscope.data.neuronHead")
    layer, h = (int(x) - 1 for x in head.split("-"))
    assert browser.evaluate("[headscope.state.nLayer, headscope.state.nHead]") == [layer, h]
    tokens = browser.evaluate("headscope.data.tokens")
    if "[MASK]" in tokens:
        assert browser.evaluate("headscope.state.nQuery") == tokens.index("[MASK]")
    assert browser.evaluate("document.getElementById('neuron-query').value") == \
        str(browser.evaluate("headscope.state.nQuery"))


def test_the_neuron_view_shows_the_numbers_of_the_chosen_query(browser, pages):
    browser.open(pages["short"]["file"])
    view(browser, "neuron")
    browser.evaluate("(() => { for (const [id, v] of [['neuron-layer', 2], ['neuron-head', 5], ['neuron-query', 4]]) {"
                     " const s = document.getElementById(id); s.value = String(v); s.dispatchEvent(new Event('change')); } })()")
    n = len(pages["short"]["attention"]["tokens"])
    rows = browser.evaluate("[...document.querySelectorAll('#neuron-body tr')].map(r => [...r.cells].map(c => c.textContent))")
    assert len(rows) == n + 1
    assert rows[0][0] == "q: " + pages["short"]["attention"]["tokens"][4]
    softmax = [float(r[4]) for r in rows[1:]]
    stored = [float(r[5]) for r in rows[1:]]
    assert abs(sum(softmax) - 1) < 2e-3
    assert np.allclose(softmax, stored, atol=2e-4)
    # the exact page: softmax(q.k / sqrt(dh)) from the embedded q and k is the embedded map
    err = browser.evaluate("""(() => { let worst = 0; for (let l = 0; l < 12; l++) for (let h = 0; h < 12; h++)
      for (let i = 0; i < headscope.data.tokens.length; i++) { const s = headscope.neuron(l, h, i).softmax;
        s.forEach((p, j) => { worst = Math.max(worst, Math.abs(p - headscope.value('intact', l, h, i, j))); }); }
      return worst; })()""")
    assert err < 1e-5
    assert ink(browser, "#neuron-body canvas")[0] > 0
    browser.click_element("#neuron-body tr:nth-child(3) td.tok")
    assert browser.evaluate("headscope.state.nQuery") == 1
    assert browser.evaluate("document.querySelector('#neuron-body tr td').textContent") == \
        "q: " + pages["short"]["attention"]["tokens"][1]


def test_a_long_input_scrolls_and_answers_the_pointer(browser, pages):
    browser.open(pages["long"]["file"])
    view(browser, "head")
    assert browser.evaluate("headscope.data.tokens.length") == 128
    browser.evaluate("document.getElementById('head-scroll').scrollTop = 1200")
    browser.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", await_promise=True)
    before = ink(browser, "#head-canvas")
    p = browser.evaluate("headscope.tokenPoint('key', 70)")
    assert 0 < p["y"] < 800
    browser.mouse("mouseMoved", p["x"], p["y"])
    assert browser.evaluate("headscope.state.hover") == {"side": "key", "index": 70}
    assert ink(browser, "#head-canvas") != before
    browser.mouse("mouseMoved", 2, 2)


def test_embedded_numbers_equal_the_attention_json(browser, pages):
    for name in ("short", "long"):
        browser.open(pages[name]["file"])
        att = pages[name]["attention"]
        enc = browser.evaluate("headscope.data.encoding")
        assert browser.evaluate("headscope.data.tokens") == att["tokens"]
        page = np.array(browser.evaluate("Array.from(headscope.intact)"), dtype=np.float64)
        want = np.array(att["attention"], dtype=np.float32).ravel()
        if enc["kind"] == "exact":
            assert np.array_equal(page.astype(np.float32), want), name
        else:
            worst = float(np.max(np.abs(page - want.astype(np.float64))))
            assert worst <= enc["mapBound"] + 1e-7, (name, worst, enc)


def test_the_page_makes_no_network_request(browser, pages):
    # the browser is shared by the session's tests: only the requests made from here on are this test's
    before = len(browser.events_named("Network.requestWillBeSent"))
    opened = []
    for name in ("short", "xss", "long"):
        opened.append(browser.open(pages[name]["file"]))
        for v in ("model", "neuron", "head"):
            view(browser, v)
    urls = [e["params"]["request"]["url"] for e in browser.events_named("Network.requestWillBeSent")[before:]]
    others = [u for u in urls if u not in opened and not u.startswith("data:")]
    assert others == []
    assert set(opened) <= set(urls)


def test_a_hostile_input_is_shown_as_text_and_runs_nothing(browser, pages):
    dialogs = len(browser.events_named("Page.javascriptDialogOpening"))
    browser.open(pages["xss"]["file"])
    for v in ("head", "model", "neuron"):
        view(browser, v)
    assert browser.evaluate("document.getElementById('input-text').textContent") == XSS
    assert browser.evaluate("document.querySelectorAll('img, [onerror], b').length") == 0
    tokens = browser.evaluate("headscope.data.tokens")
    assert "<" in tokens and "script" in tokens and "onerror" in "".join(t.replace("##", "") for t in tokens)
    options = browser.evaluate("[...document.querySelectorAll('#neuron-query option')].map(o => o.textContent)")
    assert any(o.endswith(": <") for o in options)
    assert browser.evaluate("document.title").endswith(XSS)
    assert len(browser.events_named("Page.javascriptDialogOpening")) == dialogs
    assert browser.evaluate("typeof window.alert") == "function"


def test_screenshots_at_both_sizes(browser, pages, tmp_path):
    # into a temporary folder: a test run must not rewrite the repository's pictures (HEADSCOPE_SHOTS=docs/screenshots
    # retakes the README's on purpose)
    target = os.environ.get("HEADSCOPE_SHOTS")
    shots = pathlib.Path(target) if target else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    try:
        for w, h in ((1280, 800), (1920, 1080)):
            browser.resize(w, h)
            browser.open(pages["short"]["file"])
            view(browser, "head")
            browser.evaluate("(() => { const s = document.getElementById('head-layer'); s.value = '7';"
                             " s.dispatchEvent(new Event('change')); })()")
            p = browser.evaluate("headscope.tokenPoint('query', 6)")
            browser.mouse("mouseMoved", p["x"], p["y"])
            browser.screenshot(str(shots / ("page-head-%dx%d.png" % (w, h))))
            browser.mouse("mouseMoved", 2, 2)
            view(browser, "model")
            browser.click_element("#thumb-7-9")
            browser.screenshot(str(shots / ("page-model-%dx%d.png" % (w, h))))
            view(browser, "neuron")
            browser.evaluate("(() => { for (const [id, v] of [['neuron-layer', 7], ['neuron-head', 9], ['neuron-query', 6]]) {"
                             " const s = document.getElementById(id); s.value = String(v); s.dispatchEvent(new Event('change')); } })()")
            browser.screenshot(str(shots / ("page-neuron-%dx%d.png" % (w, h))))
    finally:
        browser.resize(1280, 800)
    for f in ("head", "model", "neuron"):
        assert (shots / ("page-%s-1280x800.png" % f)).stat().st_size > 10000


def test_no_script_error_and_no_policy_violation(browser, pages):
    for name in ("short", "xss", "long"):
        browser.open(pages[name]["file"])
        for v in ("model", "neuron", "head"):
            view(browser, v)
    assert browser.events_named("Runtime.exceptionThrown") == []
    errors = [e["params"]["entry"] for e in browser.events_named("Log.entryAdded")
              if e["params"]["entry"]["level"] == "error"]
    assert errors == []
    consoles = [e for e in browser.events_named("Runtime.consoleAPICalled") if e["params"]["type"] == "error"]
    assert consoles == []


def test_the_policy_refuses_an_injected_script_and_image(browser, pages):
    # last in the file: it leaves the policy's refusals in the browser's log
    browser.open(pages["short"]["file"])
    browser.evaluate("(() => { const s = document.createElement('script'); s.textContent = 'window.pwned = 1';"
                     " document.body.appendChild(s); })()")
    assert browser.evaluate("window.pwned === undefined")
    refusals = [e["params"]["entry"]["text"] for e in browser.events_named("Log.entryAdded")
                if "Content Security Policy" in e["params"]["entry"]["text"]]
    assert any("script-src" in t for t in refusals)
