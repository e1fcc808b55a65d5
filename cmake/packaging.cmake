# CPack: `cpack -G DEB` in a build directory makes cfrjit_<version>_<arch>.deb from the install
# rules (docs/building.md, "Installing"). The binaries are stripped; their package dependencies
# come from dpkg-shlibdeps (libc6, libstdc++6, libgcc-s1: everything else cfrjit uses is
# header-only or linked statically), or are those three where dpkg-shlibdeps or file is missing.
set(CPACK_PACKAGE_NAME cfrjit)
set(CPACK_PACKAGE_VENDOR cfrjit)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "dynamic compiler for CUDA: restructures the control flow of every PTX kernel at load time")
set(CPACK_PACKAGE_DESCRIPTION
    "cfrjit is preloaded into CUDA programs (cfrjit run -- ./app): it catches every PTX image the
program loads, rewrites its control flow so that divergent threads reconverge early, caches the
result, hands it to the driver and times every kernel launch. Without a GPU, programs run on
cfrjit's emulated driver, a SIMT emulator behind the CUDA Driver API. The package holds cfrjit,
cfr-opt, cfr-run, cfr-synth, libcfrjit.so, the emulated driver and the documentation.")
set(CPACK_PACKAGE_CONTACT "cfrjit developers" CACHE STRING "Maintainer of the .deb")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Graphviz's dot draws the CFGs of the HTML report (docs/reports.md); without it the page says how
# to get them.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS graphviz)
find_program(CFRJIT_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(CFRJIT_FILE file)
if(CFRJIT_DPKG_SHLIBDEPS AND CFRJIT_FILE)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libgcc-s1, libstdc++6")
endif()
include(CPack)
