"""Scratch (session 51): the wide record loop as a Gluon kernel with warp roles: one producer warp copies each
chunk's k, q, v (both 64-column halves of the head), T, P and gate row into a ring of NSLOT shared-memory
slots (cp.async, arrival on the slot's `ready` barrier); two consumer warpgroups each step one 64-column half
of the same head's state, every product a wgmma with the left operand from registers:
    KS^T = S K^T, QS^T = S Q^T, R^T = beta V^T - beta e^G KS^T, E^T = R^T T^T,
    O^T = scale e^G QS^T + E^T P^T, S = e^{G_last} S + (E^T e^{G_last - G}) K.
CTA g: sequence (g // 8) % window, value head g % 8; consumer C stores its state tile at
state_ptr + ((g // 8) * 16 + C * 8 + g % 8) * 8192, the tile benchmarks/scan_step.py's Triton program of that
number stores."""
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, fence_async_shared, warpgroup_mma, \
    warpgroup_mma_wait


@gluon.jit
def _pair_producer(args, NSLOT: gl.constexpr, PW: gl.constexpr):
    q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, seq, i_h, n, smem = args
    kq_bufs, v_bufs, t_bufs, p_bufs, g_bufs, gl_bufs, ready, empty, o_bufs, o_full, o_empty = smem
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
    for j in range(n):
        slot = j % NSLOT
        mbarrier.wait(empty.index(slot), ((j // NSLOT) & 1) ^ 1)
        tok = seq * n * 64 + j * 64 + rows
        rec = (seq * n + j) * 8 + i_h
        qk_off = gl.expand_dims((tok * 4 + i_h // 2) * 128, 1) + gl.expand_dims(cols, 0)
        cp.async_copy_global_to_shared(kq_bufs.index(slot).slice(0, 64), k_ptr + qk_off)
        cp.async_copy_global_to_shared(kq_bufs.index(slot).slice(64, 64), q_ptr + qk_off)
        tok_h = seq * n * 64 + j * 64 + rows_h
        v_off = gl.expand_dims((tok_h * 8 + i_h) * 128, 1) + gl.expand_dims(cols_h, 0)
        cp.async_copy_global_to_shared(v_bufs.index(2 * slot), v_ptr + v_off)
        cp.async_copy_global_to_shared(v_bufs.index(2 * slot + 1), v_ptr + v_off + 64)
        cp.async_copy_global_to_shared(t_bufs.index(slot), tri_ptr + rec * 4096 + square)
        cp.async_copy_global_to_shared(p_bufs.index(slot), qk_ptr + rec * 4096 + square)
        cp.async_copy_global_to_shared(g_bufs.index(slot), gate_ptr + rec * 128 + offs_g)
        cp.async_copy_global_to_shared(gl_bufs.index(slot), gate_ptr + rec * 128 + last)   # G_last, broadcast
        cp.mbarrier_arrive(ready.index(slot), increment_count=False)


@gluon.jit
def _pair_consumer(args, C: gl.constexpr, NSLOT: gl.constexpr, MODE: gl.constexpr, FENCE: gl.constexpr,
                   STORE: gl.constexpr, KQ: gl.constexpr, NO: gl.constexpr):
    q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, seq, i_h, n, smem = args
    kq_bufs, v_bufs, t_bufs, p_bufs, g_bufs, gl_bufs, ready, empty, o_bufs, o_full, o_empty = smem
    acc128: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 128, 16])
    acc64: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])
    a64: gl.constexpr = gl.DotOperandLayout(0, acc64, 2)
    a128: gl.constexpr = gl.DotOperandLayout(0, acc128, 2)
    col64: gl.constexpr = gl.SliceLayout(0, acc64)
    S = gl.zeros([64, 128], gl.float32, acc128)
    zero = gl.zeros([64, 64], gl.float32, acc64)
    cols_t = gl.arange(0, 64, layout=col64)
    rows_v = gl.arange(0, 64, layout=gl.SliceLayout(1, acc64))
    st_l: gl.constexpr = gl.BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])   # [64 v, 64 t], v contiguous
    rows_b = gl.arange(0, 64, layout=gl.SliceLayout(1, st_l))
    cols_b = gl.arange(0, 64, layout=gl.SliceLayout(0, st_l))
    for j in range(n):
        slot = j % NSLOT
        mbarrier.wait(ready.index(slot), (j // NSLOT) & 1)
        if (MODE == 2) or ((MODE == 1) and (C == 1)):   # diagnosis: no work, the slot handed back
            mbarrier.arrive(empty.index(slot))
        else:
            if FENCE:
                fence_async_shared()
            k_s = kq_bufs.index(slot).slice(0, 64)
            if KQ:   # K S^T and Q S^T as one product over the slot's 128 rows
                KQS = warpgroup_mma(gl.convert_layout(S.to(gl.bfloat16), a128), kq_bufs.index(slot).permute((1, 0)),
                                    S, use_acc=False, is_async=True)
                VT = v_bufs.index(2 * slot + C).permute((1, 0)).load(acc64)
                KQS = warpgroup_mma_wait(0, deps=(KQS,))
                KS, QS = gl.split(gl.permute(gl.reshape(KQS, [64, 2, 64]), (0, 2, 1)))
                KS = gl.convert_layout(KS, acc64)
                QS = gl.convert_layout(QS, acc64)
            else:
                s_a = gl.convert_layout(S.to(gl.bfloat16), a64)
                KS = warpgroup_mma(s_a, k_s.permute((1, 0)), zero, use_acc=False, is_async=True)
                QS = warpgroup_mma(s_a, kq_bufs.index(slot).slice(64, 64).permute((1, 0)), zero, use_acc=False,
                                   is_async=True)
                VT = v_bufs.index(2 * slot + C).permute((1, 0)).load(acc64)
                KS = warpgroup_mma_wait(1, deps=(KS,))
            g_s = g_bufs.index(slot)
            beta = g_s.slice(64, 64).load(col64)
            RT = (gl.expand_dims(beta, 0) * VT.to(gl.float32)
                  - gl.expand_dims(beta * gl.exp(g_s.slice(0, 64).load(col64)), 0) * KS)
            ET = warpgroup_mma(gl.convert_layout(RT.to(gl.float16), a64), t_bufs.index(slot).permute((1, 0)), zero,
                               use_acc=False, is_async=True)
            if KQ:
                ET = warpgroup_mma_wait(0, deps=(ET,))
            else:
                ET, QS = warpgroup_mma_wait(0, deps=(ET, QS))
            G_last = gl_bufs.index(slot).load(col64)
            ew = gl.convert_layout((ET * gl.expand_dims(gl.exp(G_last - g_s.slice(0, 64).load(col64)), 0)).to(gl.bfloat16), a128)
            S = warpgroup_mma(ew, k_s, S * gl.max(gl.exp(G_last), 0), is_async=True)
            OT = warpgroup_mma(gl.convert_layout(ET.to(gl.float16), a64), p_bufs.index(slot).permute((1, 0)),
                               QS * gl.expand_dims(gl.exp(g_s.slice(0, 64).load(col64)), 0), is_async=True)
            S, OT = warpgroup_mma_wait(0, deps=(S, OT))
            mbarrier.arrive(empty.index(slot))
            OT = OT * 0.088
            if STORE == 1:
                tok = seq * n * 64 + j * 64 + cols_t
                gl.store(out_ptr + gl.expand_dims((tok * 8 + i_h) * 128, 0) + gl.expand_dims(C * 64 + rows_v, 1),
                         OT.to(gl.bfloat16))
            elif STORE == 2:   # through a layout with v contiguous: 16-byte stores
                O_b = gl.convert_layout(OT.to(gl.bfloat16), st_l)
                tok_b = seq * n * 64 + j * 64 + cols_b
                gl.store(out_ptr + gl.expand_dims((tok_b * 8 + i_h) * 128, 0) + gl.expand_dims(C * 64 + rows_b, 1), O_b)
            elif STORE == 3:   # into an output slot, stored by the storer warps
                o_i = C * NO + j % NO
                mbarrier.wait(o_empty.index(o_i), ((j // NO) & 1) ^ 1)
                o_bufs.index(o_i).permute((1, 0)).store(OT.to(gl.bfloat16))
                mbarrier.arrive(o_full.index(o_i))
    tile = (gl.program_id(0) // 8) * 16 + C * 8 + gl.program_id(0) % 8
    rows_s = gl.arange(0, 64, layout=gl.SliceLayout(1, acc128))
    cols_s = gl.arange(0, 128, layout=gl.SliceLayout(0, acc128))
    gl.store(state_ptr + tile * 8192 + gl.expand_dims(rows_s * 128, 1) + gl.expand_dims(cols_s, 0), S)


@gluon.jit
def _pair_storer(args, NO: gl.constexpr, SW: gl.constexpr):
    q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, seq, i_h, n, smem = args
    kq_bufs, v_bufs, t_bufs, p_bufs, g_bufs, gl_bufs, ready, empty, o_bufs, o_full, o_empty = smem
    ls: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [SW, 1], [1, 0])      # [64 t, 64 v], v contiguous
    rows = gl.arange(0, 64, layout=gl.SliceLayout(1, ls))
    cols = gl.expand_dims(gl.arange(0, 64, layout=gl.SliceLayout(0, ls)), 0)
    for j in range(n):
        tok = seq * n * 64 + j * 64 + rows
        for c in gl.static_range(2):
            o_i = c * NO + j % NO
            mbarrier.wait(o_full.index(o_i), (j // NO) & 1)
            o = o_bufs.index(o_i).load(ls)
            mbarrier.arrive(o_empty.index(o_i))
            gl.store(out_ptr + gl.expand_dims((tok * 8 + i_h) * 128 + c * 64, 1) + cols, o)


@gluon.jit
def pair_program(q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, n, window,
                 NSLOT: gl.constexpr, PW: gl.constexpr, CONSUMER_REGS: gl.constexpr, PRODUCER_REGS: gl.constexpr,
                 MODE: gl.constexpr = 0, FENCE: gl.constexpr = 1, STORE: gl.constexpr = 1, KQ: gl.constexpr = 0,
                 NO: gl.constexpr = 2, SW: gl.constexpr = 0):
    g = gl.program_id(0)
    seq = (g // 8) % window
    i_h = g % 8
    sw16: gl.constexpr = gl.NVMMASharedLayout(128, 16)
    flat: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    NOB: gl.constexpr = 2 * NO if STORE == 3 else 1
    smem = (gl.allocate_shared_memory(gl.bfloat16, [NSLOT, 128, 128], sw16),     # k rows, then q rows
            gl.allocate_shared_memory(gl.bfloat16, [2 * NSLOT, 64, 64], sw16),   # v, the two halves
            gl.allocate_shared_memory(gl.float16, [NSLOT, 64, 64], sw16),        # T
            gl.allocate_shared_memory(gl.float16, [NSLOT, 64, 64], sw16),        # P
            gl.allocate_shared_memory(gl.float32, [NSLOT, 128], flat),           # G, beta
            gl.allocate_shared_memory(gl.float32, [NSLOT, 64], flat),            # G_last, broadcast
            gl.allocate_shared_memory(gl.int64, [NSLOT, 1], mbarrier.MBarrierLayout()),   # ready
            gl.allocate_shared_memory(gl.int64, [NSLOT, 1], mbarrier.MBarrierLayout()),   # empty
            gl.allocate_shared_memory(gl.bfloat16, [NOB, 64, 64], sw16),         # output slots [t, v]
            gl.allocate_shared_memory(gl.int64, [NOB, 1], mbarrier.MBarrierLayout()),     # o_full
            gl.allocate_shared_memory(gl.int64, [NOB, 1], mbarrier.MBarrierLayout()))     # o_empty
    for s in gl.static_range(NSLOT):
        mbarrier.init(smem[6].index(s), count=32 * PW)
        mbarrier.init(smem[7].index(s), count=2)
    if STORE == 3:
        for s in gl.static_range(NOB):
            mbarrier.init(smem[9].index(s), count=1)
            mbarrier.init(smem[10].index(s), count=1)
    args = (q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, seq, i_h, n, smem)
    C0: gl.constexpr = 0
    C1: gl.constexpr = 1
    if STORE == 3:
        gl.warp_specialize([(_pair_consumer, (args, C0, NSLOT, MODE, FENCE, STORE, KQ, NO)),
                            (_pair_consumer, (args, C1, NSLOT, MODE, FENCE, STORE, KQ, NO)),
                            (_pair_producer, (args, NSLOT, PW)),
                            (_pair_storer, (args, NO, SW))],
                           [4, PW, SW], [CONSUMER_REGS, PRODUCER_REGS, PRODUCER_REGS])
    else:
        gl.warp_specialize([(_pair_consumer, (args, C0, NSLOT, MODE, FENCE, STORE, KQ, NO)),
                            (_pair_consumer, (args, C1, NSLOT, MODE, FENCE, STORE, KQ, NO)),
                            (_pair_producer, (args, NSLOT, PW))],
                           [4, PW], [CONSUMER_REGS, PRODUCER_REGS])


if __name__ == "__main__":
    import re
    import subprocess
    import sys
    from pathlib import Path
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    knobs = dict(NSLOT=3, PW=1, CONSUMER_REGS=216, PRODUCER_REGS=80, MODE=0, FENCE=1, STORE=1, KQ=0, NO=2, SW=0)
    knobs.update({k: int(v) for k, v in (a.split("=") for a in sys.argv[1:])})
    sig = {n: "*bf16" for n in ("q_ptr", "k_ptr", "v_ptr")}
    sig.update(tri_ptr="*fp16", qk_ptr="*fp16", gate_ptr="*fp32", out_ptr="*bf16", state_ptr="*fp32", n="i32",
               window="i32")
    fn = pair_program
    for k in knobs:
        sig[k] = "constexpr"
    constexprs = {(fn.arg_names.index(k),): v for k, v in knobs.items()}
    attrs = {(i,): [["tt.divisibility", 16]] for i, p in enumerate(fn.arg_names) if sig[p].startswith("*")}
    kern = triton.compile(GluonASTSource(fn=fn, signature=sig, constexprs=constexprs, attrs=attrs),
                          target=GPUTarget("cuda", 90, 32), options=dict(num_warps=4))
    out = Path("/tmp/s51")
    out.mkdir(exist_ok=True)
    for k, v in kern.asm.items():
        (out / f"pair.{k}").write_bytes(v if isinstance(v, bytes) else v.encode())
    print("shared", kern.metadata.shared, "warps", kern.metadata.num_warps)
    cuobj = Path(triton.__file__).parent / "backends/nvidia/bin/cuobjdump"
    print(subprocess.run([str(cuobj), "--dump-resource-usage", str(out / "pair.cubin")], capture_output=True,
                         text=True).stdout[-400:])
