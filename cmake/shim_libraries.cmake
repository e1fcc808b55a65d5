# The libraries linked into libcfrjit.so (ptx/, passes/, runtime/) are compiled once, for the shim
# and for every tool, test and benchmark that uses them. libcfrjit.so must load where only glibc
# and a driver exist, so they are compiled the way the shim needs them:
#   - position-independent, with hidden visibility (interpose/exports.map decides what is exported);
#   - fmt compiled in, once (no libfmt.so), through their PUBLIC link to cfrjit_fmt
#     (cmake/fmt_library.cmake);
#   - lz4 and zstd (fatbin payloads) from their static archives: cfrjit_compression.
find_library(CFRJIT_LZ4_STATIC NAMES liblz4.a REQUIRED)
find_library(CFRJIT_ZSTD_STATIC NAMES libzstd.a REQUIRED)
add_library(cfrjit_compression INTERFACE)
target_include_directories(cfrjit_compression INTERFACE ${LZ4_INCLUDE_DIRS})
target_link_libraries(cfrjit_compression INTERFACE ${CFRJIT_LZ4_STATIC} ${CFRJIT_ZSTD_STATIC})

# cfrjit_shim_component(TARGET): compile TARGET's sources for linking into libcfrjit.so.
function(cfrjit_shim_component target)
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON
                          CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()
