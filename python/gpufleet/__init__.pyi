"""Type stubs of the gpufleet package (see ``gpufleet/__init__.py`` for the docs)."""

import os
from pathlib import Path
from typing import Any, Mapping, Optional, Union

import pyarrow as pa

__version__: str
DEFAULT_SCENARIO: str
HAS_PLAN: bool
HAS_COMPARE: bool
MAX_THREADS: int
MAX_DEPTH: int

ScenarioLike = Union[str, os.PathLike[str], Mapping[str, Any], None]
PathLike = Union[str, os.PathLike[str]]

class ScenarioError(ValueError):
    """A scenario, sweep or override that is not valid; the message is the command
    line's (file, line, column, field, the offending text underlined)."""

class RunResult:
    """One run: ``summary`` (summary.json as a dict) and the tables as pyarrow tables."""

    summary: dict[str, Any]
    jobs: pa.Table
    pools: pa.Table
    timeline: pa.Table
    seed: int
    scenario: str
    out: Optional[Path]

class SweepResult:
    """A sweep: ``runs`` (runs.csv) and ``points`` (points.csv) as pyarrow tables."""

    runs: pa.Table
    points: Optional[pa.Table]
    outcome: dict[str, Any]
    out: Optional[Path]

def run(
    scenario: ScenarioLike = None,
    seed: Optional[int] = None,
    *,
    out: Optional[PathLike] = None,
    format: Optional[str] = None,
    **overrides: Any,
) -> RunResult:
    """Runs a scenario (path, TOML text, dict or None for the quickstart) under ``seed``;
    ``overrides`` set fields by dotted path before validation."""

def validate(scenario: ScenarioLike, **overrides: Any) -> dict[str, Any]:
    """Checks a scenario without running it; returns ``gpufleet validate --json``'s
    object; raises :class:`ScenarioError`."""

def sweep(
    sweep_file: Union[PathLike, Mapping[str, Any]],
    *,
    out: Optional[PathLike] = None,
    threads: int = 0,
    resume: bool = False,
    shard: Optional[str] = None,
    charts: bool = True,
    format: Optional[str] = None,
) -> SweepResult:
    """Runs a parameter sweep (into ``out``, or a temporary folder)."""
