// Ray casting through a bounding-volume hierarchy of boxes: each thread finds the nearest box its
// ray hits with a stack-based traversal (nearer child first, subtrees farther than the best hit
// pruned). Integer coordinates and inverse directions in fixed point make every ray parameter
// exact: t = (plane - origin) * inverse direction.
#define BVH_FAR (1ll << 62)
#define BVH_STACK 64

struct BvhRay {
    int o[3], inv[3];
};

// The slab test of box [lo, hi] against the ray for t in [0, limit]: the entry t when hit.
__device__ __forceinline__ bool bvh_slab(const int* lo, const int* hi, const BvhRay& r,
                                         long long limit, long long* entry) {
    long long tmin = 0, tmax = limit;
#pragma unroll
    for (int a = 0; a < 3; ++a) {
        long long t0 = (long long)(lo[a] - r.o[a]) * r.inv[a];
        long long t1 = (long long)(hi[a] - r.o[a]) * r.inv[a];
        if (r.inv[a] < 0) {
            long long s = t0;
            t0 = t1;
            t1 = s;
        }
        tmin = t0 > tmin ? t0 : tmin;
        tmax = t1 < tmax ? t1 : tmax;
    }
    *entry = tmin;
    return tmin <= tmax;
}

// nodes: 8 ints each (lo xyz, hi xyz, first primitive or left child, primitive count; the right
// child follows the left one). prims: 7 ints each (lo xyz, hi xyz, box id).
extern "C" __global__ void bvh_raycast(const int* nodes, const int* prims, const int* rays,
                                       int* hit_id, long long* hit_t, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    BvhRay r;
    for (int a = 0; a < 3; ++a) {
        r.o[a] = rays[6 * t + a];
        r.inv[a] = rays[6 * t + 3 + a];
    }
    int stack[BVH_STACK];
    int sp = 0;
    stack[sp++] = 0;
    long long best = BVH_FAR;
    int best_id = -1;
    while (sp > 0) {
        const int* node = nodes + 8 * stack[--sp];
        long long entry;
        if (!bvh_slab(node, node + 3, r, best, &entry)) continue;
        int count = node[7];
        if (count > 0) {
            for (int k = node[6]; k < node[6] + count; ++k) {
                const int* p = prims + 7 * k;
                if (!bvh_slab(p, p + 3, r, best, &entry)) continue;
                if (entry < best || p[6] < best_id) {
                    best = entry;
                    best_id = p[6];
                }
            }
            continue;
        }
        const int* left = nodes + 8 * node[6];
        long long tl, tr;
        bool hl = bvh_slab(left, left + 3, r, best, &tl);
        bool hr = bvh_slab(left + 8, left + 11, r, best, &tr);
        if (hl && hr) {
            bool left_first = tl <= tr;
            stack[sp++] = node[6] + (left_first ? 1 : 0);
            stack[sp++] = node[6] + (left_first ? 0 : 1);
        } else if (hl) {
            stack[sp++] = node[6];
        } else if (hr) {
            stack[sp++] = node[6] + 1;
        }
    }
    hit_id[t] = best_id;
    hit_t[t] = best_id >= 0 ? best : -1;
}
