"""Register chat-model providers of your own: a company gateway, a test double.

`register_chat_model_provider("mine", factory)` makes "mine:<model>" specs resolve through
`factory`, ahead of `init_chat_model`'s providers (`loading` consults this registry).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


class ChatModelFactory(Protocol):
    """Makes a chat model for a registered provider."""

    def __call__(
        self, model: str, *, temperature: float, base_url: str | None, max_tokens: int | None
    ) -> BaseChatModel:
        """Return the chat model called `model`."""
        ...


_registered: dict[str, ChatModelFactory] = {}


def register_chat_model_provider(name: str, factory: ChatModelFactory) -> None:
    """Make `name:<model>` specs resolve through `factory`, ahead of the built-in providers."""
    _registered[name] = factory


def unregister_chat_model_provider(name: str) -> None:
    """Forget a provider registered with `register_chat_model_provider`."""
    _registered.pop(name, None)


def registered_provider(name: str) -> ChatModelFactory | None:
    """Return the factory registered under `name`, if any."""
    return _registered.get(name)
