"""Timeline of the warp-role prefill kernel (Gluon, sm90) on the GPU: when each warp role reaches
each point of a call, after the contest's L2 flush.

Builds a probed copy of solution/triton/gdn_prefill.py (build/gdn_prefill_roles_probe.py; the
kernel's work is unchanged) whose CTAs record %globaltimer at named points (the state warps' points in
both of their forms: rows, and the transposed state of 8-row launches): the CTA's start; the
state warps' start, their state load (the timer of one element, after its load), each chunk's
ready wait and their end; solver 0's start, its inputs' arrival, its gates, its T and its
hand-off; solver 1's inputs and hand-off; in the second chunk step, S K^T's and E's arrival (a timer
per element after the value), the updated state and the output's stores issued (these probes stretch
the step itself). Runs each input 10 times after an L2 flush (or without it, --no-flush) and prints,
for each point, the median over calls of its earliest and latest CTA, in µs from the call's first
CTA start; and the most CTAs that shared an SM in any call, with the fewest SMs they ran on
(%smid). The timers of the gates, T, the second step's state and the end wait for a reduction of
the value they follow, so those points read a little late. Every CTA's points and SM, per call, go to
warp_roles_timeline_ctas.json.

    python benchmarks/warp_roles_timeline.py --out $OUT --seqlens "18;35;49;61;18,17" [--variants "default;KNOB=v"]

The probed copy has one knob of its own, PROBE_TAIL_CTAS: that many CTAs after the launch's tiles that do
nothing (masked as the idle CTAs before them are), for session 42's finding that such CTAs slow the
state CTAs (--variants "default;PROBE_TAIL_CTAS=30": where the state CTAs land and which phases slow).

Each substitution asserts that its anchor occurs exactly once, so a kernel edit that moves an
anchor fails loudly here instead of probing the wrong place."""

from __future__ import annotations

import argparse
import collections
import json
import statistics as st
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))   # gpu_check's knob helpers, prefill_timeline's loader

POINTS = ["CTA start", "state start", "state loaded", "chunk 0 ready", "chunk 1 ready", "chunk 2 ready",
          "chunk 3 ready", "state end", "solver 0 start", "solver 0 inputs", "solver 0 gates", "solver 0 T",
          "solver 0 handed off", "solver 1 inputs", "solver 1 handed off", "SM",
          "step 1 S K^T", "step 1 E", "step 1 S", "step 1 output issued"]
SM_SLOT = POINTS.index("SM")   # not a time: the SM the CTA ran on (%smid)
SLOTS = len(POINTS)

TIMER = '''
    @gluon.jit
    def _gl_now(x):
        return gl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l,r", [x], dtype=gl.int64, is_pure=False,
                                         pack=1)

    @gluon.jit
    def _gl_smid(x):
        return gl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r,r", [x], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def _gl_as_a('''


def probed_source(src: str) -> str:
    """The kernel file's text with the probes inserted (see the module docstring)."""
    def sub(old, new, count=1):
        nonlocal src
        assert src.count(old) == count, f"probe anchor found {src.count(old)} times: {old[:70]!r}"
        src = src.replace(old, new)

    def at(slot, dep="pid"):
        return f"gl.store(probe_ptr + pid * {SLOTS} + {slot}, _gl_now({dep}))"

    sub("\n    @gluon.jit\n    def _gl_as_a(", TIMER)
    src = src.replace("\nNUM_Q_HEADS = 4\n", "\nPROBE = None\nPROBE_TAIL_CTAS = 0\nNUM_Q_HEADS = 4\n", 1)
    # PROBE_TAIL_CTAS (a knob of the probed copy): that many CTAs after the tiles that do nothing, as the
    # idle CTAs before them do (their length -1, their tile the last real one's, every access masked)
    sub("HEAD: gl.constexpr = 0", "HEAD: gl.constexpr = 0, TAIL: gl.constexpr = 0")
    sub("        tile_id = gl.maximum(pid - IDLE, 0)   # (the first IDLE CTAs have no tile)\n",
        "        tile_id = gl.maximum(pid - IDLE, 0)   # (the first IDLE CTAs have no tile)\n"
        "        if TAIL > 0:\n"
        "            tile_id = gl.minimum(tile_id, gl.num_programs(0) - TAIL - IDLE - 1)\n")
    sub("            seq_len = seq_len - (pid < IDLE).to(gl.int32) * (seq_len + 1)\n",
        "            seq_len = seq_len - (pid < IDLE).to(gl.int32) * (seq_len + 1)\n"
        "        if TAIL > 0:\n"
        "            gl.static_assert(IDLE > 0, 'tail CTAs are masked as idle ones')\n"
        "            seq_len = seq_len - (pid >= gl.num_programs(0) - TAIL).to(gl.int32) * (seq_len + 1)\n")
    sub("        _fit_shared_carveout(_gdn_prefill_warp_roles_kernel[(num_ctas,)](\n",
        "        _fit_shared_carveout(_gdn_prefill_warp_roles_kernel[(num_ctas + PROBE_TAIL_CTAS,)](\n")
    sub("HEAD=head,", "HEAD=head, TAIL=PROBE_TAIL_CTAS,")
    # kernel: the probe buffer, the CTA's start; each partition gets (probe_ptr, pid) as its last argument
    sub("                                       cu_seqlens_ptr, out_ptr, new_state_ptr, scale, num_tokens,\n",
        "                                       cu_seqlens_ptr, out_ptr, new_state_ptr, scale, num_tokens, probe_ptr,\n")
    sub("        pid = gl.program_id(0)\n",
        "        pid = gl.program_id(0)\n        " + at(0) + "\n"
        f"        gl.store(probe_ptr + pid * {SLOTS} + {SM_SLOT}, _gl_smid(pid).to(gl.int64))\n")
    sub("        state_args = (state_ptr, new_state_ptr, out_ptr, bos, seq_len, i_nh, i_h, v0, smem)\n",
        "        state_args = (state_ptr, new_state_ptr, out_ptr, bos, seq_len, i_nh, i_h, v0, smem, probe_ptr, pid)\n")
    sub("scale,\n                       smem)\n", "scale,\n                       smem, probe_ptr, pid)\n")
    # state warps (both forms: rows, and transposed in 8-row launches)
    sub("        state_ptr, new_state_ptr, out_ptr, bos, seq_len, i_nh, i_h, v0, smem = args\n",
        "        state_ptr, new_state_ptr, out_ptr, bos, seq_len, i_nh, i_h, v0, smem, probe_ptr, pid = args\n"
        "        " + at(1) + "\n", count=2)
    # (the state's arrival: a timer per element, each after its own load; element [0, 0]'s is kept)
    for state, shape in (("S", "[BV, K]"), ("St", "[K, VC]")):
        load = f"                                         seq_len, {shape}, mma, HAS_STATE, IDLE)\n"
        if state == "St":
            load = " " + load
        sub(load, load +
            f"        t_s = gl.inline_asm_elementwise(\"mov.u64 $0, %globaltimer;\", \"=l,f\", [{state}], dtype=gl.int64,"
            " is_pure=False, pack=1)\n"
            f"        gl.store(probe_ptr + pid * {SLOTS} + 2 + 0 * tile, t_s, mask=tile == i_nh.to(gl.int64) * (V * K) + v0 * K)\n")
    sub("            gl_mbarrier.wait(ready.index(slot), (j // NSLOT) & 1)\n",
        "            gl_mbarrier.wait(ready.index(slot), (j // NSLOT) & 1)\n"
        f"            gl.store(probe_ptr + pid * {SLOTS} + 3 + j, _gl_now(pid), mask=j < 4)\n", count=2)
    for state in ("S", "St"):
        end = (f"        gl.store(new_state_ptr + tile, gl.where(seq_len > 0, {state}, 0.0), mask=real)"
               "   # an empty sequence's state is 0\n")
        sub(end, end +
            "        " + at(7, f"pid + (gl.max(gl.max({state}, 1), 0) > 3.0e38).to(gl.int32)") + "\n")
    # solvers 0 and 1
    sub("        q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, A_log_ptr, dt_bias_ptr, bos, seq_len, i_h, i_qk, v0, scale, smem = args\n"
        "        (k_bufs, q_bufs, v_bufs, a_bufs, b_bufs, alog_bufs, dtb_bufs, t_bufs, p_bufs, beta_bufs, bg_bufs,\n"
        "         eg_bufs, dg_bufs, glast_bufs, ready, empty, loaded) = smem\n"
        "        mma:",
        "        q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, A_log_ptr, dt_bias_ptr, bos, seq_len, i_h, i_qk, v0, scale, smem, \\\n"
        "            probe_ptr, pid = args\n"
        "        (k_bufs, q_bufs, v_bufs, a_bufs, b_bufs, alog_bufs, dtb_bufs, t_bufs, p_bufs, beta_bufs, bg_bufs,\n"
        "         eg_bufs, dg_bufs, glast_bufs, ready, empty, loaded) = smem\n"
        "        if W_ID == 0:\n            " + at(8) + "\n"
        "        mma:")
    # (the copy helper unpacks the solver's arguments too)
    sub("        q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, A_log_ptr, dt_bias_ptr, bos, seq_len, i_h, i_qk, v0, scale, smem = args\n",
        "        q_ptr, k_ptr, v_ptr, a_ptr, b_ptr, A_log_ptr, dt_bias_ptr, bos, seq_len, i_h, i_qk, v0, scale, smem, \\\n"
        "            probe_ptr, pid = args\n")
    sub("                gl_async_copy.wait_group(0)   # issued right after the previous solve\n\n",
        "                gl_async_copy.wait_group(0)   # issued right after the previous solve\n"
        "            if W_ID < 2:\n"
        "                gl.store(probe_ptr + pid * {0} + 9 + 4 * W_ID, _gl_now(pid), mask=i == 0)\n\n".format(SLOTS))
    sub("                                              dtb_bufs.index(slot), i_h, start, seq_len, HV, BT, mma, ldg, ldh)\n",
        "                                              dtb_bufs.index(slot), i_h, start, seq_len, HV, BT, mma, ldg, ldh)\n"
        "            if W_ID == 0:\n"
        f"                gl.store(probe_ptr + pid * {SLOTS} + 10, _gl_now(pid + (G_last > 3.0e38).to(gl.int32)),"
        " mask=i == 0)\n")
    sub("            t_bufs.index(slot).store(X.to(gl.float16))\n",
        "            if W_ID == 0:\n"
        f"                gl.store(probe_ptr + pid * {SLOTS} + 11,"
        " _gl_now(pid + (gl.max(gl.max(X, 1), 0) > 3.0e38).to(gl.int32)), mask=i == 0)\n"
        "            t_bufs.index(slot).store(X.to(gl.float16))\n")
    sub("            gl_mbarrier.arrive(ready.index(slot))\n",
        "            gl_mbarrier.arrive(ready.index(slot))\n"
        "            if W_ID < 2:\n"
        "                gl.store(probe_ptr + pid * {0} + 12 + 2 * W_ID, _gl_now(pid), mask=i == 0)\n".format(SLOTS))
    # the second chunk step's phases (j == 1): S K^T's and E's arrival (a timer per element, element
    # [0, 0]'s kept), the updated state's (after a reduction), the output's stores issued
    ind = "            "
    elem = "gl.expand_dims(v_rows - v0, 1) + gl.expand_dims(c1, 0)"
    for name, value, line in (
            ("S K^T", "KST", ind + "KST = gl_mma_v2(s_a, k_bufs.index(slot).permute((1, 0)).load(op_b), zero)\n"),
            ("E", "ET", ind + "ET = gl_mma_v2(_gl_as_a(RT, gl.float16, mma), t_bufs.index(slot).permute((1, 0))"
                        ".load(op_b), zero)\n")):
        sub(line, line
            + ind + f"t_{value} = gl.inline_asm_elementwise(\"mov.u64 $0, %globaltimer;\", \"=l,f\", [{value}],"
            " dtype=gl.int64, is_pure=False, pack=1)\n"
            + ind + f"gl.store(probe_ptr + pid * {SLOTS} + {POINTS.index('step 1 ' + name)} + 0 * ({elem}), t_{value},"
            f" mask=({elem} == 0) & (j == 1))\n")
    elem_t = "gl.expand_dims(r1, 1) * VC + gl.expand_dims(vv, 0)"   # (the transposed form's [BT, VC] products)
    for name, value, line in (
            ("S K^T", "KS", ind + "KS = gl_mma_v2(k_bufs.index(slot).load(op_a), s_b, zero)\n"),
            ("E", "E", ind + "E = gl_mma_v2(t_bufs.index(slot).load(op_a), _gl_acc_as_b(R, gl.float16), zero)\n")):
        sub(line, line
            + ind + f"t_{value} = gl.inline_asm_elementwise(\"mov.u64 $0, %globaltimer;\", \"=l,f\", [{value}],"
            " dtype=gl.int64, is_pure=False, pack=1)\n"
            + ind + f"gl.store(probe_ptr + pid * {SLOTS} + {POINTS.index('step 1 ' + name)} + 0 * ({elem_t}), t_{value},"
            f" mask=({elem_t} == 0) & (j == 1))\n")
    for state, line in (("S", ind + "S = gl_mma_v2(ew_a, k_bufs.index(slot).load(op_b), S * g_last)\n"),
                        ("St", ind + "St = gl_mma_v2(k_bufs.index(slot).permute((1, 0)).load(op_a), ew_b, St * g_last)\n")):
        sub(line, line + ind + f"gl.store(probe_ptr + pid * {SLOTS} + {POINTS.index('step 1 S')}, "
            f"_gl_now(pid + (gl.max(gl.max({state}, 1), 0) > 3.0e38).to(gl.int32)), mask=j == 1)\n")
    for line in ("                     OT.to(gl.bfloat16), mask=out_mask)\n",
                 "                     O.to(gl.bfloat16), mask=gl.expand_dims(j * BT + r1 < seq_len, 1))\n"):
        sub(line, line + ind + f"gl.store(probe_ptr + pid * {SLOTS} + {POINTS.index('step 1 output issued')}, "
            "_gl_now(pid), mask=j == 1)\n")
    # launch
    sub("            q, k, v, state_arg, A_log, a, dt_bias, b, cu_seqlens, output, new_state, float(scale), total,\n"
        "            HQ=NUM_Q_HEADS, HV=NUM_V_HEADS, K=HEAD_SIZE, V=HEAD_SIZE, BV=block_v,",
        "            q, k, v, state_arg, A_log, a, dt_bias, b, cu_seqlens, output, new_state, float(scale), total, PROBE,\n"
        "            HQ=NUM_Q_HEADS, HV=NUM_V_HEADS, K=HEAD_SIZE, V=HEAD_SIZE, BV=block_v,")
    ctas = "        num_ctas = WARP_ROLES_IDLE_CTAS + num_seqs * NUM_V_HEADS * (HEAD_SIZE // (rows * WARP_ROLES_STATE_WARPS))\n"
    sub(ctas, ctas + "        global PROBE\n"
        f"        PROBE = torch.zeros((num_ctas + PROBE_TAIL_CTAS) * {SLOTS}, dtype=torch.int64, device=device)\n")
    return src


def load_probed_module():
    from prefill_timeline import load_probed_module as load   # the same build-and-import, our probes
    return load(probed_source, "gdn_prefill_roles_probe")


def call_start(call):
    """The first CTA start of a call (ns, %globaltimer); CTAs with no start recorded are skipped."""
    return min(p[0] for p in call if p[0])


def summarize(calls):
    """{point: (earliest CTA, latest CTA)} in µs from each call's first CTA start, medians over calls."""
    rows = {}
    for slot, name in enumerate(POINTS):
        if slot == SM_SLOT:
            continue
        first, last = [], []
        for call in calls:
            t0 = call_start(call)
            seen = [p[slot] - t0 for p in call if p[slot]]
            if seen:
                first.append(min(seen) / 1e3)
                last.append(max(seen) / 1e3)
        if first:
            rows[name] = (round(st.median(first), 2), round(st.median(last), 2))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seqlens", default="18;35;49;61;18,17", help="inputs, ';'-separated, each 'len,len,...'")
    parser.add_argument("--variants", default="default", help="';'-separated KNOB=v,KNOB=v (gpu_check syntax)")
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--no-flush", action="store_true",
                        help="skip the L2 flush before each call (the code and the inputs stay in L2): "
                             "separates what comes from HBM in a cold call from what the SMs compute")
    args = parser.parse_args()

    import torch

    from gdnkit.inputs import prefill_inputs, seeded_generator
    from gpu_check import apply_knobs, knob_defaults, parse_variants

    mod = load_probed_module()
    defaults = knob_defaults(mod)
    flush = torch.empty(512 << 20, dtype=torch.int8, device="cuda")
    results, raw = {}, {}
    for variant in parse_variants(args.variants):
        apply_knobs(mod, variant, defaults)
        for text in args.seqlens.split(";"):
            seqlens = [int(n) for n in text.split(",")]
            x = prefill_inputs(seqlens, seeded_generator(0, "timeline", text), device="cuda")
            total, num_seqs = x["q"].shape[0], len(seqlens)
            out = torch.empty(total, 8, 128, dtype=torch.bfloat16, device="cuda")
            new_state = torch.empty(num_seqs, 8, 128, 128, device="cuda")
            mod.PROBE = None
            for _ in range(3):
                mod.run(*x.values(), out, new_state)
            if mod.PROBE is None:
                print(f"== {variant or 'default'} {text}: not on the warp-role kernel", flush=True)
                continue
            calls = []
            for _ in range(args.calls):
                if not args.no_flush:
                    flush.zero_()
                torch.cuda.synchronize()
                mod.run(*x.values(), out, new_state)
                torch.cuda.synchronize()
                calls.append(mod.PROBE.view(-1, SLOTS).cpu().tolist())
            rows = summarize(calls)
            # the most CTAs that shared an SM in any call, and the fewest SMs the CTAs ran on
            per_sm = [collections.Counter(p[SM_SLOT] for p in call) for call in calls]
            rows["CTAs per SM, SMs"] = (max(max(c.values()) for c in per_sm), min(len(c) for c in per_sm))
            results[f"{variant or 'default'} {text}"] = rows
            # every CTA of every call: its SM and its points in µs from the call's first CTA start
            raw[f"{variant or 'default'} {text}"] = [
                [{"pid": i, "sm": p[SM_SLOT],
                  **{name: round((p[k] - t0) / 1e3, 3) for k, name in enumerate(POINTS) if k != SM_SLOT and p[k]}}
                 for i, p in enumerate(call) if p[0]]
                for call, t0 in ((call, call_start(call)) for call in calls)]
            print(f"== {variant or 'default'} {text}", flush=True)
            for name, (first, last) in rows.items():
                print(f"   {name:22s} {first:6.2f} {last:6.2f}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "warp_roles_timeline.json").write_text(json.dumps(results, indent=1))
    (args.out / "warp_roles_timeline_ctas.json").write_text(json.dumps(raw))


if __name__ == "__main__":
    main()
