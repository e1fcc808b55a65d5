// A photon-transport Monte Carlo step loop in the spirit of mcx (seed 002 Tables 1, 2, 4): each
// thread moves a photon until it is absorbed, escapes through a boundary, or loses Russian
// roulette; three exits from one loop, the scattering decision inside it, and a per-thread
// random-number generator.
extern "C" __global__ void photon(const unsigned* seeds, const unsigned* media, unsigned* fluence,
                                  unsigned* exits, int n, int max_steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned rng = seeds[t] * 2654435761u + 1u;
    int x = 32, y = 32;
    unsigned weight = 1u << 16;
    unsigned deposited = 0;
    int how = 0;
    for (int step = 0; step < max_steps * 8; step++) {
        rng = rng * 1664525u + 1013904223u;
        const unsigned medium = media[((x & 63) * 64 + (y & 63)) % (n * 64)] & 3u;
        const unsigned absorb = weight >> (3 + medium);
        weight -= absorb;
        deposited += absorb;
        if ((rng >> 28) == 0u) { // absorbed
            how = 1;
            break;
        }
        if ((rng >> 24) & 1u) { // scatter
            x += (rng >> 20) & 1u ? 1 : -1;
        } else {
            y += (rng >> 21) & 1u ? 1 : -1;
        }
        if (x < 0 || x >= 64 || y < 0 || y >= 64) { // escaped
            how = 2;
            break;
        }
        if (weight < 4096u) { // Russian roulette
            if ((rng & 15u) != 0u) {
                how = 3;
                break;
            }
            weight <<= 4;
        }
    }
    fluence[t] = deposited;
    exits[t] = static_cast<unsigned>(how) | static_cast<unsigned>(x << 8) |
               static_cast<unsigned>(y << 16);
}
