"""HSP table helpers: the canonical order, with keys packed and without."""
import numpy as np
from hypothesis import given, settings, strategies as st

from gpu_kernels.hsps import order_by


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 400), st.booleans())
def test_order_by_equals_lexsort(seed, n, wide):
    """Packed keys (one, or several when spans pass 2^63), with and without ties, order as lexsort does."""
    rng = np.random.default_rng(seed)
    spans = [3, 4, 2, 50, 60, 70]
    columns = [rng.integers(0, s, n) for s in spans]
    if wide:
        spans = [3, 4, 2, 2**40, 2**40, 2**40]
    assert np.array_equal(order_by(columns, spans), np.lexsort(columns[::-1]))
