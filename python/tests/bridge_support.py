"""What the bridge's tests share (a module of its own name: python/tests/browser has a conftest too, and
`from conftest import` would find whichever conftest was imported first).

The server and the CLI run from the checkout these tests sit in (HEADSCOPE_HOME is set to it), so the
tests check the launcher and the jar built here.
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(ROOT, "python")
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)
os.environ["HEADSCOPE_HOME"] = ROOT

import headscope  # noqa: E402

MODEL = "bert-base-uncased"
START_TIMEOUT = 1200  # seconds: the first start may build the project


def run_cli(*args):
    """Runs ./headscope with ``args``; returns its standard output (UTF-8)."""
    done = subprocess.run([os.path.join(ROOT, "headscope")] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=600)
    if done.returncode != 0:
        raise AssertionError("./headscope %s exited %d: %s" % (
            " ".join(args), done.returncode, done.stderr.decode("utf-8", "replace")[-2000:]))
    return done.stdout.decode("utf-8")


def cli_json(*args):
    return json.loads(run_cli(*args))


def open_server():
    """A server of a test's own (for the tests that kill or close it)."""
    return headscope.open(MODEL, timeout=START_TIMEOUT)


def tiny_folder(kind, directory, seed):
    """A tiny random checkpoint in its hub layout, written by the Java tests' own writer
    (``io.headscope.app.cli.serve.TinyFolders``, from app/target/test-classes: the build's test classes, as
    ``./headscope bench`` runs them): ``kind`` t5, t5v11 or bart. Returns the writer's line: ``folder``,
    ``source``, ``target`` and the ``source_ids`` and ``target_ids`` worked out by hand from its tokenizer."""
    target = os.path.join(ROOT, "app", "target")
    jar = os.path.join(target, "app-0.1.0-SNAPSHOT.jar")
    classpath_file = os.path.join(target, "test-classpath.txt")
    classes = os.path.join(target, "test-classes")
    if not (os.path.isfile(jar) and os.path.isfile(classpath_file) and os.path.isdir(classes)):
        raise AssertionError("the tiny checkpoints come from the build's test classes: build first "
                             "(mvn -DskipTests package, or ./headscope test)")
    with open(classpath_file, encoding="utf-8") as f:
        classpath = ":".join([classes, jar, f.read().strip()])
    done = subprocess.run(["java", "-Xmx512m", "-cp", classpath, "io.headscope.app.cli.serve.TinyFolders",
                           str(directory), kind, str(seed)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=300)
    if done.returncode != 0:
        raise AssertionError("TinyFolders %s exited %d: %s" % (kind, done.returncode,
                                                                done.stderr.decode("utf-8", "replace")[-2000:]))
    return json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1])
