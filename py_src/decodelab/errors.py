"""Error types the page knows how to show."""


class InputError(ValueError):
    """A value the reader typed is not acceptable. `field` names the control it belongs to."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field
