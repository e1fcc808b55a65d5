"""A PyTorch program as users write one, for gpu-check's client phase: a matrix product (cuBLAS),
a softmax and a torch.where (PyTorch's own kernels), and, where Triton is there, a small
torch.compile'd function (Inductor's Triton kernels). Writes every result to OUT.npz and each
part's status to OUT.json; exit status 42 when PyTorch or its GPU cannot be used here."""
import sys

import parts as client_parts


def main(out):
    try:
        import numpy  # noqa: F401 - the results are written with it
        import torch
    except Exception as e:  # not installed, or broken: not a failure of the check
        print(f"unavailable: cannot import torch: {e}")
        return 42
    if not torch.cuda.is_available():
        print(f"unavailable: torch {torch.__version__} sees no GPU")
        return 42
    dev = torch.device("cuda")
    gen = torch.Generator(device="cpu").manual_seed(20261126)
    a = torch.randn(1024, 1024, generator=gen).to(dev)
    b = torch.randn(1024, 1024, generator=gen).to(dev)

    def where(x, y):
        return torch.where(x > 0.25, x * y, y - x)

    def fused(x, y):
        t = torch.sin(x) * y + torch.where(x > 0, x, -0.5 * x)
        return torch.softmax(t, dim=1).sum(dim=0)

    parts = {
        "matmul": lambda: a @ b,
        "softmax": lambda: torch.softmax(a, dim=1),
        "where": lambda: where(a, b),
        "compile": lambda: torch.compile(fused)(a, b),
    }
    status = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "parts": {}}
    try:
        import triton  # noqa: F401
    except Exception as e:
        status["parts"]["compile"] = {"skipped": f"no Triton: {e}"}

    def to_numpy(t):
        host = t.float().cpu().numpy()
        torch.cuda.synchronize()
        return host

    return client_parts.run(parts, to_numpy, status, out)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
