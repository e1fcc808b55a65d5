# The images the image tests describe (test_image.cpp), made by nvcc at build time from
# data/image/kernels.cu: PTX text, a cubin, fatbins with machine code for two architectures
# beside PTX (zstd, LZ4 and plain), and an -rdc fatbin (relocatable ELF, 96-byte PTX headers).
# Without nvcc the tests that need them are skipped.
set(image_dir ${CMAKE_CURRENT_BINARY_DIR}/ptx/images)
target_compile_definitions(test_ptx PRIVATE CFRJIT_IMAGE_DIR="${image_dir}")
if(NOT CFRJIT_NVCC)
    return()
endif()
file(MAKE_DIRECTORY ${image_dir})
set(image_src ${CMAKE_CURRENT_SOURCE_DIR}/ptx/data/image/kernels.cu)
set(two_archs -gencode arch=compute_75,code=[sm_75,compute_75] -gencode arch=compute_90,code=sm_90)
set(image_outputs)
foreach(variant "kernels.ptx;-ptx;-arch=compute_75" "kernels.cubin;-cubin;-arch=sm_75"
        "kernels.zstd.fatbin;-fatbin;${two_archs}"
        "kernels.lz4.fatbin;-fatbin;--compress-mode=speed;${two_archs}"
        "kernels.plain.fatbin;-fatbin;--no-compress;${two_archs}"
        "kernels.rdc.fatbin;-fatbin;-rdc=true;-arch=sm_75")
    list(POP_FRONT variant name)
    add_custom_command(OUTPUT ${image_dir}/${name}
        COMMAND ${CFRJIT_NVCC_COMMAND} ${variant} -o ${image_dir}/${name} ${image_src}
        DEPENDS ${image_src} COMMENT "nvcc kernels.cu -> ${name}" VERBATIM)
    list(APPEND image_outputs ${image_dir}/${name})
endforeach()
add_custom_target(cfrjit_test_images DEPENDS ${image_outputs})
add_dependencies(test_ptx cfrjit_test_images)
