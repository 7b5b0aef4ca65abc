// 100,000 CUDA streams with one small operation each (issue #31): after every stream's memset, one
// on the legacy stream, which waits for every blocking stream and which every blocking stream's next
// operation waits for. The timeline of such a program took gigabytes and the program aborted at exit
// (each legacy-stream operation kept a dependency on every stream). Every operation waits for the
// one before it, so the timeline is as long as the same work on one stream.
// Built with the system compiler against ptxray's libcudart.so.13 (no CUDA headers: the few
// declarations it needs are below, as cuda_runtime_api.h gives them).
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef int cudaError_t;
typedef struct CUstream_st *cudaStream_t;
cudaError_t cudaMalloc(void **pointer, size_t bytes);
cudaError_t cudaFree(void *pointer);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaMemsetAsync(void *pointer, int value, size_t bytes, cudaStream_t stream);
cudaError_t cudaMemset(void *pointer, int value, size_t bytes);
cudaError_t cudaDeviceSynchronize(void);

int main(int argc, char **argv) {
  const int count = argc > 1 ? atoi(argv[1]) : 100000;
  cudaStream_t *streams = malloc(sizeof *streams * (size_t)(count > 0 ? count : 1));
  void *buffer = NULL;
  if (!streams || count <= 0 || cudaMalloc(&buffer, 4)) {
    printf("setup failed\n");
    return 1;
  }
  for (int i = 0; i < count; ++i) {
    cudaError_t e = cudaStreamCreate(&streams[i]);
    if (!e)
      e = cudaMemsetAsync(buffer, i & 0xff, 4, streams[i]);
    if (!e)
      e = cudaMemset(buffer, 0, 4); // the legacy stream
    if (e) {
      printf("stream %d: error %d\n", i, e);
      return 1;
    }
  }
  if (cudaMemsetAsync(buffer, 1, 4, NULL) || cudaDeviceSynchronize()) {
    printf("synchronize failed\n");
    return 1;
  }
  for (int i = 0; i < count; ++i)
    cudaStreamDestroy(streams[i]);
  cudaFree(buffer);
  free(streams);
  printf("%d streams\n", count);
  return 0;
}
