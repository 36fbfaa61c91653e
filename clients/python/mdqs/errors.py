"""The one exception the client raises."""

from typing import Any, Optional


class MdqsError(Exception):
    """A failed call: HTTP ``status`` (0 for a transport failure), the
    envelope's ``message`` (the specification's text, e.g. ``unauthorized``)
    and ``detail`` (what exactly was wrong). ``retry_after`` is the server's
    ``Retry-After`` in seconds when it sent one; ``body`` the parsed answer."""

    def __init__(self, status: int, message: str, detail: str = "",
                 retry_after: Optional[float] = None, body: Any = None) -> None:
        self.status = status
        self.message = message
        self.detail = detail
        self.retry_after = retry_after
        self.body = body
        text = f"{status} {message}" if status else message
        if detail:
            text += f": {detail}"
        super().__init__(text)
