"""op.yaml loading: valid specs load; every kind of bad input is one SpecError naming file and field."""

from pathlib import Path

import pytest

from aka.errors import SpecError
from aka.spec import expr
from aka.spec.load import load_op, operator_folder

FIXTURE = Path(__file__).parents[1] / "evaluate" / "fixtures" / "rmsnorm"
REF = (FIXTURE / "reference.py").read_text()
GOOD = (FIXTURE / "op.yaml").read_text()


def write(tmp_path, yaml_text, ref=REF):
    (tmp_path / "op.yaml").write_text(yaml_text)
    (tmp_path / "reference.py").write_text(ref)
    return tmp_path


def test_fixture_loads():
    spec = load_op(FIXTURE)
    assert spec.name == "rmsnorm-fixture" and spec.dtype == "bfloat16"
    assert [s.id for s in spec.shapes] == ["prefill", "decode"]
    assert spec.held_out_shapes[0].id == "held-odd" and spec.cpu_held_out_shapes[0].id == "cpu-held"
    assert spec.baselines == ("eager", "torch.compile") and spec.roofline.bytes == "auto"
    assert spec.tolerance_for("bfloat16").atol == 2e-2 and spec.tolerance_for("float32").atol == 1e-4
    assert "held_out_shapes" not in spec.public_view()
    assert type(spec).from_dict(spec.to_dict()) == spec


@pytest.mark.parametrize("change, field", [
    (lambda t: t + "colour: red\n", "colour"),
    (lambda t: t.replace("name: rmsnorm-fixture\n", ""), "name"),
    (lambda t: t.replace("dtype: bfloat16", "dtype: bf17"), "dtype"),
    (lambda t: t.replace('flops: "4 * n_rows * hidden"', 'flops: "4 * n_rows * hiden"'), "roofline.flops.bfloat16"),
    (lambda t: t.replace('flops: "4 * n_rows * hidden"', 'flops: "__import__(1)"'), "roofline.flops.bfloat16"),
    (lambda t: t.replace('flops: "4 * n_rows * hidden"', 'flops: "4 *"'), "roofline.flops.bfloat16"),
    (lambda t: t.replace("phase: prefill}", "phase: training}"), "shapes[0].phase"),
    (lambda t: t.replace("weight: 0.7", "weight: -1"), "shapes[0].weight"),
    (lambda t: t.replace("id: decode", "id: prefill"), "shapes"),
    (lambda t: t.replace("reference: reference.py", "reference: missing.py"), "reference"),
    (lambda t: t + "baselines: [eager, tvm]\n", "baselines"),
    (lambda t: t + "tolerance: {atol: 1, btol: 2}\n", "tolerance"),
    (lambda t: t.replace("  - {id: cpu-a, params: {n_rows: 4, hidden: 64}}", "  - {id: cpu-a, parms: {}}"), "cpu_shapes[0].parms"),
])
def test_bad_specs_name_the_field(tmp_path, change, field):
    write(tmp_path, change(GOOD))
    with pytest.raises(SpecError) as err:
        load_op(tmp_path)
    assert err.value.field == field and err.value.path.endswith("op.yaml")
    assert err.value.exit_code == 2


def test_reference_without_model_or_inputs(tmp_path):
    write(tmp_path, GOOD, ref="import torch\ndef make_inputs(**k):\n    return []\n")
    with pytest.raises(SpecError, match="class Model"):
        load_op(tmp_path)
    write(tmp_path, GOOD, ref="import torch\nclass Model(torch.nn.Module):\n    pass\n")
    with pytest.raises(SpecError, match="make_inputs"):
        load_op(tmp_path)
    write(tmp_path, GOOD, ref="def broken(:\n")
    with pytest.raises(SpecError, match="not valid Python"):
        load_op(tmp_path)


def test_yaml_errors_and_missing_paths(tmp_path):
    write(tmp_path, "name: [unclosed\n")
    with pytest.raises(SpecError, match="not valid YAML"):
        load_op(tmp_path)
    with pytest.raises(SpecError, match="no such file"):
        load_op(tmp_path / "nowhere")
    write(tmp_path, "- a list\n")
    with pytest.raises(SpecError, match="mapping"):
        load_op(tmp_path)


def test_kernelbench_problem_file_is_one_shape_operator(tmp_path):
    kb = tmp_path / "19_ReLU.py"
    kb.write_text("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                  "        return torch.relu(x)\ndef get_inputs():\n    return [torch.randn(4, 8)]\n"
                  "def get_init_inputs():\n    return []\n")
    spec = load_op(kb)
    assert spec.kernelbench and spec.name == "19_ReLU" and [s.id for s in spec.shapes] == ["default"]
    kb.write_text("import torch\nclass Model(torch.nn.Module):\n    pass\n")
    with pytest.raises(SpecError, match="get_inputs"):
        load_op(kb)


def test_expressions_are_safe_arithmetic():
    assert expr.evaluate("2 * m * cdiv(n, 128) + max(k, 3) ** 2", {"m": 2, "n": 300, "k": 1}) == 21
    assert expr.names("a * b + log2(c)") == {"a", "b", "c"}
    for bad in ("m.__class__", "[1, 2]", "lambda: 1", "open('x')", "m if m else 1"):
        with pytest.raises(expr.ExpressionError):
            expr.evaluate(bad, {"m": 1})
    with pytest.raises(expr.ExpressionError, match="cannot evaluate"):
        expr.evaluate("1 / m", {"m": 0})


def test_per_output_tolerance(tmp_path):
    write(tmp_path, GOOD + 'tolerance:\n  atol: 0.01\n  rtol: 0.01\n  outputs:\n    "out[1]": {atol: 0, rtol: 1.0e-6}\n')
    tol = load_op(tmp_path).tolerance
    assert tol.for_path("out[1]") == (0.0, 1e-6) and tol.for_path("out[0]") == (0.01, 0.01)
    write(tmp_path, GOOD + 'tolerance:\n  atol: 0.01\n  rtol: 0.01\n  outputs:\n    "scale": {atol: 0, rtol: 0}\n')
    with pytest.raises(SpecError) as err:
        load_op(tmp_path)
    assert err.value.field == "tolerance.outputs.scale"
    write(tmp_path, GOOD + "tolerance: {atol: 0.01}\n")
    with pytest.raises(SpecError, match="both"):
        load_op(tmp_path)


PROD = ("import torch\n\nclass Production(torch.nn.Module):\n    def __init__(self, hidden, eps=1e-6):\n"
        "        super().__init__()\n\n    def forward(self, x):\n        return x\n")


@pytest.mark.parametrize("entry, module, field", [
    ("production: prod.py\n", PROD, "production"),
    ("production: {file: prod.py, library: cuBLAS, colour: red}\n", PROD, "production.colour"),
    ("production: {file: prod.py}\n", PROD, "production.library"),
    ("production: {file: missing.py, library: cuBLAS}\n", PROD, "production.file"),
    ("production: {file: prod.py, library: cuBLAS}\n", "import torch\nclass Model(torch.nn.Module):\n    pass\n",
     "production.file"),
    ("production: {file: prod.py, library: cuBLAS}\n", PROD.replace("forward(self, x)", "forward(self, x, y)"),
     "production.file"),
    ("production: {file: prod.py, library: cuBLAS}\n", PROD.replace("hidden, eps", "n, eps"), "production.file"),
    ("production: {file: prod.py, library: cuBLAS, requires: [tpu]}\n", PROD, "production.requires"),
    ("baselines: [eager, production]\n", PROD, "baselines"),
])
def test_bad_production_entries_name_the_field(tmp_path, entry, module, field):
    write(tmp_path, GOOD + entry)
    (tmp_path / "prod.py").write_text(module)
    with pytest.raises(SpecError) as err:
        load_op(tmp_path)
    assert err.value.field == field and err.value.path.endswith("op.yaml") and err.value.exit_code == 2


def test_production_entry_loads_and_joins_the_baselines(tmp_path):
    write(tmp_path, GOOD + "production:\n  file: prod.py\n  library: ATen via F.rms_norm\n  requires: [gpu]\n")
    (tmp_path / "prod.py").write_text(PROD)
    spec = load_op(tmp_path)
    assert spec.production.file == str((tmp_path / "prod.py").resolve()) and spec.production.requires == ("gpu",)
    assert spec.baselines == ("eager", "torch.compile", "production")
    assert type(spec).from_dict(spec.to_dict()) == spec
    write(tmp_path, GOOD + "baselines: [eager]\nproduction: {file: prod.py, library: x}\n")
    assert load_op(tmp_path).baselines == ("eager",)          # named, but not timed


def test_library_names_the_single_call_the_reference_makes(tmp_path):
    write(tmp_path, GOOD + "library: cuBLAS GEMM via torch.matmul\n")
    spec = load_op(tmp_path)
    assert spec.library == "cuBLAS GEMM via torch.matmul" and type(spec).from_dict(spec.to_dict()) == spec
    assert load_op(write(tmp_path, GOOD)).library == ""
    for bad in ("library: 3\n", "library: ''\n", "library: [cuBLAS]\n"):
        write(tmp_path, GOOD + bad)
        with pytest.raises(SpecError) as err:
            load_op(tmp_path)
        assert err.value.field == "library" and err.value.exit_code == 2


def test_operator_folder_finds_one_suite_folder_and_refuses_two(tmp_path):
    for suite in ("a", "b"):
        (tmp_path / suite / "relu").mkdir(parents=True)
        (tmp_path / suite / "relu" / "op.yaml").write_text("name: relu\n")
    (tmp_path / "a" / "gelu").mkdir()
    (tmp_path / "a" / "gelu" / "op.yaml").write_text("name: gelu\n")
    (tmp_path / "b" / "notes").mkdir()  # a folder without op.yaml is no operator
    assert operator_folder(tmp_path, "gelu") == tmp_path / "a" / "gelu"
    assert operator_folder(tmp_path, "notes") is None
    assert operator_folder(tmp_path, "missing") is None
    with pytest.raises(SpecError, match=r"more than one suite.*a/relu.*b/relu"):
        operator_folder(tmp_path, "relu")
