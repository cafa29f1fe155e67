"""pip install ./python works without network: into a fresh virtual environment that sees the
system's packages (numpy), with --no-index and no pip configuration (no index, no find-links)."""

import os
import subprocess
import sys

import pytest

from bridge_support import PYTHON_DIR, ROOT

pytestmark = pytest.mark.slow  # the slow tier: ./headscope test slow


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PIP_") and k not in ("PYTHONPATH", "HEADSCOPE_HOME", "VIRTUAL_ENV")}
    env["PIP_CONFIG_FILE"] = os.devnull  # no index, extra index or find-links from any pip.conf
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


def run(argv, cwd, env):
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=600)
    return done.returncode, done.stdout.decode("utf-8", "replace")


def make_venv(folder):
    """A venv with --system-site-packages; returns (its python, the pip command for it)."""
    env = clean_env()
    code, out = run([sys.executable, "-m", "venv", "--system-site-packages", folder], folder, env)
    python = os.path.join(folder, "bin", "python")
    if code == 0:
        return python, [python, "-m", "pip"]
    # Debian without python3-venv has no ensurepip: a venv without pip, installed into by this pip
    code, out2 = run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", folder],
                     folder, env)
    if code != 0:
        pytest.skip("cannot make a venv: " + (out + out2)[-500:])
    code, version = run([sys.executable, "-m", "pip", "--version"], folder, env)
    if code != 0:
        pytest.skip("no pip for %s (apt-get install python3-pip)" % sys.executable)
    return python, [sys.executable, "-m", "pip", "--python", python]


def test_pip_installs_the_package_offline_and_it_finds_the_checkout(tmp_path):
    venv = str(tmp_path / "venv")
    os.mkdir(venv)
    python, pip = make_venv(venv)
    elsewhere = str(tmp_path)  # not the repository: nothing on sys.path from it
    code, out = run(pip + ["install", "--no-index", "--no-cache-dir", PYTHON_DIR], elsewhere, clean_env())
    assert code == 0, out
    assert "Successfully installed" in out and "headscope-" in out, out
    code, out = run([python, "-c", "import headscope, sys; print(headscope.__file__); "
                                   "print(headscope.recorded_home()); print(headscope.find_launcher())"],
                    elsewhere, clean_env())
    assert code == 0, out
    module, home, launcher = out.strip().splitlines()[-3:]
    assert module.startswith(os.path.realpath(venv)) or module.startswith(venv), module
    assert home == ROOT and launcher == os.path.join(ROOT, "headscope")
    # the source tree stayed clean: the recorded home lives in the wheel only
    assert not os.path.exists(os.path.join(PYTHON_DIR, "headscope", "_installed.py"))
    assert not os.path.exists(os.path.join(PYTHON_DIR, "build"))


def readme_offline_lines(readme):
    """The indented lines under README's <!-- offline-install --> marker, comments dropped."""
    with open(readme, encoding="utf-8") as f:
        lines = f.read().splitlines()
    at = next(i for i, line in enumerate(lines) if "<!-- offline-install" in line)
    out = []
    for line in lines[at + 1:]:
        if not line.strip():
            if out:
                break
            continue
        out.append(line.split("#", 1)[0].strip())
    return [line for line in out if line]


@pytest.mark.parametrize("readme", ["README.md", os.path.join("python", "README.md")])
def test_the_readmes_offline_install_lines_work_as_written_in_a_new_folder(tmp_path, readme):
    """Issue 40: README's offline line failed in a fresh venv ("No matching distribution found for numpy").
    Its two lines now run exactly as written, from a folder laid out as the checkout (./python), with no
    index and no pip configuration; the venv finds numpy and the package."""
    lines = readme_offline_lines(os.path.join(ROOT, readme))
    assert lines == ["python3 -m venv --system-site-packages hs-venv",
                     "hs-venv/bin/pip install --no-index ./python"], lines
    code, out = run(["python3", "-c", "import numpy, ensurepip"], str(tmp_path), clean_env())
    if code != 0:
        pytest.skip("python3 has no numpy or no ensurepip (apt-get install python3-numpy python3-venv): " + out[-300:])
    os.symlink(PYTHON_DIR, str(tmp_path / "python"))
    for line in lines:
        code, out = run(["bash", "-c", line], str(tmp_path), clean_env())
        assert code == 0, line + "\n" + out
    code, out = run([str(tmp_path / "hs-venv" / "bin" / "python"), "-c",
                     "import headscope, numpy; print(headscope.__file__)"], str(tmp_path), clean_env())
    assert code == 0, out
    assert str(tmp_path / "hs-venv") in out, out
    assert not os.path.exists(os.path.join(PYTHON_DIR, "build"))
