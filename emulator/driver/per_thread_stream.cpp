// Per-thread-default-stream entry points (_ptsz, _ptds): each forwards to its plain form with the
// per-thread default stream standing for the NULL stream and for the stream of synchronous work.
#include "emulator/driver/handles.hpp"

using cfr::driver::PerThreadDefaultStream;

CFR_EXPORT CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream,
                                                unsigned int flags) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuEventRecordWithFlags(hEvent, hStream, flags);
}
CFR_EXPORT CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuEventRecord(hEvent, hStream);
}
CFR_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX,
                                                   unsigned int gridDimY, unsigned int gridDimZ,
                                                   unsigned int blockDimX, unsigned int blockDimY,
                                                   unsigned int blockDimZ,
                                                   unsigned int sharedMemBytes, CUstream hStream,
                                                   void** kernelParams) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuLaunchCooperativeKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                                     blockDimZ, sharedMemBytes, hStream, kernelParams);
}
CFR_EXPORT CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void* userData) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuLaunchHostFunc(hStream, fn, userData);
}
CFR_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f,
                                          void** kernelParams, void** extra) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuLaunchKernelEx(config, f, kernelParams, extra);
}
CFR_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                        unsigned int gridDimZ, unsigned int blockDimX,
                                        unsigned int blockDimY, unsigned int blockDimZ,
                                        unsigned int sharedMemBytes, CUstream hStream,
                                        void** kernelParams, void** extra) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                          sharedMemBytes, hStream, kernelParams, extra);
}
CFR_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemAllocAsync(dptr, bytesize, hStream);
}
CFR_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemFreeAsync(dptr, hStream);
}
CFR_EXPORT CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpy2DAsync_v2(pCopy, hStream);
}
CFR_EXPORT CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D* pCopy) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpy2DUnaligned_v2(pCopy);
}
CFR_EXPORT CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D* pCopy) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpy2D_v2(pCopy);
}
CFR_EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                                       CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpyAsync(dst, src, ByteCount, hStream);
}
CFR_EXPORT CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                              size_t ByteCount, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpyDtoDAsync_v2(dstDevice, srcDevice, ByteCount, hStream);
}
CFR_EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                         size_t ByteCount) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount);
}
CFR_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void* dstHost, CUdeviceptr srcDevice,
                                              size_t ByteCount, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpyDtoHAsync_v2(dstHost, srcDevice, ByteCount, hStream);
}
CFR_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
}
CFR_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void* srcHost,
                                              size_t ByteCount, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpyHtoDAsync_v2(dstDevice, srcHost, ByteCount, hStream);
}
CFR_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void* srcHost,
                                         size_t ByteCount) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
}
CFR_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpy(dst, src, ByteCount);
}
CFR_EXPORT CUresult cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N,
                                          CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD16Async(dstDevice, us, N, hStream);
}
CFR_EXPORT CUresult cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD16_v2(dstDevice, us, N);
}
CFR_EXPORT CUresult cuMemsetD2D16Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch,
                                            unsigned short us, size_t Width, size_t Height,
                                            CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD2D16Async(dstDevice, dstPitch, us, Width, Height, hStream);
}
CFR_EXPORT CUresult cuMemsetD2D16_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                          size_t Width, size_t Height) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD2D16_v2(dstDevice, dstPitch, us, Width, Height);
}
CFR_EXPORT CUresult cuMemsetD2D32Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                            size_t Width, size_t Height, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD2D32Async(dstDevice, dstPitch, ui, Width, Height, hStream);
}
CFR_EXPORT CUresult cuMemsetD2D32_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                          size_t Width, size_t Height) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD2D32_v2(dstDevice, dstPitch, ui, Width, Height);
}
CFR_EXPORT CUresult cuMemsetD2D8Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                           size_t Width, size_t Height, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD2D8Async(dstDevice, dstPitch, uc, Width, Height, hStream);
}
CFR_EXPORT CUresult cuMemsetD2D8_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                         size_t Width, size_t Height) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD2D8_v2(dstDevice, dstPitch, uc, Width, Height);
}
CFR_EXPORT CUresult cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N,
                                          CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD32Async(dstDevice, ui, N, hStream);
}
CFR_EXPORT CUresult cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD32_v2(dstDevice, ui, N);
}
CFR_EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                         CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD8Async(dstDevice, uc, N, hStream);
}
CFR_EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemsetD8_v2(dstDevice, uc, N);
}
CFR_EXPORT CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback,
                                             void* userData, unsigned int flags) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamAddCallback(hStream, callback, userData, flags);
}
CFR_EXPORT CUresult cuStreamGetCtx_ptsz(CUstream hStream, CUcontext* pctx) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamGetCtx(hStream, pctx);
}
CFR_EXPORT CUresult cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext* pCtx,
                                           CUgreenCtx* pGreenCtx) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamGetCtx_v2(hStream, pCtx, pGreenCtx);
}
CFR_EXPORT CUresult cuStreamGetDevice_ptsz(CUstream hStream, CUdevice* device) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamGetDevice(hStream, device);
}
CFR_EXPORT CUresult cuStreamGetFlags_ptsz(CUstream hStream, unsigned int* flags) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamGetFlags(hStream, flags);
}
CFR_EXPORT CUresult cuStreamGetId_ptsz(CUstream hStream, unsigned long long* streamId) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamGetId(hStream, streamId);
}
CFR_EXPORT CUresult cuStreamGetPriority_ptsz(CUstream hStream, int* priority) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamGetPriority(hStream, priority);
}
CFR_EXPORT CUresult cuStreamQuery_ptsz(CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamQuery(hStream);
}
CFR_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamSynchronize(hStream);
}
CFR_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuStreamWaitEvent(hStream, hEvent, Flags);
}
CFR_EXPORT CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D* pCopy) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpy3D_v2(pCopy);
}
CFR_EXPORT CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D* pCopy, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpy3DAsync_v2(pCopy, hStream);
}
CFR_EXPORT CUresult cuMemcpyHtoA_v2_ptds(CUarray dstArray, size_t dstOffset, const void* srcHost,
                                         size_t ByteCount) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpyHtoA_v2(dstArray, dstOffset, srcHost, ByteCount);
}
CFR_EXPORT CUresult cuMemcpyAtoH_v2_ptds(void* dstHost, CUarray srcArray, size_t srcOffset,
                                         size_t ByteCount) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpyAtoH_v2(dstHost, srcArray, srcOffset, ByteCount);
}
