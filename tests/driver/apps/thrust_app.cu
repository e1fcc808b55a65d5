// Thrust and CUB from compute_75 PTX: CUB picks its tuning policy from the PTX version the driver
// reports for its kernels, so a reduction, a scan and a radix sort run only when that version is
// the PTX's (75). Two sorts: 1000 keys take CUB's single-tile radix sort, 5000 the multi-pass one.
// Prints "thrust_app: OK".
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <cstdio>
#include <exception>
#include <vector>

namespace {

bool run() {
    const int n = 5000;
    thrust::device_vector<int> values(n);
    thrust::sequence(values.begin(), values.end(), 0);
    const long long sum = thrust::reduce(values.begin(), values.end(), 0LL);
    thrust::device_vector<int> prefix(n);
    thrust::inclusive_scan(values.begin(), values.end(), prefix.begin());
    thrust::device_vector<int> keys(n);
    for (int i = 0; i < n; ++i)
        keys[i] = (i * 7919) % n;
    thrust::sort(keys.begin(), keys.end());
    thrust::device_vector<int> few(keys.rbegin(), keys.rbegin() + 1000);
    thrust::sort(few.begin(), few.end());
    std::vector<int> sorted(n), scanned(n), small(1000);
    thrust::copy(few.begin(), few.end(), small.begin());
    thrust::copy(keys.begin(), keys.end(), sorted.begin());
    thrust::copy(prefix.begin(), prefix.end(), scanned.begin());
    bool ok = sum == 1LL * n * (n - 1) / 2;
    for (int i = 0; i < 1000; ++i)
        ok = ok && small[i] == n - 1000 + i;
    for (int i = 0; i < n; ++i)
        ok = ok && sorted[i] == i && scanned[i] == i * (i + 1) / 2;
    return ok;
}

} // namespace

int main() {
    try {
        if (!run()) {
            std::printf("thrust_app: FAILED: wrong results\n");
            return 1;
        }
    } catch (const std::exception& e) {
        std::printf("thrust_app: FAILED: %s\n", e.what());
        return 1;
    }
    std::printf("thrust_app: OK\n");
    return 0;
}
