// Runtime-API host runner: allocates and fills the problem's buffers, calls the example's launch
// function (which uses <<<>>>), copies the results back and checks them.
#pragma once

#include "problem.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <vector>

#define CUDA_CHECK(call) ::examples::cuda_check((call), #call, __FILE__, __LINE__)

namespace examples {

inline void cuda_check(cudaError_t r, const char* what, const char* file, int line) {
    if (r == cudaSuccess) return;
    std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, what, cudaGetErrorName(r),
                 cudaGetErrorString(r));
    std::exit(2);
}

// The kernel's i-th argument: a device buffer for pointer parameters (which come first), else one
// of the problem's int scalars.
template <class T>
T argument(void* const* buffers, const int* scalars, std::size_t i, std::size_t pointers) {
    if constexpr (std::is_pointer_v<T>)
        return static_cast<T>(buffers[i]);
    else
        return static_cast<T>(scalars[i - pointers]);
}

template <class... A, std::size_t... I>
void launch(void (*kernel)(A...), const Launch& l, void* const* buffers, const int* scalars,
            std::index_sequence<I...>) {
    constexpr std::size_t pointers = (std::size_t{0} + ... + (std::is_pointer_v<A> ? 1 : 0));
    kernel<<<l.grid, l.block, l.shared_bytes>>>(argument<A>(buffers, scalars, I, pointers)...);
}

template <class P, class... A>
int run_runtime(P& problem, void (*kernel)(A...)) {
    std::vector<Buffer> buffers = problem.buffers();
    std::vector<int> scalars = problem.scalars();
    std::vector<void*> dptr(buffers.size());
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        CUDA_CHECK(cudaMalloc(&dptr[i], buffers[i].bytes));
        CUDA_CHECK(cudaMemcpy(dptr[i], buffers[i].host, buffers[i].bytes, cudaMemcpyHostToDevice));
    }
    launch(kernel, problem.launch(), dptr.data(), scalars.data(), std::index_sequence_for<A...>{});
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        if (buffers[i].out)
            CUDA_CHECK(
                cudaMemcpy(buffers[i].host, dptr[i], buffers[i].bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(dptr[i]));
    }
    return problem.check();
}

} // namespace examples
