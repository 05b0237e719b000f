#!/usr/bin/env python3
"""Leave-one-source-family-out cross-validation of the calibrated training model.

For each source family (the source_id up to its first '-': DGXC, MBRIDGE, NEMO, ...), fits the
efficiencies with `gpuplan calibrate` on the other families only, then scores the held-out family with
`gpuplan validate`. The pooled held-out errors estimate how the model does on rows it was not fitted on.

usage: tools/cross_validate.py [--gpuplan build/gpuplan] [--dataset ../shared/data/benchmarks/training.csv]
"""
import argparse, csv, json, os, statistics, subprocess, sys, tempfile

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--gpuplan", default="build/gpuplan")
ap.add_argument("--dataset", default="../shared/data/benchmarks/training.csv")
args = ap.parse_args()

with open(args.dataset, newline="") as f:
    rows = list(csv.DictReader(f))
header = list(rows[0].keys())
family = lambda r: r["source_id"].split("-")[0]
pooled = []
with tempfile.TemporaryDirectory() as tmp:
    train, test, cat = (os.path.join(tmp, n) for n in ("train.csv", "test.csv", "catalog"))
    os.makedirs(cat)
    for fam in sorted({family(r) for r in rows}):
        for path, part in ((train, [r for r in rows if family(r) != fam]), (test, [r for r in rows if family(r) == fam])):
            with open(path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=header)
                w.writeheader()
                w.writerows(part)
        subprocess.run([args.gpuplan, "calibrate", "--dataset", train, "--write", os.path.join(cat, "efficiency.yaml")],
                       check=True, capture_output=True)
        out = subprocess.run([args.gpuplan, "validate", "--dataset", test, "--catalog", cat, "--json"],
                             check=True, capture_output=True, text=True).stdout
        errs = [r["ape_pct"] for r in json.loads(out)["rows"]]
        pooled += errs
        print(f"held out {fam:<12} {len(errs):>4} rows  median {statistics.median(errs):5.1f}%")
pooled.sort()
p90 = pooled[min(len(pooled) - 1, int(0.9 * (len(pooled) - 1) + 0.5))]
print(f"all held-out rows: median {statistics.median(pooled):.1f}%  p90 {p90:.1f}%  ({len(pooled)} rows)")
