"""Language-model entrants (docs/llm-seats.md): the operator's model registry, the entrants that
play through them, and the ledger of every model call."""
