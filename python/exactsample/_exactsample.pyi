# Type stubs of the compiled module exactsample._exactsample.
import enum
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

__version__: str

# A 1-D (sample) or 2-D (sample_batch) float32 array: a numpy array, a torch
# CPU tensor, or any object with the buffer protocol or __array__.
ArrayLike = Any
Ids = Optional[Iterable[int]]

class SampleError(ValueError):
    field: Optional[str]  # "temperature", "logits", "prompt", ...
    code: Optional[str]  # invalid_parameter, invalid_logits, invalid_ids, degenerate, out_of_memory

class Purpose(enum.IntEnum):
    INIT = 1
    DROPOUT = 2
    SHUFFLE = 3
    SAMPLE = 4
    MUTATION = 5

class Pcg32:
    @staticmethod
    def from_state(state: int, inc: int, draws_u32: int) -> Pcg32: ...
    @staticmethod
    def seeded(initstate: int, seq: int = 54) -> Pcg32: ...
    def next_u32(self) -> int: ...
    def uniform_f64(self) -> float: ...
    def advance(self, n: int) -> None: ...
    @property
    def state(self) -> int: ...
    @property
    def inc(self) -> int: ...
    @property
    def draws_u32(self) -> int: ...
    def copy(self) -> Pcg32: ...
    def __copy__(self) -> Pcg32: ...
    def __deepcopy__(self, memo: Any) -> Pcg32: ...

def stream(seed: int, purpose: Union[Purpose, int] = Purpose.SAMPLE) -> Pcg32: ...

class SamplingParams:
    temperature: float
    repetition_penalty: float
    presence_penalty: float
    frequency_penalty: float
    top_k: int
    top_p: float
    min_p: float
    top_logprobs: int
    def __init__(
        self,
        *,
        temperature: float = 1.0,
        repetition_penalty: float = 1.0,
        presence_penalty: float = 0.0,
        frequency_penalty: float = 0.0,
        top_k: int = 0,
        top_p: float = 1.0,
        min_p: float = 0.0,
        top_logprobs: int = 0,
    ) -> None: ...

class Token:
    @property
    def id(self) -> int: ...
    @property
    def logprob(self) -> float: ...
    @property
    def processed_logprob(self) -> float: ...
    @property
    def top_logprobs(self) -> list[tuple[int, float]]: ...

class TargetInfo:
    @property
    def name(self) -> str: ...
    @property
    def supported(self) -> bool: ...
    @property
    def active(self) -> bool: ...
    @property
    def exp(self) -> str: ...

def targets() -> list[TargetInfo]: ...
def exp_choice() -> str: ...
def sample(
    logits: ArrayLike,
    params: Optional[SamplingParams],
    rng: Pcg32,
    *,
    prompt: Ids = None,
    generated: Ids = None,
    engine: str = "fast",
    logprob: bool = True,
    logit_bias: Optional[Mapping[Union[int, str], float]] = None,
    allowed_token_ids: Ids = None,
    banned_token_ids: Ids = None,
    allowed_bitmask: Optional[ArrayLike] = None,
    dtype: Optional[str] = None,
) -> Token: ...
def validate(
    logits: ArrayLike,
    params: Optional[SamplingParams],
    *,
    prompt: Ids = None,
    generated: Ids = None,
    logit_bias: Optional[Mapping[Union[int, str], float]] = None,
    allowed_token_ids: Ids = None,
    banned_token_ids: Ids = None,
    allowed_bitmask: Optional[ArrayLike] = None,
    dtype: Optional[str] = None,
) -> None: ...
def sample_batch(
    rows: ArrayLike,
    params: Union[SamplingParams, Sequence[Optional[SamplingParams]], None],
    rngs: Sequence[Pcg32],
    *,
    prompts: Optional[Sequence[Ids]] = None,
    generated: Optional[Sequence[Ids]] = None,
    threads: int = 0,
    engine: str = "fast",
    logprob: bool = True,
    logit_bias: Union[Mapping[Union[int, str], float], Sequence[Optional[Mapping[Union[int, str], float]]], None] = None,
    allowed_token_ids: Optional[Sequence[Ids]] = None,
    banned_token_ids: Optional[Sequence[Ids]] = None,
    allowed_bitmask: Optional[Sequence[Optional[ArrayLike]]] = None,
    dtype: Optional[str] = None,
) -> list[Union[Token, SampleError]]: ...

class testing:
    @staticmethod
    def force_target(name: str) -> None: ...
    @staticmethod
    def on_next_call(fn: Optional[Callable[[], Any]]) -> None: ...
