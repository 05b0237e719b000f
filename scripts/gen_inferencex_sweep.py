#!/usr/bin/env python3
"""Writes data/serving/inferencex_sweep.yaml: InferenceX's disaggregated sweep entries through its history.

InferenceX runs each multi-node (disaggregated) deployment its NVIDIA master config lists: per entry the
model, runner, precision, framework, lengths, speculative decoding, both pools (workers, TP, EP,
attention-DP) and the client counts. This script reads every commit of that file in a local clone
(.github/configs/nvidia-master.yaml, later configs/nvidia-master.yaml) and writes one row per entry and
span of dates it stood in the file: in force on a date D when it is in the last commit of D or before.

Usage: scripts/gen_inferencex_sweep.py GIT_DIR > data/serving/inferencex_sweep.yaml
(GIT_DIR: a clone of github.com/SemiAnalysisAI/InferenceX, or its bare git directory)
"""
import re
import subprocess
import sys

import yaml

PATHS = (".github/configs/nvidia-master.yaml", "configs/nvidia-master.yaml")
# InferenceX's model prefixes as the catalog names them (others: not written).
MODELS = {"dsr1": "deepseek-r1", "gptoss": "gpt-oss-120b", "glm5": "glm-5", "kimik2.5": "kimi-k2.5",
          "qwen3.5": "qwen3.5-397b-a17b", "minimaxm2.5": "minimax-m2"}
ENGINES = {"dynamo-trt": "dynamo+tensorrt-llm", "dynamo-sglang": "dynamo+sglang"}


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, text=True, check=False)


def pool(p, decode):
    out = {"workers": int(p["num-worker"]), "tp": int(p["tp"]), "ep": int(p.get("ep") or 1),
           "attention_dp": bool(p.get("dp-attn"))}
    return out


def settings(s):
    """Decode batch cap and MTP draft tokens from the entry's CONFIG_FILE (srt-slurm recipe names)."""
    text = " ".join(str(x) for side in ("prefill", "decode") for x in (s.get(side, {}).get("additional-settings") or []))
    files = re.findall(r"CONFIG_FILE=(\S+)", text)
    name = files[0].rsplit("/", 1)[-1] if len(files) == 1 else ""
    batch = re.search(r"_batch(\d+)_", name)
    mtp = re.search(r"_mtp(\d+)", name)
    return (files[0] if len(files) == 1 else ""), (int(batch.group(1)) if batch else 0), (int(mtp.group(1)) if mtp else 0)


def entries(doc):
    for name, c in (doc or {}).items():
        if not isinstance(c, dict) or not c.get("disagg"):
            continue
        model = MODELS.get(str(c.get("model-prefix")))
        engine = ENGINES.get(str(c.get("framework")))
        if not model or not engine:
            continue
        for sl in c.get("seq-len-configs") or []:
            for s in sl.get("search-space") or []:
                if "prefill" not in s or "decode" not in s:
                    continue
                if not s["prefill"].get("num-worker") or not s["decode"].get("num-worker"):
                    continue  # a pool of 0 workers: not a disaggregated deployment
                config_file, batch, drafts = settings(s)
                spec = str(s.get("spec-decoding", "none"))
                if spec not in ("none", "mtp"):
                    continue
                d = pool(s["decode"], True)
                if batch:
                    d["max_batch"] = batch
                yield {
                    "name": name, "model": model, "gpu": str(c["runner"]).split("-")[0],
                    "precision": str(c["precision"]), "engine": engine, "isl": int(sl["isl"]), "osl": int(sl["osl"]),
                    "mtp": spec == "mtp", "mtp_draft_tokens": drafts if spec == "mtp" else 0,
                    "prefill": pool(s["prefill"], False), "decode": d,
                    "concurrencies": sorted(int(x) for x in s.get("conc-list") or []), "config_file": config_file,
                }


def key(e):
    return yaml.safe_dump(e, sort_keys=True)


def main():
    gitdir = sys.argv[1]
    log = git(gitdir, "log", "--format=%H %cs", "--reverse", "--", *PATHS).stdout.split()
    commits = list(zip(log[0::2], log[1::2]))
    # The file as of each day's last commit.
    by_day = {}
    for h, day in commits:
        by_day[day] = h
    open_spans = {}  # key -> (entry, from, commit)
    rows = []
    last_day = None
    for day in sorted(by_day):
        h = by_day[day]
        text = None
        for p in PATHS:
            r = git(gitdir, "show", f"{h}:{p}")
            if r.returncode == 0:
                text = r.stdout
                break
        if text is None:
            continue
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError:
            continue  # a commit whose file does not parse: the previous day's entries stay in force
        now = {}
        for e in entries(doc):
            now.setdefault(key(e), e)
        for k in list(open_spans):
            if k not in now:
                e, since, commit = open_spans.pop(k)
                rows.append(dict(e, valid_from=since, valid_until=day, commit=commit))
        for k, e in now.items():
            if k not in open_spans:
                open_spans[k] = (e, day, h)
        last_day = day
    for e, since, commit in open_spans.values():
        rows.append(dict(e, valid_from=since, valid_until=None, commit=commit))
    rows.sort(key=lambda r: (r["model"], r["gpu"], r["precision"], r["engine"], r["isl"], r["osl"], r["valid_from"],
                             r["name"], r["concurrencies"]))
    head = git(gitdir, "log", "-1", "--format=%H %cs", "--", *PATHS).stdout.split()
    print("# InferenceX's disaggregated sweep entries through the history of its NVIDIA master config")
    print("# (.github/configs/nvidia-master.yaml, later configs/nvidia-master.yaml, github.com/SemiAnalysisAI/InferenceX):")
    print("# each entry's deployment (workers, TP, EP, attention-DP of both pools), speculative decoding, client counts,")
    print("# and the decode batch cap and MTP draft tokens its srt-slurm CONFIG_FILE's name states (batchN, mtpN; 0: not")
    print("# stated), with the dates it stood in the file: in force on a date D when it is in the last commit of D or")
    print("# before (valid_from inclusive, valid_until exclusive; null: still there at read_through). `commit`: the")
    print("# first commit of the span. Models the catalog has, the dynamo-trt / dynamo-sglang frameworks and pools of 1 or more\n# workers only.")
    print("# Generated by scripts/gen_inferencex_sweep.py; do not edit by hand.")
    print("schema: gpuplan.inferencex_sweep/v1")
    print("source: SemiAnalysisAI/InferenceX")
    print(f"read_through: {{commit: {head[0]}, date: {head[1]}}}")
    print("entries:")
    for r in rows:
        pre, dec = r["prefill"], r["decode"]
        flow = lambda p: "{" + ", ".join(f"{k}: {str(v).lower() if isinstance(v, bool) else v}" for k, v in p.items()) + "}"
        print(f"  - {{name: {r['name']}, model: {r['model']}, gpu: {r['gpu']}, precision: {r['precision']}, "
              f"engine: {r['engine']}, isl: {r['isl']}, osl: {r['osl']}, mtp: {str(r['mtp']).lower()}, "
              f"mtp_draft_tokens: {r['mtp_draft_tokens']}, prefill: {flow(pre)}, decode: {flow(dec)}, "
              f"concurrencies: [{', '.join(str(c) for c in r['concurrencies'])}], "
              f"valid_from: {r['valid_from']}, valid_until: {r['valid_until'] or 'null'}, commit: {r['commit'][:12]}}}")
    _ = last_day


if __name__ == "__main__":
    main()
