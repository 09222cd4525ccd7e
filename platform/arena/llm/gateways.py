"""A code agent's model gateway in the worker: its owner's models and budgets, the platform's
metering (docs/llm-seats.md, "Code agents that call a model").

``agent_gateway`` is what ``matches.sandboxing`` gives a sandboxed handle: ``sandbox.ModelGateway``
over ``llm_seat.gateway.ClientBackend``, one ``AgentMeter`` a model (one ``Spend`` for the match
across them), the model time of the settings (per game where the operator says so).
"""

from __future__ import annotations

from django.conf import settings

from arena.llm.metering import AgentMeter, Spend, endpoint_for
from arena.llm.selectors import agent_callable_models, agent_model_policy_of
from arena.submissions.models import Submission
from llm_seat.gateway import ClientBackend, GatewayModel
from sandbox import ModelAllowance, ModelGateway


def agent_model_allowance(game: str) -> ModelAllowance:
    """The model time of a code agent in a match of ``game``, from the settings."""
    return ModelAllowance(
        per_turn_s=settings.ARENA_AGENT_MODEL_TURN_S_BY_GAME.get(
            game, settings.ARENA_AGENT_MODEL_TURN_S
        ),
        per_match_s=settings.ARENA_AGENT_MODEL_MATCH_S,
        calls_per_turn=settings.ARENA_AGENT_MODEL_CALLS_PER_TURN,
    )


def agent_gateway(
    submission: Submission, *, match_id: int | None, match_attempt: int = 0, seat: int = 0
) -> ModelGateway | None:
    """The gateway of one code agent in one match, or ``None`` when its owner allowed it no
    model (or the operator no longer lets agents call the ones allowed)."""
    policy = agent_model_policy_of(submission)
    if policy is None:
        return None
    models = agent_callable_models(policy)
    if not models:
        return None
    spend = Spend()
    backend = ClientBackend(
        [
            GatewayModel(
                name=model.name,
                endpoint=endpoint_for(model),
                default_max_tokens=model.default_max_tokens,
                max_tokens_cap=model.max_tokens_cap,
                hooks=AgentMeter(
                    model=model,
                    match_id=match_id,
                    match_attempt=match_attempt,
                    seat=seat,
                    submission_id=submission.pk,
                    cap_usd=float(policy.match_budget_usd),
                    cap_name="the agent's budget per match, set by its owner",
                    spend=spend,
                    owner_id=submission.agent.owner_id,
                    day_budget_usd=float(policy.day_budget_usd),
                ),
            )
            for model in models
        ],
        attempts=settings.ARENA_AGENT_MODEL_ATTEMPTS,
        max_response_bytes=settings.ARENA_LLM_MAX_RESPONSE_BYTES,
    )
    return ModelGateway(backend, allowance=agent_model_allowance(submission.agent.game))
