"""Turn a benchmark run folder (runner.py) into report.md and PNG plots.

The contest's score for one kernel (definition): the arithmetic mean over workloads of
baseline latency / our latency, counting the workloads where the baseline passed; any of our
workloads not PASSED (or missing) makes the score 0. Win rate: the share of those workloads
with a speedup above 1 (a tie is not a win). For prefill the report gives a second, stricter
score against the FlashInfer kernel alone (gates precomputed, not timed).
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from . import DECODE, PREFILL

TOKEN_BUCKETS = [(1, 64), (65, 256), (257, 1024), (1025, 4096), (4097, 8192), (8193, 10**9)]


@dataclass
class Result:
    status: str
    latency_ms: Optional[float]


@dataclass
class Score:
    score: float                 # contest score: mean speedup, 0 if any of ours failed
    mean_speedup: float          # mean over the workloads both passed (informative when score is 0)
    win_rate: float
    counted: int                 # workloads where the baseline passed
    failed: List[str] = field(default_factory=list)       # our non-PASSED or missing workloads
    speedups: Dict[str, float] = field(default_factory=dict)


def contest_score(ours: Dict[str, Result], baseline: Dict[str, Result]) -> Score:
    """Both maps: workload uuid -> Result. Latencies must be timed (> 0) to count."""
    counted = [u for u, r in baseline.items() if r.status == "PASSED" and r.latency_ms]
    failed = [u for u in counted if u not in ours or ours[u].status != "PASSED" or not ours[u].latency_ms]
    failed += [u for u, r in ours.items() if r.status != "PASSED" and u not in failed]
    speedups = {u: baseline[u].latency_ms / ours[u].latency_ms for u in counted if u not in failed}
    mean = statistics.fmean(speedups.values()) if speedups else 0.0
    wins = sum(s > 1.0 for s in speedups.values())
    return Score(score=0.0 if failed or not counted else mean, mean_speedup=mean,
                 win_rate=wins / len(counted) if counted else 0.0, counted=len(counted),
                 failed=sorted(failed), speedups=speedups)


def load_run(run_dir: Path) -> Tuple[dict, Dict[str, dict], Dict[str, Dict[str, Dict[str, Result]]]]:
    """(run.json, workloads.json, results[definition][solution][uuid])."""
    run_dir = Path(run_dir)
    info = json.loads((run_dir / "run.json").read_text())
    facts = json.loads((run_dir / "workloads.json").read_text())
    results: Dict[str, Dict[str, Dict[str, Result]]] = {}
    for path in sorted((run_dir / "gdn").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            t = json.loads(line)
            results.setdefault(t["definition"], {}).setdefault(t["solution"], {})[t["workload"]["uuid"]] = \
                trace_result(t)
    return info, facts, results


def trace_result(trace: dict) -> Result:
    """The status and latency of one flashinfer-bench trace (a parsed JSONL line)."""
    ev = trace.get("evaluation") or {}
    return Result(ev.get("status", "MISSING"), (ev.get("performance") or {}).get("latency_ms"))


def size_of(definition: str, fact: dict) -> Tuple[int, int]:
    """(x for plots and buckets, longest sequence): batch size for decode, total tokens for prefill."""
    if definition == DECODE:
        return fact["axes"]["batch_size"], 1
    seqlens = fact.get("seqlens") or [fact["axes"]["total_seq_len"]]
    return fact["axes"]["total_seq_len"], max(seqlens)


def group_of(definition: str, fact: dict) -> Tuple[int, str]:
    """(sort key, label) of a workload's group: its batch size, or its bucket of total tokens."""
    if definition == DECODE:
        batch = fact["axes"]["batch_size"]
        return batch, f"B={batch}"
    return token_bucket(size_of(definition, fact)[0])


def _us(ms: Optional[float]) -> str:
    return f"{ms * 1e3:.2f}" if ms else "-"


def token_bucket(n: int) -> Tuple[int, str]:
    """(lower bound, label) of the TOKEN_BUCKETS bucket holding n tokens; (0, "0") for none."""
    for lo, hi in TOKEN_BUCKETS:
        if lo <= n <= hi:
            return lo, (f"{lo}-{hi}" if hi < 10**9 else f">{lo - 1}")
    return 0, "0"


def _group_table(title: str, key_name: str, groups: Dict, by_solution, cols: List[Tuple[str, str]],
                 ours: str, scores: Dict[str, Score]) -> List[str]:
    lines = [f"#### {title}", "",
             "| " + " | ".join([key_name, "workloads", f"{ours} (µs)"] + [f"{label} (µs)" for label, _ in cols]
                               + [f"speedup vs {label}" for label, _ in cols] + [f"wins vs {label}" for label, _ in cols]) + " |",
             "|" + "---|" * (3 + 3 * len(cols))]
    for key in sorted(groups, key=lambda k: groups[k][0]):
        _, uuids = groups[key]
        mean_lat = lambda name: statistics.fmean([by_solution[name][u].latency_ms for u in uuids
                                                  if u in by_solution.get(name, {}) and by_solution[name][u].latency_ms] or [0])
        row = [str(key), str(len(uuids)), _us(mean_lat(ours))]
        row += [_us(mean_lat(name)) for _, name in cols]
        for _, name in cols:
            s = [scores[name].speedups[u] for u in uuids if u in scores[name].speedups]
            row.append(f"{statistics.fmean(s):.2f}x" if s else "-")
        for _, name in cols:
            s = [scores[name].speedups[u] for u in uuids if u in scores[name].speedups]
            row.append(f"{sum(v > 1 for v in s)}/{len(s)}" if s else "-")
        lines.append("| " + " | ".join(row) + " |")
    return lines + [""]


def score_earned(groups: Dict, score: Score, cut: float = 0.1) -> Dict[str, Tuple[float, float]]:
    """Where a score comes from, per group {label: (sort key, uuids)}: (share, gain), the group's share of the
    sum of speedups, and what the score would gain if our time on every workload of the group were `cut`
    (a fraction) shorter. The score is a mean of ratios, so a cut of c on a workload adds its speedup times
    c / (1 - c), divided by the workloads counted: a group weighs by its speedups, not by its time."""
    total = sum(score.speedups.values())
    out = {}
    for label, (_, uuids) in groups.items():
        group = sum(score.speedups.get(u, 0.0) for u in uuids)
        out[label] = (group / total if total else 0.0,
                      group * cut / (1 - cut) / score.counted if score.counted else 0.0)
    return out


def _earned_table(key_name: str, groups: Dict, cols: List[Tuple[str, str]], scores: Dict[str, Score]) -> List[str]:
    lines = ["#### Where the score is earned", "",
             "Each group's share of the score (the sum of its speedups over the sum of all), and what the score would "
             "gain if our time there were 10% shorter.", "",
             "| " + " | ".join([key_name, "workloads"] + [f"share vs {label}" for label, _ in cols]
                               + [f"gain vs {label}" for label, _ in cols]) + " |",
             "|" + "---|" * (2 + 2 * len(cols))]
    earned = {name: score_earned(groups, scores[name]) for _, name in cols}
    for key in sorted(groups, key=lambda k: groups[k][0]):
        row = [str(key), str(len(groups[key][1]))]
        row += [f"{earned[name][key][0]:.0%}" for _, name in cols]
        row += [f"+{earned[name][key][1]:.3f}" for _, name in cols]
        lines.append("| " + " | ".join(row) + " |")
    return lines + [""]


def render(run_dir: Path) -> str:
    """Write report.md and report_<definition>.png into run_dir; returns the Markdown."""
    run_dir = Path(run_dir)
    info, facts, results = load_run(run_dir)
    env = info.get("environment", {})
    libs = ", ".join(f"{k} {v}" for k, v in sorted(env.get("libs", {}).items()))
    md = ["# GDN kernels vs FlashInfer", "",
          f"Run of {info.get('date', '?')} on **{env.get('hardware', '?')}** ({libs}); dataset `{info.get('dataset', '?')}`.",
          f"Correctness: {info['settings']['trials']} trials per workload, every element within atol=rtol="
          f"{info['settings']['atol']}. Latency: mean over {info['settings']['timing_trials']} trials of the median "
          "over the contest's iterations (decode 10 warm-up/50, prefill 1/5), CUPTI span of all GPU work of one call, "
          "cold L2 (`timing` above says which method ran).",
          "Score: the contest's, mean over workloads of baseline latency / ours, 0 if any of ours failed. "
          "Win: speedup > 1.", ""]
    for definition in (DECODE, PREFILL):
        role = info["roles"].get(definition, {})
        by_solution = results.get(definition, {})
        ours = role.get("ours")
        if not ours or ours not in by_solution:
            continue
        cols = [(label, role[key]) for label, key in (("FlashInfer", "baseline"), ("FlashInfer kernel only", "strict_baseline"))
                if role.get(key) in by_solution]
        scores = {name: contest_score(by_solution[ours], by_solution[name]) for _, name in cols}
        passed = sum(r.status == "PASSED" for r in by_solution[ours].values())
        md += [f"## {definition}", "",
               f"`{ours}`: {passed}/{len(by_solution[ours])} workloads passed.", "",
               "| against | score (mean speedup) | mean speedup where both passed | win rate | workloads counted |",
               "|---|---|---|---|---|"]
        for label, name in cols:
            s = scores[name]
            md.append(f"| {label} (`{name}`) | **{s.score:.3f}** | {s.mean_speedup:.3f} | "
                      f"{s.win_rate:.0%} ({sum(v > 1 for v in s.speedups.values())}/{s.counted}) | {s.counted} |")
        md.append("")
        failures = {u: r.status for u, r in by_solution[ours].items() if r.status != "PASSED"}
        if failures:
            md += ["Failing workloads: " + ", ".join(f"`{u[:8]}` {st}" for u, st in sorted(failures.items())), ""]
        if cols:
            first = scores[cols[0][1]]
            ranked = sorted(first.speedups.items(), key=lambda kv: kv[1])
            describe = lambda u: _describe(definition, facts.get(u))
            md += [f"Worst workloads vs {cols[0][0]}: " + ", ".join(f"`{u[:8]}` ({describe(u)}) {v:.2f}x" for u, v in ranked[:5]),
                   "Best: " + ", ".join(f"`{u[:8]}` ({describe(u)}) {v:.2f}x" for u, v in ranked[::-1][:5]), ""]
        uuids = list(by_solution[ours])
        if definition == DECODE:
            groups: Dict = {}
            for u in uuids:
                b = facts[u]["axes"]["batch_size"]
                groups.setdefault(b, (b, []))[1].append(u)
            md += _group_table("By batch size", "batch", groups, by_solution, cols, ours, scores)
            md += _earned_table("batch", groups, cols, scores)
        else:
            for title, pick in (("By total tokens", lambda u: size_of(definition, facts[u])[0]),
                                ("By longest sequence", lambda u: size_of(definition, facts[u])[1])):
                groups = {}
                for u in uuids:
                    lo, key = token_bucket(pick(u))
                    groups.setdefault(key, (lo, []))[1].append(u)
                md += _group_table(title, "tokens", groups, by_solution, cols, ours, scores)
                if title == "By total tokens":
                    md += _earned_table("tokens", groups, cols, scores)
        png = _plot(run_dir, definition, facts, by_solution, [ours] + [name for _, name in cols])
        if png:
            md += [f"![latency vs size]({png.name})", ""]
    text = "\n".join(md)
    (run_dir / "report.md").write_text(text)
    return text


def _describe(definition: str, fact: Optional[dict]) -> str:
    if not fact:
        return "?"
    if definition == DECODE:
        return f"B={fact['axes']['batch_size']}"
    total, longest = size_of(definition, fact)
    return f"T={total}, N={fact['axes']['num_seqs']}, max {longest}"


def _plot(run_dir: Path, definition: str, facts, by_solution, names) -> Optional[Path]:
    series = [(name, [(size_of(definition, facts[u])[0], r.latency_ms * 1e3) for u, r in by_solution.get(name, {}).items()
                      if r.status == "PASSED" and r.latency_ms]) for name in names]
    return plot_latency(run_dir / f"report_{definition}.png", definition, definition, series)


def plot_latency(path: Path, definition: str, title: str, series, alpha=0.8, legend_size=8) -> Optional[Path]:
    """A log-log plot of latency (µs) against batch size or total tokens, one marker style per
    (label, [(size, µs), ...]) series, saved to path; None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    for (label, points), marker in zip(series, "os^Dvx*"):
        pts = sorted(points)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, linestyle="none", label=label, alpha=alpha)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch size" if definition == DECODE else "total tokens")
    ax.set_ylabel("latency (µs)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=legend_size)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
