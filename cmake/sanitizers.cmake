# CFRJIT_SANITIZE's instrumentation, by GCC or by clang. clang links its ASan runtime statically
# into executables by default; here every program and library shares the one shared runtime
# (-shared-libasan, found through the rpath), so that the runtime preloaded into an nvcc-built
# program is the one the instrumented driver and shim were built for. CFRJIT_FUZZ adds libFuzzer's
# coverage instrumentation to everything, so that the fuzz targets link the libraries as built.
if(CFRJIT_SANITIZE MATCHES "thread" AND CFRJIT_SANITIZE MATCHES "address")
    message(FATAL_ERROR "CFRJIT_SANITIZE: thread and address cannot be combined")
endif()
add_compile_options(-fsanitize=${CFRJIT_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_link_options(-fsanitize=${CFRJIT_SANITIZE})

if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-runtime-dir
                    OUTPUT_VARIABLE runtime_dir OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(CFRJIT_SANITIZE MATCHES "address")
        set(runtime ${runtime_dir}/libclang_rt.asan-x86_64.so)
    elseif(CFRJIT_SANITIZE MATCHES "thread")
        set(runtime ${runtime_dir}/libclang_rt.tsan-x86_64.so)
    else()
        set(runtime ${runtime_dir}/libclang_rt.ubsan_standalone-x86_64.so)
    endif()
    add_link_options(-shared-libsan -Wl,-rpath,${runtime_dir})
else()
    # GCC's instrumentation makes -Wmaybe-uninitialized see uninitialised reads that are not
    # there (libstdc++'s <regex> under Catch2): that warning is left to the plain build.
    add_compile_options(-Wno-maybe-uninitialized)
    foreach(entry thread:libtsan.so address:libasan.so undefined:libubsan.so)
        string(REPLACE ":" ";" entry ${entry})
        list(GET entry 0 sanitizer)
        if(CFRJIT_SANITIZE MATCHES ${sanitizer})
            list(GET entry 1 library)
            execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${library}
                            OUTPUT_VARIABLE runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
            break()
        endif()
    endforeach()
endif()
if(NOT EXISTS "${runtime}")
    message(FATAL_ERROR "CFRJIT_SANITIZE: the sanitizer runtime ${runtime} is missing "
                        "(install the compiler's sanitizer runtime: libclang-rt-16-dev for clang 16)")
endif()
set(CFRJIT_SANITIZER_RUNTIME ${runtime} CACHE INTERNAL "the sanitizer runtime to preload")
message(STATUS "cfrjit: sanitizers ${CFRJIT_SANITIZE}, runtime ${CFRJIT_SANITIZER_RUNTIME}")

if(CFRJIT_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CFRJIT_SANITIZE MATCHES "address")
        message(FATAL_ERROR "CFRJIT_FUZZ needs clang (-DCMAKE_CXX_COMPILER=clang++-16) and "
                            "-DCFRJIT_SANITIZE=address,undefined")
    endif()
    add_compile_options(-fsanitize=fuzzer-no-link)
endif()
