// multi_exit_loop through the runtime API: the kernel is compiled into this program and launched
// with <<<>>>.
#include "../common/runtime.cuh"
#include "kernel.cu"
#include "problem.hpp"

int main() {
    MultiExitLoop problem;
    return examples::run_runtime(problem, multi_exit_loop);
}
