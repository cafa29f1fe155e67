"""The build backend of the headscope Python package (PEP 517, PEP 660), in the standard library only.

Why not setuptools: pip builds in an isolated environment and would first download setuptools (and
wheel) from PyPI, which a machine without network cannot; without a [build-system] table pip falls
back to the same isolated build whenever `wheel` is not installed. This backend needs nothing
(`requires = []`), so `pip install ./python` works offline with any pip >= 19 on Python >= 3.9.

What it adds to the package: `headscope/_installed.py`, recording the HeadScope checkout the package
was built from (the folder above python/, when it holds the `headscope` launcher and pom.xml), which
the installed package falls back to when HEADSCOPE_HOME is not set.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

NAME = "headscope"
SUMMARY = "HeadScope from Python: BERT's attention heads as NumPy arrays (a client of headscope serve)"
REQUIRES_PYTHON = ">=3.9"
REQUIRES = ["numpy"]
EXTRAS = {"pandas": ["pandas"]}
TAG = "py3-none-any"

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
PACKAGE = os.path.join(SOURCE, NAME)


def _version():
    with open(os.path.join(PACKAGE, "__init__.py"), encoding="utf-8") as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


def _checkout():
    root = os.path.dirname(SOURCE)
    if os.path.isfile(os.path.join(root, "headscope")) and os.path.isfile(os.path.join(root, "pom.xml")):
        return root
    return None


def _metadata():
    lines = ["Metadata-Version: 2.1", "Name: " + NAME, "Version: " + _version(),
             "Summary: " + SUMMARY, "Requires-Python: " + REQUIRES_PYTHON]
    lines += ["Requires-Dist: " + r for r in REQUIRES]
    for extra, reqs in EXTRAS.items():
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (r, extra) for r in reqs]
    readme = os.path.join(SOURCE, "README.md")
    text = "\n".join(lines) + "\n"
    if os.path.isfile(readme):
        with open(readme, encoding="utf-8") as f:
            text += "Description-Content-Type: text/markdown\n\n" + f.read()
    return text


def _dist_info():
    return "%s-%s.dist-info" % (NAME, _version())


def _wheel_name():
    return "%s-%s-%s.whl" % (NAME, _version(), TAG)


class _Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.records = []

    def add(self, name, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.records.append("%s,sha256=%s,%d" % (name, digest, len(data)))

    def finish(self, dist_info):
        self.add(dist_info + "/METADATA", _metadata())
        self.add(dist_info + "/WHEEL", "Wheel-Version: 1.0\nGenerator: headscope_build\n"
                                       "Root-Is-Purelib: true\nTag: %s\n" % TAG)
        self.add(dist_info + "/top_level.txt", NAME + "\n")
        record = dist_info + "/RECORD"
        self.zip.writestr(zipfile.ZipInfo(record, date_time=(2020, 1, 1, 0, 0, 0)),
                          "\n".join(self.records + [record + ",,"]) + "\n")
        self.zip.close()


def _package_files():
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".typed")) and name != "_installed.py":
                path = os.path.join(folder, name)
                yield path, os.path.relpath(path, SOURCE).replace(os.sep, "/")


# -- PEP 517 ---------------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    target = os.path.join(metadata_directory, _dist_info())
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return _dist_info()


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel = _Wheel(os.path.join(wheel_directory, _wheel_name()))
    for path, name in _package_files():
        with open(path, "rb") as f:
            wheel.add(name, f.read())
    home = _checkout()
    wheel.add(NAME + "/_installed.py",
              '"""Written by pip install: the HeadScope checkout this package was installed from."""\n'
              "HOME = %r\n" % home)
    wheel.finish(_dist_info())
    return _wheel_name()


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """pip install -e ./python: a .pth file puts python/ itself on sys.path."""
    wheel = _Wheel(os.path.join(wheel_directory, _wheel_name()))
    wheel.add("__editable__.%s.pth" % NAME, SOURCE + "\n")
    wheel.finish(_dist_info())
    return _wheel_name()


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, _version())
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        def add(rel):
            tar.add(os.path.join(SOURCE, rel), arcname=base + "/" + rel, recursive=False)
        for rel in ("pyproject.toml", "README.md", "_build", "_build/headscope_build.py"):
            if os.path.exists(os.path.join(SOURCE, rel)):
                add(rel)
        add(NAME)
        for path, rel in _package_files():
            add(rel)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = _metadata().encode("utf-8")
        info.size = len(data)
        info.mtime = int(time.time())
        tar.addfile(info, io.BytesIO(data))
    return name
