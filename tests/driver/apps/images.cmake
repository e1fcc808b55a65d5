# Programs whose images the driver must choose from, link or load lazily, run on the emulated driver
# (included from emulator/driver/CMakeLists.txt after apps.cmake): two-file -rdc programs (the
# second unit of one has only template and internal kernels), a
# Driver-API program that links PTX with cuLink*, fatbins with machine code and PTX for various
# architectures, and a fatbin whose PTX lacks a kernel its machine code has.
set(images_src ${CMAKE_CURRENT_LIST_DIR})
set(images_out ${CMAKE_BINARY_DIR}/tests/driver/apps)
file(MAKE_DIRECTORY ${images_out})
set(images_env "CFRJIT_EMULATOR_STRICT=1;LD_LIBRARY_PATH=${CFRJIT_DRIVER_DIR}")
set(images_stub ${CFRJIT_CUDA_INCLUDE}/../lib64/stubs/libcuda.so)
get_filename_component(images_cuda_bin "${CFRJIT_NVCC}" DIRECTORY)
find_program(CFRJIT_FATBINARY fatbinary HINTS ${images_cuda_bin} /usr/local/cuda/bin)
if(NOT CFRJIT_NVCC OR NOT CFRJIT_FATBINARY OR NOT EXISTS ${images_stub})
    message(STATUS "cfrjit: nvcc, fatbinary or the libcuda stub missing; image tests not built")
    return()
endif()

# A test of one program under both module-loading modes: the default (lazy) and EAGER.
function(cfrjit_image_test name)
    cmake_parse_arguments(arg "" "EXPECT" "COMMAND" ${ARGN})
    foreach(loading default EAGER)
        set(env ${images_env})
        set(test "driver-app: ${name}")
        if(loading STREQUAL EAGER)
            list(APPEND env CUDA_MODULE_LOADING=EAGER)
            set(test "${test}, eager loading")
        endif()
        add_test(NAME "${test}" COMMAND ${arg_COMMAND})
        set_tests_properties("${test}" PROPERTIES ENVIRONMENT "${env}"
            PASS_REGULAR_EXPRESSION "${arg_EXPECT}" FAIL_REGULAR_EXPRESSION "FAILED")
    endforeach()
endfunction()

set(image_outputs)

# nvcc builds of runtime-API programs, static and shared cudart: <name> <sources> -- <flags>.
function(cfrjit_runtime_image_app name)
    cmake_parse_arguments(arg "" "" "SOURCES;FLAGS" ${ARGN})
    foreach(mode static shared)
        set(flags ${arg_FLAGS} "-DAPP_NAME=\"${name}\"")
        if(mode STREQUAL shared)
            list(APPEND flags -cudart shared)
        endif()
        set(exe ${images_out}/${name}_${mode})
        add_custom_command(OUTPUT ${exe}
            COMMAND ${CFRJIT_NVCC_COMMAND} ${flags} -o ${exe} ${arg_SOURCES}
            DEPENDS ${arg_SOURCES} COMMENT "nvcc ${name} (${mode} cudart)" VERBATIM)
        list(APPEND image_outputs ${exe})
        cfrjit_image_test("${name} (${mode} cudart)" COMMAND ${exe} EXPECT "${name}: OK")
    endforeach()
    set(image_outputs ${image_outputs} PARENT_SCOPE)
endfunction()

cfrjit_runtime_image_app(rdc_app
    SOURCES ${images_src}/rdc_app.cu ${images_src}/rdc_app_lib.cu
    FLAGS -rdc=true -gencode arch=compute_75,code=compute_75)
cfrjit_runtime_image_app(rdc_template_app
    SOURCES ${images_src}/rdc_template_app.cu ${images_src}/rdc_template_lib.cu
    FLAGS -rdc=true -gencode arch=compute_75,code=compute_75)
cfrjit_runtime_image_app(image_newer_ptx SOURCES ${images_src}/images.cu
    FLAGS -gencode arch=compute_90,code=sm_90 -gencode arch=compute_100,code=compute_100)
cfrjit_runtime_image_app(image_older_ptx SOURCES ${images_src}/images.cu
    FLAGS -gencode arch=compute_75,code=compute_75 -gencode arch=compute_100,code=compute_100)
cfrjit_runtime_image_app(image_older_ptx_sm90 SOURCES ${images_src}/images.cu
    FLAGS -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75
          -gencode arch=compute_100,code=compute_100)

# PTX compiled separately (nvcc -ptx): <output> <source> <flags>.
function(cfrjit_image_ptx output source)
    add_custom_command(OUTPUT ${images_out}/${output}
        COMMAND ${CFRJIT_NVCC_COMMAND} -ptx ${ARGN} -o ${images_out}/${output}
                ${images_src}/${source}
        DEPENDS ${images_src}/${source} COMMENT "nvcc -ptx ${source} -> ${output}" VERBATIM)
    set(image_outputs ${image_outputs} ${images_out}/${output} PARENT_SCOPE)
endfunction()

cfrjit_image_ptx(rdc_app.ptx rdc_app.cu -rdc=true -arch=compute_75)
cfrjit_image_ptx(rdc_app_lib.ptx rdc_app_lib.cu -rdc=true -arch=compute_75)
cfrjit_image_ptx(missing_kernel_both.ptx missing_kernel.cu -arch=compute_90)
cfrjit_image_ptx(missing_kernel_k1.ptx missing_kernel.cu -arch=compute_75 -DONLY_K1)

# An sm_90 emulator cubin with K1 and K2, packed by fatbinary beside compute_75 PTX with K1 only.
add_executable(cfrjit_make_cubin ${images_src}/make_cubin.cpp)
target_link_libraries(cfrjit_make_cubin PRIVATE cfrjit_ptx)
set(missing_cubin ${images_out}/missing_kernel_both.cubin)
set(missing_fatbin ${images_out}/missing_kernel.fatbin)
add_custom_command(OUTPUT ${missing_cubin}
    COMMAND cfrjit_make_cubin 90 ${missing_cubin} ${images_out}/missing_kernel_both.ptx
    DEPENDS cfrjit_make_cubin ${images_out}/missing_kernel_both.ptx
    COMMENT "emulator cubin with K1 and K2" VERBATIM)
add_custom_command(OUTPUT ${missing_fatbin}
    COMMAND ${CFRJIT_FATBINARY} -64 --create=${missing_fatbin}
            --image3=kind=elf,sm=90,file=${missing_cubin}
            --image3=kind=ptx,sm=75,file=${images_out}/missing_kernel_k1.ptx
    DEPENDS ${missing_cubin} ${images_out}/missing_kernel_k1.ptx
    COMMENT "fatbinary: sm_90 K1+K2, compute_75 K1" VERBATIM)
list(APPEND image_outputs ${missing_fatbin})
add_custom_target(cfrjit_image_apps ALL DEPENDS ${image_outputs})

# Driver-API programs linked against the toolkit's stub libcuda.
foreach(app link_drv image_missing_kernel)
    add_executable(cfrjit_${app} ${images_src}/${app}.cpp)
    target_include_directories(cfrjit_${app} PRIVATE ${CFRJIT_CUDA_INCLUDE})
    target_link_libraries(cfrjit_${app} PRIVATE ${images_stub})
    set_target_properties(cfrjit_${app} PROPERTIES OUTPUT_NAME ${app}
        RUNTIME_OUTPUT_DIRECTORY ${images_out} SKIP_BUILD_RPATH ON)
    add_dependencies(cfrjit_${app} cfrjit_cuda cfrjit_image_apps)
endforeach()
cfrjit_image_test(link_drv EXPECT "link_drv: OK"
    COMMAND cfrjit_link_drv ${images_out}/rdc_app.ptx ${images_out}/rdc_app_lib.ptx)
cfrjit_image_test(image_missing_kernel EXPECT "image_missing_kernel: OK"
    COMMAND cfrjit_image_missing_kernel ${missing_fatbin})
