"""Registered models, model entrants (a ``Submission`` with its model config) and the ledger."""

from __future__ import annotations

from decimal import Decimal

from django.db import models

from arena.submissions.models import Submission


class LanguageModel(models.Model):
    """A model the operator offers, at an OpenAI-compatible endpoint.

    The key is never stored: ``api_key_env`` names the environment variable of the worker that
    holds it (empty for a local server that takes none).
    """

    name = models.SlugField(max_length=64, unique=True, help_text="what users pick: llm:<name>")
    display_name = models.CharField(max_length=100)
    base_url = models.URLField(max_length=500, help_text="e.g. https://api.openai.com/v1")
    model_id = models.CharField(max_length=200, help_text="the model name the endpoint expects")
    api_key_env = models.CharField(
        max_length=100,
        blank=True,
        help_text="NAME of the environment variable holding the key (never the key itself)",
    )

    class JsonStyle(models.TextChoices):
        JSON_SCHEMA = "json_schema", "json_schema (OpenAI and most providers)"
        JSON_OBJECT = "json_object", "json_object with a schema (llama-cpp-python's server)"

    #: How an entrant with JSON output on asks for it.
    json_style = models.CharField(
        max_length=16, choices=JsonStyle.choices, default=JsonStyle.JSON_SCHEMA
    )
    default_temperature = models.FloatField(null=True, blank=True)
    default_top_p = models.FloatField(null=True, blank=True)
    default_max_tokens = models.PositiveIntegerField(default=256)
    #: The most ``max_tokens`` an entrant may ask for (the per-call cap).
    max_tokens_cap = models.PositiveIntegerField(default=1024)
    price_input_per_mtok_usd = models.DecimalField(
        max_digits=12, decimal_places=4, default=Decimal(0)
    )
    price_output_per_mtok_usd = models.DecimalField(
        max_digits=12, decimal_places=4, default=Decimal(0)
    )
    #: Calls in flight at once across every worker (Redis), and calls per minute.
    concurrency = models.PositiveIntegerField(default=4)
    requests_per_minute = models.PositiveIntegerField(default=60)
    enabled = models.BooleanField(default=True)
    #: Whether code agents may call this model through the sandbox's gateway (their owner pays).
    agents_may_call = models.BooleanField(
        default=False,
        help_text="code agents may call this model through the sandbox's gateway (owners pay)",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.display_name or self.name


class ModelEntrantConfig(models.Model):
    """What makes a submission a model entrant; immutable like the submission it belongs to.

    The submission's ``source`` holds this config as canonical JSON and ``sha256`` hashes it.
    """

    submission = models.OneToOneField(
        Submission, on_delete=models.CASCADE, related_name="model_entrant"
    )
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="entrants")
    system_prompt_addition = models.TextField(blank=True)
    temperature = models.FloatField(null=True, blank=True)
    top_p = models.FloatField(null=True, blank=True)
    max_tokens = models.PositiveIntegerField()
    json_output = models.BooleanField(default=True)
    #: Why the entrant was taken off its ladder by a cost cap (shown on its page); empty: not.
    paused_reason = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"{self.submission} on {self.model.name}"


class AgentModelPolicy(models.Model):
    """Which models a code agent's version may call through its sandbox's gateway, and what its
    owner lets it spend (docs/llm-seats.md, "Code agents that call a model"). Not part of the
    immutable code: the owner changes it at any time, the next match reads it."""

    submission = models.OneToOneField(
        Submission, on_delete=models.CASCADE, related_name="agent_model_policy"
    )
    #: The models it may call (each one the operator allows agents to call); the first by name
    #: is the default when a request names none.
    allowed_models = models.ManyToManyField(
        LanguageModel, related_name="agent_policies", blank=True
    )
    #: What one match's calls may cost (USD); calls past it get HTTP 429.
    match_budget_usd = models.DecimalField(max_digits=10, decimal_places=4, default=Decimal(0))
    #: What this version's calls may cost in one UTC day, every match together (USD).
    day_budget_usd = models.DecimalField(max_digits=10, decimal_places=4, default=Decimal(0))
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "agent model policies"

    def __str__(self) -> str:
        return f"models of {self.submission}"


class AgentModelHold(models.Model):
    """What one of a code agent's model calls may cost at most, held against its owner's budgets
    while the call is in flight (``arena.llm.metering.AgentMeter.reserve``): the budgets count
    the ledger plus the holds, so calls made at the same moment by several matches never spend
    past a cap. Settling the call writes its ledger row and deletes the hold in one transaction;
    a hold left by a worker that died is ignored once ``expires`` has passed."""

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="agent_model_holds"
    )
    amount_usd = models.DecimalField(max_digits=14, decimal_places=8)
    expires = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.amount_usd} USD held for {self.submission}"


class ModelCall(models.Model):
    """One call to a model: the ledger. Who made it is its ``purpose``; the prompt and answer of
    a seat's or an agent's call are that submission's owner's."""

    class Purpose(models.TextChoices):
        """Who asked, and so who pays and who may read the call."""

        #: A model entrant's move (the entrant's owner pays; docs/llm-seats.md).
        SEAT = "seat", "model seat"
        #: A judged game's role (athlete, president, keeper): the site pays, no submission.
        JUDGE = "judge", "game judge"
        #: A code agent's call through the sandbox's model gateway (the agent's owner pays).
        AGENT = "agent", "agent's own call"

    #: The match (an id, not a key: this app sits below ``matches``).
    match_id = models.BigIntegerField(db_index=True)
    match_attempt = models.PositiveIntegerField(default=0)
    purpose = models.CharField(max_length=8, choices=Purpose.choices, default=Purpose.SEAT)
    #: The seat the call was made for (a judge's calls: the seat it was asked about, or 0).
    seat = models.PositiveSmallIntegerField()
    #: The submission that made the call and pays for it; empty for the site's own (a judge).
    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="model_calls", null=True, blank=True
    )
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="calls")
    round = models.IntegerField(default=0)
    turn = models.IntegerField(null=True, blank=True)
    attempt = models.PositiveSmallIntegerField(default=0)
    #: answered | timeout | too_large | provider_error
    outcome = models.CharField(max_length=16)
    messages = models.JSONField(default=list)
    text = models.TextField(blank=True)
    reasoning = models.TextField(blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    reasoning_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0.0)
    cost_usd = models.DecimalField(max_digits=14, decimal_places=8, default=Decimal(0))
    request_id = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["match_id", "pk"]
        indexes = [models.Index(fields=["submission", "created"], name="modelcall_entrant_day")]

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.seat}: {self.outcome}"
