"""Report maths (contest score, win rate, a failure zeroing the score) and the run folder the
runner writes (traces that flashinfer-bench loads, merging definitions run separately)."""

import json

import pytest
from flashinfer_bench import Trace
from flashinfer_bench.data import load_jsonl_file

from gdnkit import DECODE, PREFILL
from gdnkit.dataset import embedded_dataset, open_dataset
from gdnkit.evaluate import Settings
from gdnkit.report import Result, contest_score, load_run, render, score_earned
from gdnkit.runner import run_benchmark
from conftest import DEVICE, ROOT


def R(ms, status="PASSED"):
    return Result(status, ms)


def test_score_is_the_mean_of_speedups_and_a_tie_is_no_win():
    ours = {"a": R(1.0), "b": R(2.0), "c": R(3.0)}
    base = {"a": R(2.0), "b": R(2.0), "c": R(1.0)}
    s = contest_score(ours, base)
    assert s.score == pytest.approx((2.0 + 1.0 + 1 / 3) / 3)
    assert s.win_rate == pytest.approx(1 / 3)         # b is a tie, c a loss
    assert s.counted == 3 and s.failed == []


def test_score_earned_weighs_groups_by_their_speedups():
    # a small input at 50x and a large one at 0.8x: the small one carries the score
    ours = {"small": R(0.004), "large": R(0.100)}
    base = {"small": R(0.200), "large": R(0.080)}
    s = contest_score(ours, base)
    earned = score_earned({"1-64": (1, ["small"]), "4097-8192": (4097, ["large"])}, s)
    assert earned["1-64"][0] == pytest.approx(50 / 50.8) and earned["4097-8192"][0] == pytest.approx(0.8 / 50.8)
    # 10% less time on the small input: its speedup becomes 50 / 0.9, the mean of two gains (50 / 0.9 - 50) / 2
    assert earned["1-64"][1] == pytest.approx((50 / 0.9 - 50) / 2)
    faster = contest_score({"small": R(0.004 * 0.9), "large": R(0.100)}, base)
    assert faster.score - s.score == pytest.approx(earned["1-64"][1])


def test_one_failed_workload_zeroes_the_score():
    ours = {"a": R(1.0), "b": R(None, "INCORRECT_NUMERICAL")}
    base = {"a": R(4.0), "b": R(4.0)}
    s = contest_score(ours, base)
    assert s.score == 0.0 and s.failed == ["b"]
    assert s.mean_speedup == pytest.approx(4.0)       # still reported where both passed


def test_a_missing_workload_counts_as_failed():
    s = contest_score({"a": R(1.0)}, {"a": R(2.0), "b": R(2.0)})
    assert s.score == 0.0 and s.failed == ["b"]


def test_workloads_where_the_baseline_failed_are_not_counted():
    s = contest_score({"a": R(1.0), "b": R(1.0)}, {"a": R(3.0), "b": R(None, "RUNTIME_ERROR")})
    assert s.counted == 1 and s.score == pytest.approx(3.0) and s.win_rate == 1.0


def test_untimed_latencies_do_not_count():
    s = contest_score({"a": R(0.0)}, {"a": R(0.0)})
    assert s.counted == 0 and s.score == 0.0


def _fake_run(tmp_path, decode_latencies, failing=()):
    """A run folder with hand-made traces: ours and a baseline on three decode workloads."""
    run = tmp_path / "run"
    (run / "gdn").mkdir(parents=True)
    lines, facts = [], {}
    for i, (batch, ours_ms, base_ms) in enumerate(decode_latencies):
        uuid = f"0000000{i}-aaaa"
        facts[uuid] = {"definition": DECODE, "axes": {"batch_size": batch}}
        for name, ms in (("ours", ours_ms), ("fi", base_ms)):
            status = "RUNTIME_ERROR" if (name == "ours" and uuid in failing) else "PASSED"
            ev = {"status": status, "environment": {"hardware": "GPU", "libs": {}}, "timestamp": "t", "log": "",
                  "correctness": {"max_relative_error": 0.0, "max_absolute_error": 0.0} if status == "PASSED" else None,
                  "performance": {"latency_ms": ms} if status == "PASSED" else None}
            lines.append(json.dumps({"definition": DECODE, "solution": name, "evaluation": ev,
                                     "workload": {"uuid": uuid, "axes": {"batch_size": batch}, "inputs": {}}}))
    (run / "gdn" / f"{DECODE}.jsonl").write_text("\n".join(lines) + "\n")
    (run / "workloads.json").write_text(json.dumps(facts))
    (run / "run.json").write_text(json.dumps({
        "date": "d", "dataset": "x", "environment": {"hardware": "GPU", "libs": {}},
        "settings": {"trials": 3, "timing_trials": 3, "atol": 0.01, "rtol": 0.01},
        "roles": {DECODE: {"ours": "ours", "baseline": "fi"}}}))
    return run


def test_render_reports_score_win_rate_and_batch_table(tmp_path):
    run = _fake_run(tmp_path, [(1, 0.002, 0.003), (1, 0.002, 0.002), (64, 0.020, 0.010)])
    text = render(run)
    # speedups 1.5, 1.0, 0.5 -> score 1.0, one win of three
    assert "| FlashInfer (`fi`) | **1.000** | 1.000 | 33% (1/3) | 3 |" in text
    assert "| 1 | 2 | 2.00 | 2.50 | 1.25x | 1/2 |" in text
    assert "| 64 | 1 | 20.00 | 10.00 | 0.50x | 0/1 |" in text
    assert (run / "report.md").read_text() == text
    assert (run / f"report_{DECODE}.png").stat().st_size > 1000


def test_render_shows_a_zero_score_and_the_failures(tmp_path):
    run = _fake_run(tmp_path, [(1, 0.001, 0.003), (4, 0.001, 0.003)], failing={"00000001-aaaa"})
    text = render(run)
    assert "**0.000**" in text and "`00000001` RUNTIME_ERROR" in text


def test_run_folder_holds_loadable_traces_and_merges_definitions(tmp_path):
    trace_set = open_dataset(embedded_dataset(tmp_path / "embedded"))
    settings = Settings(device=DEVICE, trials=1, timing=False)
    configs = [ROOT / "config.toml"]
    out = tmp_path / "run"
    run_benchmark(trace_set, out, configs, settings, definitions=[DECODE], progress=False)
    run_benchmark(trace_set, out, configs, settings, definitions=[PREFILL], progress=False)
    traces = load_jsonl_file(Trace, out / "gdn" / f"{DECODE}.jsonl") + load_jsonl_file(Trace, out / "gdn" / f"{PREFILL}.jsonl")
    assert len(traces) == 5 and all(t.evaluation.status.value == "PASSED" for t in traces)
    assert {t.solution for t in traces} == {"gdnkit_gdn_decode_triton", "gdnkit_gdn_prefill_triton"}
    info, facts, results = load_run(out)
    assert set(info["roles"]) == {DECODE, PREFILL}          # the second run kept the first's roles
    assert {d: {s: len(r) for s, r in v.items()} for d, v in results.items()} == {
        DECODE: {"gdnkit_gdn_decode_triton": 2}, PREFILL: {"gdnkit_gdn_prefill_triton": 3}}
    prefill_facts = [f for f in facts.values() if f["definition"] == PREFILL]
    assert sorted(map(tuple, (f["seqlens"] for f in prefill_facts))) == [(1, 1, 65, 3), (5, 0, 35), (6,)]
    env = traces[0].evaluation.environment
    assert env.libs["gdnkit"] and env.libs["triton"] and env.hardware
