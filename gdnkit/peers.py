"""Our side-by-side runs beside the per-workload results that other Track C teams published.

The published entries ran on other GPUs (B200, GB200) and, where they had the contest's dataset, on its
real prefill splits, while our runs use the H200 and synthetic splits (gdnkit/data/contest_workloads.json).
So this is a comparison of published numbers, not a measurement: latencies of one uuid compare the
same shapes on different machines, and for prefill inputs of several sequences the split differs too.
What it can say: how our kernels' times stand against what others reported for the same workloads, and,
where a FlashInfer baseline was timed on the peer's GPU class, each kernel's speedup over FlashInfer on
its own GPU, which takes the machine out of the ratio (not the run-to-run or split differences).

A folder of peer files (default: ../shared/contest/peer_results) may hold three formats:

- flashinfer-bench trace JSONL (`*.jsonl`): one trace per line; the entry is the trace's solution and the
  GPU its `evaluation.environment.hardware`;
- a retained-run JSON (`results[definition][uuid] = {status, latency_ms, ...}`): no GPU recorded;
- a timing CSV by workload index (`*.csv` with `batch_size`, `workload_idx` and `<name>_us` columns):
  one timing source per `_us` column, the index being the workload's position in the contest's list.

Where a file does not record its GPU, it is taken from the file name (b200, gb200, h100, h200) or from
SOURCES, which also names the entry and says where the file came from.
"""

from __future__ import annotations

import csv
import json
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from . import DECODE, DEFINITION_NAMES, PREFILL
from .dataset import load_manifest
from .report import _describe, _us, group_of, load_run, plot_latency, size_of, trace_result

# Provenance of the files in ../shared/contest/peer_results (see ../shared/docs/contest.md, section E),
# by file-name prefix: (entry, GPU if the file does not record it, where it comes from).
SOURCES = {
    "syhya_agent_assisted": (
        "syhya (agent-assisted track, 3rd)", "B200",
        "syhya/mlsys26-flashinfer-contest, agent-assisted retained_run.json; its summary.md names a "
        "Modal B200 image, CUPTI timing, the contest's dataset"),
    "bg51717_antnlp": (
        "antnlp triton v2 (bg51717)", None,
        "bg51717/flashinfer-bench-starter-kit-gated-delta-net, output/*_traces.jsonl"),
    "tomasruizt": (
        "tomasruizt", "B200",
        "tomasruizt/flashinfer-competition-codebase, findings/fi-timing-by-workload-b200.csv (Modal B200)"),
}
# CSV columns of timing sources: the FlashInfer baseline's column makes that source a baseline, against
# which entries on the same GPU get a speedup.
CSV_COLUMNS = {"fi_baseline_us": ("FlashInfer", True), "fla_recurrent_us": ("FLA recurrent", False)}
GPU_NAMES = ("GB200", "B200", "H200", "H100")


@dataclass
class PeerTimes:
    entry: str
    gpu: str                       # "" where unknown
    definition: str
    source: str                    # file name
    latency_ms: Dict[str, float] = field(default_factory=dict)   # uuid -> latency of passed workloads
    failed: List[str] = field(default_factory=list)
    is_flashinfer: bool = False    # a FlashInfer baseline timed on `gpu`
    provenance: str = ""


def _source_info(path: Path) -> Tuple[Optional[str], Optional[str], str]:
    for prefix, (entry, gpu, where) in SOURCES.items():
        if path.name.startswith(prefix):
            return entry, gpu, where
    return None, None, ""


def _gpu_of(text: str) -> str:
    """The first of GPU_NAMES in text (case-insensitive, as a word or file-name token), else ""."""
    for name in GPU_NAMES:
        if re.search(rf"(?<![a-z0-9]){name.lower()}(?![a-z0-9])", text.lower()):
            return name
    return ""


def read_trace_jsonl(path: Path) -> List[PeerTimes]:
    entry, gpu, where = _source_info(path)
    runs: Dict[Tuple[str, str], PeerTimes] = {}
    for line in Path(path).read_text().splitlines():
        if not line.strip():
            continue
        t = json.loads(line)
        environment = (t.get("evaluation") or {}).get("environment") or {}
        hardware = _gpu_of(environment.get("hardware", "")) or gpu or _gpu_of(path.name)
        key = (t["definition"], t.get("solution") or "")
        run = runs.setdefault(key, PeerTimes(entry or key[1], hardware, key[0], path.name, provenance=where))
        uuid, result = t["workload"]["uuid"], trace_result(t)
        if result.status == "PASSED" and result.latency_ms:
            run.latency_ms[uuid] = float(result.latency_ms)
        else:
            run.failed.append(uuid)
    return list(runs.values())


def read_retained_run(path: Path) -> List[PeerTimes]:
    entry, gpu, where = _source_info(path)
    data = json.loads(Path(path).read_text())
    runs = []
    for definition, by_uuid in data["results"].items():
        run = PeerTimes(entry or path.stem, gpu or _gpu_of(path.name), definition, path.name, provenance=where)
        for uuid, r in by_uuid.items():
            if r.get("status") == "PASSED" and r.get("latency_ms"):
                run.latency_ms[uuid] = float(r["latency_ms"])
            else:
                run.failed.append(uuid)
        runs.append(run)
    return runs


def read_timing_csv(path: Path, manifest: Dict[str, List[dict]]) -> List[PeerTimes]:
    """Decode timings by workload index; each row's batch size must match the contest list's."""
    entry, gpu, where = _source_info(path)
    workloads = manifest[DECODE]
    rows = list(csv.DictReader(Path(path).read_text().splitlines()))
    runs = []
    for column in [c for c in (rows[0].keys() if rows else []) if c.endswith("_us")]:
        label, is_fi = CSV_COLUMNS.get(column, (column[:-3], False))
        run = PeerTimes(f"{label} ({entry})" if entry else label, gpu or _gpu_of(path.name), DECODE, path.name,
                        is_flashinfer=is_fi, provenance=where)
        for row in rows:
            index, batch = int(row["workload_idx"]), int(row["batch_size"])
            if not 0 <= index < len(workloads) or int(workloads[index]["batch_size"]) != batch:
                raise ValueError(f"{path.name}: row workload_idx={index} batch_size={batch} does not match "
                                 "the contest's workload list")
            if row[column]:
                run.latency_ms[workloads[index]["uuid"]] = float(row[column]) * 1e-3
        runs.append(run)
    return runs


def read_folder(folder: Path, manifest: Optional[Dict[str, List[dict]]] = None) -> List[PeerTimes]:
    """Every peer file in folder, in file-name order; unknown formats raise."""
    manifest = manifest or load_manifest()
    runs: List[PeerTimes] = []
    for path in sorted(Path(folder).iterdir()):
        if path.suffix == ".jsonl":
            runs += read_trace_jsonl(path)
        elif path.suffix == ".json":
            runs += read_retained_run(path)
        elif path.suffix == ".csv":
            runs += read_timing_csv(path, manifest)
    return [r for r in runs if r.definition in DEFINITION_NAMES]


@dataclass
class OurRun:
    gpu: str
    name: str                      # run folder
    latency_ms: Dict[str, float]   # ours, passed workloads
    baseline_ms: Dict[str, float]  # the FlashInfer baseline of the same run
    kernel_only_ms: Dict[str, float]     # the FlashInfer kernel alone (prefill), same run; may be empty
    groups: Dict[str, Tuple[int, str]]   # uuid -> (sort key, label) of its batch size or token bucket
    single_sequence: List[str]     # prefill workloads of one sequence (the same input in every split)
    described: Dict[str, str]      # uuid -> its shapes in words (our split's longest sequence for prefill)
    size: Dict[str, int]           # uuid -> batch size (decode) or total tokens (prefill)


def _our_run(run_dir: Path, definition: str) -> Optional[OurRun]:
    info, facts, results = load_run(run_dir)
    role = info["roles"].get(definition, {})
    by_solution = results.get(definition, {})
    if role.get("ours") not in by_solution:
        return None
    passed = lambda name: {u: r.latency_ms for u, r in by_solution.get(name, {}).items()
                           if r.status == "PASSED" and r.latency_ms}
    uuids = list(by_solution[role["ours"]])
    single = [u for u in uuids if definition == PREFILL and facts[u]["axes"]["num_seqs"] == 1]
    gpu = _gpu_of(info.get("environment", {}).get("hardware", "")) or info.get("environment", {}).get("hardware", "")
    return OurRun(gpu, Path(run_dir).name, passed(role["ours"]), passed(role.get("baseline", "")),
                  passed(role.get("strict_baseline", "")), {u: group_of(definition, facts[u]) for u in uuids}, single,
                  {u: _describe(definition, facts.get(u)) for u in uuids},
                  {u: size_of(definition, facts[u])[0] for u in uuids})


def _mean(values: Iterable[float]) -> Optional[float]:
    values = list(values)
    return statistics.fmean(values) if values else None


def _speedups(baseline: Dict[str, float], kernel: Dict[str, float]) -> Dict[str, float]:
    return {u: baseline[u] / kernel[u] for u in kernel if u in baseline}


def render_definition(definition: str, ours: OurRun, peers: List[PeerTimes]) -> List[str]:
    peers = [p for p in peers if p.definition == definition]
    md = [f"## {definition}", ""]
    if not peers:
        return md + ["No published per-workload results for this definition.", ""]
    md += [f"Ours: `{ours.name}` on the {ours.gpu}. \"Ours faster\" counts the workloads where our time on the "
           f"{ours.gpu} is below the peer's on its GPU.", "",
           "| source | GPU | workloads passed | mean µs | median µs | ours on the same workloads, mean µs | ours faster |",
           "|---|---|---|---|---|---|---|",
           f"| **ours** (`{ours.name}`) | {ours.gpu} | {len(ours.latency_ms)} | {_us(_mean(ours.latency_ms.values()))} | "
           f"{_us(statistics.median(ours.latency_ms.values()) if ours.latency_ms else None)} | - | - |"]
    for p in peers:
        common = [u for u in p.latency_ms if u in ours.latency_ms]
        faster = sum(ours.latency_ms[u] < p.latency_ms[u] for u in common)
        md.append(f"| {p.entry} | {p.gpu or 'not recorded'} | {len(p.latency_ms)}/{len(p.latency_ms) + len(p.failed)} | "
                  f"{_us(_mean(p.latency_ms.values()))} | "
                  f"{_us(statistics.median(p.latency_ms.values()) if p.latency_ms else None)} | "
                  f"{_us(_mean(ours.latency_ms[u] for u in common))} | {faster}/{len(common)} |")
    md.append("")
    for p in peers:
        slower = sorted((u for u in p.latency_ms if u in ours.latency_ms and ours.latency_ms[u] >= p.latency_ms[u]),
                        key=lambda u: p.latency_ms[u] / ours.latency_ms[u])
        if slower and not p.is_flashinfer:
            md.append(f"Ours not faster than {p.entry} on: " + ", ".join(
                f"`{u[:8]}` ({ours.described[u]}) {_us(ours.latency_ms[u])} / {_us(p.latency_ms[u])} µs"
                for u in slower[:8]) + (f" and {len(slower) - 8} more" if len(slower) > 8 else "") + ".")
            md.append("")
    if ours.single_sequence:
        md += [f"The {len(ours.single_sequence)} workloads of one sequence have the same input shapes in every split:", "",
               "| source | ours on them, mean µs | the source's mean µs | ours faster |", "|---|---|---|---|"]
        for p in peers:
            common = [u for u in ours.single_sequence if u in p.latency_ms and u in ours.latency_ms]
            md.append(f"| {p.entry} ({p.gpu or '?'}) | {_us(_mean(ours.latency_ms[u] for u in common))} | "
                      f"{_us(_mean(p.latency_ms[u] for u in common))} | "
                      f"{sum(ours.latency_ms[u] < p.latency_ms[u] for u in common)}/{len(common)} |")
        md.append("")

    labels = sorted({g for g in ours.groups.values()})
    title = "By batch size" if definition == DECODE else "By total tokens"
    ours_columns = [("ours", ours.latency_ms), ("FlashInfer, our run", ours.baseline_ms)]
    if ours.kernel_only_ms:
        ours_columns.append(("FlashInfer kernel alone, our run", ours.kernel_only_ms))
    md += [f"#### {title}, mean µs", "",
           "| group | workloads | " + " | ".join(f"{name} ({ours.gpu})" for name, _ in ours_columns) + " | "
           + " | ".join(f"{p.entry} ({p.gpu or '?'})" for p in peers) + " |",
           "|" + "---|" * (2 + len(ours_columns) + len(peers))]
    for key in labels:
        uuids = [u for u, g in ours.groups.items() if g == key]
        row = [key[1], str(len(uuids))]
        row += [_us(_mean(times[u] for u in uuids if u in times)) for _, times in ours_columns]
        row += [_us(_mean(p.latency_ms[u] for u in uuids if u in p.latency_ms)) for p in peers]
        md.append("| " + " | ".join(row) + " |")
    md.append("")

    baselines = [p for p in peers if p.is_flashinfer and p.gpu]
    entries = [(p, b) for p in peers if not p.is_flashinfer for b in baselines if b.gpu == p.gpu]
    if ours.baseline_ms and entries:
        ours_speedup = _speedups(ours.baseline_ms, ours.latency_ms)
        md += ["#### Speedup over FlashInfer on each kernel's own GPU", "",
               f"Ours against the FlashInfer baseline of the same run ({ours.gpu}); a peer's against a FlashInfer "
               "baseline timed on the same GPU class by another source (two runs, possibly two machines). Mean "
               "over the group's workloads of FlashInfer's time / the kernel's.", "",
               "| group | ours | " + " | ".join(f"{p.entry} against {b.entry}" for p, b in entries) + " |",
               "|" + "---|" * (2 + len(entries))]
        pair_speedups = [_speedups(b.latency_ms, p.latency_ms) for p, b in entries]
        for key in labels + [(10**9, "all")]:
            pick = (lambda s: list(s.values())) if key[1] == "all" else \
                (lambda s: [s[u] for u, g in ours.groups.items() if g == key and u in s])
            row = [f"**{key[1]}**" if key[1] == "all" else key[1]]
            row += [f"{m:.3f}" if (m := _mean(pick(s))) else "-" for s in [ours_speedup] + pair_speedups]
            md.append("| " + " | ".join(row) + " |")
        md.append("")
    return md


def plot_definition(definition: str, ours: OurRun, peers: List[PeerTimes], path: Path) -> Optional[Path]:
    """Per-workload latency against size (batch or total tokens), ours and every peer source, log-log;
    None without matplotlib."""
    sources = [(f"ours ({ours.gpu})", ours.latency_ms)] + [(f"{p.entry} ({p.gpu or '?'})", p.latency_ms)
                                                         for p in peers if p.definition == definition]
    series = [(label, [(ours.size[u], ms * 1e3) for u, ms in times.items() if u in ours.size])
              for label, times in sources]
    return plot_latency(path, definition, f"{definition}: published results, each on its own GPU", series,
                        alpha=0.7, legend_size=7)


def render(run_dirs: List[Path], peers: List[PeerTimes], plot_dir: Optional[Path] = None) -> str:
    md = ["# Our kernels beside published GDN entries", "",
          "Published per-workload results of other Track C teams, read from their files, beside our side-by-side "
          "runs. Not a measurement: the peers ran on other GPUs (the B200 has about 1.7x the H200's memory "
          "bandwidth and 148 SMs to its 132) and, for prefill, on the contest's real sequence splits, where ours "
          "use synthetic splits with the same uuids, totals and sequence counts. Per workload, the same uuid "
          "is the same shapes; for prefill inputs of several sequences the splits differ.", "",
          "Sources:", ""]
    for source in sorted({(p.source, p.provenance) for p in peers}):
        md.append(f"- `{source[0]}`" + (f": {source[1]}" if source[1] else ""))
    md.append("")
    for definition in DEFINITION_NAMES:
        for run_dir in run_dirs:
            ours = _our_run(Path(run_dir), definition)
            if ours:
                md += render_definition(definition, ours, peers)
                png = plot_definition(definition, ours, peers, Path(plot_dir) / f"peers_{definition}.png") \
                    if plot_dir is not None else None
                if png:
                    md += [f"![latency vs size, each on its own GPU]({png.name})", ""]
                break
    return "\n".join(md)
