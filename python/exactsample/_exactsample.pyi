# Type stubs of the compiled module exactsample._exactsample.
import enum
from typing import Any, Callable, Iterable, Mapping, Optional, Union, overload
from typing import Sequence as SequenceOf

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

Bias = Optional[Mapping[Union[int, str], float]]

# A request's bias and masks (the constraints= of every sampling call),
# read and checked against V by the call that uses them.
class Constraints:
    logit_bias: Bias  # {id: bias}, keys ints or ids in canonical decimal
    allowed_token_ids: Ids  # an empty one allows nothing: an error
    banned_token_ids: Ids
    allowed_bitmask: Optional[ArrayLike]  # uint32 or int32 words, bit i % 32 of word i / 32
    def __init__(
        self,
        *,
        logit_bias: Bias = None,
        allowed_token_ids: Ids = None,
        banned_token_ids: Ids = None,
        allowed_bitmask: Optional[ArrayLike] = None,
    ) -> None: ...

# sample_batch's and verify_batch's: one for every row, or one per row.
BatchConstraints = Union[Constraints, SequenceOf[Optional[Constraints]], None]

class SamplingParams:
    temperature: float
    repetition_penalty: float
    presence_penalty: float
    frequency_penalty: float
    top_k: int
    top_p: float
    min_p: float
    top_logprobs: int
    penalty_last_n: int
    # The chain: "spec", "llama" or a list of step names (docs/llama-samplers.md).
    chain: Union[str, list[str]]
    min_keep: int
    top_n_sigma: float
    typical_p: float
    xtc_probability: float
    xtc_threshold: float
    dry_multiplier: float
    dry_base: float
    dry_allowed_length: int
    dry_penalty_last_n: int
    dynatemp_range: float
    dynatemp_exponent: float
    mirostat: int
    mirostat_tau: float
    mirostat_eta: float
    mirostat_m: int
    adaptive_target: float
    adaptive_decay: float
    # DRY's breakers: a list of id lists, each 1 to 21 ids.
    dry_sequence_breakers: list[list[int]]
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
        penalty_last_n: int = 0,
        chain: Union[str, SequenceOf[str]] = "spec",
        min_keep: int = 0,
        top_n_sigma: float = 0.0,
        typical_p: float = 1.0,
        xtc_probability: float = 0.0,
        xtc_threshold: float = 0.1,
        dry_multiplier: float = 0.0,
        dry_base: float = 1.75,
        dry_allowed_length: int = 2,
        dry_penalty_last_n: int = 64,
        dynatemp_range: float = 0.0,
        dynatemp_exponent: float = 1.0,
        mirostat: int = 0,
        mirostat_tau: float = 5.0,
        mirostat_eta: float = 0.1,
        mirostat_m: int = 100,
        adaptive_target: float = -1.0,
        adaptive_decay: float = 0.9,
        dry_sequence_breakers: SequenceOf[SequenceOf[int]] = (),
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
    @property
    def rank(self) -> Optional[int]: ...  # with rank=True; else None

# sample_batch(..., output="numpy" or "torch"): row i of each array is row
# i's token (numpy arrays, or torch tensors on their memory).
class BatchArrays:
    @property
    def ids(self) -> Any: ...  # int32 (rows,), -1 for a bad row
    @property
    def logprobs(self) -> Any: ...  # float64 (rows,)
    @property
    def processed_logprobs(self) -> Any: ...  # float64 (rows,)
    @property
    def ranks(self) -> Any: ...  # int64 (rows,) with rank=True, else None
    @property
    def top_ids(self) -> Any: ...  # int32 (rows, N), -1 padding
    @property
    def top_logprobs(self) -> Any: ...  # float64 (rows, N), -inf padding
    @property
    def status(self) -> Any: ...  # int8 (rows,): 0, or the C ABI's error code
    @property
    def errors(self) -> dict[int, SampleError]: ...  # the rows that failed

# What sample_batch (of rows or of sequences) returns: Token or SampleError
# per row (output="tokens"), or the arrays (output="numpy" or "torch").
BatchResults = Union[list[Union[Token, SampleError]], BatchArrays]

class TargetInfo:
    @property
    def name(self) -> str: ...
    @property
    def supported(self) -> bool: ...
    @property
    def active(self) -> bool: ...
    @property
    def exp(self) -> str: ...

def compiled_targets() -> list[TargetInfo]: ...
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
    rank: bool = False,
    constraints: Optional[Constraints] = None,
    dtype: Optional[str] = None,
) -> Token: ...
def validate(
    logits: ArrayLike,
    params: Optional[SamplingParams],
    *,
    prompt: Ids = None,
    generated: Ids = None,
    constraints: Optional[Constraints] = None,
    dtype: Optional[str] = None,
) -> None: ...
@overload
def sample_batch(
    rows: ArrayLike,
    params: Union[SamplingParams, SequenceOf[Optional[SamplingParams]], None],
    rngs: SequenceOf[Pcg32],
    *,
    prompts: Optional[SequenceOf[Ids]] = None,
    generated: Optional[SequenceOf[Ids]] = None,
    threads: int = 0,
    engine: str = "fast",
    logprob: bool = True,
    rank: bool = False,
    output: str = "tokens",
    constraints: BatchConstraints = None,
    dtype: Optional[str] = None,
) -> BatchResults: ...


# One request followed from step to step (docs/sequence.md). Used by one
# thread at a time: a call that finds it in use raises RuntimeError.
class Sequence:
    def __init__(
        self,
        vocab: int,
        params: Optional[SamplingParams] = None,
        *,
        seed: Optional[int] = None,
        rng: Optional[Pcg32] = None,
        constraints: Optional[Constraints] = None,
    ) -> None: ...
    def sample(
        self,
        logits: ArrayLike,
        *,
        params: Optional[SamplingParams] = None,
        engine: str = "fast",
        logprob: bool = True,
        rank: bool = False,
        constraints: Optional[Constraints] = None,
        dtype: Optional[str] = None,
    ) -> Token: ...
    sample_only = sample  # the same arguments; the token is not appended
    def accept(self, id: int) -> None: ...
    def accept_prompt(self, ids: Iterable[int]) -> None: ...
    def reset(self) -> None: ...
    def truncate(self, length: int) -> None: ...
    def verify(
        self,
        target_rows: ArrayLike,  # (gamma + 1) x V float32
        draft_rows: Optional[ArrayLike],  # gamma x V float32; None for a greedy target
        draft_ids: Iterable[int],
        *,
        draft_params: Optional[SamplingParams] = None,
        engine: str = "fast",
    ) -> Verified: ...
    def clone(self) -> Sequence: ...
    def __copy__(self) -> Sequence: ...
    def __deepcopy__(self, memo: Any) -> Sequence: ...
    def snapshot(self) -> bytes: ...
    @staticmethod
    def restore(snapshot: Union[bytes, bytearray, memoryview]) -> Sequence: ...
    @property
    def vocab(self) -> int: ...
    @property
    def params(self) -> SamplingParams: ...
    @property
    def prompt(self) -> Any: ...  # a new numpy int32 array
    @property
    def generated(self) -> Any: ...  # a new numpy int32 array
    @property
    def rng(self) -> Pcg32: ...
    @rng.setter
    def rng(self, rng: Pcg32) -> None: ...

@overload
def sample_batch(
    sequences: SequenceOf[Sequence],
    rows: ArrayLike,
    *,
    params: Union[SamplingParams, SequenceOf[Optional[SamplingParams]], None] = None,
    threads: int = 0,
    engine: str = "fast",
    logprob: bool = True,
    rank: bool = False,
    output: str = "tokens",
    accept: bool = True,
    dtype: Optional[str] = None,
) -> BatchResults: ...

# Speculative decoding, exact (docs/speculative.md).
class Verified:
    @property
    def tokens(self) -> list[Token]: ...  # accepted + 1, each with its target row's logprobs
    @property
    def ids(self) -> list[int]: ...
    @property
    def logprobs(self) -> list[float]: ...
    @property
    def accepted(self) -> int: ...
    @property
    def draws(self) -> int: ...  # uniform_f64 draws (2 next_u32 each)

def distribution(
    logits: ArrayLike,
    params: Optional[SamplingParams],
    *,
    prompt: Ids = None,
    generated: Ids = None,
    engine: str = "fast",
    constraints: Optional[Constraints] = None,
) -> tuple[list[int], list[float]]: ...
def verify(
    target_rows: ArrayLike,  # (gamma + 1) x V float32
    draft_rows: Optional[ArrayLike],  # gamma x V float32; None for a greedy target
    draft_ids: Iterable[int],
    params: Optional[SamplingParams],
    rng: Pcg32,
    *,
    draft_params: Optional[SamplingParams] = None,
    prompt: Ids = None,
    generated: Ids = None,
    engine: str = "fast",
    threads: int = 1,
    constraints: Optional[Constraints] = None,
) -> Verified: ...
def verify_batch(
    target_rows: SequenceOf[ArrayLike],
    draft_rows: SequenceOf[Optional[ArrayLike]],
    draft_ids: SequenceOf[Iterable[int]],
    params: Union[SamplingParams, SequenceOf[Optional[SamplingParams]], None],
    rngs: SequenceOf[Pcg32],
    *,
    draft_params: Union[SamplingParams, SequenceOf[Optional[SamplingParams]], None] = None,
    prompts: Optional[SequenceOf[Ids]] = None,
    generated: Optional[SequenceOf[Ids]] = None,
    engine: str = "fast",
    threads: int = 0,
    constraints: BatchConstraints = None,
) -> list[Union[Verified, SampleError]]: ...

class testing:
    @staticmethod
    def force_target(name: str) -> None: ...
    @staticmethod
    def on_next_call(fn: Optional[Callable[[], Any]]) -> None: ...
    class Probe:
        def __init__(self, seed: int) -> None: ...
        def sample_ns(self, row: ArrayLike) -> int: ...
    class SequenceProbe:
        def __init__(self, vocab: int, seed: int) -> None: ...
        def sample_ns(self, row: ArrayLike) -> int: ...
    class BatchProbe:
        def __init__(self, rows: int, seed: int) -> None: ...
        def sample_ns(self, rows: ArrayLike, threads: int) -> int: ...
