"""Shared helpers of the Python module's tests: the built package (PYTHONPATH=build/python, set by ctest)
and the built `gpuplan` binary (GPUPLAN_BINARY) whose --json the module's results must equal."""
import json
import os
import shlex
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("GPUPLAN_BINARY", os.path.join(ROOT, "build", "gpuplan"))
CLUSTER = os.path.join(ROOT, "examples", "clusters", "hgx-h100-256.yaml")
DATASET = os.path.join(ROOT, "tests", "cli", "data", "training-5-rows.csv")

# One quick run of each command the module names: (function, positional, keyword options, CLI arguments).
COMMANDS = [
    ("train", (), {"model": "llama3.1-8b", "system": "hgx-h100", "gpus": 8, "global_batch": 64, "seq": 4096},
     "train --model llama3.1-8b --system hgx-h100 --gpus 8 --global-batch 64 --seq 4096"),
    ("search", (), {"model": "llama3.1-8b", "system": "hgx-h100", "gpus": 8, "global_batch": 64},
     "search --model llama3.1-8b --system hgx-h100 --gpus 8 --global-batch 64"),
    ("infer", (), {"model": "llama3.1-70b", "system": "hgx-h200", "isl": 8192, "osl": 1024},
     "infer --model llama3.1-70b --system hgx-h200 --isl 8192 --osl 1024"),
    ("infer", (), {"model": "llama3.1-70b", "system": "gb300-nvl72", "sweep": True, "tokens_per_user_per_s": 50},
     "infer --model llama3.1-70b --system gb300-nvl72 --sweep --tokens-per-user-per-s 50"),
    ("infer", (), {"model": "llama3.1-8b", "system": "hgx-h100", "requests_per_s": 20, "gpus": 8, "tp": 1, "draws": 20},
     "infer --model llama3.1-8b --system hgx-h100 --requests-per-s 20 --gpus 8 --tp 1 --draws 20"),
    ("compare", ("gb300-nvl72", "hgx-h200"), {}, "compare gb300-nvl72 hgx-h200"),
    ("recommend", (), {"model": "llama3.1-8b"}, "recommend --model llama3.1-8b"),
    ("cost", (), {}, "cost"),
    ("site", (), {"power_mw": 1}, "site --power-mw 1"),
    ("goodput", (), {}, "goodput"),
    ("size", (), {"model": "deepseek-r1", "requests_per_s": 5, "systems": ["gb200-nvl72"], "draws": 50},
     "size --model deepseek-r1 --requests-per-s 5 --systems gb200-nvl72 --draws 50"),
    ("schedule", (), {"cluster": CLUSTER}, "schedule --cluster " + CLUSTER),
    ("validate", (), {"dataset": DATASET}, "validate --dataset " + DATASET),
    ("catalog", ("list",), {}, "catalog list"),
    ("catalog", ("show", "h100-sxm"), {}, "catalog show h100-sxm"),
    ("model", ("list",), {}, "model list"),
    ("model", ("show", "llama3.1-8b"), {}, "model show llama3.1-8b"),
    ("memory", (), {"model": "llama3.1-8b"}, "memory --model llama3.1-8b"),
    ("scale", (), {"model": "llama3.1-8b", "system": "hgx-h100", "gpus": "8,16", "mode": "weak", "batch_per_gpu": 1},
     "scale --model llama3.1-8b --system hgx-h100 --gpus 8,16 --mode weak --batch-per-gpu 1"),
    ("fabric", (), {"system": "hgx-h100", "gpus": 1024}, "fabric --system hgx-h100 --gpus 1024"),
]


def command_id(entry):
    return entry[3].split(" --")[0].replace(" " + ROOT, "")


def cli_json(arguments):
    """The built binary's --json document for `gpuplan ARGUMENTS`, and its exit code."""
    if not os.path.exists(BINARY):
        pytest.fail("the gpuplan binary is not built at " + BINARY + " (set GPUPLAN_BINARY)")
    result = subprocess.run([BINARY] + shlex.split(arguments) + ["--json"], capture_output=True, text=True,
                            timeout=300, check=False)
    return json.loads(result.stdout), result.returncode


def require(command):
    """Skips, naming the gap, where the API (src/api) does not answer `command` yet (the CLI still does)."""
    import gpuplan
    if command not in gpuplan.commands():
        pytest.skip("the API (src/api/api.cc) does not answer '" + command + "' yet")
