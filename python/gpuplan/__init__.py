"""gpuplan: a fast, calibrated analytical model of AI training and inference on GPU clusters.

Every function runs one ``gpuplan`` command in-process through the same API the CLI uses and returns
the document ``gpuplan COMMAND ... --json`` prints, as a dict. Keyword arguments are the command's
CLI options: dashes become underscores (``tokens_per_user_per_s=50`` for ``--tokens-per-user-per-s``),
``plan_tp=8, plan_pp=2`` (or ``plan={"tp": 8, "pp": 2}``) is ``--plan tp=8,pp=2``, flags are
booleans (``sweep=True``) and repeatable options take lists (``mix=["gb300-nvl72:0.5", "hgx-h200:0.5"]``).

    import gpuplan
    point = gpuplan.infer(model="llama3.1-70b", system="hgx-h200", isl=8192, osl=1024)
    curve = gpuplan.infer(model="llama3.1-70b", system="gb300-nvl72", sweep=True)
    frame = gpuplan.to_frame(curve)          # the frontier points as a pandas DataFrame

Bad input raises gpuplan.InputError (``.field`` names the option as the CLI does: "--isl");
other failures gpuplan.Error.
Calls release the GIL: a thread pool evaluates many workloads in parallel. ``catalog=`` and
``calibration=`` (the CLI's ``--catalog DIR``, ``--calibration FILE``) select a Session; a Session
may also be made once and reused: ``gpuplan.Session(catalog=["./my-catalog"]).infer(...)``.
"""

import os as _os
import threading as _threading

from . import _core
from .errors import Error, InputError
from .frames import tables, to_frame

# The commands' functions are added below, one per entry of the API's table (_core.commands()).
__all__ = ["Error", "InputError", "Session", "run", "commands", "does_not_fit", "to_frame", "tables", "report"]

def _options(keywords, positional):
    """Keyword arguments as the API's options: CLI names (dashes for underscores), None left out; the
    training plan's fields (``plan_tp=8`` or ``plan={"tp": 8}``, errors naming ``--plan.tp``) join
    ``plan`` as its CLI text ``tp=8,...``, after a ``plan="..."`` string if one is given; positional
    arguments as str under "positional". The functions do this in C++ (``_core.call``)."""
    return _core.options(keywords, tuple(positional))


def _as_list(value, field):
    if value is None:
        return []
    if isinstance(value, (str, _os.PathLike)):
        return [_os.fspath(value)]
    if isinstance(value, (list, tuple)):
        return [_os.fspath(v) for v in value]
    raise InputError(field + ": a path or a list of paths (got " + type(value).__name__ + ")", field)


class Session:
    """The catalog calls run against: the built-in catalog overlaid by ``catalog`` folders and
    ``calibration`` files (the CLI's ``--catalog DIR`` and ``--calibration FILE``; $GPUPLAN_CATALOG is
    read too). Immutable once made; share one across threads. Has every command as a method."""

    def __init__(self, catalog=None, calibration=None):
        self._catalog = _as_list(catalog, "catalog")
        self._calibration = _as_list(calibration, "calibration")
        self._core = _core.Session(self._catalog, self._calibration)

    def __repr__(self):
        return "gpuplan.Session(catalog={!r}, calibration={!r})".format(self._catalog, self._calibration)

    def run(self, command, *positional, **options):
        """Runs any command (``gpuplan.commands()``) and returns its --json document as a dict."""
        return _core.call(self._core, command, options, positional)

    def report(self, kind, **options):
        """The self-contained HTML page of ``gpuplan report KIND`` (train, infer, schedule, compare, site)."""
        return _core.report_html(self._core, kind, options)


_sessions = {}
_sessions_lock = _threading.Lock()


def _session(options):
    """The Session named by ``catalog=``/``calibration=`` keywords (made once per combination)."""
    if "catalog" not in options and "calibration" not in options:
        session = _sessions.get(((), ()))
        if session is not None:
            return session
    key = (tuple(_as_list(options.pop("catalog", None), "catalog")),
           tuple(_as_list(options.pop("calibration", None), "calibration")))
    with _sessions_lock:
        session = _sessions.get(key)
        if session is None:
            session = _sessions[key] = Session(list(key[0]), list(key[1]))
    return session


def run(command, *positional, **options):
    """Runs any command (``gpuplan.commands()``) and returns its --json document as a dict."""
    return _session(options).run(command, *positional, **options)


def report(kind, **options):
    """The self-contained HTML page of ``gpuplan report KIND`` (train, infer, schedule, compare, site), as a str."""
    return _session(options).report(kind, **options)


def commands():
    """Every command, as {name: one-line help}, in the CLI's order."""
    return dict(_core.commands())


def does_not_fit(result):
    """True when a result reports that the plan or deployment asked for does not fit in memory (the CLI's exit 3)."""
    return _core.does_not_fit(result)


def _command(name, summary, default_positional=()):
    def method(self, *positional, **options):
        return self.run(name, *(positional or default_positional), **options)

    def function(*positional, **options):
        # Straight to the core (what Session.run does, without packing the keywords again).
        return _core.call(_session(options)._core, name, options, positional or default_positional)

    for f in (method, function):
        f.__name__ = f.__qualname__ = name
        f.__doc__ = summary + "\n\nKeyword arguments are the options of `gpuplan " + name + " --help`; returns its --json document."
    method.__qualname__ = "Session." + name
    setattr(Session, name, method)
    return function


# One function (and Session method) per command of the API's table, in its order, with its help.
# catalog(), model() and recipe() list by default, as `gpuplan catalog list` and `gpuplan model list`.
_DEFAULT_POSITIONAL = {"catalog": ("list",), "model": ("list",), "recipe": ("list",)}
for _name, _help in _core.commands():
    globals()[_name] = _command(_name, _help + ".", _DEFAULT_POSITIONAL.get(_name, ()))
    __all__.append(_name)
del _command, _name, _help

_recipe_command = recipe  # noqa: F821 (bound by the loop above)


def recipe(*positional, **options):
    """One built-in deployment recipe: recipe(NAME) is `gpuplan recipe show NAME --json` (its document, the
    recipe under "recipe"); recipe("list") and recipe("show", NAME) as the CLI's sub-commands."""
    if len(positional) == 1 and positional[0] not in ("list", "show"):
        positional = ("show",) + positional
    return _recipe_command(*(positional or ("list",)), **options)


def recipes(**options):
    """The built-in deployment recipes (`gpuplan recipe list --json`): a list of dicts, each with name, kind, model,
    system, engine, pools, dates and source; kind="deployment" keeps those `infer(recipe=NAME)` evaluates."""
    return _recipe_command("list", **options)["recipes"]


def _session_recipes(self, **options):
    """The built-in deployment recipes under this session (`gpuplan recipe list --json`'s list)."""
    return self.run("recipe", "list", **options)["recipes"]


Session.recipes = _session_recipes
__all__.append("recipes")

for _error in (Error, InputError):
    _error.__module__ = "gpuplan"  # shown as gpuplan.InputError, where users catch it
del _error
