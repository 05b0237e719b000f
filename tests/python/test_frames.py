"""gpuplan.to_frame: frontier points, plans and yardsticks as pandas DataFrames."""
import pytest

import gpuplan

pandas = pytest.importorskip("pandas")


def test_a_sweep_frontier_is_one_row_per_point():
    curve = gpuplan.infer(model="llama3.1-70b", system="gb300-nvl72", sweep=True)
    frame = gpuplan.to_frame(curve)
    assert isinstance(frame, pandas.DataFrame)
    assert len(frame) == len(curve["frontier"])
    assert list(frame["tokens_per_s_per_gpu"]) == [p["tokens_per_s_per_gpu"] for p in curve["frontier"]]
    assert any(c.startswith("band.") for c in frame.columns)  # nested objects flatten to dotted columns


def test_search_plans():
    plans = gpuplan.search(model="llama3.1-8b", system="hgx-h100", gpus=8, global_batch=64)
    frame = gpuplan.to_frame(plans)
    assert len(frame) == len(plans["top"])
    assert {"plan.tp", "plan.pp", "step_time_s", "mfu_6n"} <= set(frame.columns)
    assert frame["step_time_s"].is_monotonic_increasing


def test_compare_gives_yardsticks_and_frontiers():
    document = gpuplan.compare("gb300-nvl72", "hgx-h200")
    frames = gpuplan.to_frame(document)
    assert set(frames) == {"yardsticks", "frontier"}
    assert len(frames["yardsticks"]) == len(document["yardsticks"])
    assert set(frames["frontier"]["side"]) == {"a", "b"}
    assert set(frames["frontier"]["system"]) == {document["a"]["system"], document["b"]["system"]}
    assert gpuplan.to_frame(document, table="yardsticks").equals(frames["yardsticks"])
    assert gpuplan.tables(document) == ["yardsticks", "frontier"]


def test_a_point_is_one_row():
    frame = gpuplan.to_frame(gpuplan.infer(model="llama3.1-8b", system="hgx-h100"))
    assert len(frame) == 1 and frame.loc[0, "schema"] == "gpuplan.infer/v1"


def test_bad_arguments():
    with pytest.raises(gpuplan.InputError) as caught:
        gpuplan.to_frame(gpuplan.compare(), table="nope")
    assert caught.value.field == "table" and "yardsticks" in str(caught.value)
    with pytest.raises(TypeError):
        gpuplan.to_frame([1, 2])
