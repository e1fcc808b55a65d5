// switch_return through the runtime API: the kernel is compiled into this program and launched with
// <<<>>>.
#include "../common/runtime.cuh"
#include "kernel.cu"
#include "problem.hpp"

int main() {
    SwitchReturn problem;
    return examples::run_runtime(problem, switch_return);
}
