// goto_state_machine through the runtime API: the kernel is compiled into this program and launched
// with
// <<<>>>.
#include "../common/runtime.cuh"
#include "kernel.cu"
#include "problem.hpp"

int main() {
    GotoStateMachine problem;
    return examples::run_runtime(problem, goto_state_machine);
}
