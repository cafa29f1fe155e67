"""headscope.head_view through an open server: the same page as `./headscope html --arrays` of the same arrays,
and no new process."""
import os
import tempfile

import numpy as np

from bridge_support import headscope, run_cli


def test_head_view_through_the_server_is_the_command_lines_page(hs):
    rng = np.random.default_rng(7)
    a = rng.random((2, 3, 4, 4)).astype(np.float32)
    a /= a.sum(-1, keepdims=True)
    tokens = ["[CLS]", "<script>x</script>", "b", "[SEP]"]
    served = headscope.head_view(a, tokens, layer=1, heads=[2], html_action="return", server=hs)
    arrays = headscope.attention_arrays(a, tokens, layer=1, heads=[2])
    assert int(arrays["layer"]) == 1 and arrays["heads"].tolist() == [2]
    handle, path = tempfile.mkstemp(suffix=".npz")
    os.close(handle)
    try:
        np.savez(path, **arrays)
        assert served.data == run_cli("html", "--arrays", path)
    finally:
        os.unlink(path)
    # the server opened last is used by default: a call without server= needs no JVM of its own
    assert headscope.latest_open() is hs
    assert headscope.head_view(a, tokens, layer=1, heads=[2], html_action="return").data == served.data
