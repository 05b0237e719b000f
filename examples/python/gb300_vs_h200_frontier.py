"""GB300 NVL72 against HGX H200 serving Llama 3.1 70B: both throughput/interactivity frontiers into one
pandas DataFrame, a plot of tokens/s per GPU against tokens/s per user (PNG), and the ratio at 50 tokens/s
per user.   python3 examples/python/gb300_vs_h200_frontier.py [OUTPUT_DIR]"""
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed: the plot goes to a file
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import gpuplan  # noqa: E402

out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
workload = dict(model="llama3.1-70b", isl=1024, osl=1024, precision="fp8")
systems = ["gb300-nvl72", "hgx-h200"]

frames = []
for system in systems:
    curve = gpuplan.infer(system=system, sweep=True, **workload)
    frame = gpuplan.to_frame(curve)
    frame["system"] = system
    frames.append(frame)
frontier = pd.concat(frames, ignore_index=True)

fig, ax = plt.subplots(figsize=(7, 4.5))
for system, points in frontier.groupby("system"):
    points = points.sort_values("tokens_per_s_per_user")
    ax.plot(points["tokens_per_s_per_user"], points["tokens_per_s_per_gpu"], marker="o", label=system)
ax.set_xlabel("tokens/s per user (interactivity)")
ax.set_ylabel("tokens/s per GPU (throughput)")
ax.set_title("Llama 3.1 70B, FP8, ISL/OSL 1024/1024")
ax.grid(True, alpha=0.3)
ax.legend()
png = os.path.join(out_dir, "gb300_vs_h200_frontier.png")
fig.savefig(png, dpi=120, bbox_inches="tight")


def at_interactivity(points, tokens_per_s_per_user):
    """Throughput per GPU along the frontier at one interactivity (linear between points; nan outside it)."""
    points = points.sort_values("tokens_per_s_per_user")
    return float(np.interp(tokens_per_s_per_user, points["tokens_per_s_per_user"], points["tokens_per_s_per_gpu"],
                           left=np.nan, right=np.nan))


target = 50.0
rates = {system: at_interactivity(frontier[frontier["system"] == system], target) for system in systems}
print(frontier.groupby("system")[["tokens_per_s_per_gpu", "tokens_per_s_per_user"]].max().to_string())
print("at {:.0f} tokens/s per user: ".format(target)
      + ", ".join("{} {:.0f} tokens/s/GPU".format(s, r) for s, r in rates.items())
      + "; ratio {:.2f}x".format(rates[systems[0]] / rates[systems[1]]))
print("plot:", png)
