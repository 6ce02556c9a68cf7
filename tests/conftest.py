import os
import sys

import pytest
from hypothesis import HealthCheck, settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))  # its shared helpers (bench/common), never the reverse
sys.path.insert(0, ROOT)

settings.register_profile("ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

RESOURCES = os.path.join(ROOT, "resources")
MYCO_232 = os.path.join(RESOURCES, "Mhyopneumoniae_232.fa.gz")
MYCO_7422 = os.path.join(RESOURCES, "Mhyopneumoniae_7422.fa.gz")


def gpu_present() -> bool:
    from gpu_kernels.device import gpu_available

    return gpu_available()


def pytest_collection_modifyitems(config, items):
    # tests that need several GB of memory run where BIGMEM_TESTS=1 (CI sets it), so that the README's
    # test command stays under 4 GB on a laptop
    if os.environ.get("BIGMEM_TESTS") != "1":
        big = pytest.mark.skip(reason="needs over 4 GB of memory: set BIGMEM_TESTS=1 to run it")
        for item in items:
            if "bigmem" in item.keywords:
                item.add_marker(big)
    if gpu_present():
        return
    skip = pytest.mark.skip(reason="no CUDA device found")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
