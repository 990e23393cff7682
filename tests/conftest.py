"""Test-session settings shared by every test module."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _generations_in_a_temp_dir(tmp_path_factory):
    """lm-eval runs of the tests (in process and in subprocesses) save their
    generations (lm_eval_quantum.lmeval.generations) here, not in the user's cache."""
    from lm_eval_quantum.lmeval.generations import ENV_DIR

    if not os.environ.get(ENV_DIR):
        os.environ[ENV_DIR] = str(tmp_path_factory.mktemp("generations"))
    yield
