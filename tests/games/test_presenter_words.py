"""What the replays say in words: liar's dice bids read as "five 6s", and poker's end-of-hand
stacks hold the pot just won."""

from __future__ import annotations

import json
import re

from games.liars_dice.presenter import BIDS_TITLE, bid_words
from tests.games.test_presenters import present, record_of


def test_liars_dice_bids_read_as_words() -> None:
    assert bid_words(5, 6) == "five 6s" and bid_words(1, 3) == "one 3"
    assert bid_words(14, 2) == "14 2s"
    replay = present("liars-dice", record_of("liars-dice"))
    text = json.dumps(replay, ensure_ascii=False)
    assert "×" not in text
    labels = [f["label"] for f in replay["frames"] if " bids " in f["label"]]
    assert labels and all(re.search(r" bids \w+ [2-6]s?$", label) for label in labels), labels
    assert BIDS_TITLE in text and "1s" in BIDS_TITLE


def test_poker_end_of_hand_stacks_include_the_pot_won() -> None:
    record = record_of("poker")
    stack0 = int(record["config"].get("starting_stack", 20_000))
    replay = present("poker", record)
    ends = [f for f in replay["frames"] if f["label"].endswith(("· end", "· showdown"))]
    assert ends
    results = {r["round"]: r for r in record["rounds"]}
    for frame in ends:
        seats = next(w for w in frame["widgets"] if w["kind"] == "seats")["seats"]
        stacks = [int(dict(s["facts"])["stack"].replace(",", "")) for s in seats]
        assert sum(stacks) == 2 * stack0, (frame["label"], stacks)  # no chips left on the table
        points = results[frame["round"]]["result"]["p0"]["your_points"]
        assert stacks[0] == stack0 + points, (frame["label"], stacks, points)
