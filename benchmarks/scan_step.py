"""Steady-state cost of one chunk step of the chunked kernel's wide scan (64-token chunks, 64-column tiles, fp16
T R and P E), apart from everything else a launch does: a wrapper kernel calls the kernel file's own record
loop (_scan_record_chunks) on synthetic records, each program stepping `--chunks` chunks, and a second wrapper
only loads the same operands (k, q [64, 128] bf16, v [64, 64] bf16, T, P [64, 64] fp16: 56 KB a step) through a
pipeline of the same depth and feeds each pair to one product. As in the kernel's split scan launch, the 16
programs of a sequence (8 value heads, 2 V tiles) run at the same time and share its k and q rows and its
records through L2; the programs' sequences are `--window` ones, taken in turn. Each configuration (stages,
CTAs per SM) is timed over ten launches back to back, so that no launch starts on an idle GPU (a launch timed
alone after a synchronize carried about 35 µs more on the H200: notes/prefill.md, session 50).

On sm90 the same recurrence also runs as the pair loop (Gluon, warp roles, both 64-column halves of a head in one
CTA: see the comment above _pair_program), one CTA an item and persistent (one CTA an SM taking items in turn).

    python benchmarks/scan_step.py [--chunks 64] [--window 8] [--waves 1] [--out DIR]

Prints, per configuration, µs a launch and µs a tile's chunk step takes an SM, and writes scan_step.json under
--out. On the H200 (session 51, run 5): the loop 1.99 µs a step at three stages and one CTA an SM, 2.84 at two
stages, 1.77 an SM with two two-stage CTAs an SM; its loads alone 0.95 at three stages, 1.53 at two; the pair
loop 1.29, persistent or not, 1.16 persistent with the storer's gate vectors (run 7). With one or two chunks an
item (--chunks 1 --waves 16, --chunks 2 --waves 8) the loop takes 3.28 and 3.25, the pair loop 3.87 and 2.29,
persistent 2.75 and 1.88, with the storer's gates 3.70 and 1.75."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gdnkit.kernels import load_kernel_module  # noqa: E402

try:   # the Gluon pair loop (sm90); the Triton wrappers work without it
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia.ampere import async_copy as gl_async_copy
    from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, warpgroup_mma,
                                                                  warpgroup_mma_wait)
    GLUON_AVAILABLE = True
except Exception:   # pragma: no cover (Triton 3.6 has it)
    GLUON_AVAILABLE = False

PREFILL = load_kernel_module("gdn_prefill")
_record_loop = PREFILL._scan_record_chunks

BT, BV, K, HQ, HV = 64, 64, 128, 4, 8
SCALE = 0.088   # the wrappers' attention scale (a literal in the kernels)
CONFIGS = ((3, 1), (2, 1), (2, 2))   # (pipeline stages, CTAs per SM)


@triton.jit
def _program_tile(window):
    """This program's (sequence, value head, token offsets, K offsets, V columns): sequence (pid // 16) % window,
    value head pid % 8, V tile (pid // 8) % 2 of 64 columns."""
    pid = tl.program_id(0)
    return ((pid // 16) % window, pid % 8, tl.arange(0, 64), tl.arange(0, 128),
            (pid // 8 % 2) * 64 + tl.arange(0, 64))


@triton.jit
def _loop_program(q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, n, window,
                  STAGES: tl.constexpr, BF16_STATE: tl.constexpr, PRECISION: tl.constexpr):
    """Program pid steps n chunks of sequence (pid // 16) % window (n chunks of 64 tokens from token
    seq * n * 64, records from slot seq * n), value head pid % 8, V tile (pid // 8) % 2, from a zero state,
    and stores its [64, 128] state tile at state_ptr + pid * 8192."""
    pid = tl.program_id(0)
    seq, i_h, offs_t, offs_k, offs_v = _program_tile(window)
    S = tl.zeros([64, 128], dtype=tl.float32)
    S = _record_loop(S, i_h, i_h // 2, seq * n * 64, n * 64, seq * n, 0, n, q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr,
                     gate_ptr, out_ptr, 0.088, offs_t, offs_k, offs_v, 4, 8, 128, 128, 64, STAGES, True, BF16_STATE,
                     PRECISION)
    tl.store(state_ptr + pid * 8192 + tl.arange(0, 64)[:, None] * 128 + offs_k[None, :], S)


@triton.jit
def _loads_program(q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, n, window,
                   STAGES: tl.constexpr, BF16_STATE: tl.constexpr, PRECISION: tl.constexpr):
    """The same program's operands (k, q, v tile, T, P of each chunk) through a pipeline of STAGES, each
    pair into one product and nothing else; stores the three sums so that nothing is left out."""
    pid = tl.program_id(0)
    seq, i_h, offs_t, offs_k, offs_v = _program_tile(window)
    acc_kq = tl.zeros([64, 64], dtype=tl.float32)
    acc_tp = tl.zeros([64, 64], dtype=tl.float32)
    acc_v = tl.zeros([64, 64], dtype=tl.float32)
    for j in tl.range(0, n, num_stages=STAGES):
        tok = seq * n * 64 + j * 64 + offs_t
        rec = (seq * n + j) * 8 + i_h
        square = rec * 4096 + offs_t[:, None] * 64 + offs_t[None, :]
        k_c = tl.load(k_ptr + (tok * 4 + i_h // 2)[:, None] * 128 + offs_k[None, :])
        q_c = tl.load(q_ptr + (tok * 4 + i_h // 2)[:, None] * 128 + offs_k[None, :])
        v_c = tl.load(v_ptr + (tok * 8 + i_h)[:, None] * 128 + offs_v[None, :])
        T = tl.load(tri_ptr + square)
        P = tl.load(qk_ptr + square)
        acc_kq = tl.dot(k_c, tl.trans(q_c), acc_kq)
        acc_tp = tl.dot(T, P, acc_tp)
        acc_v = tl.dot(v_c, tl.trans(v_c), acc_v)
    tl.store(state_ptr + pid * 8192 + offs_t[:, None] * 128 + offs_t[None, :], acc_kq + acc_tp + acc_v)


# The pair loop (Gluon, sm90; session 51): the same recurrence as _loop_program, one CTA per (sequence, value head)
# stepping both 64-column halves of the head's state at once, in warp roles (gl.warp_specialize):
# * producer (PAIR_PRODUCER_WARPS): copies each chunk's k and q rows, both halves of v, T, P and the gate row
#   (cp.async) into slot c % PAIR_SLOTS of a ring in shared memory (c counts the CTA's chunks over its items),
#   arriving on the slot's `ready` barrier;
# * two consumer warpgroups, one a half: each holds its state half S [64 v, 128 k] in wgmma accumulator registers
#   and steps in the transposed form, every product a wgmma with its left operand from registers:
#       KS^T = S K^T,  QS^T = S Q^T,  R^T = beta V^T - beta e^G KS^T,  E^T = R^T T^T,
#       O^T = scale (e^G QS^T + E^T P^T),  S = e^{G_last} S + (E^T e^{G_last - G}) K;
#   it hands the slot back on `empty` (two arrivals) and its output tile to an output slot;
# * storer (PAIR_STORER_WARPS): copies each output tile from its slot to memory with 16-byte stores (written
#   by the consumers themselves the stores cost 0.3-0.6 µs a step, session 51). With GATES it also writes each
#   chunk's gate vectors (beta, beta e^G, e^G, e^{G_last - G}, e^{G_last}) into the slot one chunk ahead, and the
#   consumers wait for those instead of computing them (one output slot a consumer then, for shared memory):
#   9-12% shorter steps from two chunks an item on, 30% longer with one, where the state's stores at each item's
#   end stall a consumer and, through the shared gate vectors, the other too (session 51, runs 6-12).
# CTA g: sequence (g // 8) % window, value head g % 8; consumer C stores its state half where _loop_program's
# program (g // 8) * 16 + C * 8 + g % 8 stores its tile, so reference() checks both.
PAIR_SLOTS = 3
PAIR_OUT_SLOTS = 2
PAIR_PRODUCER_WARPS = 2
PAIR_STORER_WARPS = 2
PAIR_CONSUMER_REGS = 216
PAIR_WORKER_REGS = 80

if GLUON_AVAILABLE:
    @gluon.jit
    def _pair_producer(args, NSLOT: gl.constexpr, PW: gl.constexpr):
        q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, n, window, n_items, smem = args
        (k_bufs, q_bufs, v_bufs, t_bufs, p_bufs, g_bufs, glast_bufs, ready, empty, o_bufs, o_full, o_empty, gv_bufs,
         gready) = smem
        ld: gl.constexpr = gl.BlockedLayout([1, 8], [2, 16], [PW, 1], [1, 0])      # [64, 128] 16-bit
        ldh: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [PW, 1], [1, 0])      # [64, 64] 16-bit
        ldg: gl.constexpr = gl.BlockedLayout([4], [32], [PW], [0])                 # [128] fp32
        ldl: gl.constexpr = gl.BlockedLayout([1], [32], [PW], [0])                 # [64] fp32
        rows = gl.arange(0, 64, layout=gl.SliceLayout(1, ld))
        cols = gl.arange(0, 128, layout=gl.SliceLayout(0, ld))
        rows_h = gl.arange(0, 64, layout=gl.SliceLayout(1, ldh))
        cols_h = gl.arange(0, 64, layout=gl.SliceLayout(0, ldh))
        square = gl.expand_dims(rows_h * 64, 1) + gl.expand_dims(cols_h, 0)
        offs_g = gl.arange(0, 128, layout=ldg)
        last = gl.arange(0, 64, layout=ldl) * 0 + 63
        c = 0   # chunks copied so far, over this CTA's items: the ring's position
        for it in range(gl.program_id(0), n_items, gl.num_programs(0)):
            seq = (it // 8) % window
            i_h = it % 8
            for j in range(n):
                slot = c % NSLOT
                mbarrier.wait(empty.index(slot), ((c // NSLOT) & 1) ^ 1)   # (a fresh barrier passes parity 1)
                c += 1
                tok = seq * n * 64 + j * 64
                rec = (seq * n + j) * 8 + i_h
                qk_off = gl.expand_dims(((tok + rows) * 4 + i_h // 2) * 128, 1) + gl.expand_dims(cols, 0)
                v_off = gl.expand_dims(((tok + rows_h) * 8 + i_h) * 128, 1) + gl.expand_dims(cols_h, 0)
                gl_async_copy.async_copy_global_to_shared(k_bufs.index(slot), k_ptr + qk_off)
                gl_async_copy.async_copy_global_to_shared(q_bufs.index(slot), q_ptr + qk_off)
                gl_async_copy.async_copy_global_to_shared(v_bufs.index(2 * slot), v_ptr + v_off)
                gl_async_copy.async_copy_global_to_shared(v_bufs.index(2 * slot + 1), v_ptr + v_off + 64)
                gl_async_copy.async_copy_global_to_shared(t_bufs.index(slot), tri_ptr + rec * 4096 + square)
                gl_async_copy.async_copy_global_to_shared(p_bufs.index(slot), qk_ptr + rec * 4096 + square)
                gl_async_copy.async_copy_global_to_shared(g_bufs.index(slot), gate_ptr + rec * 128 + offs_g)
                # G_last copied to all 64 places: a vector the consumers read in their column layout
                gl_async_copy.async_copy_global_to_shared(glast_bufs.index(slot), gate_ptr + rec * 128 + last)
                gl_async_copy.mbarrier_arrive(ready.index(slot), increment_count=False)

    @gluon.jit
    def _pair_consumer(args, C: gl.constexpr, NSLOT: gl.constexpr, NO: gl.constexpr, GATES: gl.constexpr):
        q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, n, window, n_items, smem = args
        (k_bufs, q_bufs, v_bufs, t_bufs, p_bufs, g_bufs, glast_bufs, ready, empty, o_bufs, o_full, o_empty, gv_bufs,
         gready) = smem
        acc128: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, 128, 16])
        acc64: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])
        a64: gl.constexpr = gl.DotOperandLayout(0, acc64, 2)
        a128: gl.constexpr = gl.DotOperandLayout(0, acc128, 2)
        col64: gl.constexpr = gl.SliceLayout(0, acc64)
        zero = gl.zeros([64, 64], gl.float32, acc64)
        rows_s = gl.arange(0, 64, layout=gl.SliceLayout(1, acc128))
        cols_s = gl.arange(0, 128, layout=gl.SliceLayout(0, acc128))
        c = 0   # chunks stepped so far, over this CTA's items
        for it in range(gl.program_id(0), n_items, gl.num_programs(0)):
            S = gl.zeros([64, 128], gl.float32, acc128)
            for j in range(n):
                slot = c % NSLOT
                o_i = C * NO + c % NO
                phase = (c // NSLOT) & 1
                o_phase = ((c // NO) & 1) ^ 1
                c += 1
                if GATES:   # (the storer waited for `ready` before it wrote them)
                    mbarrier.wait(gready.index(slot), phase)
                else:
                    mbarrier.wait(ready.index(slot), phase)
                # the copies wrote through the generic proxy, the wgmmas read through the async one
                fence_async_shared()
                k_s = k_bufs.index(slot)
                g_s = g_bufs.index(slot)
                s_a = gl.convert_layout(S.to(gl.bfloat16), a64)
                KS = warpgroup_mma(s_a, k_s.permute((1, 0)), zero, use_acc=False, is_async=True)
                QS = warpgroup_mma(s_a, q_bufs.index(slot).permute((1, 0)), zero, use_acc=False, is_async=True)
                VT = v_bufs.index(2 * slot + C).permute((1, 0)).load(acc64)
                KS = warpgroup_mma_wait(1, deps=(KS,))
                # the gate vectors read from the slot where they are used, not held across the step (registers)
                if GATES:
                    beta = gv_bufs.index(8 * slot).load(col64)
                    bg = gv_bufs.index(8 * slot + 1).load(col64)
                else:
                    beta = g_s.slice(64, 64).load(col64)
                    bg = beta * gl.exp(g_s.slice(0, 64).load(col64))
                RT = gl.expand_dims(beta, 0) * VT.to(gl.float32) - gl.expand_dims(bg, 0) * KS
                ET = warpgroup_mma(gl.convert_layout(RT.to(gl.float16), a64), t_bufs.index(slot).permute((1, 0)), zero,
                                   use_acc=False, is_async=True)
                ET, QS = warpgroup_mma_wait(0, deps=(ET, QS))
                if GATES:
                    dg = gv_bufs.index(8 * slot + 3).load(col64)
                    decay = gl.max(gv_bufs.index(8 * slot + 4).load(col64), 0)
                else:
                    G_last = glast_bufs.index(slot).load(col64)
                    dg = gl.exp(G_last - g_s.slice(0, 64).load(col64))
                    decay = gl.max(gl.exp(G_last), 0)
                E_w = ET * gl.expand_dims(dg, 0)
                S = warpgroup_mma(gl.convert_layout(E_w.to(gl.bfloat16), a128), k_s, S * decay, is_async=True)
                if GATES:
                    e_G = gv_bufs.index(8 * slot + 2).load(col64)
                else:
                    e_G = gl.exp(g_s.slice(0, 64).load(col64))
                OT = warpgroup_mma(gl.convert_layout(ET.to(gl.float16), a64), p_bufs.index(slot).permute((1, 0)),
                                   QS * gl.expand_dims(e_G, 0), is_async=True)
                S, OT = warpgroup_mma_wait(0, deps=(S, OT))
                mbarrier.arrive(empty.index(slot))
                mbarrier.wait(o_empty.index(o_i), o_phase)
                o_bufs.index(o_i).permute((1, 0)).store((OT * 0.088).to(gl.bfloat16))
                mbarrier.arrive(o_full.index(o_i))
            tile = (it // 8) * 16 + C * 8 + it % 8
            gl.store(state_ptr + tile * 8192 + gl.expand_dims(rows_s * 128, 1) + gl.expand_dims(cols_s, 0), S)

    @gluon.jit
    def _pair_gates(smem, c, NSLOT: gl.constexpr, SW: gl.constexpr):
        """GATES: the gate vectors of the chunk in the ring's position c, for both consumers: beta, beta e^G, e^G,
        e^{G_last - G} and e^{G_last} (64 copies) into the slot's gv rows, then its `gready` barrier."""
        (k_bufs, q_bufs, v_bufs, t_bufs, p_bufs, g_bufs, glast_bufs, ready, empty, o_bufs, o_full, o_empty, gv_bufs,
         gready) = smem
        lv: gl.constexpr = gl.BlockedLayout([2], [32], [SW], [0])
        slot = c % NSLOT
        mbarrier.wait(ready.index(slot), (c // NSLOT) & 1)
        G = g_bufs.index(slot).slice(0, 64).load(lv)
        beta = g_bufs.index(slot).slice(64, 64).load(lv)
        G_last = glast_bufs.index(slot).load(lv)
        e_G = gl.exp(G)
        gv_bufs.index(8 * slot).store(beta)
        gv_bufs.index(8 * slot + 1).store(beta * e_G)
        gv_bufs.index(8 * slot + 2).store(e_G)
        gv_bufs.index(8 * slot + 3).store(gl.exp(G_last - G))
        gv_bufs.index(8 * slot + 4).store(gl.exp(G_last))
        mbarrier.arrive(gready.index(slot))

    @gluon.jit
    def _pair_storer(args, NSLOT: gl.constexpr, NO: gl.constexpr, SW: gl.constexpr, GATES: gl.constexpr):
        q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, n, window, n_items, smem = args
        (k_bufs, q_bufs, v_bufs, t_bufs, p_bufs, g_bufs, glast_bufs, ready, empty, o_bufs, o_full, o_empty, gv_bufs,
         gready) = smem
        ls: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [SW, 1], [1, 0])      # [64 t, 64 v], v contiguous
        rows = gl.arange(0, 64, layout=gl.SliceLayout(1, ls))
        cols = gl.expand_dims(gl.arange(0, 64, layout=gl.SliceLayout(0, ls)), 0)
        # (GATES: each chunk's gate vectors one chunk ahead of the outputs, so that they are ready before the
        # consumers finish the chunk before it)
        total = n * ((n_items - gl.program_id(0) + gl.num_programs(0) - 1) // gl.num_programs(0))   # its chunks
        if GATES:
            if total > 0:
                _pair_gates(smem, 0, NSLOT, SW)
        c = 0
        for it in range(gl.program_id(0), n_items, gl.num_programs(0)):
            seq = (it // 8) % window
            i_h = it % 8
            for j in range(n):
                if GATES:
                    if c + 1 < total:
                        _pair_gates(smem, c + 1, NSLOT, SW)
                tok = seq * n * 64 + j * 64 + rows
                for half in gl.static_range(2):
                    o_i = half * NO + c % NO
                    mbarrier.wait(o_full.index(o_i), (c // NO) & 1)
                    o = o_bufs.index(o_i).load(ls)
                    mbarrier.arrive(o_empty.index(o_i))
                    gl.store(out_ptr + gl.expand_dims((tok * 8 + i_h) * 128 + half * 64, 1) + cols, o)
                c += 1

    @gluon.jit
    def _pair_program(q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, n, window, n_items,
                      NSLOT: gl.constexpr, NO: gl.constexpr, PW: gl.constexpr, SW: gl.constexpr,
                      CONSUMER_REGS: gl.constexpr, WORKER_REGS: gl.constexpr, GATES: gl.constexpr = False):
        """See the comment above: CTA g steps items g, g + grid, ... < n_items, item i n chunks of sequence
        (i // 8) % window, value head i % 8."""
        nvmma: gl.constexpr = gl.NVMMASharedLayout(128, 16)
        flat: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
        bar: gl.constexpr = mbarrier.MBarrierLayout()
        smem = (gl.allocate_shared_memory(gl.bfloat16, [NSLOT, 64, 128], nvmma),      # k
                gl.allocate_shared_memory(gl.bfloat16, [NSLOT, 64, 128], nvmma),      # q
                gl.allocate_shared_memory(gl.bfloat16, [2 * NSLOT, 64, 64], nvmma),   # v, two halves a slot
                gl.allocate_shared_memory(gl.float16, [NSLOT, 64, 64], nvmma),        # T
                gl.allocate_shared_memory(gl.float16, [NSLOT, 64, 64], nvmma),        # P
                gl.allocate_shared_memory(gl.float32, [NSLOT, 128], flat),            # G, beta
                gl.allocate_shared_memory(gl.float32, [NSLOT, 64], flat),             # G_last, 64 copies
                gl.allocate_shared_memory(gl.int64, [NSLOT, 1], bar),                 # ready
                gl.allocate_shared_memory(gl.int64, [NSLOT, 1], bar),                 # empty
                gl.allocate_shared_memory(gl.bfloat16, [2 * NO, 64, 64], nvmma),      # output [t, v], NO a half
                gl.allocate_shared_memory(gl.int64, [2 * NO, 1], bar),                # o_full
                gl.allocate_shared_memory(gl.int64, [2 * NO, 1], bar),                # o_empty
                gl.allocate_shared_memory(gl.float32, [8 * NSLOT if GATES else 1, 64], flat),   # gates: 5 rows a slot
                gl.allocate_shared_memory(gl.int64, [NSLOT, 1], bar))                 # gready
        for s in gl.static_range(NSLOT):
            mbarrier.init(smem[7].index(s), count=32 * PW)   # every producer thread's copies
            mbarrier.init(smem[8].index(s), count=2)         # both consumers
        for s in gl.static_range(2 * NO):
            mbarrier.init(smem[10].index(s), count=1)
            mbarrier.init(smem[11].index(s), count=1)
        if GATES:
            for s in gl.static_range(NSLOT):
                mbarrier.init(smem[13].index(s), count=1)
        args = (q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, n, window, n_items, smem)
        C0: gl.constexpr = 0
        C1: gl.constexpr = 1
        gl.warp_specialize([(_pair_consumer, (args, C0, NSLOT, NO, GATES)),
                            (_pair_consumer, (args, C1, NSLOT, NO, GATES)),
                            (_pair_producer, (args, NSLOT, PW)),
                            (_pair_storer, (args, NSLOT, NO, SW, GATES))],
                           [4, PW, SW], [CONSUMER_REGS, WORKER_REGS, WORKER_REGS])


def pair_launch(x, state, chunks, window, ctas=None, gates=False):
    """One launch of the pair loop over state.shape[0] // 2 items (two state tiles an item), on one CTA an item,
    or on `ctas` CTAs that take items in turn (persistent), with the storer's gate vectors if `gates` (and then
    one output slot a consumer, to fit the shared memory); returns `state`."""
    items = state.shape[0] // 2
    out_slots = 1 if gates else PAIR_OUT_SLOTS
    _pair_program[(min(items, ctas or items),)](x["q"], x["k"], x["v"], x["tri"], x["qk"], x["gate"], x["out"],
                                          state, chunks, window, items, NSLOT=PAIR_SLOTS, NO=out_slots,
                                          PW=PAIR_PRODUCER_WARPS, SW=PAIR_STORER_WARPS,
                                          CONSUMER_REGS=PAIR_CONSUMER_REGS, WORKER_REGS=PAIR_WORKER_REGS, GATES=gates,
                                          num_warps=4)
    return state


def synthetic_inputs(chunks, window, device, seed=0):
    """Rows and records of `window` sequences of `chunks` 64-token chunks each: k, q small (so the state
    stays bounded over many chunks), T and P random fp16 (the loop's cost does not depend on their being a
    real inverse), log-gate cumulative sums slightly below 0, beta in (0, 1)."""
    g = torch.Generator(device=device).manual_seed(seed)
    tokens, records = window * chunks * BT, window * chunks * HV

    def rand(*shape, scale=1.0):
        return torch.randn(*shape, device=device, generator=g) * scale

    G = -(torch.rand(records, BT, device=device, generator=g) * 0.01).cumsum(1)
    beta = torch.rand(records, BT, device=device, generator=g)
    return dict(q=rand(tokens, HQ, K, scale=0.1).to(torch.bfloat16), k=rand(tokens, HQ, K, scale=0.1).to(torch.bfloat16),
                v=rand(tokens, HV, K).to(torch.bfloat16),
                tri=rand(records * BT * BT, scale=0.05).to(torch.float16),
                qk=rand(records * BT * BT, scale=0.05).to(torch.float16),
                gate=torch.cat([G, beta], 1).contiguous().view(-1),
                out=torch.empty(tokens, HV, K, device=device, dtype=torch.bfloat16))


def state_buffer(x, grid):
    """The [grid, 64, 128] fp32 buffer a launch over `grid` programs stores into."""
    return torch.empty(grid, BV, K, device=x["q"].device, dtype=torch.float32)


def launch(program, x, state, chunks, window, stages):
    """One launch of `program`, one program per tile of `state` (see state_buffer); returns `state`."""
    program[(state.shape[0],)](x["q"], x["k"], x["v"], x["tri"], x["qk"], x["gate"], x["out"], state, chunks, window,
                               STAGES=stages, BF16_STATE=PREFILL.BF16_STATE_DOTS, PRECISION=PREFILL.DOT_PRECISION,
                               num_warps=4)
    return state


def reference(x, grid, chunks, window):
    """What _loop_program computes over `grid` programs, in float64: per program the record recurrence from a
    zero state,
        KS = K S^T,  R = beta V - beta exp(G) KS,  E = T R,  O = scale (exp(G) Q S^T + P E),
        S <- exp(G_last) S + (E exp(G_last - G))^T K.
    Returns (states [grid, 64, 128], outputs [tokens, 8, 128], NaN where no program writes)."""
    f = lambda t: t.double().cpu()
    q, k, v, tri, qk = f(x["q"]), f(x["k"]), f(x["v"]), f(x["tri"]).view(-1, BT, BT), f(x["qk"]).view(-1, BT, BT)
    gate = f(x["gate"]).view(-1, 2 * BT)
    states = torch.zeros(grid, BV, K, dtype=torch.float64)
    outputs = torch.full(tuple(x["out"].shape), float("nan"), dtype=torch.float64)
    for pid in range(grid):
        seq, i_h, v0 = (pid // 16) % window, pid % 8, (pid // 8 % 2) * BV
        S = torch.zeros(BV, K, dtype=torch.float64)
        for j in range(chunks):
            rows = slice(seq * chunks * BT + j * BT, seq * chunks * BT + (j + 1) * BT)
            rec = (seq * chunks + j) * HV + i_h
            k_c, q_c, v_c = k[rows, i_h // 2], q[rows, i_h // 2], v[rows, i_h, v0:v0 + BV]
            G, beta = gate[rec, :BT], gate[rec, BT:]
            R = beta[:, None] * v_c - (beta * G.exp())[:, None] * (k_c @ S.T)
            E = tri[rec] @ R
            outputs[rows, i_h, v0:v0 + BV] = SCALE * (G.exp()[:, None] * (q_c @ S.T) + qk[rec] @ E)
            S = S * G[-1].exp() + (E * (G[-1] - G).exp()[:, None]).T @ k_c
        states[pid] = S
    return states, outputs


def time_launches(run, state, repeats=5, back_to_back=10):
    """Median over `repeats` of the mean µs a launch of run(state) over `back_to_back` launches issued without a
    gap."""
    for _ in range(3):
        run(state)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(back_to_back):
            run(state)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1000 / back_to_back)
    return sorted(times)[len(times) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunks", type=int, default=64, help="chunks a program steps")
    ap.add_argument("--window", type=int, default=8, help="sequences the programs' rows come from")
    ap.add_argument("--waves", type=int, default=1, help="tiles a launch steps, in multiples of the SM count "
                    "(more than one for few chunks, so that each SM steps several)")
    ap.add_argument("--out", type=Path, default=Path("."))
    args = ap.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    x = synthetic_inputs(args.chunks, args.window, "cuda")
    rows = []

    def report(what, stages, per_sm, us, tiles):
        step = us * sms / (args.chunks * tiles)   # µs a tile's chunk step takes an SM
        rows.append(dict(what=what, stages=stages, ctas_per_sm=per_sm, tiles=tiles, us_per_launch=us,
                         us_per_step_per_sm=step))
        print(f"{what:16s} stages {stages} CTAs/SM {per_sm}: {us:8.2f} µs a launch, {step:5.3f} µs a step an SM")

    for what, program in (("loop", _loop_program), ("loads", _loads_program)):
        for stages, per_sm in CONFIGS:
            tiles = sms * per_sm * args.waves
            us = time_launches(lambda st: launch(program, x, st, args.chunks, args.window, stages),
                               state_buffer(x, tiles))
            report(what, stages, per_sm, us, tiles)
    if GLUON_AVAILABLE and torch.cuda.get_device_capability()[0] == 9:
        tiles = 2 * sms * args.waves   # two tiles an item, one CTA an SM
        for what, ctas, gates in (("pair", None, False), ("pair persistent", sms, False),
                                  ("pair gates pers.", sms, True)):
            us = time_launches(lambda st: pair_launch(x, st, args.chunks, args.window, ctas, gates),
                               state_buffer(x, tiles))
            report(what, PAIR_SLOTS, 1, us, tiles)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scan_step.json").write_text(json.dumps(dict(
        device=torch.cuda.get_device_name(0), chunks=args.chunks, window=args.window, sms=sms, rows=rows), indent=1))


if __name__ == "__main__":
    main()
