"""Error types the page knows how to show."""


class InputError(ValueError):
    """A value the reader typed is not acceptable. `field` names the control it belongs to."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class ModelNotLoaded(InputError):
    """An endpoint needs a model the page has not loaded yet. The worker loads the draft model
    only when something first needs it (start-up stays short): it sees `model` in the error,
    loads that model and repeats the call once."""

    def __init__(self, model: str):
        super().__init__(f"the {model} model is not loaded", "model")
        self.model = model
