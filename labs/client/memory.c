/* labs/client/memory.c: the memory calls in the student's process. They are the list's stubs
 * (cuda_stubs.h), around which the client keeps its table of device allocations: with it
 * the client tells a device address from the student's own memory, which the referee cannot
 * see and which copies therefore stage (client.h). Host memory the student pins
 * (cudaMallocHost, cudaHostAlloc) is made by the referee in the memory both processes
 * share, so copies from it need no staging, as on a GPU. */
#include <cuda_runtime.h>

#include "labs/client/client.h"
#include "labs/client/cuda_stubs.h"

cudaError_t cudaMalloc(void **devPtr, size_t size) {
    lab_client_site = __builtin_return_address(0);
    cudaError_t err = lab_stub_cudaMalloc(devPtr, size);
    if (err == cudaSuccess && devPtr && *devPtr) lab_client_device_alloc(*devPtr, size);
    return err;
}

cudaError_t cudaFree(void *devPtr) {
    lab_client_site = __builtin_return_address(0);
    cudaError_t err = lab_stub_cudaFree(devPtr);
    if (err == cudaSuccess && devPtr) lab_client_device_free(devPtr);
    return err;
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
    lab_client_site = __builtin_return_address(0);
    return lab_stub_cudaMallocHost(ptr, size);
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
    lab_client_site = __builtin_return_address(0);
    return lab_stub_cudaHostAlloc(pHost, size, flags);
}

cudaError_t cudaFreeHost(void *ptr) {
    lab_client_site = __builtin_return_address(0);
    return lab_stub_cudaFreeHost(ptr);
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
    lab_client_site = __builtin_return_address(0);
    return lab_stub_cudaHostRegister(ptr, size, flags);
}

cudaError_t cudaHostUnregister(void *ptr) {
    lab_client_site = __builtin_return_address(0);
    return lab_stub_cudaHostUnregister(ptr);
}
