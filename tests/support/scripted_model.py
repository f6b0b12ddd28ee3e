"""A chat model that answers from a script and records every prompt it receives."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from tests.support.verdicts import quote_the_artifact

Reply = str | dict[str, Any] | AIMessage | Exception | Callable[[list[BaseMessage]], Any]
"""A scripted reply: text, a structured answer (sent as a tool call), a message, an error,
or a function of the prompt returning one of those."""


class ScriptedChatModel(BaseChatModel):
    """Returns `replies` in order; a dict reply becomes a call of the bound tool.

    It implements `bind_tools`, so LangChain's own `with_structured_output` (function
    calling, include_raw parsing) runs on top of it unchanged.
    """

    replies: list[Any] = Field(default_factory=list)
    prompts: list[list[BaseMessage]] = Field(default_factory=list)
    position: int = 0
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> int:
        return len(self.prompts)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:  # parallel candidates call from several threads
            self.prompts.append(list(messages))
            if self.position >= len(self.replies):
                raise AssertionError(f"script exhausted after {self.position} replies")
            reply = self.replies[self.position]
            self.position += 1
        if callable(reply) and not isinstance(reply, AIMessage):
            reply = reply(messages)  # a reply that depends on what was asked
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, dict):
            reply = quote_the_artifact(reply, "\n".join(m.text for m in messages))
            tools = kwargs.get("tools") or []
            name = tools[0]["function"]["name"] if tools else "verdict"
            message = AIMessage(
                content="",
                tool_calls=[{"name": name, "args": reply, "id": f"call_{self.position}"}],
            )
        elif isinstance(reply, str):
            message = AIMessage(content=reply)
        else:
            message = reply
        return ChatResult(generations=[ChatGeneration(message=message)])

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any]],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[Any, AIMessage]:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def texts(self) -> list[str]:
        """Every prompt's messages joined into one string per call."""
        return ["\n".join(m.text for m in prompt) for prompt in self.prompts]
