"""``make run``'s default judge: the local model (SmolLM2-135M on llama-cpp-python, ``make
llm-server``) where it is installed, so the judged games can be played on one machine.

``arena_run`` asks ``local_model_argv`` for the server's command (``None`` when it is not
installed: the judged games then show "no judge"), supervises it like its other children, and
registers it with ``local_judge_register`` as the model every judged game uses, unless the
operator named judges (``ARENA_JUDGE_MODEL``, ``ARENA_JUDGES``).
"""

from __future__ import annotations

from django.conf import settings

from arena.llm.models import LanguageModel
from llm_seat import localserver

#: The registered name of the local model.
LOCAL_MODEL_NAME = "local-smollm2"


def local_model_argv(port: int) -> list[str] | None:
    """The command that serves the local model on 127.0.0.1:``port`` (``llm_seat.localserver``);
    ``None`` when the model server's venv (``ARENA_LLM_SERVER_PYTHON`` or
    ``~/.cache/agent-arena/llm-venv``) is absent."""
    return localserver.local_model_argv(port, settings.ARENA_LLM_SERVER_PYTHON or "")


def local_judge_register(*, base_url: str) -> LanguageModel:
    """Register (or point again) the local model at ``base_url``: free, no key, JSON through
    llama-cpp-python's ``json_object`` with a schema. When it is first registered, uploaded
    agents may call it too (README.md's example agent does, by this name): it costs nothing and
    runs on this machine. An operator who turns that off in the admin keeps the choice: a later
    ``make run`` points the model again and leaves ``agents_may_call`` as it is."""
    pointed = {
        "display_name": "SmolLM2-135M (local)",
        "base_url": base_url,
        "model_id": "smollm2",
        "api_key_env": "",
        "json_style": LanguageModel.JsonStyle.JSON_OBJECT,
        "enabled": True,
        "concurrency": 2,
        "requests_per_minute": 600,
    }
    model, _ = LanguageModel.objects.update_or_create(
        name=LOCAL_MODEL_NAME,
        defaults=pointed,
        create_defaults={**pointed, "agents_may_call": True},
    )
    return model


def local_judge_withdraw() -> str:
    """The local model keeps dying: disable it, so the judged games show "no judge" (the judge's
    model disabled) and matchmaking leaves them alone instead of failing match after match; the
    next ``make run`` registers it again. Says so in a sentence for the log."""
    LanguageModel.objects.filter(name=LOCAL_MODEL_NAME).update(enabled=False)
    return (
        f"{LOCAL_MODEL_NAME} is disabled, so the judged games show no judge until the next "
        "`make run` (reinstall it with `make llm-server`); everything else runs on"
    )
