"""The built-in deployment recipes: gpuplan.recipes(), gpuplan.recipe(NAME) and infer(recipe=NAME)."""
import pytest

import gpuplan
from conftest import cli_json, require

NAME = "trtllm/b200-fp4/1k1k/mtp/ctx1_gen2_dep8_batch64_eplb0_mtp2"


def test_recipes_lists_every_recipe_with_its_source():
    require("recipe")
    recipes = gpuplan.recipes()
    assert len(recipes) > 500
    assert all(r["name"] and "/" in r["source"] for r in recipes)
    deployments = gpuplan.recipes(kind="deployment")
    assert deployments and all(r["kind"] == "deployment" for r in deployments)
    assert gpuplan.recipe() == gpuplan.recipe("list")
    assert gpuplan.recipe()["schema"] == "gpuplan.recipe_list/v1"
    assert gpuplan.Session().recipes(kind="deployment") == deployments


def test_recipe_shows_one_as_the_cli_does():
    require("recipe")
    document = gpuplan.recipe(NAME)
    assert document["schema"] == "gpuplan.recipe/v1"
    assert document["recipe"]["decode"]["max_batch"] == 64
    assert document == gpuplan.recipe("show", NAME)
    cli, code = cli_json("recipe show " + NAME)
    assert code == 0 and cli == document
    with pytest.raises(gpuplan.InputError, match="close names"):
        gpuplan.recipe("ctx1_gen2_dep8_batch64")


def test_infer_evaluates_a_recipe():
    require("recipe")
    result = gpuplan.infer(recipe=NAME)
    assert result["recipe"]["name"] == NAME
    assert result["gpus"] == 20 and result["mtp_draft_tokens"] == 2
    with pytest.raises(gpuplan.InputError, match="--sweep"):
        gpuplan.infer(recipe=NAME, sweep=True)
