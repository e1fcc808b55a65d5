# The adaptive policy through the shim (CFRJIT_POLICY=adaptive) on the emulated driver, strict:
# every example as a Driver-API program launching its kernel 12 times (enough launches to decide
# within a run), then again from the decisions in the cache; every example's runtime-API program
# (one launch a run, decided across runs); a kernel whose variants cost different emulated time
# ends on the cheapest; every variant refused by the driver is dropped and the program passes.
# Included by tests/shim/CMakeLists.txt, which defines shim_env and bin.
set(run_adaptive ${CMAKE_CURRENT_SOURCE_DIR}/run_adaptive.sh)
function(cfrjit_adaptive_test name)
    add_test(NAME "shim-adaptive: ${name}" COMMAND ${run_adaptive} $<TARGET_FILE:cfrjit> ${ARGN})
    set_tests_properties("shim-adaptive: ${name}" PROPERTIES
        ENVIRONMENT "${shim_env};CFRJIT_EMULATOR_STRICT=1"
        PASS_REGULAR_EXPRESSION "adaptive: OK" TIMEOUT 600 LABELS adaptive)
endfunction()

foreach(name IN LISTS CFRJIT_EXAMPLES)
    if(TARGET ${name}_drv)
        cfrjit_adaptive_test("${name} drv, 12 launches a run" -- $<TARGET_FILE:${name}_drv>
                             --repeat 12)
    endif()
    if(CFRJIT_NVCC)
        cfrjit_adaptive_test("${name} rt_shared" -- ${bin}/${name}_rt_shared)
    endif()
endforeach()

if(TARGET nested_loops_heavy_drv)
    cfrjit_adaptive_test("nested_loops_heavy drv: settles on the cheapest" --expect-cheaper --
                         $<TARGET_FILE:nested_loops_heavy_drv> --repeat 12)
    cfrjit_adaptive_test("nested_loops_heavy drv -O0, one launch a run, decided across runs"
                         --runs 14 --expect-decided -- $<TARGET_FILE:nested_loops_heavy_drv> --O0)
    cfrjit_adaptive_test("short_circuit drv: every variant refused" --fault --
                         $<TARGET_FILE:short_circuit_drv> --repeat 4)
endif()
if(CFRJIT_NVCC)
    cfrjit_adaptive_test("short_circuit rt: every variant refused, three runs" --runs 3 --fault --
                         ${bin}/short_circuit_rt)
endif()
