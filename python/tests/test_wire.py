"""The wire reader and the pieces around it, on bytes (no server): lines, attachments, arguments,
tables, the iframe, the .npz."""

import html
import io
import json
import os

import numpy as np
import pytest

import headscope
from headscope import _client
from headscope._wire import ProtocolError, encode_request, read_message


def stream(*parts):
    return io.BufferedReader(io.BytesIO(b"".join(parts)))


def test_lines_and_an_attachment_are_read_in_order():
    blob = b"PK\x03\x04\n\n{\"not\": \"a line\"}\n\xff\x00"
    s = stream(b'{"event":"ready","protocol":1}\n',
               b'{"id":1,"ok":true,"format":"npz","bytes":%d,"warnings":[]}\n' % len(blob), blob,
               b'{"id":2,"ok":true,"format":"json","result":{"a":[1,2]}}\n')
    assert read_message(s) == ({"event": "ready", "protocol": 1}, None)
    message, payload = read_message(s)
    assert message["id"] == 1 and payload == blob
    assert read_message(s) == ({"id": 2, "ok": True, "format": "json", "result": {"a": [1, 2]}}, None)
    assert read_message(s) is None


def test_an_empty_attachment_is_zero_bytes():
    s = stream(b'{"id":1,"ok":true,"bytes":0}\n{"id":2,"ok":true}\n')
    assert read_message(s) == ({"id": 1, "ok": True, "bytes": 0}, b"")
    assert read_message(s)[0]["id"] == 2


def test_an_attachment_cut_short_is_a_protocol_error():
    s = stream(b'{"id":1,"ok":true,"format":"npz","bytes":10}\n', b"12345")
    with pytest.raises(ProtocolError, match="5 bytes into an attachment of 10"):
        read_message(s)


@pytest.mark.parametrize("line", [b"headscope: building...\n", b"[1,2]\n", b"\xff\xfe\n",
                                  b'{"id":1,"bytes":-1}\n', b'{"id":1,"bytes":"3"}\n'])
def test_lines_that_break_the_contract_are_protocol_errors(line):
    with pytest.raises(ProtocolError):
        read_message(stream(line))


def test_output_ending_mid_line_is_a_protocol_error():
    with pytest.raises(ProtocolError, match="middle of a line"):
        read_message(stream(b'{"id":1,"ok":tr'))


def test_utf8_in_lines_is_decoded():
    text = "Zoë 東京 🙂 </script>"
    s = stream(json.dumps({"id": 1, "result": text}, ensure_ascii=False).encode("utf-8") + b"\n")
    assert read_message(s)[0]["result"] == text


@pytest.mark.parametrize("text", ["two\nlines", "tab\there", "lone \ud800 surrogate", "🙂 東京", "\u2028"])
def test_a_request_is_one_ascii_line_whatever_the_text(text):
    data = encode_request({"id": 1, "op": "attention", "args": {"text": text}})
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    data.decode("ascii")
    assert json.loads(data)["args"]["text"] == text


def test_keyword_arguments_become_the_options_of_the_contract(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("a\n")
    args = _client._options(dict(text="x", pair=None, layer_norms=True, words=False, top=np.int64(3),
                                 disable=["8-10", (9, 6), "L11"], favor_features=64, corpus=corpus))
    assert args == {"text": "x", "layer-norms": True, "top": 3, "disable": ["8-10", "9-6", "L11"],
                    "favor-features": 64, "corpus": str(corpus)}
    assert type(args["top"]) is int


def test_a_relative_corpus_path_is_made_absolute(tmp_path, monkeypatch):
    (tmp_path / "c.txt").write_text("a\n")
    monkeypatch.chdir(tmp_path)
    assert _client._options({"corpus": "c.txt"}) == {"corpus": str(tmp_path / "c.txt")}
    assert _client._options({"with": "bert-base-cased"}) == {"with": "bert-base-cased"}


CSV = "layer,head,category,delta\n1,1,vertical,-0.5\n1,*,block,2\n"


def test_a_csv_answer_without_pandas_is_a_list_of_dicts_with_numbers(monkeypatch):
    monkeypatch.setattr(_client, "_pandas", False)
    rows = headscope.read_table(CSV)
    assert rows == [{"layer": 1, "head": "1", "category": "vertical", "delta": -0.5},
                    {"layer": 1, "head": "*", "category": "block", "delta": 2.0}]


def test_a_csv_answer_with_pandas_is_a_data_frame():
    pandas = pytest.importorskip("pandas")
    frame = headscope.read_table(CSV)
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == ["layer", "head", "category", "delta"]
    assert frame["delta"].tolist() == [-0.5, 2.0]


def test_the_view_is_a_sandboxed_srcdoc_iframe(tmp_path):
    page = '<!doctype html><script>var s = "</script>" + \'&amp;\';</script><p title="a">Zoë 🙂</p>'
    view = headscope.View(page)
    frame = view._repr_html_()
    assert frame.startswith("<iframe srcdoc=\"") and frame.endswith("</iframe>")
    assert 'sandbox="allow-scripts"' in frame and "height:760px" in frame and "width:100%" in frame
    srcdoc = frame[len('<iframe srcdoc="'):frame.index('" sandbox=')]
    assert "<" not in srcdoc and '"' not in srcdoc
    assert html.unescape(srcdoc) == page
    path = view.save(tmp_path / "page.html")
    with open(path, encoding="utf-8", newline="") as f:
        assert f.read() == page


def npz_bytes(**arrays):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def test_an_attention_npz_is_read_into_arrays_without_pickle():
    att = np.random.default_rng(0).random((2, 3, 4, 4), dtype=np.float32)
    data = npz_bytes(tokens=np.array(["[CLS]", "zoë", "🙂", "[SEP]"]), ids=np.arange(4, dtype=np.int32),
                     attention=att, value_norms=np.ones((2, 3, 4), np.float32))
    a = headscope.Attention.from_npz(data)
    assert a.tokens == ["[CLS]", "zoë", "🙂", "[SEP]"] and a.ids.dtype == np.int32
    assert a.attention.dtype == np.float32 and (a.attention == att).all()
    assert a.layer_norms is None and a.words is None and a.word_of_token is None
    assert (a.head("2-3") == att[1, 2]).all() and (a.head(1, 1) == att[0, 0]).all()
    with pytest.raises(IndexError):
        a.head("3-1")


def test_an_npz_with_objects_is_refused():
    data = npz_bytes(tokens=np.array(["a", None], dtype=object), ids=np.zeros(2, np.int32),
                     attention=np.zeros((1, 1, 2, 2), np.float32), value_norms=np.zeros((1, 1, 2)))
    with pytest.raises(ValueError):
        headscope.Attention.from_npz(data)


def test_without_a_launcher_the_error_names_headscope_home(monkeypatch, tmp_path):
    monkeypatch.delenv("HEADSCOPE_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(headscope._home, "recorded_home", lambda: None)
    with pytest.raises(FileNotFoundError, match="HEADSCOPE_HOME"):
        headscope.find_launcher()
    monkeypatch.setenv("HEADSCOPE_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="HEADSCOPE_HOME is .* which has no 'headscope'"):
        headscope.open()


def test_the_launcher_is_found_in_order(monkeypatch, tmp_path, root):
    monkeypatch.setenv("HEADSCOPE_HOME", root)
    assert headscope.find_launcher() == os.path.join(root, "headscope")
    monkeypatch.delenv("HEADSCOPE_HOME")
    assert headscope.recorded_home() == root  # this source tree sits in the checkout
    assert headscope.find_launcher() == os.path.join(root, "headscope")
    fake = tmp_path / "headscope"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setattr(headscope._home, "recorded_home", lambda: None)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert headscope.find_launcher() == str(fake)


# --- issue 39 G05: a corpus given as a list, one item one input ---

def _corpus_lines(items):
    path = _client._write_corpus(items)
    try:
        with open(path, "rb") as f:
            data = f.read()
    finally:
        os.unlink(path)
    # read as the server reads a corpus file: a line ends at \n, \r or \r\n
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n").split("\n")[:-1]


def test_a_corpus_list_is_one_line_per_item_and_a_pair_one_tab():
    assert _corpus_lines(["the cat sat .", ("a dog ran .", "it was fast .")]) == [
        "the cat sat .", "a dog ran .\tit was fast ."]


@pytest.mark.parametrize("item", ["a\rb", "a\tb", "a\nb", "a\r\nb", "a\x00b", ("a\tb", "c"), ("a", "b\rc"), "", "  ",
                                  ("a", "")])
def test_a_corpus_item_a_line_cannot_hold_whole_is_refused_naming_it(item):
    with pytest.raises(ValueError) as e:
        _client._write_corpus(["fine .", item])
    assert "corpus item 1" in str(e.value)
