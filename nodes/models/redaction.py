"""Credentials in a URL, hidden wherever one is shown: errors, state, events, log lines."""

from __future__ import annotations

import logging
import re

USER_INFO = re.compile(r"(?<=://)[^/@\s'\"]+@")
SECRET_VALUE = re.compile(r"(?i)([?&][\w.-]*(?:key|token|secret|password|sig)[\w.-]*=)[^&#\s'\"]+")


def redacted(text: str) -> str:
    """Return `text` with every URL's user-info and secret-looking query values as `***`."""
    return SECRET_VALUE.sub(r"\1***", USER_INFO.sub("***@", text))


class RedactedRecords(logging.Filter):
    """A logger filter that redacts each record's message (HTTP clients name the URL)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the record's message (formatted now); keep the record."""
        record.msg, record.args = redacted(record.getMessage()), None
        return True


for _client in ("httpx", "httpx2", "httpcore", "openai"):  # the model clients' request lines
    logging.getLogger(_client).addFilter(RedactedRecords())
