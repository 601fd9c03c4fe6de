"""Gated delta rule decode, one Triton launch per call (definition gdn_decode_qk4_v8_d128_k_last).

Recurrence, per batch row b and value head h (q/k head h // (HV // HQ)), on the k-last state
S[b, h] of shape [V, K], rows S[v, :] contiguous along K:

    g    = exp(-exp(A_log[h]) * softplus(a[b, h] + dt_bias[h]))      decay gate, in (0, 1]
    beta = sigmoid(b[b, h])                                           write strength
    S    <- g * S
    u    =  S @ k                                   [V]  what the decayed state predicts for k
    S    <- S + outer(beta * (v - u), k)            rank-1 delta-rule correction
    o    =  scale * (S @ q)                         [V]  read out with the updated state

Row v of the new state needs only row v of the old one plus the vectors q, k and the scalar
gates, so the state splits along V into independent tiles with no reduction across programs.

Two equivalent orders of the two reductions (a per-batch-size choice, see TILE_TABLE):
sequential as written above, or one pass where both read the old state, with
s_k = S_old @ k, s_q = S_old @ q and d = beta * (v - g * s_k):

    S_new = g * S_old + outer(d, k),      o = scale * (g * s_q + d * (k . q)).

Tiling: one program owns BV consecutive V rows of one (b, h) state, a [BV, K] fp32 tile read
once from `state` and written once to `new_state` (16-byte vectors along K), with an L2 eviction
policy on those loads and stores and an L2 prefetch of v first thing where the table gives them.
The reductions run along K inside the tile. Gates are computed in the kernel from the raw inputs;
the softplus log either by libdevice's logf or by the hardware's approximate log2 (also a
per-batch-size choice: its argument 1 + exp(-|x|) lies in (1, 2], where lg2.approx is within
about 2^-22).

Launch grid: 1-D, B * HV * (V // BV) programs; program id = (b * HV + h) * (V // BV) + v_tile,
so neighbouring programs share a head's q/k. A flat grid avoids the 65535 limit of grid axes 1
and 2 at large batch.
"""

import math

import torch
import triton
import triton.language as tl

NUM_Q_HEADS = 4
NUM_V_HEADS = 8
HEAD_SIZE = 128

# Tile rows, warps, reduction order, log, the state's L2 eviction policy and a v prefetch per GPU
# architecture and batch size: the first row whose batch bound is >= B is used. Measured on the H200
# (notes/decode.md): at small batch the kernel is latency-bound, and more, smaller programs (BV=4: 32 per
# head) win (B=1 2.43 -> 2.13 µs, session 3); with the hardware log the one-pass order on them is best up to
# B=16 (B=1 2.08 -> 2.00, B=8 4.09 -> 3.92, B=16 6.06 -> 5.86; session 16). From B=32 on it is
# bandwidth-bound, and BV=8 in the one-pass order with libdevice's log is 1-3% faster (the hardware log made
# that tile 5% slower there). Then the state loads' and stores' `eviction_policy` ("" the default): the
# contest flushes the L2 by zeroing a buffer before each call, and with evict-first loads at B=4 and
# evict-first loads and evict-last stores at B=5-16 the same kernel took 2% (B=4, 8) and 5% (B=16) less,
# while at B >= 32 either hint cost 1-3% (session 57, three rounds). Last, whether the program asks L2 for
# its v line first thing (prefetch.global.L2): in the BV=8 builds ptxas issues the v load after the gate
# chain, which waits for the gate loads, so v arrived a memory round trip late; the prefetch took B=32 6%,
# B=48 and 64 1.4% less, but BV=4 builds load v early anyway and lost 2-6% with it (session 57;
# `gdnkit compile-check --loops` lists such late loads). The B200 entry copies the H200 choice, unmeasured
# (no B200 here; compiled for sm100 the BV=8 build also issues two of its state loads late, and asking L2
# for every input line first made the H200 10-21% slower, so nothing more is done there). Choosing the B200's
# tiles on its first call of each batch size, as the prefill chooses its routes, was tried and dropped: the
# timers a solution has (CUDA events, in-kernel %globaltimer stamps) missed the tiles' 2-7% differences near the
# crossover by as much (session 60). "default" covers any other architecture.
TILE_TABLE = {
    # (largest batch, BLOCK_V, num_warps, sequential reductions, hardware log, load eviction, store eviction,
    #  v prefetched)
    "sm90": [(1, 4, 1, False, True, "", "", False), (4, 4, 1, False, True, "evict_first", "", False),
             (16, 4, 1, False, True, "evict_first", "evict_last", False), (1 << 62, 8, 1, False, False, "", "", True)],
    "sm100": [(1, 4, 1, False, True, "", "", False), (4, 4, 1, False, True, "evict_first", "", False),
              (16, 4, 1, False, True, "evict_first", "evict_last", False), (1 << 62, 8, 1, False, False, "", "", True)],
    "default": [(1 << 62, 8, 1, True, False, "", "", False)],
}
EVICTION_POLICIES = ("", "evict_first", "evict_last")
_ARCH_OF_DEVICE = {}


def _arch(device) -> str:
    """TILE_TABLE key of a device: sm90 (Hopper), sm100 (B200) or default. A host-side query,
    cached per device; no device work."""
    if device.type != "cuda":
        return "default"
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _ARCH_OF_DEVICE:
        major, minor = torch.cuda.get_device_capability(index)
        _ARCH_OF_DEVICE[index] = {(9, 0): "sm90", (10, 0): "sm100"}.get((major, minor), "default")
    return _ARCH_OF_DEVICE[index]


def tile_for(batch: int, device) -> tuple:
    """(BLOCK_V, num_warps, sequential, hardware log, load eviction, store eviction, v prefetched) for a batch
    size on a device, from TILE_TABLE."""
    rows = TILE_TABLE.get(_arch(device), TILE_TABLE["default"])
    for bound, *tile in rows:
        if batch <= bound:
            return tuple(tile)
    return tuple(rows[-1][1:])


_LN2 = tl.constexpr(math.log(2.0))
_LOG2E = tl.constexpr(1.0 / math.log(2.0))


@triton.jit
def _lg2_approx(x):
    """log2(x) by the hardware's approximate unit (MUFU.LG2) rather than libdevice's polynomial;
    inline PTX, so not under the CPU interpreter."""
    return tl.inline_asm_elementwise("lg2.approx.ftz.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True,
                                     pack=1)


@triton.jit
def _prefetch_l2(ptr):
    """Asks L2 for the line holding ptr (prefetch.global.L2; no register waits for it). Inline PTX, so not
    under the CPU interpreter."""
    tl.inline_asm_elementwise("prefetch.global.L2 [$1]; mov.u32 $0, 0;", "=r,l", [ptr], dtype=tl.int32,
                              is_pure=False, pack=1)


@triton.jit
def _gdn_decode_kernel(
    q_ptr, k_ptr, v_ptr, state_ptr,
    A_log_ptr, a_ptr, dt_bias_ptr, b_ptr,
    out_ptr, new_state_ptr,
    scale,
    HQ: tl.constexpr, HV: tl.constexpr, K: tl.constexpr, V: tl.constexpr,
    BV: tl.constexpr, HAS_STATE: tl.constexpr, SEQUENTIAL: tl.constexpr, FAST_LOG: tl.constexpr,
    LOAD_EVICT: tl.constexpr, STORE_EVICT: tl.constexpr, PREFETCH_V: tl.constexpr,
):
    pid = tl.program_id(0)
    NV: tl.constexpr = V // BV
    i_bh = pid // NV                      # b * HV + h
    i_v = pid % NV
    i_h = i_bh % HV
    i_b = i_bh // HV
    i_qk = i_b * HQ + i_h // (HV // HQ)   # row of q/k in [B * HQ, K]

    offs_k = tl.arange(0, K)
    offs_v = i_v * BV + tl.arange(0, BV)
    if PREFETCH_V:   # (the tile's v rows are one 16-byte line segment)
        _prefetch_l2(v_ptr + i_bh * V + i_v * BV)

    # Gates. softplus in the overflow-free form max(x, 0) + log(1 + exp(-|x|)). The two branches
    # are written out whole: each is the form measured in its table rows, and a shared
    # 1 + exp(-|x|) changes the SASS of one of them (notes/decode.md, session 16).
    x = tl.load(a_ptr + i_bh).to(tl.float32) + tl.load(dt_bias_ptr + i_h)
    if FAST_LOG:
        softplus = tl.maximum(x, 0.0) + _LN2 * _lg2_approx(1.0 + tl.exp2(-_LOG2E * tl.abs(x)))
    else:
        softplus = tl.maximum(x, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(x)))
    g = tl.exp(-tl.exp(tl.load(A_log_ptr + i_h)) * softplus)
    beta = 1.0 / (1.0 + tl.exp(-tl.load(b_ptr + i_bh).to(tl.float32)))

    q = tl.load(q_ptr + i_qk * K + offs_k).to(tl.float32)
    k = tl.load(k_ptr + i_qk * K + offs_k).to(tl.float32)
    v = tl.load(v_ptr + i_bh * V + offs_v).to(tl.float32)

    # int64 offsets: B * HV * V * K passes 2**31 at B = 16384.
    tile = i_bh.to(tl.int64) * (V * K) + offs_v[:, None] * K + offs_k[None, :]
    if HAS_STATE:
        S = tl.load(state_ptr + tile, eviction_policy=LOAD_EVICT)
    else:
        S = tl.zeros([BV, K], dtype=tl.float32)

    if SEQUENTIAL:
        S = S * g
        u = tl.sum(S * k[None, :], axis=1)
        S = S + (beta * (v - u))[:, None] * k[None, :]
        o = tl.sum(S * q[None, :], axis=1) * scale
    else:
        # Both reductions read the old state and are independent of each other.
        s_k = tl.sum(S * k[None, :], axis=1)
        s_q = tl.sum(S * q[None, :], axis=1)
        kq = tl.sum(k * q, axis=0)
        d = beta * (v - g * s_k)
        S = S * g + d[:, None] * k[None, :]
        o = (g * s_q + d * kq) * scale

    tl.store(out_ptr + i_bh * V + offs_v, o.to(out_ptr.dtype.element_ty))
    tl.store(new_state_ptr + tile, S, eviction_policy=STORE_EVICT)


def _on_cpu_interpreter() -> bool:
    # Under TRITON_INTERPRET=1 kernels run on the CPU on CPU tensors (how CI tests them).
    import os

    return os.environ.get("TRITON_INTERPRET", "0") == "1"


def _check(name, t, dtype, shape, device):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"gdn_decode: {name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype != dtype:
        raise TypeError(f"gdn_decode: {name} must be {dtype}, got {t.dtype}")
    if tuple(t.shape) != tuple(shape):
        raise ValueError(f"gdn_decode: {name} must have shape {tuple(shape)}, got {tuple(t.shape)}")
    if t.device != device:
        raise ValueError(f"gdn_decode: {name} is on {t.device}, expected {device} like q")
    if not t.is_contiguous():
        raise ValueError(f"gdn_decode: {name} must be contiguous")


def run(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state):
    """Destination-passing entry point: writes `output` [B,1,8,128] bf16 and `new_state`
    [B,8,128,128] fp32. `state` may be None (zeros); `scale` 0 or None means 1/sqrt(128).
    Checks run on tensor metadata only: no device work, no host sync."""
    if not isinstance(q, torch.Tensor) or q.dim() != 4:
        raise ValueError("gdn_decode: q must be a tensor of shape [B, 1, 4, 128]")
    device = q.device
    if device.type != "cuda" and not _on_cpu_interpreter():
        raise ValueError(f"gdn_decode: tensors must be on a CUDA device, got {device}")
    batch = q.shape[0]
    bf16, f32 = torch.bfloat16, torch.float32
    _check("q", q, bf16, (batch, 1, NUM_Q_HEADS, HEAD_SIZE), device)
    _check("k", k, bf16, (batch, 1, NUM_Q_HEADS, HEAD_SIZE), device)
    _check("v", v, bf16, (batch, 1, NUM_V_HEADS, HEAD_SIZE), device)
    if state is not None:
        _check("state", state, f32, (batch, NUM_V_HEADS, HEAD_SIZE, HEAD_SIZE), device)
    _check("A_log", A_log, f32, (NUM_V_HEADS,), device)
    _check("a", a, bf16, (batch, 1, NUM_V_HEADS), device)
    _check("dt_bias", dt_bias, f32, (NUM_V_HEADS,), device)
    _check("b", b, bf16, (batch, 1, NUM_V_HEADS), device)
    _check("output", output, bf16, (batch, 1, NUM_V_HEADS, HEAD_SIZE), device)
    _check("new_state", new_state, f32, (batch, NUM_V_HEADS, HEAD_SIZE, HEAD_SIZE), device)
    if isinstance(scale, torch.Tensor):
        scale = float(scale)  # a 0-d tensor; the harness passes a Python float
    if scale is None or scale == 0.0:
        scale = 1.0 / math.sqrt(HEAD_SIZE)
    if batch == 0:
        return

    block_v, num_warps, sequential, fast_log, load_evict, store_evict, prefetch_v = tile_for(batch, device)
    grid = (batch * NUM_V_HEADS * (HEAD_SIZE // block_v),)
    _gdn_decode_kernel[grid](
        q, k, v, state if state is not None else new_state,
        A_log, a, dt_bias, b,
        output, new_state,
        float(scale),
        HQ=NUM_Q_HEADS, HV=NUM_V_HEADS, K=HEAD_SIZE, V=HEAD_SIZE,
        BV=block_v, HAS_STATE=state is not None, SEQUENTIAL=sequential,
        FAST_LOG=fast_log and not _on_cpu_interpreter(),   # inline PTX: compiled kernels only
        LOAD_EVICT=load_evict, STORE_EVICT=store_evict,
        PREFETCH_V=prefetch_v and not _on_cpu_interpreter(),   # inline PTX too
        num_warps=num_warps,
    )
