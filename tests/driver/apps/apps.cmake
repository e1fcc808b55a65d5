# End-to-end programs run on the emulated driver (included from emulator/driver/CMakeLists.txt):
# runtime-API programs built by nvcc (static and shared cudart), a Driver-API program linked against
# the toolkit's stub libcuda, and a probe that reaches the driver the way cudart does.
set(CFRJIT_DRIVER_APPS ${CMAKE_CURRENT_LIST_DIR})
set(apps_out ${CMAKE_BINARY_DIR}/tests/driver/apps)
file(MAKE_DIRECTORY ${apps_out})
set(driver_env "LD_LIBRARY_PATH=${CFRJIT_DRIVER_DIR}")

add_executable(cfrjit_gpa_probe ${CFRJIT_DRIVER_APPS}/gpa_probe.cpp)
target_include_directories(cfrjit_gpa_probe PRIVATE ${CFRJIT_CUDA_INCLUDE})
target_link_libraries(cfrjit_gpa_probe PRIVATE ${CMAKE_DL_LIBS})
set_target_properties(cfrjit_gpa_probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${apps_out})
add_dependencies(cfrjit_gpa_probe cfrjit_cuda)
add_test(NAME "driver-app: gpa_probe" COMMAND cfrjit_gpa_probe ${CFRJIT_DRIVER_APPS}/gpa_requests.txt)
set_tests_properties("driver-app: gpa_probe" PROPERTIES ENVIRONMENT "${driver_env}"
    PASS_REGULAR_EXPRESSION "gpa_probe: OK")

set(stub_libcuda ${CFRJIT_CUDA_INCLUDE}/../lib64/stubs/libcuda.so)
if(NOT CFRJIT_NVCC OR NOT EXISTS ${stub_libcuda})
    message(STATUS "cfrjit: nvcc or the libcuda stub missing; driver end-to-end apps not built")
    return()
endif()

set(app_outputs)
foreach(mode static shared)
    foreach(app runtime_app launch_error_app texture_app)
        set(flags -arch=sm_75)
        if(mode STREQUAL shared)
            list(APPEND flags -cudart shared)
        endif()
        set(exe ${apps_out}/${app}_${mode})
        add_custom_command(OUTPUT ${exe}
            COMMAND ${CFRJIT_NVCC_COMMAND} ${flags} -o ${exe} ${CFRJIT_DRIVER_APPS}/${app}.cu
            DEPENDS ${CFRJIT_DRIVER_APPS}/${app}.cu
            COMMENT "nvcc ${app}.cu (${mode} cudart)" VERBATIM)
        list(APPEND app_outputs ${exe})
        add_test(NAME "driver-app: ${app} (${mode} cudart)" COMMAND ${exe})
        set_tests_properties("driver-app: ${app} (${mode} cudart)" PROPERTIES ENVIRONMENT "${driver_env}"
            PASS_REGULAR_EXPRESSION "${app}: OK" FAIL_REGULAR_EXPRESSION "FAILED:")
    endforeach()
endforeach()

# The kernel of driver_api_app as PTX text, as fatbins (zstd by default, LZ4, uncompressed) and as
# a cubin-only fatbin that must be refused.
set(scale_src ${CFRJIT_DRIVER_APPS}/scale.cu)
set(scale_images)
foreach(variant "ptx;-ptx;-arch=compute_75" "zstd.fatbin;-fatbin;-arch=sm_75"
        "lz4.fatbin;-fatbin;-arch=sm_75;--compress-mode=speed"
        "plain.fatbin;-fatbin;-arch=sm_75;--no-compress"
        "cubin.fatbin;-fatbin;-gencode;arch=compute_75,code=sm_75")
    list(POP_FRONT variant suffix)
    set(image ${apps_out}/scale.${suffix})
    add_custom_command(OUTPUT ${image}
        COMMAND ${CFRJIT_NVCC_COMMAND} ${variant} -o ${image} ${scale_src}
        DEPENDS ${scale_src} COMMENT "nvcc scale.cu -> scale.${suffix}" VERBATIM)
    list(APPEND app_outputs ${image})
    if(NOT suffix STREQUAL "cubin.fatbin")
        list(APPEND scale_images ${image})
    endif()
endforeach()
add_custom_target(cfrjit_driver_apps ALL DEPENDS ${app_outputs})

add_executable(cfrjit_driver_api_app ${CFRJIT_DRIVER_APPS}/driver_api_app.cpp)
target_include_directories(cfrjit_driver_api_app PRIVATE ${CFRJIT_CUDA_INCLUDE})
target_link_libraries(cfrjit_driver_api_app PRIVATE ${stub_libcuda})
set_target_properties(cfrjit_driver_api_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${apps_out}
    SKIP_BUILD_RPATH ON)
add_dependencies(cfrjit_driver_api_app cfrjit_cuda cfrjit_driver_apps)
add_test(NAME "driver-app: driver_api_app" COMMAND cfrjit_driver_api_app ${scale_images})
set_tests_properties("driver-app: driver_api_app" PROPERTIES ENVIRONMENT "${driver_env}"
    PASS_REGULAR_EXPRESSION "driver_api_app: OK")
add_test(NAME "driver-app: cubin-only image is refused" COMMAND cfrjit_driver_api_app ${apps_out}/scale.cubin.fatbin)
set_tests_properties("driver-app: cubin-only image is refused" PROPERTIES ENVIRONMENT "${driver_env}"
    PASS_REGULAR_EXPRESSION "CUDA_ERROR_NO_BINARY_FOR_GPU")

# cfr-run finds the driver by itself and prints the per-kernel summary.
add_test(NAME "driver-app: cfr-run summary and JSON"
    COMMAND cfr-run --json ${apps_out}/runtime_app.stats.json -- ${apps_out}/runtime_app_static)
set_tests_properties("driver-app: cfr-run summary and JSON" PROPERTIES
    PASS_REGULAR_EXPRESSION "_Z9saxpy_oddfPKfPfi +1 ")

# Object lifetimes, device resets, context destruction, stream capture and graphs (conditional
# nodes included), all under the driver's strict mode. Runtime-API programs are PTX only, with static and with shared cudart.
set(strict_env "${driver_env};CFRJIT_EMULATOR_STRICT=1")
set(lifetime_outputs)
foreach(mode static shared)
    foreach(app reset_app graph_capture_app graph_nodes_app conditional_graph_app)
        set(flags -gencode arch=compute_75,code=compute_75)
        if(mode STREQUAL shared)
            list(APPEND flags -cudart shared)
        endif()
        set(exe ${apps_out}/${app}_${mode})
        add_custom_command(OUTPUT ${exe}
            COMMAND ${CFRJIT_NVCC_COMMAND} ${flags} -o ${exe} ${CFRJIT_DRIVER_APPS}/${app}.cu
            DEPENDS ${CFRJIT_DRIVER_APPS}/${app}.cu
            COMMENT "nvcc ${app}.cu (${mode} cudart, PTX only)" VERBATIM)
        list(APPEND lifetime_outputs ${exe})
        set(variants "")
        if(app STREQUAL reset_app)
            set(variants thread)
        endif()
        foreach(variant "" ${variants})
            set(test "driver-app: ${app} (${mode} cudart)")
            if(variant)
                set(test "driver-app: ${app} ${variant} (${mode} cudart)")
            endif()
            add_test(NAME "${test}" COMMAND ${exe} ${variant})
            set_tests_properties("${test}" PROPERTIES ENVIRONMENT "${strict_env}"
                PASS_REGULAR_EXPRESSION "${app}: OK" FAIL_REGULAR_EXPRESSION "FAILED:")
        endforeach()
    endforeach()
endforeach()
add_custom_target(cfrjit_driver_lifetime_apps ALL DEPENDS ${lifetime_outputs})

# The occupancy calculator, Thrust and CUB's DeviceReduce (which read the kernels' PTX version),
# tensor cores, warp reductions and asynchronous copies (tensor_app, compute_80), grid-wide
# synchronisation (coop_app), thread-block clusters (cluster_app, compute_90), 32-bit shared
# addresses that wrap around (shared_wrap_app) and the convergence tests' kernels (convergent_app,
# compute_90 for elect.sync), through cudart (static cudart, PTX only).
set(attribute_outputs)
foreach(app occupancy_app thrust_app cub_app tensor_app coop_app cluster_app shared_wrap_app
        convergent_app)
    set(exe ${apps_out}/${app}_static)
    set(arch 75)
    set(depends ${CFRJIT_DRIVER_APPS}/${app}.cu)
    if(app STREQUAL tensor_app)
        set(arch 80)
    elseif(app STREQUAL cluster_app)
        set(arch 90)
    elseif(app STREQUAL convergent_app)
        set(arch 90)
        file(GLOB convergent_kernels ${CFRJIT_DRIVER_APPS}/../../passes/convergent/*.cu)
        list(APPEND depends ${convergent_kernels})
    endif()
    add_custom_command(OUTPUT ${exe}
        COMMAND ${CFRJIT_NVCC_COMMAND} -gencode arch=compute_${arch},code=compute_${arch} -o ${exe}
            ${CFRJIT_DRIVER_APPS}/${app}.cu
        DEPENDS ${depends}
        COMMENT "nvcc ${app}.cu (static cudart, PTX only)" VERBATIM)
    list(APPEND attribute_outputs ${exe})
    set(args)
    if(app STREQUAL convergent_app)
        set(args --strict-emulator)
    elseif(app STREQUAL coop_app)
        set(args --ordinary-launch)
    endif()
    add_test(NAME "driver-app: ${app} (static cudart)" COMMAND ${exe} ${args})
    set_tests_properties("driver-app: ${app} (static cudart)" PROPERTIES
        ENVIRONMENT "${strict_env}" PASS_REGULAR_EXPRESSION "${app}: OK"
        FAIL_REGULAR_EXPRESSION "FAILED:")
endforeach()
add_custom_target(cfrjit_driver_attribute_apps ALL DEPENDS ${attribute_outputs})

foreach(app ctx_destroy_drv strict_violation_drv)
    add_executable(cfrjit_${app} ${CFRJIT_DRIVER_APPS}/${app}.cpp)
    target_include_directories(cfrjit_${app} PRIVATE ${CFRJIT_CUDA_INCLUDE})
    target_link_libraries(cfrjit_${app} PRIVATE ${stub_libcuda})
    set_target_properties(cfrjit_${app} PROPERTIES OUTPUT_NAME ${app}
        RUNTIME_OUTPUT_DIRECTORY ${apps_out} SKIP_BUILD_RPATH ON)
    add_dependencies(cfrjit_${app} cfrjit_cuda cfrjit_driver_apps)
endforeach()
set(scale_ptx ${apps_out}/scale.ptx)
add_test(NAME "driver-app: ctx_destroy_drv" COMMAND cfrjit_ctx_destroy_drv ${scale_ptx})
set_tests_properties("driver-app: ctx_destroy_drv" PROPERTIES ENVIRONMENT "${strict_env}"
    PASS_REGULAR_EXPRESSION "ctx_destroy_drv: OK" FAIL_REGULAR_EXPRESSION "FAILED:")

# Each misuse: in strict mode the driver aborts with its message (what the regex shows, then the
# exit status of SIGABRT); otherwise the call returns the documented error.
set(violations
    "event-after-ctx-destroy|CUDA_ERROR_INVALID_HANDLE|cuEventRecord: event 0x[0-9a-f]+ is destroyed: created by cuEventCreate .*, destroyed by cuCtxDestroy"
    "stream-after-destroy|CUDA_ERROR_INVALID_HANDLE|cuStreamSynchronize: stream 0x[0-9a-f]+ is destroyed: created by cuStreamCreate .*, destroyed by cuStreamDestroy"
    "function-after-unload|CUDA_ERROR_INVALID_HANDLE|cuLaunchKernel: function 0x[0-9a-f]+ is destroyed: created by cuModuleGetFunction .*, destroyed by cuModuleUnload"
    "double-free|CUDA_ERROR_INVALID_VALUE|cuMemFree_v2: device memory 0x[0-9a-f]+ is freed: created by cuMemAlloc_v2 .*, destroyed by cuMemFree_v2"
    "event-after-primary-reset|CUDA_ERROR_INVALID_HANDLE|cuEventRecord: event 0x[0-9a-f]+ is destroyed: created by cuEventCreate .*, destroyed by cuDevicePrimaryCtxReset"
    "function-of-other-context|CUDA_ERROR_INVALID_HANDLE|cuLaunchKernel: function 0x[0-9a-f]+ belongs to context 0x[0-9a-f]+, not to context"
    "captured-event-query|CUDA_ERROR_CAPTURED_EVENT|cuEventQuery: event 0x[0-9a-f]+ was last recorded in a stream capture"
    "capturing-stream-sync|CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED|cuStreamSynchronize: stream 0x[0-9a-f]+ is capturing"
    "legacy-stream-in-capture|CUDA_ERROR_STREAM_CAPTURE_IMPLICIT|cuLaunchKernel: stream 0x[0-9a-f]+ is capturing .* the legacy default stream"
    "alloc-in-capture|CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED|cuMemAlloc_v2: stream 0x[0-9a-f]+ is capturing .* forbids potentially unsafe calls"
    "unjoined-fork|CUDA_ERROR_STREAM_CAPTURE_UNJOINED|cuStreamEndCapture: stream 0x[0-9a-f]+ joined capture")
foreach(violation IN LISTS violations)
    string(REPLACE "|" ";" parts "${violation}")
    list(GET parts 0 case)
    list(GET parts 1 error)
    list(GET parts 2 message)
    add_test(NAME "driver-app: strict aborts on ${case}"
        COMMAND sh -c "\"$0\" \"$@\"; echo \"exit status $?\"" $<TARGET_FILE:cfrjit_strict_violation_drv>
            ${case} ${scale_ptx})
    set_tests_properties("driver-app: strict aborts on ${case}" PROPERTIES
        ENVIRONMENT "${strict_env}"
        PASS_REGULAR_EXPRESSION "cfrjit driver: strict: ${message}.*exit status 134")
    add_test(NAME "driver-app: ${case} returns ${error}"
        COMMAND cfrjit_strict_violation_drv ${case} ${scale_ptx})
    set_tests_properties("driver-app: ${case} returns ${error}" PROPERTIES
        ENVIRONMENT "${driver_env};CFRJIT_EMULATOR_STRICT=0"
        PASS_REGULAR_EXPRESSION "${case}: ${error}\n" FAIL_REGULAR_EXPRESSION "FAILED:")
endforeach()
