// A ray caster (the ray benchmark of seed 002 Tables 1-4): each thread marches a ray through a
// 64 x 64 height field until it hits the terrain, leaves the field or runs out of steps, then
// shades the hit with a nested test; `goto` leaves the march from two places.
extern "C" __global__ void raycast(const unsigned* heights, const unsigned* rays, unsigned* image,
                                   int n, int max_steps) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const unsigned r = rays[t];
    int x = static_cast<int>(r & 63u), y = static_cast<int>((r >> 6) & 63u);
    int dx = (r & 1u) ? 1 : -1, dy = (r & 2u) ? 1 : -1;
    int z = 200 + static_cast<int>(r % 50u);
    unsigned colour = 0;
    for (int s = 0; s < max_steps * 6; s++) {
        x += dx;
        y += dy;
        z -= 3;
        if (x < 0 || x >= 64 || y < 0 || y >= 64) goto sky;
        const int h = static_cast<int>(heights[(x * 64 + y) % (n * 64)] * 4u);
        if (z <= h) goto hit;
        if (((x ^ y) & 15) == 0 && z < h + 8) goto hit;
    }
sky:
    image[t] = 0x00ff0000u | static_cast<unsigned>(z & 255);
    return;
hit:
    colour = static_cast<unsigned>(z * 3);
    if (colour & 4u) {
        if (x & 1)
            colour += 7u;
        else
            colour ^= 0x55u;
    } else if (y & 2) {
        colour >>= 1;
    }
    image[t] = colour;
}
