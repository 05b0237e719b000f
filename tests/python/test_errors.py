"""Bad input raises gpuplan.InputError naming the option (the CLI's exit 2); nothing crashes the interpreter."""
import math
import pickle

import pytest

import gpuplan
from conftest import cli_json

POINT = {"model": "llama3.1-70b", "system": "hgx-h200"}


def field(error):
    return error.field.lstrip("-")


@pytest.mark.parametrize("value", [0, -1, math.nan, math.inf, 1e308, "junk"])
def test_out_of_range_numbers_name_the_option(value):
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.infer(isl=value, **POINT)
    assert field(caught.value) == "isl"
    assert "isl" in str(caught.value)


def test_unknown_option_names_it():
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.infer(no_such_option=3, **POINT)
    assert "no-such-option" in field(caught.value) or "no_such_option" in field(caught.value)


def test_unknown_model_names_the_field_and_suggests():
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.infer(model="llama3.1-70", system="hgx-h200")
    assert field(caught.value) == "model"


def test_a_bad_plan_field_names_it():
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.train(model="llama3.1-8b", system="hgx-h100", gpus=8, global_batch=64, plan_tp=0)
    assert field(caught.value) == "plan.tp"


def test_unknown_command():
    with pytest.raises(gpuplan.InputError):
        gpuplan.run("no-such-command")


def test_values_python_cannot_express_as_options():
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.infer(isl=object(), **POINT)
    assert field(caught.value) == "isl"
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.infer(isl=2 ** 80, **POINT)
    assert field(caught.value) == "isl"


def test_missing_catalog_folder():
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.Session(catalog="/no/such/gpuplan/catalog")
    assert "/no/such/gpuplan/catalog" in str(caught.value)
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.Session(catalog=3)
    assert caught.value.field == "catalog"


def test_the_hierarchy_and_the_field_survive_pickling():
    with pytest.raises(gpuplan.Error) as caught:
        gpuplan.infer(isl=-1, **POINT)
    error = caught.value
    assert isinstance(error, gpuplan.InputError) and isinstance(error, ValueError)
    assert error.exit_code == 2 and gpuplan.Error.exit_code == 1
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is gpuplan.InputError and copy.field == error.field and str(copy) == str(error)


def test_the_message_and_field_are_the_clis():
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.infer(isl=0, **POINT)
    document, code = cli_json("infer --model llama3.1-70b --system hgx-h200 --isl 0")
    assert code == 2 and document["schema"] == "gpuplan.error/v1"
    assert field(caught.value) == document["field"].lstrip("-")


def test_interpreter_survives_many_bad_calls():
    for bad in ({"isl": -5}, {"osl": "x"}, {"concurrency": math.nan}, {"gpus": -8}, {"system": ""}):
        with pytest.raises(gpuplan.Error):
            gpuplan.infer(**dict(POINT, **bad))
    assert gpuplan.infer(**POINT)["schema"] == "gpuplan.infer/v1"


def test_weight_only_int4_serves_and_training_refuses_it():
    # w4a16 (4-bit weight-only INT4) through the same parser as the CLI: every spelling is one precision.
    tpots = {gpuplan.infer(precision=p, gpus=1, isl=1024, osl=256, concurrency=1, model="llama3.1-70b",
                           system="h100-sxm")["tpot_s"] for p in ("w4a16", "int4_wo", "awq", "gptq-int4")}
    assert len(tpots) == 1
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.train(model="llama3-8b", system="hgx-h100", gpus=8, precision="int4_wo")
    assert field(caught.value) == "precision"
    assert "w4a16" in str(caught.value)
