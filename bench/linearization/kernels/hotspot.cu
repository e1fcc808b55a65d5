// A hotspot-like 2-D stencil (Rodinia hotspot, seed 002 Table 1): each thread updates one cell of
// a 64 x W grid from its four neighbours, with the boundary conditions written as the short
// circuits the original uses, which make unstructured branches; a few iterations per launch.
extern "C" __global__ void hotspot(const unsigned* power, const unsigned* temp_in, unsigned* temp_out,
                                   int n, int steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const int width = 64;
    int x = t % width, y = t / width, height = (n + width - 1) / width;
    unsigned c = temp_in[t];
    for (int s = 0; s < steps % 8 + 2; s++) {
        unsigned north = (y == 0 || (c & 1u)) ? c : temp_in[t - width];
        unsigned south = (y == height - 1 || t + width >= n) ? c : temp_in[t + width];
        unsigned west = (x == 0) ? c : temp_in[t - 1];
        unsigned east = (x == width - 1 || t + 1 >= n) ? c : temp_in[t + 1];
        unsigned delta = (north + south + west + east) / 4u - c;
        if (power[t] > 32u && delta < 1000u)
            c += delta / 2u + power[t];
        else if (power[t] > 48u || delta > 60000u)
            c -= c >> 3;
        else
            c += 1u;
    }
    temp_out[t] = c;
}
