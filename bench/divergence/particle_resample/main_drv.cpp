// particle_resample through the driver API (cuModuleLoadData of the build tree's PTX).
#include "../common/driver.hpp"
#include "problem.hpp"

int main(int argc, char** argv) {
    return suite::run_driver<ParticleResample>(argc, argv);
}
