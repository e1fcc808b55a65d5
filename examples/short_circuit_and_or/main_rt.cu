// short_circuit_and_or through the runtime API: the kernel is compiled into this program and
// launched with <<<>>>.
#include "../common/runtime.cuh"
#include "kernel.cu"
#include "problem.hpp"

int main() {
    ShortCircuitAndOr problem;
    return examples::run_runtime(problem, short_circuit_and_or);
}
