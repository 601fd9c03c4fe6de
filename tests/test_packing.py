"""pack.py / gdnkit pack: the contest layout, determinism, refusal of bad configs, and the
packed solutions built by flashinfer-bench's own builder and run on this machine."""

import json
import shutil
import subprocess
import sys
import tarfile

import pytest
import torch
from flashinfer_bench import Solution
from flashinfer_bench.compile import BuilderRegistry

from conftest import DEVICE, ROOT, poisoned_like
from helpers import PREFILL_OUT_TOL, PREFILL_STATE_TOL, STATE_TOL
from gdnkit import DECODE, PREFILL
from gdnkit.definitions import load_definition, reference_callable
from gdnkit.inputs import decode_inputs, prefill_inputs, seeded_generator
from gdnkit.packing import ARCHIVE, PackError, load_kernels, pack

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


def test_pack_writes_the_contest_layout(tmp_path):
    archive = pack(ROOT / "config.toml", tmp_path / "dist")
    dist = archive.parent
    assert sorted(p.name for p in dist.iterdir()) == sorted(["gdn_decode", "gdn_prefill", ARCHIVE])
    assert not (dist / "config.toml").exists()  # the contest wants no root config.toml
    for folder, name, source in [("gdn_decode", DECODE, "gdn_decode.py"), ("gdn_prefill", PREFILL, "gdn_prefill.py")]:
        cfg = tomllib.loads((dist / folder / "config.toml").read_text())
        assert cfg["solution"]["definition"] == name
        assert cfg["build"] == {"language": "triton", "entry_point": f"{source}::run",
                                "destination_passing_style": True}
        packed = Solution.model_validate_json((dist / folder / "packed_solution.json").read_text())
        assert packed.name == cfg["solution"]["name"] and packed.author == cfg["solution"]["author"]
        assert [s.path for s in packed.sources] == [source]
        shipped = (dist / folder / "solution" / "triton" / source).read_text()
        assert shipped == packed.sources[0].content == (ROOT / "solution" / "triton" / source).read_text()
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    assert "gdn_decode/solution/triton/gdn_decode.py" in names and "gdn_prefill/packed_solution.json" in names


def test_pack_is_deterministic(tmp_path):
    a = pack(ROOT / "config.toml", tmp_path / "one").read_bytes()
    b = pack(ROOT / "config.toml", tmp_path / "two").read_bytes()
    assert a == b


def test_pack_py_script(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "pack.py"), "--out", str(tmp_path / "d")],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "d" / ARCHIVE).is_file()


@pytest.fixture
def project(tmp_path):
    """A copy of config.toml and solution/ to break."""
    shutil.copytree(ROOT / "solution", tmp_path / "solution")
    shutil.copyfile(ROOT / "config.toml", tmp_path / "config.toml")
    return tmp_path


@pytest.mark.parametrize("old, new, message", [
    ('sources = ["solution/triton/gdn_decode.py"]', 'sources = ["solution/triton/missing.py"]', "does not exist"),
    ('definition = "gdn_decode_qk4_v8_d128_k_last"', 'definition = "gdn_decode_qk16_v32_d128_k_last"', "not one of ours"),
    ('entry_point = "gdn_decode.py::run"', 'entry_point = "gdn_decode.py::launch"', "`launch` is not defined"),
    ('entry_point = "gdn_decode.py::run"', 'entry_point = "decode.py::run"', "not among the sources"),
    ('entry_point = "gdn_decode.py::run"', 'entry_point = "gdn_decode.py"', "<file>::<function>"),
    ('sources = ["solution/triton/gdn_decode.py"]', 'sources = ["pack.py"]', "not under solution/triton/"),
    ('language = "triton"\nentry_point = "gdn_decode.py', 'language = "fortran"\nentry_point = "gdn_decode.py', "language"),
    ('author = "gdnkit"', '', "missing `author`"),
])
def test_pack_refuses_bad_config_and_writes_nothing(project, old, new, message):
    config = project / "config.toml"
    text = config.read_text()
    assert old in text
    config.write_text(text.replace(old, new, 1))
    (project / "pack.py").write_text("# stands in for a source outside solution/\n")
    with pytest.raises(PackError, match=message):
        pack(config, project / "dist")
    assert not (project / "dist").exists()
    assert [p.name for p in project.iterdir() if p.name.startswith(".dist")] == []


def test_pack_refuses_entry_point_with_wrong_arity(project):
    path = project / "solution" / "triton" / "gdn_decode.py"
    path.write_text(path.read_text().replace(
        "def run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state):",
        "def run(q, k, v, state, A_log, a, dt_bias, b, scale, output):"))
    with pytest.raises(PackError, match="takes 10 arguments; definition gdn_decode_qk4_v8_d128_k_last needs 11"):
        pack(project / "config.toml", project / "dist")


def test_pack_keeps_previous_dist_when_refusing(project):
    pack(project / "config.toml", project / "dist")
    before = (project / "dist" / ARCHIVE).read_bytes()
    (project / "solution" / "triton" / "gdn_prefill.py").unlink()
    with pytest.raises(PackError):
        pack(project / "config.toml", project / "dist")
    assert (project / "dist" / ARCHIVE).read_bytes() == before


@pytest.mark.parametrize("definition", [DECODE, PREFILL])
def test_packed_solution_builds_and_runs_through_flashinfer_bench(definition, tmp_path, fresh_seed):
    """The packed JSON is what the contest builds: flashinfer-bench's builder imports it from its
    own cache folder and we call the resulting runnable like the harness does."""
    pack(ROOT / "config.toml", tmp_path / "dist")
    folder = "gdn_decode" if definition == DECODE else "gdn_prefill"
    solution = Solution.model_validate(json.loads((tmp_path / "dist" / folder / "packed_solution.json").read_text()))
    defn = load_definition(definition)
    runnable = BuilderRegistry.get_instance().build(defn, solution)
    assert runnable.metadata.build_type == "triton"
    gen = seeded_generator(fresh_seed)
    x = decode_inputs(2, gen, device=DEVICE) if definition == DECODE else prefill_inputs([3, 0, 20], gen, device=DEVICE)
    args = list(x.values())
    shapes = defn.get_output_shapes(defn.get_axes_values_from_inputs(args))
    outs = [poisoned_like(s, d, DEVICE) for s, d in zip(shapes, defn.torch_output_dtypes)]
    runnable(*args, *outs)
    want = reference_callable(defn)(*args)
    # Prefill takes the state into its products as bf16 (BF16_STATE_DOTS): bf16-level bounds.
    state_tol, out_tol = ((STATE_TOL, dict(atol=4e-3, rtol=8e-3)) if definition == DECODE
                          else (PREFILL_STATE_TOL, PREFILL_OUT_TOL))
    torch.testing.assert_close(outs[1], want[1], **state_tol)
    torch.testing.assert_close(outs[0].float(), want[0].float(), **out_tol)


def test_load_kernels_reads_the_project_config():
    kernels = load_kernels(ROOT / "config.toml")
    assert [k.solution.definition for k in kernels] == [DECODE, PREFILL]
    assert all(k.solution.spec.language.value == "triton" for k in kernels)
