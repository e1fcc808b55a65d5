// nested_loops_heavy through the runtime API: the kernel is compiled into this program and launched
// with <<<>>>.
#include "../common/runtime.cuh"
#include "kernel.cu"
#include "problem.hpp"

int main() {
    NestedLoopsHeavy problem;
    return examples::run_runtime(problem, nested_loops_heavy);
}
