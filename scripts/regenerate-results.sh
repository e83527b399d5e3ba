#!/usr/bin/env bash
# Regenerates results/: the outputs of the canonical scenarios (and sweeps), from a release
# build. Usage: scripts/regenerate-results.sh [--check]
#   --check  regenerate into a temporary folder and fail if any summary differs from the
#            committed one (CI uses this so results/ never drifts from the code).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN=target/release/gpufleet
OUT=results
CHECK=0
if [[ "${1:-}" == "--check" ]]; then
  CHECK=1
  OUT=$(mktemp -d)
  trap 'rm -rf "$OUT"' EXIT
fi

# Canonical single runs: scenario file -> results/<name>/
RUNS=(
  quickstart
  buy-vs-rent-h100
  reserved-vs-on-demand
  spot-deadline-v100
  llama3-scale-failures
)
for name in "${RUNS[@]}"; do
  "$BIN" run "scenarios/$name.toml" --out "$OUT/$name" --quiet >/dev/null
done

if [[ $CHECK == 1 ]]; then
  status=0
  for name in "${RUNS[@]}"; do
    if ! cmp -s "$OUT/$name/summary.json" "results/$name/summary.json"; then
      echo "results/$name/summary.json differs from a fresh run:" >&2
      diff "results/$name/summary.json" "$OUT/$name/summary.json" >&2 || true
      status=1
    fi
  done
  if [[ $status == 0 ]]; then echo "results/ summaries match the code"; fi
  exit $status
fi
echo "regenerated results/"
