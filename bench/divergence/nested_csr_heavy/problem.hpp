// Inputs and reference for nested_csr_heavy (common/nested_csr.hpp): tiny 1024 threads, gpu 2^18
// threads (N = threads); 2 launches at tiny size, 100 at gpu size.
#pragma once

#include "../common/nested_csr.hpp"

struct NestedCsrHeavy : suite::NestedCsr<true> {
    static constexpr const char* name = "nested_csr_heavy";
    static constexpr std::array<const char*, 1> kernels{"nested_csr_heavy"};
    using NestedCsr::NestedCsr;
    int check() const { return NestedCsr::check(name); }
};
