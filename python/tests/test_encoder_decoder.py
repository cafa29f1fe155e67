"""The bridge on encoder-decoders (T5, BART): a server on a tiny random checkpoint in the hub's layout (the folders
the Java tests write, EncoderDecoderFolders), checked against the command line's ``attention|predict --target`` run
in a separate process (the JVM that writes the folders runs every compared command line once, through the entry
``./headscope`` calls: one JVM start, not one per command), and the ids against the ones the Java tests worked out by
hand from the hand-written tokenizers."""


import numpy as np
import pytest

import headscope
from bridge_support import START_TIMEOUT, cli_json, tiny_folders

KINDS = ("encoder", "decoder", "cross")


# the command lines the tests compare the server with (a command, then its options after --model, --text, --target)
CLI_RUNS = (("attention",),
            ("attention", "--disable-cross", "2-2", "--disable-encoder", "1-1"),
            ("predict", "--top", "3", "--disable-cross", "1-2"))


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    # both folders and every compared command line from one JVM: each JVM start is seconds on a busy machine
    return tiny_folders(("t5", "bart"), tmp_path_factory.mktemp("encdec"), 31, CLI_RUNS)


@pytest.fixture(scope="module", params=["t5", "bart"])
def pair(request, folders):
    made = folders[request.param]
    server = headscope.open(made["folder"], timeout=START_TIMEOUT)
    yield request.param, made, server
    server.close()


def cli(made, *extra, op="attention"):
    # the command line's JSON for this folder and these options, as the folders' JVM printed it; a run not
    # among CLI_RUNS is ./headscope's own (a JVM of its own)
    key = (op,) + extra
    if key not in made["runs"]:
        made["runs"][key] = cli_json(op, "--model", made["folder"], "--text", made["source"], "--target",
                                     made["target"], *extra)
    return made["runs"][key]


def float32_maps(json_maps):
    # the CLI prints each float32 in its shortest form, which reads back as the same float32
    return np.array(json_maps, dtype=np.float64).astype(np.float32)


def test_the_greeting_says_encoder_decoder_with_both_stacks(pair):
    kind, made, hs = pair
    assert hs.info["family"] == kind and hs.info["encoderDecoder"] is True
    assert hs.info["causal"] is False
    want = cli(made)
    assert hs.layers == want["encoder_layers"] and hs.info["decoderLayers"] == want["decoder_layers"]
    assert hs.heads == want["heads"] and hs.info["decoderHeads"] == want["heads"]


def test_the_three_kinds_equal_the_command_lines_json_to_the_bit(pair):
    kind, made, hs = pair
    a = hs.attention(made["source"], target=made["target"])
    assert isinstance(a, headscope.EncoderDecoderAttention)
    want = cli(made)
    assert a.tokens == want["tokens"] and a.target_tokens == want["target_tokens"]
    # the ids as worked out by hand (T5's target ends with </s>, BART's is <s> ... </s>), not read from a run
    assert a.ids.dtype == np.int32 and a.ids.tolist() == made["source_ids"] == want["ids"]
    assert a.target_ids.dtype == np.int32 and a.target_ids.tolist() == made["target_ids"] == want["target_ids"]
    s, t = len(made["source_ids"]), len(made["target_ids"])
    shapes = {"encoder": (want["encoder_layers"], want["heads"], s, s),
              "decoder": (want["decoder_layers"], want["heads"], t, t),
              "cross": (want["decoder_layers"], want["heads"], t, s)}
    for k in KINDS:
        got = a.maps(k)
        assert got.dtype == np.float32 and got.shape == shapes[k], k
        assert np.array_equal(got, float32_maps(want[k + "_attention"])), k
        # rows are softmax outputs: each sums to 1 within float32's rounding of a sum of at most 8 terms in [0, 1]
        np.testing.assert_allclose(got.sum(axis=-1, dtype=np.float64), 1.0, rtol=0, atol=8 * 2 ** -24 * 2, err_msg=k)
    # the decoder is causal: a query's later keys get exactly 0
    assert np.all(np.triu(a.decoder_attention, k=1) == 0)
    assert a.head("cross", "2-2") is not None and np.array_equal(a.head("cross", 2, 2), a.cross_attention[1, 1])
    with pytest.raises(IndexError):
        a.head("cross", "9-1")
    with pytest.raises(ValueError):
        a.maps("self")


def test_heads_switched_off_per_kind_as_the_command_line(pair):
    kind, made, hs = pair
    a = hs.attention(made["source"], target=made["target"], disable_cross=["2-2"], disable_encoder=[(1, 1)])
    want = cli(made, "--disable-cross", "2-2", "--disable-encoder", "1-1")
    for k in KINDS:
        assert np.array_equal(a.maps(k), float32_maps(want[k + "_attention"])), k
    assert np.all(a.cross_attention[1, 1] == 0) and np.all(a.encoder_attention[0, 0] == 0)
    # the switch acts inside the run: encoder layer 1's other heads read the same input as an intact run's, and
    # layer 2 reads layer 1's output, which head 1-1 no longer feeds
    intact = hs.attention(made["source"], target=made["target"])
    assert np.array_equal(a.encoder_attention[0, 1:], intact.encoder_attention[0, 1:])
    assert not np.array_equal(a.encoder_attention[1], intact.encoder_attention[1])
    uniform = hs.attention(made["source"], target=made["target"], disable_decoder="2-1", mode="uniform")
    causal_rows = np.tril(np.ones((len(made["target_ids"]),) * 2)) / np.arange(1, len(made["target_ids"]) + 1)[:, None]
    np.testing.assert_allclose(uniform.decoder_attention[1, 0], causal_rows, rtol=0, atol=2 ** -24)


def test_predict_is_the_command_lines_and_next_tokens_is_its_table(pair):
    kind, made, hs = pair
    got = hs.predict(made["source"], target=made["target"], top=3, disable_cross=["1-2"])
    want = cli(made, "--top", "3", "--disable-cross", "1-2", op="predict")
    assert got == want  # the same JSON: the server runs the command line's own command
    assert len(got["predictions"]) == len(made["target_ids"]) and "intact" in got
    table = hs.next_tokens(made["source"], made["target"], top=3, disable_cross=["1-2"])
    rows = table.to_dict("records") if hasattr(table, "to_dict") else table
    assert len(rows) == 2 * 3 * len(made["target_ids"])
    first = [r for r in rows if r["run"] == "as run" and r["position"] == 0]
    assert [r["id"] for r in first] == [e["id"] for e in want["predictions"][0]["top"]]
    assert [r["rank"] for r in first] == [0, 1, 2]
    assert {r["run"] for r in rows} == {"as run", "intact"}


def test_the_page_draws_the_three_kinds_through_bertviz_arguments(pair):
    kind, made, hs = pair
    a = hs.attention(made["source"], target=made["target"])
    page = headscope.head_view(**a.bertviz(), html_action="return", server=hs)
    assert '"name":"encoder"' in page.data and '"name":"cross"' in page.data and "http://" not in page.data
    ran = hs.view(made["source"], target=made["target"], disable_cross="1-1")
    assert '"source":"encoder-decoder"' in ran.html


def test_bad_input_is_one_line(pair):
    kind, made, hs = pair
    for call, says in (
            (lambda: hs.attention(made["source"]), "encoder-decoder"),  # no target: the single-stack reading refuses
            (lambda: hs.attention(made["source"], target=" "), "--target is empty"),
            (lambda: hs.attention(made["source"], target=made["target"], disable_cross="9-1"), "--disable-cross"),
            (lambda: hs.predict(made["source"], target=made["target"], disable="1-1"), "--disable"),
            (lambda: hs.run(made["source"]), "encoder-decoder"),
            (lambda: hs.call("lens", text=made["source"]), "encoder-decoder")):
        with pytest.raises(headscope.HeadScopeError) as e:
            call()
        assert says in e.value.message and "\n" not in e.value.message and "Exception" not in e.value.message
    with pytest.raises(ValueError, match="goes without pair"):
        hs.attention(made["source"], target=made["target"], pair="x")
    # the server still serves after each refusal
    assert hs.attention(made["source"], target=made["target"]).cross_attention.shape[0] >= 1


def test_a_single_stack_server_refuses_target_in_one_line(hs):
    with pytest.raises(headscope.HeadScopeError) as e:
        hs.attention("The cat sat.", target="Le chat")
    assert "--target is for encoder-decoders" in e.value.message and "\n" not in e.value.message


def test_gelu_on_an_encoder_decoder_is_refused_before_the_greeting(folders):
    made = folders["t5"]
    with pytest.raises(headscope.ServerError) as e:
        headscope.open(made["folder"], gelu="gelu_new", timeout=START_TIMEOUT)
    assert "leave --gelu out" in str(e.value)
