"""The native module (Rust, PyO3). Use the wrappers in ``gpufleet`` instead."""

from typing import Any, Optional

class ScenarioError(ValueError): ...

def run(
    text: str,
    file: str,
    base: str,
    seed: Optional[int] = None,
    overrides: list[tuple[str, str]] = ...,
    out: Optional[str] = None,
    format: Optional[str] = None,
) -> dict[str, Any]: ...
def validate(
    text: str, file: str, base: str, overrides: list[tuple[str, str]] = ...
) -> str: ...
def sweep(
    text: str,
    file: str,
    base: str,
    out: str,
    threads: int = 0,
    resume: bool = False,
    shard: Optional[str] = None,
    charts: bool = True,
    format: Optional[str] = None,
) -> dict[str, Any]: ...
def default_scenario() -> str: ...
def version() -> str: ...
