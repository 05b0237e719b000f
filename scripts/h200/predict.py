#!/usr/bin/env python3
"""Predicted against measured on one H200: reads what scripts/h200/device-run.sh measured
(the unpacked h200-check-out folder) and asks gpuplan for the same configurations, without and with the
probe's calibration (`--calibration calibration.yaml`). Prints a Markdown table; --json writes the numbers.

  python3 scripts/h200/predict.py DIR [--gpuplan build/gpuplan] [--json out.json]

gpuplan needs no GPU to predict, so this runs anywhere once the measurements are back.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_json(gpuplan, args):
    p = subprocess.run([gpuplan] + args + ["--json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"gpuplan {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="the h200-check-out folder (measured/, calibration.yaml)")
    ap.add_argument("--gpuplan", default=os.path.join(HERE, "..", "..", "build", "gpuplan"))
    ap.add_argument("--system", default="h200-sxm")
    ap.add_argument("--json", dest="json_out")
    a = ap.parse_args()
    calib = os.path.join(a.dir, "calibration.yaml")
    variants = [("datasheet + fitted catalog", [])]
    if os.path.exists(calib):
        variants.append(("with the probe's calibration", ["--calibration", calib]))
    rows, doc = [], {"variants": [v[0] for v in variants]}

    for part, label in (("train", "eager"), ("train_compiled", "layers compiled")):
        path = os.path.join(a.dir, "measured", part + ".json")
        if os.path.exists(path):
            predict_train(a, variants, rows, doc, part, label, json.load(open(path)))
    for part, label in (("decode", "batched GEMM attention"), ("decode_sdpa", "fused attention")):
        path = os.path.join(a.dir, "measured", part + ".json")
        if os.path.exists(path):
            predict_decode(a, variants, rows, doc, part, label, json.load(open(path)))

    print("| what | prediction | predicted | measured | predicted / measured |")
    print("|---|---|---|---|---|")
    for what, name, p, m in rows:
        print(f"| {what} | {name} | {p * 1e3:.2f} ms | {m * 1e3:.2f} ms | {p / m:.2f} |")
    if a.json_out:
        json.dump(doc, open(a.json_out, "w"), indent=1)


def predict_train(a, variants, rows, doc, part, label, train):
    if "step_time_s" in train:
        mbs, seq = train["mbs"], train["seq_len"]
        args = ["train", "--model", os.path.join(HERE, "llama-1b-config.json"), "--system", a.system, "--gpus", "1",
                "--global-batch", str(mbs), "--seq", str(seq), "--precision", "bf16",
                "--plan", f"tp=1,pp=1,mbs={mbs},recompute=none"]
        doc[part] = {"measured_s": train["step_time_s"], "mbs": mbs, "seq": seq, "args": args, "predicted": []}
        for name, extra in variants:
            r = run_json(a.gpuplan, args + extra)
            t = r["step_time_s"] if "step_time_s" in r else r["result"]["step_time_s"]
            doc[part]["predicted"].append({"variant": name, "step_time_s": t})
            rows.append((f"training step ({label}), Llama-style 1.24B, mbs {mbs} x {seq}, BF16", name, t,
                         train["step_time_s"]))
    else:
        doc[part] = {"error": train.get("error", "no measurement")}


def predict_decode(a, variants, rows, doc, part, label, dec):
    if "step_time_eager_s" in dec:
        b, ctx = dec["batch"], dec["context"]
        measured = dec.get("step_time_graph_s", dec["step_time_eager_s"])
        args = ["infer", "--model", os.path.join(HERE, "llama-8b-config.json"), "--system", a.system, "--gpus", "1",
                "--tp", "1", "--precision", "bf16", "--kv-precision", "bf16", "--isl", str(ctx), "--osl", "2",
                "--concurrency", str(b), "--arrival", "synchronized"]
        doc[part] = {"measured_graph_s": dec.get("step_time_graph_s"), "measured_eager_s": dec["step_time_eager_s"],
                         "batch": b, "context": ctx, "args": args, "predicted": []}
        for name, extra in variants:
            r = run_json(a.gpuplan, args + extra)
            s = r["decode_step"]
            doc[part]["predicted"].append({"variant": name, **s})
            rows.append((f"decode step ({label}), Llama 3.1 8B, batch {b}, context {ctx}, BF16 (CUDA graph)", name,
                         s["total_s"], measured))
            rows.append((f"  same, without the per-step overhead term", name, s["total_s"] - s["overhead_s"],
                         measured))
    else:
        doc[part] = {"error": dec.get("error", "no measurement")}


if __name__ == "__main__":
    sys.exit(main())
