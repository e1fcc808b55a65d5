// Benchmark kernels for the divergence map, small stand-ins for the kinds of kernels seed 004
// measured (Table 1): a work-efficient prefix scan (sc), one step of breadth-first search (bf),
// an escape-time fractal with per-pixel trip counts, and an SRAD-like stencil with boundary
// cases (sr). Each is sized to run in well under a second on the emulator.

// Blelloch's exclusive scan of 512 ints per block of 256 threads (GPU Gems 3, ch. 39): the
// tests on thid < d split warps in the last levels of both sweeps.
extern "C" __global__ void scan_blelloch(int* data) {
    __shared__ int temp[512];
    int* block = data + blockIdx.x * 512;
    const int thid = threadIdx.x;
    temp[2 * thid] = block[2 * thid];
    temp[2 * thid + 1] = block[2 * thid + 1];
    int offset = 1;
    for (int d = 256; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            const int ai = offset * (2 * thid + 1) - 1;
            const int bi = offset * (2 * thid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (thid == 0) temp[511] = 0;
    for (int d = 1; d < 512; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            const int ai = offset * (2 * thid + 1) - 1;
            const int bi = offset * (2 * thid + 2) - 1;
            const int t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();
    block[2 * thid] = temp[2 * thid];
    block[2 * thid + 1] = temp[2 * thid + 1];
}

// One level of BFS over a graph in CSR form (Rodinia bfs, one kernel): vertices on the frontier
// visit their neighbours; the frontier test and the per-neighbour test diverge.
extern "C" __global__ void bfs_step(const int* row, const int* col, int* level, int* changed,
                                    int vertices, int current) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices || level[v] != current) return;
    for (int e = row[v]; e < row[v + 1]; ++e) {
        const int u = col[e];
        if (level[u] < 0) {
            level[u] = current + 1;
            *changed = 1;
        }
    }
}

// Escape time of z = z^2 + c per pixel, fixed point (16.16): neighbouring pixels leave the loop
// after different numbers of iterations.
extern "C" __global__ void escape_time(int* out, int width, int height, int max_iter) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= width || y >= height) return;
    const long long cr = (long long)(x - width * 2 / 3) * (3 << 16) / width;
    const long long ci = (long long)(y - height / 2) * (2 << 16) / height;
    long long zr = 0, zi = 0;
    int i = 0;
    while (i < max_iter) {
        const long long rr = (zr * zr) >> 16, ii = (zi * zi) >> 16;
        if (rr + ii > (4 << 16)) break;
        zi = ((2 * zr * zi) >> 16) + ci;
        zr = rr - ii + cr;
        ++i;
    }
    out[y * width + x] = i;
}

// An SRAD-like diffusion step (Rodinia srad): clamped neighbours at the image border and a
// data-dependent clamp of the coefficient.
extern "C" __global__ void srad_step(const int* in, int* out, int width, int height) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= width) return;
    const int c = in[y * width + x];
    const int n = y == 0 ? c : in[(y - 1) * width + x];
    const int s = y == height - 1 ? c : in[(y + 1) * width + x];
    const int w = x == 0 ? c : in[y * width + x - 1];
    const int e = x == width - 1 ? c : in[y * width + x + 1];
    const int gradient = (n - c) * (n - c) + (s - c) * (s - c) + (w - c) * (w - c) +
                         (e - c) * (e - c);
    int coefficient;
    if (gradient > 4000)
        coefficient = 1;
    else if (gradient > 1000)
        coefficient = 2;
    else
        coefficient = 4;
    out[y * width + x] = c + (n + s + w + e - 4 * c) / (4 * coefficient + 4);
}
