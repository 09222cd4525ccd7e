"""Sealed-bid recruitment: a bidding war for recruits (``rules.md`` beside it).

Five rounds, one recruit each; the recruits' values are a seeded order of (60, 80, 100, 120, 140),
announced at the start, and a round's pot is its recruit's value. Each school has a season
budget of 300. At a round's start each school privately draws a fit in 0..40. A ``pitch`` phase
of 4 alternating messages (first speaker alternating by round) is followed by an ``offer`` phase
in which both offer at once, 0 up to their remaining budget. The higher offer + fit signs the
recruit; ties go to the higher fit, then to the round's second speaker. The winner scores the
recruit's value and pays its offer; the loser pays nothing.
"""

from __future__ import annotations

from typing import Any

from games.core import Action, IllegalActionError
from games.core.figures import Playthrough
from games.core.game import RoundByRoundGame, your_and_opponent
from games.core.messages import record_message
from games.sealed_bid_recruitment.config import SealedBidRecruitmentConfig

# Flavour: who the recruit is and where the schools are. It changes nothing in the rules.
FIRST_NAMES = (
    "Jalen",
    "Marcus",
    "Devin",
    "Tyrese",
    "Caleb",
    "Malik",
    "Isaiah",
    "Xavier",
    "Amari",
    "Jordan",
    "Darius",
    "Keon",
    "Trey",
    "Elijah",
    "Andre",
    "Bryce",
)
LAST_NAMES = (
    "Carter",
    "Hayes",
    "Brooks",
    "Coleman",
    "Reed",
    "Sims",
    "Porter",
    "Wallace",
    "Jennings",
    "Monroe",
    "Fields",
    "Gaines",
    "Holloway",
    "Pryor",
    "Whitfield",
)
POSITIONS = (
    "quarterback",
    "wide receiver",
    "running back",
    "linebacker",
    "cornerback",
    "offensive tackle",
    "point guard",
    "small forward",
    "center",
    "safety",
)
PRIORITIES = (
    "playing time",
    "NIL income",
    "a path to the pros",
    "academics",
    "staying close to home",
    "a winning program",
    "the coaching staff",
    "a big media market",
)
CONCERNS = (
    "a crowded depth chart",
    "a coach leaving",
    "distance from family",
    "the school's facilities",
    "injury history being held against him",
    "a losing record",
    "the cost of living",
)
UNIVERSITIES = (
    "State University",
    "Coastal Tech",
    "Northern A&M",
    "Lakeside College",
    "Mountain State",
    "Capital University",
    "Riverside University",
    "Prairie Tech",
)


class SealedBidRecruitmentGame(RoundByRoundGame):
    """Two schools pitch, then offer at once; offer + private fit signs each recruit."""

    game_type = "sealed-bid-recruitment"
    #: This game's id until the judged game of that name took it: an agent uploaded before then
    #: (its source still says ``GAME = "nil-recruitment"``) keeps playing here unchanged.
    former_ids = frozenset({"nil-recruitment"})
    #: Short matches where a full one would make a file of megabytes.
    playthroughs = (
        Playthrough(("shading", "proportional"), 1),
        Playthrough(("spend-everything", "shading"), 2),
    )
    order = 40
    title = "Sealed-Bid Recruitment"
    version = 1
    config_class = SealedBidRecruitmentConfig
    simultaneous_phases = frozenset({"offer"})
    #: Fits are drawn privately and revealed with the offers in the round result.
    sealed_fields = frozenset({"your_fit"})
    config: SealedBidRecruitmentConfig

    def _start_match(self) -> None:
        """Order the recruits, name them and the schools, from the seeded generator."""
        cfg = self.config
        values = list(cfg.recruit_values)
        self.rng.shuffle(values)
        self.values = values
        self.recruits = [self._recruit(v) for v in values]
        schools = self.rng.sample(UNIVERSITIES, 2)
        self.universities = dict(zip(self.players, schools, strict=False))
        self.budgets = dict.fromkeys(self.players, cfg.budget)

    def _recruit(self, value: int) -> dict[str, Any]:
        return {
            "name": f"{self.rng.choice(FIRST_NAMES)} {self.rng.choice(LAST_NAMES)}",
            "position": self.rng.choice(POSITIONS),
            "priorities": self.rng.sample(PRIORITIES, 2),
            "concerns": self.rng.sample(CONCERNS, 1),
            "value": value,
        }

    def _start_round(self) -> None:
        self.fits = {p: self.rng.randint(0, self.config.max_fit) for p in self.players}
        self.messages: list[dict[str, str]] = []
        self.offers: dict[str, int] = {}
        self.turn = 1

    @property
    def phase(self) -> str:
        """``pitch`` until the messages are sent, then ``offer``; ``over`` at the end."""
        if self.over:
            return "over"
        return "pitch" if len(self.messages) < self.config.messages_per_round else "offer"

    # --- the Game contract --------------------------------------------------------------------

    @property
    def total_rounds(self) -> int:
        """One round per recruit."""
        return len(self.config.recruit_values)

    def get_current_player(self) -> str:
        """Pitchers alternate; then both offer in the same order; ``""`` when over."""
        if self.over:
            return ""
        order = self._round_order()
        if self.phase == "pitch":
            return order[len(self.messages) % 2]
        return next(p for p in order if p not in self.offers)

    def get_public_state(self) -> dict[str, Any]:
        """The recruit, the schedule, both budgets and the pitch; fits and offers stay hidden."""
        index = self.get_round() - 1
        return {
            "phase": self.phase,
            "round": self.get_round(),
            "turn": self.turn,
            "pot": self.values[index],
            "scores": dict(self.scores),
            "messages": [dict(m) for m in self.messages],
            "recruit": _copy_recruit(self.recruits[index]),
            "recruit_values": list(self.values),
            "budgets": dict(self.budgets),
            "universities": dict(self.universities),
            "second_speaker": self._round_order()[1],
        }

    def get_private_state(self, player_id: str) -> dict[str, Any]:
        """The school's fit for this recruit and its history of finished rounds."""
        return {
            "player_id": player_id,
            "fit": self.fits[player_id],
            "history": [
                _round_view(r, player_id, self.opponent_of(player_id)) for r in self.finished
            ],
        }

    def get_available_actions(self) -> list[Action]:
        """A message template while pitching; an offer template up to the budget while offering."""
        if self.over:
            return []
        if self.phase == "pitch":
            return [{"action_type": "message", "max_length": self.config.max_message_chars}]
        player = self.get_current_player()
        return [{"action_type": "offer", "min": 0, "max": self.budgets[player]}]

    def get_match_info(self, player_id: str) -> dict[str, Any]:
        """Every recruit value in playing order, the budget and both schools."""
        return {
            "recruit_values": list(self.values),
            "budget": self.config.budget,
            "your_university": self.universities[player_id],
            "opponent_university": self.universities[self.opponent_of(player_id)],
        }

    def get_round_info(self, player_id: str) -> dict[str, Any]:
        """The round, its pot (the recruit's value) and the recruit."""
        index = self.get_round() - 1
        return {
            "round": self.get_round(),
            "pot": self.values[index],
            "recruit": _copy_recruit(self.recruits[index]),
            "your_fit": self.fits[player_id],
        }

    def step(self, action: Action) -> tuple[dict[str, Any], bool]:
        """Apply a message or an offer for the current player."""
        player, info = self._begin_step(action)
        kind = action.get("action_type")
        if self.phase == "pitch":
            record_message(
                self.messages,
                player,
                action,
                self.config.max_message_chars,
                f'it is the pitch phase: send {{"type": "message", "text": ...}} '
                f"({len(self.messages)} of {self.config.messages_per_round} messages sent), "
                f"not {kind!r}",
            )
            self.turn += 1
            return info, False
        if kind != "offer":
            raise IllegalActionError(
                f'it is the offer phase: send {{"type": "offer", "amount": n}} with 0 <= n <= '
                f"{self.budgets[player]}, not {kind!r}"
            )
        amount = action.get("amount")
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise IllegalActionError(f'"amount" must be a whole number, got {amount!r}')
        if not 0 <= amount <= self.budgets[player]:
            raise IllegalActionError(
                f"offer {amount} is outside 0..{self.budgets[player]}: you cannot offer more "
                "than your remaining budget, nor less than nothing"
            )
        self.offers[player] = amount
        self.turn += 1
        if len(self.offers) == len(self.players):
            info["round_result"] = self._resolve()
        return info, self.over

    def _resolve(self) -> dict[str, dict[str, Any]]:
        a, b = self.players
        totals = {p: self.offers[p] + self.fits[p] for p in self.players}
        if totals[a] != totals[b]:
            winner = a if totals[a] > totals[b] else b
        elif self.fits[a] != self.fits[b]:
            winner = a if self.fits[a] > self.fits[b] else b
        else:
            winner = self._round_order()[1]  # the round's second speaker
        value = self.values[self.round - 1]
        self.budgets[winner] -= self.offers[winner]
        points = {p: value if p == winner else 0 for p in self.players}
        entry = {
            "round": self.round,
            "value": value,
            "winner": winner,
            "points": points,
            "offers": dict(self.offers),
            "fits": dict(self.fits),
            "budgets": dict(self.budgets),
        }
        return self._finish_round(points, entry, lambda p, o: _round_view(entry, p, o))


def _copy_recruit(recruit: dict[str, Any]) -> dict[str, Any]:
    return {
        **recruit,
        "priorities": list(recruit["priorities"]),
        "concerns": list(recruit["concerns"]),
    }


def _round_view(entry: dict[str, Any], viewer: str, opponent: str) -> dict[str, Any]:
    """A finished round from ``viewer``'s side: offers and fits revealed."""
    return {
        "round": entry["round"],
        "value": entry["value"],
        "winner": "you" if entry["winner"] == viewer else "opponent",
        **your_and_opponent(
            viewer,
            opponent,
            points=entry["points"],
            offer=entry["offers"],
            fit=entry["fits"],
            budget=entry["budgets"],
        ),
    }
