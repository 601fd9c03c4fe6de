"""The evaluator and the main job: our solutions pass on the embedded dataset; broken solutions
are reported as the failures they are, never as passes and never as a crash."""

import textwrap

import pytest

from conftest import DEVICE
from gdnkit import DECODE
from gdnkit.cli import main
from gdnkit.dataset import embedded_dataset, open_dataset
from gdnkit.evaluate import Settings, evaluate
from gdnkit.packing import load_kernels


def test_main_job_passes_on_the_embedded_dataset(tmp_path, capsys):
    dataset = embedded_dataset(tmp_path / "embedded")
    assert main(["run", "--dataset", str(dataset)]) == 0
    out = capsys.readouterr().out
    assert out.count("PASSED") == 5 and "5/5 workloads passed" in out
    if DEVICE == "cpu":
        assert "timings need a GPU" in out


# name: (module header, body of run, expected status, expected text in the log)
BROKEN = {
    "zeros": ("", ["output.zero_()", "new_state.zero_()"], "INCORRECT_NUMERICAL", "beyond atol/rtol"),
    "lazy": ("", ["pass"], "INCORRECT_NUMERICAL", "non-finite"),
    "mutates": ("", ["state.mul_(2.0)", "output.zero_()", "new_state.zero_()"], "RUNTIME_ERROR",
                "modified its input 'state'"),
    "raises": ("", ["raise RuntimeError('kernel exploded')"], "RUNTIME_ERROR", "kernel exploded"),
    "noimport": ("import module_that_does_not_exist", ["pass"], "COMPILE_ERROR", "module_that_does_not_exist"),
}


@pytest.fixture
def broken_config(tmp_path):
    src = tmp_path / "solution" / "python"
    src.mkdir(parents=True)
    tables = ['author = "tests"']
    for name, (header, body, _, _) in BROKEN.items():
        lines = [header, "def run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state):"]
        (src / f"{name}.py").write_text("\n".join(lines + ["    " + line for line in body]) + "\n")
        tables.append(textwrap.dedent(f"""
            [kernels.{name}]
            name = "{name}"
            definition = "{DECODE}"
            language = "python"
            entry_point = "{name}.py::run"
            sources = ["solution/python/{name}.py"]
            """))
    (tmp_path / "config.toml").write_text("\n".join(tables))
    return tmp_path / "config.toml"


def test_broken_solutions_get_the_right_status(broken_config, tmp_path):
    trace_set = open_dataset(embedded_dataset(tmp_path / "embedded"))
    solutions = [k.solution for k in load_kernels(broken_config)]
    results = {}
    evaluate(trace_set, solutions, Settings(device=DEVICE, trials=1, timing=False),
             on_result=lambda trace, outcome: results.setdefault(trace.solution, []).append((trace, outcome)))
    for name, (_, _, status, needle) in BROKEN.items():
        assert len(results[name]) == 2, name  # both decode workloads, each reported
        for trace, outcome in results[name]:
            assert trace.evaluation.status.value == status, (name, outcome.log)
            assert needle in outcome.log, (name, outcome.log)


def test_main_job_exit_code_reports_failures(broken_config, tmp_path, capsys):
    dataset = embedded_dataset(tmp_path / "embedded")
    assert main(["run", "--dataset", str(dataset), "--config", str(broken_config), "--cpu"]) == 1
    assert "0/10 workloads passed" in capsys.readouterr().out


def test_main_job_reports_a_missing_dataset(tmp_path, capsys):
    assert main(["run", "--dataset", str(tmp_path / "nowhere")]) == 2
    assert "does not exist" in capsys.readouterr().err
