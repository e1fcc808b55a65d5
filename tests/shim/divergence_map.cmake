# The divergence map through the shim (CFRJIT_DIVERGENCE_MAP=1) on the emulated driver: on every
# example (Driver-API programs at -O3 and -O0, runtime-API ones with static and shared cudart) the
# map alone must count, branch by branch, what the emulator counts on the program run without the
# shim; the map after the default pipeline must count; a program whose modules go before exit
# keeps their counts; PTX with line information gets its sources annotated by `cfrjit divmap`; the
# emulated driver's lifetime, graph and -rdc programs keep working with the map.
# Included by tests/shim/CMakeLists.txt, which defines shim_env and bin.
set(run_map ${CMAKE_CURRENT_SOURCE_DIR}/run_divergence_map.sh)
function(cfrjit_divmap_test name)
    add_test(NAME "shim-divmap: ${name}" COMMAND ${run_map} $<TARGET_FILE:cfrjit> ${ARGN})
    set_tests_properties("shim-divmap: ${name}" PROPERTIES
        ENVIRONMENT "${shim_env};CFRJIT_EMULATOR_STRICT=1"
        PASS_REGULAR_EXPRESSION "divergence map: OK" TIMEOUT 600 LABELS divmap)
endfunction()

foreach(name IN LISTS CFRJIT_EXAMPLES)
    if(TARGET ${name}_drv)
        foreach(level O3 O0)
            cfrjit_divmap_test("${name} drv ${level}" -- $<TARGET_FILE:${name}_drv> --${level})
        endforeach()
    endif()
    if(CFRJIT_NVCC)
        foreach(variant rt rt_shared)
            cfrjit_divmap_test("${name} ${variant}" -- ${bin}/${name}_${variant})
        endforeach()
    endif()
endforeach()

# After the default pipeline: counts present, output unchanged.
foreach(name IN ITEMS short_circuit loop_jump_in irreducible bitonic_sort nqueens tree_walk)
    if(TARGET ${name}_drv)
        cfrjit_divmap_test("${name} drv O3, default pipeline" --default-pipeline
                           -- $<TARGET_FILE:${name}_drv> --O3)
    endif()
    if(CFRJIT_NVCC)
        cfrjit_divmap_test("${name} rt_shared, default pipeline" --default-pipeline
                           -- ${bin}/${name}_rt_shared)
    endif()
endforeach()

# Modules unloaded before exit (one never synchronised), one left loaded at exit.
add_executable(cfrjit_divmap_unload_app divmap_unload_app.cpp)
target_include_directories(cfrjit_divmap_unload_app PRIVATE ${CFRJIT_CUDA_H_DIR})
target_link_libraries(cfrjit_divmap_unload_app PRIVATE CUDA::cuda_driver)
cfrjit_divmap_test("modules unloaded before exit" -- $<TARGET_FILE:cfrjit_divmap_unload_app>)

# PTX with line information (nvcc -lineinfo): the map names file:line, divmap annotates them.
if(CFRJIT_NVCC AND TARGET bitonic_sort_drv)
    set(lineinfo_ptx ${CMAKE_CURRENT_BINARY_DIR}/bitonic_sort.lineinfo.ptx)
    add_custom_command(
        OUTPUT ${lineinfo_ptx}
        COMMAND ${CFRJIT_NVCC_COMMAND} -ptx -arch=sm_75 -O3 -lineinfo
                ${PROJECT_SOURCE_DIR}/examples/bitonic_sort/kernel.cu -o ${lineinfo_ptx}
        DEPENDS ${PROJECT_SOURCE_DIR}/examples/bitonic_sort/kernel.cu
        COMMENT "nvcc -lineinfo: bitonic_sort.lineinfo.ptx")
    add_custom_target(cfrjit_divmap_lineinfo_ptx ALL DEPENDS ${lineinfo_ptx})
    cfrjit_divmap_test("bitonic_sort drv with line information"
                       --source ${PROJECT_SOURCE_DIR}/examples/bitonic_sort
                       -- $<TARGET_FILE:bitonic_sort_drv> ${lineinfo_ptx})
endif()

# The emulated driver's test programs: graphs (stream capture, node API), cuCtxDestroy with
# launches pending, -rdc units linked by the driver (each with its own counter array), device
# resets with kernels in flight (each reset gives the primary context fresh counters; every visit
# before it must be counted once).
set(apps ${CMAKE_BINARY_DIR}/tests/driver/apps)
if(CFRJIT_NVCC AND TARGET cfrjit_ctx_destroy_drv)
    foreach(mode static shared)
        foreach(app graph_capture_app graph_nodes_app rdc_app)
            cfrjit_divmap_test("${app} (${mode} cudart)" -- ${apps}/${app}_${mode})
        endforeach()
        cfrjit_divmap_test("reset_app (${mode} cudart)" -- ${apps}/reset_app_${mode})
        cfrjit_divmap_test("reset_app thread (${mode} cudart)" -- ${apps}/reset_app_${mode} thread)
    endforeach()
    cfrjit_divmap_test("ctx_destroy_drv" -- $<TARGET_FILE:cfrjit_ctx_destroy_drv> ${apps}/scale.ptx)
endif()

# 16 threads loading modules and launching on 3 streams each (tests/concurrency), every count
# equal to the emulator's.
if(TARGET CUDA::cuda_driver)
    cfrjit_divmap_test("16 threads on 3 streams each"
                       -- $<TARGET_FILE:cfrjit_concurrency_app> ${PROJECT_SOURCE_DIR}/examples/ptx
                       16 3 2)
endif()
