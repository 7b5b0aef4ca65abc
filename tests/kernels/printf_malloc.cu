// ptxray test corpus: device runtime services.
// printf (vprintf with a packed .local argument buffer and .global string
// constants), malloc / free (extern .func declarations), assert (__assertfail),
// __trap, __brkpt, and a string-heavy kernel.
#include <cassert>
#include <cstdio>

struct Pair {
  int a;
  float b;
};

__global__ void printf_many(const int *ip, const double *dp, const char *name) {
  int t = threadIdx.x;
  char c = (char)('A' + (t & 15));
  short s = (short)(t * -3);
  unsigned char uc = (unsigned char)t;
  long long ll = (long long)ip[t] << 40;
  unsigned long long ull = 0xfedcba9876543210ull;
  float f = (float)dp[t];
  double d = dp[t];
  const void *ptr = ip + t;
  printf("plain string with no arguments\n");
  printf("int %d uint %u hex %x oct %o\n", ip[t], (unsigned)ip[t], ip[t], ip[t]);
  printf("char %c short %hd uchar %hhu\n", c, s, uc);
  printf("ll %lld ull %llu llx %llx\n", ll, ull, ull);
  printf("float %f (promoted) exp %e g %g double %.17g\n", f, f, f, d);
  printf("str %s ptr %p pct %%\n", name, ptr);
  printf("%d %d %d %d %d %d %d %d %d %d %d %d\n", t, t + 1, t + 2, t + 3, t + 4, t + 5, t + 6,
         t + 7, t + 8, t + 9, t + 10, t + 11);
  Pair p{t, f};
  printf("mixed: %d %f %c %lld %s\n", p.a, p.b, c, ll, "literal \"quoted\"\t\\");
  if (t == 0) printf("block %d of %d, tid (%d,%d,%d)\n", blockIdx.x, gridDim.x, threadIdx.x,
                     threadIdx.y, threadIdx.z);
}

__global__ void heap(int **slots, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int *buf = (int *)malloc(n * sizeof(int));
  if (buf == nullptr) {
    slots[t] = nullptr;
    return;
  }
  for (int k = 0; k < n; ++k) buf[k] = k * t;
  if (t & 1) {
    free(buf);
    slots[t] = nullptr;
  } else {
    slots[t] = buf;  // freed by a later launch
  }
}

__global__ void heap_release(int **slots) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (slots[t]) free(slots[t]);
}

struct Node {
  Node *next;
  int value;
};

__global__ void heap_new_delete(int *out, int n) {
  Node *head = nullptr;
  for (int k = 0; k < n; ++k) {
    Node *nd = new Node;
    nd->next = head;
    nd->value = k;
    head = nd;
  }
  int sum = 0;
  while (head) {
    Node *nx = head->next;
    sum += head->value;
    delete head;
    head = nx;
  }
  int *arr = new int[4];
  arr[threadIdx.x & 3] = sum;
  out[threadIdx.x] = arr[threadIdx.x & 3];
  delete[] arr;
}

__global__ void assertions(const int *in, int *out) {
  int t = threadIdx.x;
  assert(in[t] >= 0);
  assert(in[t] < 1000 && "value out of range");
  out[t] = in[t] * 2;
  if (in[t] == 999) __trap();
  if (in[t] == 998) __brkpt();
}
