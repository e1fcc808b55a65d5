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
            COMMAND ${CFRJIT_NVCC} ${flags} -o ${exe} ${CFRJIT_DRIVER_APPS}/${app}.cu
            DEPENDS ${CFRJIT_DRIVER_APPS}/${app}.cu
            COMMENT "nvcc ${app}.cu (${mode} cudart)" VERBATIM)
        list(APPEND app_outputs ${exe})
        add_test(NAME "driver-app: ${app} (${mode} cudart)" COMMAND ${exe})
        set_tests_properties("driver-app: ${app} (${mode} cudart)" PROPERTIES ENVIRONMENT "${driver_env}"
            PASS_REGULAR_EXPRESSION "${app}: OK" FAIL_REGULAR_EXPRESSION "FAILED")
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
    add_custom_command(OUTPUT ${image} COMMAND ${CFRJIT_NVCC} ${variant} -o ${image} ${scale_src}
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
