import pytest


def pytest_collection_modifyitems(config, items):
    """GPU tests (marked `gpu`) skip where there is no CUDA device."""
    import scankit

    if scankit.cuda_available():
        return
    skip = pytest.mark.skip(reason="no CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device")
