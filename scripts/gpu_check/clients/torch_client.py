"""A PyTorch program as users write one, for gpu-check's client phase: a matrix product (cuBLAS),
a softmax and a torch.where (PyTorch's own kernels), and, where Triton is there, a small
torch.compile'd function (Inductor's Triton kernels). Writes every result to OUT.npz and each
part's status to OUT.json; exit status 42 when PyTorch or its GPU cannot be used here."""
import json
import sys
import traceback


def main(out):
    try:
        import numpy as np
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
    arrays, status = {}, {"torch": torch.__version__, "device": torch.cuda.get_device_name(),
                          "parts": {}}
    for name, part in parts.items():
        if name == "compile":
            try:
                import triton  # noqa: F401
            except Exception as e:
                status["parts"][name] = {"skipped": f"no Triton: {e}"}
                continue
        try:
            arrays[name] = part().float().cpu().numpy()
            torch.cuda.synchronize()
            status["parts"][name] = {"ok": True, "shape": list(arrays[name].shape)}
            print(f"{name}: sum {float(arrays[name].astype(np.float64).sum()):.6e}")
        except Exception as e:
            status["parts"][name] = {"error": f"{type(e).__name__}: {e}"[:500]}
            print(f"{name}: FAILED {type(e).__name__}: {e}")
            traceback.print_exc()
    np.savez(out + ".npz", **arrays)
    with open(out + ".json", "w") as f:
        json.dump(status, f, indent=1)
    return 0 if all("error" not in p for p in status["parts"].values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
