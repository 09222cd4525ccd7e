"""The ladder's fit under its population prior (``bradley_terry.ladder_fit``), checked against
the posterior written out here with dense matrices: its mode, its covariance, and where the
prior's spread comes from."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from arena.ratings import bradley_terry
from arena.ratings.bradley_terry import (
    ELO_PER_LOGIT,
    LADDER_PRIOR_SD_FLOOR,
    ladder_fit,
    ladder_prior_sd,
)

from games.core.ranking import ELO_START

Results = list[tuple[int, int, float, float]]


def _results(strengths: list[float], matches: int, seed: int) -> Results:
    """Random pairs of ids 10, 11, ... playing ``matches`` games, won as the Elo formula says,
    gathered per pair as ``PairRecord`` keeps them."""
    rng = random.Random(seed)
    pairs: dict[tuple[int, int], list[float]] = {}
    for _ in range(matches):
        a, b = sorted(rng.sample(range(len(strengths)), 2))
        p_a = 1 / (1 + 10 ** ((strengths[b] - strengths[a]) / 400))
        record = pairs.setdefault((a + 10, b + 10), [0.0, 0.0])
        record[0] += 1
        record[1] += 1.0 if rng.random() < p_a else 0.0
    return [(a, b, m, s) for (a, b), (m, s) in pairs.items()]


def _posterior(
    results: Results, mean: float, sd: float
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The mode and the centred standard errors (Elo) of the Bradley-Terry posterior under a
    normal prior ``N(mean, sd²)`` on every strength, by plain Newton steps on dense matrices."""
    ids = sorted({a for a, *_ in results} | {b for _, b, *_ in results})
    at = {key: i for i, key in enumerate(ids)}
    n = len(ids)
    mu = (mean - ELO_START) / ELO_PER_LOGIT
    precision = (ELO_PER_LOGIT / sd) ** 2
    theta = np.zeros(n)
    for _ in range(100):
        gradient = -precision * (theta - mu)
        hessian = np.eye(n) * precision
        for a, b, m, s in results:
            i, j = at[a], at[b]
            p = 1 / (1 + math.exp(theta[j] - theta[i]))
            gradient[i] += s - m * p
            gradient[j] -= s - m * p
            w = m * p * (1 - p)
            hessian[i, i] += w
            hessian[j, j] += w
            hessian[i, j] -= w
            hessian[j, i] -= w
        step = np.linalg.solve(hessian, gradient)
        theta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    covariance = np.linalg.inv(hessian)
    centring = np.eye(n) - np.full((n, n), 1 / n)
    variance = np.diag(centring @ covariance @ centring)
    return ids, ELO_START + ELO_PER_LOGIT * theta, ELO_PER_LOGIT * np.sqrt(variance)


def test_the_ladder_fit_is_the_posterior_under_the_spread_of_its_first_fits() -> None:
    rng = random.Random(3)
    strengths = [rng.gauss(1200, 450) for _ in range(24)]
    results = _results(strengths, 400, seed=5)
    first = bradley_terry.fit(
        24,
        np.array([a - 10 for a, *_ in results]),
        np.array([b - 10 for _, b, *_ in results]),
        np.array([m for *_, m, _ in results]),
        np.array([s for *_, s in results]),
        np.ones(len(results)),
    )
    mean, sd = float(np.mean(first.rating)), ladder_prior_sd(first.rating)
    # This population's own spread sets the prior, widened by 1/sqrt(n) for its 24 entries.
    assert sd == pytest.approx(float(np.std(first.rating)) * (1 + 1 / np.sqrt(24)))
    assert sd > LADDER_PRIOR_SD_FLOOR
    # One EM step: the spread of that posterior (its ratings' plus their mean variance),
    # widened the same way, is the prior of the fit returned.
    _, rating, deviation = _posterior(results, mean, sd)
    spread = math.sqrt(float(np.mean((rating - rating.mean()) ** 2 + deviation**2)))
    assert spread != pytest.approx(float(np.std(first.rating)), rel=0.01)
    ids, rating, deviation = _posterior(results, mean, spread * (1 + 1 / np.sqrt(24)))
    found = ladder_fit(results).of()
    assert sorted(found) == ids
    for key, r, d in zip(ids, rating, deviation, strict=True):
        assert found[key][0] == pytest.approx(r, abs=1e-3)
        assert found[key][1] == pytest.approx(d, rel=1e-6)
    # The prior pulls the strongest and the weakest in from the first fit, not past it.
    order = np.argsort(first.rating)
    weakest, strongest = ids[order[0]], ids[order[-1]]
    assert first.rating[order[0]] < found[weakest][0] < mean
    assert mean < found[strongest][0] < first.rating[order[-1]]


def test_a_ladder_that_has_not_separated_anyone_gets_the_floor_of_the_prior() -> None:
    # Two entries with a win each: the first fit puts them level, so the prior's spread is
    # the floor, and the ladder's level stays where the first fit put it.
    results = [(1, 2, 2.0, 1.0), (2, 3, 2.0, 1.0), (1, 3, 2.0, 1.0)]
    ids, rating, deviation = _posterior(results, ELO_START, LADDER_PRIOR_SD_FLOOR)
    found = ladder_fit(results).of()
    for key, r, d in zip(ids, rating, deviation, strict=True):
        assert found[key] == pytest.approx((r, d), abs=1e-6)
        assert found[key][0] == pytest.approx(ELO_START, abs=1e-6)


def test_a_warm_start_reaches_the_same_fit() -> None:
    results = _results([1000, 1100, 1250, 1400, 1700, 900], 120, seed=9)
    cold = ladder_fit(results).of()
    warm = ladder_fit(results, start=dict.fromkeys(cold, 2000.0)).of()
    for key, (rating, deviation) in cold.items():
        assert warm[key][0] == pytest.approx(rating, abs=1e-3)
        assert warm[key][1] == pytest.approx(deviation, rel=1e-4)
