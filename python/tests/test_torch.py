"""torch CPU tensors are read in place; skipped when torch is not installed
(Debian's python3-torch is optional: cmake/install_deps.sh installs it with
EXACTSAMPLE_WITH_TORCH=1)."""

import numpy as np
import pytest

import exactsample as xs

torch = pytest.importorskip("torch")

V = 4000


def tensor(seed=1):
    return torch.from_numpy(np.random.default_rng(seed).normal(0.0, 2.0, V).astype(np.float32))


def test_tensor_is_read_in_place():
    t = tensor()
    assert xs._exactsample._read_address(t) == t.data_ptr()
    params = xs.SamplingParams(top_p=0.9)
    assert xs.sample(t, params, xs.stream(3)) == xs.sample(t.numpy(), params, xs.stream(3))
    greedy = xs.SamplingParams(temperature=0)
    first = xs.sample(t, greedy, xs.stream(1)).id
    t[(first + 1) % V] = 100.0
    assert xs.sample(t, greedy, xs.stream(1)).id == (first + 1) % V


def test_strided_and_batched_tensors():
    block = torch.stack([tensor(1), tensor(2)])
    assert xs._exactsample._read_address(block, 2) == block.data_ptr()
    params = xs.SamplingParams(temperature=0.8)
    want = [xs.sample(block[i].contiguous(), params, xs.stream(i)) for i in range(2)]
    assert xs.sample_batch(block, params, [xs.stream(0), xs.stream(1)]) == want
    view = block.t()[:, 0]  # strided: every other float
    assert xs.sample(view, params, xs.stream(0)) == want[0]


def test_half_and_bfloat16_tensors_equal_their_float_rows():
    # float16 as it is; bfloat16 (no numpy dtype) as its bits with dtype="bf16".
    params = xs.SamplingParams(temperature=0.8, top_logprobs=5)
    for t, kw in ((tensor().half(), {}), (tensor().bfloat16().view(torch.int16), {"dtype": "bf16"})):
        a, b = xs.stream(4), xs.stream(4)
        widened = (t.view(torch.bfloat16) if kw else t).float()
        assert xs.sample(t, params, a, **kw) == xs.sample(widened, params, b)
        assert a == b
        assert xs._exactsample._read_address(t, **kw) == t.data_ptr()


def test_bad_tensors():
    for bad, words in ((tensor().double(), "float64"),
                       (tensor().bfloat16().view(torch.int16), "dtype='bf16'"),
                       (tensor().requires_grad_(), "detached")):
        with pytest.raises(xs.SampleError, match=words) as e:
            xs.sample(bad, None, xs.stream(1))
        assert e.value.field == "logits"
