// Every driver entry point the shim wraps, by exact export name.
#pragma once

#define CFR_SHIM_HOOKS(X)                                                                          \
    X(cuGetProcAddress)                                                                            \
    X(cuGetProcAddress_v2)                                                                         \
    X(cuModuleLoad)                                                                                \
    X(cuModuleLoadData)                                                                            \
    X(cuModuleLoadDataEx)                                                                          \
    X(cuModuleLoadFatBinary)                                                                       \
    X(cuModuleUnload)                                                                              \
    X(cuModuleGetFunction)                                                                         \
    X(cuLibraryLoadData)                                                                           \
    X(cuLibraryLoadFromFile)                                                                       \
    X(cuLibraryUnload)                                                                             \
    X(cuLibraryGetKernel)                                                                          \
    X(cuLibraryGetModule)                                                                          \
    X(cuKernelGetFunction)                                                                         \
    X(cuLinkAddData)                                                                               \
    X(cuLinkAddData_v2)                                                                            \
    X(cuLinkAddFile)                                                                               \
    X(cuLinkAddFile_v2)                                                                            \
    X(cuLaunchKernel)                                                                              \
    X(cuLaunchKernel_ptsz)                                                                         \
    X(cuLaunchKernelEx)                                                                            \
    X(cuLaunchKernelEx_ptsz)                                                                       \
    X(cuLaunchCooperativeKernel)                                                                   \
    X(cuLaunchCooperativeKernel_ptsz)                                                              \
    X(cuCtxSynchronize)                                                                            \
    X(cuCtxSynchronize_v2)                                                                         \
    X(cuStreamSynchronize)                                                                         \
    X(cuStreamSynchronize_ptsz)                                                                    \
    X(cuCtxDestroy)                                                                                \
    X(cuCtxDestroy_v2)                                                                             \
    X(cuDevicePrimaryCtxRelease)                                                                   \
    X(cuDevicePrimaryCtxRelease_v2)
