// One step of a particle filter tracking a 1-D position, in the manner of Rodinia's particlefilter:
// each particle's likelihood against the step's measurements (a chain of data-dependent
// branches), the cumulative distribution of the weights (one block), and systematic resampling
// where each thread finds its particle by a linear search of the distribution that stops at the
// first entry above its threshold, then moves the copy by a drift and a hashed jitter.
__device__ __forceinline__ unsigned pf_hash(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

extern "C" __global__ void pf_likelihood(const int* x, const int* z, unsigned* w, int n, int step,
                                         int window) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    int xp = x[p];
    unsigned acc = 1;
#pragma unroll 1
    for (int m = 0; m < window; ++m) {
        int d = xp + 3 * m - z[step * window + m];
        if (d < 0) d = -d;
        if (d < 4)
            acc += 64;
        else if (d < 16)
            acc += 16;
        else if (d < 64)
            acc += 2;
    }
    w[p] = acc;
}

#define PF_CDF_THREADS 256

extern "C" __global__ void pf_cdf(const unsigned* w, unsigned long long* cdf, int n) {
    __shared__ unsigned long long partial[PF_CDF_THREADS];
    int t = threadIdx.x;
    int per = (n + PF_CDF_THREADS - 1) / PF_CDF_THREADS;
    int begin = t * per, end = min(n, begin + per);
    unsigned long long sum = 0;
    for (int i = begin; i < end; ++i)
        sum += w[i];
    partial[t] = sum;
    for (int offset = 1; offset < PF_CDF_THREADS; offset <<= 1) {
        __syncthreads();
        unsigned long long add = t >= offset ? partial[t - offset] : 0ull;
        __syncthreads();
        partial[t] += add;
    }
    __syncthreads();
    unsigned long long running = t > 0 ? partial[t - 1] : 0ull;
    for (int i = begin; i < end; ++i) {
        running += w[i];
        cdf[i] = running;
    }
}

extern "C" __global__ void pf_resample(const unsigned long long* cdf, const int* x, int* x_next,
                                       int n, int step, int drift) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    unsigned long long total = cdf[n - 1];
    unsigned long long shift = (total * (pf_hash((unsigned)step + 17u) & 0xffffu)) >> 16;
    unsigned long long u = ((unsigned long long)j * total + shift) / (unsigned long long)n;
    int index = n - 1;
#pragma unroll 1
    for (int i = 0; i < n; ++i) {
        if (cdf[i] > u) {
            index = i;
            break;
        }
    }
    int jitter = (int)(pf_hash((unsigned)j * 7919u + (unsigned)step) % 9u) - 4;
    x_next[j] = x[index] + drift + jitter;
}
