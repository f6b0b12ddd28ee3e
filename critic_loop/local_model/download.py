"""Download a model file once: resumable (into `<file>.part`), under a lock, with progress.

Only a file whose sha256 matches is renamed into place.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import http.client
import logging
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

logger = logging.getLogger(__name__)

Progress = Callable[[int, int | None], None]  # told the bytes so far and the size, if known
CHUNK = 1 << 20


class DownloadFailed(RuntimeError):
    """The model file could not be downloaded whole and intact; the message says why."""


@contextlib.contextmanager
def _held(lock_path: Path) -> Iterator[None]:
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _open(url: str, start: int, timeout: float) -> http.client.HTTPResponse | None:
    # None when the server says the range is past the end
    headers = {"Range": f"bytes={start}-"} if start else {}
    request = urllib.request.Request(url, headers=headers)
    try:
        reply: http.client.HTTPResponse = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        if error.code == 416 and start:  # nothing after `start`: the part may be whole
            return None
        problem = f"HTTP {error.code} {error.reason}"
        raise DownloadFailed(f"downloading {url} failed: {problem}") from None
    except (OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        raise DownloadFailed(f"downloading {url} failed: {reason}") from None
    return reply


def _fetch(url: str, part: Path, progress: Progress | None, timeout: float) -> None:
    have = part.stat().st_size if part.exists() else 0
    reply = _open(url, have, timeout)
    if reply is None:
        return
    with reply:
        if have and reply.status != 206:  # the server ignored the range: start again
            logger.info("%s does not resume downloads; starting again", url)
            have = 0
        length = reply.headers.get("Content-Length")
        total = have + int(length) if length is not None else None
        done = have
        with part.open("ab" if have else "wb") as out:
            if progress is not None:
                progress(done, total)
            while True:
                try:
                    block = reply.read(CHUNK)
                except (http.client.IncompleteRead, OSError) as error:
                    raise DownloadFailed(
                        f"downloading {url} stopped after {done} bytes ({error}); run the "
                        "command again to resume"
                    ) from None
                if not block:
                    break
                out.write(block)
                done += len(block)
                if progress is not None:
                    progress(done, total)
    if total is not None and done < total:
        raise DownloadFailed(
            f"downloading {url} stopped after {done} of {total} bytes; run the command again "
            "to resume"
        )


def download(
    url: str,
    destination: Path,
    sha256: str,
    progress: Progress | None = None,
    timeout: float = 60.0,
) -> Path:
    """Download `url` to `destination` once, resuming a partial download; return the path.

    Raises:
        DownloadFailed: the server could not be reached, the download stopped part-way (run
            again to resume), or the file's sha256 is not `sha256` (the bad file is removed).
    """
    part = destination.with_name(destination.name + ".part")
    with _held(destination.with_name(destination.name + ".lock")):
        if destination.is_file():
            return destination
        _fetch(url, part, progress, timeout)
        with part.open("rb") as stream:
            found = hashlib.file_digest(stream, "sha256").hexdigest()
        if found != sha256.lower():
            part.unlink()
            raise DownloadFailed(
                f"the file downloaded from {url} is not the expected one (sha256 {found}, "
                f"expected {sha256}); it was removed"
            )
        part.replace(destination)
    return destination
