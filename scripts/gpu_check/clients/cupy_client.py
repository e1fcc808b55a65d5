"""A CuPy program as users write one, for gpu-check's client phase: a RawKernel compiled by NVRTC
(a per-lane loop, divergent) and an ElementwiseKernel with a branch, both compiled to PTX so that
the shim rewrites them, random numbers from cuRAND (cupy.random), and a scan. Writes every result to OUT.npz and each part's status to
OUT.json; exit status 42 when CuPy or its GPU cannot be used here."""
import sys

import parts as client_parts

COLLATZ = r"""
extern "C" __global__ void collatz(const unsigned* start, unsigned* steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = start[i], k = 0;
    while (x != 1u && k < 1000u) {
        x = (x & 1u) ? 3u * x + 1u : x / 2u;
        ++k;
    }
    steps[i] = k;
}
"""


def compile_to_ptx():
    """CuPy turns NVRTC's output into machine code where it can, which the driver, and the shim,
    then get as a cubin. Its switch for GPUs newer than NVRTC knows (a private module attribute,
    also used by its users) makes it PTX instead, so that the shim sees and rewrites the kernels.
    False where this CuPy has no such switch."""
    from cupy.cuda import compiler

    if not hasattr(compiler, "_use_ptx"):
        return False
    compiler._use_ptx = True
    for memoized in (getattr(compiler, "_get_arch", None),
                     getattr(compiler, "_get_arch_for_options_for_nvrtc", None)):
        if hasattr(memoized, "_cache"):
            memoized._cache = {}
    return True


def main(out):
    try:
        import cupy as cp
        import numpy  # noqa: F401 - the results are written with it
    except Exception as e:
        print(f"unavailable: cannot import cupy: {e}")
        return 42
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:
        print(f"unavailable: cupy {cp.__version__} sees no GPU: {e}")
        return 42
    n = 1 << 16

    def raw():
        kernel = cp.RawKernel(COLLATZ, "collatz")
        start = cp.arange(1, n + 1, dtype=cp.uint32)
        steps = cp.zeros(n, dtype=cp.uint32)
        kernel(((n + 255) // 256,), (256,), (start, steps, cp.int32(n)))
        return steps

    def random():
        cp.random.seed(20261126)
        return cp.random.random(n, dtype=cp.float32)

    def elementwise():
        k = cp.ElementwiseKernel("float32 x", "float32 y",
                                 "y = x > 0.5f ? x * x : (x < 0.1f ? -x : 2.0f * x)",
                                 "cfrjit_branchy")
        return k(cp.linspace(0, 1, n, dtype=cp.float32))

    def reduction():
        return cp.cumsum(cp.arange(n, dtype=cp.int64) % 7)

    parts = {"rawkernel": raw, "random": random, "elementwise": elementwise,
             "reduction": reduction}
    status = {"cupy": cp.__version__, "ptx": compile_to_ptx(), "parts": {}}

    def to_numpy(a):
        host = cp.asnumpy(a)
        cp.cuda.runtime.deviceSynchronize()
        return host

    return client_parts.run(parts, to_numpy, status, out)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
