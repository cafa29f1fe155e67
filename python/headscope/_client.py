"""The client of ``headscope serve --stdio``: one long-lived server process per HeadScope object."""

import base64
import collections
import csv
import html
import io
import itertools
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import warnings
import weakref
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from ._home import find_launcher
from ._run import Run, request_args
from ._wire import ProtocolError, encode_request, read_message

PROTOCOL = 1
STDERR_LINES = 50

__all__ = ["HeadScope", "open", "Attention", "EncoderDecoderAttention", "View", "HeadScopeError", "Cancelled", "ServerError",
           "HeadScopeWarning"]


class HeadScopeError(Exception):
    """A request the server answered with an error. ``kind`` says which: ``"input"`` (a problem with
    the input: exit code 1 in the CLI), ``"usage"`` (a bad request: an unknown op or option, a value
    out of range), ``"cancelled"`` or ``"internal"`` (a bug in HeadScope)."""

    def __init__(self, message, kind=None):
        super().__init__(message)
        self.message = message
        self.kind = kind


class Cancelled(HeadScopeError):
    """The request was stopped by ``HeadScope.cancel()`` (or Ctrl-C in the calling thread)."""

    def __init__(self, message="cancelled", kind="cancelled"):
        super().__init__(message, kind)


class ServerError(RuntimeError):
    """The server process is gone or broke the protocol: it died before its greeting, exited or was
    killed during a call, or was closed. ``stderr`` holds the last lines of its standard error,
    ``returncode`` its exit code (negative: the signal that killed it; None: unknown)."""

    def __init__(self, message, stderr=(), returncode=None):
        super().__init__(message)
        self.stderr = list(stderr)
        self.returncode = returncode


class HeadScopeWarning(UserWarning):
    """A warning the server attached to an answer (e.g. an input cut to the model's length)."""


# ---------------------------------------------------------------------------------------------------
# results

@dataclass
class Attention:
    """Everything ``HeadScope.attention`` returns for one input (all axes 0-based; the CLI's and the
    papers' head names such as ``5-4`` are 1-based, see ``head()``).

    Attributes:
        tokens: the wordpieces, special tokens included, as the model sees them (T of them).
        ids: int32 (T,), the vocabulary ids of ``tokens``.
        attention: float32 (layer, head, query, key): ``attention[l, h, i, j]`` is how much token i
            attends to token j in layer l+1, head h+1; each row (over the last axis) sums to 1. With
            ``words=True`` the last two axes are words (W, W) instead of tokens (Clark et al.'s
            conversion: attention to a word is summed over its pieces, from a word averaged).
        value_norms: float32 (layer, head, token): the norm of each token's value vector after the
            head's output projection, ||f(x_j)|| (Kobayashi et al. 2020).
        layer_norms: float32 (layer, query, key) or None: Kobayashi et al.'s layer-level map
            ||sum over heads of a_ij f(x_j)||, present when asked for with ``layer_norms=True``.
        words: the words (W of them) when asked for with ``words=True``, else None.
        word_of_token: int32 (T,), the index in ``words`` of each token's word, else None.
    """
    tokens: List[str]
    ids: np.ndarray
    attention: np.ndarray
    value_norms: np.ndarray
    layer_norms: Optional[np.ndarray] = None
    words: Optional[List[str]] = None
    word_of_token: Optional[np.ndarray] = None

    @property
    def layers(self):
        return self.attention.shape[0]

    @property
    def heads(self):
        return self.attention.shape[1]

    def head(self, layer, head=None):
        """One head's map, named 1-based as in the papers and the CLI: ``head("5-4")`` or
        ``head(5, 4)`` is ``attention[4, 3]`` (query, key)."""
        if head is None:
            layer, head = (int(part) for part in str(layer).split("-"))
        if not (1 <= layer <= self.layers and 1 <= head <= self.heads):
            raise IndexError("head %s-%s is outside %d layers x %d heads (1-based)"
                             % (layer, head, self.layers, self.heads))
        return self.attention[layer - 1, head - 1]

    @classmethod
    def from_npz(cls, data):
        """Reads the .npz that ``attention --format npz`` writes (bytes or a file)."""
        source = io.BytesIO(data) if isinstance(data, (bytes, bytearray, memoryview)) else data
        with np.load(source, allow_pickle=False) as npz:
            names = set(npz.files)
            missing = {"tokens", "ids", "attention", "value_norms"} - names
            if missing:
                raise ServerError("the server's .npz lacks %s (it has %s)"
                                  % (", ".join(sorted(missing)), ", ".join(sorted(names))))
            words = npz["words"].tolist() if "words" in names else None
            return cls(tokens=npz["tokens"].tolist(),
                       ids=npz["ids"],
                       attention=npz["attention"],
                       value_norms=npz["value_norms"],
                       layer_norms=npz["layer_norms"] if "layer_norms" in names else None,
                       words=words,
                       word_of_token=npz["word_of_token"] if "word_of_token" in names else None)

    def __repr__(self):
        shape = "x".join(str(n) for n in self.attention.shape)
        return "Attention(%d tokens, attention %s%s)" % (
            len(self.tokens), shape, ", words" if self.words is not None else "")


@dataclass
class EncoderDecoderAttention:
    """What ``HeadScope.attention(source, target=...)`` returns on an encoder-decoder (T5, BART): the three kinds
    of maps, all axes 0-based, each float32 (layer, head, query, key) with rows summing to 1 (a head switched off
    in ``"zero"`` mode: rows of 0).

    Attributes:
        tokens, ids: the source's tokens and int32 ids (S of them), as the encoder reads them.
        target_tokens, target_ids: the target's (T), the decoder's input: tokenized with the tokenizer's own
            special tokens and not shifted, as BertViz's encoder-decoder example passes ``decoder_input_ids``.
        encoder_attention: (encoder layer, head, S, S), the encoder's self-attention.
        decoder_attention: (decoder layer, head, T, T), the decoder's causal self-attention (a query's later
            keys 0).
        cross_attention: (decoder layer, head, T, S), target queries over source keys.
    """
    tokens: List[str]
    ids: np.ndarray
    target_tokens: List[str]
    target_ids: np.ndarray
    encoder_attention: np.ndarray
    decoder_attention: np.ndarray
    cross_attention: np.ndarray

    KINDS = ("encoder", "decoder", "cross")

    def maps(self, kind):
        """The maps of one kind: ``"encoder"``, ``"decoder"`` or ``"cross"``."""
        if kind not in self.KINDS:
            raise ValueError("kind is encoder, decoder or cross, not %r" % (kind,))
        return getattr(self, kind + "_attention")

    def head(self, kind, layer, head=None):
        """One head's map of one kind, named 1-based as the CLI's ``--disable-cross 2-3``: ``head("cross",
        "2-3")`` or ``head("cross", 2, 3)`` is ``cross_attention[1, 2]`` (query, key)."""
        maps = self.maps(kind)
        if head is None:
            layer, head = (int(part) for part in str(layer).split("-"))
        if not (1 <= layer <= maps.shape[0] and 1 <= head <= maps.shape[1]):
            raise IndexError("%s head %s-%s is outside %d layers x %d heads (1-based)"
                             % (kind, layer, head, maps.shape[0], maps.shape[1]))
        return maps[layer - 1, head - 1]

    def bertviz(self):
        """BertViz's encoder-decoder arguments: ``headscope.head_view(**a.bertviz())`` (or ``model_view``)."""
        return {"encoder_attention": self.encoder_attention, "decoder_attention": self.decoder_attention,
                "cross_attention": self.cross_attention, "encoder_tokens": list(self.tokens),
                "decoder_tokens": list(self.target_tokens)}

    @classmethod
    def from_npz(cls, data):
        """Reads the .npz that ``attention --target ... --format npz`` writes (bytes or a file)."""
        source = io.BytesIO(data) if isinstance(data, (bytes, bytearray, memoryview)) else data
        with np.load(source, allow_pickle=False) as npz:
            names = set(npz.files)
            missing = {"encoder_tokens", "decoder_tokens", "encoder_ids", "decoder_ids", "encoder_attention",
                       "decoder_attention", "cross_attention"} - names
            if missing:
                raise ServerError("the server's .npz lacks %s (it has %s)"
                                  % (", ".join(sorted(missing)), ", ".join(sorted(names))))
            return cls(tokens=npz["encoder_tokens"].tolist(), ids=npz["encoder_ids"],
                       target_tokens=npz["decoder_tokens"].tolist(), target_ids=npz["decoder_ids"],
                       encoder_attention=npz["encoder_attention"], decoder_attention=npz["decoder_attention"],
                       cross_attention=npz["cross_attention"])

    def __repr__(self):
        def shape(a):
            return "x".join(str(n) for n in a.shape)
        return "EncoderDecoderAttention(%d source and %d target tokens; encoder %s, decoder %s, cross %s)" % (
            len(self.tokens), len(self.target_tokens), shape(self.encoder_attention), shape(self.decoder_attention),
            shape(self.cross_attention))


class View:
    """An HTML page of HeadScope's (the ``html`` op): shown inline in a notebook as a sandboxed
    ``<iframe srcdoc>`` (scripts allowed, nothing else: no same-origin, no forms, no pop-ups), or
    written to a file with ``save()``. ``html`` is the page; ``width``/``height`` size the frame."""

    def __init__(self, page, width="100%", height=760):
        self.html = page
        self.width = width
        self.height = height

    def _repr_html_(self):
        def size(value):
            return "%dpx" % value if isinstance(value, (int, float)) else str(value)
        return ('<iframe srcdoc="%s" sandbox="allow-scripts" title="HeadScope" '
                'style="width:%s;height:%s;border:1px solid #ccc"></iframe>'
                % (html.escape(self.html, quote=True), html.escape(size(self.width)),
                   html.escape(size(self.height))))

    @property
    def data(self):
        """The page, as ``IPython.display.HTML(...).data`` (what BertViz's ``html_action='return'`` gives)."""
        return self.html

    def save(self, path):
        """Writes the page (UTF-8) to ``path`` and returns the path."""
        path = os.fspath(path)
        with io.open(path, "w", encoding="utf-8", newline="") as out:
            out.write(self.html)
        return path

    def __repr__(self):
        return "<headscope.View: a page of %d characters; save(path), or show it in a notebook>" % len(
            self.html)


_pandas = None


def _frames():
    """pandas if it imports, else False (looked up once, when a table is first read)."""
    global _pandas
    if _pandas is None:
        try:
            import pandas
            _pandas = pandas
        except ImportError:
            _pandas = False
    return _pandas


def _number(text):
    try:
        return int(text)
    except ValueError:
        return float(text)


def _rows_table(rows):
    """Rows (dicts of the same keys) as a DataFrame when pandas imports, else the list itself."""
    pandas = _frames()
    return pandas.DataFrame(rows) if pandas else rows


def read_table(text):
    """A CSV answer as a pandas DataFrame when pandas imports, else a list of dicts whose columns
    of numbers hold numbers (a column is converted only when every value in it parses)."""
    pandas = _frames()
    if pandas:
        return pandas.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])
    rows = list(csv.DictReader(io.StringIO(text)))
    if rows:
        for column in rows[0].keys():
            try:
                values = [_number(row[column]) for row in rows]
            except (TypeError, ValueError):
                continue
            for row, value in zip(rows, values):
                row[column] = value
    return rows


# ---------------------------------------------------------------------------------------------------
# the process and its pipes

class _Slot:
    __slots__ = ("op", "event", "message", "payload", "asks")

    def __init__(self, op, asks=False):
        self.op = op
        self.event = threading.Event()
        self.message = None
        self.payload = None
        # the server's questions during this request (hook functions), then None once the answer is in
        self.asks = queue.Queue() if asks else None

    def done(self):
        self.event.set()
        if self.asks is not None:
            self.asks.put(None)


def _describe_exit(code):
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "signal %d" % -code
        return "was killed by %s" % name
    return "exited with code %d" % code


class _Connection:
    """The server process, its two reader threads and the requests waiting for answers. Holds no
    reference to the HeadScope object, so that object can be collected (and close this) while the
    threads run."""

    def __init__(self, argv, echo_stderr):
        self.argv = argv
        self.echo_stderr = echo_stderr
        self.tail = collections.deque(maxlen=STDERR_LINES)
        self.lock = threading.Lock()  # guards pending, failure
        self.write_lock = threading.Lock()  # one request line at a time on stdin
        self.pending = {}
        self.failure = None  # (message, returncode) once the server is gone
        self.greeting = None
        self.load_error = None
        self.ready = threading.Event()  # the greeting came, or the server is gone
        self.gone = threading.Event()
        self.closing = False
        self.stray = []  # answers nobody waits for (e.g. to a request abandoned after Ctrl-C)
        # A session of its own: Ctrl-C in a terminal reaches this process only (it then cancels the
        # running request), and close() can kill the launcher with whatever it started (a build).
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True)
        self.stderr_thread = threading.Thread(target=self._drain_stderr, name="headscope-stderr",
                                              daemon=True)
        self.reader_thread = threading.Thread(target=self._read_answers, name="headscope-reader",
                                              daemon=True)
        self.stderr_thread.start()
        self.reader_thread.start()

    # -- threads ---------------------------------------------------------------------------------
    def _drain_stderr(self):
        stream = self.proc.stderr
        try:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self.tail.append(line)
                if self.echo_stderr:
                    try:
                        sys.stderr.write(line + "\n")
                        sys.stderr.flush()
                    except (OSError, ValueError):
                        pass
        except (OSError, ValueError):
            pass

    def _read_answers(self):
        reason = None
        try:
            while True:
                item = read_message(self.proc.stdout)
                if item is None:
                    break
                message, payload = item
                if "event" in message and "id" not in message:
                    self._on_event(message)
                else:
                    self._on_answer(message, payload)
        except ProtocolError as e:
            reason = "it broke the protocol: %s" % e
            self._kill()
        except (OSError, ValueError) as e:
            reason = "reading its output failed: %s" % e
            self._kill()
        self._on_gone(reason)

    def _on_event(self, message):
        event = message.get("event")
        if event == "ready":
            self.greeting = message
            self.ready.set()
        elif event == "error":
            self.load_error = str(message.get("error"))

    def _on_answer(self, message, payload):
        if message.get("event") == "hook":  # a question of a running request: it stays pending
            with self.lock:
                slot = self.pending.get(message.get("id"))
            if slot is not None and slot.asks is not None:
                slot.asks.put((message, payload))
            return
        with self.lock:
            slot = self.pending.pop(message.get("id"), None)
            if slot is None:
                self.stray.append(message)
                del self.stray[:-10]
                return
        slot.message = message
        slot.payload = payload
        slot.done()

    def _on_gone(self, reason):
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        self.stderr_thread.join(timeout=5)
        with self.lock:
            ops = [slot.op for slot in self.pending.values()]
            if self.closing:
                message = "the headscope server was closed"
            else:
                message = "the headscope server " + _describe_exit(code)
                if ops:
                    message += " while answering %r" % ops[0]
                if reason:
                    message += " (%s)" % reason
            self.failure = (message, code)
            slots, self.pending = list(self.pending.values()), {}
        for slot in slots:
            slot.done()
        self.gone.set()
        self.ready.set()

    # -- requests --------------------------------------------------------------------------------
    def error(self, message=None):
        """A ServerError with the last lines of the server's standard error."""
        base, code = self.failure or ("the headscope server is gone", self.proc.poll())
        lines = list(self.tail)
        text = message or base
        if lines:
            lead = " The last" if text.endswith(".") else "; the last"
            text += lead + " lines of its standard error:\n  " + "\n  ".join(lines)
        else:
            text += " (its standard error was empty)"
        return ServerError(text, lines, code)

    def send(self, request):
        """Sends a line that gets no answer (a reply to the server's question)."""
        data = encode_request(request)
        with self.write_lock:
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (OSError, ValueError):
                self.gone.wait(timeout=15)
                raise self.error() from None

    def submit(self, rid, op, args, asks=False):
        """Sends one request; returns the slot its answer will arrive in."""
        slot = _Slot(op, asks)
        data = encode_request({"id": rid, "op": op, "args": args})
        with self.write_lock:
            with self.lock:
                if self.failure is not None:
                    raise self.error()
                self.pending[rid] = slot
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (OSError, ValueError):
                with self.lock:
                    self.pending.pop(rid, None)
                self.gone.wait(timeout=15)
                raise self.error() from None
        return slot

    def wait(self, slot, timeout=None):
        """The answer in a slot: (message, attachment), or raises ServerError if the server went
        away first; returns None after ``timeout`` seconds."""
        if not slot.event.wait(timeout):
            return None
        if slot.message is None:
            raise self.error()
        return slot.message, slot.payload

    def abandon(self, rid):
        with self.lock:
            self.pending.pop(rid, None)

    # -- the end ---------------------------------------------------------------------------------
    def _kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            try:
                self.proc.kill()
            except OSError:
                pass

    def close(self, timeout=10.0):
        """Asks the server to shut down, waits up to ``timeout`` seconds for it, then kills it."""
        if self.closing:
            return
        self.closing = True
        if self.proc.poll() is None and self.failure is None:
            try:
                with self.write_lock:
                    self.proc.stdin.write(encode_request({"id": "shutdown", "op": "shutdown", "args": {}}))
                    self.proc.stdin.flush()
            except (OSError, ValueError):
                pass
        try:
            self.proc.stdin.close()  # the end of input stops the server too
        except (OSError, ValueError):
            pass
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._kill()
            self.proc.wait()
        self.reader_thread.join(timeout=15)
        for stream in (self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass


def _close_quietly(conn):
    try:
        conn.close(timeout=5.0)
    except Exception:  # at interpreter exit or in a finalizer: never raise
        pass


# ---------------------------------------------------------------------------------------------------
# arguments

_FILE_OPTIONS = {"corpus", "treebank", "probe-train", "train", "dev", "with", "clean-file", "arrays"}


def _item(value):
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, (int, np.integer)) for v in value):
        return "%d-%d" % value  # (layer, head), 1-based: (8, 10) -> "8-10"
    return _scalar(value)


def _scalar(value):
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, os.PathLike):
        return os.path.abspath(os.fspath(value))
    return value


def _options(args):
    """Keyword arguments as the request's ``args``: underscores become dashes (``layer_norms`` ->
    ``layer-norms``), None and False are left out, lists and tuples stay lists (the server joins them
    with commas), paths become absolute (the server's working folder is this process's at open)."""
    out = {}
    for key, value in args.items():
        if value is None or value is False:
            continue
        name = key.replace("_", "-")
        if isinstance(value, (list, tuple)):
            value = [_item(v) for v in value]
        else:
            value = _scalar(value)
            if name in _FILE_OPTIONS and isinstance(value, str) and os.path.exists(value):
                value = os.path.abspath(value)
        out[name] = value
    return out


# What a corpus file gives a meaning of its own: a line break ends an input (\n, \r), a tab separates a pair's
# two sentences, a NUL makes the file no text. Inside an item each would split it or change it, so an item
# holding one is refused, naming it: one item is one input.
_SEPARATORS = {"\n": "a line break (\\n)", "\r": "a carriage return (\\r)", "\t": "a tab (\\t)",
               "\0": "a NUL character"}


def _corpus_line(index, item):
    """One corpus item (a string, or a (text, pair) tuple) as its line, or ValueError saying why it is none."""
    parts = list(item) if isinstance(item, (tuple, list)) else [item]
    if len(parts) not in (1, 2):
        raise ValueError("corpus item %d has %d parts; an item is a string or a (text, pair) tuple"
                         % (index, len(parts)))
    texts = []
    for part in parts:
        text = str(part)
        for sep, name in _SEPARATORS.items():
            if sep in text:
                raise ValueError("corpus item %d holds %s, which would split it into several inputs (or make a "
                                 "pair of it); one item is one input: replace it (with a space), or give a pair "
                                 "as a (text, pair) tuple: %r" % (index, name, item))
        if not text.strip():
            raise ValueError("corpus item %d is empty; every item is an input: %r" % (index, item))
        texts.append(text)
    return "\t".join(texts)


def _write_corpus(lines):
    """A corpus given as a list (a string a line, or a (text, pair) tuple) as a temporary file, one line per
    item; an item that a line cannot hold whole is refused before anything is written."""
    text = "".join(_corpus_line(i, item) + "\n" for i, item in enumerate(lines))
    handle, path = tempfile.mkstemp(prefix="headscope-corpus-", suffix=".txt")
    with io.open(handle, "w", encoding="utf-8", newline="\n") as out:
        out.write(text)
    return path


# ---------------------------------------------------------------------------------------------------
# the public object

class HeadScope:
    """One HeadScope server (``headscope serve --stdio``) on one model, running while this object
    lives. Start it with ``headscope.open(...)``; use it as a context manager or ``close()`` it.

    Calls are thread-safe (the server answers one at a time, in order). ``cancel()`` from another
    thread stops the running call, which then raises ``Cancelled``; Ctrl-C in the calling thread does
    the same. An error answer raises ``HeadScopeError``; a server that dies raises ``ServerError``
    with the last lines of its standard error; warnings in answers go through ``warnings.warn``.
    """

    def __init__(self, model="bert-base-uncased", home=None, offline=False, timeout=None,
                 echo_stderr=False, gelu=None):
        launcher = find_launcher(home)
        argv = [launcher, "serve", "--stdio", "--model", str(model)]
        if offline:
            argv.append("--offline")
        if gelu:
            argv += ["--gelu", str(gelu)]
        self._launcher = launcher
        self._conn = conn = _Connection(argv, echo_stderr)
        self._finalizer = weakref.finalize(self, _close_quietly, conn)
        self._call_lock = threading.RLock()
        self._ids = itertools.count(1)
        self._cancels = itertools.count(1)
        self._current = None
        self._ops = None
        if not conn.ready.wait(timeout):
            self.close(timeout=0)
            raise conn.error("the headscope server sent no greeting within %s s (%s)" % (timeout, launcher))
        if conn.greeting is None:
            conn.gone.wait(timeout=15)
            if conn.load_error:
                raise conn.error("the headscope server could not start: %s" % conn.load_error)
            raise conn.error(conn.failure[0] + " before its greeting" if conn.failure else None)
        protocol = conn.greeting.get("protocol")
        if protocol != PROTOCOL:
            self.close(timeout=5)
            raise ServerError("the server speaks protocol %r, this package %d (%s)"
                              % (protocol, PROTOCOL, launcher))
        self.info = dict(conn.greeting)
        """The server's greeting: model, family, layers, heads, maxTokens, causal, version."""
        global _latest
        _latest = weakref.ref(self)

    # -- the process ---------------------------------------------------------------------------
    @property
    def model(self):
        return self.info.get("model")

    @property
    def layers(self):
        return self.info.get("layers")

    @property
    def heads(self):
        return self.info.get("heads")

    @property
    def pid(self):
        """The process id of the server (the launcher, which becomes the JVM)."""
        return self._conn.proc.pid

    @property
    def closed(self):
        return self._conn.closing or self._conn.gone.is_set()

    def stderr_tail(self):
        """The last lines (up to 50) the server wrote to its standard error."""
        return list(self._conn.tail)

    def close(self, timeout=15.0):
        """Shuts the server down: asks it to (a running request is stopped, or waited for up to 10 s
        by the server), waits up to ``timeout`` seconds for it to exit, then kills it."""
        self._finalizer.detach()
        self._conn.close(timeout)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        state = "closed" if self.closed else "pid %d" % self.pid
        return "<HeadScope %s (%s layers x %s heads), %s>" % (self.model, self.layers, self.heads, state)

    # -- requests ------------------------------------------------------------------------------
    def call(self, op, **args):
        """Runs any op of the server (a CLI command's name, e.g. ``"token-types"``, or ``"hello"``)
        with ``args`` as its options (``max_inputs=5`` -> ``--max-inputs 5``; ``True`` a flag; a list
        joined with commas). Returns the JSON result, a table for CSV (a DataFrame when pandas
        imports), the page's text for HTML, the raw bytes of a binary answer."""
        return self._call(op, args)

    def _call(self, op, args):
        if self._conn.closing:
            raise ServerError("this HeadScope is closed")
        corpus_file = None
        corpus = args.get("corpus")
        if isinstance(corpus, (list, tuple)):
            corpus_file = args["corpus"] = _write_corpus(corpus)
        try:
            with self._call_lock:
                rid = next(self._ids)
                slot = self._conn.submit(rid, op, _options(args))
                self._current = rid
                try:
                    answer = self._conn.wait(slot)
                except KeyboardInterrupt:
                    # stop the request in the server too, so the next call does not queue behind it
                    try:
                        self._send_cancel(rid, wait=False)
                        slot.event.wait(10)
                    except Exception:
                        pass
                    self._conn.abandon(rid)
                    raise
                finally:
                    self._current = None
        finally:
            if corpus_file:
                os.unlink(corpus_file)
        return self._answer(*answer)

    def _call_with_hooks(self, op, args, hooks):
        """A request during which the server calls back: each hook function gets the value at its point (a NumPy
        array, TransformerLens's shape) and a ``HookPoint``, and returns the value to flow on (or None: the
        array as it left the function, edited in place or not)."""
        fns = []
        for item in hooks:
            if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str) and callable(item[1])):
                raise TypeError("hooks are (name, fn) pairs, as TransformerLens's fwd_hooks: %r" % (item,))
            if "," in item[0]:
                raise ValueError("a hook name has no comma: %r" % item[0])
            fns.append(item[1])
        args = dict(args, python_hooks=[name for name, _ in hooks])
        if self._conn.closing:
            raise ServerError("this HeadScope is closed")
        raised = None
        with self._call_lock:
            rid = next(self._ids)
            slot = self._conn.submit(rid, op, _options(args), asks=True)
            self._current = rid
            try:
                while True:
                    item = slot.asks.get()
                    if item is None:
                        break
                    message, payload = item
                    reply = {"target": rid, "call": message.get("call")}
                    try:
                        shape = tuple(int(d) for d in message.get("shape") or ())
                        value = np.frombuffer(payload, dtype="<f4").reshape(shape).copy()
                        before = value.copy()
                        out = fns[int(message["hook"])](value, HookPoint(str(message.get("name"))))
                        out = value if out is None else np.asarray(out)
                        if out.shape != shape:
                            raise ValueError("the hook at %s returned shape %s for a value of shape %s"
                                             % (message.get("name"), out.shape, shape))
                        if out is value and np.array_equal(out, before):
                            reply["unchanged"] = True
                        else:
                            reply["data"] = base64.b64encode(
                                np.ascontiguousarray(out, dtype="<f4").tobytes()).decode("ascii")
                    except Exception as e:  # the server fails the request; the function's own error is raised here
                        raised = raised or e
                        reply["error"] = "%s: %s" % (type(e).__name__, e)
                    self._conn.send({"op": "reply", "args": reply})
                answer = self._conn.wait(slot)
            except KeyboardInterrupt:
                try:
                    self._send_cancel(rid, wait=False)
                    slot.event.wait(10)
                except Exception:
                    pass
                self._conn.abandon(rid)
                raise
            finally:
                self._current = None
        if raised is not None:
            raise raised
        return self._answer(*answer)

    @staticmethod
    def _answer(message, payload):
        for warning in message.get("warnings") or ():
            warnings.warn(str(warning), HeadScopeWarning, stacklevel=4)
        if not message.get("ok"):
            text = str(message.get("error") or "the server answered an error without a message")
            kind = message.get("kind")
            if kind == "cancelled":
                raise Cancelled(text)
            raise HeadScopeError(text, kind)
        form = message.get("format")
        if form == "csv":
            return read_table(message.get("result") or "")
        if form == "files":  # syntax, coref: {"relations.csv": text, ...}, each CSV as a table
            return {name: read_table(text) if name.endswith(".csv") else text
                    for name, text in (message.get("result") or {}).items()}
        if payload is not None:
            return payload
        return message.get("result")

    def _send_cancel(self, target, wait=True):
        cid = "cancel-%d" % next(self._cancels)
        slot = self._conn.submit(cid, "cancel", {"target": target})
        if not wait:
            return True
        answer = self._conn.wait(slot, timeout=30)
        if answer is None:
            self._conn.abandon(cid)
            return False
        message = answer[0]
        result = message.get("result")
        if isinstance(result, dict) and "was" in result:  # {"target": id, "was": "running"|"queued"|"unknown"}
            return result["was"] in ("running", "queued")
        return bool(message.get("ok"))

    def cancel(self):
        """Cancels the running call (from another thread): that call raises ``Cancelled``. Returns
        False when no call was running (or the server could not be reached)."""
        target = self._current
        if target is None:
            return False
        try:
            return self._send_cancel(target)
        except ServerError:
            return False

    def hello(self):
        """The server's ``hello``: protocol, version, model and the list of ``ops`` it runs."""
        answer = self._call("hello", {"protocol": PROTOCOL})
        self._ops = list(answer.get("ops") or ())
        return answer

    @property
    def ops(self):
        """The ops this server runs (asked once)."""
        if self._ops is None:
            self.hello()
        return self._ops

    # -- commands --------------------------------------------------------------------------------
    def attention(self, text, pair=None, layer_norms=False, words=False, target=None, **options):
        """Every head's attention map for one input (a sentence, or two with ``pair``), as arrays.

        Returns an ``Attention``: ``tokens``, ``ids``, ``attention`` float32 (layer, head, query, key)
        whose rows sum to 1, ``value_norms`` float32 (layer, head, token), ``layer_norms`` float32
        (layer, query, key) with ``layer_norms=True``, ``words`` and ``word_of_token`` with
        ``words=True`` (and the maps over words). All axes 0-based. The numbers are the float32 values
        ``./headscope attention`` prints, sent as an .npz.

        An encoder-decoder (T5, BART): ``text`` is the source and ``target`` the decoder's input; returns an
        ``EncoderDecoderAttention`` (``encoder_attention``, ``decoder_attention``, ``cross_attention``, with
        ``tokens``/``ids`` and ``target_tokens``/``target_ids``). Heads switched off per kind:
        ``disable_encoder``, ``disable_decoder``, ``disable_cross`` (as ``disable``: ``["2-3", "L1"]``, 1-based)
        with ``mode="zero"|"uniform"``.
        """
        if target is not None:
            if pair is not None or layer_norms or words:
                raise ValueError("target (an encoder-decoder's source and target) goes without pair, layer_norms "
                                 "and words")
            data = self._call("attention", dict(options, text=text, target=target, format="npz"))
            if not isinstance(data, (bytes, bytearray)):
                raise ServerError("the server answered attention with %r, not the .npz asked for"
                                  % type(data).__name__)
            return EncoderDecoderAttention.from_npz(data)
        data = self._call("attention", dict(options, text=text, pair=pair, layer_norms=layer_norms,
                                            words=words, format="npz"))
        if not isinstance(data, (bytes, bytearray)):
            raise ServerError("the server answered attention with %r, not the .npz asked for"
                              % type(data).__name__)
        return Attention.from_npz(data)

    def run(self, text_or_texts, pair=None, cache=None, interventions=None, hooks=None, logits=True):
        """One forward pass as TransformerLens's ``run_with_cache`` / ``run_with_hooks``: returns a ``Run``
        (``log_probs, cache = hs.run(...)`` unpacks it).

        ``text_or_texts``: one input, or a list of them (a text, or a (text, pair) tuple each): one batch,
        padded to its longest. ``cache``: names as TransformerLens spells them
        (``blocks.3.attn.hook_pattern``, ``blocks.*.hook_resid_post``; ``*`` matches anything), kept as
        NumPy arrays in its shapes (``hook_z`` is (batch, pos, head, d_head)). ``interventions``: dicts
        ``{"hook": name, "op": "zero"|"scale"|"set"|"add"|"mean"|"patch_from", "heads": [...],
        "positions": [...], "inputs": [...], "value": x, "source": text}`` (0-based; a key left out means
        all), applied inside the engine in the order given. ``hooks``: ``[(name, fn)]`` as TransformerLens's
        ``fwd_hooks``: ``fn(value, hook)`` gets a NumPy copy of the value during the pass and returns the value
        to flow on (None: the array as it left ``fn``); the server waits for each answer. docs/NOTEBOOK.md.
        """
        args = request_args(text_or_texts, pair, cache, interventions, logits)
        if hooks:
            data = self._call_with_hooks("run", args, list(hooks))
        else:
            data = self._call("run", args)
        if not isinstance(data, (bytes, bytearray)):
            raise ServerError("the server answered run with %r, not the .npz asked for" % type(data).__name__)
        return Run.from_npz(data)

    def predict(self, text, pair=None, disable=None, mode="zero", top=5, target=None, **options):
        """The masked-LM predictions at each ``[MASK]`` (a causal model: the next token), as the JSON
        dict of ``./headscope predict``. ``disable`` switches heads off: a list (``["8-10", "L11"]``,
        ``(8, 10)`` tuples too) or a string (``"8-10,L11"``); ``L11`` (or ``11``, ``11-*``) is all of
        layer 11; heads are 1-based. ``mode`` is ``"zero"`` or ``"uniform"``. The dict then also has
        ``before`` and what changed.

        An encoder-decoder (T5, BART): ``text`` is the source, ``target`` the decoder's input; the dict's
        ``predictions[i]`` are the ``top`` most probable tokens after target token i (``intact[i]`` the same
        with every head on, when ``disable_encoder``, ``disable_decoder`` or ``disable_cross`` switch some off);
        ``next_tokens(...)`` gives them as a table."""
        if target is not None:
            return self._call("predict", dict(options, text=text, pair=pair, disable=disable, target=target,
                                              mode=mode, top=top))
        return self._call("predict", dict(options, text=text, pair=pair, disable=disable, mode=mode,
                                          top=top))

    def next_tokens(self, source, target, top=5, **options):
        """An encoder-decoder's next-token predictions at every target position as a table (a DataFrame when
        pandas imports, else a list of dicts): ``run, position, after, rank, token, id, probability``, positions
        and ranks 0-based. ``run`` is ``"as run"``; with heads switched off (``disable_encoder``,
        ``disable_decoder``, ``disable_cross``) the same rows with every head on follow as ``"intact"``."""
        result = self.predict(source, target=target, top=top, **options)
        rows = []
        for run, key in (("as run", "predictions"), ("intact", "intact")):
            for row in result.get(key) or ():
                for rank, entry in enumerate(row["top"]):
                    rows.append({"run": run, "position": row["position"], "after": row["after"], "rank": rank,
                                 "token": entry["token"], "id": entry["id"], "probability": entry["probability"]})
        return _rows_table(rows)

    def view(self, text, pair=None, disable=None, **options):
        """HeadScope's interactive page for one input (the ``html`` op) as a ``View``: shown inline
        in a notebook (a sandboxed iframe), ``save(path)`` writes it."""
        page = self._call("html", dict(options, text=text, pair=pair, disable=disable))
        return View(page)

    def classify(self, text=None, pair=None, corpus=None, **options):
        """Kovaleva et al.'s category of every head's map (``./headscope classify``): a table, one
        row per head. ``corpus`` is a file, or a list of inputs (a string, or a (text, pair) tuple)."""
        return self._call("classify", dict(options, text=text, pair=pair, corpus=corpus))

    def ablate(self, text=None, pair=None, corpus=None, mode="zero", **options):
        """Every head switched off alone (``./headscope ablate``): a table ``layer, head,
        baseline_logprob, ablated_logprob, delta_logprob, ...`` (1-based heads)."""
        return self._call("ablate", dict(options, text=text, pair=pair, corpus=corpus, mode=mode))

    def importance(self, text=None, corpus=None, **options):
        """Gradient head importance (Michel et al. 2019, ``./headscope importance``): a table."""
        return self._call("importance", dict(options, text=text, corpus=corpus))

    def rollout(self, text, pair=None, **options):
        """Attention rollout (or flow, ``flow=True``) as ``./headscope rollout`` writes it."""
        return self._call("rollout", dict(options, text=text, pair=pair))

    def syntax(self, treebank, **options):
        """Which heads track dependency relations on a CoNLL-U treebank (``./headscope syntax``).

        Returns the files the command writes, by name: ``relations.csv`` and ``relations-best.csv`` (with
        probes, their CSVs too), each a DataFrame when pandas is there, else a list of dicts.
        """
        return self._call("syntax", dict(options, treebank=treebank))

    def coref(self, treebank, **options):
        """Which heads resolve coreference on a CorefUD treebank (``./headscope coref``).

        Returns the files the command writes, by name: ``coref.csv`` and ``coref-baselines.csv``.
        """
        return self._call("coref", dict(options, treebank=treebank))

    def patch(self, clean, corrupted, target, **options):
        """Activation patching (``./headscope patch``): a table."""
        return self._call("patch", dict(options, clean=clean, corrupted=corrupted, target=target))

    # -- circuits (issue 43) -----------------------------------------------------------------------
    def composition(self, mode, **options):
        """Composition scores from the weights (``./headscope composition --mode q|k|v``): a table
        ``sender_layer, sender_head, receiver_layer, receiver_head, score`` (1-based), one row per pair
        with the sender in an earlier layer; a DataFrame when pandas imports, else a list of dicts."""
        return self._call("composition", dict(options, mode=mode))

    def detect(self, **options):
        """TransformerLens's head detector (``./headscope detect``): a table ``layer, head,
        previous_token, duplicate_token, induction`` (1-based), one row per head."""
        return self._call("detect", dict(options))

    def path_patch(self, clean, corrupted, target, receivers="logits", **options):
        """Path patching (``./headscope patch --by path --receivers ...``): a table ``layer, head,
        patched, recovered``, one row per sender head before the first receiver. ``receivers``:
        ``"logits"`` or heads' inputs ``"L-H:q|k|v"`` (a string with commas, or a list)."""
        return self._call("patch", dict(options, clean=clean, corrupted=corrupted, target=target, by="path",
                                        receivers=receivers))

    def edges(self, clean, corrupted, target, **options):
        """Edge scores of the circuit graph (``./headscope edges``): a table ``sender, receiver, input, score``,
        the largest |score| first (``method="eap"|"eap-ig"|"exact"``, ``top=N``, ``contrast=``...)."""
        return self._call("edges", dict(options, clean=clean, corrupted=corrupted, target=target))

    def circuit(self, clean, corrupted, target, **options):
        """A circuit as the top-N edges and its faithfulness (``./headscope circuit``): a table ``edges, metric,
        kept`` (``faithfulness="10,100"``, ``check=K``, ``method=``...)."""
        return self._call("circuit", dict(options, clean=clean, corrupted=corrupted, target=target))

    def lens(self, text, **options):
        """The logit lens (``./headscope lens``)."""
        return self._call("lens", dict(options, text=text))

    def saliency(self, text, target, **options):
        """Token saliency (``./headscope saliency``): a table ``position, token, score``."""
        return self._call("saliency", dict(options, text=text, target=target))

    def jacobian(self, text, **options):
        """Token-to-token Jacobian norms of every layer (``./headscope jacobian``)."""
        return self._call("jacobian", dict(options, text=text))

    def favor(self, **options):
        """FAVOR+ against softmax attention (``./headscope favor``)."""
        return self._call("favor", dict(options))

    def layers_report(self, **options):
        """``./headscope layers`` (named so because ``layers`` is the model's layer count)."""
        return self._call("layers", dict(options))

    def token_types(self, corpus, **options):
        """Per layer, the share of attention on [CLS], [SEP], punctuation and other tokens."""
        return self._call("token-types", dict(options, corpus=corpus))

    def head_distances(self, corpus, **options):
        """How alike every pair of heads attends (Jensen-Shannon), ``./headscope head-distances``."""
        return self._call("head-distances", dict(options, corpus=corpus))


class HookPoint:
    """What a hook function gets as its second argument, as TransformerLens's ``hook``: ``name`` and ``layer()``."""

    def __init__(self, name):
        self.name = name

    def layer(self):
        parts = self.name.split(".")
        return int(parts[1]) if len(parts) > 2 and parts[0] == "blocks" else None

    def __repr__(self):
        return "HookPoint(%r)" % self.name


_latest = None


def latest_open():
    """The HeadScope opened last in this process if it is still open, else None (``head_view`` renders with it
    instead of starting a JVM)."""
    server = _latest() if _latest is not None else None
    return server if server is not None and not server.closed else None


def open(model="bert-base-uncased", home=None, offline=False, timeout=None, echo_stderr=False,
         gelu=None):
    """Starts ``headscope serve --stdio`` on ``model`` and returns a ``HeadScope`` once the model is
    loaded (its greeting arrived).

    ``home``: the HeadScope checkout (else ``HEADSCOPE_HOME``, else the checkout this package was
    installed from, else ``headscope`` on PATH). ``offline``: use only the model cache. ``timeout``:
    seconds to wait for the greeting (default: no limit; the first start may build the project).
    ``echo_stderr``: copy the server's standard error to ours. Raises ``ServerError`` with the last
    lines of the server's standard error if it dies before its greeting.
    """
    return HeadScope(model, home=home, offline=offline, timeout=timeout, echo_stderr=echo_stderr,
                     gelu=gelu)
