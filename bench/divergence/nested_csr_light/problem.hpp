// Inputs and reference for nested_csr_light (common/nested_csr.hpp): tiny 1024 threads, gpu 2^18
// threads (N = threads); 2 launches at tiny size, 100 at gpu size.
#pragma once

#include "../common/nested_csr.hpp"

struct NestedCsrLight : suite::NestedCsr<false> {
    static constexpr const char* name = "nested_csr_light";
    static constexpr std::array<const char*, 1> kernels{"nested_csr_light"};
    using NestedCsr::NestedCsr;
    int check() const { return NestedCsr::check(name); }
};
