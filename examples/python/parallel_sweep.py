"""Many serving workloads at once: a thread pool evaluates a grid of models x systems x ISL/OSL (each call
releases the GIL), and the results go to one DataFrame (CSV) of throughput per GPU at 50 tokens/s per user.
    python3 examples/python/parallel_sweep.py [OUTPUT_DIR]"""
import concurrent.futures
import itertools
import os
import sys

import pandas as pd

import gpuplan

out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
grid = [dict(model=m, system=s, isl=i, osl=o, tokens_per_user_per_s=50)
        for m, s, (i, o) in itertools.product(["llama3.1-8b", "llama3.1-70b"], ["hgx-h100", "hgx-h200", "b200"],
                                              [(1024, 1024), (8192, 1024), (1024, 8192)])]

with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
    results = list(pool.map(lambda w: gpuplan.infer(**w), grid))

table = pd.DataFrame([dict(w, tokens_per_s_per_gpu=r["tokens_per_s_per_gpu"], ttft_s=r["ttft_s"], tpot_s=r["tpot_s"])
                      for w, r in zip(grid, results)])
print(table.pivot_table(index=["model", "isl", "osl"], columns="system", values="tokens_per_s_per_gpu").round(0))
csv = os.path.join(out_dir, "serving_grid.csv")
table.to_csv(csv, index=False)
print("grid:", csv)
