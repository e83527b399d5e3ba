#!/usr/bin/env bash
# Creates a virtual environment with notebooks/requirements.txt and executes every notebook
# under notebooks/ headless; fails if any cell fails. The executed copies go to a temporary
# folder, so the committed notebooks stay unexecuted.
#
#   scripts/run-notebooks.sh [VENV_DIR]      (default: target/notebook-venv)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="$(realpath -m "${1:-target/notebook-venv}")"
if [ ! -x "$VENV/bin/jupyter" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet -r notebooks/requirements.txt
fi
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
for nb in notebooks/*.ipynb; do
  echo "executing $nb"
  (cd notebooks && "$VENV/bin/jupyter" nbconvert --to notebook --execute \
    --ExecutePreprocessor.timeout=300 --output-dir "$OUT" "$(basename "$nb")")
done
echo "notebooks ok"
