"""A weighted Bradley-Terry fit with 95 % intervals, on aggregated pairwise results (no Django).

The boards across games (``unified.py``) and the ratings-quality bench share it. Input: for
each pair of players that met, how often and how much the first scored (a draw is half a
win), and a weight per pair (the boards weigh each game equally: a game's results count
``1 / its matches``, rescaled so the weights sum to the matches). Output: strengths on the Elo
scale (400 / ln 10 per unit of log-odds, centred on ``ELO_START``) and each one's standard
error.

The fit maximises the weighted log-likelihood plus one virtual draw of each player against a
player of the mean strength (a weak prior: an unbeaten player stays finite, and the scale has
an origin). A ladder's own fit (``ladder_fit``) goes on from there to a normal prior at the
spread of that first fit's ratings, then at that posterior's spread (an empirical-Bayes prior;
why in its docstring).
Newton's method; each step solves H d = g by conjugate gradients with the Hessian applied
pair by pair (``numpy.bincount``), so a step costs a few passes over the pairs, never an
n × n matrix: 10,000 players and 500,000 pairs fit in seconds.

Intervals: a weighted likelihood's covariance is the sandwich H⁻¹ J H⁻¹ (J the information with
squared weights; with equal weights it is H⁻¹), of each strength measured from the players'
mean (the scale's level is the prior's, and its uncertainty, as large as a player's own after
100 games, says nothing about who is ahead). Up to ``FULL_COVARIANCE_MAX`` players the
matrix is inverted exactly; beyond, each variance is taken from the diagonal
(J_ii / H_ii²), which understates it where players are estimated through chains of
opponents (the figures in docs/architecture.md say by how much on the bench).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from games.core.ranking import ELO_START, Z_95

#: Rating points per unit of log-odds.
ELO_PER_LOGIT = 400 / math.log(10)
#: Weight of the virtual draw against the mean that each player carries.
PRIOR_WEIGHT = 1.0
#: Players up to which the covariance is inverted exactly (an n × n inverse).
FULL_COVARIANCE_MAX = 1500
#: The least spread (Elo points) a ladder's population prior may have: a handful of entries,
#: or a ladder whose first games have not separated anyone yet, says little about its spread,
#: and a narrow prior would pull every rating to the mean.
LADDER_PRIOR_SD_FLOOR = 200.0


Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


def ladder_prior_sd(ratings: Floats) -> float:
    """The spread of a ladder's population prior from its first fit's ``ratings``: their
    standard deviation widened by 1/√n (n entries; at least ``LADDER_PRIOR_SD_FLOOR``).

    A spread measured on n entries is itself uncertain (its standard error is about 1/√(2n)
    of it): on a ladder of 20 a spread that happened to come out short pulled the strongest and
    weakest in past their intervals (bench/ratings_quality.py at 20 entries: coverage after 10
    games 0.90 at sd 300, 0.875 at sd 400). Widening by 1/√n, about 1.4 standard errors,
    costs a large ladder little (7 % at 200 entries) and gives a small one what it lacks."""
    n = len(ratings)
    if n == 0:
        return LADDER_PRIOR_SD_FLOOR
    return widened_prior_sd(float(np.std(ratings)), n)


def widened_prior_sd(spread: float, n: int) -> float:
    """A spread measured on ``n`` entries widened by 1/√n, at least ``LADDER_PRIOR_SD_FLOOR``
    (``ladder_prior_sd``)."""
    return max(spread * (1 + 1 / math.sqrt(n)), LADDER_PRIOR_SD_FLOOR)


@dataclass(frozen=True)
class Fit:
    """Strengths (Elo scale) and standard errors of players ``0 .. n - 1``."""

    rating: Floats
    deviation: Floats
    iterations: int

    def low(self) -> Floats:
        """Lower bounds of the 95 % intervals."""
        return self.rating - Z_95 * self.deviation

    def high(self) -> Floats:
        """Upper bounds of the 95 % intervals."""
        return self.rating + Z_95 * self.deviation


def _sums(index: Ints, values: Floats, n: int) -> Floats:
    """Per player, the sum of ``values`` over the pairs where it is ``index``."""
    return np.bincount(index, values, minlength=n).astype(np.float64)


def _hessian_times(
    vector: Floats, a: Ints, b: Ints, weight: Floats, diagonal_extra: Floats, n: int
) -> Floats:
    """H v for H = Σ_pairs w (e_a - e_b)(e_a - e_b)ᵀ + diag(extra)."""
    diff = weight * (vector[a] - vector[b])
    return (_sums(a, diff, n) - _sums(b, diff, n)) + diagonal_extra * vector


def _solve(
    gradient: Floats, a: Ints, b: Ints, weight: Floats, extra: Floats, n: int, diag: Floats
) -> Floats:
    """H x = g by Jacobi-preconditioned conjugate gradients (H is symmetric positive
    definite: a weighted graph Laplacian plus the prior's diagonal)."""
    x = np.zeros(n)
    r = gradient.copy()
    z = r / diag
    p = z.copy()
    rz = float(r @ z)
    tolerance = 1e-10 * max(1.0, float(gradient @ gradient))
    for _ in range(500):
        if float(r @ r) < tolerance:
            break
        hp = _hessian_times(p, a, b, weight, extra, n)
        alpha = rz / float(p @ hp)
        x += alpha * p
        r -= alpha * hp
        z = r / diag
        rz_next = float(r @ z)
        p = z + (rz_next / rz) * p
        rz = rz_next
    return x


def fit(
    n: int,
    first: Ints,
    second: Ints,
    games: Floats,
    score_first: Floats,
    weight: Floats,
    *,
    start: Floats | None = None,
    max_steps: int = 30,
    normal_prior: tuple[float, float] | None = None,
    deviations: bool = True,
) -> Fit:
    """Fit ``n`` players from pairs ``(first[i], second[i])`` that met ``games[i]`` times, the
    first scoring ``score_first[i]`` of them, each result counted ``weight[i]`` times.
    ``start`` (Elo scale) warm-starts the search (a previous fit, or the ladder's ratings).

    ``normal_prior`` ``(mean, sd)`` on the Elo scale puts a normal prior on every strength in
    place of the virtual draw (``ladder_fit``'s population prior); the fit is then its
    posterior mode and the deviations its posterior's. ``deviations`` False skips them (zeros):
    up to ``FULL_COVARIANCE_MAX`` players they cost an n × n inverse, more than the fit."""
    theta = np.zeros(n)
    if start is not None and n:
        # The start gives the players' places relative to each other (what takes the search
        # long to find); the level is the prior's, so the search starts there: a start far
        # from it (every row at 2000, say) leaves the virtual draws no curvature to find it by.
        warm = np.asarray(start, float)
        if np.all(np.isfinite(warm)):
            theta = (warm - float(np.mean(warm))) / ELO_PER_LOGIT
            if normal_prior is not None:
                theta += (normal_prior[0] - ELO_START) / ELO_PER_LOGIT
    weighted_games = games * weight
    weighted_score = score_first * weight
    prior = np.full(n, PRIOR_WEIGHT)
    steps = 0
    for steps in range(1, max_steps + 1):  # noqa: B007
        p = 1.0 / (1.0 + np.exp(-(theta[first] - theta[second])))
        residual = weighted_score - weighted_games * p
        gradient = _sums(first, residual, n) - _sums(second, residual, n)
        gradient_prior, extra = _prior_terms(theta, prior, normal_prior)
        gradient += gradient_prior
        pair_info = weighted_games * p * (1.0 - p)
        diag = _sums(first, pair_info, n) + _sums(second, pair_info, n)
        diag += extra
        step = _solve(gradient, first, second, pair_info, extra, n, diag)
        theta += step
        if float(np.max(np.abs(step), initial=0.0)) < 1e-6:
            break
    p = 1.0 / (1.0 + np.exp(-(theta[first] - theta[second])))
    info = games * p * (1.0 - p)  # per pair, unweighted
    _, extra = _prior_terms(theta, prior, normal_prior)
    variance = (
        _sandwich_variance(n, first, second, info, weight, extra) if deviations else np.zeros(n)
    )
    return Fit(
        rating=ELO_START + ELO_PER_LOGIT * theta,
        deviation=ELO_PER_LOGIT * np.sqrt(variance),
        iterations=steps,
    )


def _prior_terms(
    theta: Floats, prior: Floats, normal_prior: tuple[float, float] | None
) -> tuple[Floats, Floats]:
    """The prior's gradient and its diagonal of the Hessian at ``theta`` (log-odds): the
    virtual draw against the mean (a logistic term) or a normal prior ``(mean, sd)`` in Elo."""
    if normal_prior is None:
        prior_p = 1.0 / (1.0 + np.exp(-theta))
        return prior * (0.5 - prior_p), prior * prior_p * (1.0 - prior_p)
    mean = (normal_prior[0] - ELO_START) / ELO_PER_LOGIT
    precision = (ELO_PER_LOGIT / normal_prior[1]) ** 2
    return -precision * (theta - mean), np.full(theta.shape, precision)


def _sandwich_variance(
    n: int, first: Ints, second: Ints, info: Floats, weight: Floats, extra: Floats
) -> Floats:
    """diag(H⁻¹ J H⁻¹) with H = Σ w·info (plus the prior), J = Σ w²·info (plus the prior)."""
    if n == 0:
        return np.zeros(0)
    if n <= FULL_COVARIANCE_MAX:
        h = np.zeros((n, n))
        j = np.zeros((n, n))
        for matrix, w in ((h, weight * info), (j, weight * weight * info)):
            np.add.at(matrix, (first, first), w)
            np.add.at(matrix, (second, second), w)
            np.add.at(matrix, (first, second), -w)
            np.add.at(matrix, (second, first), -w)
            matrix[np.diag_indices(n)] += extra
        inverse = np.linalg.inv(h)
        # diag(C) of C = A J A for a symmetric A: each row of A J dotted with the same row of A.
        diagonal = np.sum((inverse @ j) * inverse, axis=1)
        # Of each strength measured from the players' mean (θ_i - θ̄): the scale has no origin
        # but the prior's, and the level's own uncertainty says nothing about who is ahead of
        # whom. diag(P C P) with P = I - 11ᵀ/n is C_ii - 2 mean_j C_ij + mean(C).
        row_means = inverse @ (j @ (inverse @ np.full(n, 1.0 / n)))
        variance: Floats = np.maximum(diagonal - 2 * row_means + row_means.mean(), 0.0)
        return variance
    h_diag = _sums(first, weight * info, n) + _sums(second, weight * info, n)
    j_diag = _sums(first, weight * weight * info, n) + _sums(second, weight * weight * info, n)
    h_diag += extra
    j_diag += extra
    return j_diag / (h_diag * h_diag)


@dataclass(frozen=True)
class LadderFit:
    """One ladder's fit, keyed by the ids its results were given with."""

    ids: list[int]
    rating: Floats
    deviation: Floats

    def of(self) -> dict[int, tuple[float, float]]:
        """``{id: (rating, deviation)}``."""
        return {
            key: (float(r), float(d))
            for key, r, d in zip(self.ids, self.rating, self.deviation, strict=True)
        }


def ladder_fit(
    results: list[tuple[int, int, float, float]],
    start: dict[int, float] | None = None,
    *,
    population_prior: bool = True,
) -> LadderFit:
    """The fit of one game's ladder (each result counted once) from its results per pair
    ``(first id, second id, matches, first's score)``, a draw scoring half, under a prior fitted
    to the ladder's own population (an empirical-Bayes normal prior).

    Three fits: the first with the weak prior of one virtual draw (about the maximum-likelihood
    fit); the spread of its ratings (widened for a small ladder, ``ladder_prior_sd``) and their
    mean are the prior of the second; the spread of the second's posterior (one EM step) is the
    prior of the third, whose posterior mode and deviations are returned. Why
    (docs/architecture.md, "Intervals"): matchmaking pairs on the ratings, so a gap the
    estimates overstate is seldom played again and the maximum-likelihood fit stretches the
    scale (8–14 % on the bench, beyond its intervals); a prior at the population's spread holds
    the scale, and its posterior is valid however the pairs were chosen. Taking the spread of
    the first fit's ratings, their noise included, keeps the prior wider than the population
    while games are few (a narrow one pulls the strongest and weakest in past their intervals).

    Only the entries that played appear. ``start`` (id -> rating) warm-starts the search: the
    ratings the rows hold (the last fit, moved by the matches since) are a few steps from it.
    The platform's refit (``services.ladder_refit``) and the ratings-quality bench call this;
    ``population_prior`` False returns the first fit (the bench's comparison).
    """
    ids = sorted({a for a, _, _, _ in results} | {b for _, b, _, _ in results})
    index = {key: i for i, key in enumerate(ids)}
    first = np.array([index[a] for a, _, _, _ in results], dtype=np.int64)
    second = np.array([index[b] for _, b, _, _ in results], dtype=np.int64)
    games = np.array([m for _, _, m, _ in results], dtype=np.float64)
    score = np.array([s for _, _, _, s in results], dtype=np.float64)
    warm = None
    if start is not None:
        warm = np.array([start.get(key, ELO_START) for key in ids], dtype=np.float64)
    weight = np.ones(len(results))
    # The first fit's deviations are not used unless it is returned.
    weak = fit(
        len(ids), first, second, games, score, weight, start=warm, deviations=not population_prior
    )
    if not population_prior:
        return LadderFit(ids, weak.rating, weak.deviation)
    mean = float(np.mean(weak.rating)) if len(ids) else ELO_START
    prior = (mean, ladder_prior_sd(weak.rating))
    fitted = fit(
        len(ids), first, second, games, score, weight, start=weak.rating, normal_prior=prior
    )
    # One EM step on the prior's spread: the posterior's own (its ratings' spread plus their
    # mean variance), widened as the first was. The first fit is near the maximum-likelihood
    # one, whose scale matchmaking stretches; its spread alone made the prior 15 % wider than
    # the population after 100 games and the posterior stretched past its intervals.
    if len(ids):
        spread = math.sqrt(
            float(np.mean((fitted.rating - np.mean(fitted.rating)) ** 2))
            + float(np.mean(fitted.deviation**2))
        )
        prior = (mean, widened_prior_sd(spread, len(ids)))
        fitted = fit(
            len(ids), first, second, games, score, weight, start=fitted.rating, normal_prior=prior
        )
    return LadderFit(ids, fitted.rating, fitted.deviation)
