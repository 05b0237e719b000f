#!/usr/bin/env python3
"""Leave-one-source-family-out cross-validation of the calibrated training model, and the error bands.

Runs `gpuplan calibrate --bands`, which does in C++ what this script used to do by hand: for each source
family (the source_id up to its first '-': DGXC, MBRIDGE, NEMO, ...) it fits the efficiencies on the other
families only (starting from the priors) and predicts the held-out family's rows. A generation that no
other family measures is predicted with the priors (the error of an unmeasured generation; the old script
kept the built-in fit there, which had seen the held-out rows). The held-out residuals give the error bands
of data/catalog/error_bands.yaml; the coverage is checked with each family's rows against bands fitted
without them.

usage: tools/cross_validate.py [--gpuplan build/gpuplan] [--dataset ../shared/data/benchmarks/training.csv]
                               [--serving FILE ...] [--write-bands data/catalog/error_bands.yaml]
"""
import argparse, json, subprocess

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--gpuplan", default="build/gpuplan")
ap.add_argument("--dataset", default="../shared/data/benchmarks/training.csv")
ap.add_argument("--serving", action="append", default=[])
ap.add_argument("--write-bands", default="")
args = ap.parse_args()

cmd = [args.gpuplan, "calibrate", "--bands", "--dataset", args.dataset, "--json"]
for s in args.serving:
    cmd += ["--serving", s]
if args.write_bands:
    cmd += ["--write-bands", args.write_bands]
j = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
h, a = j["training_held_out"], j["training_held_out_with_unmeasured_generations"]
print(f"training rows held out by source family: median {h['median_ape_pct']:.1f}%  p90 {h['p90_ape_pct']:.1f}%  "
      f"({h['rows']} rows whose generation another family measures)")
print(f"  with rows of generations only the held-out family measures (priors): median {a['median_ape_pct']:.1f}%  "
      f"p90 {a['p90_ape_pct']:.1f}%  ({a['rows']} rows)")
print("coverage of the nominal 80% bands, each family against bands fitted without it:")
for kind, c in sorted(j["coverage_lofo"].items()):
    print(f"  {kind:<34} {100 * c['share']:5.1f}%  of {c['rows']:>5} rows  (in-sample {100 * c['in_sample_share']:.1f}%)")
