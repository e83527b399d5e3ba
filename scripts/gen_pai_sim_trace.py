#!/usr/bin/env python3
"""Writes a synthetic trace in the PAI-2020 simulator's input format (see
src/workload/pai_sim.rs), shaped like that simulator's experiments: mostly one-instance
jobs of 1 GPU, some 2/4/8-GPU and multi-instance jobs, log-normal durations (median
10 min), noisy duration estimates, 100 users with skewed activity.

Usage: scripts/gen_pai_sim_trace.py JOBS SEED > out.csv   (deterministic for a seed)
"""
import math
import random
import sys

def main():
    n = int(sys.argv[1])
    rng = random.Random(int(sys.argv[2]))
    print("job_id,user,gpu_type,num_inst,submit_time,duration,num_cpu,num_gpu,user_dur,group_dur,group_gpu_dur")
    t = 0.0
    types = ["MISC", "T4", "P100", "V100", "V100M32"]
    for j in range(n):
        t += rng.expovariate(1 / 6.0)
        inst = 1 if rng.random() < 0.9 else rng.choice([2, 4, 8, 16])
        gpu = rng.choices([1, 2, 4, 8, 0], weights=[70, 10, 7, 8, 5])[0]
        cpu = rng.choice([4, 6, 8, 12])
        dur = max(1, round(math.exp(math.log(600) + 1.5 * rng.gauss(0, 1))))
        dur = min(dur, 5 * 86400)
        est = [max(1, round(dur * math.exp(0.5 * rng.gauss(0, 1)))) for _ in range(3)]
        user = "u%d" % min(99, int(rng.paretovariate(1.2)) - 1)
        print(f"{j},{user},{rng.choice(types)},{inst},{int(t)},{dur},{cpu},{gpu},{est[0]},{est[1]},{est[2]}")

main()
