"""The page's circuit graph (`headscope html --circuit`, issue 43) in Chromium: one SVG line per edge of the data,
a pointed edge read out with its estimate and, for the first ones, its exact patch; no network request, no
script error."""
import json

import pytest

from page_support import REPO, headscope

CLEAN = "My sister lost her keys . The doctor said [MASK] would be late ."
CORRUPTED = "My brother lost his keys . The doctor said [MASK] would be late ."


@pytest.fixture(scope="module")
def circuit_page(tmp_path_factory):
    f = tmp_path_factory.mktemp("circuit") / "circuit.html"
    headscope("html", "--text", CLEAN, "--circuit", CORRUPTED, "--target", "she", "--contrast", "he",
              "--circuit-top", "30", "--out", str(f), "--force")
    return f


def test_the_circuit_tab_draws_one_line_per_edge_and_reads_one_out(browser, circuit_page):
    before = len(browser.events_named("Network.requestWillBeSent"))
    errors = len(browser.events_named("Runtime.exceptionThrown"))
    opened = browser.open(circuit_page)
    assert browser.evaluate("document.getElementById('tab-circuit').hidden") is False
    browser.evaluate("headscope.showView('circuit')")
    data = browser.evaluate("headscope.data.circuit")
    assert len(data["edges"]) == 30 and data["total"] > 30000  # bert-base's graph: 32,491 edges
    # largest |estimate| first, the first five with their exact patch
    sizes = [abs(e["estimate"]) for e in data["edges"]]
    assert sizes == sorted(sizes, reverse=True)
    assert all("exact" in e for e in data["edges"][:5]) and all("exact" not in e for e in data["edges"][5:])
    assert browser.evaluate("document.querySelectorAll('#circuit-svg line.circuit-edge').length") == 30
    assert browser.evaluate("document.querySelectorAll('#circuit-svg circle.circuit-node').length") == 144
    # the largest edge (drawn last, on top): point at its middle
    p = browser.evaluate("(() => { const l = document.querySelector('#circuit-svg line[data-edge=\"0\"]');"
                         " const r = l.getBoundingClientRect(); const x1 = +l.getAttribute('x1'),"
                         " x2 = +l.getAttribute('x2'), y1 = +l.getAttribute('y1'), y2 = +l.getAttribute('y2');"
                         " const s = l.ownerSVGElement.getBoundingClientRect();"
                         " return {x: s.left + (x1 + x2) / 2, y: s.top + (y1 + y2) / 2}; })()")
    browser.mouse("mouseMoved", p["x"], p["y"])
    text = browser.evaluate("document.getElementById('circuit-readout').textContent")
    assert text.startswith(data["edges"][0]["label"] + ":") and "exact patch" in text
    shots = REPO / "docs" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    browser.screenshot(str(shots / "page-circuit-1280x800.png"))
    urls = [e["params"]["request"]["url"] for e in browser.events_named("Network.requestWillBeSent")[before:]]
    assert [u for u in urls if u != opened and not u.startswith("data:")] == []
    assert len(browser.events_named("Runtime.exceptionThrown")) == errors


def test_circuit_without_the_words_is_one_line(tmp_path):
    import subprocess
    import os
    done = subprocess.run([os.path.join(str(REPO), "headscope"), "html", "--text", CLEAN, "--circuit", CORRUPTED,
                           "--out", str(tmp_path / "x.html")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=600)
    assert done.returncode != 0
    err = done.stderr.decode("utf-8").strip().splitlines()
    assert len(err) == 1 and "--target" in err[0]
    assert not (tmp_path / "x.html").exists()
