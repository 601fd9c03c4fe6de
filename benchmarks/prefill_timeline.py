"""Per-program timeline of the chunked prefill kernel on the GPU: where a call's time goes.

Builds a probed copy of solution/triton/gdn_prefill.py (build/gdn_prefill_probe.py; the kernel
itself is unchanged) whose programs record %globaltimer and %smid: every program at its start and
end, a scan program also after its flag wait (with its chunk count, sequence-head and V tile; in
the 16-token configuration also after its own first chunk's step, which comes before that wait:
CHUNKED_SHORT_SELF_FIRST) and at three points of its own: once its sequence is known (ranked scans),
once its state tile has arrived and after its chunk loop (the last two made to depend on the state's
values, so they wait for it),
a prep program also after Q K^T and after its value heads' records. Runs each workload after an
L2 flush (5 calls) and prints, for the median call: the prep and scan phases, the mean wait and
the fitted cost per program and per chunk, the last program to finish, and how many programs
were resident over time. The probes cost a few instructions; spans agree with CUPTI within ~1%.

    python benchmarks/prefill_timeline.py --out $OUT --workloads 06f21bb1,d49df0b2 [--variants "default;KNOB=v"]
    python benchmarks/prefill_timeline.py --summary $OUT/timeline.json

The probe is inserted by text substitution: each substitution asserts that its anchor occurs
exactly once, so a kernel edit that moves an anchor fails loudly here instead of probing the
wrong place."""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics as st
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))   # gpu_check's knob and argument helpers

SLOTS = 11   # per program: t_start, t_waited, t_end, smid, chunks | t_qk, i_nh | t_head0, bv | t_heads,
#   then scans only: t_sequence, t_state, t_loop

TIMER = '''
@triton.jit
def _now(x):
    return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l,r", [x], dtype=tl.int64, is_pure=False,
                                     pack=1)


@triton.jit
def _smid(x):
    return tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r,r", [x], dtype=tl.int32, is_pure=False,
                                     pack=1)


@triton.jit
def _chunk_gates('''


def probed_source(src: str) -> str:
    """The kernel file's text with the probes inserted (see the module docstring)."""
    def sub(old, new):
        nonlocal src
        assert src.count(old) == 1, f"probe anchor found {src.count(old)} times: {old[:70]!r}"
        src = src.replace(old, new)

    sub("\n@triton.jit\ndef _chunk_gates(", TIMER)
    src = src.replace("_LN2 = tl.constexpr", "LAST = {}\nPROBE = None\n_LN2 = tl.constexpr", 1)
    # kernel: probe buffer argument, start/end/smid of every program
    sub("scale, num_seqs, num_tokens, num_prep, epoch, long_ranks, num_early_prep, num_early_scans,\n",
        "scale, num_seqs, num_tokens, num_prep, epoch, probe_ptr, long_ranks, num_early_prep, num_early_scans,\n")
    # (split launches: the scan launch's programs record after the prep launch's, at num_prep + pid)
    sub("    pid = tl.program_id(0)\n    rotation = 0\n",
        "    pid = tl.program_id(0)\n    t0 = _now(pid)\n    qid = pid + (num_prep if ROLE == 2 else 0)\n"
        "    rotation = 0\n")
    # (the chunked kernel's last statement; what follows it in the file does not matter)
    sub("PRECISION, SELF_FIRST_SB, WAIT=ROLE != 2, GRID_WAIT=PDL)\n",
        "PRECISION, SELF_FIRST_SB, WAIT=ROLE != 2, GRID_WAIT=PDL)\n    tl.store(probe_ptr + qid * @SLOTS@ + 0, t0)\n"
        "    tl.store(probe_ptr + qid * @SLOTS@ + 2, _now(pid))\n"
        "    tl.store(probe_ptr + qid * @SLOTS@ + 3, _smid(pid).to(tl.int64))\n")
    # scan: after the flag wait
    sub("    K_SPLIT: tl.constexpr = False,\n):\n    \"\"\"The state recursion",
        "    K_SPLIT: tl.constexpr = False, probe_ptr=None, ppid=0,\n):\n    \"\"\"The state recursion")
    probe = ("tl.store(probe_ptr + ppid * @SLOTS@ + 1, _now(ppid))\n{0}"
             "tl.store(probe_ptr + ppid * @SLOTS@ + 4, num_chunks.to(tl.int64))\n{0}"
             "tl.store(probe_ptr + ppid * @SLOTS@ + 5, i_nh.to(tl.int64))\n{0}"
             "tl.store(probe_ptr + ppid * @SLOTS@ + 6, BV + 0 * ppid.to(tl.int64))\n")
    wait = "_await_chunks(flag_ptr, first_slot, {}, i_h, epoch, HV, FLAG_BLOCK)\n"
    sub("        " + wait.format("J0, num_chunks"), "        " + wait.format("J0, num_chunks") + "        "
        + probe.format("        "))
    # (BLOCKED: after the first block's wait)
    sub("            " + wait.format("b0, b1"), "            " + wait.format("b0, b1") + "            if b0 == J0:\n"
        "                " + probe.format("                "))
    # scan, 16-token configuration: after its own first chunk's step (slot 7; a prep's slot 7 is 1)
    sub("neg_rate, dt_bias, offs_v, scale, HQ, HV, K, V, BT, SELF_FIRST_SB, BF16_STATE, PRECISION)\n",
        "neg_rate, dt_bias, offs_v, scale, HQ, HV, K, V, BT, SELF_FIRST_SB, BF16_STATE, PRECISION)\n"
        "        tl.store(probe_ptr + ppid * @SLOTS@ + 7, _now(ppid + (tl.max(tl.max(S, axis=1), axis=0) > 3.0e38)"
        ".to(tl.int32)))\n")
    head, body = src.split("def _gdn_prefill_chunked_kernel(", 1)
    pos, calls = 0, 0
    while (j := body.find("_chunk_scan(", pos)) >= 0:   # append the probe arguments to each call
        depth, k = 0, j + len("_chunk_scan(") - 1
        while True:
            depth += {"(": 1, ")": -1}.get(body[k], 0)
            if depth == 0:
                break
            k += 1
        body, pos, calls = body[:k] + ", probe_ptr=probe_ptr, ppid=qid" + body[k:], k, calls + 1
    assert calls == 3, calls
    src = head + "def _gdn_prefill_chunked_kernel(" + body
    # prep: after Q K^T, after the value heads' records (timers made to depend on the values)
    sub("    flag_ptr, num_seqs, num_tokens, epoch, v_ptr, trans_ptr, uy_ptr, scale,\n",
        "    flag_ptr, num_seqs, num_tokens, epoch, v_ptr, trans_ptr, uy_ptr, scale, probe_ptr, ppid,\n")
    sub("epoch, v_ptr, trans_ptr, uy_ptr, scale, HQ,", "epoch, v_ptr, trans_ptr, uy_ptr, scale, probe_ptr, pid, HQ,")
    sub("        QK = tl.dot(q_c, tl.trans(k_c))\n",
        "        QK = tl.dot(q_c, tl.trans(k_c))\n"
        "        t_a = _now(pid + (tl.max(tl.max(QK, axis=1), axis=0) > 3.0e38).to(tl.int32))\n")
    sub("    tl.store(gate_ptr + rec * (2 * BT) + BT + offs_t, beta)\n",
        "    tl.store(gate_ptr + rec * (2 * BT) + BT + offs_t, beta)\n    return tl.max(tl.max(P, axis=1), axis=0)\n")
    sub("        _prep_head(h0, slot,", "        x0 = _prep_head(h0, slot,")
    sub("            _prep_head(h0 + 1, slot,", "            x1 = _prep_head(h0 + 1, slot,")
    sub("        if RELEASE:\n            tl.debug_barrier()   # every thread's stores are issued before the releases below\n",
        "        t_b = _now(pid + (x0 > 3.0e38).to(tl.int32))\n        if HEADS == 2:\n"
        "            t_c = _now(pid + (x1 > 3.0e38).to(tl.int32))\n        else:\n            t_c = t_b\n"
        "        tl.store(probe_ptr + ppid * @SLOTS@ + 4, t_a)\n        tl.store(probe_ptr + ppid * @SLOTS@ + 5, t_b)\n"
        "        tl.store(probe_ptr + ppid * @SLOTS@ + 6, t_c)\n        tl.store(probe_ptr + ppid * @SLOTS@ + 7, 1 + 0 * t_c)\n"
        "        if RELEASE:\n            tl.debug_barrier()   # every thread's stores are issued before the releases below\n")
    # launch: the probe buffer, and what run() chose
    sub("output, new_state, float(scale), num_seqs, total, num_prep, epoch,",
        "output, new_state, float(scale), num_seqs, total, num_prep, epoch, PROBE,")
    sub("    args = (q, k, v,",
        "    global PROBE\n"
        f"    PROBE = torch.zeros({SLOTS} * (num_prep + num_scans), dtype=torch.int64,"
        " device=device)\n"
        "    LAST.update(num_prep=num_prep, bv=block_v, bv_long=block_v_long, stages=stages, prep_heads=prep_heads,"
        " path=path, longest_first=longest_first, early_prep=early_prep, early_scans=early_scans, split=split)\n"
        "    args = (q, k, v,")
    # scan: once its sequence is known (ranked scans; made to depend on it)
    sub("            i_n, bos, seq_len = _ranked_sequence(cu_seqlens_ptr, num_seqs, order_ptr, epoch, rank, LONG_NP2, INT32)\n",
        "            i_n, bos, seq_len = _ranked_sequence(cu_seqlens_ptr, num_seqs, order_ptr, epoch, rank, LONG_NP2, INT32)\n"
        "            tl.store(probe_ptr + qid * @SLOTS@ + 8, _now(pid + (i_n < -5).to(tl.int32) + (bos < -5).to(tl.int32)))\n")
    # scan: once its state tile has arrived, after the chunk loop
    ready = "_now(ppid + (tl.max(tl.max(S, axis=1), axis=0) > 3.0e38).to(tl.int32))"
    sub("    tile, S = _load_state_tile(state_ptr, i_nh, offs_v, offs_k, K, V, BV, HAS_STATE)\n\n    num_chunks = tl.cdiv(",
        "    tile, S = _load_state_tile(state_ptr, i_nh, offs_v, offs_k, K, V, BV, HAS_STATE)\n"
        f"    tl.store(probe_ptr + ppid * @SLOTS@ + 9, {ready})\n\n    num_chunks = tl.cdiv(")
    sub("    S = tl.where(seq_len > 0, S, 0.0)\n    tl.store(new_state_ptr + tile, S)\n\n\n@triton.jit(do_not_specialize",
        f"    tl.store(probe_ptr + ppid * @SLOTS@ + 10, {ready})\n"
        "    S = tl.where(seq_len > 0, S, 0.0)\n    tl.store(new_state_ptr + tile, S)\n\n\n@triton.jit(do_not_specialize")
    return src.replace("@SLOTS@", str(SLOTS))


def load_probed_module(source=None, name="gdn_prefill_probe"):
    """The prefill kernel file with probes inserted by `source` (this file's probed_source unless
    given), written to build/<name>.py and imported."""
    out = ROOT / "build" / f"{name}.py"
    out.parent.mkdir(exist_ok=True)
    out.write_text((source or probed_source)((ROOT / "solution" / "triton" / "gdn_prefill.py").read_text()))
    spec = importlib.util.spec_from_file_location(name, out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record(out_dir: Path, workloads, variants):
    import torch

    from gdnkit import PREFILL
    from gdnkit.dataset import load_manifest
    from gpu_check import apply_knobs, knob_defaults, workload_args   # the same KNOB=v,KNOB=v syntax

    mod = load_probed_module()
    manifest = {w["uuid"][:8]: w for w in load_manifest()[PREFILL]}
    flush = torch.empty(512 << 20, dtype=torch.int8, device="cuda")
    defaults = knob_defaults(mod)
    results = []
    for variant in variants:
        apply_knobs(mod, variant, defaults)
        for uid in workloads:
            w = manifest[uid]
            args = workload_args(w)
            # The probes exist only in the chunked kernel: cleared first, so that an input that
            # run() sends to the fused or recurrent kernel is reported as such, not summarised from
            # the previous input's probes (LAST is rewritten by every chunked launch).
            mod.PROBE = None
            for _ in range(3):
                mod.run(*args)
            if mod.PROBE is None:
                print(f"== {variant or 'default'} {uid} T{sum(w['seqlens'])} N{len(w['seqlens'])}: not on the "
                      "chunked kernel (run() chose the fused or recurrent one), no timeline", flush=True)
                continue
            calls = []
            for _ in range(5):
                flush.zero_()
                torch.cuda.synchronize()
                mod.run(*args)
                torch.cuda.synchronize()
                calls.append(mod.PROBE.view(-1, SLOTS).cpu().tolist())
            results.append({"variant": variant or "default", "uuid": uid, "seqlens": w["seqlens"],
                            "launch": dict(mod.LAST), "calls": calls})
            print(summary(results[-1]), flush=True)
    (out_dir / "timeline.json").write_text(json.dumps(results))


def summary(entry) -> str:
    """Text summary of the median call of one workload's record."""
    npre = entry["launch"]["num_prep"]
    ep, es = entry["launch"].get("early_prep", 0), entry["launch"].get("early_scans", 0)

    def is_prep(i):   # the grid's order (see the kernel's OVERLAP)
        return i < npre if not es else (i < ep or ep + es <= i < npre + es)

    def span(call):
        return max(p[2] for p in call) - min(p[0] for p in call if p[0])

    call = sorted(entry["calls"], key=span)[len(entry["calls"]) // 2]
    t0, total = min(p[0] for p in call if p[0]), span(call)
    us = lambda ns: ns / 1e3  # noqa: E731
    preps = [p for i, p in enumerate(call) if is_prep(i) and p[0]]
    scans = [p for i, p in enumerate(call) if not is_prep(i) and p[0]]
    working = [p for p in scans if p[1]]
    lines = [f"== {entry['variant']} {entry['uuid']} T{sum(entry['seqlens'])} N{len(entry['seqlens'])}: "
             f"{us(total):.1f} us; {entry['launch']}"]
    written = [p for p in preps if p[7]]
    if preps:
        lines.append(f"  prep: {len(preps)} programs ({len(written)} with records), "
                     f"{st.mean(us(p[2] - p[0]) for p in preps):.2f} us each, "
                     f"the last ends at {us(max(p[2] for p in preps) - t0):.1f}")
    if written:
        lines.append("    of which to Q K^T {:.2f}, first head {:.2f}, second head {:.2f}, release {:.2f}".format(
            *(st.mean(us(p[b] - p[a]) for p in written) for a, b in ((0, 4), (4, 5), (5, 6), (6, 2)))))
    if working:
        lines.append(f"  scan: {len(scans)} programs ({len(working)} working), first start "
                     f"{us(min(p[0] for p in scans) - t0):.1f}, last start {us(max(p[0] for p in scans) - t0):.1f}; "
                     f"wait {st.mean(us(p[1] - p[0]) for p in working):.2f} us")
        own = [p for p in working if p[7] > 1]
        if own:
            lines.append(f"    own first chunk stepped {st.mean(us(p[7] - p[0]) for p in own):.2f} us after the start "
                         f"({len(own)} programs), the wait for the rest ended {st.mean(us(p[1] - p[7]) for p in own):.2f}"
                         " us later")
        for bv in sorted({p[6] for p in working}):
            xs = [p[4] for p in working if p[6] == bv]
            ys = [us(p[2] - p[1]) for p in working if p[6] == bv]
            fit = ""
            if len(set(xs)) > 1:
                mx, my = st.mean(xs), st.mean(ys)
                slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
                fit = f"{my - slope * mx:.2f} + {slope:.2f} per chunk"
            lines.append(f"    BV{bv}: {len(xs)} programs, {st.mean(xs):.1f} chunks, "
                         f"{st.mean(ys):.1f} us after the wait {fit}")
        if len(working[0]) >= 11:   # (records of 8 slots, before session 49, have no phases)
            lines.append("    phases (median µs after the start; state arrived, loop ended: timers that wait for the state's "
                         "values): " + "; ".join(_scan_phases(working, bv, [p for p in preps if p[2]])
                                                 for bv in sorted({p[6] for p in working})))
        last = max(working, key=lambda p: p[2])
        lines.append(f"  last to finish: sequence-head {last[5]}, {last[4]} chunks, BV{last[6]}: start "
                     f"{us(last[0] - t0):.1f}, waited {us(last[1] - t0):.1f}, end {us(last[2] - t0):.1f}")
    resident = []
    for b in range(10):
        t = t0 + total * (b + 0.5) / 10
        resident.append((sum(p[0] <= t < p[2] for p in preps), sum(p[0] <= t < p[2] for p in scans),
                         sum(p[1] <= t < p[2] for p in working)))
    lines.append("  resident prep/scan(working) by tenths: " + " ".join(f"{a}/{b}({c})" for a, b, c in resident))
    return "\n".join(lines)


def _scan_phases(working, bv, preps) -> str:
    """Median times after a scan program's start, for the programs of tile width bv that started after
    the last prep program ended (none waited for a record): its sequence known (ranked scans), its
    state tile arrived, its chunk loop ended, its end; and the chunk loop of those with one chunk."""
    prep_end = max((p[2] for p in preps), default=0)
    late = [p for p in working if p[6] == bv and p[0] > prep_end and p[9]]
    if not late:
        return f"BV{bv}: no program started after the preps"
    med = lambda a: st.median((p[a] - p[0]) / 1e3 for p in late)  # noqa: E731
    one = [p for p in late if p[4] == 1]
    known = f"sequence known {med(8):.2f}, " if all(p[8] for p in late) else ""
    text = f"BV{bv} ({len(late)} programs): {known}state {med(9):.2f}, loop end {med(10):.2f}, end {med(2):.2f}"
    if one:
        text += f"; one-chunk programs' loop {st.median((p[10] - p[9]) / 1e3 for p in one):.2f}"
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=Path("."))
    ap.add_argument("--workloads", default="06f21bb1,d49df0b2,6f1ad833", help="uuid prefixes, comma-separated")
    ap.add_argument("--variants", default="default", help="KNOB=v,KNOB=v;... ('default': the file's own knobs)")
    ap.add_argument("--summary", type=Path, help="print the summary of an existing timeline.json instead")
    args = ap.parse_args()
    if args.summary:
        for entry in json.loads(args.summary.read_text()):
            print(summary(entry))
        return
    args.out.mkdir(parents=True, exist_ok=True)
    record(args.out, args.workloads.split(","), ["" if v == "default" else v for v in args.variants.split(";")])


if __name__ == "__main__":
    main()
