"""Session 49 scratch: prefill_timeline.py's probes plus four more in the scan programs (12 slots):
8 after the ranked lookup (i_n known), 9 after the state tile arrived (S used), 10 after gdc_wait,
11 after the chunk loop (S final). Usage as prefill_timeline.py --out/--workloads/--variants."""
import json, sys, statistics as st, collections
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
import prefill_timeline as ptl

def probed(src):
    src = ptl.probed_source(src)
    assert src.count("* 8 +") >= 10
    src = src.replace("* 8 +", "* 12 +").replace("PROBE = torch.zeros(8 *", "PROBE = torch.zeros(12 *")
    def sub(old, new):
        nonlocal src
        assert src.count(old) == 1, (src.count(old), old[:80])
        src = src.replace(old, new)
    sub("            i_n, bos, seq_len = _ranked_sequence(cu_seqlens_ptr, num_seqs, order_ptr, epoch, rank, LONG_NP2, INT32)\n",
        "            i_n, bos, seq_len = _ranked_sequence(cu_seqlens_ptr, num_seqs, order_ptr, epoch, rank, LONG_NP2, INT32)\n"
        "            tl.store(probe_ptr + qid * 12 + 8, _now(pid + (i_n < -5).to(tl.int32) + (bos < -5).to(tl.int32)))\n")
    sub("    tile, S = _load_state_tile(state_ptr, i_nh, offs_v, offs_k, K, V, BV, HAS_STATE)\n\n    num_chunks = tl.cdiv(seq_len, BT)\n",
        "    tile, S = _load_state_tile(state_ptr, i_nh, offs_v, offs_k, K, V, BV, HAS_STATE)\n"
        "    tl.store(probe_ptr + ppid * 12 + 9, _now(ppid + (tl.max(tl.max(S, axis=1), axis=0) > 3.0e38).to(tl.int32)))\n"
        "\n    num_chunks = tl.cdiv(seq_len, BT)\n")
    sub("            gdc_wait()\n", "            gdc_wait()\n            tl.store(probe_ptr + ppid * 12 + 10, _now(ppid))\n")
    sub("    S = tl.where(seq_len > 0, S, 0.0)\n    tl.store(new_state_ptr + tile, S)\n\n\n@triton.jit\ndef _chunk_scan_one(",
        "    tl.store(probe_ptr + ppid * 12 + 11, _now(ppid + (tl.max(tl.max(S, axis=1), axis=0) > 3.0e38).to(tl.int32)))\n"
        "    S = tl.where(seq_len > 0, S, 0.0)\n    tl.store(new_state_ptr + tile, S)\n\n\n@triton.jit\ndef _chunk_scan_one(")
    return src

def analyse(entry):
    L = entry["launch"]; npre = L["num_prep"]
    calls = entry["calls"]
    span = lambda c: max(p[2] for p in c) - min(p[0] for p in c if p[0])
    c = sorted(calls, key=span)[len(calls) // 2]
    t0 = min(p[0] for p in c if p[0])
    pe = max(p[2] for p in c[:npre] if p[2])
    out = [f"== {entry['variant']} {entry['uuid']}: span {span(c)/1e3:.1f} us, prep end {(pe-t0)/1e3:.1f}"]
    groups = collections.defaultdict(list)
    for p in c[npre:]:
        if not p[2] or not p[0]:
            continue
        late = p[0] > pe
        if not p[1]:   # (no probe: an exiting program, or the one-chunk path of CHUNKED_SPLIT_ONE_CHUNK_FIRST)
            if p[2] - p[0] > 1500:
                groups[(0, 1, late)].append(p)
            continue
        groups[(p[6], min(p[4], 6), late)].append(p)
    us = lambda x: x / 1e3
    out.append("  (bv, chunks<=6, started after preps): n | order | state | gdc | loop end | end  (us from start, medians)")
    for key in sorted(groups):
        ps = groups[key]
        med = lambda i: st.median(us(p[i] - p[0]) if p[i] else -1.0 for p in ps)
        out.append(f"  {key}: {len(ps)} | {med(8):.2f} | {med(9):.2f} | {med(10):.2f} | {med(11):.2f} | {med(2):.2f}  wait(slot1) {med(1):.2f}")
    return "\n".join(out)

if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("."))
    ap.add_argument("--workloads", default="06f21bb1,a2629e02")
    ap.add_argument("--variants", default="default")
    ap.add_argument("--summary", type=Path)
    a = ap.parse_args()
    ptl.SLOTS = 12
    if a.summary:
        for e in json.loads(a.summary.read_text()):
            print(analyse(e))
        sys.exit(0)
    orig = ptl.load_probed_module
    ptl.load_probed_module = lambda source=None, name="gdn_prefill_probe": orig(probed, name)
    ptl.summary = lambda e: ptl.__dict__["_orig_summary"](e) if False else analyse(e)
    a.out.mkdir(parents=True, exist_ok=True)
    ptl.record(a.out, a.workloads.split(","), ["" if v == "default" else v for v in a.variants.split(";")])
