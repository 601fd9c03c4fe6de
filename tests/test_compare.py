"""gdnkit compare: two run folders written by hand (the runner's layout), with latencies chosen so
that every number in the comparison is known."""

import json

import pytest

from gdnkit import DECODE, PREFILL
from gdnkit.cli import main
from gdnkit.compare import compare_runs, time_ratios
from gdnkit.report import Result
from conftest import ROOT
from helpers import table_row

OURS, BASE, STRICT = "ours_prefill", "fi_prefill", "fi_prefill_kernel"
SEQLENS = {"aaaa0001": [6], "aaaa0002": [40, 24], "aaaa0003": [3000, 1000]}


def write_run(path, ours_ms, base_ms, strict_ms=None, hardware="GPU X", ours_status=None):
    """A run folder for the prefill definition: {uuid: ms} per solution (None: not timed)."""
    (path / "gdn").mkdir(parents=True)
    roles = {"ours": OURS, "baseline": BASE}
    if strict_ms is not None:
        roles["strict_baseline"] = STRICT
    (path / "run.json").write_text(json.dumps({"date": "2026-11-25T00:00:00", "environment": {"hardware": hardware},
                                               "roles": {PREFILL: roles}}))
    facts = {u: {"definition": PREFILL, "seqlens": s,
                 "axes": {"total_seq_len": sum(s), "num_seqs": len(s), "len_cu_seqlens": len(s) + 1}}
             for u, s in SEQLENS.items()}
    (path / "workloads.json").write_text(json.dumps(facts))
    lines = []
    for solution, times in ((OURS, ours_ms), (BASE, base_ms), (STRICT, strict_ms or {})):
        for uuid, ms in times.items():
            status = (ours_status or {}).get(uuid, "PASSED") if solution == OURS else "PASSED"
            lines.append(json.dumps({"definition": PREFILL, "workload": {"uuid": uuid}, "solution": solution,
                                     "evaluation": {"status": status, "performance": {"latency_ms": ms}}}))
    (path / "gdn" / f"{PREFILL}.jsonl").write_text("\n".join(lines) + "\n")
    return path


def test_time_ratios_count_only_workloads_timed_in_both():
    before = {"a": Result("PASSED", 2.0), "b": Result("PASSED", 1.0), "c": Result("INCORRECT_NUMERICAL", 1.0)}
    after = {"a": Result("PASSED", 1.0), "c": Result("PASSED", 1.0)}
    assert time_ratios(before, after) == {"a": 0.5}


def test_scores_cross_score_and_baseline_drift(tmp_path):
    # Ours: 0.002 -> 0.001 ms on the first workload, the rest unchanged; the contest baseline twice
    # as slow after (the machine), the kernel-only baseline unchanged.
    before = write_run(tmp_path / "before", {"aaaa0001": 0.002, "aaaa0002": 0.004, "aaaa0003": 0.1},
                       {"aaaa0001": 0.004, "aaaa0002": 0.004, "aaaa0003": 0.1},
                       {"aaaa0001": 0.008, "aaaa0002": 0.008, "aaaa0003": 0.2})
    after = write_run(tmp_path / "after", {"aaaa0001": 0.001, "aaaa0002": 0.004, "aaaa0003": 0.1},
                      {"aaaa0001": 0.008, "aaaa0002": 0.008, "aaaa0003": 0.2},
                      {"aaaa0001": 0.008, "aaaa0002": 0.008, "aaaa0003": 0.2})
    text = compare_runs(before, after, threshold=0.03)
    # before (2 + 1 + 1) / 3, after (8 + 2 + 2) / 3, after's kernel on before's times (4 + 1 + 1) / 3
    assert table_row(text, "FlashInfer")[1:] == ["1.333", "4.000", "**2.000**", "2.0000"]
    assert table_row(text, "FlashInfer kernel only")[1:] == ["2.667", "4.000", "**4.000**", "1.0000"]
    # our time by group of total tokens, and only the workload that moved listed
    assert table_row(text, "1-64")[1:] == ["2", "0.750", "0.500", "1.000"]   # 6 and 40 + 24 tokens
    assert table_row(text, "all")[1] == "3"
    assert "moved by more than 3%: 1" in text
    assert table_row(text, "`aaaa0001`")[1:] == ["T=6, N=1, max 6", "2.00", "1.00", "0.500", "2.000", "1.000"]
    assert "`aaaa0002`" not in text and "different GPUs" not in text


def test_a_failure_after_zeroes_the_cross_score_and_is_named(tmp_path):
    times = {"aaaa0001": 0.002, "aaaa0002": 0.004, "aaaa0003": 0.1}
    before = write_run(tmp_path / "before", times, times)
    after = write_run(tmp_path / "after", times, times, ours_status={"aaaa0003": "INCORRECT_NUMERICAL"})
    text = compare_runs(before, after)
    assert table_row(text, "FlashInfer")[1:4] == ["1.000", "0.000", "**0.000**"]
    assert "Ours failed after: `aaaa0003` INCORRECT_NUMERICAL" in text
    assert "moved by more than 3%: 0" in text


def test_different_gpus_are_flagged_and_missing_definitions_skipped(tmp_path):
    times = {"aaaa0001": 0.002, "aaaa0002": 0.004, "aaaa0003": 0.1}
    before = write_run(tmp_path / "before", times, times, hardware="GPU X")
    after = write_run(tmp_path / "after", times, times, hardware="GPU Y")
    text = compare_runs(before, after)
    assert "different GPUs" in text and f"## {PREFILL}" in text and f"## {DECODE}" not in text
    assert "No definition has our solution" in compare_runs(before, after, definitions=[DECODE])


def test_command_line(tmp_path, capsys):
    times = {"aaaa0001": 0.002, "aaaa0002": 0.004, "aaaa0003": 0.1}
    before = write_run(tmp_path / "before", times, times)
    after = write_run(tmp_path / "after", {**times, "aaaa0003": 0.09}, times)
    assert main(["compare", str(before), str(after), "--threshold", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "# Comparison of two runs" in out and "moved by more than 20%: 0" in out
    assert table_row(out, "1025-4096")[1:] == ["1", "0.900", "0.900", "0.900"]


@pytest.mark.parametrize("run", ["h100-session26", "h100-session27", "h100-session28", "h100-session28-k-split",
                                 "h100-session29", "h200-session29", "h200-session30", "h200-session31",
                                 "h200-session32", "h200-session32-prologue",
                                 "h200-session33", "h200-session33-idle"])
def test_committed_runs_compare_with_themselves(run):
    """A committed run against itself: scores equal to its report's, the cross score the same,
    no drift and nothing moved."""
    path = ROOT / "traces" / run
    text = compare_runs(path, path)
    row = table_row(text, "FlashInfer kernel only")
    assert row[1] == row[2] == row[3].strip("*") and row[4] == "1.0000"
    assert "moved by more than 3%: 0" in text
