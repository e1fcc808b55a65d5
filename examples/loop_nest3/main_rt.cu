// loop_nest3 through the runtime API: the kernel is compiled into this program and launched with
// <<<>>>.
#include "../common/runtime.cuh"
#include "kernel.cu"
#include "problem.hpp"

int main() {
    LoopNest3 problem;
    return examples::run_runtime(problem, loop_nest3);
}
