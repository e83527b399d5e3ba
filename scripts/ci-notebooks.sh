#!/usr/bin/env bash
# In a virtual environment built from the pinned notebooks/requirements.txt: builds the
# gpufleet Python package (python/, maturin, release) and installs it, runs its pytest suite
# (python/tests: the package against the CLI, Parquet read back by pyarrow, polars and
# DuckDB), then executes every notebook under notebooks/ headless, and fails if a test or
# any cell of any notebook fails. The executed copies go to a temporary folder: the
# committed notebooks are never overwritten (and must be committed without outputs, which
# this script checks too). The tests call target/release/gpufleet (GPUFLEET_BIN), which
# `cargo test --release` builds; this script builds it if it is missing.
#
#   bash scripts/ci-notebooks.sh
#
# Environment: NOTEBOOK_VENV (default .venv-notebooks in the repository; rebuilt when
# notebooks/requirements.txt changes), PYTHON (default python3, 3.11 here),
# GPUFLEET_RESULTS (default: the repository's results/).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${NOTEBOOK_VENV:-$PWD/.venv-notebooks}"
PY="${PYTHON:-python3}"

# The venv remembers the requirements it was built from; any change rebuilds it.
if ! cmp -s notebooks/requirements.txt "$VENV/requirements.txt" 2>/dev/null; then
  echo "== creating $VENV from notebooks/requirements.txt"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r notebooks/requirements.txt
  cp notebooks/requirements.txt "$VENV/requirements.txt"
fi
# The package, built from source as the README's `pip install ./python` does (with the
# pinned maturin of the venv as the build backend), into the workspace's target/ so the
# gpufleet crate compiled for `cargo test --release` is reused; installed over any older one.
echo "== building and installing the gpufleet package (pip install ./python)"
PATH="$VENV/bin:$PATH" "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-build-isolation \
  --force-reinstall --no-deps ./python
"$VENV/bin/python" -c 'import gpufleet; print("gpufleet", gpufleet.__version__, "installed")'
export GPUFLEET_BIN="${GPUFLEET_BIN:-$PWD/target/release/gpufleet}"
if [ ! -x "$GPUFLEET_BIN" ]; then
  cargo build --release --quiet
fi
echo "== python/tests (pytest)"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider python/tests

# A python3 kernel inside the venv, so nbconvert runs the cells with the venv's packages.
"$VENV/bin/python" -m ipykernel install --sys-prefix --name python3 \
  --display-name "Python 3 (gpufleet notebooks)" >/dev/null

# Committed notebooks carry no outputs (small diffs, no stale figures).
"$VENV/bin/python" - notebooks/*.ipynb <<'PY'
import json, sys
bad = [p for p in sys.argv[1:]
       if any(c.get("outputs") or c.get("execution_count") for c in json.load(open(p))["cells"]
              if c["cell_type"] == "code")]
if bad:
    sys.exit("notebooks committed with outputs (clear them: jupyter nbconvert --clear-output --inplace): "
             + ", ".join(bad))
PY

OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
passed=0
failed=0
for nb in notebooks/*.ipynb; do
  echo "== executing $nb"
  if "$VENV/bin/jupyter" nbconvert --to notebook --execute \
    --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=600 \
    --output-dir "$OUT" "$nb"; then
    passed=$((passed + 1))
  else
    echo "FAILED: $nb"
    failed=$((failed + 1))
  fi
done
echo "notebooks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
