"""Model plumbing: chat models from "provider:model" strings, structured output, usage."""
