"""Compare two benchmark run folders (runner.py) of the same definitions: what changed in our
kernel's times, what changed in the baselines' (machine to machine, run to run), and how much of
the score's change is ours.

Two side-by-side runs differ in both columns: ours and the baseline's times move with the machine.
The cross score, the newer kernel's latencies against the older run's baseline latencies, holds the
baseline still, so its distance from the older score is the part of the change our kernel made
(within the run-to-run spread of our own times, which the per-workload table shows).
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from . import DECODE, PREFILL
from .report import Result, _describe, contest_score, group_of, load_run

BASELINE_ROLES = (("FlashInfer", "baseline"), ("FlashInfer kernel only", "strict_baseline"))


def _timed(results: Dict[str, Result]) -> Dict[str, float]:
    """uuid -> latency (ms) of the workloads that passed with a timing."""
    return {u: r.latency_ms for u, r in results.items() if r.status == "PASSED" and r.latency_ms}


def time_ratios(before: Dict[str, Result], after: Dict[str, Result]) -> Dict[str, float]:
    """uuid -> after / before latency, over the workloads timed in both."""
    b, a = _timed(before), _timed(after)
    return {u: a[u] / b[u] for u in b if u in a}


def compare_definition(definition: str, before, after, threshold: float) -> Optional[List[str]]:
    """Markdown lines comparing one definition across two runs (each as load_run returns it), or
    None if either run lacks our solution for it."""
    info_b, facts_b, results_b = before
    info_a, facts_a, results_a = after
    role_b, role_a = info_b["roles"].get(definition, {}), info_a["roles"].get(definition, {})
    by_b, by_a = results_b.get(definition, {}), results_a.get(definition, {})
    ours_b, ours_a = role_b.get("ours"), role_a.get("ours")
    if ours_b not in by_b or ours_a not in by_a:
        return None
    facts = {**facts_b, **facts_a}
    common = sorted(set(by_b[ours_b]) & set(by_a[ours_a]))
    pick = lambda results: {u: results[u] for u in common if u in results}
    ours_before, ours_after = pick(by_b[ours_b]), pick(by_a[ours_a])

    md = [f"## {definition}", "",
          f"{len(common)} workloads in both runs. Ours: `{ours_b}` before, `{ours_a}` after.", "",
          "| against | score before | score after | after's kernel, before's baseline times | "
          "baseline's time after / before (mean) |",
          "|---|---|---|---|---|"]
    drifts: List[Tuple[str, Dict[str, float]]] = []   # (label, uuid -> baseline after / before)
    for label, key in BASELINE_ROLES:
        base_b, base_a = role_b.get(key), role_a.get(key)
        if base_b not in by_b or base_a not in by_a:
            continue
        baseline_before, baseline_after = pick(by_b[base_b]), pick(by_a[base_a])
        score_before = contest_score(ours_before, baseline_before).score
        score_after = contest_score(ours_after, baseline_after).score
        cross = contest_score(ours_after, baseline_before).score
        drift = time_ratios(baseline_before, baseline_after)
        drifts.append((label, drift))
        mean_drift = f"{statistics.fmean(drift.values()):.4f}" if drift else "-"
        md.append(f"| {label} | {score_before:.3f} | {score_after:.3f} | **{cross:.3f}** | {mean_drift} |")
    md.append("")

    ratios = time_ratios(ours_before, ours_after)
    failed = sorted(u for u in common if ours_after[u].status != "PASSED")
    if failed:
        md += ["Ours failed after: " + ", ".join(f"`{u[:8]}` {ours_after[u].status}" for u in failed), ""]
    if not ratios:
        return md
    groups: Dict[Tuple[int, str], List[float]] = {}
    for u, r in ratios.items():
        groups.setdefault(group_of(definition, facts[u]), []).append(r)
    md += ["Our time after / before, mean by group (below 1: faster after):", "",
           "| group | workloads | mean | min | max |", "|---|---|---|---|---|"]
    for key in sorted(groups):
        rs = groups[key]
        md.append(f"| {key[1]} | {len(rs)} | {statistics.fmean(rs):.3f} | {min(rs):.3f} | {max(rs):.3f} |")
    md.append(f"| all | {len(ratios)} | {statistics.fmean(ratios.values()):.3f} | {min(ratios.values()):.3f} | "
              f"{max(ratios.values()):.3f} |")
    md.append("")

    moved = sorted((u for u, r in ratios.items() if abs(r - 1.0) > threshold), key=lambda u: ratios[u])
    md += [f"Workloads whose time moved by more than {threshold:.0%}: {len(moved)}", ""]
    if moved:
        header = ["workload", "size", "ours before (µs)", "ours after (µs)", "after / before"]
        md += ["| " + " | ".join(header + [f"{label} after / before" for label, _ in drifts]) + " |",
               "|" + "---|" * (len(header) + len(drifts))]
        for u in moved:
            row = [f"`{u[:8]}`", _describe(definition, facts.get(u)), f"{ours_before[u].latency_ms * 1e3:.2f}",
                   f"{ours_after[u].latency_ms * 1e3:.2f}", f"{ratios[u]:.3f}"]
            row += [f"{drift[u]:.3f}" if u in drift else "-" for _, drift in drifts]
            md.append("| " + " | ".join(row) + " |")
        md.append("")
    return md


def compare_runs(before_dir: Path, after_dir: Path, threshold: float = 0.03,
                 definitions: Optional[List[str]] = None) -> str:
    """Markdown comparing two run folders, definition by definition."""
    before_dir, after_dir = Path(before_dir), Path(after_dir)
    before, after = load_run(before_dir), load_run(after_dir)
    info_b, info_a = before[0], after[0]
    hardware = lambda info: info.get("environment", {}).get("hardware", "?")
    md = ["# Comparison of two runs", "",
          f"Before: `{before_dir}` ({info_b.get('date', '?')}, {hardware(info_b)}).",
          f"After: `{after_dir}` ({info_a.get('date', '?')}, {hardware(info_a)}).", ""]
    if hardware(info_b) != hardware(info_a):
        md += ["The runs are on different GPUs: the baselines' times are not comparable, so neither is the "
               "cross score.", ""]
    shown = 0
    for definition in definitions or (DECODE, PREFILL):
        lines = compare_definition(definition, before, after, threshold)
        if lines:
            md += lines
            shown += 1
    if not shown:
        md += ["No definition has our solution in both runs.", ""]
    return "\n".join(md)
