import pytest
from tests import test_prefill_kernel as T
from tests.test_prefill_kernel import prefill

@pytest.mark.parametrize("case", ["split-6", "split-transition", "wide-many"])
def test_wide_tma(case, monkeypatch, device, fresh_seed):
    monkeypatch.setattr(prefill, "CHUNKED_SPLIT_WIDE_TMA", True)
    calls = []
    orig = prefill._wide_tma_descriptors
    monkeypatch.setattr(prefill, "_wide_tma_descriptors", lambda *a: calls.append(1) or orig(*a))
    if case == "split-6":
        T.test_prefill_split_launches([30, 150, 0, 70, 1, 65], False, 1, monkeypatch, device, fresh_seed)
    elif case == "split-transition":
        T.test_prefill_split_launches([70, 3, 90], True, 2, monkeypatch, device, fresh_seed)
    else:
        T.test_prefill_split_launches([1, 64, 65, 0, 129, 2, 63, 40], False, 1, monkeypatch, device, fresh_seed)
    assert calls
