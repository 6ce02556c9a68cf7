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


def test_rehearsals_run_every_stage_of_a_comparison():
    """warm.py's rehearsals (the GPU warm-up) call every stage a comparison and its Parquet write call,
    and run on either backend (here NumPy's twins, same signatures)."""
    from gpu_kernels import warm
    from gpu_kernels.backend import NumpyBackend
    from gpu_kernels.params import Params

    stages = ("words", "words_in", "seed_groups", "seed_keys", "kept_seeds", "extend", "passing",
              "drop_contained", "to_records", "union_length", "delta_pages")
    backend, calls = NumpyBackend(), []
    for name in stages:
        def counted(*args, _name=name, _stage=getattr(backend, name), **kwargs):
            calls.append(_name)
            return _stage(*args, **kwargs)
        setattr(backend, name, counted)
    warm.rehearse(backend, Params(max_freq=3))
    assert set(calls) == set(stages)
    # the rehearsals' HSPs lie inside the record (the device reads no record -1)
    _, table = warm._records(NumpyBackend())
    assert table["qrec"].min() == 0 == table["rrec"].min() and table["qstart"].min() >= 0


def test_rehearsals_run_on_the_device_given():
    """Each rehearsal runs inside the CUDA device given to warm.rehearse (a thread starts on device 0,
    while a workflow job may be bound to another): here a NumPy backend whose `xp.cuda.Device` records
    which device each thread entered before a stage ran."""
    import contextlib
    import threading
    import types

    from gpu_kernels import warm
    from gpu_kernels.backend import NumpyBackend

    entered, entries = {}, []

    @contextlib.contextmanager
    def device(index):
        entered[threading.get_ident()] = index
        entries.append(index)
        yield

    class Module:  # numpy, with a cuda.Device of its own
        cuda = types.SimpleNamespace(Device=device)

        def __getattr__(self, name):
            return getattr(np, name)

    backend, stages = NumpyBackend(), []
    backend.xp = Module()
    real = backend.extend
    backend.extend = lambda *a, **k: (stages.append(entered.get(threading.get_ident())), real(*a, **k))[1]
    warm.rehearse(backend, None, device=3)
    assert stages == [3] and entries == [3] * len(warm.REHEARSALS)
