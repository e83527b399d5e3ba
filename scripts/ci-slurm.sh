#!/usr/bin/env bash
# Runs a small sweep as a Slurm job array on a single-node Slurm cluster started here on
# localhost (munge + slurmctld + slurmd from Debian's packages, no systemd), merges the
# shards with a dependent job, and compares the result byte for byte with a local run;
# then runs a small plan as one Slurm job and compares its answer the same way.
# The daemons it starts are stopped at the end, also on failure. Needs root.
#
#   scripts/ci-slurm.sh [path/to/gpufleet]     (default: target/release/gpufleet)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="$(realpath "${1:-target/release/gpufleet}")"
SHARDS=3
SWEEP=tests/data/slurm-sweep.toml

if [ "$(id -u)" != 0 ]; then
  echo "ci-slurm: needs root (starts munged, slurmctld and slurmd)" >&2
  exit 1
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  echo "== installing slurm and munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
fi

WORK="$(mktemp -d /tmp/gpufleet-slurm.XXXXXX)"
chmod 755 "$WORK"
MUNGE_PID=/run/munge/munged.pid
MUNGE_STARTED=0

stop_daemons() {
  set +e
  for f in "$WORK/slurmd.pid" "$WORK/slurmctld.pid"; do
    if [ -s "$f" ]; then
      kill "$(cat "$f")" 2>/dev/null
    fi
  done
  sleep 1
  for f in "$WORK/slurmd.pid" "$WORK/slurmctld.pid"; do
    if [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; then
      kill -9 "$(cat "$f")" 2>/dev/null
    fi
  done
  if [ "$MUNGE_STARTED" = 1 ] && [ -s "$MUNGE_PID" ]; then
    kill "$(cat "$MUNGE_PID")" 2>/dev/null
  fi
}
on_exit() {
  rc=$?
  if [ $rc != 0 ]; then
    echo "ci-slurm: FAILED (exit $rc); logs:" >&2
    tail -n 20 "$WORK"/*.log "$WORK"/out/slurm/*.log "$WORK"/plan-out/slurm/*.log 2>/dev/null >&2
  fi
  stop_daemons
  if [ $rc = 0 ]; then rm -rf "$WORK"; fi
  exit $rc
}
trap on_exit EXIT

echo "== munge"
mkdir -p /run/munge /var/lib/munge /var/log/munge /etc/munge
chown munge:munge /run/munge /var/lib/munge /var/log/munge
chmod 755 /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
if ! { [ -s "$MUNGE_PID" ] && kill -0 "$(cat "$MUNGE_PID")" 2>/dev/null; }; then
  runuser -u munge -- munged
  MUNGE_STARTED=1
fi

echo "== slurm (config in $WORK)"
mkdir -p "$WORK/state" "$WORK/spool"
export SLURM_CONF="$WORK/slurm.conf"
cat > "$SLURM_CONF" <<CONF
ClusterName=gpufleet-ci
SlurmctldHost=localhost
SlurmUser=root
SlurmctldPort=6917
SlurmdPort=6918
AuthType=auth/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) State=UNKNOWN
PartitionName=ci Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -c
slurmd -N localhost
for i in $(seq 1 60); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then break; fi
  sleep 0.5
done
sinfo -h -o '%T' | grep -qx idle || { echo "node never became idle" >&2; sinfo >&2; exit 1; }
echo "node idle"

echo "== local reference run"
"$BIN" sweep "$SWEEP" --out "$WORK/local" --quiet --threads 2

echo "== sweep as a job array of $SHARDS tasks + merge"
# The sbatch arguments go into the scripts' #SBATCH lines (with an estimated --mem), so a
# task resubmitted alone keeps them; --dry-run shows them.
SBATCH_ARGS=(--sbatch-arg=--partition=ci --sbatch-arg=--time=00:30:00)
"$BIN" sweep "$SWEEP" --out "$WORK/dry" --slurm --shards $SHARDS --threads 1 "${SBATCH_ARGS[@]}" --dry-run | tee "$WORK/dry.txt"
grep -q '#SBATCH --time=00:30:00' "$WORK/dry.txt"
grep -q '^#SBATCH --partition=ci$' "$WORK/dry/slurm/array.sh"
grep -q '^#SBATCH --mem=[0-9]*M$' "$WORK/dry/slurm/array.sh"
ids=$("$BIN" sweep "$SWEEP" --out "$WORK/out" --slurm --shards $SHARDS --threads 1 "${SBATCH_ARGS[@]}" | tail -n 1)
read -r ARRAY MERGE <<<"$ids"
echo "array job $ARRAY, merge job $MERGE"
for i in $(seq 1 600); do
  if [ -z "$(squeue -h -j "$ARRAY,$MERGE" 2>/dev/null)" ]; then break; fi
  sleep 0.5
done
if [ -n "$(squeue -h -j "$ARRAY,$MERGE" 2>/dev/null)" ]; then
  echo "jobs still queued after 300 s" >&2; squeue >&2; exit 1
fi
for k in $(seq 1 $SHARDS); do
  state=$(scontrol show job "${ARRAY}_$k" | grep -o 'JobState=[A-Z_]*')
  echo "task $k: $state"
  [ "$state" = JobState=COMPLETED ] || exit 1
done
state=$(scontrol show job "$MERGE" | grep -o 'JobState=[A-Z_]*')
echo "merge: $state"
[ "$state" = JobState=COMPLETED ] || exit 1

echo "== the tasks ran with the scripts' time limit and memory"
show=$(scontrol show job "${ARRAY}_1")
echo "$show" | grep -q 'TimeLimit=00:30:00' || { echo "task 1 lost its time limit: $show" >&2; exit 1; }
echo "$show" | grep -q 'Partition=ci' || { echo "task 1 lost its partition: $show" >&2; exit 1; }
echo "$show" | grep -Eq 'MinMemoryNode=[0-9]+M' || { echo "task 1 has no memory request: $show" >&2; exit 1; }
echo "== one task resubmitted alone keeps them (and resumes: nothing left to run)"
again=$(sbatch --parsable --array=1 "$WORK/out/slurm/array.sh" | cut -d';' -f1)
scontrol show job "${again}_1" 2>/dev/null | grep -q 'TimeLimit=00:30:00' \
  || scontrol show job "$again" | grep -q 'TimeLimit=00:30:00' \
  || { echo "resubmitted task lost its time limit" >&2; scontrol show job "$again" >&2; exit 1; }
for i in $(seq 1 240); do
  if [ -z "$(squeue -h -j "$again" 2>/dev/null)" ]; then break; fi
  sleep 0.5
done
state=$(scontrol show job "$again" | grep -o 'JobState=[A-Z_]*' | head -n 1)
echo "resubmitted task: $state"
[ "$state" = JobState=COMPLETED ] || exit 1

echo "== compare with the local run"
for f in runs.csv points.csv sweep.json; do
  cmp "$WORK/local/$f" "$WORK/out/$f"
  echo "$f identical"
done
echo "== plan as one Slurm job, compared with a local run"
PLAN=tests/data/slurm-plan.toml
"$BIN" plan "$PLAN" --out "$WORK/plan-local" --quiet --threads 2 >/dev/null
JOB=$("$BIN" plan "$PLAN" --out "$WORK/plan-out" --slurm --threads 1 | tail -n 1)
echo "plan job $JOB"
for i in $(seq 1 600); do
  if [ -z "$(squeue -h -j "$JOB" 2>/dev/null)" ]; then break; fi
  sleep 0.5
done
state=$(scontrol show job "$JOB" | grep -o 'JobState=[A-Z_]*')
echo "plan: $state"
[ "$state" = JobState=COMPLETED ] || exit 1
for f in plan.json candidates.csv fleets.csv; do
  cmp "$WORK/plan-local/$f" "$WORK/plan-out/$f"
  echo "plan $f identical"
done
echo "ci-slurm: ok"
