// Photon transport by Monte Carlo in the manner of mcx: each thread launches `photons` photons
// from a pencil source into a voxelised volume of media. A photon moves half a voxel per step; in
// every step its medium absorbs a fraction of its weight (added to the voxel's energy with an
// integer atomic, so sums do not depend on order) and it may scatter into one of 64 directions;
// it ends when it leaves the volume, runs out of steps, or loses the Russian roulette played on
// light photons. Positions are fixed point (16 fraction bits), the random numbers a per-thread
// xorshift, so every thread's walk is exact and reproducible.
#define PW_DIRECTIONS 64

struct PwMedium {
    unsigned absorb;  // weight fraction absorbed per step, of 65536
    unsigned scatter; // scattering probability per step, of 65536
};

__device__ __forceinline__ unsigned pw_next(unsigned& s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

// directions: 3 ints per direction, unit vectors scaled by 2^15 (half a voxel per step).
// out: per thread the weight that escaped, the weight absorbed and the steps taken.
extern "C" __global__ void photon_walk(const unsigned char* labels, const PwMedium* media,
                                       const int* directions, unsigned long long* energy,
                                       unsigned* out, int threads, int photons, int grid,
                                       int max_steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    unsigned seed = (unsigned)t * 0x9e3779b9u + 0x2545f491u;
    if (seed == 0) seed = 1;
    unsigned escaped = 0, absorbed = 0, steps = 0;
    const int limit = grid << 16;
#pragma unroll 1
    for (int p = 0; p < photons; ++p) {
        int x = (grid << 15) + (int)(pw_next(seed) & 0xffff) - 0x8000;
        int y = (grid << 15) + (int)(pw_next(seed) & 0xffff) - 0x8000;
        int z = 1;
        int dx = 0, dy = 0, dz = 1 << 15;
        unsigned w = 1u << 20;
#pragma unroll 1
        for (int s = 0; s < max_steps; ++s) {
            x += dx;
            y += dy;
            z += dz;
            ++steps;
            if (x < 0 || y < 0 || z < 0 || x >= limit || y >= limit || z >= limit) {
                escaped += w;
                w = 0;
                break;
            }
            int voxel = ((z >> 16) * grid + (y >> 16)) * grid + (x >> 16);
            PwMedium m = media[labels[voxel]];
            unsigned lost = (unsigned)(((unsigned long long)w * m.absorb) >> 16);
            if (lost) {
                atomicAdd(&energy[voxel], (unsigned long long)lost);
                absorbed += lost;
                w -= lost;
            }
            unsigned r = pw_next(seed);
            if ((r & 0xffff) < m.scatter) {
                const int* d = directions + 3 * ((r >> 16) & (PW_DIRECTIONS - 1));
                dx = d[0];
                dy = d[1];
                dz = d[2];
            }
            if (w < (1u << 12)) {
                if (((r >> 22) & 7) != 0) {
                    w = 0;
                    break;
                }
                w <<= 3;
            }
        }
    }
    out[3 * t] = escaped;
    out[3 * t + 1] = absorbed;
    out[3 * t + 2] = steps;
}
