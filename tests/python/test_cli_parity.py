"""A Python result equals the CLI's `gpuplan ... --json` for the same inputs: one schema, one code path."""
import pytest

import gpuplan
from conftest import COMMANDS, cli_json, command_id, require


@pytest.mark.parametrize("entry", COMMANDS, ids=command_id)
def test_python_equals_the_cli_json(entry):
    name, positional, options, arguments = entry
    require(name)
    document, code = cli_json(arguments)
    assert code in (0, 3), document
    assert getattr(gpuplan, name)(*positional, **options) == document


def test_keyword_spellings_of_one_option_agree():
    # Dashed names pass through unchanged; underscores are dashes.
    base = {"model": "llama3.1-70b", "system": "hgx-h200", "tokens_per_user_per_s": 50}
    dashed = {"model": "llama3.1-70b", "system": "hgx-h200", "tokens-per-user-per-s": 50}
    assert gpuplan.infer(**base) == gpuplan.infer(**dashed)
    document, _ = cli_json("infer --model llama3.1-70b --system hgx-h200 --tokens-per-user-per-s 50")
    assert gpuplan.infer(**base) == document


def test_plan_fields_are_the_clis_plan_text():
    workload = dict(model="llama3.1-8b", system="hgx-h100", gpus=8, global_batch=64, seq=4096)
    document, code = cli_json("train --model llama3.1-8b --system hgx-h100 --gpus 8 --global-batch 64 --seq 4096 "
                              "--plan tp=2,pp=1,dp=4,sp=true")
    assert code == 0
    assert gpuplan.train(plan="tp=2,pp=1,dp=4,sp=true", **workload) == document
    assert gpuplan.train(plan_tp=2, plan_pp=1, plan_dp=4, plan_sp=True, **workload) == document
    assert gpuplan.train(plan={"tp": 2, "pp": 1, "dp": 4, "sp": True}, **workload) == document
    assert gpuplan.train(plan="tp=2,pp=1", plan_dp=4, plan_sp=True, **workload) == document
