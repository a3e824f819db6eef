from pathlib import Path

from eval.harness.config import REPO_ROOT
from eval.harness.ports import PORTS, PortSpec, load_port, variant_state


def spec(tmp_path, helper="helper.py", workloads="workloads.py"):
    return PortSpec("fake", "Fake", "fakeext", str(tmp_path / helper),
                    str(tmp_path / workloads), "PicoNumPy")


def test_a_port_without_its_modules_is_missing_with_the_reason(tmp_path):
    port = load_port(spec(tmp_path), quick=False)
    assert "helper.py does not exist" in port.problem
    state = variant_state(port, "stock")
    assert (state.status, state.reason) == ("missing", port.problem)


def test_a_port_lacking_part_of_the_interface_says_what(tmp_path):
    (tmp_path / "helper.py").write_text("VARIANTS = ('stock',)\n")
    (tmp_path / "workloads.py").write_text("WORKLOADS = {}\n")
    port = load_port(spec(tmp_path), quick=False)
    assert port.problem.startswith("the port does not provide wheel_path, missing_reason, "
                                   "ensure_site")
    assert "SIZES" in port.problem


def test_a_port_whose_module_raises_is_missing(tmp_path):
    (tmp_path / "helper.py").write_text("import no_such_module_here\n")
    (tmp_path / "workloads.py").write_text("")
    port = load_port(spec(tmp_path), quick=False)
    assert "ModuleNotFoundError" in port.problem


def test_build_error_makes_a_variant_failed(tmp_path):
    (tmp_path / "helper.py").write_text(
        "VARIANTS = ('stock', 'cystck')\n"
        "def build_error(v):\n    return 'cc: error: x.c:3' if v == 'cystck' else None\n"
        "def wheel_path(v):\n    return None\n"
        "def missing_reason(v):\n    return 'not built'\n"
        "def ensure_site(v):\n    raise AssertionError('not reached')\n")
    (tmp_path / "workloads.py").write_text(
        "def w(m, n):\n    return n\n"
        "WORKLOADS = {'w': w}\nSIZES = {False: {'w': 5}, True: {'w': 1}}\n")
    port = load_port(spec(tmp_path), quick=True)
    assert port.sizes == {"w": 1}
    assert variant_state(port, "cystck").status == "failed"
    assert variant_state(port, "cystck").reason == "the build failed: cc: error: x.c:3"
    assert variant_state(port, "stock").reason == "not built"
    assert "no hpy_cpython variant" in variant_state(port, "hpy_cpython").reason


def test_the_port_table_points_into_the_repository():
    for port in PORTS:
        assert not Path(port.helper).is_absolute()
        assert (REPO_ROOT / port.helper).parent.is_dir()
