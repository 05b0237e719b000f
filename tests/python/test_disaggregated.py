"""A disaggregated deployment's decode batch cap through the Python module: the same keyword as the
CLI's option, the same document, and a bad value named."""
import pytest

import gpuplan
from conftest import cli_json

POINT = {"model": "deepseek-r1", "system": "gb200-nvl72", "precision": "fp8", "isl": 922, "osl": 922,
         "concurrency": 1127, "disagg": True, "prefill_gpus": 8, "prefill_tp": 1, "prefill_ep": 8,
         "decode_gpus": 32, "decode_tp": 1, "decode_ep": 32}
ARGS = ("infer --model deepseek-r1 --system gb200-nvl72 --precision fp8 --isl 922 --osl 922 --concurrency 1127 "
        "--disagg --prefill-gpus 8 --prefill-tp 1 --prefill-ep 8 --decode-gpus 32 --decode-tp 1 --decode-ep 32")


def test_the_cap_is_the_clis():
    doc = gpuplan.infer(decode_max_batch=32, **POINT)
    cli, code = cli_json(ARGS + " --decode-max-batch 32")
    assert code == 0
    assert doc == cli
    assert doc["decode_max_batch"] == 32
    assert doc["max_concurrency"] == 1024
    assert doc["ttft_s"] > gpuplan.infer(**POINT)["ttft_s"]


def test_a_bad_cap_names_the_option():
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.infer(decode_max_batch=-5, **POINT)
    assert caught.value.field.lstrip("-") == "decode-max-batch"


def test_the_prefill_limits_are_the_clis():
    doc = gpuplan.infer(prefill_max_batch=2, prefill_max_tokens=2048, **POINT)
    cli, code = cli_json(ARGS + " --prefill-max-batch 2 --prefill-max-tokens 2048")
    assert code == 0
    assert doc == cli
    assert doc["prefill_max_batch"] == 2
    assert doc["prefill_max_tokens"] == 2048
    free = gpuplan.infer(**POINT)
    assert doc["prefill_utilization"] > free["prefill_utilization"]
    assert doc["tokens_per_s_total"] <= free["tokens_per_s_total"] * (1 + 1e-9)


@pytest.mark.parametrize("keyword", ["prefill_max_batch", "prefill_max_tokens"])
def test_a_bad_prefill_limit_names_the_option(keyword):
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.infer(**{keyword: -3}, **POINT)
    assert caught.value.field.lstrip("-") == keyword.replace("_", "-")
