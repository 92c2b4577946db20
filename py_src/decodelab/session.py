"""The worker's state, owned in one place, and the registry of the page's endpoints.

Everything that lives longer than one call sits on the one `Session`: the kernel, the loaded
models, the bit-depth widget's private copy of the main model, the speed race's engines, the
panel's cached logits and the speculative decoder. Endpoints (ch1, ch2, ch3, perf) reach it only
through `session()`, and `api.dispatch` is the only caller of endpoints, so a widget's data
path is: widget -> worker message -> api.dispatch -> endpoint -> session's engine -> kernel.

Engines are shared between widgets, one call at a time: an endpoint that runs a model starts
from `Engine.reset()` (or `generate`, which resets), never from what an earlier call left in
the cache. The panel keeps its logits in a buffer of its own (PanelCache), so other widgets
cannot disturb them.

Imports: this module imports no chapter and not `api`; chapters import it; `api` imports the
chapters. tests/test_structure.py checks that py_src has no import cycle.
"""
from __future__ import annotations

from dataclasses import dataclass, field

ENDPOINTS: dict = {}


def endpoint(fn):
    """Register fn as a page endpoint under its own name."""
    if fn.__name__ in ENDPOINTS:
        raise ValueError(f"two endpoints named {fn.__name__}")
    ENDPOINTS[fn.__name__] = fn
    return fn


@dataclass
class PanelCache:
    """The control panel's state between slider moves, three levels deep:
    the logits after a prompt (key: the token ids), the logits sorted once per prompt and
    penalty (order_key), and the rank plot per temperature (plot_key)."""
    kept: object              # the engine's KeptLogits: the prompt's logits in a buffer of their own
    key: tuple | None = None
    order_key: tuple | None = None
    sorted_ptr: int = 0
    plot_key: tuple | None = None
    plot: dict = field(default_factory=dict)


class Session:
    def __init__(self):
        self._kernel = None
        self.engines: dict = {}        # name -> Engine ("main", "draft")
        self._bits = None              # the bit-depth widget's copy of the main model
        self._speed: dict = {}         # speed-race kernel variant -> Engine
        self._panel: PanelCache | None = None
        self._spec = None              # SpecDecoder over main and draft
        self.lend_bits = False         # chapter 1's playground writes with the bit-depth copy (ch2_lend)

    def kernel(self):
        from .kernel import Kernel

        if self._kernel is None:
            self._kernel = Kernel.open()
        return self._kernel

    def load_model(self, name: str, path) -> object:
        from .engine import Engine

        e = Engine.from_file(self.kernel(), path)
        self.engines[name] = e
        # anything made from the old model is stale now
        if name == "main":
            self._bits, self._speed, self._panel = None, {}, None
            self.lend_bits = False
        self._spec = None
        return e

    def engine(self, name: str = "main"):
        e = self.engines.get(name)
        if e is None:
            from .errors import ModelNotLoaded

            raise ModelNotLoaded(name)
        return e

    def bits_engine(self):
        """The bit-depth widget's own copy of the main model, so re-quantizing it leaves every
        other widget on the shipped 8-bit weights."""
        if self._bits is None:
            self._bits = self.engine().twin("main (bit-depth copy)")
        return self._bits

    def playground_engine(self):
        """The model chapter 1's playground writes with: the main one, or the bit-depth copy
        while chapter 2 lends it (every other widget keeps the main model)."""
        return self.bits_engine() if self.lend_bits else self.engine()

    def speed_engine(self, variant: str):
        """The main model on one of the speed race's kernels ("main" is the page's own)."""
        from .engine import Engine
        from .kernel import Kernel

        if variant == "main":
            return self.engine()
        e = self._speed.get(variant)
        if e is None:
            main = self.engine()
            e = self._speed[variant] = Engine(Kernel.open(variant=variant), main.bundle.raw, f"main ({variant})")
        return e

    def panel(self) -> PanelCache:
        if self._panel is None:
            self._panel = PanelCache(self.engine().kept_logits())
        return self._panel

    def spec_decoder(self):
        from .specdecode import SpecDecoder

        if self._spec is None:
            self._spec = SpecDecoder(self.engine("main"), self.engine("draft"))
        return self._spec


_SESSION = Session()


def session() -> Session:
    return _SESSION
