"""The circuits commands through the bridge (issue 43): each answer is a table (a pandas DataFrame when pandas
imports, else a list of dicts with numbers as numbers) holding what the CLI writes."""

import csv
import io

import pytest

import headscope
from bridge_support import run_cli

CLEAN = "My sister lost her keys . The doctor said [MASK] would be late ."
CORRUPTED = "My brother lost his keys . The doctor said [MASK] would be late ."


def cli_rows(*args):
    return list(csv.DictReader(io.StringIO(run_cli(*args))))


def as_rows(table):
    """A DataFrame's rows as dicts, or the list of dicts itself."""
    if isinstance(table, list):
        return table
    return table.to_dict("records")


def assert_rows_close(got, want, tol=1e-6):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert set(g) == set(w)
        for key, value in w.items():
            assert float(g[key]) == pytest.approx(float(value), abs=tol), (key, g, w)


def assert_table_kind(table, pandas_on):
    if pandas_on:
        pandas = headscope._client._frames()
        assert isinstance(table, pandas.DataFrame)
    else:
        assert isinstance(table, list) and isinstance(table[0], dict)


@pytest.mark.parametrize("pandas_on", [True, False])
def test_composition_is_a_table_of_every_pair_as_the_cli_writes_it(hs, monkeypatch, pandas_on):
    if pandas_on and not headscope._client._frames():
        pytest.skip("pandas is not installed (apt-get install python3-pandas)")
    if not pandas_on:
        monkeypatch.setattr(headscope._client, "_pandas", False)
    table = hs.composition("v")
    assert_table_kind(table, pandas_on)
    rows = as_rows(table)
    # 12 layers: 66 ordered layer pairs of 12 x 12 heads
    assert len(rows) == 66 * 144
    assert list(rows[0]) == ["sender_layer", "sender_head", "receiver_layer", "receiver_head", "score"]
    assert all(r["sender_layer"] < r["receiver_layer"] for r in rows)
    if not pandas_on:
        assert isinstance(rows[0]["sender_layer"], int) and isinstance(rows[0]["score"], float)
    else:
        assert_rows_close(rows, cli_rows("composition", "--mode", "v"))


@pytest.mark.parametrize("pandas_on", [True, False])
def test_detect_is_a_table_of_every_head(hs, monkeypatch, pandas_on):
    if pandas_on and not headscope._client._frames():
        pytest.skip("pandas is not installed (apt-get install python3-pandas)")
    if not pandas_on:
        monkeypatch.setattr(headscope._client, "_pandas", False)
    table = hs.detect(length=8, inputs=2)
    assert_table_kind(table, pandas_on)
    rows = as_rows(table)
    assert len(rows) == 144
    assert list(rows[0]) == ["layer", "head", "previous_token", "duplicate_token", "induction"]
    assert {(r["layer"], r["head"]) for r in rows} == {(l, h) for l in range(1, 13) for h in range(1, 13)}
    for r in rows:
        for k in ("previous_token", "duplicate_token", "induction"):
            assert 0 <= r[k] <= 1  # a share of attention


def test_path_patching_into_the_logits_is_the_clis_table(hs):
    table = hs.path_patch(CLEAN, CORRUPTED, "she", contrast="he", metric="logit-diff", direction="noise")
    rows = as_rows(table)
    assert len(rows) == 144 and list(rows[0]) == ["layer", "head", "patched", "recovered"]
    want = cli_rows("patch", "--clean", CLEAN, "--corrupted", CORRUPTED, "--target", "she", "--contrast", "he",
                    "--metric", "logit-diff", "--by", "path", "--receivers", "logits", "--direction", "noise")
    assert_rows_close(rows, want)


def test_path_patching_into_a_heads_values_without_pandas(hs, monkeypatch):
    monkeypatch.setattr(headscope._client, "_pandas", False)
    rows = hs.path_patch(CLEAN, CORRUPTED, "she", contrast="he", receivers=["12-4:v"], direction="noise")
    # the senders: every head before layer 12
    assert isinstance(rows, list) and len(rows) == 132
    assert max(r["layer"] for r in rows) == 11 and isinstance(rows[0]["recovered"], float)


@pytest.mark.parametrize("pandas_on", [True, False])
def test_edges_are_a_table_largest_first(hs, monkeypatch, pandas_on):
    if pandas_on and not headscope._client._frames():
        pytest.skip("pandas is not installed (apt-get install python3-pandas)")
    if not pandas_on:
        monkeypatch.setattr(headscope._client, "_pandas", False)
    table = hs.edges(CLEAN, CORRUPTED, "she", contrast="he", method="eap", top=50)
    assert_table_kind(table, pandas_on)
    rows = as_rows(table)
    assert len(rows) == 50 and list(rows[0]) == ["sender", "receiver", "input", "score"]
    sizes = [abs(r["score"]) for r in rows]
    assert sizes == sorted(sizes, reverse=True)
    assert {r["input"] for r in rows} <= {"q", "k", "v", "mlp", "logits"}


def test_a_circuits_faithfulness_is_a_table_ending_at_the_clean_run(hs):
    rows = as_rows(hs.circuit(CLEAN, CORRUPTED, "she", contrast="he", method="eap", faithfulness="10,32491",
                              check=0))
    assert [r["edges"] for r in rows] == [10, 32491]
    # every edge kept is the clean run: all of the behaviour (float32 runs of the same input)
    assert rows[-1]["kept"] == pytest.approx(1, abs=1e-3)
