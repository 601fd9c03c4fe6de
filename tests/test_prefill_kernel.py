"""solution/triton/gdn_prefill.py against the float64 oracle on ragged packed sequences, on
fresh random inputs with NaN-poisoned outputs (interpreter on CPU, compiled on GPU)."""

import pytest
import torch
import triton
import triton.language as tl

from conftest import load_solution_module, poisoned_like
from gdnkit.inputs import prefill_inputs, seeded_generator
from gdnkit.oracle import gdn_recurrence_f64
from helpers import (OUT_TOL, PREFILL_HARD_STATE_TOL, PREFILL_OUT_TOL, PREFILL_STATE_TOL, STATE_TOL,
                     assert_close_to_oracle, load_benchmark)

prefill = load_solution_module("gdn_prefill")


def run_prefill(x, device):
    total, num_seqs = x["q"].shape[0], x["cu_seqlens"].shape[0] - 1
    out = poisoned_like((total, 8, 128), torch.bfloat16, device)
    new_state = poisoned_like((num_seqs, 8, 128, 128), torch.float32, device)
    prefill.run(*x.values(), out, new_state)
    return out, new_state


def check_against_oracle(x, device, out_tol=PREFILL_OUT_TOL, state_tol=PREFILL_STATE_TOL):
    out, new_state = run_prefill(x, device)
    cpu = [v.cpu() if isinstance(v, torch.Tensor) else v for v in x.values()]
    want_out, want_state = gdn_recurrence_f64(*cpu)
    assert_close_to_oracle("output", out, want_out, **out_tol)
    assert_close_to_oracle("new_state", new_state, want_state, **state_tol)


# The three paths of run(): the fused kernel (small inputs), the chunked kernel (prep and scan
# programs in one launch) with 16-token chunks, and the chunked kernel with 64-token chunks
# (larger inputs). Each test forces one.
# (On an sm90 GPU run() gives one or two sequences of 7-432 tokens, and three of up to 128, to the
# warp-role kernel instead of the fused kernel or the short configuration: WARP_ROLES_MAX_TOKENS = 0
# keeps them on the forced path. The CPU interpreter never takes the warp-role kernel. Both recurrent
# bounds at 0 keep the smallest inputs off the recurrent kernel.)
NO_RECURRENT = dict(RECURRENT_MAX_TOKENS=0, RECURRENT_MANY_SEQS_MAX_TOKENS=0)
PATHS = {
    "fused": dict(**NO_RECURRENT, FUSED_MAX_TOKENS=1 << 40, WARP_ROLES_MAX_TOKENS=0),
    "chunked-short": dict(**NO_RECURRENT, FUSED_MAX_TOKENS=0, FUSED_MULTI_SEQ_MAX_TOKENS=0,
                          FUSED_MANY_SEQS_MAX_TOKENS=0, CHUNKED_SHORT_MAX_TOKENS=1 << 40, WARP_ROLES_MAX_TOKENS=0),
    "chunked": dict(**NO_RECURRENT, FUSED_MAX_TOKENS=0, FUSED_MULTI_SEQ_MAX_TOKENS=0,
                    FUSED_MANY_SEQS_MAX_TOKENS=0, CHUNKED_SHORT_MAX_TOKENS=0, WARP_ROLES_MAX_TOKENS=0),
}
PATH_NAMES = {"fused": "fused", "chunked-short": "short", "chunked": "long"}   # as _choose_path names them


def force_path(monkeypatch, name, **knobs):
    for knob, value in {**PATHS[name], **knobs}.items():
        monkeypatch.setattr(prefill, knob, value)


@pytest.mark.parametrize("name", sorted(PATHS))
def test_forced_paths_hold(name, monkeypatch):
    """Each forced path takes every input size the tests give it (a new routing rule must not
    send a forced test to another kernel unnoticed)."""
    force_path(monkeypatch, name)
    for total, num_seqs in [(70, 4), (40, 3), (150, 1), (12, 12), (195, 6), (73, 2), (2, 3), (38, 5), (74, 4),
                            (7, 2), (130, 1), (276, 6), (243, 3), (163, 3)]:
        assert prefill._choose_path(total, num_seqs) == PATH_NAMES[name], (total, num_seqs)


@pytest.fixture(params=sorted(PATHS))
def path(request, monkeypatch):
    force_path(monkeypatch, request.param)
    return request.param


@pytest.mark.parametrize("seqlens", [
    [1, 1, 65, 3],      # cu_seqlens [0, 1, 2, 67, 70]: single tokens, one sequence over a chunk boundary
    [5, 0, 35],         # cu_seqlens [0, 5, 5, 40]: an empty sequence in the middle
    [150],              # one sequence over many chunk boundaries (two even at the largest chunk, 64)
    [1] * 12,           # many one-token sequences
], ids=["1-1-65-3", "5-0-35", "150", "12x1"])
def test_prefill_matches_oracle(seqlens, path, device, fresh_seed):
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device), device)


def test_prefill_chunked_slots(monkeypatch, device, fresh_seed):
    """Sequences ending exactly on, just before and just after 64-token chunk boundaries, and
    an empty one, packed back to back: every chunk must find its own record from the prep
    programs (slot = bos // BT + n + j)."""
    force_path(monkeypatch, "chunked")
    check_against_oracle(prefill_inputs([63, 1, 64, 65, 0, 2], seeded_generator(fresh_seed), device=device), device)


@pytest.mark.parametrize("path_name, seqlens", [
    ("chunked", [150]), ("chunked", [1, 1, 65, 3]), ("chunked-short", [150]),
], ids=["chunked-150", "chunked-1-1-65-3", "chunked-short-150"])
def test_prefill_chunked_int64_offsets_and_cu_seqlens_reads(path_name, seqlens, monkeypatch, device, fresh_seed):
    """The chunked kernel's fallbacks: int64 sequence offsets in the scan (taken when a call's
    offsets do not fit int32) and a single sequence's bounds read from cu_seqlens."""
    force_path(monkeypatch, path_name, CHUNKED_INT32=False, CHUNKED_SINGLE_SEQ=False)
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device), device)


@pytest.mark.parametrize("seqlens, has_state", [
    ([1, 1, 65, 3], True), ([5, 0, 35], True), ([16, 17, 32, 33], True), ([150], True), ([1, 40, 0, 33], False),
], ids=["1-1-65-3", "5-0-35", "16-17-32-33", "150", "no-state"])
@pytest.mark.parametrize("skip_prep", [False, True], ids=["all-preps", "no-first-preps"])
def test_prefill_short_scan_solves_its_first_chunk(seqlens, has_state, skip_prep, monkeypatch, device, fresh_seed):
    """CHUNKED_SHORT_SELF_FIRST: each scan program takes its sequence's first chunk with the fused
    kernel's step and only the later chunks from the prep records (sequences of one token, of
    exactly one chunk, one token past it, empty, single), with the first chunks' prep programs
    writing their unread records or exiting early (CHUNKED_SHORT_PREP_SKIP_FIRST)."""
    force_path(monkeypatch, "chunked-short", CHUNKED_SHORT_SELF_FIRST=8, CHUNKED_SHORT_PREP_SKIP_FIRST=skip_prep)
    x = prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device)
    if not has_state:
        x["state"] = None
    check_against_oracle(x, device)


@pytest.mark.parametrize("k_split", [True, False], ids=["k-split", "whole"])
@pytest.mark.parametrize("seqlens, has_state", [([150], True), ([1, 1, 65, 3], True), ([40, 0, 90], False)],
                         ids=["150", "1-1-65-3", "no-state"])
def test_prefill_short_scan_k_split(seqlens, has_state, k_split, monkeypatch, device, fresh_seed):
    """CHUNKED_SHORT_K_SPLIT: the short configuration's scan with its state tile as two halves
    along K (two accumulation chains per product) and as one tile; both must match the oracle,
    on many chunks of one sequence, ragged ones with one-token sequences, and an empty one."""
    force_path(monkeypatch, "chunked-short", CHUNKED_SHORT_K_SPLIT=k_split)
    x = prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device)
    if not has_state:
        x["state"] = None
    check_against_oracle(x, device)


def test_prefill_chunked_flags_take_each_calls_epoch(monkeypatch, device, fresh_seed):
    """The ready flags persist between calls: each call must publish a new epoch on exactly the
    (slot, head) flags of its chunks, and a second call on other inputs of the same shape must
    compute its own result (not reuse the first call's records)."""
    force_path(monkeypatch, "chunked")
    seqlens = [70, 0, 5]       # slot = bos // 64 + n + j: 0 and 1 (first), 70 // 64 + 2 = 3 (third)
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device), device)
    first = prefill._chunk_flags.epoch
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed + 1), device=device), device)
    second = prefill._chunk_flags.epoch
    assert second == first + 1
    flags = prefill._chunk_flags.last
    per_slot = flags[: (75 // 64 + 3) * 8].view(-1, 8).cpu()
    assert (per_slot[[0, 1, 3]] == second).all()
    assert (per_slot[2] != second).all()                  # the empty sequence's slot: no chunk


def test_prefill_prep_programs_for_two_heads(monkeypatch, device, fresh_seed):
    """With CHUNKED_PREP_HEADS = 2 each prep program writes the records of both value heads of
    a q/k head and sets both their flags: every (slot, head) flag of a chunk must carry the
    call's epoch, and the result must match the oracle."""
    force_path(monkeypatch, "chunked", CHUNKED_PREP_HEADS=2, CHUNKED_PREP_HEADS_MIN_TOKENS=0)
    assert prefill._chunked_prep_heads("long", 1) == 2
    seqlens = [63, 1, 64, 65, 0, 2]   # slots 0; 1; 3; 5, 6; none; 8 (slot = bos // 64 + n + j)
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device), device)
    per_slot = prefill._chunk_flags.last[: (195 // 64 + 6) * 8].view(-1, 8).cpu()
    assert (per_slot[[0, 1, 3, 5, 6, 8]] == prefill._chunk_flags.epoch).all()
    assert (per_slot[[2, 4, 7]] != prefill._chunk_flags.epoch).all()


def test_chunked_prep_heads_rule(monkeypatch):
    """Prep programs take two value heads only on the 64-token configuration of large inputs."""
    monkeypatch.setattr(prefill, "CHUNKED_PREP_HEADS", 2)
    monkeypatch.setattr(prefill, "CHUNKED_PREP_HEADS_MIN_TOKENS", 3584)
    assert prefill._chunked_prep_heads("long", 3583) == 1
    assert prefill._chunked_prep_heads("long", 3584) == 2
    assert prefill._chunked_prep_heads("short", 8192) == 1


def test_prefill_without_state(path, device, fresh_seed):
    check_against_oracle(prefill_inputs([3, 70], seeded_generator(fresh_seed), device=device, with_state=False), device)


def test_prefill_empty_sequence_writes_zero_state(path, device, fresh_seed):
    x = prefill_inputs([2, 0, 0], seeded_generator(fresh_seed), device=device)
    _, new_state = run_prefill(x, device)
    assert torch.count_nonzero(new_state[1:]) == 0


def test_prefill_token_by_token_branch(monkeypatch, device, fresh_seed):
    """Sequences of at most RECURRENT_MAX_LEN tokens run token by token inside the fused kernel,
    longer ones in chunks, in the same launch."""
    force_path(monkeypatch, "fused", RECURRENT_MAX_LEN=8)
    check_against_oracle(prefill_inputs([1, 8, 0, 9, 20], seeded_generator(fresh_seed), device=device), device)


@pytest.mark.parametrize("seqlens, has_state, knobs", [
    ([6], True, {}),                                        # one sequence: bounds from the shapes
    ([1, 0, 5, 7], True, dict(RECURRENT_BLOCK_V=16)),       # several, one empty, one of one token
    ([3, 9], False, dict(RECURRENT_BLOCK_V=32)),            # no state
    ([13], True, dict(RECURRENT_BLOCK_V=32, RECURRENT_LOOKAHEAD=3)),   # loads 3 steps ahead of 13
    ([2, 11, 4], True, dict(RECURRENT_BLOCK_V=16, RECURRENT_LOOKAHEAD=5)),
    ([1] * 8, False, dict(RECURRENT_BLOCK_V=32)),              # 8 one-token sequences, no state
    ([0, 8, 0], True, dict(RECURRENT_BLOCK_V=32)),            # empty first and last sequences
], ids=["6", "1-0-5-7", "3-9-no-state", "13-lookahead-3", "2-11-4-lookahead-5", "1x8-no-state", "0-8-0"])
def test_prefill_recurrent_kernel(seqlens, has_state, knobs, monkeypatch, device, fresh_seed):
    """The token-by-token kernel (RECURRENT_MAX_TOKENS): every sequence's steps, those past its end
    skipped, with each token's loads issued LOOKAHEAD steps ahead of its step (all of them up
    front when the sequence is shorter), and the state of an empty sequence zeroed. Small V tiles
    are slow under the interpreter, so most cases take wider ones; the default tile runs once."""
    force_path(monkeypatch, "fused", RECURRENT_MAX_TOKENS=64, **knobs)
    total = sum(seqlens)
    assert prefill._choose_path(total, len(seqlens)) == "recurrent"
    x = prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device)
    if not has_state:
        x["state"] = None
    check_against_oracle(x, device)


def test_prefill_fused_without_next_chunk_prefetch(monkeypatch, device, fresh_seed):
    """The fused loop with each chunk's inputs loaded at the start of its iteration instead of one
    iteration ahead (what inputs of at most one chunk per sequence get, FUSED_PREFETCH_MIN_TOKENS),
    forced here onto sequences of one, two and three chunks, one a token past a boundary."""
    force_path(monkeypatch, "fused", FUSED_PREFETCH_MIN_TOKENS=1 << 40)
    check_against_oracle(prefill_inputs([16, 0, 33, 1, 17], seeded_generator(fresh_seed), device=device), device)


class _LaunchRecorder:
    """Stands in for a kernel: kernel[grid](*args, **kwargs) keeps the keyword arguments."""

    def __init__(self):
        self.kwargs = []

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.kwargs.append(kwargs)


@pytest.mark.parametrize("seqlens, prefetch", [([9], False), ([16], False), ([5, 11], False), ([15, 2], True),
                                               ([10, 10], True)])
def test_fused_prefetch_rule(seqlens, prefetch, monkeypatch, device):
    """As measured (notes/prefill.md, session 27): the fused loop loads the next chunk ahead only
    on inputs of more than one chunk (17 tokens or more); below, no sequence has a next chunk, and
    compiled kernels ask L2 for the chunk's rows first (the interpreter runs no inline PTX)."""
    recorder = _LaunchRecorder()
    monkeypatch.setattr(prefill, "_gdn_prefill_fused_kernel", recorder)
    monkeypatch.setattr(prefill, "WARP_ROLES_MAX_TOKENS", 0)   # (on sm90 the warp-role kernel takes 17 tokens)
    x = prefill_inputs(seqlens, seeded_generator(0), device=device)
    assert prefill._route(sum(seqlens), len(seqlens), torch.device(device)).kernel == "fused"
    prefill.run(*x.values(), torch.empty(sum(seqlens), 8, 128, dtype=torch.bfloat16, device=device),
                torch.empty(len(seqlens), 8, 128, 128, device=device))
    assert [kw["PREFETCH_NEXT"] for kw in recorder.kwargs] == [prefetch]
    assert [kw["L2_FIRST"] for kw in recorder.kwargs] == [not prefetch and not prefill._on_cpu_interpreter()]


def test_recurrent_path_rule(monkeypatch):
    """Inputs of 1 to RECURRENT_MAX_TOKENS tokens (at most RECURRENT_UNROLL_LIMIT: the kernel is
    unrolled over T steps) take the recurrent kernel; an input without tokens and larger ones do
    not, and 0 turns it off."""
    monkeypatch.setattr(prefill, "RECURRENT_UNROLL_LIMIT", 64)
    monkeypatch.setattr(prefill, "RECURRENT_MAX_TOKENS", 24)
    assert [prefill._choose_path(t, n) for t, n in [(1, 1), (24, 1), (24, 5)]] == ["recurrent"] * 3
    assert prefill._choose_path(0, 1) != "recurrent" and prefill._choose_path(25, 2) != "recurrent"
    monkeypatch.setattr(prefill, "RECURRENT_MAX_TOKENS", 1000)
    assert prefill._choose_path(64, 1) == "recurrent" and prefill._choose_path(65, 1) != "recurrent"
    monkeypatch.setattr(prefill, "RECURRENT_MAX_TOKENS", 0)
    monkeypatch.setattr(prefill, "RECURRENT_MANY_SEQS_MAX_TOKENS", 0)
    assert prefill._choose_path(1, 1) == prefill._choose_path(1, 8) == "fused"
    # the many-sequences clause: up to RECURRENT_MANY_SEQS_MAX_TOKENS tokens in RECURRENT_MANY_SEQS_MIN_SEQS
    # sequences or more, beside a lower bound for fewer
    monkeypatch.setattr(prefill, "RECURRENT_MAX_TOKENS", 4)
    monkeypatch.setattr(prefill, "RECURRENT_MANY_SEQS_MAX_TOKENS", 10)
    monkeypatch.setattr(prefill, "RECURRENT_MANY_SEQS_MIN_SEQS", 3)
    assert [prefill._choose_path(t, n) for t, n in [(4, 1), (4, 2), (5, 2), (5, 3), (10, 3), (11, 3), (10, 9)]] \
        == ["recurrent", "recurrent", "fused", "recurrent", "recurrent", "fused", "recurrent"]


def test_recurrent_default_rule():
    """As measured (notes/prefill.md, sessions 26 and 61): the recurrent kernel takes inputs of at most 6
    tokens, and of 7-8 tokens in three sequences or more; 7-8 tokens in one or two sequences go to the
    fused path (on sm90 the warp-role kernel's), as do 9 tokens and more."""
    assert [prefill._choose_path(t, n) for t, n in [(1, 1), (6, 1), (6, 2), (7, 3), (8, 3), (8, 4), (8, 8)]] \
        == ["recurrent"] * 7
    assert [prefill._choose_path(t, n) for t, n in [(7, 1), (8, 1), (7, 2), (8, 2), (9, 1), (9, 3), (12, 1)]] \
        == ["fused"] * 7


def _hard_inputs(gen, length, device):
    x = prefill_inputs([length], gen)
    base = torch.randn(1, 4, 128, generator=gen)
    keys = base + 0.15 * torch.randn(length, 4, 128, generator=gen)
    x["k"] = torch.nn.functional.normalize(keys, dim=-1).to(torch.bfloat16)
    x["b"] = (3.0 + torch.randn(length, 8, generator=gen)).to(torch.bfloat16)
    x["a"] = (2.0 * torch.randn(length, 8, generator=gen)).to(torch.bfloat16)
    x["A_log"] = torch.randn(8, generator=gen)
    return {k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in x.items()}


@pytest.mark.parametrize("path_name, knobs", [
    ("fused", {}),                                    # 16-token chunks, 8 x 8 substitution
    ("chunked-short", {}),                            # 16-token chunks, block recursion
    ("chunked", dict(CHUNKED_BLOCK_T=64)),            # 64-token chunks, recursion and series
    ("chunked", dict(CHUNKED_BLOCK_T=32)),
    # the lean configuration (2 stages), which run() picks for N >= 2 only
    ("chunked", dict(CHUNKED_NUM_STAGES=2)),
    # 64-column tiles with fp16 T R and P E (the single sequence in them: no narrow tiles)
    ("chunked", dict(CHUNKED_WIDE_MIN_TOKENS=0, CHUNKED_WIDE_ARCHES=("sm90", "sm100", "default"), CHUNKED_LONG_SHARE=0,
                     CHUNKED_LONG_SHARE_WIDE=0, CHUNKED_WIDE_HALF_DOTS=True)),
    # the narrow tiles stepped with transition records (CHUNKED_TRANSITION), from any length
    ("chunked", dict(CHUNKED_TRANSITION=True, CHUNKED_TRANSITION_MIN_LEN=0)),
], ids=["fused", "chunked-short", "chunked-64", "chunked-32", "chunked-lean", "chunked-wide-half",
        "chunked-transition"])
def test_prefill_hard_inputs(path_name, knobs, monkeypatch, device, fresh_seed):
    """Strongly correlated keys, beta near 1 and fast decay: the entries of A approach 1 and
    the triangular inverse grows; substitution, block recursion and block series must stay
    accurate."""
    force_path(monkeypatch, path_name, **knobs)
    check_against_oracle(_hard_inputs(seeded_generator(fresh_seed), 130, device), device,
                         state_tol=PREFILL_HARD_STATE_TOL)


NOT_LEAN = dict(CHUNKED_LEAN_MAX_TOKENS=0, CHUNKED_LEAN_MAX_MEAN_LEN=0)


@pytest.mark.parametrize("path_name, seqlens, knobs", [
    ("chunked", [5, 70, 0, 70, 130, 1], {}),
    ("chunked", [40, 3, 200], {}),
    ("chunked", [70, 3, 90], NOT_LEAN),
    ("chunked-short", [5, 70, 0, 70, 130, 1], {}),
    # transition records for the 90 and the 70 (both over a quarter of the tokens and at least
    # 64 long), the 90 in narrow tiles from them; the 70 narrow too, or (longest-first) from T and P
    ("chunked", [70, 3, 90], dict(NOT_LEAN, CHUNKED_TRANSITION=True, CHUNKED_TRANSITION_MIN_LEN=64)),
], ids=["chunked-ties", "chunked-last-longest", "chunked-fit", "chunked-short-ties", "chunked-transition"])
@pytest.mark.parametrize("front, ranked", [(0, False), (1, False), (2, False), (8, False), (1, True)],
                         ids=["batch-order", "longest-first", "two-longest-first", "all-sorted", "ranked"])
def test_prefill_chunked_scan_order(path_name, seqlens, knobs, front, ranked, monkeypatch, device, fresh_seed):
    """The longest sequences scanned by the first scan programs (their batch-order programs
    exit), every one of them, every sequence in batch order, or every sequence in length order
    from prep program 0's ranking (CHUNKED_RANKED_SCANS: programs for narrow tiles only for the
    first ranks), with ties, an empty sequence, the longest last, one sequence over a quarter of
    the tokens in the narrow V tiles, and two such sequences of which, with longest-first or
    ranked scans, only the longer is narrow (CHUNKED_FIT_SCANS): every sequence's output and
    state must still be its own."""
    force_path(monkeypatch, path_name, CHUNKED_LONGEST_FIRST=front, CHUNKED_LONGEST_FIRST_MAX_SEQS=64,
               CHUNKED_SHORT_LONGEST_FIRST_MAX_SEQS=64, CHUNKED_LONGEST_FIRST_MIN_TOKENS=0,
               CHUNKED_RANKED_SCANS=ranked, **knobs)
    path = "long" if path_name == "chunked" else "short"
    total, num_seqs = sum(seqlens), len(seqlens)
    longest_first = prefill._chunked_longest_first(path, total, num_seqs)
    assert longest_first == min(front, num_seqs)
    if knobs.get("CHUNKED_LEAN_MAX_TOKENS", 1) == 0 and front:   # 90 and 70 both over a quarter; only the 90 narrow
        assert prefill._chunked_long_ranks(path, total, num_seqs, longest_first, torch.device(device)) == 1
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device), device)


def test_chunked_longest_first_rule(monkeypatch):
    """How many of the longest sequences go first, from the shapes alone: none for one sequence
    (nothing to order), above the path's sequence limit (one vector holds every sequence's
    length) or below the token threshold, at most the sequence count."""
    monkeypatch.setattr(prefill, "CHUNKED_LONGEST_FIRST", 2)
    monkeypatch.setattr(prefill, "CHUNKED_LONGEST_FIRST_MAX_SEQS", 64)
    monkeypatch.setattr(prefill, "CHUNKED_LONGEST_FIRST_MIN_TOKENS", 1024)
    monkeypatch.setattr(prefill, "CHUNKED_SHORT_LONGEST_FIRST_MAX_SEQS", 0)
    assert prefill._chunked_longest_first("long", 8192, 1) == 0
    assert prefill._chunked_longest_first("long", 1024, 2) == 2
    assert prefill._chunked_longest_first("long", 1023, 2) == 0
    assert prefill._chunked_longest_first("long", 8192, 64) == 2
    assert prefill._chunked_longest_first("long", 8192, 65) == 0
    assert prefill._chunked_longest_first("short", 8192, 3) == 0


@triton.jit
def _scan_sequence_probe(cu_ptr, out_ptr, num_seqs, HV: tl.constexpr, FRONT: tl.constexpr, NP2: tl.constexpr,
                         INT32: tl.constexpr):
    group = tl.program_id(0)
    i_n, bos, seq_len, active, rank = prefill._scan_sequence(cu_ptr, group, num_seqs, HV, FRONT, NP2, INT32)
    tl.store(out_ptr + group * 5, i_n.to(tl.int64))
    tl.store(out_ptr + group * 5 + 1, bos.to(tl.int64))
    tl.store(out_ptr + group * 5 + 2, seq_len.to(tl.int64))
    tl.store(out_ptr + group * 5 + 3, active.to(tl.int64))
    tl.store(out_ptr + group * 5 + 4, rank.to(tl.int64))


# Sequence lengths for the tests of the device-side orderings: two, ties with empty sequences,
# all equal, and 64 of mixed lengths (the vectors' full width).
ORDER_CASES = dict(argvalues=[[3, 9], [5, 70, 0, 70, 130, 1, 0, 7], [4, 4, 4], [(i * 37) % 11 for i in range(64)]],
                   ids=["two", "ties-and-empty", "all-equal", "64-mixed"])


@pytest.mark.parametrize("seqlens", **ORDER_CASES)
@pytest.mark.parametrize("front", [1, 2], ids=["front1", "front2"])
@pytest.mark.parametrize("int32", [True, False], ids=["int32", "int64"])
def test_scan_sequence_longest_first(seqlens, front, int32, device):
    """The scan groups' sequences with longest-first scans: groups r * HV .. r * HV + HV - 1
    (r < front) take the r-th longest sequence (equal lengths in batch order), group g after them
    sequence g // HV - front, inactive where that one went first, each with its bounds from
    cu_seqlens and its sequence's rank by length (equal lengths in batch order)."""
    hv = 2
    cu = torch.tensor([0, *seqlens], dtype=torch.int64).cumsum(0)
    groups = (len(seqlens) + front) * hv
    out = torch.full((groups, 5), -7, dtype=torch.int64, device=device)
    _scan_sequence_probe[(groups,)](cu.to(device), out, len(seqlens), HV=hv, FRONT=front, NP2=64, INT32=int32)
    by_length = sorted(range(len(seqlens)), key=lambda n: -seqlens[n])   # stable: equal lengths in batch order
    want = []
    for g in range(groups):
        n = by_length[g // hv] if g < front * hv else g // hv - front
        want.append([n, int(cu[n]), seqlens[n], int(g < front * hv or n not in by_length[:front]),
                     by_length.index(n)])
    assert out.cpu().tolist() == want


@triton.jit
def _ranked_sequence_probe(cu_ptr, order_ptr, out_ptr, num_seqs, epoch, NP2: tl.constexpr, INT32: tl.constexpr):
    pid = tl.program_id(0)   # 0 ranks; pid r + 1 reads rank r (the interpreter runs them in id order)
    if pid == 0:
        prefill._rank_sequences(cu_ptr, num_seqs, order_ptr, epoch, NP2)
    else:
        i_n, bos, seq_len = prefill._ranked_sequence(cu_ptr, num_seqs, order_ptr, epoch, pid - 1, NP2, INT32)
        tl.store(out_ptr + (pid - 1) * 3, i_n.to(tl.int64))
        tl.store(out_ptr + (pid - 1) * 3 + 1, bos.to(tl.int64))
        tl.store(out_ptr + (pid - 1) * 3 + 2, seq_len.to(tl.int64))


@pytest.mark.parametrize("seqlens", **ORDER_CASES)
@pytest.mark.parametrize("int32", [True, False], ids=["int32", "int64"])
def test_ranked_sequences(seqlens, int32, device):
    """Ranked scans: prep program 0 writes order[r] = epoch * 2^32 + the sequence of the r-th length
    (the longest first, equal lengths in batch order) over entries of an older call, and the scan
    of rank r reads that sequence and its bounds from cu_seqlens."""
    epoch = 5
    cu = torch.tensor([0, *seqlens], dtype=torch.int64).cumsum(0)
    order = torch.full((len(seqlens),), (epoch - 1) * 2**32 + 3, dtype=torch.int64, device=device)
    out = torch.full((len(seqlens), 3), -7, dtype=torch.int64, device=device)
    _ranked_sequence_probe[(len(seqlens) + 1,)](cu.to(device), order, out, len(seqlens), epoch, NP2=64, INT32=int32)
    by_length = sorted(range(len(seqlens)), key=lambda n: -seqlens[n])   # stable: equal lengths in batch order
    assert order.cpu().tolist() == [epoch * 2**32 + n for n in by_length]
    assert out.cpu().tolist() == [[n, int(cu[n]), seqlens[n]] for n in by_length]


def test_chunked_long_ranks_rule(monkeypatch):
    """How many of the longest sequences may take the narrow V tiles: where all sequences' scan
    programs fit on the SMs in wide tiles, as many as keep them all resident (at least one);
    else, without longest-first scans, off the 64-token configuration or with the knob off, all."""
    monkeypatch.setattr(prefill, "CHUNKED_FIT_SCANS", True)
    monkeypatch.setattr(prefill, "CHUNKED_BLOCK_V", 32)        # 32 programs per sequence
    monkeypatch.setattr(prefill, "CHUNKED_BLOCK_V_LONG", 16)   # 64
    monkeypatch.setattr(prefill, "CHUNKED_LEAN_MAX_TOKENS", 256)
    monkeypatch.setattr(prefill, "CHUNKED_LEAN_MAX_MEAN_LEN", 200)
    monkeypatch.setitem(prefill._SM_COUNTS, torch.device("cuda", 0), 132)
    monkeypatch.setattr(prefill, "_arch", lambda device: "sm90")   # (no device query without a GPU)
    gpu = torch.device("cuda", 0)
    assert prefill._chunked_long_ranks("long", 1796, 3, 1, gpu) == 1    # 64 + 2 * 32 = 128 <= 132
    assert prefill._chunked_long_ranks("long", 983, 2, 1, gpu) == 2     # 2 * 64 fit
    assert prefill._chunked_long_ranks("long", 959, 4, 1, gpu) == 1     # 4 * 32 fit, 64 + 3 * 32 do not
    assert prefill._chunked_long_ranks("long", 3028, 5, 1, gpu) == 5   # 5 * 32 > 132: no limit
    assert prefill._chunked_long_ranks("long", 4124, 15, 1, gpu) == 15
    assert prefill._chunked_long_ranks("long", 1796, 3, 0, gpu) == 3    # ranks unknown
    assert prefill._chunked_long_ranks("short", 300, 3, 1, gpu) == 3
    assert prefill._chunked_long_ranks("long", 8192, 41, 1, gpu) == 41  # lean: 264 slots, still too many
    assert prefill._chunked_long_ranks("long", 600, 4, 1, gpu) == 4     # lean: (264 - 128) // 32
    monkeypatch.setattr(prefill, "CHUNKED_FIT_SCANS", False)
    assert prefill._chunked_long_ranks("long", 1796, 3, 1, gpu) == 3


def test_chunked_wide_tile_rule(monkeypatch):
    """The 64-token configuration's V tile for sequences without narrow tiles is chosen from the
    token count and the architecture alone: wide from CHUNKED_WIDE_MIN_TOKENS, on the
    architectures of CHUNKED_WIDE_ARCHES only."""
    monkeypatch.setattr(prefill, "CHUNKED_BLOCK_V", 32)
    monkeypatch.setattr(prefill, "CHUNKED_BLOCK_V_WIDE", 64)
    monkeypatch.setattr(prefill, "CHUNKED_WIDE_MIN_TOKENS", 3584)
    monkeypatch.setattr(prefill, "CHUNKED_WIDE_ARCHES", ("sm90",))
    gpu = torch.device("cuda", 0)
    for arch, wide in (("sm90", 64), ("sm100", 32), ("default", 32)):
        monkeypatch.setattr(prefill, "_arch", lambda device, arch=arch: arch)
        assert prefill._chunked_block_v(3583, gpu) == 32
        assert prefill._chunked_block_v(3584, gpu) == wide
        assert prefill._chunked_block_v(8192, gpu) == wide
    # beside wide tiles a sequence takes the narrow ones from a third of the tokens, else from a quarter
    monkeypatch.setattr(prefill, "CHUNKED_LONG_SHARE", 4)
    monkeypatch.setattr(prefill, "CHUNKED_LONG_SHARE_WIDE", 3)
    assert prefill._chunked_long_share("long", 64) == 3
    assert prefill._chunked_long_share("long", 32) == prefill._chunked_long_share("short", 16) == 4
    # fp16 T R and P E only in 64-column tiles of the 64-token configuration
    monkeypatch.setattr(prefill, "CHUNKED_WIDE_HALF_DOTS", True)
    assert prefill._chunked_wide_half_dots("long", 64)
    assert not prefill._chunked_wide_half_dots("long", 32)
    assert not prefill._chunked_wide_half_dots("short", 64)


@pytest.mark.parametrize("front", [0, 1], ids=["batch-order", "longest-first"])
@pytest.mark.parametrize("lean", [True, False], ids=["lean", "not-lean"])
def test_prefill_wide_tiles(front, lean, monkeypatch, device, fresh_seed):
    """Wide tiles (four narrow tiles' programs per wide tile, three of them exiting) beside narrow
    ones in one launch: the 150-token sequence holds over a quarter of the tokens and takes the
    narrow tiles, the others (with a one-token and an empty sequence) the wide ones, with fp16 T R
    and P E (CHUNKED_WIDE_HALF_DOTS), their records as register operands when lean (two stages)
    and fed from shared memory otherwise."""
    force_path(monkeypatch, "chunked", CHUNKED_WIDE_MIN_TOKENS=0, CHUNKED_BLOCK_V_WIDE=64, CHUNKED_BLOCK_V_LONG=16,
               CHUNKED_WIDE_ARCHES=("sm90", "sm100", "default"), CHUNKED_LONGEST_FIRST=front,
               CHUNKED_LONGEST_FIRST_MIN_TOKENS=0, CHUNKED_WIDE_HALF_DOTS=True,
               **({} if lean else NOT_LEAN))
    seqlens = [30, 150, 0, 70, 1, 65]
    assert prefill._chunked_block_v(sum(seqlens), torch.device(device)) == 64
    assert prefill._chunked_is_lean(sum(seqlens), len(seqlens), torch.device(device)) == lean
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device), device)


@pytest.mark.parametrize("prep_heads", [1, 2])
@pytest.mark.parametrize("seqlens, transition", [([30, 150, 0, 70, 1, 65], False), ([200], False),
                                                 ([70, 3, 90], True)], ids=["6-seqs", "one", "transition"])
def test_prefill_split_launches(seqlens, transition, prep_heads, monkeypatch, device, fresh_seed):
    """Prep programs as a launch of their own and the scans as a second one that waits for no
    flag (CHUNKED_SPLIT_MIN_TOKENS), with ranked scans, wide and narrow tiles, an empty and a
    one-token sequence; one sequence alone; and narrow tiles stepping from transition records."""
    knobs = dict(CHUNKED_TRANSITION=True, CHUNKED_TRANSITION_MIN_LEN=64) if transition else {}
    force_path(monkeypatch, "chunked", **knobs, CHUNKED_SPLIT_MIN_TOKENS=0, CHUNKED_SPLIT_MULTI_SEQ_MIN_TOKENS=0,
               CHUNKED_SPLIT_PREP_HEADS=prep_heads,
               CHUNKED_SPLIT_ARCHES=("sm90", "sm100", "default"), CHUNKED_WIDE_MIN_TOKENS=0,
               CHUNKED_BLOCK_V_WIDE=64, CHUNKED_BLOCK_V_LONG=16, CHUNKED_WIDE_ARCHES=("sm90", "sm100", "default"),
               CHUNKED_LONGEST_FIRST_MIN_TOKENS=0, CHUNKED_RANKED_SCANS=True, **NOT_LEAN)
    assert prefill._chunked_split("long", prefill.CHUNKED_NUM_STAGES, sum(seqlens), len(seqlens), torch.device(device))
    assert prefill._chunked_transition("long", prefill.CHUNKED_NUM_STAGES, sum(seqlens), split=True) == transition
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device), device)


def test_prefill_small_split_transition_length(monkeypatch, device, fresh_seed):
    """A split launch of fewer tokens than CHUNKED_TRANSITION_MIN_LEN gives transition records from
    CHUNKED_SMALL_SPLIT_TRANSITION_MIN_LEN (here 65): the 65-token sequence steps its narrow tiles from
    them, the 64-token one from T and P, beside a two-token one."""
    force_path(monkeypatch, "chunked", CHUNKED_TRANSITION=True, CHUNKED_TRANSITION_MIN_LEN=1024,
               CHUNKED_SMALL_SPLIT_TRANSITION_MIN_LEN=65, CHUNKED_SPLIT_FEW_SEQS=3, CHUNKED_SPLIT_FEW_SEQS_MIN_TOKENS=0,
               CHUNKED_SPLIT_ARCHES=("sm90", "sm100", "default"), CHUNKED_RANKED_SCANS=True, **NOT_LEAN)
    seqlens = [64, 65, 2]
    assert prefill._chunked_split("long", prefill.CHUNKED_NUM_STAGES, sum(seqlens), len(seqlens), torch.device(device))
    assert prefill._chunked_transition("long", prefill.CHUNKED_NUM_STAGES, sum(seqlens), split=True)
    assert prefill._chunked_transition_min_len(sum(seqlens), True) == 65
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device), device)


class _FakeLauncher:
    """Triton 3.6's CudaLauncher as _direct_issue reads it: the C launch function and its attributes."""

    def __init__(self, scratch=0):
        self.calls = []
        self.global_scratch_size, self.profile_scratch_size = scratch, 0
        self.launch_cooperative_grid, self.launch_pdl = 0, 1

    def launch(self, *args):
        self.calls.append(args)


class _FakeCompiled:
    """A compiled kernel as _direct_issue reads it."""

    def __init__(self, launcher):
        self.run, self.function, self.packed_metadata = launcher, 0xF00, (4, 1, 181256)
        self.grids = []

    def __getitem__(self, grid):
        self.grids.append(grid)
        return lambda *values: None


class _FakeDriver:
    """triton.runtime.driver for _direct_issue without a GPU: device 0, stream 0x57."""

    class active:
        get_current_device = staticmethod(lambda: 0)
        get_current_stream = staticmethod(lambda device: 0x57)


def test_direct_issue_binds_the_launch(monkeypatch):
    """The split's second launch goes to Triton's C launcher with the grid, the current stream, the
    function, the launch attributes and the metadata bound before the first launch, and the hooks
    and scratch buffers absent (CHUNKED_SPLIT_DIRECT_ISSUE); the call then passes the kernel's
    arguments after them, in order."""
    import triton.runtime

    monkeypatch.setattr(triton.runtime, "driver", _FakeDriver)
    monkeypatch.setattr(prefill, "_DIRECT_ISSUE_TRITON", (triton.__version__,))
    launcher = _FakeLauncher()
    compiled = _FakeCompiled(launcher)
    issue = prefill._direct_issue(compiled, (7, 1, 1))
    assert compiled.grids == [(7, 1, 1)]   # the module is loaded before the first launch
    issue(11, 12, 13)
    assert launcher.calls == [(7, 1, 1, 0x57, 0xF00, 0, 1, None, None, (4, 1, 181256), None, None, None, 11, 12, 13)]


def test_direct_issue_falls_back(monkeypatch):
    """Triton's own launch closure wherever the bound form may not hold: another Triton version,
    launch hooks installed (a profiler's), scratch memory per launch, or a compiled object without
    Triton 3.6's launcher."""
    import triton.knobs
    import triton.runtime

    monkeypatch.setattr(triton.runtime, "driver", _FakeDriver)
    monkeypatch.setattr(prefill, "_DIRECT_ISSUE_TRITON", (triton.__version__,))
    assert prefill._direct_issue(_FakeCompiled(_FakeLauncher(scratch=64)), (7, 1, 1)) is None
    assert prefill._direct_issue(_FakeCompiled(object()), (7, 1, 1)) is None
    assert prefill._direct_issue(_FakeCompiled(_FakeLauncher()), (7, 1, 1)) is not None
    hooks = triton.knobs.HookChain()
    hooks.add(lambda *args: None)
    monkeypatch.setattr(triton.knobs.runtime, "launch_enter_hook", hooks)
    assert prefill._direct_issue(_FakeCompiled(_FakeLauncher()), (7, 1, 1)) is None
    monkeypatch.undo()
    monkeypatch.setattr(triton.runtime, "driver", _FakeDriver)
    monkeypatch.setattr(prefill, "_DIRECT_ISSUE_TRITON", ("2.0",))
    assert prefill._direct_issue(_FakeCompiled(_FakeLauncher()), (7, 1, 1)) is None


def test_split_launches_issue_directly(monkeypatch, device, fresh_seed):
    """On a GPU with the Triton version it was measured on, both split launches take the bound form
    (a silent fallback to Triton's closure would bring back the host's gap between them); under the
    interpreter the launches go through Triton's closure and the bound form is never built."""
    built = []
    original = prefill._direct_issue
    monkeypatch.setattr(prefill, "_direct_issue", lambda *a: built.append(original(*a)) or built[-1])
    force_path(monkeypatch, "chunked", CHUNKED_SPLIT_MIN_TOKENS=0, CHUNKED_SPLIT_MULTI_SEQ_MIN_TOKENS=0,
               CHUNKED_SPLIT_ARCHES=("sm90", "sm100", "default"), **NOT_LEAN)
    check_against_oracle(prefill_inputs([70, 3, 90], seeded_generator(fresh_seed), device=device), device)
    if prefill._on_cpu_interpreter():
        assert built == []
    elif triton.__version__.startswith(prefill._DIRECT_ISSUE_TRITON):
        assert len(built) == 2 and all(b is not None for b in built)


def test_chunked_split_rule(monkeypatch):
    monkeypatch.setattr(prefill, "_arch", lambda device: "sm90")
    monkeypatch.setattr(prefill, "CHUNKED_SPLIT_MIN_TOKENS", 3584)
    monkeypatch.setattr(prefill, "CHUNKED_SPLIT_MULTI_SEQ_MIN_TOKENS", 2000)
    monkeypatch.setattr(prefill, "CHUNKED_SPLIT_FEW_SEQS", 0)
    dev = torch.device("cpu")
    full, lean = prefill.CHUNKED_NUM_STAGES, prefill.CHUNKED_LEAN_STAGES
    assert prefill._chunked_split("long", full, 8192, 32, dev)
    assert prefill._chunked_split("long", full, prefill.CHUNKED_SPLIT_MIN_TOKENS, 1, dev)
    assert not prefill._chunked_split("long", full, prefill.CHUNKED_SPLIT_MIN_TOKENS - 1, 1, dev)
    assert prefill._chunked_split("long", full, prefill.CHUNKED_SPLIT_MULTI_SEQ_MIN_TOKENS, 3, dev)
    assert not prefill._chunked_split("long", full, prefill.CHUNKED_SPLIT_MULTI_SEQ_MIN_TOKENS - 1, 3, dev)
    assert not prefill._chunked_split("long", lean, 8192, 56, dev)   # lean: preps run two CTAs per SM anyway
    assert not prefill._chunked_split("short", full, 8192, 32, dev)
    monkeypatch.setattr(prefill, "CHUNKED_SPLIT_MULTI_SEQ_MIN_TOKENS", 1024)   # several sequences only
    assert prefill._chunked_split("long", full, 1796, 3, dev)
    assert not prefill._chunked_split("long", full, 2107, 1, dev)
    # Two or three sequences split from CHUNKED_SPLIT_FEW_SEQS_MIN_TOKENS; one, or four and more, do not.
    monkeypatch.setattr(prefill, "CHUNKED_SPLIT_FEW_SEQS", 3)
    monkeypatch.setattr(prefill, "CHUNKED_SPLIT_FEW_SEQS_MIN_TOKENS", 896)
    assert prefill._chunked_split("long", full, 896, 2, dev) and prefill._chunked_split("long", full, 983, 3, dev)
    assert not prefill._chunked_split("long", full, 895, 2, dev)
    assert not prefill._chunked_split("long", full, 959, 4, dev)
    assert not prefill._chunked_split("long", full, 959, 1, dev)
    monkeypatch.setattr(prefill, "CHUNKED_SPLIT_LEAN", True)
    assert prefill._chunked_split("long", lean, 8192, 56, dev)
    monkeypatch.setattr(prefill, "_arch", lambda device: "sm100")   # unmeasured there
    assert not prefill._chunked_split("long", full, 8192, 32, dev)


@pytest.mark.parametrize("seqlens", [[65, 64], [64, 65, 2]], ids=["65-64", "64-65-2"])
def test_prefill_transition_length_boundary(seqlens, monkeypatch, device, fresh_seed):
    """Transition records only for sequences of at least CHUNKED_TRANSITION_MIN_LEN tokens: in one
    launch the 65-token sequence steps its narrow tiles from them and the 64-token one from T and P
    (both hold over a quarter of the tokens)."""
    force_path(monkeypatch, "chunked", CHUNKED_TRANSITION=True, CHUNKED_TRANSITION_MIN_LEN=65, **NOT_LEAN)
    assert prefill._chunked_transition("long", prefill.CHUNKED_NUM_STAGES, sum(seqlens))
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device), device)


def test_chunked_transition_rule(monkeypatch):
    """The transition form is compiled only on the long configuration at full pipeline depth, from
    CHUNKED_TRANSITION_MIN_LEN (a sequence that long can occur) to CHUNKED_TRANSITION_MAX_TOKENS, or
    to CHUNKED_SPLIT_TRANSITION_MAX_TOKENS in split launches."""
    monkeypatch.setattr(prefill, "CHUNKED_TRANSITION", True)
    monkeypatch.setattr(prefill, "CHUNKED_TRANSITION_MIN_LEN", 1024)
    monkeypatch.setattr(prefill, "CHUNKED_TRANSITION_MAX_TOKENS", 3583)
    full, lean = prefill.CHUNKED_NUM_STAGES, prefill.CHUNKED_LEAN_STAGES
    assert prefill._chunked_transition("long", full, 1024) and prefill._chunked_transition("long", full, 3583)
    assert not prefill._chunked_transition("long", full, 1023)
    assert not prefill._chunked_transition("long", full, 3584)
    assert not prefill._chunked_transition("long", lean, 2048)
    assert not prefill._chunked_transition("short", full, 2048)
    # Split launches (one-head preps) go on to CHUNKED_SPLIT_TRANSITION_MAX_TOKENS, beside wide tiles too.
    monkeypatch.setattr(prefill, "CHUNKED_SPLIT_TRANSITION_MAX_TOKENS", 8192)
    assert prefill._chunked_transition("long", full, 3584, split=True)
    assert prefill._chunked_transition("long", full, 8192, split=True)
    assert not prefill._chunked_transition("long", full, 8193, split=True)
    assert not prefill._chunked_transition("long", lean, 4096, split=True)
    # Split launches below CHUNKED_TRANSITION_MIN_LEN tokens: from CHUNKED_SMALL_SPLIT_TRANSITION_MIN_LEN.
    monkeypatch.setattr(prefill, "CHUNKED_SMALL_SPLIT_TRANSITION_MIN_LEN", 512)
    assert prefill._chunked_transition("long", full, 1023, split=True)
    assert prefill._chunked_transition("long", full, 512, split=True)
    assert not prefill._chunked_transition("long", full, 511, split=True)
    assert not prefill._chunked_transition("long", full, 1023)
    assert prefill._chunked_transition_min_len(983, True) == 512
    assert prefill._chunked_transition_min_len(983, False) == prefill._chunked_transition_min_len(2048, True) == 1024
    monkeypatch.setattr(prefill, "CHUNKED_TRANSITION", False)
    assert not prefill._chunked_transition("long", full, 2048)
    assert not prefill._chunked_transition("long", full, 4096, split=True)


def test_chunked_fit_carveout_rule(monkeypatch):
    """The fitted shared-memory carveout: every chunked launch but those with transition records, which
    take it beside 64-column tiles only with FIT_SHARED_CARVEOUT_WIDE_TRANSITION."""
    monkeypatch.setattr(prefill, "FIT_SHARED_CARVEOUT_CHUNKED", True)
    wide, narrow = prefill.CHUNKED_BLOCK_V_WIDE, prefill.CHUNKED_BLOCK_V
    fit = lambda transition, block_v: prefill._chunked_fit_carveout("long", transition, block_v)
    for flag in (False, True):
        monkeypatch.setattr(prefill, "FIT_SHARED_CARVEOUT_WIDE_TRANSITION", flag)
        assert fit(False, narrow) and fit(False, wide)
        assert not fit(True, narrow)
        assert fit(True, wide) == flag
    monkeypatch.setattr(prefill, "FIT_SHARED_CARVEOUT_CHUNKED", False)
    assert not fit(False, narrow) and not fit(True, wide)


OVERLAP_ON = dict(NOT_LEAN, CHUNKED_OVERLAP=True, CHUNKED_OVERLAP_MULTI_SEQ=True, CHUNKED_OVERLAP_MIN_TOKENS=0,
                  CHUNKED_OVERLAP_MAX_TOKENS=1 << 40, CHUNKED_LONGEST_FIRST=1, CHUNKED_LONGEST_FIRST_MAX_SEQS=64,
                  CHUNKED_LONGEST_FIRST_MIN_TOKENS=0, CHUNKED_RANKED_SCANS=False)


@pytest.mark.parametrize("seqlens, early_prep", [
    ([60, 3, 200, 5], 36),      # 8 slots; the 200 (4 chunks, slots 2-5) third in the batch: its 32 preps go first
    ([200, 3, 60, 5], 33),      # the longest first in the batch (no rotation), a prep program to spare
    ([120, 3, 200, 5], 36),     # the second longest over a third of the longest: the usual order
    ([60, 50, 58, 45], 33),     # no sequence over a quarter of the tokens (and no overlap: the usual order)
    ([300], 40),                # one sequence (no decision in the kernel): 5 chunks in blocks of 2, 2 and 1
], ids=["longest-third", "longest-first", "second-long", "no-narrow", "single"])
@pytest.mark.parametrize("transition", [False, True], ids=["records", "transition"])
def test_prefill_overlapped_chains(seqlens, early_prep, transition, monkeypatch, device, fresh_seed):
    """CHUNKED_OVERLAP: early_prep prep programs, then the longest sequence's scan programs, then the
    other preps and the other scans; the prep programs take the longest sequence's chunks first, and
    its narrow tiles await and walk blocks of 2 chunks (from T and P, or from transition records);
    where the second longest sequence has over a third of the longest one's tokens, every program
    takes its usual place (the kernel decides from cu_seqlens). The CPU interpreter runs the programs
    one by one in id order, so there a prep order that did not put the longest sequence's chunks
    among the first early_prep programs would never finish."""
    force_path(monkeypatch, "chunked", CHUNKED_OVERLAP_EARLY_PREP=early_prep, CHUNKED_TRANSITION=transition,
               CHUNKED_OVERLAP_SECOND_SHARE=3, CHUNKED_OVERLAP_BLOCK=2,
               CHUNKED_TRANSITION_MIN_LEN=64, CHUNKED_TRANSITION_MAX_TOKENS=1 << 40, **OVERLAP_ON)
    total, num_seqs = sum(seqlens), len(seqlens)
    longest_first = prefill._chunked_longest_first("long", total, num_seqs)
    stages = prefill.CHUNKED_NUM_STAGES
    assert prefill._chunked_overlap("long", stages, total, num_seqs, longest_first, torch.device(device)) == (
        early_prep, 64)
    assert prefill._chunked_transition("long", stages, total) == transition
    check_against_oracle(prefill_inputs(seqlens, seeded_generator(fresh_seed), device=device), device)


def test_chunked_overlap_rule(monkeypatch):
    """Overlapped chains only on the long configuration at full pipeline depth, in the token range,
    for one sequence or (CHUNKED_OVERLAP_MULTI_SEQ) with longest-first scans (the early scans must be
    the longest sequence's)."""
    for knob, value in dict(OVERLAP_ON, CHUNKED_OVERLAP_MIN_TOKENS=1024, CHUNKED_OVERLAP_MAX_TOKENS=3583,
                            CHUNKED_OVERLAP_EARLY_PREP=100).items():
        monkeypatch.setattr(prefill, knob, value)
    full, lean, cpu = prefill.CHUNKED_NUM_STAGES, prefill.CHUNKED_LEAN_STAGES, torch.device("cpu")
    assert prefill._chunked_overlap("long", full, 1024, 1, 0, cpu) == (100, 64)
    assert prefill._chunked_overlap("long", full, 3583, 3, 1, cpu) == (100, 64)
    assert prefill._chunked_overlap("long", full, 1023, 1, 0, cpu) == (0, 0)
    assert prefill._chunked_overlap("long", full, 3584, 1, 0, cpu) == (0, 0)
    assert prefill._chunked_overlap("long", full, 2048, 3, 0, cpu) == (0, 0)   # batch-order scans
    assert prefill._chunked_overlap("long", lean, 2048, 3, 1, cpu) == (0, 0)
    assert prefill._chunked_overlap("short", full, 2048, 1, 0, cpu) == (0, 0)
    monkeypatch.setattr(prefill, "CHUNKED_OVERLAP_MULTI_SEQ", False)
    assert prefill._chunked_overlap("long", full, 2048, 1, 0, cpu) == (100, 64)
    assert prefill._chunked_overlap("long", full, 2048, 3, 1, cpu) == (0, 0)
    monkeypatch.setattr(prefill, "CHUNKED_OVERLAP", False)
    assert prefill._chunked_overlap("long", full, 2048, 1, 0, cpu) == (0, 0)


def test_chunked_lean_rule(monkeypatch):
    """The lean configuration (two CTAs per SM) is chosen from the shapes: at least two
    sequences, and few tokens or a short mean sequence length."""
    monkeypatch.setattr(prefill, "CHUNKED_LEAN_MAX_TOKENS", 256)
    monkeypatch.setattr(prefill, "CHUNKED_LEAN_MAX_MEAN_LEN", 200)
    cpu = torch.device("cpu")   # the "default" architecture: no split launches
    assert not prefill._chunked_is_lean(200, 1, cpu)     # one sequence: no second wave, one chain
    assert prefill._chunked_is_lean(256, 2, cpu)
    assert not prefill._chunked_is_lean(461, 2, cpu)
    assert prefill._chunked_is_lean(8192, 41, cpu)       # mean length 199.8
    assert not prefill._chunked_is_lean(8192, 40, cpu)   # mean length 204.8
    # On the split's architectures, from its token count, split launches replace lean (sm90)
    monkeypatch.setattr(prefill, "_arch", lambda device: "sm90")
    assert not prefill._chunked_is_lean(8192, 41, cpu)
    assert prefill._chunked_is_lean(prefill.CHUNKED_SPLIT_MULTI_SEQ_MIN_TOKENS - 1, 41, cpu)
    monkeypatch.setattr(prefill, "CHUNKED_SPLIT_OVER_LEAN", False)
    assert prefill._chunked_is_lean(8192, 41, cpu)
    monkeypatch.setattr(prefill, "CHUNKED_SPLIT_OVER_LEAN", True)
    monkeypatch.setattr(prefill, "_arch", lambda device: "sm100")   # no split there: lean stays
    assert prefill._chunked_is_lean(8192, 41, cpu)


def test_path_rule(monkeypatch):
    """The kernel and configuration are chosen from the token and sequence counts alone."""
    for knob, value in dict(FUSED_MAX_TOKENS=32, FUSED_MULTI_SEQ_MAX_TOKENS=48, FUSED_MANY_SEQS_MAX_TOKENS=128,
                            FUSED_MANY_SEQS_MAX_MEAN_LEN=16, CHUNKED_SHORT_MAX_TOKENS=400).items():
        monkeypatch.setattr(prefill, knob, value)
    assert prefill._choose_path(32, 1) == "fused"
    assert prefill._choose_path(33, 1) == "short"       # one sequence of three chunks
    assert prefill._choose_path(48, 2) == "fused"       # two sequences of about two chunks
    assert prefill._choose_path(49, 2) == "short"
    assert prefill._choose_path(64, 4) == "fused"       # mean length 16: many short sequences
    assert prefill._choose_path(65, 4) == "short"
    assert prefill._choose_path(128, 64) == "fused"
    assert prefill._choose_path(129, 64) == "short"     # over FUSED_MANY_SEQS_MAX_TOKENS
    assert prefill._choose_path(400, 2) == "short"
    assert prefill._choose_path(401, 1) == "long"


KERNELS = {"recurrent": "_gdn_prefill_recurrent_kernel", "fused": "_gdn_prefill_fused_kernel",
           "warp-roles": "_gdn_prefill_warp_roles_kernel", "chunked": "_gdn_prefill_chunked_kernel"}


ROUTES = {
    "recurrent": prefill._Route("recurrent", "recurrent"),
    "fused": prefill._Route("fused", "fused"),
    "warp-roles": prefill._Route("warp-roles", "short"),
    "chunked-short": prefill._Route("chunked", "short", False, False, prefill.CHUNKED_SHORT_BLOCK_V),
    "chunked-long+lean": prefill._Route("chunked", "long", True, False, prefill.CHUNKED_BLOCK_V),
    "chunked-long+split+wide": prefill._Route("chunked", "long", False, True, prefill.CHUNKED_BLOCK_V_WIDE),
}


@pytest.mark.parametrize("label", sorted(ROUTES))
def test_run_launches_the_route(label, monkeypatch, device):
    """run() launches what _route answers (the one routing function; arch_rehearsal labels inputs
    with it): the kernel, and for the chunked kernel its chunk size, stages, V tile and one or two
    launches. Each route is forced on the same small input, so the answer alone decides."""
    route = ROUTES[label]
    assert route.label == label
    monkeypatch.setattr(prefill, "_route", lambda total, num_seqs, dev: route)
    recorders = {kind: _LaunchRecorder() for kind in KERNELS}
    for kind, name in KERNELS.items():
        monkeypatch.setattr(prefill, name, recorders[kind], raising=False)
    # split launches one after the other, as under the interpreter (on a GPU run() would compile
    # them first through kernel.warmup, which the recorders do not have)
    monkeypatch.setattr(prefill, "_launch_back_to_back", lambda kernel, launches, fit_carveout=False: [
        kernel[grid](*args, **kwargs) for grid, args, kwargs in launches])
    # Transition records from 1 token, up to 10 tokens in one launch and 1000 in split launches: the
    # 50-token input compiles the form only where the route splits.
    for knob, value in dict(CHUNKED_TRANSITION=True, CHUNKED_TRANSITION_MIN_LEN=1, CHUNKED_TRANSITION_MAX_TOKENS=10,
                            CHUNKED_SPLIT_TRANSITION_MAX_TOKENS=1000).items():
        monkeypatch.setattr(prefill, knob, value)
    x = prefill_inputs([20, 30], seeded_generator(0), device=device)
    prefill.run(*x.values(), torch.empty(50, 8, 128, dtype=torch.bfloat16, device=device),
                torch.empty(2, 8, 128, 128, device=device))
    launches = {kind: len(recorder.kwargs) for kind, recorder in recorders.items()}
    assert launches == {kind: (2 if route.split else 1) if kind == route.kernel else 0 for kind in KERNELS}, launches
    if route.kernel != "chunked":
        return
    kwargs = recorders["chunked"].kwargs
    assert [kw["ROLE"] for kw in kwargs] == ([1, 2] if route.split else [0])
    block_t = prefill.CHUNKED_SHORT_BLOCK_T if route.path == "short" else prefill.CHUNKED_BLOCK_T
    stages = prefill.CHUNKED_LEAN_STAGES if route.lean else prefill.CHUNKED_NUM_STAGES
    assert all(kw["BT"] == block_t and kw["STAGES"] == stages and kw["BV"] == route.block_v for kw in kwargs)
    transition = route.split and route.path == "long" and not route.lean
    assert all(kw["TRANSITION"] == transition for kw in kwargs)
    if route.split:   # the prep launch's register cap: the transition records' own (beside wide tiles: its own)
        wide = route.block_v == prefill.CHUNKED_BLOCK_V_WIDE
        cap = prefill.CHUNKED_SPLIT_WIDE_TRANSITION_PREP_MAXNREG if wide else prefill.CHUNKED_SPLIT_TRANSITION_PREP_MAXNREG
        assert kwargs[0].get("maxnreg") == (cap or None)
        assert kwargs[1].get("maxnreg") == (prefill.CHUNKED_SPLIT_SCAN_MAXNREG or None)   # and the scan launch's


def test_route_labels(monkeypatch):
    """_route's answers, as labelled, on both architectures' routings (compiled kernels: the
    interpreter never takes the warp-role kernel)."""
    monkeypatch.setattr(prefill, "_on_cpu_interpreter", lambda: False)
    cuda = torch.device("cuda")   # a device object only: _arch is replaced
    labels = {}
    for arch in ("sm90", "sm100"):
        monkeypatch.setattr(prefill, "_arch", lambda device, arch=arch: arch)
        labels[arch] = {shape: prefill._route(*shape, cuda).label
                        for shape in [(4, 1), (8, 1), (8, 4), (16, 1), (61, 1), (300, 1), (500, 1), (3000, 1),
                                      (1800, 3), (8192, 56), (983, 2), (959, 4)]}
    assert labels["sm90"] == {(4, 1): "recurrent", (8, 1): "warp-roles", (8, 4): "recurrent", (16, 1): "warp-roles",
                              (61, 1): "warp-roles", (300, 1): "warp-roles",
                              (500, 1): "chunked-long", (3000, 1): "chunked-long+split",
                              (1800, 3): "chunked-long+split", (8192, 56): "chunked-long+split+wide",
                              (983, 2): "chunked-long+split", (959, 4): "chunked-long"}
    assert labels["sm100"] == {(4, 1): "recurrent", (8, 1): "fused", (8, 4): "recurrent", (16, 1): "fused",
                               (61, 1): "chunked-short",
                               (300, 1): "chunked-short", (500, 1): "chunked-long", (3000, 1): "chunked-long",
                               (1800, 3): "chunked-long", (8192, 56): "chunked-long+lean",
                               (983, 2): "chunked-long", (959, 4): "chunked-long"}


@pytest.mark.parametrize("path_name, knobs", [
    ("fused", dict(FUSED_BLOCK_T=32, FUSED_SUB_BLOCK=16, FUSED_BLOCK_V=32, FUSED_NUM_WARPS=4)),
    ("fused", dict(FUSED_SUB_BLOCK=4)),
    ("chunked-short", dict(CHUNKED_SHORT_BLOCK_T=32, CHUNKED_SHORT_BLOCK_V=32, CHUNKED_SHORT_NUM_WARPS=4)),
    ("chunked", dict(CHUNKED_BLOCK_T=16, CHUNKED_BLOCK_V=64)),
    ("chunked", dict(CHUNKED_NUM_STAGES=1, CHUNKED_BLOCK_V=128)),
], ids=["fused-32-16", "fused-sb4", "chunked-short-32", "chunked-16", "chunked-1stage"])
def test_prefill_other_tilings(path_name, knobs, monkeypatch, device, fresh_seed):
    """Chunk, sub-block and V-tile sizes and pipeline stages are tuning knobs; every legal
    choice computes the same."""
    force_path(monkeypatch, path_name, **knobs)
    check_against_oracle(prefill_inputs([1, 40, 0, 33], seeded_generator(fresh_seed), device=device), device)


@pytest.mark.parametrize("path_name", ["fused", "chunked-short", "chunked"])
def test_prefill_fp32_state_dots(path_name, monkeypatch, device, fresh_seed):
    """With BF16_STATE_DOTS off, the state products and the solve run on fp32 operands (fp32
    records in the chunked kernel, lean or not) and the state must match the oracle to
    fp32-level tolerance (interpreter dots are exact fp32; on the GPU the tf32 rounding shows
    as well). The [3, 70] split takes the lean configuration on the chunked path."""
    force_path(monkeypatch, path_name, BF16_STATE_DOTS=False)
    state_tol = STATE_TOL if str(device) == "cpu" else dict(atol=2e-3, rtol=1e-2)
    check_against_oracle(prefill_inputs([3, 70], seeded_generator(fresh_seed), device=device), device,
                         out_tol=OUT_TOL, state_tol=state_tol)


def _args(device):
    x = prefill_inputs([3, 4], seeded_generator(0), device=device)
    out = torch.empty(7, 8, 128, dtype=torch.bfloat16, device=device)
    new_state = torch.empty(2, 8, 128, 128, dtype=torch.float32, device=device)
    return list(x.values()) + [out, new_state]


@pytest.mark.parametrize("index, bad, message", [
    (8, lambda t: t.to(torch.int32), "cu_seqlens must be torch.int64"),
    (3, lambda t: t[:1], "state must have shape"),
    (1, lambda t: t[:, :2], "k must have shape"),
    (6, lambda t: t.to(torch.bfloat16), "dt_bias must be torch.float32"),
    (10, lambda t: t[:5], "output must have shape"),
    (8, lambda t: t[None], "cu_seqlens must be a 1-D tensor"),
])
def test_prefill_rejects_bad_inputs(index, bad, message, device):
    args = _args(device)
    args[index] = bad(args[index])
    with pytest.raises((TypeError, ValueError), match=message):
        prefill.run(*args)


@triton.jit
def _inverse_probe(m_ptr, out_ptr, NB: tl.constexpr, SIZE: tl.constexpr, LOG_SIZE: tl.constexpr,
                   LOW: tl.constexpr):
    """Runs the prefill file's _unit_triangular_inverse on NB stacked SIZE x SIZE blocks."""
    offs_b = tl.arange(0, NB)[:, None, None]
    offs_r = tl.arange(0, SIZE)[None, :, None]
    offs_c = tl.arange(0, SIZE)[None, None, :]
    where = offs_b * SIZE * SIZE + offs_r * SIZE + offs_c
    m = tl.load(m_ptr + where)
    x = prefill._unit_triangular_inverse(m, offs_r, offs_c, LOG_SIZE, LOW, tl.float16, "ieee")
    tl.store(out_ptr + where, x)


@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
@pytest.mark.parametrize("low", [False, True], ids=["fp32", "fp16"])
def test_unit_triangular_inverse(upper, low, device, fresh_seed):
    """The block-recursive (I + M)^-1 of the chunked kernel's prep against torch.linalg.inv, on
    a batch of strictly lower (or upper) 16 x 16 blocks with entries of the size A has for
    unit-norm keys (|A_ij| <= 1)."""
    gen = seeded_generator(fresh_seed)
    m = (torch.rand(4, 16, 16, generator=gen, dtype=torch.float64) * 2 - 1) * 0.8
    m = m.triu(1) if upper else m.tril(-1)
    out = torch.full((4, 16, 16), float("nan"), device=device)
    _inverse_probe[(1,)](m.float().to(device), out, NB=4, SIZE=16, LOG_SIZE=4, LOW=low)
    want = torch.linalg.inv(torch.eye(16, dtype=torch.float64) + m)
    err = (out.double().cpu() - want).abs().max().item()
    assert err < (2e-2 if low else 1e-4), err


@triton.jit
def _chunk_inverse_probe(a_ptr, out_ptr, BT: tl.constexpr, LOG_SB: tl.constexpr, LOG_NB: tl.constexpr,
                         LOW: tl.constexpr, SOLVE_FORM: tl.constexpr):
    """Runs the prep's solve (_diagonal_inverse, then _block_inverse) on one strictly lower BT x BT A."""
    SB: tl.constexpr = 1 << LOG_SB
    NB: tl.constexpr = BT // SB
    offs_t = tl.arange(0, BT)
    square = offs_t[:, None] * BT + offs_t[None, :]
    A = tl.load(a_ptr + square)
    offs_s = tl.arange(0, SB)
    rows_b = tl.arange(0, NB)[:, None, None] * SB + offs_s[None, :, None]
    cols_b = tl.arange(0, NB)[:, None, None] * SB + offs_s[None, None, :]
    D = tl.load(a_ptr + rows_b * BT + cols_b)   # the diagonal blocks as a batch
    T_D = prefill._block_diagonal(prefill._diagonal_inverse(D, offs_s, LOG_SB, LOW, "ieee", SOLVE_FORM))
    L = tl.where(offs_t[:, None] // SB > offs_t[None, :] // SB, A, 0.0)
    T = prefill._block_inverse(T_D, L, offs_t, LOG_NB, LOW, "ieee", SOLVE_FORM)
    tl.store(out_ptr + square, T)


@pytest.mark.parametrize("form", [0, 1, 2])
@pytest.mark.parametrize("low", [False, True], ids=["fp32", "fp16"])
def test_chunk_inverse_forms(form, low, device, fresh_seed):
    """The prep's T = (I + A)^-1 of a 64-token chunk in each CHUNKED_PREP_SOLVE_FORM against
    torch.linalg.inv, for A = strictly-lower(beta_i k_i . k_j exp(G_i - G_j)) from unit-norm keys
    (every form computes the same inverse; they differ only in the order of the products)."""
    gen = seeded_generator(fresh_seed)
    k = torch.randn(64, 128, generator=gen, dtype=torch.float64)
    k = k / k.norm(dim=1, keepdim=True)
    beta = torch.rand(64, generator=gen, dtype=torch.float64)
    G = torch.cumsum(-torch.rand(64, generator=gen, dtype=torch.float64) * 0.1, 0)
    a = (beta[:, None] * (k @ k.T) * torch.exp(G[:, None] - G[None, :])).tril(-1)
    a[8:40, 0:8] += 0.5   # rows far from the diagonal blocks leaning on early tokens (as repeated keys do)
    out = torch.full((64, 64), float("nan"), device=device)
    _chunk_inverse_probe[(1,)](a.float().to(device), out, BT=64, LOG_SB=4, LOG_NB=2, LOW=low, SOLVE_FORM=form)
    want = torch.linalg.inv(torch.eye(64, dtype=torch.float64) + a)
    err = (out.double().cpu() - want).abs().max().item()
    assert err < (1e-2 if low else 1e-4), err


def test_warp_roles_rule(monkeypatch):
    """The warp-role kernel takes one or two sequences of 7-432 tokens (three of at most 128) on sm90
    only, and only where Gluon imported and the kernels are compiled (never under the CPU
    interpreter); run() asks only for inputs that _choose_path gives the fused kernel or the short
    configuration."""
    monkeypatch.setattr(prefill, "_on_cpu_interpreter", lambda: False)
    monkeypatch.setattr(prefill, "GLUON_AVAILABLE", True)
    cuda = torch.device("cuda", 0)
    routed = [(7, 1), (8, 1), (16, 1), (17, 1), (18, 1), (64, 1), (65, 1), (256, 1), (257, 1), (432, 1), (8, 2),
              (15, 2), (35, 2), (64, 2), (91, 2), (256, 2), (341, 2), (432, 2), (9, 3), (16, 3), (17, 3), (30, 3),
              (82, 3), (128, 3)]
    for arch, shapes in {"sm90": routed, "sm100": [], "default": []}.items():
        monkeypatch.setattr(prefill, "_arch", lambda device, arch=arch: arch)
        for total, num_seqs in [(6, 1), (7, 1), (8, 1), (16, 1), (17, 1), (18, 1), (64, 1), (65, 1), (256, 1),
                                (257, 1), (432, 1), (433, 1), (6, 2), (8, 2), (15, 2), (35, 2), (64, 2), (91, 2),
                                (256, 2), (341, 2), (432, 2), (433, 2), (9, 3), (16, 3), (17, 3), (30, 3), (82, 3),
                                (128, 3), (129, 3), (239, 3), (294, 3), (82, 4), (401, 4), (0, 1), (20, 0)]:
            assert prefill._warp_roles(total, num_seqs, cuda) == ((total, num_seqs) in shapes), (arch, total, num_seqs)
        if arch == "sm90":
            for total, num_seqs in shapes:
                assert prefill._choose_path(total, num_seqs) in ("fused", "short")
    monkeypatch.setattr(prefill, "_arch", lambda device: "sm90")
    monkeypatch.setattr(prefill, "WARP_ROLES_THREE_SEQ_MAX_TOKENS", 0)   # three sequences off
    assert not prefill._warp_roles(82, 3, cuda) and prefill._warp_roles(82, 2, cuda)
    monkeypatch.setattr(prefill, "GLUON_AVAILABLE", False)
    assert not prefill._warp_roles(18, 1, cuda)
    monkeypatch.setattr(prefill, "GLUON_AVAILABLE", True)
    monkeypatch.setattr(prefill, "_on_cpu_interpreter", lambda: True)
    assert not prefill._warp_roles(18, 1, cuda)
    # 8 real rows per state warp for one sequence of at most WARP_ROLES_SHORT_SEQ_LEN tokens, and two of at
    # most WARP_ROLES_SHORT_TWO_SEQ_LEN tokens in all
    # (by default every single sequence it takes: up to 432 tokens; two sequences past 32 tokens keep 16 rows)
    assert [prefill._warp_roles_real_rows(total, n) for total, n in [(17, 1), (432, 1), (32, 2), (33, 2), (341, 2)]] \
        == [8, 8, 8, 16, 16]
    monkeypatch.setattr(prefill, "WARP_ROLES_SHORT_SEQ_LEN", 64)
    monkeypatch.setattr(prefill, "WARP_ROLES_SHORT_TWO_SEQ_LEN", 32)
    assert [prefill._warp_roles_real_rows(total, n) for total, n in [(17, 1), (64, 1), (20, 2), (32, 2), (33, 2), (64, 2)]] \
        == [8, 8, 8, 8, 16, 16]
    monkeypatch.setattr(prefill, "WARP_ROLES_SHORT_TWO_SEQ_LEN", 0)
    monkeypatch.setattr(prefill, "WARP_ROLES_SHORT_SEQ_LEN", 32)
    assert [prefill._warp_roles_real_rows(total, n) for total, n in [(17, 1), (32, 1), (33, 1), (64, 1), (20, 2)]] \
        == [8, 8, 16, 16, 16]
    monkeypatch.setattr(prefill, "WARP_ROLES_SHORT_SEQ_LEN", 0)
    assert prefill._warp_roles_real_rows(17, 1) == 16
    # two slots per solver beyond 64 tokens; for two sequences only with the shared memory carveout fitted,
    # and three for two sequences of at most WARP_ROLES_TWO_SEQ_DEPTH_MAX_TOKENS
    monkeypatch.setattr(prefill, "WARP_ROLES_DEPTH", 2)
    monkeypatch.setattr(prefill, "WARP_ROLES_TWO_SEQ_DEPTH", 3)
    monkeypatch.setattr(prefill, "WARP_ROLES_TWO_SEQ_DEPTH_MAX_TOKENS", 192)
    assert [prefill._warp_roles_depth(total, n) for total, n in [(64, 1), (65, 1), (192, 1), (64, 2), (65, 2), (192, 2),
                                                                 (193, 2), (256, 2), (65, 3), (128, 3)]] \
        == [1, 2, 2, 1, 3, 3, 2, 2, 2, 2]
    monkeypatch.setattr(prefill, "WARP_ROLES_TWO_SEQ_DEPTH", 0)
    assert [prefill._warp_roles_depth(total, n) for total, n in [(64, 1), (65, 1), (256, 1), (64, 2), (65, 2), (256, 2)]] \
        == [1, 2, 2, 1, 2, 2]
    monkeypatch.setattr(prefill, "FIT_SHARED_CARVEOUT", False)
    assert [prefill._warp_roles_depth(total, n) for total, n in [(64, 1), (65, 1), (256, 1), (65, 2), (256, 2)]] \
        == [1, 2, 2, 1, 1]
    # slots reused (the `empty` barriers) only where some sequence may have more chunks than slots:
    # the total bounds every sequence, so [30, 34] has none and [40, 40] is counted as if it had
    assert [prefill._warp_roles_reuse(total, depth) for total, depth in [(64, 1), (65, 1), (128, 2), (129, 2), (80, 1)]] \
        == [False, True, False, True, True]
    # with fewer solvers the slots are reused sooner: 40 tokens through two solvers' one slot each
    assert prefill._warp_roles_reuse(40, 1, 2) and not prefill._warp_roles_reuse(32, 1, 2)
    monkeypatch.setattr(prefill, "WARP_ROLES_SKIP_UNUSED_BARRIERS", False)
    assert prefill._warp_roles_reuse(18, 1) and prefill._warp_roles_reuse(128, 2)
    # solvers: one per chunk for a single sequence of fewer chunks than WARP_ROLES_SOLVERS (the tokens after
    # its head), WARP_ROLES_SOLVERS for two or three sequences and with the rule off
    assert [prefill._warp_roles_solvers(tokens, 1) for tokens in (1, 16, 17, 32, 33, 48, 49, 64, 65, 432)] \
        == [1, 1, 2, 2, 3, 3, 4, 4, 4, 4]
    assert [prefill._warp_roles_solvers(tokens, n) for tokens, n in [(18, 2), (46, 2), (82, 3)]] == [4, 4, 4]
    monkeypatch.setattr(prefill, "WARP_ROLES_SOLVERS", 2)
    assert [prefill._warp_roles_solvers(tokens, 1) for tokens in (16, 17, 64)] == [1, 2, 2]
    monkeypatch.setattr(prefill, "WARP_ROLES_SOLVERS_PER_CHUNK", False)
    assert prefill._warp_roles_solvers(16, 1) == 2
    # head tokens: a single sequence's 1..WARP_ROLES_HEAD_TOKENS tokens past whole chunks, in 8-row tiles
    # with the state transposed
    monkeypatch.setattr(prefill, "WARP_ROLES_HEAD_TOKENS", 4)
    assert [prefill._warp_roles_head(total, 1, 8) for total in (17, 20, 21, 32, 49, 61, 64, 68, 97, 256)] \
        == [1, 4, 0, 0, 1, 0, 0, 4, 1, 0]
    assert prefill._warp_roles_head(49, 2, 8) == 0 and prefill._warp_roles_head(49, 1, 16) == 0
    monkeypatch.setattr(prefill, "WARP_ROLES_HEAD_TOKENS", 1)
    assert [prefill._warp_roles_head(total, 1, 8) for total in (17, 18, 49)] == [1, 0, 1]
    monkeypatch.setattr(prefill, "WARP_ROLES_TRANSPOSED", False)
    assert prefill._warp_roles_head(49, 1, 8) == 0
    monkeypatch.setattr(prefill, "WARP_ROLES_TRANSPOSED", True)
    monkeypatch.setattr(prefill, "WARP_ROLES_HEAD_TOKENS", 0)
    assert prefill._warp_roles_head(49, 1, 8) == 0
    monkeypatch.setattr(prefill, "WARP_ROLES_HEAD_TOKENS", 5)   # more than the kernel's four
    with pytest.raises(AssertionError, match="WARP_ROLES_HEAD_TOKENS"):
        prefill._warp_roles_head(49, 1, 8)


def test_fit_shared_carveout(monkeypatch):
    """_fit_shared_carveout asks the driver for no cache preference and the smallest carveout once per
    loaded kernel, only for kernels of more than 48 KB that run one CTA per SM anyway (by shared memory
    or registers), and leaves everything else (small kernels, kernels two of which would fit, the CPU
    interpreter's launches, the knob off, no driver library) alone."""
    from types import SimpleNamespace

    calls = []

    class FakeDriver:
        def cuFuncSetCacheConfig(self, function, config):
            calls.append(("cache", function.value, config.value))
            return 0

        def cuFuncSetAttribute(self, function, attribute, value):
            calls.append(("attribute", function.value, attribute.value, value.value))
            return 0

    monkeypatch.setattr(prefill, "_libcuda", lambda: FakeDriver())

    def kernel(function, shared, warps, regs):
        return SimpleNamespace(function=function, metadata=SimpleNamespace(shared=shared, num_warps=warps),
                               n_regs=regs)

    big = kernel(11, 181256, 4, 240)              # one CTA per SM by shared memory
    roles = kernel(12, 97748, 8, 255)             # 95.5 KB, one CTA per SM by registers
    small = kernel(13, 49124, 8, 255)             # under 48 KB: Triton asked nothing
    two_fit = kernel(14, 60 * 1024, 4, 64)        # two CTAs would fit: their residency is kept
    for compiled in (big, roles, small, two_fit, big, roles, None):
        prefill._fit_shared_carveout(compiled)
    assert calls == [("cache", 11, 0), ("attribute", 11, 9, 0), ("cache", 12, 0), ("attribute", 12, 9, 0)]
    calls.clear()
    monkeypatch.setattr(prefill, "FIT_SHARED_CARVEOUT", False)
    prefill._fit_shared_carveout(kernel(15, 181256, 4, 240))
    monkeypatch.setattr(prefill, "FIT_SHARED_CARVEOUT", True)
    monkeypatch.setattr(prefill, "_libcuda", lambda: None)
    prefill._fit_shared_carveout(kernel(16, 181256, 4, 240))
    assert calls == []


def test_prefill_module_without_gluon(monkeypatch):
    """A Triton whose Gluon does not import leaves the solution importable, without the warp-role
    kernel, and run() never routes to it."""
    import builtins

    real_import = builtins.__import__

    def no_gluon(name, *args, **kwargs):
        if name.startswith("triton.experimental"):
            raise ImportError(f"no {name} here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_gluon)
    module = load_solution_module("gdn_prefill")
    monkeypatch.setattr(builtins, "__import__", real_import)
    assert module.GLUON_AVAILABLE is False and not hasattr(module, "_gdn_prefill_warp_roles_kernel")
    monkeypatch.setattr(module, "_arch", lambda device: "sm90")
    monkeypatch.setattr(module, "_on_cpu_interpreter", lambda: False)
    assert not module._warp_roles(18, 1, torch.device("cuda", 0))


SM90 = torch.cuda.is_available() and torch.cuda.get_device_capability()[0] == 9


class _CountLaunches:
    """Stands in for a kernel: kernel[grid](...) counts the launch, makes it and keeps the compiled
    kernel it returns (`compiled`, in launch order)."""

    def __init__(self, kernel):
        self.kernel, self.launches, self.compiled = kernel, 0, []

    def __getitem__(self, grid):
        self.launches += 1
        launch = self.kernel[grid]

        def launch_and_keep(*args, **kwargs):
            compiled = launch(*args, **kwargs)
            self.compiled.append(compiled)
            return compiled
        return launch_and_keep


def _check_on_warp_roles(x, monkeypatch, **tolerances):
    """x against the oracle on the GPU, asserting that run() made it one launch of the warp-role
    kernel."""
    counter = _CountLaunches(prefill._gdn_prefill_warp_roles_kernel)
    monkeypatch.setattr(prefill, "_gdn_prefill_warp_roles_kernel", counter)
    check_against_oracle(x, "cuda", **tolerances)
    assert counter.launches == 1


def _check_seqlens_on_warp_roles(seqlens, has_state, seed, monkeypatch):
    """Fresh inputs of these sequence lengths (no initial state unless has_state) through
    _check_on_warp_roles."""
    x = prefill_inputs(seqlens, seeded_generator(seed), device="cuda")
    if not has_state:
        x["state"] = None
    _check_on_warp_roles(x, monkeypatch)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("seqlens, has_state, solvers", [
    ([17], True, 4),           # one token past the first chunk
    ([32], True, 4),           # two full chunks
    ([18, 17], True, 4),       # two sequences (bounds from cu_seqlens)
    ([64], True, 4),           # four full chunks: every solver slot once
    ([33, 0], True, 4),        # an empty sequence (its state zeroed)
    ([1, 40], False, 4),       # a one-token sequence, no state
    ([61], True, 2),           # two solvers: slots reused, the empty barrier's phases
    ([49], False, 1),          # one solver: every chunk through one slot
], ids=["17", "32", "18-17", "64", "33-0", "1-40-no-state", "61-two-solvers", "49-one-solver"])
@pytest.mark.parametrize("early_copies", [True, False], ids=["early-copies", "solver-copies"])
def test_prefill_warp_roles_kernel(seqlens, has_state, solvers, early_copies, monkeypatch, fresh_seed):
    """The warp-role kernel against the oracle where run() chooses it (asserted), with fewer
    solvers than chunks too, and each solver's first chunk copied in the kernel's prologue or by
    the solver itself (single sequences run in 8-row tiles, see WARP_ROLES_SHORT_SEQ_LEN;
    test_prefill_warp_roles_16_row_tiles has them in 16-row ones; eight idle CTAs first, see
    WARP_ROLES_IDLE_CTAS)."""
    monkeypatch.setattr(prefill, "WARP_ROLES_SOLVERS", solvers)
    monkeypatch.setattr(prefill, "WARP_ROLES_EARLY_COPIES", early_copies)
    _check_seqlens_on_warp_roles(seqlens, has_state, fresh_seed, monkeypatch)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("seqlens, has_state", [
    ([7], True),            # the fewest tokens run() gives it: one partial chunk
    ([8], False),           # no state
    ([12], True),           # the contest's 12, 13, 14 and 16 tokens: one chunk, one solver
    ([16], True),           # exactly one chunk
    ([3, 5], True),         # two sequences of one partial chunk each (8-row tiles)
    ([10, 5], False),       # the same without a state
    ([2, 3, 4], True),      # three sequences (16-row tiles)
    ([0, 8, 1], True),      # an empty and a one-token sequence beside a partial chunk
], ids=["7", "8-no-state", "12", "16", "3-5", "10-5-no-state", "2-3-4", "0-8-1"])
def test_prefill_warp_roles_one_chunk(seqlens, has_state, monkeypatch, fresh_seed):
    """Inputs of 7-16 tokens, which the warp-role kernel takes by default since session 61 (at most one
    chunk a sequence: one solver for a single sequence), routed there by run() (asserted)."""
    _check_seqlens_on_warp_roles(seqlens, has_state, fresh_seed, monkeypatch)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("seqlens", [[17], [64]])
@pytest.mark.parametrize("idle_ctas", [8, 0])
def test_prefill_warp_roles_16_row_tiles(seqlens, idle_ctas, monkeypatch, fresh_seed):
    """Single sequences with WARP_ROLES_SHORT_SEQ_LEN off (16 real rows per state warp, as two
    sequences have), with and without idle CTAs first."""
    monkeypatch.setattr(prefill, "WARP_ROLES_SHORT_SEQ_LEN", 0)
    monkeypatch.setattr(prefill, "WARP_ROLES_IDLE_CTAS", idle_ctas)
    _check_seqlens_on_warp_roles(seqlens, True, fresh_seed, monkeypatch)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("seqlens", [[17], [61], [200], [3, 29]])
def test_prefill_warp_roles_8_row_rows_form(seqlens, monkeypatch, fresh_seed):
    """8-row launches with WARP_ROLES_TRANSPOSED off: the state in 16-row mma tiles of which 8 rows are
    padding (the form before session 38), one slot and two slots a solver."""
    monkeypatch.setattr(prefill, "WARP_ROLES_TRANSPOSED", False)
    _check_seqlens_on_warp_roles(seqlens, True, fresh_seed, monkeypatch)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("seqlens", [
    [1, 45],     # one token beside three chunks
    [45, 1],     # the same, the other way round
    [14, 14],    # one partial chunk each (8-row tiles: WARP_ROLES_SHORT_TWO_SEQ_LEN)
    [3, 29],     # 32 tokens, 8-row tiles: one and two chunks
    [0, 32],     # 32 tokens, 8-row tiles, an empty sequence first
    [30, 34],    # 64 tokens: two and three chunks
    [0, 40],     # an empty sequence first
    [40, 0],     # an empty sequence last
], ids=["1-45", "45-1", "14-14", "3-29", "0-32", "30-34", "0-40", "40-0"])
def test_prefill_warp_roles_two_sequences(seqlens, monkeypatch, fresh_seed):
    """Two sequences in the warp-role kernel: chunks that end past a sequence, a sequence of one
    token beside one of three chunks, 64 tokens in all, and an empty sequence either side."""
    _check_seqlens_on_warp_roles(seqlens, True, fresh_seed, monkeypatch)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("seqlens, has_state", [
    ([1, 53, 28], True),      # the contest's 82 in 3: one token, four chunks, two chunks (two slots a solver)
    ([6, 6, 6], True),        # 18 tokens: three partial chunks
    ([40, 40, 48], False),    # 128 tokens, the most three sequences take, no state
    ([0, 60, 3], True),       # an empty sequence first (its state zeroed)
    ([60, 3, 0], True),       # an empty sequence last
], ids=["1-53-28", "6-6-6", "40-40-48-no-state", "0-60-3", "60-3-0"])
def test_prefill_warp_roles_three_sequences(seqlens, has_state, monkeypatch, fresh_seed):
    """Three sequences of at most WARP_ROLES_THREE_SEQ_MAX_TOKENS tokens in all, routed to the warp-role
    kernel by default (asserted), 16-row tiles."""
    _check_seqlens_on_warp_roles(seqlens, has_state, fresh_seed, monkeypatch)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("seqlens, has_state, hard", [
    ([17], True, False),    # one head token, then one whole chunk
    ([20], False, False),   # four head tokens, no state
    ([49], True, False),    # one head token, three chunks
    ([67], True, False),    # three head tokens, four chunks: one slot a solver instead of two
    ([68], False, False),   # four head tokens, no state
    ([97], True, False),    # one head token, six chunks (two slots)
    ([49], True, True),     # strongly correlated keys
    ([132], True, True),    # four head tokens, eight chunks, correlated keys
], ids=["17", "20-no-state", "49", "67", "68-no-state", "97", "49-hard", "132-hard"])
def test_prefill_warp_roles_head_tokens(seqlens, has_state, hard, monkeypatch, fresh_seed):
    """Single sequences whose first 1-4 tokens the state warps step one by one before the chunks
    (WARP_ROLES_HEAD_TOKENS = 4), so every chunk after them is whole."""
    monkeypatch.setattr(prefill, "WARP_ROLES_HEAD_TOKENS", 4)
    assert prefill._warp_roles_head(seqlens[0], 1, 8) == seqlens[0] % 16
    generator = seeded_generator(fresh_seed)
    if hard:
        x = _hard_inputs(generator, seqlens[0], "cuda")
        _check_on_warp_roles(x, monkeypatch, state_tol=PREFILL_HARD_STATE_TOL)
        return
    x = prefill_inputs(seqlens, generator, device="cuda")
    if not has_state:
        x["state"] = None
    _check_on_warp_roles(x, monkeypatch)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("seqlens, has_state, short_seq_len", [
    ([59, 282], True, None),     # the contest's 341 in 2: 18 chunks beside 4, slots reused four times
    ([1, 340], True, None),      # one token beside 22 chunks (the last partial)
    ([170, 171], False, None),   # two sequences of 11 chunks, no state
    ([432, 0], True, None),      # the most tokens it takes, an empty sequence last
    ([300], True, None),         # one sequence in 8-row tiles (the state transposed)
    ([432], True, None),         # the longest single sequence it takes, 27 whole chunks
    ([417], False, None),        # one head token, 26 whole chunks, no state
    ([300], True, 256),          # one sequence in 16-row tiles (WARP_ROLES_SHORT_SEQ_LEN lowered)
], ids=["59-282", "1-340", "170-171-no-state", "432-0", "300", "432", "417-no-state", "300-16-row"])
def test_prefill_warp_roles_past_256_tokens(seqlens, has_state, short_seq_len, monkeypatch, fresh_seed):
    """One or two sequences of 257-432 tokens in all, routed to the warp-role kernel by default
    (asserted): long chains of chunk steps, every slot reused many times; single sequences in 8-row
    tiles as by default and in 16-row ones (WARP_ROLES_SHORT_SEQ_LEN lowered)."""
    if short_seq_len is not None:
        monkeypatch.setattr(prefill, "WARP_ROLES_SHORT_SEQ_LEN", short_seq_len)
    _check_seqlens_on_warp_roles(seqlens, has_state, fresh_seed, monkeypatch)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
def test_prefill_warp_roles_past_256_tokens_hard(monkeypatch, fresh_seed):
    """Strongly correlated keys over 400 tokens in one sequence (8-row tiles, the state transposed):
    rounding in the long chain of chunk steps stays inside the tolerance."""
    x = _hard_inputs(seeded_generator(fresh_seed), 400, "cuda")
    _check_on_warp_roles(x, monkeypatch, state_tol=PREFILL_HARD_STATE_TOL)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
def test_prefill_shared_carveout_is_fitted(monkeypatch, fresh_seed):
    """On the GPU, a launch of more than 48 KB of shared memory (the warp-role kernel with two slots
    per solver, two sequences) leaves the driver with the smallest carveout preference (0) where
    Triton had asked to prefer shared memory, and a launch under 48 KB keeps the driver's default
    (-1: Triton asked nothing)."""
    import ctypes

    libcuda = ctypes.CDLL("libcuda.so.1")

    def carveout(compiled):
        value = ctypes.c_int(-2)
        assert libcuda.cuFuncGetAttribute(ctypes.byref(value), ctypes.c_int(9),
                                          ctypes.c_void_p(compiled.function)) == 0
        return value.value

    counter = _CountLaunches(prefill._gdn_prefill_warp_roles_kernel)
    monkeypatch.setattr(prefill, "_gdn_prefill_warp_roles_kernel", counter)
    for seqlens in ([70, 21], [20, 21]):
        x = prefill_inputs(seqlens, seeded_generator(fresh_seed), device="cuda")
        prefill.run(*x.values(), torch.empty_like(x["v"]), torch.empty_like(x["state"]))
    torch.cuda.synchronize()
    big, small = counter.compiled
    assert big.metadata.shared > 48 * 1024 >= small.metadata.shared
    assert carveout(big) == 0 and big._carveout_fitted
    assert carveout(small) == -1


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("seqlens", [
    [65],            # one token past four chunks: solver 0's second slot
    [92],            # six chunks
    [128],           # eight full chunks: every slot of depth 2 once
    [134],           # nine chunks: slot 0 reused at depth 2 (the empty barrier's first phase)
    [255],           # sixteen chunks: every slot used twice at depth 2, slots 0-3 at depth 3
    [70, 6],         # five chunks beside one
    [1, 130],        # one token beside nine chunks
    [181, 67],       # twelve chunks beside five: both sequences reuse slots at depth 1 and 2
    [44, 90, 0],     # three sequences, an empty one last
], ids=["65", "92", "128", "134", "255", "70-6", "1-130", "181-67", "44-90-0"])
@pytest.mark.parametrize("depth", [2, 1, 3])
def test_prefill_warp_roles_more_chunks(seqlens, depth, monkeypatch, fresh_seed):
    """More chunks than solvers, with WARP_ROLES_DEPTH slots per solver (the next chunk's copy issued
    after each solve, slots reused once the state warps have stepped them; two or more sequences take
    them too where the shared memory carveout is fitted, as by default), in one, two and three
    sequences (routing widened to three sequences here, and pinned at 256 tokens)."""
    monkeypatch.setattr(prefill, "WARP_ROLES_MAX_TOKENS", 256)
    monkeypatch.setattr(prefill, "WARP_ROLES_MAX_SEQS", 3)
    monkeypatch.setattr(prefill, "WARP_ROLES_DEPTH", depth)
    monkeypatch.setattr(prefill, "WARP_ROLES_TWO_SEQ_DEPTH", 0)   # (two sequences too take `depth`)
    _check_seqlens_on_warp_roles(seqlens, True, fresh_seed, monkeypatch)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("seqlens", [
    [38, 38],    # three chunks each: every solver in its first slot, the later slots allocated only
    [70, 6],     # five chunks beside one: solver 0's second slot
    [1, 130],    # one token beside nine chunks: solver 0's third slot
    [96, 96],    # 192 tokens, the most that take three slots: six chunks each
    [0, 150],    # an empty sequence first, ten chunks
], ids=["38-38", "70-6", "1-130", "96-96", "0-150"])
def test_prefill_warp_roles_two_sequences_three_slots(seqlens, monkeypatch, fresh_seed):
    """Two sequences of 65-192 tokens in all, as routed by default: three slots per solver
    (WARP_ROLES_TWO_SEQ_DEPTH), none reused."""
    total = sum(seqlens)
    assert prefill._warp_roles_depth(total, 2) == prefill.WARP_ROLES_TWO_SEQ_DEPTH == 3
    assert not prefill._warp_roles_reuse(total, 3)
    _check_seqlens_on_warp_roles(seqlens, True, fresh_seed, monkeypatch)


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("length", [32, 64, 200])
def test_prefill_warp_roles_hard_inputs(length, monkeypatch, fresh_seed):
    """The warp-role kernel's block-recursion inverse (fp16 dots) on strongly correlated keys, up to
    thirteen chunks (routing pinned at 256 tokens, the default)."""
    monkeypatch.setattr(prefill, "WARP_ROLES_MAX_TOKENS", 256)
    _check_on_warp_roles(_hard_inputs(seeded_generator(fresh_seed), length, "cuda"), monkeypatch,
                         state_tol=PREFILL_HARD_STATE_TOL)


# Ragged inputs of thousands of tokens in dozens of sequences, as the contest's 8192-token inputs are: run()
# never sends them to the warp-role kernel (its 16-token steps double the long chains' time; 0.92x on
# 06f21bb1 only, notes/prefill.md session 48 run 8), but a knob change can, so they are checked here.
_MANY_SEQS = [5, 0, 1, 130, 17, 64, 1, 412, 33, 2, 96, 16, 15, 250, 3, 47, 1, 81, 0, 29, 128, 7, 190, 11, 65]


@pytest.mark.skipif(not SM90, reason="the warp-role kernel (Gluon) runs on sm90 GPUs only; no interpreter")
@pytest.mark.parametrize("seqlens, has_state", [
    (_MANY_SEQS, True),                     # 25 sequences, 1604 tokens: empty, one-token, whole-chunk, long
    (_MANY_SEQS[::-1] + [900], False),      # 26 sequences, no state, the longest last
    ([1] * 40 + [2000], True),              # forty one-token sequences beside a chain of 125 chunks
], ids=["25-seqs", "26-seqs-no-state", "41-seqs-one-long"])
def test_prefill_warp_roles_many_sequences(seqlens, has_state, monkeypatch, fresh_seed):
    """Dozens of sequences of 0-2000 tokens on the warp-role kernel (routing widened by knobs: the short
    path and the kernel up to 8192 tokens in up to 64 sequences; three-sequence and depth rules as by
    default): one CTA per (sequence, head, V tile), empty and one-token sequences beside long chains."""
    monkeypatch.setattr(prefill, "CHUNKED_SHORT_MAX_TOKENS", 8192)
    monkeypatch.setattr(prefill, "WARP_ROLES_MAX_TOKENS", 8192)
    monkeypatch.setattr(prefill, "WARP_ROLES_MAX_SEQS", 64)
    _check_seqlens_on_warp_roles(seqlens, has_state, fresh_seed, monkeypatch)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="timing noise needs a GPU (compiled kernels)")
@pytest.mark.parametrize("arch", ["own", "sm100"])
def test_prefill_handoffs_repeat_bit_for_bit_under_noise(arch, monkeypatch):
    """benchmarks/race_smoke.py on one input per hand-off: the warp-role kernel's mbarriers (one sequence and
    two), the chunked kernel's ready flags (16-token chunks), split launches (one chain with transition
    records) and, routed as on a B200, the same inputs on the chunked kernel in one launch and lean with 56
    sequences. Each call is repeated while a side stream keeps the GPU busy and must give the quiet call's
    bits; the quiet call must match the float64 oracle."""
    smoke = load_benchmark("race_smoke")
    if arch != "own":
        monkeypatch.setattr(prefill, "_arch", lambda device: arch)
    noise = smoke.Noise(torch.device("cuda"))
    rows = [smoke.check_input(prefill, seqlens, 3, noise)
            for seqlens in ([61], [1, 45], [90, 115, 34], [1377, 600, 17], [147] * 55 + [107])]
    assert all(r["differing_runs"] == 0 and r["finite"] and r["oracle_max_abs"] < 1e-2 for r in rows), rows
