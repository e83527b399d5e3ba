#!/usr/bin/env bash
# Regenerates results/: the outputs of the canonical scenarios and sweeps.
#
#   scripts/regenerate-results.sh            # rewrite results/
#   scripts/regenerate-results.sh --check    # regenerate into a temporary folder and fail if
#                                            # any summary (JSON/CSV) differs from results/
#
# To add a canonical result, add a line to CANONICAL below:
#   run   <name> <scenario file>     -> results/<name>/  (gpufleet run, scenario's seed)
#   sweep <name> <sweep file>        -> results/<name>/  (gpufleet sweep)
#   tco   <name> <scenario file>     -> results/<name>/  (gpufleet tco --simulate)
#   plan  <name> <plan file>         -> results/<name>/  (gpufleet plan)
#   compare <name> <compare file>    -> results/<name>/  (gpufleet compare)
# Hooks for results that depend on other work, to be added as their scenarios land:
#   none at the moment.
set -euo pipefail
cd "$(dirname "$0")/.."

CANONICAL=(
  "run quickstart scenarios/quickstart.toml"
  "run llama3-scale-failures scenarios/llama3-scale-failures.toml"
  "run buy-vs-rent-h100 scenarios/buy-vs-rent-h100.toml"
  "run reserved-vs-on-demand scenarios/reserved-vs-on-demand.toml"
  "run spot-deadline-v100 scenarios/spot-deadline-v100.toml"
  "tco buy-vs-rent-h100-tco scenarios/buy-vs-rent-h100.toml"
  "run spot-checkpointing scenarios/spot-checkpointing.toml"
  "run commitments-in-time scenarios/commitments-in-time.toml"
  "run fgd-openb-default scenarios/fgd-openb-default.toml"
  "run fgd-openb-gpushare40 scenarios/fgd-openb-gpushare40.toml"
  "run compare-schedulers-openb scenarios/compare-schedulers-openb.toml"
  "sweep quickstart-mix scenarios/sweeps/quickstart-mix.toml"
  "sweep quickstart-policies scenarios/sweeps/quickstart-policies.toml"
  "run data-gravity scenarios/data-gravity.toml"
  "sweep data-gravity-sweep scenarios/sweeps/data-gravity.toml"
  "run topology scenarios/topology.toml"
  "sweep topology-sweep scenarios/sweeps/topology.toml"
  "run heterogeneous scenarios/heterogeneous.toml"
  "sweep heterogeneous-sweep scenarios/sweeps/heterogeneous.toml"
  "plan plan-h100-team scenarios/plan-h100-team.toml"
  "plan plan-procurement scenarios/plan-procurement.toml"
  "plan plan-deadline-spot scenarios/plan-deadline-spot.toml"
  "compare mm1-fifo-vs-sjf scenarios/compare/mm1-fifo-vs-sjf.toml"
  "compare swf-nasa-estimates scenarios/compare/swf-nasa-estimates.toml"
  "compare philly-policies scenarios/compare/philly-policies.toml"
  "compare tiresias-policies scenarios/compare/tiresias-policies.toml"
  "compare helios-policies scenarios/compare/helios-policies.toml"
)
# The files compared by --check (charts are redrawn from these).
SUMMARIES="summary.json pools.csv jobs.csv timeline.csv sweep.json runs.csv points.csv allocation.csv comparison.csv fragmentation.csv tco.csv tco_years.csv commitments.csv plan.json candidates.csv fleets.csv frontier.csv plan.md compare.csv differences.csv distributions.csv compare.json"

check=0
[ "${1:-}" = "--check" ] && check=1
cargo build --release --quiet
BIN=target/release/gpufleet
if [ $check = 1 ]; then
  DEST="$(mktemp -d)"
  trap 'rm -rf "$DEST"' EXIT
else
  DEST=results
fi
mkdir -p "$DEST"

for entry in "${CANONICAL[@]}"; do
  read -r kind name file <<<"$entry"
  out="$DEST/$name"
  rm -rf "$out"
  case $kind in
    run) "$BIN" run "$file" --out "$out" --quiet >/dev/null ;;
    sweep)
      "$BIN" sweep "$file" --out "$out" --quiet
      rm -rf "$out/runs"   # per-run records: runs.csv holds the same figures
      ;;
    tco) "$BIN" tco "$file" --simulate --out "$out" >/dev/null ;;
    plan)
      "$BIN" plan "$file" --out "$out" --quiet >/dev/null
      rm -rf "$out/runs"   # per-replication records: candidates.csv holds the same figures
      ;;
    compare) "$BIN" -q compare "$file" --out "$out" >/dev/null ;;
    *) echo "unknown kind $kind" >&2; exit 1 ;;
  esac
  echo "$name: $out"
done

if [ $check = 1 ]; then
  bad=0
  for entry in "${CANONICAL[@]}"; do
    read -r kind name file <<<"$entry"
    for f in $SUMMARIES; do
      if [ -f "$DEST/$name/$f" ] || [ -f "results/$name/$f" ]; then
        if ! cmp -s "$DEST/$name/$f" "results/$name/$f"; then
          echo "results/$name/$f differs from a fresh run: run scripts/regenerate-results.sh and commit" >&2
          bad=1
        fi
      fi
    done
  done
  [ $bad = 0 ] && echo "results/ is up to date"
  exit $bad
fi
