// Writes an emulator cubin (ptx/cubin.hpp): make_cubin <sm> <out.cubin> <kernels.ptx>. Its
// symbols are the kernels and variables the PTX defines; its .nv.cfrjit.ptx section is the PTX.
#include "ptx/cubin.hpp"
#include "ptx/parser.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: make_cubin <sm> <out.cubin> <kernels.ptx>\n");
        return 2;
    }
    std::ifstream in(argv[3], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    try {
        const cfr::ptx::Module module = cfr::ptx::parse(text.str(), argv[3]);
        const auto spec = cfr::ptx::cubin::spec_for(module, text.str(),
                                                    static_cast<uint32_t>(std::stoul(argv[1])));
        std::ofstream(argv[2], std::ios::binary) << cfr::ptx::cubin::write(spec);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_cubin: %s\n", e.what());
        return 1;
    }
    return 0;
}
