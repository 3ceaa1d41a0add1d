"""Fixtures for the SDK tests (the helpers themselves are in ``sdk_helpers``)."""

from __future__ import annotations

import pytest
from mus_sdk import Observation
from sdk_helpers import make_observation


@pytest.fixture
def observation() -> Observation:
    return make_observation()
