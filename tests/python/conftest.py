"""pytest setup for the Python module's tests (CTest runs them: tests/python/PythonTests.cmake).

The package is the build tree's (PTXRAY_PYTHONPATH: BUILD/python, which holds ptxray/ with the
native _core beside the Python files); the command line is PTXRAY_CLI; the repository is
PTXRAY_SOURCE_DIR (else this file's grandparent)."""

import os
import sys
from pathlib import Path

import pytest

PACKAGE_PARENT = os.environ.get("PTXRAY_PYTHONPATH", "")
if PACKAGE_PARENT and PACKAGE_PARENT not in sys.path:
    sys.path.insert(0, PACKAGE_PARENT)

SOURCE_DIR = Path(os.environ.get("PTXRAY_SOURCE_DIR", Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def source_dir() -> Path:
    """The repository's root."""
    return SOURCE_DIR


@pytest.fixture(scope="session")
def cli() -> str:
    """The `ptxray` executable of the same build (tests comparing with it are skipped without one)."""
    path = os.environ.get("PTXRAY_CLI", "")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("PTXRAY_CLI does not name the ptxray executable")
    return path
