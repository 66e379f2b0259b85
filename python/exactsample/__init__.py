"""Exact next-token sampling (docs/spec.md) on numpy arrays and torch tensors.

    import numpy as np, exactsample as xs
    rng = xs.stream(42)                                   # stream(seed, Purpose.SAMPLE)
    params = xs.SamplingParams(temperature=0.7, top_p=0.9)
    tok = xs.sample(logits, params, rng, prompt=[1, 2])   # logits: 1-D float32
    tok.id, tok.logprob, rng.draws_u32
    seq = xs.Sequence(len(logits), params, seed=42)   # one request, step to step
    seq.accept_prompt([1, 2]); tok = seq.sample(logits)

Every call gives the ids, logprob bits and generator positions of the C++
library, the `exactsample` program and tools/spec_sampler.py.
"""

try:
    import numpy  # noqa: F401  (the module reads every row through numpy)
except ImportError as e:
    raise ImportError(
        "exactsample needs numpy, which this Python cannot import: install it "
        "(Debian: apt install python3-numpy; in a virtual environment: pip install numpy, "
        "or make the environment with --system-site-packages to use Debian's)") from e

from ._exactsample import (
    BatchArrays,
    Constraints,
    Pcg32,
    Purpose,
    SampleError,
    SamplingParams,
    Sequence,
    TargetInfo,
    Token,
    Verified,
    __version__,
    compiled_targets,
    distribution,
    exp_choice,
    sample,
    sample_batch,
    stream,
    testing,
    validate,
    verify,
    verify_batch,
)

__all__ = [
    "BatchArrays",
    "Constraints",
    "Pcg32",
    "Purpose",
    "SampleError",
    "SamplingParams",
    "Sequence",
    "TargetInfo",
    "Token",
    "Verified",
    "__version__",
    "compiled_targets",
    "distribution",
    "exp_choice",
    "sample",
    "sample_batch",
    "stream",
    "testing",
    "validate",
    "verify",
    "verify_batch",
]
