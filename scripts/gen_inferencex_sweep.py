#!/usr/bin/env python3
"""Writes data/serving/inferencex_sweep.yaml: InferenceX's sweep entries through its config's history.

InferenceX runs each deployment its NVIDIA master config lists: per entry the model, runner, precision,
framework, container image, lengths, speculative decoding, the worker's TP, EP and attention-DP (both
pools' and their worker counts for a disaggregated entry) and the client counts. This script reads every
commit of that file in a local clone (.github/configs/nvidia-master.yaml, later configs/nvidia-master.yaml)
and writes one row per entry and span of dates it stood in the file: in force on a date D when it is in
the last commit of D or before.

Usage: scripts/gen_inferencex_sweep.py GIT_DIR > data/serving/inferencex_sweep.yaml
(GIT_DIR: a clone of github.com/SemiAnalysisAI/InferenceX, or its bare git directory)
"""
import datetime
import re
import subprocess
import sys

import yaml

PATHS = (".github/configs/nvidia-master.yaml", "configs/nvidia-master.yaml")
# InferenceX's model prefixes as the catalog names them (others: not written).
MODELS = {"dsr1": "deepseek-r1", "gptoss": "gpt-oss-120b", "glm5": "glm-5", "kimik2.5": "kimi-k2.5",
          "qwen3.5": "qwen3.5-397b-a17b", "minimaxm2.5": "minimax-m2"}
ENGINES = {"dynamo-trt": "dynamo+tensorrt-llm", "dynamo-sglang": "dynamo+sglang"}
SINGLE_NODE_ENGINES = {"trt": "tensorrt-llm", "sglang": "sglang", "vllm": "vllm"}
# The weights as the file compares them: FP8, or 4-bit floating point (fp4, nvfp4); others not written.
PRECISIONS = {"fp8": "fp8", "fp4": "fp4", "nvfp4": "fp4"}


def concurrencies(s):
    """The client counts an entry runs: its conc-list, or conc-start doubling up to conc-end (the end
    included), as InferenceX's utils/matrix_logic/generate_sweep_configs.py expands them (step 2)."""
    if s.get("conc-list"):
        return sorted(int(x) for x in s["conc-list"])
    if s.get("conc-start") is None or s.get("conc-end") is None:
        return []
    out, c, end = [], int(s["conc-start"]), int(s["conc-end"])
    while c <= end:
        out.append(c)
        if c == end:
            break
        c = min(c * 2, end)
    return out


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, text=True, check=False)


# GPUs a node of the runner holds (the NVL72 trays: 4); others 8.
GPUS_PER_NODE = {"gb200": 4, "gb300": 4}


def pool(p, side, runner, framework):
    """A pool's workers and worker layout. Where a Dynamo + SGLang entry gives the worker `tp: 1` and the
    pool's nodes (PREFILL_NODES / DECODE_NODES in its additional-settings: InferenceX's December 2025 to
    February 2026 GB200 entries, whose comments say "tp, ep, and dp-attn do nothing because they are
    hardcoded" in the launched script and name the layouts, "1 prefill worker at DEP4 and 4 decode workers
    at DEP4"), the worker's GPUs are the nodes' GPUs over the workers (`gpus`; tp and ep stay as written).
    The Dynamo + TensorRT-LLM launchers size workers by their TP (gpt-oss's `tp: 1` prefill is one GPU)."""
    out = {"workers": int(p["num-worker"]), "tp": int(p["tp"]), "ep": int(p.get("ep") or 1),
           "attention_dp": bool(p.get("dp-attn"))}
    text = " ".join(str(x) for x in (p.get("additional-settings") or []))
    nodes = re.search(rf"{side.upper()}_NODES=(\d+)", text)
    if framework == "dynamo-sglang" and nodes and out["tp"] == 1 and out["workers"] > 0:
        gpus = int(nodes.group(1)) * GPUS_PER_NODE.get(runner, 8)
        if gpus % out["workers"] == 0 and gpus // out["workers"] > 1:
            out["gpus"] = gpus // out["workers"]
    return out


def settings(s):
    """Decode batch cap and MTP draft tokens from the entry's CONFIG_FILE (srt-slurm recipe names)."""
    text = " ".join(str(x) for side in ("prefill", "decode") for x in (s.get(side, {}).get("additional-settings") or []))
    files = re.findall(r"CONFIG_FILE=(\S+)", text)
    name = files[0].rsplit("/", 1)[-1] if len(files) == 1 else ""
    batch = re.search(r"_batch(\d+)_", name)
    mtp = re.search(r"_mtp(\d+)", name)
    return (files[0] if len(files) == 1 else ""), (int(batch.group(1)) if batch else 0), (int(mtp.group(1)) if mtp else 0)


# Dynamo refs whose TensorRT-LLM performance sweeps (components/backends/trtllm/performance_sweeps) run
# each listed concurrency times the decode workers: scripts/bench.sh `concurrency=$((concurrency *
# num_gen_servers))`. InferenceX's own records of the runs that checked it out agree (102 clients for
# conc-list 34 on 3 decode workers, 256 for 64 on 4: inferencex-deepseek-r1.csv, GB200 2025-12-19). The
# gpt-oss launcher's release/0.5.1-rc0.20260105 passes other arguments, and AIConfigurator's records of
# its runs hold the listed counts (3,072 clients on 3 decode workers), so it is not listed.
PER_WORKER_DYNAMO_REFS = ("release/0.5.1-rc0.20251105",)


def sweeps_launchers(gitdir, h):
    """The benchmark scripts (name without folder, `_slurm` and `.sh`) that commit `h` holds and that run
    Dynamo's TensorRT-LLM performance sweeps at a ref of PER_WORKER_DYNAMO_REFS: their runs' clients are
    the conc-list per decode worker."""
    out = set()
    for line in git(gitdir, "ls-tree", "-r", h, "benchmarks/").stdout.splitlines():
        meta, path = line.split("\t", 1)
        blob, base = meta.split()[2], path.rsplit("/", 1)[-1]
        if not base.endswith(".sh") or "dynamo" not in base:
            continue
        if blob not in _PER_WORKER:
            text = git(gitdir, "cat-file", "-p", blob).stdout
            refs = re.findall(r"git checkout (\S+)", text)
            _PER_WORKER[blob] = "performance_sweeps" in text and any(r in PER_WORKER_DYNAMO_REFS for r in refs)
        if _PER_WORKER[blob]:
            out.add(base[:-3].removesuffix("_slurm"))
    return out


_PER_WORKER = {}  # script blob -> whether its runs' clients are per decode worker


def entries(doc, per_worker_launchers=frozenset()):
    for name, c in (doc or {}).items():
        if not isinstance(c, dict) or not c.get("disagg"):
            continue
        model = MODELS.get(str(c.get("model-prefix")))
        engine = ENGINES.get(str(c.get("framework")))
        precision = PRECISIONS.get(str(c.get("precision")))
        if not model or not engine or not precision:
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
                runner = str(c["runner"]).split("-")[0]
                d = pool(s["decode"], "decode", runner, c.get("framework"))
                if batch:
                    d["max_batch"] = batch
                launcher = f"{c.get('model-prefix')}_{c.get('precision')}_{runner}_{c.get('framework')}"
                yield {
                    "name": name, "model": model, "gpu": str(c["runner"]).split("-")[0],
                    "precision": precision, "engine": engine, "isl": int(sl["isl"]), "osl": int(sl["osl"]),
                    "clients_per_decode_worker": not config_file and launcher in per_worker_launchers,
                    "mtp": spec == "mtp", "mtp_draft_tokens": drafts if spec == "mtp" else 0,
                    "prefill": pool(s["prefill"], "prefill", runner, c.get("framework")), "decode": d,
                    "concurrencies": sorted(int(x) for x in s.get("conc-list") or []), "config_file": config_file,
                }


def single_node_entries(doc):
    for name, c in (doc or {}).items():
        if not isinstance(c, dict) or c.get("disagg") or c.get("multinode"):
            continue
        model = MODELS.get(str(c.get("model-prefix")))
        engine = SINGLE_NODE_ENGINES.get(str(c.get("framework")))
        if not model or not engine:
            continue
        for sl in c.get("seq-len-configs") or []:
            for s in sl.get("search-space") or []:
                spec = str(s.get("spec-decoding") or ("mtp" if name.endswith("-mtp") else "none"))
                conc = concurrencies(s)
                precision = PRECISIONS.get(str(c.get("precision")))
                if spec not in ("none", "mtp") or not s.get("tp") or not conc or not precision:
                    continue
                yield {
                    "name": name, "model": model, "gpu": str(c["runner"]).split("-")[0],
                    "precision": precision, "engine": engine, "image": str(c.get("image") or ""),
                    "isl": int(sl["isl"]), "osl": int(sl["osl"]), "mtp": spec == "mtp", "tp": int(s["tp"]),
                    "ep": int(s.get("ep") or 1), "attention_dp": bool(s.get("dp-attn")), "concurrencies": conc,
                }


def spans(commits, read):
    """Rows of `read(doc)`'s entries with the dates each stood in the file."""
    by_day = {}
    for h, day in commits:
        by_day[day] = h
    open_spans = {}  # key -> (entry, from, commit)
    rows = []
    for day in sorted(by_day):
        doc = read(by_day[day])
        if doc is None:
            continue  # a commit whose file is missing or does not parse: the previous day's entries stay in force
        now = {}
        for e in doc:
            now.setdefault(key(e), e)
        for k in list(open_spans):
            if k not in now:
                e, since, commit = open_spans.pop(k)
                rows.append(dict(e, valid_from=since, valid_until=day, commit=commit))
        for k, e in now.items():
            if k not in open_spans:
                open_spans[k] = (e, day, by_day[day])
    for e, since, commit in open_spans.values():
        rows.append(dict(e, valid_from=since, valid_until=None, commit=commit))
    rows.sort(key=lambda r: (r["model"], r["gpu"], r["precision"], r["engine"], r["isl"], r["osl"], r["valid_from"],
                             r["name"], r["concurrencies"], key(r)))
    return rows


CHANGELOG = "perf-changelog.yaml"


_KEYS = {}  # master config blob -> its top-level keys


def config_keys_at(gitdir, h):
    """The config keys (top-level names) of the NVIDIA master config at commit `h`."""
    for p in PATHS:
        blob = git(gitdir, "rev-parse", "--verify", "--quiet", f"{h}:{p}").stdout.strip()
        if blob:
            if blob not in _KEYS:
                text = git(gitdir, "cat-file", "-p", blob).stdout
                _KEYS[blob] = set(re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*):", text, re.M))
            return _KEYS[blob]
    return set()


def pushes(gitdir, names):
    """InferenceX's sweep runs: each commit on main that added entries to perf-changelog.yaml starts
    .github/workflows/run-sweep.yml on its push (unless its message says [skip-sweep]), and
    utils/process_changelog.py runs every search-space entry of the config keys the added entries name
    (wildcards matched against the master config of that commit; evals-only entries run no benchmark).
    Yields (commit, UTC time of the commit, the keys it ran that are in `names`)."""
    log = git(gitdir, "log", "--first-parent", "--reverse", "--format=%H %ct %P%x09%s", "--", CHANGELOG).stdout
    for line in log.splitlines():
        head, subject = line.split("\t", 1)
        h, t, *parents = head.split()
        if not parents:
            continue
        keys = set()
        if "[skip-sweep]" not in git(gitdir, "log", "-1", "--format=%B", h).stdout:
            diff = git(gitdir, "diff", parents[0], h, "--", CHANGELOG).stdout
            added = "\n".join(l[1:] for l in diff.split("\n") if l.startswith("+") and not l.startswith("+++"))
            try:
                data = yaml.safe_load(added)
            except yaml.YAMLError:
                data = None
            config = config_keys_at(gitdir, h)
            for entry in data if isinstance(data, list) else []:
                if not isinstance(entry, dict) or entry.get("evals-only"):
                    continue
                for k in entry.get("config-keys") or []:
                    pattern = re.compile(re.escape(str(k)).replace(r"\*", ".*"))
                    keys.update(n for n in config if pattern.fullmatch(n))
        stamp = datetime.datetime.fromtimestamp(int(t), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        yield h, stamp, sorted(keys & names)


def key(e):
    return yaml.safe_dump(e, sort_keys=True)


def flow(p):
    return "{" + ", ".join(f"{k}: {str(v).lower() if isinstance(v, bool) else v}" for k, v in p.items()) + "}"


def main():
    gitdir = sys.argv[1]
    log = git(gitdir, "log", "--format=%H %cs", "--reverse", "--", *PATHS).stdout.split()
    commits = list(zip(log[0::2], log[1::2]))
    docs = {}

    def doc_at(h):
        if h not in docs:
            docs[h] = None
            for p in PATHS:
                r = git(gitdir, "show", f"{h}:{p}")
                if r.returncode == 0:
                    try:
                        docs[h] = yaml.safe_load(r.stdout)
                    except yaml.YAMLError:
                        pass
                    break
        return docs[h]

    disagg = spans(commits, lambda h: None if doc_at(h) is None
                   else list(entries(doc_at(h), sweeps_launchers(gitdir, h))))
    single = spans(commits, lambda h: None if doc_at(h) is None else list(single_node_entries(doc_at(h))))
    names = {r["name"] for r in disagg} | {r["name"] for r in single}
    runs = list(pushes(gitdir, names))
    head = git(gitdir, "log", "-1", "--format=%H %cs", "--", *PATHS).stdout.split()
    for line in (
            "InferenceX's sweep entries through the history of its NVIDIA master config (.github/configs/nvidia-master.yaml,",
            "later configs/nvidia-master.yaml, github.com/SemiAnalysisAI/InferenceX), with the dates each stood in the file:",
            "in force on a date D when it is in the last commit of D or before (valid_from inclusive, valid_until",
            "exclusive; null: still there at read_through); `commit`: the first commit of the span. Models the catalog has",
            "and weights fp8 or fp4 (fp4 and nvfp4) only. `entries`: the disaggregated deployments (dynamo-trt,",
            "dynamo-sglang; pools of 1 or more workers): both pools' workers, TP, EP and attention-DP, MTP, client counts",
            "(the config's conc-list), the decode batch cap and MTP draft tokens its srt-slurm CONFIG_FILE's name states",
            "(batchN, mtpN; 0: not stated) and that CONFIG_FILE (empty: none, or several); a pool's `gpus`: the GPUs",
            "of each worker where the config writes tp 1 and the pool's nodes (the layout the launched script",
            "hardcodes); the clients a run of a",
            "CONFIG_FILE had are its body's benchmark.concurrencies (srtctl runs the body; data/recipes/ holds them);",
            "`clients_per_decode_worker`: the entry's launcher ran Dynamo's TensorRT-LLM performance sweeps at a ref",
            "whose bench.sh runs each listed concurrency times the decode workers (PER_WORKER_DYNAMO_REFS).",
            "`single_node`: the single-node entries (trt, sglang, vllm): the container image, the worker's TP, EP",
            "and attention-DP, MTP and the client counts (conc-start doubling to conc-end, as InferenceX's",
            "utils/matrix_logic/generate_sweep_configs.py expands them).",
            "`pushes`: the sweeps InferenceX ran: each commit on main that added entries to perf-changelog.yaml",
            "starts its run-sweep workflow on its push (none where the message says [skip-sweep]), which runs every",
            "entry of the config keys the added entries name (utils/process_changelog.py; wildcards matched against",
            "the master config of that commit; evals-only entries run no benchmark): the commit, its committer time",
            "(UTC) and the keys of those that are names above (empty: it ran none of them)."):
        print("# " + line)
    print("# Generated by scripts/gen_inferencex_sweep.py; do not edit by hand.")
    print("schema: gpuplan.inferencex_sweep/v1")
    print("source: SemiAnalysisAI/InferenceX")
    print(f"read_through: {{commit: {head[0]}, date: {head[1]}}}")
    print("entries:")
    for r in disagg:
        print(f"  - {{name: {r['name']}, model: {r['model']}, gpu: {r['gpu']}, precision: {r['precision']}, "
              f"engine: {r['engine']}, isl: {r['isl']}, osl: {r['osl']}, mtp: {str(r['mtp']).lower()}, "
              f"mtp_draft_tokens: {r['mtp_draft_tokens']}, prefill: {flow(r['prefill'])}, decode: {flow(r['decode'])}, "
              f"concurrencies: [{', '.join(str(c) for c in r['concurrencies'])}], "
              f"config_file: \"{r['config_file']}\", "
              + ("clients_per_decode_worker: true, " if r["clients_per_decode_worker"] else "") +
              f"valid_from: {r['valid_from']}, valid_until: {r['valid_until'] or 'null'}, commit: {r['commit'][:12]}}}")
    print("single_node:")
    for r in single:
        print(f"  - {{name: {r['name']}, model: {r['model']}, gpu: {r['gpu']}, precision: {r['precision']}, "
              f"engine: {r['engine']}, image: \"{r['image']}\", isl: {r['isl']}, osl: {r['osl']}, "
              f"mtp: {str(r['mtp']).lower()}, tp: {r['tp']}, ep: {r['ep']}, attention_dp: {str(r['attention_dp']).lower()}, "
              f"concurrencies: [{', '.join(str(c) for c in r['concurrencies'])}], "
              f"valid_from: {r['valid_from']}, valid_until: {r['valid_until'] or 'null'}, commit: {r['commit'][:12]}}}")
    print("pushes:")
    for h, stamp, keys in runs:
        print(f"  - {{commit: {h[:12]}, time: {stamp}, keys: [{', '.join(keys)}]}}")


if __name__ == "__main__":
    main()
