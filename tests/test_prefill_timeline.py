"""benchmarks/prefill_timeline.py and benchmarks/warp_roles_timeline.py insert their probes into a
copy of the prefill kernel by text substitution, each at an anchor that must occur exactly once; a
kernel edit that moves an anchor should fail here, on the CPU, rather than in a GPU session."""

import ast
from pathlib import Path

from helpers import load_benchmark

ROOT = Path(__file__).resolve().parents[1]


def _timeline_module(name="prefill_timeline"):
    return load_benchmark(name)


def test_probes_apply_to_the_kernel_file():
    source = (ROOT / "solution" / "triton" / "gdn_prefill.py").read_text()
    module = _timeline_module()
    probed = module.probed_source(source)
    tree = ast.parse(probed)   # still Python
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    for name in ("_gdn_prefill_chunked_kernel", "_chunk_prep", "_chunk_scan"):
        assert "probe_ptr" in [a.arg for a in functions[name].args.args], name
    assert probed.count("_now(") > source.count("_now(") + 5
    # a scan program's own points (sequence known, state arrived, loop ended): slots 8-10 of SLOTS
    for slot in (8, 9, 10):
        assert probed.count(f" * {module.SLOTS} + {slot}, _now(") == 1, slot


def test_warp_role_probes_apply_to_the_kernel_file():
    source = (ROOT / "solution" / "triton" / "gdn_prefill.py").read_text()
    module = _timeline_module("warp_roles_timeline")
    probed = module.probed_source(source)
    tree = ast.parse(probed)   # still Python
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    assert "probe_ptr" in [a.arg for a in functions["_gdn_prefill_warp_roles_kernel"].args.args]
    # the probed copy's tail CTAs (PROBE_TAIL_CTAS): a kernel constexpr, the launch's grid and the probe buffer
    assert "TAIL" in [a.arg for a in functions["_gdn_prefill_warp_roles_kernel"].args.args]
    assert "[(num_ctas + PROBE_TAIL_CTAS,)]" in probed and "(num_ctas + PROBE_TAIL_CTAS) * " in probed
    # every named point is written: 20 points in 15 stores (the chunk waits 3-6 share one, and solver
    # 0 and 1 share those of their inputs, 9/13, and of their hand-off, 12/14; the SM one of its own;
    # the second step's four phases one each), and the state warps' eight again in their transposed form
    assert probed.count(f"probe_ptr + pid * {module.SLOTS} + ") == 15 + 8
    assert functions["_warp_roles_state_t"].args.args and functions["_warp_roles_state_rows"].args.args
