"""gpufleet from Python: run, validate and sweep scenarios; results as Arrow tables.

    >>> import gpufleet
    >>> r = gpufleet.run("scenarios/quickstart.toml", seed=7)
    >>> r.summary["wait_s"]["p95"]
    >>> r.jobs.to_pandas()            # or polars.from_arrow(r.jobs)

A scenario is a path (``str`` or ``os.PathLike``), TOML text (a ``str`` holding a newline
or an ``=``), or a ``dict`` of the same structure; ``None`` is the built-in quickstart
scenario. Overrides set fields by their dotted path, as a sweep does:
``gpufleet.run(s, **{"pools[0].nodes": 4})``; ``__`` stands for ``.`` and a number segment
for an index, so ``pools__0__nodes=4`` is the same.

The simulation runs in the Rust library with the GIL released, through the same run path
as ``gpufleet run``: same scenario and seed, same summary and tables. Bad input raises
:class:`ScenarioError` (a ``ValueError``) carrying the command line's message (file,
line, column, field); an output folder that cannot be written raises ``OSError``.

``plan`` and ``compare`` are exposed when the native module provides them (they come
with ``gpufleet plan`` and ``gpufleet compare``); see :data:`HAS_PLAN`,
:data:`HAS_COMPARE`.
"""

from __future__ import annotations

import io
import json
import operator
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Union

import pyarrow as pa
import pyarrow.parquet as pq

from . import _gpufleet

ScenarioError = _gpufleet.ScenarioError
__version__ = _gpufleet.version()

__all__ = [
    "run",
    "validate",
    "sweep",
    "RunResult",
    "SweepResult",
    "ScenarioError",
    "DEFAULT_SCENARIO",
    "HAS_PLAN",
    "HAS_COMPARE",
    "MAX_THREADS",
    "MAX_DEPTH",
    "__version__",
]

#: The built-in quickstart scenario (what ``gpufleet run`` runs without a file).
DEFAULT_SCENARIO: str = _gpufleet.default_scenario()

ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any], None]


#: The deepest an override's value or a scenario dict may nest.
MAX_DEPTH = 100
#: The most an override's value or a scenario dict may come to written out, in bytes (about):
#: a scenario file's limit, 16 MiB. A part used in several places counts in each.
_MAX_WRITTEN = 16 << 20


def _check_value(v: Any, where: str) -> None:
    """Refuses, before anything is written out, a value that holds itself, nests more than
    :data:`MAX_DEPTH` deep, or would come to more than 16 MiB written out. Each list and
    dict is measured once (by identity), so this takes time in the objects there are, not
    in the text they would make: a dict shared by both keys of its parent, 40 levels deep,
    is 41 objects that json.dumps wrote out as 2**40 leaves (it never ended)."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()

    def size(x: Any, depth: int) -> int:
        if isinstance(x, str):
            return len(x) + 2
        if not isinstance(x, (Mapping, list, tuple)):
            return 1
        i = id(x)
        if i in sizes:
            return sizes[i]
        if i in open_:
            raise ScenarioError(f"{where}: the value contains itself")
        if depth >= MAX_DEPTH:
            raise ScenarioError(
                f"{where}: the value is nested too deeply (more than {MAX_DEPTH} levels)")
        open_.add(i)
        n = 2
        for k, y in (x.items() if isinstance(x, Mapping) else enumerate(x)):
            n += size(y, depth + 1) + (len(k) + 4 if isinstance(k, str) else 2)
            if n > _MAX_WRITTEN:
                raise ScenarioError(
                    f"{where}: the value comes to more than 16 MiB written out (the most a "
                    "scenario file may be; a part used in several places counts in each)")
        open_.discard(i)
        sizes[i] = n
        return n

    size(v, 0)


def _path_arg(name: str, p: Union[str, "os.PathLike[str]"]) -> str:
    """A path argument as text; one holding a NUL byte (no file has such a name) is bad
    input naming ``name`` (it raised a bare ``ValueError: embedded null byte``)."""
    text = os.fspath(p)
    if isinstance(text, str) and "\0" in text:
        raise ScenarioError(f"{name}: the path {text!r} contains a NUL byte")
    return text


def _source(scenario: ScenarioLike, kind: str = "scenario",
            arg: str = "scenario") -> tuple[str, str, str]:
    """(text, file name for messages, folder data paths are relative to); ``arg`` is the
    argument's name, for messages."""
    if scenario is None:
        return DEFAULT_SCENARIO, "<built-in quickstart>", "."
    if isinstance(scenario, Mapping):
        _check_value(scenario, f"<{kind} dict>")
        try:
            text = _dict_to_toml(scenario)
        except RecursionError:
            raise ScenarioError(f"<{kind} dict>: nested too deeply") from None
        return text, f"<{kind} dict>", os.getcwd()
    if isinstance(scenario, str) and not scenario.strip():
        raise ScenarioError(f"{kind}: an empty string is neither a path nor TOML text")
    if isinstance(scenario, os.PathLike) or (
        isinstance(scenario, str) and "\n" not in scenario and "=" not in scenario
    ):
        path = Path(_path_arg(arg, scenario))
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ScenarioError(f"{path}: 1 problem\n  cannot read: {e}") from None
        except UnicodeDecodeError as e:
            raise ScenarioError(f"{path}: 1 problem\n  not UTF-8 text: {e}") from None
        return text, str(path), str(path.parent)
    if isinstance(scenario, str):
        return scenario, f"<{kind} text>", os.getcwd()
    raise TypeError(
        f"{kind} must be a path, TOML text, a dict or None, not {type(scenario).__name__}"
    )


def _toml_key(k: Any, where: str) -> str:
    if not isinstance(k, str):
        raise ScenarioError(f"{where or '<top>'}: key {k!r} is not a string")
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _toml_inline(v: Any, where: str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        if v != v or v in (float("inf"), float("-inf")):
            raise ScenarioError(f"{where}: {v} is not a finite number")
        return repr(v) if isinstance(v, float) else str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_toml_key(k, where)} = {_toml_inline(x, f'{where}.{k}')}"
                                for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_inline(x, f"{where}[{i}]") for i, x in enumerate(v)) + "]"
    if v is None:
        raise ScenarioError(f"{where}: None has no TOML value")
    raise ScenarioError(f"{where}: {type(v).__name__} has no TOML value")


def _dict_to_toml(d: Mapping[str, Any]) -> str:
    """A scenario dict as TOML text: tables and arrays of tables as sections, so error
    messages point at readable lines."""
    lines: list[str] = []

    def table(prefix: str, t: Mapping[str, Any]) -> None:
        scalars = {k: v for k, v in t.items()
                   if not isinstance(v, Mapping)
                   and not (isinstance(v, (list, tuple)) and v and all(isinstance(x, Mapping) for x in v))}
        for k, v in scalars.items():
            lines.append(f"{_toml_key(k, prefix[:-1])} = {_toml_inline(v, f'{prefix}{k}')}")
        for k, v in t.items():
            if k in scalars:
                continue
            name = f"{prefix}{_toml_key(k, prefix[:-1])}"
            if isinstance(v, Mapping):
                lines.append("")
                lines.append(f"[{name}]")
                table(name + ".", v)
            else:
                for x in v:
                    lines.append("")
                    lines.append(f"[[{name}]]")
                    table(name + ".", x)

    table("", d)
    return "\n".join(lines) + "\n"


def _toml_int(path: str, text: str) -> int:
    """An integer of an override's JSON, which TOML holds only in signed 64 bits."""
    n = int(text)
    if not -(2**63) <= n < 2**63:
        raise ScenarioError(f"override {path}: {n} does not fit a TOML integer (signed 64-bit)")
    return n


def _overrides(kw: Mapping[str, Any]) -> list[tuple[str, str]]:
    out = []
    for k, v in kw.items():
        path = k
        if "__" in k and "." not in k and "[" not in k:
            segs = k.split("__")
            path = segs[0] + "".join(f"[{s}]" if s.isdigit() else f".{s}" for s in segs[1:])
        _check_value(v, f"override {path}")
        try:
            value = json.dumps(v, allow_nan=False)
        except ValueError as e:
            if "ircular" in str(e):
                raise ScenarioError(f"override {path}: the value contains itself") from None
            if "float" in str(e):
                raise ScenarioError(f"override {path}: {v!r} is not a finite number") from None
            raise ScenarioError(f"override {path}: {e}") from None
        except RecursionError:
            raise ScenarioError(f"override {path}: the value is nested too deeply") from None
        except TypeError as e:
            raise ScenarioError(f"override {path}: {e}") from None
        json.loads(value, parse_int=lambda t: _toml_int(path, t))
        out.append((path, value))
    return out


#: The most worker threads a sweep may ask for, as ``gpufleet sweep --threads``.
MAX_THREADS = 1024


def _int_arg(name: str, v: Any, hi: int) -> int:
    """``v`` as an int from 0 to ``hi``, or an error naming ``name``. A bool is refused
    (``True`` was taken as 1)."""
    if isinstance(v, bool):
        raise TypeError(f"{name} must be an integer, not bool")
    try:
        n = operator.index(v)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(v).__name__}") from None
    if not 0 <= n <= hi:
        raise ValueError(f"{name} must be between 0 and {hi}, got {n}")
    return n


def _table(data: Optional[bytes]) -> Optional[pa.Table]:
    return None if data is None else pq.read_table(io.BytesIO(data))


class RunResult:
    """The result of one run.

    Attributes:
        summary: every headline figure, as in ``summary.json`` (same keys, same values).
        jobs: one row per submitted job (the columns of ``jobs.csv``), a ``pyarrow.Table``.
        pools: one row per pool (``pools.csv``).
        timeline: one row per sample time and pool (``timeline.csv``).
        seed: the master seed used.
        scenario: the scenario's name.
        out: the output folder written, or ``None``.
    """

    __slots__ = ("summary", "jobs", "pools", "timeline", "seed", "scenario", "out")

    def __init__(self, raw: Mapping[str, Any]):
        self.summary: dict = json.loads(raw["summary"])
        self.jobs: pa.Table = _table(raw["jobs"])
        self.pools: pa.Table = _table(raw["pools"])
        self.timeline: pa.Table = _table(raw["timeline"])
        self.seed: int = raw["seed"]
        self.scenario: str = raw["scenario"]
        self.out: Optional[Path] = Path(raw["out"]) if raw["out"] else None

    def __repr__(self) -> str:
        j = self.summary.get("jobs", {})
        return (f"<gpufleet.RunResult {self.scenario!r} seed={self.seed}: "
                f"{j.get('completed')}/{j.get('submitted')} jobs completed, "
                f"${self.summary.get('cost_usd', {}).get('total', 0):,.0f}>")


class SweepResult:
    """The result of a sweep.

    Attributes:
        runs: one row per run (``runs.csv``): ``run``, ``point``, ``seed``, the parameters,
            then every numeric figure of the run's summary; a ``pyarrow.Table``.
        points: one row per point (``points.csv``): ``<metric>_mean`` and ``<metric>_ci95``,
            and ``<distribution>_pooled_p50``/``_p95``/``_p99`` (all seeds' jobs pooled).
        outcome: what ran (``runs``, ``ran``, ``kept``, ``redone``, ``points``, ``seeds``,
            ``params``, ``out``).
        out: the sweep folder, or ``None`` when it was a temporary one.
    """

    __slots__ = ("runs", "points", "outcome", "out")

    def __init__(self, raw: Mapping[str, Any], keep: bool):
        self.runs: pa.Table = _table(raw["runs"])
        self.points: Optional[pa.Table] = _table(raw.get("points"))
        self.outcome: dict = json.loads(raw["outcome"])
        self.out: Optional[Path] = Path(self.outcome["out"]) if keep else None

    def __repr__(self) -> str:
        o = self.outcome
        return f"<gpufleet.SweepResult {o['sweep']!r}: {o['runs']} runs, {o['points']} points>"


def run(scenario: ScenarioLike = None, seed: Optional[int] = None, *,
        out: Union[str, "os.PathLike[str]", None] = None, format: Optional[str] = None,
        **overrides: Any) -> RunResult:
    """Runs a scenario and returns its :class:`RunResult`.

    Args:
        scenario: a path, TOML text, a dict, or ``None`` for the built-in quickstart.
        seed: the master seed (default: the scenario's ``seed``).
        out: also write the run's output folder there, as ``gpufleet run --out`` does.
        format: the folder's table files, ``"csv"``, ``"parquet"`` or ``"both"``
            (default: the scenario's ``output_format``, else CSV).
        **overrides: fields to set before validation, by dotted path
            (``**{"scheduler.policy": "sjf"}``, or ``scheduler__policy="sjf"``).

    Raises:
        ScenarioError: the scenario (or an override) is not valid, or its trace cannot
            be read; the message is the one ``gpufleet run`` prints. Also a path
            (``scenario``, ``out``) holding a NUL byte, and an override or scenario dict
            that holds itself, nests more than :data:`MAX_DEPTH` deep or comes to more
            than 16 MiB written out (a part used in several places counts in each).
        OSError: the output folder cannot be written.
        ValueError: ``seed`` is negative or more than ``2**64 - 1``, or ``format``
            without ``out``.
        TypeError: ``seed`` is not an integer (a bool is not one).
    """
    if seed is not None:
        seed = _int_arg("seed", seed, 2**64 - 1)
    if format is not None and out is None:
        raise ValueError("format: chooses the files of the output folder; give out too")
    out = None if out is None else _path_arg("out", out)
    text, file, base = _source(scenario)
    raw = _gpufleet.run(text, file, base, seed, _overrides(overrides), out, format)
    return RunResult(raw)


def validate(scenario: ScenarioLike, **overrides: Any) -> dict:
    """Checks a scenario without running it (its trace is read); returns what
    ``gpufleet validate --json`` prints: ``ok``, ``file``, ``scenario``, ``pools``,
    ``gpus``, ``jobs``, ``policy``, ``skipped_rows``, ``dropped``.

    Raises:
        ScenarioError: with the message ``gpufleet validate`` prints.
    """
    text, file, base = _source(scenario)
    return json.loads(_gpufleet.validate(text, file, base, _overrides(overrides)))


def sweep(sweep_file: Union[str, "os.PathLike[str]", Mapping[str, Any]], *,
          out: Union[str, "os.PathLike[str]", None] = None, threads: int = 0,
          resume: bool = False, shard: Optional[str] = None, charts: bool = True,
          format: Optional[str] = None) -> SweepResult:
    """Runs a parameter sweep and returns its :class:`SweepResult`.

    Args:
        sweep_file: a sweep file (path), its TOML text, or a dict (its ``scenario`` path
            is then relative to the working directory).
        out: the sweep folder (``runs.csv``, ``points.csv``, ``sweep.json``, per-run
            records, charts); default: a temporary folder, removed afterwards.
        threads: worker threads (0: every core; at most :data:`MAX_THREADS`, 1024, as
            ``gpufleet sweep --threads``).
        resume: keep runs already recorded in ``out``.
        shard: ``"K/N"`` to run one shard only.
        charts: draw the sweep's charts into ``out``.
        format: ``"parquet"`` or ``"both"`` also writes ``runs.parquet`` and
            ``points.parquet``.

    Raises:
        ScenarioError: the sweep file or a point's scenario is not valid, or a path
            (``sweep_file``, ``out``) holds a NUL byte.
        ValueError: ``threads`` is negative or more than :data:`MAX_THREADS`, or
            ``resume`` or ``format`` without ``out``.
        TypeError: ``sweep_file`` is None, or ``threads`` is not an integer (a bool is
            not one).
    """
    if sweep_file is None:
        raise TypeError("sweep_file must be a path, TOML text or a dict, not None")
    threads = _int_arg("threads", threads, MAX_THREADS)
    if resume and out is None:
        raise ValueError("resume: needs out, the sweep folder whose runs to keep")
    if format is not None and out is None:
        raise ValueError("format: chooses the files of the output folder; give out too")
    out = None if out is None else _path_arg("out", out)
    text, file, base = _source(sweep_file, "sweep", "sweep_file")
    if out is not None:
        raw = _gpufleet.sweep(text, file, base, out, threads, resume, shard, charts, format)
        return SweepResult(raw, keep=True)
    with tempfile.TemporaryDirectory(prefix="gpufleet-sweep-") as tmp:
        raw = _gpufleet.sweep(text, file, base, tmp, threads, False, shard, False, format)
        return SweepResult(raw, keep=False)


#: True when this build has ``gpufleet.plan`` (goal-seeking fleet search).
HAS_PLAN: bool = hasattr(_gpufleet, "plan")
#: True when this build has ``gpufleet.compare`` (paired comparisons).
HAS_COMPARE: bool = hasattr(_gpufleet, "compare")

if HAS_PLAN:  # pragma: no cover - arrives with `gpufleet plan`
    plan = _gpufleet.plan
    __all__.append("plan")
if HAS_COMPARE:  # pragma: no cover - arrives with `gpufleet compare`
    compare = _gpufleet.compare
    __all__.append("compare")
