"""Root test configuration.

Tests that need a real part (Docker, Redis, PostgreSQL, Chromium) call ``require_part``: locally
they skip with the reason, under ``CI=true`` they fail, so CI can never go green by skipping.
"""

from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require_part(available: bool, reason: str) -> None:
    """Skip (locally) or fail (in CI) the calling test when a real part it needs is missing."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"CI must provide this part: {reason}", pytrace=False)
    pytest.skip(reason)
