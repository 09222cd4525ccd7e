"""An example Nuclear War agent that asks a language model for every argument, written as the
original platform's OpenAI-powered example agents are: ``from openai import OpenAI`` and
``OpenAI()`` with no arguments. Upload it as it is; it plays the same way in any judged game
once you change ``GAME``, the action (``pitch`` in nil-recruitment) and the prompt.

Inside the sandbox ``OpenAI()`` reaches the platform's model gateway (docs/sandbox.md, "The model
gateway"). Before this version can call a model, choose which models it may call and what it may
spend (docs/llm-seats.md, "Code agents that call a model": the link on your submission's page,
or ``arena submit --agent-model NAME --match-budget-usd X --day-budget-usd Y``); the calls are
yours to pay and yours alone to read. Without a model, over a budget, or when the model is slow,
the call fails and this agent says its fixed argument instead: a failed call is never a loss.
"""

import openai
from openai import OpenAI

# Made at load, as the SDK's docs do: the gateway's address and key are in the environment.
client = OpenAI()


class Agent:
    # Which game this agent plays: required.
    GAME = "nuclear-war"

    def __init__(self):
        self.model = None
        self.state = {}

    def on_round_start(self, round_info):
        # round_info["game_state"]: "your_role" ("pro_nuclear" or "anti_nuclear"), "country",
        # "president_profile" (see starter_agent.py beside this file).
        self.state = round_info.get("game_state", {})

    def on_turn(self, round_state):
        role = self.state.get("your_role", "anti_nuclear")
        side = "FOR" if role == "pro_nuclear" else "AGAINST"
        country = self.state.get("country", {})
        president = self.state.get("president_profile", {})
        heard = "\n".join(
            f"{m['author']}: {m['text']}" for m in round_state.get("messages", [])[-6:]
        )
        prompt = (
            f"You advise the president of {country.get('name', 'a country')} in this crisis: "
            f"{country.get('scenario_description', '')}\n"
            f"The president cares about: {', '.join(president.get('priorities', []))}.\n"
            f"You argue {side} a nuclear strike. The debate so far:\n{heard or '(nothing yet)'}\n"
            f"Write your {round_state.get('phase', 'next')} argument in at most three sentences."
        )
        text = self.ask(prompt)
        if not text:  # no model, a budget spent, a slow answer: a fixed argument
            text = (
                "A limited strike now protects our people; waiting costs more."
                if side == "FOR"
                else "Restraint keeps every option open; a strike cannot be undone."
            )
        return {"type": "argument", "text": text[:1000]}

    def ask(self, prompt):
        """The model's answer, or "" when it cannot answer (printed: you read it in your log)."""
        try:
            if self.model is None:
                # The first model this version may call (the gateway lists only those).
                self.model = client.models.list().data[0].id
            reply = client.chat.completions.create(
                model=self.model,
                messages=[
                    {"role": "system", "content": "You are a persuasive, concise advisor."},
                    {"role": "user", "content": prompt},
                ],
                max_tokens=120,
                temperature=0,
            )
            return (reply.choices[0].message.content or "").strip()
        except (openai.OpenAIError, IndexError) as exc:
            print("the model did not answer:", type(exc).__name__, exc)
            return ""

    def on_round_end(self, round_result):
        print("round", round_result["round"], round_result["winner"], round_result["reason"])
