"""Atrex-Bench operator folders load into an OpSpec; a bad folder is one SpecError naming the file."""

import json
import shutil
from pathlib import Path

import pytest

from aka.errors import SpecError
from aka.spec.load import load_op
from aka.spec.op import OpSpec

DATA = Path(__file__).parent / "fixtures" / "atrex" / "data"


def copy(tmp_path, name="add_rms_norm"):
    folder = tmp_path / name
    shutil.copytree(DATA / name, folder)
    return folder


def test_folder_loads_shapes_init_kwargs_and_metadata():
    spec = load_op(DATA / "add_rms_norm")
    assert spec.name == "add_rms_norm" and spec.form == "atrex" and not spec.kernelbench
    assert spec.dtype == "bfloat16" and spec.path == str((DATA / "add_rms_norm").resolve())
    assert spec.reference.endswith("add_rms_norm/reference.py") and spec.inputs.endswith("add_rms_norm/input.py")
    assert [(s.id, s.params, s.init_kwargs) for s in spec.shapes] == [
        ("0", {"tokens": 4, "hidden": 64}, {"eps": 1e-6}),
        ("1", {"tokens": 3, "hidden": 32}, {"eps": 1e-5}),
    ]
    # shape 1 has no call count: it weighs as much as the average counted shape
    assert [s.weight for s in spec.shapes] == [30.0, 30.0] and {s.phase for s in spec.shapes} == {"any"}
    assert spec.importance == 0.25 and spec.input_dtypes == {"x": "bfloat16", "residual": "bfloat16",
                                                              "weight": "bfloat16"}


def test_second_operator_phase_weights_and_null_init_kwargs():
    spec = load_op(DATA / "silu_mul")
    assert spec.dtype == "float16" and spec.input_dtypes == {}
    assert [(s.id, s.weight, s.phase, s.init_kwargs) for s in spec.shapes] == [
        ("decode-small", 300.0, "decode", {}), ("decode-odd", 100.0, "decode", {})]


def test_roofline_figures_are_for_scoring_only():
    spec = load_op(DATA / "add_rms_norm")
    work = spec.shape_work["0"]
    assert work.flops == {"bfloat16": 1280.0} and work.bytes == 2176.0 and work.sol_time_ms == {"H200": 5e-7}
    assert "1" not in spec.shape_work  # null placeholders: not measured yet
    rl = spec.roofline_for("0")
    assert rl.flops == {"bfloat16": "1280"} and rl.bytes == "2176"
    assert spec.roofline_for("1") is None
    public = spec.public_view()
    for hidden in ("shape_work", "importance", "input_dtypes", "held_out_shapes"):
        assert hidden not in public
    assert "1280" not in json.dumps(public) and "0.25" not in json.dumps(public)
    assert public["form"] == "atrex" and public["shapes"][0]["init_kwargs"] == {"eps": 1e-6}


def test_form_survives_to_dict_and_from_dict():
    for name in ("add_rms_norm", "silu_mul"):
        spec = load_op(DATA / name)
        again = OpSpec.from_dict(json.loads(json.dumps(spec.to_dict())))
        assert again == spec and again.form == "atrex"


def test_metadata_and_roofline_are_optional(tmp_path):
    folder = copy(tmp_path)
    (folder / "metadata.json").unlink()
    (folder / "roofline.json").unlink()
    spec = load_op(folder)
    assert spec.dtype == "float32" and spec.importance is None and spec.shape_work == {}
    assert [s.weight for s in spec.shapes] == [1.0, 1.0]


def test_an_op_yaml_in_the_folder_wins(tmp_path):
    folder = copy(tmp_path)
    (folder / "op.yaml").write_text("name: other\nreference: reference.py\ndtype: float32\n"
                                    "shapes: [{id: a, params: {}}]\n")
    with pytest.raises(SpecError, match="make_inputs"):  # read as op.yaml, whose reference lacks it
        load_op(folder)


@pytest.mark.parametrize("missing", ["reference.py", "input.py", "shapes.json"])
def test_missing_file_is_named(tmp_path, missing):
    folder = copy(tmp_path)
    (folder / missing).unlink()
    with pytest.raises(SpecError) as err:
        load_op(folder)
    assert err.value.path.endswith(missing) and err.value.exit_code == 2


@pytest.mark.parametrize("file, text, field, line", [
    ("shapes.json", '{"0": {"input_kwargs": {"tokens": 4,}}}', "<json>", 1),
    ("shapes.json", '{\n  "0": {"init_kwargs": null}\n}', "0.input_kwargs", None),
    ("shapes.json", '{"0": {"input_kwargs": [4, 64]}}', "0.input_kwargs", None),
    ("shapes.json", '{"0": {"input_kwargs": {"tokens": 4, "hidden": 8}, "init_kwargs": 3}}', "0.init_kwargs", None),
    ("shapes.json", '{}', "<top>", None),
    ("shapes.json", '[]', "<top>", None),
    ("shapes.json", '{"0": {"input_kwargs": {"tokens": 4, "hiden": 8}}}', "0.input_kwargs.hiden", None),
    ("shapes.json", '{"0": {"input_kwargs": {"tokens": 4}}}', "0.input_kwargs", None),
    ("shapes.json", '{"0": {"input_kwargs": {"tokens": 4, "hidden": 8}, "init_kwargs": {"epsilon": 1}}}',
     "0.init_kwargs.epsilon", None),
    ("shapes.json", '{"a": {"input_kwargs": {"tokens": 4, "hidden": 8}, "init_kwargs": {"eps": 1}},'
                    ' "b": {"input_kwargs": {"tokens": 4, "hidden": 8}, "init_kwargs": {"eps": 2}}}',
     "b.init_kwargs", None),
    ("metadata.json", '{\n  "dtype": "bf16",\n  "phase": ,\n}', "<json>", 3),
    ("metadata.json", '{"dtype": "bf17"}', "dtype", None),
    ("metadata.json", '{"importance_score": "high"}', "importance_score", None),
    ("metadata.json", '{"shapes": {"0": {"call_count": -1}}}', "shapes.0.call_count", None),
    ("roofline.json", '{"shapes": {"0": {"semantic_W_flops": {"bf17": 1}, "semantic_Q_read_bytes": 1,'
                      ' "semantic_Q_write_bytes": 1}}}', "shapes.0.semantic_W_flops.bf17", None),
    ("roofline.json", '{"shapes": {"0": {"semantic_Q_read_bytes": "many", "semantic_Q_write_bytes": 1}}}',
     "shapes.0.semantic_Q_read_bytes", None),
    ("input.py", "import torch\n\ndef _make_inputs(tokens, hidden)\n    return {}\n", "<python>", 3),
    ("input.py", "import torch\n\ndef make_inputs(tokens, hidden):\n    return {}\n", "_make_inputs", None),
    ("reference.py", "import torch\n\nclass Reference(torch.nn.Module):\n    pass\n", "Model", None),
])
def test_bad_folder_names_file_and_field(tmp_path, file, text, field, line):
    folder = copy(tmp_path)
    (folder / file).write_text(text)
    with pytest.raises(SpecError) as err:
        load_op(folder)
    assert err.value.path.endswith(file) and err.value.field == field, str(err.value)
    assert err.value.line == line and err.value.exit_code == 2
