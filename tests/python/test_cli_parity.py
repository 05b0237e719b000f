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
    # plan_tp / plan={"tp": ...} are --plan.tp; dashed names pass through unchanged.
    base = {"model": "llama3.1-70b", "system": "hgx-h200", "tokens_per_user_per_s": 50}
    dashed = {"model": "llama3.1-70b", "system": "hgx-h200", "tokens-per-user-per-s": 50}
    assert gpuplan.infer(**base) == gpuplan.infer(**dashed)
    document, _ = cli_json("infer --model llama3.1-70b --system hgx-h200 --tokens-per-user-per-s 50")
    assert gpuplan.infer(**base) == document
