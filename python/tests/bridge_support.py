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


def tiny_folders(kinds, directory, seed, runs=()):
    """Tiny random checkpoints in their hub layouts, written by the Java tests' own writer
    (``io.headscope.app.cli.serve.TinyFolders``, from app/target/test-classes: the build's test classes, as
    ``./headscope bench`` runs them): ``kinds`` a sequence of t5, t5v11 or bart. Returns a dict from kind to the
    writer's line: ``folder``, ``source``, ``target`` and the ``source_ids`` and ``target_ids`` worked out by hand
    from its tokenizer, and ``runs``: for each of ``runs`` (a command and its extra options, e.g. ``("predict",
    "--top", "3")``), keyed by that tuple, the JSON the command line prints for ``COMMAND --model FOLDER --text
    SOURCE --target TARGET OPTIONS...``. The writer runs those commands through the command line's own entry
    (``HeadScopeCli.run``, what ``./headscope`` calls) in its one JVM: a process apart from any server, started
    once for every folder and run instead of once per command."""
    target = os.path.join(ROOT, "app", "target")
    jar = os.path.join(target, "app-0.1.0-SNAPSHOT.jar")
    classpath_file = os.path.join(target, "test-classpath.txt")
    classes = os.path.join(target, "test-classes")
    if not (os.path.isfile(jar) and os.path.isfile(classpath_file) and os.path.isdir(classes)):
        raise AssertionError("the tiny checkpoints come from the build's test classes: build first "
                             "(mvn -DskipTests package, or ./headscope test)")
    with open(classpath_file, encoding="utf-8") as f:
        classpath = ":".join([classes, jar, f.read().strip()])
    # MKL's strict mode as ./headscope sets it (libtorch reads it when it loads): the command lines' numbers are
    # then the bits ./headscope and the server print
    env = dict(os.environ, MKL_CBWR=os.environ.get("MKL_CBWR", "AUTO,STRICT"))
    done = subprocess.run(["java", "-Xmx512m", "-cp", classpath, "io.headscope.app.cli.serve.TinyFolders",
                           str(directory), ",".join(kinds), str(seed)] + [json.dumps(list(r)) for r in runs],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600, env=env)
    if done.returncode != 0:
        raise AssertionError("TinyFolders %s exited %d: %s" % (",".join(kinds), done.returncode,
                                                                done.stderr.decode("utf-8", "replace")[-2000:]))
    lines = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines() if line.startswith("{")]
    if len(lines) != len(kinds):
        raise AssertionError("TinyFolders printed %d folders for %d kinds" % (len(lines), len(kinds)))
    made = {}
    for kind, line in zip(kinds, lines):
        line["runs"] = {tuple(r["args"]): r["out"] for r in line["runs"]}
        made[kind] = line
    return made
