// nested_loops_light through the driver API: loads the kernel's PTX (argv[1], or the build tree's
// -O3 or -O0 PTX) with cuModuleLoadData.
#include "../common/driver.hpp"
#include "problem.hpp"

int main(int argc, char** argv) {
    NestedLoopsLight problem;
    return examples::run_driver(problem, argc, argv);
}
