"""The critic's verifiers: deterministic checks (`checks/`) and the LLM judge (`judge`)."""
