// ptxray VM test kernel: a failing device assert. Thread `bad` fails the assertion; the launch must
// end in an error (CUDA_ERROR_ASSERT on a GPU), and the runner must exit with a nonzero status and
// write no outputs. Every other thread's store may or may not have happened.
// Reference: Reference.h (expectedError). Spec: specs/assert_fail.json.
#include <cassert>

extern "C" __global__ void assertOneThread(const int *in, int *out, int bad) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = in[t] + 1;
  assert(t != bad);
}
