"""The wire format of ``headscope serve --stdio`` (docs/PROTOCOL.md): reading and writing messages.

Standard output of the server carries one JSON object per line (UTF-8, ending in ``"\\n"``). An answer
with a ``"bytes": N`` field is followed, right after its newline, by exactly N raw bytes (an .npz file);
then the next line starts. Nothing else may appear on standard output.
"""

import json

__all__ = ["ProtocolError", "read_message", "encode_request"]


class ProtocolError(Exception):
    """The server wrote something that breaks the wire contract (a line that is not a JSON object, an
    attachment cut short, output cut in the middle of a line)."""


def _preview(data, limit=200):
    text = data[:limit].decode("utf-8", "replace").rstrip("\n")
    return text + ("..." if len(data) > limit else "")


def read_exactly(stream, n):
    """Read exactly ``n`` bytes from a binary stream; raises ProtocolError if it ends first."""
    chunks = []
    left = n
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            raise ProtocolError(
                "the output ended %d bytes into an attachment of %d bytes" % (n - left, n))
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_message(stream):
    """Read the next message from the server's standard output (a binary, buffered stream).

    Returns ``(message, attachment)``: the decoded JSON object and the raw bytes that followed it
    (``None`` when the message has no ``"bytes"`` field); returns ``None`` at the end of the stream
    (the server closed its output). Raises ProtocolError when the bytes break the contract.
    """
    line = stream.readline()
    if not line:
        return None
    if not line.endswith(b"\n"):
        raise ProtocolError("the output ended in the middle of a line: %r" % _preview(line))
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProtocolError("the server wrote a line that is not JSON on its standard output: %r"
                            % _preview(line)) from None
    if not isinstance(message, dict):
        raise ProtocolError("the server wrote a line that is not a JSON object: %r" % _preview(line))
    size = message.get("bytes")
    if size is None:
        return message, None
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ProtocolError("an answer's \"bytes\" is not a byte count: %r" % _preview(line))
    return message, read_exactly(stream, size)


def encode_request(request):
    """One request as the bytes of one line. ASCII only (every other character as a JSON escape), so
    no text the caller passes, newlines and lone surrogates included, can break the line."""
    return (json.dumps(request, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
            + "\n").encode("ascii")
