"""Scratch (session 57 run 12): where the batch-1 decode's time above a copy of its state goes. Kernels on the
decode's batch-1 grid (256 one-warp programs, [4, 128] fp32 tiles), each adding one part of the decode to a copy."""
import torch, triton, triton.language as tl, sys, math
sys.path.insert(0, "solution/triton")
from gdnkit.timing import time_call
from gdnkit.inputs import decode_inputs, seeded_generator
import gdn_decode as dec

@triton.jit
def parts(q_ptr, k_ptr, v_ptr, state_ptr, A_log_ptr, a_ptr, dt_bias_ptr, b_ptr, out_ptr, new_ptr, scale,
          PART: tl.constexpr, BV: tl.constexpr):
    pid = tl.program_id(0)
    NV: tl.constexpr = 128 // BV
    i_bh = pid // NV
    i_v = pid % NV
    i_h = i_bh % 8
    i_qk = (i_bh // 8) * 4 + i_h // 2
    offs_k = tl.arange(0, 128)
    offs_v = i_v * BV + tl.arange(0, BV)
    tile = i_bh.to(tl.int64) * 16384 + offs_v[:, None] * 128 + offs_k[None, :]
    S = tl.load(state_ptr + tile)
    if PART == 0:      # copy
        tl.store(new_ptr + tile, S)
    elif PART == 1:    # + a reduction along K the store depends on (k = a constant)
        s = tl.sum(S * 0.5, axis=1)
        tl.store(new_ptr + tile, S + s[:, None] * 1e-30)
    elif PART == 2:    # + the real q, k, v loads and both reductions, no gates
        q = tl.load(q_ptr + i_qk * 128 + offs_k).to(tl.float32)
        k = tl.load(k_ptr + i_qk * 128 + offs_k).to(tl.float32)
        v = tl.load(v_ptr + i_bh * 128 + offs_v).to(tl.float32)
        s_k = tl.sum(S * k[None, :], axis=1)
        s_q = tl.sum(S * q[None, :], axis=1)
        d = v - s_k
        tl.store(new_ptr + tile, S + d[:, None] * k[None, :])
        tl.store(out_ptr + i_bh * 128 + offs_v, (s_q + d * tl.sum(k * q, axis=0)).to(tl.bfloat16))
    elif PART == 3:    # k only: one reduction with the real k, the state update
        k = tl.load(k_ptr + i_qk * 128 + offs_k).to(tl.float32)
        s_k = tl.sum(S * k[None, :], axis=1)
        tl.store(new_ptr + tile, S + s_k[:, None] * k[None, :])
    elif PART == 4:    # k and v
        k = tl.load(k_ptr + i_qk * 128 + offs_k).to(tl.float32)
        v = tl.load(v_ptr + i_bh * 128 + offs_v).to(tl.float32)
        d = v - tl.sum(S * k[None, :], axis=1)
        tl.store(new_ptr + tile, S + d[:, None] * k[None, :])
    elif PART == 5:    # q, k, v and both reductions, the output kept alive by the state instead of stored
        q = tl.load(q_ptr + i_qk * 128 + offs_k).to(tl.float32)
        k = tl.load(k_ptr + i_qk * 128 + offs_k).to(tl.float32)
        v = tl.load(v_ptr + i_bh * 128 + offs_v).to(tl.float32)
        s_k = tl.sum(S * k[None, :], axis=1)
        s_q = tl.sum(S * q[None, :], axis=1)
        d = v - s_k
        o = s_q + d * tl.sum(k * q, axis=0)
        tl.store(new_ptr + tile, S + d[:, None] * k[None, :] + o[:, None] * 1e-30)

x = decode_inputs(1, seeded_generator(0), device="cuda")
args = list(x.values())
q, k, v, state, A_log, a, dt_bias, b, scale = args[:9]
out = torch.empty(1, 1, 8, 128, dtype=torch.bfloat16, device="cuda")
new = torch.empty_like(state)
for rnd in range(3):
    row = []
    for part in (0, 1, 3, 4, 5, 2):
        f = lambda: parts[(256,)](q, k, v, state, A_log, a, dt_bias, b, out, new, 0.088, PART=part, BV=4, num_warps=1)
        row.append(time_call(lambda *_: f(), (), 10, 50)[0] * 1000)
    row.append(time_call(dec.run, (q, k, v, state, A_log, a, dt_bias, b, scale, out, new), 10, 50)[0] * 1000)
    print("round", rnd, "copy %.2f | + reduction %.2f | k: one reduction %.2f | k, v %.2f | q, k, v, both reductions, "
          "no output store %.2f | with the output store %.2f | the decode %.2f" % tuple(row), flush=True)
