"""The bridge against the real server on the real bert-base-uncased, checked against the CLI."""

import base64
import html
import math
import os
import signal
import sys
import threading
import time
import warnings

import numpy as np
import pytest

import headscope
from bridge_support import MODEL, cli_json, open_server

SENTENCE = "The quick brown fox jumps over the lazy dog."
PAIR = "It was not amused."
MASKED = "The cat [MASK] on the mat."
# text as data: combining marks, a ZWJ emoji, right-to-left script, CJK, quotes, backslashes, a
# newline, a tab and the strings that end a script or a comment in a page
ODD = ('Zoë\u0301’s "naïve" café — 東京 👩\u200d💻 شكرا back\\slash </script><!-- x --> \u2028 '
       'line\nbreak\ttab')


def assert_json_close(actual, expected, path="$"):
    """Equal JSON, numbers to 1e-6."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and actual.keys() == expected.keys(), path
        for key in expected:
            assert_json_close(actual[key], expected[key], "%s.%s" % (path, key))
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), path
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_json_close(a, e, "%s[%d]" % (path, i))
    elif isinstance(expected, float) and not isinstance(expected, bool):
        assert math.isclose(actual, expected, rel_tol=0, abs_tol=1e-6), "%s: %r != %r" % (path, actual, expected)
    else:
        assert actual == expected, "%s: %r != %r" % (path, actual, expected)


def assert_arrays_match_cli(a, cli):
    assert a.tokens == cli["tokens"]
    assert a.ids.dtype == np.int32 and a.ids.tolist() == cli["ids"]
    for got, key in ((a.attention, "attention"), (a.value_norms, "valueNorms")):
        want = np.array(cli[key], dtype=np.float32)
        assert got.dtype == np.float32 and got.shape == want.shape, key
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6, err_msg=key)


# -- the greeting and the arrays -------------------------------------------------------------------

def test_the_greeting_names_the_model(hs):
    assert hs.model == MODEL and hs.layers == 12 and hs.heads == 12
    assert hs.info["protocol"] == 1 and hs.info["causal"] is False
    hello = hs.hello()
    assert hello["protocol"] == 1 and "attention" in hs.ops and "predict" in hs.ops


def test_attention_equals_the_cli_json(hs):
    a = hs.attention(SENTENCE, pair=PAIR, layer_norms=True)
    cli = cli_json("attention", "--text", SENTENCE, "--pair", PAIR, "--layer-norms")
    assert_arrays_match_cli(a, cli)
    T = len(cli["tokens"])
    assert a.attention.shape == (12, 12, T, T) and a.value_norms.shape == (12, 12, T)
    want = np.array(cli["layerNorms"], dtype=np.float32)
    assert a.layer_norms.dtype == np.float32 and a.layer_norms.shape == (12, T, T)
    np.testing.assert_allclose(a.layer_norms, want, rtol=0, atol=1e-6)
    assert a.words is None and a.word_of_token is None


def test_every_row_sums_to_one(hs):
    a = hs.attention(SENTENCE)
    np.testing.assert_allclose(a.attention.sum(axis=-1), 1.0, atol=1e-5)
    assert a.layer_norms is None


def test_attention_over_words_equals_the_cli_json(hs):
    a = hs.attention(SENTENCE, words=True)
    cli = cli_json("attention", "--text", SENTENCE, "--words")
    assert_arrays_match_cli(a, cli)
    assert a.words == cli["words"] and a.word_of_token.tolist() == cli["wordOfToken"]
    assert a.attention.shape[-1] == len(cli["words"])


def test_odd_unicode_and_markup_are_data(hs):
    a = hs.attention(ODD)
    cli = cli_json("attention", "--text", ODD)
    assert_arrays_match_cli(a, cli)
    assert "<" in a.tokens and "/" in a.tokens and "script" in a.tokens


def test_calls_from_many_threads_each_get_their_own_answer(hs):
    texts = ["Sentence number %d is here." % i for i in range(6)]
    alone = {t: hs.attention(t).attention for t in texts}
    got, errors = {}, []

    def run(t):
        try:
            got[t] = hs.attention(t).attention
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(t,)) for t in texts for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    for t in texts:
        assert np.array_equal(got[t], alone[t])


# -- predict and head lists ------------------------------------------------------------------------

def test_predict_with_heads_off_equals_the_cli_json(hs):
    got = hs.predict(MASKED, disable=["8-10", "L11"], top=3)
    cli = cli_json("predict", "--text", MASKED, "--disable", "8-10,11-*", "--top", "3")
    assert_json_close(got, cli)
    assert got["disabled"][0] == "8-10" and len(got["disabled"]) == 13


def test_a_whole_layer_is_the_same_however_it_is_named(hs):
    named = [hs.predict(MASKED, disable=d) for d in ("L11", "11-*", ["11"], "11")]
    for other in named[1:]:
        assert other == named[0]
    assert hs.predict(MASKED, disable=[(8, 10), "L11"]) == hs.predict(MASKED, disable="8-10,L11")


def test_uniform_mode_and_top_reach_the_server(hs):
    got = hs.predict(MASKED, disable="1-1", mode="uniform", top=2)
    assert got["mode"] == "uniform" and len(got["predictions"][0]["top"]) == 2


# -- other commands ---------------------------------------------------------------------------------

def test_a_csv_answer_is_a_table(hs, monkeypatch):
    table = hs.classify(text=SENTENCE)
    if headscope._client._frames():
        assert len(table) == 144 and "layer" in table.columns
    monkeypatch.setattr(headscope._client, "_pandas", False)
    rows = hs.classify(text=SENTENCE)
    assert isinstance(rows, list) and len(rows) == 144
    assert rows[0]["layer"] == 1 and rows[0]["head"] == 1
    assert {r["layer"] for r in rows} == set(range(1, 13))


def test_a_corpus_may_be_a_list(hs, monkeypatch):
    monkeypatch.setattr(headscope._client, "_pandas", False)
    rows = hs.classify(corpus=[SENTENCE, (SENTENCE, PAIR)])
    assert len(rows) == 144


def test_rollout_is_the_clis_json(hs):
    got = hs.rollout(SENTENCE)
    assert got == cli_json("rollout", "--text", SENTENCE) or pytest.fail("rollout differs")


def test_warnings_in_answers_are_python_warnings(hs):
    long_text = "[MASK] " + "word " * 600
    with pytest.warns(headscope.HeadScopeWarning):
        hs.predict(long_text, top=1)


# -- errors ------------------------------------------------------------------------------------------

def test_a_bad_request_raises_and_the_next_call_works(hs):
    with pytest.raises(headscope.HeadScopeError) as e:
        hs.call("attention", text=SENTENCE, no_such_option=1)
    assert e.value.kind == "usage" and e.value.message
    with pytest.raises(headscope.HeadScopeError) as e:
        hs.call("no-such-op")
    assert e.value.kind == "usage"
    with pytest.raises(headscope.HeadScopeError) as e:
        hs.predict(MASKED, disable="13-1")
    assert e.value.kind == "usage" and "13" in str(e.value)
    with pytest.raises(headscope.HeadScopeError) as e:
        hs.call("predict", text=MASKED, out="/tmp/x.json")
    assert e.value.kind == "usage"
    with pytest.raises(headscope.HeadScopeError) as e:
        hs.call("predict", text=MASKED, model="bert-base-cased")
    assert e.value.kind == "usage"
    assert hs.attention(SENTENCE).tokens[0] == "[CLS]"


def test_cancel_from_another_thread(hs):
    result = {}

    def sweep():
        try:
            result["value"] = hs.ablate(corpus=[SENTENCE] * 40)
        except Exception as e:
            result["error"] = e

    worker = threading.Thread(target=sweep)
    worker.start()
    deadline = time.monotonic() + 60
    while hs._current is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    started = time.monotonic()
    assert hs.cancel() is True
    worker.join(120)
    assert not worker.is_alive()
    assert isinstance(result.get("error"), headscope.Cancelled), result
    assert result["error"].kind == "cancelled"
    assert time.monotonic() - started < 30
    assert hs.cancel() is False  # nothing running now
    assert hs.predict(MASKED)["predictions"][0]["top"][0]["token"] == "sat"


def test_ctrl_c_in_the_calling_thread_cancels_the_request_in_the_server(hs):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    # a run started as a background job of a script inherits SIGINT ignored (POSIX), and Python then installs no
    # KeyboardInterrupt handler: put Python's own in for this test, as an interactive session has it
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            hs.ablate(corpus=[SENTENCE] * 40)
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    # the sweep was stopped in the server, so the next call does not queue behind it
    assert hs.predict(MASKED)["predictions"][0]["top"][0]["token"] == "sat"
    assert time.monotonic() - started < 40


# -- the page --------------------------------------------------------------------------------------

def test_view_is_a_sandboxed_srcdoc_iframe(hs, tmp_path):
    if "html" not in hs.ops:
        pytest.skip("this server has no html op yet (another branch builds it)")
    view = hs.view(ODD, disable=["8-10"])
    assert "<html" in view.html.lower()
    frame = view._repr_html_()
    assert frame.startswith('<iframe srcdoc="') and 'sandbox="allow-scripts"' in frame
    srcdoc = frame[len('<iframe srcdoc="'):frame.index('" sandbox=')]
    assert "<" not in srcdoc and html.unescape(srcdoc) == view.html
    saved = view.save(tmp_path / "v.html")
    with open(saved, encoding="utf-8", newline="") as f:
        assert f.read() == view.html


def png_ink(data, box):
    """How many pixels of a PNG screenshot (8-bit RGB or RGBA) are not near-white inside box
    (left, top, right, bottom)."""
    import struct
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    left, top, right, bottom = box
    return sum(1 for y in range(top, bottom) for x in range(left, right)
               if sum(rows[y][x * bpp:x * bpp + 3]) < 600)


def test_the_view_runs_its_scripts_inside_the_sandboxed_iframe(hs, tmp_path):
    """The iframe a notebook shows: the page's own scripts draw (sandbox allow-scripts and the page's
    Content-Security-Policy let them), against the same frame with scripts forbidden."""
    if "html" not in hs.ops:
        pytest.skip("this server has no html op yet")
    browser_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser")
    sys.path.insert(0, browser_dir)
    try:
        import headscope_cdp
    except ImportError:
        pytest.skip("no python/tests/browser/headscope_cdp.py to drive Chromium with")
    finally:
        sys.path.remove(browser_dir)
    if headscope_cdp.chromium_path() is None:
        pytest.skip(headscope_cdp.MISSING)
    view = hs.view(MASKED)
    frame = view._repr_html_()
    hosts = {}
    for name, markup in (("scripts", frame), ("none", frame.replace('sandbox="allow-scripts"', 'sandbox=""'))):
        hosts[name] = tmp_path / (name + ".html")
        hosts[name].write_text("<!doctype html><html><body style='margin:0'>" + markup + "</body></html>",
                               encoding="utf-8")
    browser = headscope_cdp.Browser(1280, 800)
    try:
        browser.attach_child_frames()
        ink = {}
        for name, path in hosts.items():
            # a busy machine can leave the page blank for seconds: settling starts after the load event, and
            # the frame that may run scripts must first report its data decoded
            since = browser.navigate("file://" + str(path))
            if name == "scripts":
                browser.wait_child_frame_ready(since)
            deadline, shot = time.monotonic() + 30, None
            while time.monotonic() < deadline:  # until the drawing settles
                time.sleep(1.0)
                data = base64.b64decode(browser.send("Page.captureScreenshot", format="png")["data"])
                if data == shot:
                    break
                shot = data
            ink[name] = png_ink(shot, (0, 200, 1000, 600))  # the head view's lines, under the header
    finally:
        browser.close()
    assert ink["scripts"] > 3 * ink["none"] + 2000, ink


# -- the process -----------------------------------------------------------------------------------

def test_a_server_that_cannot_load_raises_server_error_with_its_stderr():
    with pytest.raises(headscope.ServerError) as e:
        headscope.open("/no/such/model-folder", offline=True, timeout=600)
    assert "could not start" in str(e.value) and "no/such/model-folder" in str(e.value)
    assert "last lines of its standard error" in str(e.value) and e.value.stderr
    assert e.value.returncode == 1


def test_the_context_manager_shuts_the_server_down():
    with open_server() as server:
        pid = server.pid
        assert server.predict(MASKED)["predictions"]
    assert server.closed
    assert server._conn.proc.returncode == 0  # it shut down when asked, not killed
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(headscope.ServerError, match="closed"):
        server.predict(MASKED)


def test_a_killed_server_raises_server_error_with_a_message():
    server = open_server()
    try:
        killer = threading.Timer(1.5, os.kill, (server.pid, signal.SIGKILL))
        killer.start()
        with pytest.raises(headscope.ServerError) as e:
            server.ablate(corpus=[SENTENCE] * 40)
        killer.join()
        message = str(e.value)
        assert "killed by SIGKILL" in message and "'ablate'" in message
        assert "last lines of its standard error" in message and e.value.stderr
        assert e.value.returncode == -signal.SIGKILL
        with pytest.raises(headscope.ServerError, match="SIGKILL"):
            server.attention(SENTENCE)
    finally:
        server.close()


def test_a_forgotten_server_is_closed_when_collected():
    import gc
    server = open_server()
    proc = server._conn.proc
    del server
    gc.collect()
    assert proc.wait(timeout=30) == 0


def test_syntax_and_coref_answer_with_the_commands_files_by_name(hs, tmp_path):
    """syntax and coref write a set of CSVs: the answer holds each, read as the CLI's file reads."""
    import pathlib
    import subprocess
    treebanks = pathlib.Path(__file__).resolve().parents[2] / "analysis/src/test/resources/treebanks"
    files = hs.syntax(str(treebanks / "syntax.conllu"))
    assert sorted(files) == ["relations-best.csv", "relations.csv"]
    out = tmp_path / "relations.csv"
    home = pathlib.Path(__file__).resolve().parents[2]
    subprocess.run([str(home / "headscope"), "syntax", "--treebank", str(treebanks / "syntax.conllu"), "--out",
                    str(out)], check=True, capture_output=True)
    import csv
    with open(out, newline="", encoding="utf-8") as f:
        want = list(csv.DictReader(f))
    got = files["relations.csv"]
    rows = got.to_dict("records") if hasattr(got, "to_dict") else got
    assert len(rows) == len(want)
    assert [str(r["relation"]) for r in rows] == [r["relation"] for r in want]
    coref = hs.coref(str(treebanks / "coref.conllu"))
    assert sorted(coref) == ["coref-baselines.csv", "coref.csv"]
