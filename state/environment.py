"""Read `CRITIC_LOOP_*` environment variables once per distinct environment, not per Context.

pydantic-settings inspects every field's type on every `Context(...)`, about 2 ms each,
and LangGraph builds a `Context` from the caller's `context={...}` on every invocation.
`EnvironmentOnce` wraps the environment source and reuses what it read while the
variables with the prefix are unchanged, so a change to them is still seen at once.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from pydantic.fields import FieldInfo
from pydantic_settings import PydanticBaseSettingsSource
from pydantic_settings.sources import EnvSettingsSource


class EnvironmentOnce(PydanticBaseSettingsSource):
    """The environment source, read again only when the prefixed variables change."""

    _read: ClassVar[dict[tuple[type[Any], tuple[tuple[str, str], ...]], dict[str, Any]]] = {}

    def __init__(self, source: EnvSettingsSource) -> None:
        """Wrap `source`, the settings class's own environment source."""
        super().__init__(source.settings_cls)
        self.source = source

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        """Delegate to the wrapped source (unused: `__call__` reads every field at once)."""
        return self.source.get_field_value(field, field_name)

    def _snapshot(self) -> tuple[tuple[str, str], ...]:
        prefix = (self.source.env_prefix or "").lower()
        named = (item for item in os.environ.items() if item[0].lower().startswith(prefix))
        return tuple(sorted(named))

    def __call__(self) -> dict[str, Any]:
        """Return the fields set in the environment (a fresh dict each time)."""
        key = (self.settings_cls, self._snapshot())
        read = self._read.get(key)
        if read is None:
            read = self.source()
            if len(self._read) >= 64:
                self._read.clear()
            self._read[key] = read
        return dict(read)
