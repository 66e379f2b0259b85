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
                       (tensor().bfloat16().view(torch.int16), "dtype='bf16'")):
        with pytest.raises(xs.SampleError, match=words) as e:
            xs.sample(bad, None, xs.stream(1))
        assert e.value.field == "logits"


def test_bfloat16_tensor_directly():
    params = xs.SamplingParams(temperature=0.8, top_logprobs=5)
    t = tensor().bfloat16()
    for seed in range(10):
        a, b = xs.stream(seed), xs.stream(seed)
        assert xs.sample(t, params, a) == xs.sample(t.float(), params, b)
        assert a == b
    assert xs._exactsample._read_address(t) == t.data_ptr()  # in place
    block = torch.stack([tensor(1), tensor(2)]).bfloat16()
    want = [xs.sample(block[i].float(), params, xs.stream(i)) for i in range(2)]
    assert xs.sample_batch(block, params, [xs.stream(0), xs.stream(1)]) == want
    with pytest.raises(xs.SampleError, match="for a bfloat16 tensor") as e:
        xs.sample(t, params, xs.stream(0), dtype="f16")
    assert e.value.field == "dtype"


class OnAccelerator(torch.Tensor):
    """A CPU tensor that says it is on a GPU (this machine may have none)."""
    __module__ = "torch.cuda"

    @property
    def device(self):
        return torch.device("cuda", 0)


def test_refused_tensors_name_the_fix():
    rng = xs.stream(1)
    graded = tensor().requires_grad_()
    cases = [(graded, r"requires grad: pass t\.detach\(\)"),
             (torch.empty(V, device="meta"), "a meta tensor holds no values"),
             (tensor().as_subclass(OnAccelerator), r"on device cuda:0: copy it to the CPU first with t\.cpu\(\)")]
    for t, message in cases:
        with pytest.raises(xs.SampleError, match=message) as e:
            xs.sample(t, None, rng)
        assert e.value.field == "logits"
        with pytest.raises(xs.SampleError, match=message) as e:
            xs.sample_batch(torch.stack([t, t]), None, [xs.stream(1), xs.stream(2)])
        assert e.value.field == "rows"
    assert rng.draws_u32 == 0
    assert xs.sample(graded.detach(), None, rng).id >= 0


def test_int32_torch_bitmask():
    x = tensor()
    allowed = list(range(0, V, 7))
    words = torch.zeros((V + 31) // 32, dtype=torch.int32)
    for i in allowed:
        words[i // 32] |= (1 << (i % 32)) if i % 32 != 31 else -(1 << 31)
    params = xs.SamplingParams(temperature=0.7)
    a, b = xs.stream(5), xs.stream(5)
    assert xs.sample(x, params, a, constraints=xs.Constraints(allowed_bitmask=words)) == \
        xs.sample(x, params, b, constraints=xs.Constraints(allowed_token_ids=allowed))
    with pytest.raises(xs.SampleError, match=r"t\.detach\(\)"):
        xs.sample(x, params, a, constraints=xs.Constraints(allowed_bitmask=words.float().requires_grad_()))
