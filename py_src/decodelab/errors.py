"""Error types the page knows how to show.

An error the reader should read carries a message *key* and its arguments, never an English
sentence: the page renders web/i18n/LANG.txt's entry "err.KEY" in the reader's language, with the
numbers formatted the way that language writes them. A test checks that every key raised here has
an entry in every language.
"""


class InputError(ValueError):
    """A value the reader typed is not acceptable. `key` names the message (err.KEY), `field` the
    control it belongs to, and the keyword arguments fill the message's {names}. An argument may
    itself be an error's payload() (a message inside a message: "column 2: …")."""

    def __init__(self, key: str, field: str | None = None, **args):
        super().__init__(key)
        self.key = key
        self.field = field
        self.args_ = args

    def __str__(self) -> str:  # for logs and test failures; the page renders the key itself
        return self.key + (f" {self.args_}" if self.args_ else "")

    def payload(self) -> dict:
        return {"key": "err." + self.key, "args": self.args_}  # a full text key, as i18n.js takes it


class ModelNotLoaded(InputError):
    """An endpoint needs a model the page has not loaded yet. The worker loads the draft model
    only when something first needs it (start-up stays short): it sees `model` in the error,
    loads that model and repeats the call once."""

    def __init__(self, model: str):
        super().__init__("model_not_loaded", "model", model={"key": f"model.name.{model}", "args": {}})
        self.model = model
