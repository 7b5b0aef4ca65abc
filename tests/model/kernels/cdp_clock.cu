// A child grid that waits on its clock (tests/model/ChildGridTimeTest.cpp): its time is at least the
// wait, and the launch that launched it lasts until it is done. PTX (nvcc 13), compiled in a fixed
// directory so that its .file names no checkout:
//   mkdir -p /tmp/ptxray-cdp-kernels && cp tests/model/kernels/cdp_clock.cu /tmp/ptxray-cdp-kernels &&
//   (cd /tmp/ptxray-cdp-kernels && nvcc -rdc=true -arch=compute_90 -lineinfo -ptx cdp_clock.cu) &&
//   cp /tmp/ptxray-cdp-kernels/cdp_clock.ptx tests/model/kernels/
__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

__global__ void spinParent(long long cycles) {
  spin<<<1, 32>>>(cycles);
}
