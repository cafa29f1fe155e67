"""Where the ``headscope`` launcher is: the one place that decides which checkout the server runs from."""

import os
import shutil

__all__ = ["find_launcher", "recorded_home"]

SCRIPT = "headscope"


def _is_checkout(folder):
    return (os.path.isfile(os.path.join(folder, SCRIPT))
            and os.path.isfile(os.path.join(folder, "pom.xml")))


def recorded_home():
    """The HeadScope checkout this package belongs to, or None.

    An installed package carries the checkout it was installed from (``pip install ./python`` writes
    ``headscope/_installed.py`` into the wheel); a package used from the checkout itself
    (``PYTHONPATH=python``) finds it two folders up.
    """
    try:
        from . import _installed  # only in an installed wheel
        home = _installed.HOME
    except ImportError:
        home = None
    if home and _is_checkout(home):
        return home
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if _is_checkout(source):
        return source
    return None


def _launcher_in(home, named_by):
    home = os.path.abspath(os.path.expanduser(os.fspath(home)))
    script = os.path.join(home, SCRIPT)
    if not os.path.isfile(script):
        raise FileNotFoundError(
            "%s is %s, which has no '%s' launcher: point it at the HeadScope checkout (the folder "
            "with the headscope script and pom.xml)" % (named_by, home, SCRIPT))
    if not os.access(script, os.X_OK):
        raise PermissionError("%s is not executable (chmod +x %s)" % (script, script))
    return script


def find_launcher(home=None):
    """The path of the ``headscope`` launcher script to start the server with.

    In order: ``home`` if given; the environment variable ``HEADSCOPE_HOME``; the checkout recorded
    when the package was installed (or the checkout this source tree sits in); ``headscope`` on PATH.
    Raises FileNotFoundError naming HEADSCOPE_HOME when none is found.
    """
    if home is not None:
        return _launcher_in(home, "home")
    env = os.environ.get("HEADSCOPE_HOME")
    if env:
        return _launcher_in(env, "HEADSCOPE_HOME")
    recorded = recorded_home()
    if recorded:
        return os.path.join(recorded, SCRIPT)
    on_path = shutil.which(SCRIPT)
    if on_path:
        return on_path
    raise FileNotFoundError(
        "cannot find the headscope launcher: set HEADSCOPE_HOME to the HeadScope checkout (the folder "
        "with the headscope script), pass home=..., or put headscope on PATH")
