// ptxray test corpus: device function calls.
// __noinline__ functions taking and returning structs (byval .param .align N
// .b8 arrays), recursion, function pointers (indirect calls with
// .callprototype), virtual functions (vtables of generic() function
// addresses), templates (mangled names), namespaces, __launch_bounds__,
// multiple return values through references.

struct Vec3 {
  float x, y, z;
};

struct __align__(16) Particle {
  Vec3 pos;
  Vec3 vel;
  int id;
  double mass;
};

__device__ __noinline__ Vec3 cross(Vec3 a, Vec3 b) {
  return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

__device__ __noinline__ Particle step(Particle p, float dt) {
  p.pos.x += p.vel.x * dt;
  p.pos.y += p.vel.y * dt;
  p.pos.z += p.vel.z * dt;
  p.id += 1;
  return p;
}

__device__ __noinline__ void minmax_ref(const float *v, int n, float &lo, float &hi) {
  lo = v[0];
  hi = v[0];
  for (int i = 1; i < n; ++i) {
    lo = fminf(lo, v[i]);
    hi = fmaxf(hi, v[i]);
  }
}

__device__ __noinline__ double mixed_args(char c, short s, int i, long long l, float f,
                                          double d, unsigned char uc, bool flag) {
  return flag ? c + s + i + l + f * d + uc : -d;
}

__device__ __noinline__ void no_args_no_ret() { __threadfence_block(); }

__global__ void struct_calls(Particle *ps, Vec3 *out, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle p = step(ps[i], dt);
  ps[i] = p;
  out[i] = cross(p.pos, p.vel);
  float lo, hi;
  minmax_ref(&p.pos.x, 3, lo, hi);
  no_args_no_ret();
  out[n + i].x = lo + hi + (float)mixed_args((char)i, (short)i, i, (long long)i * 3, lo, p.mass,
                                             (unsigned char)i, i & 1);
}

// Recursion: cannot be inlined; needs a real call stack (local depot).
__device__ __noinline__ int ackermann_small(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann_small(m - 1, 1);
  return ackermann_small(m - 1, ackermann_small(m, n - 1));
}

__device__ __noinline__ unsigned long long fib(int k) {
  return k < 2 ? (unsigned long long)k : fib(k - 1) + fib(k - 2);
}

__device__ int sum_tree(const int *nodes, int idx, int n, int depth) {
  if (idx >= n || depth > 20) return 0;
  int local[4];  // stack array in a recursive frame
  local[idx & 3] = nodes[idx];
  return local[idx & 3] + sum_tree(nodes, 2 * idx + 1, n, depth + 1) +
         sum_tree(nodes, 2 * idx + 2, n, depth + 1);
}

__global__ void recursion(const int *nodes, int n, unsigned long long *out) {
  int t = threadIdx.x;
  out[t] = fib(t & 15) + ackermann_small(2, t & 3) + sum_tree(nodes, 0, n, 0);
}

// Function pointers: indirect calls.
typedef float (*unary_fn)(float);
__device__ float op_square(float x) { return x * x; }
__device__ float op_negate(float x) { return -x; }
__device__ float op_half(float x) { return 0.5f * x; }
__device__ unary_fn g_ops[3] = {op_square, op_negate, op_half};

typedef Vec3 (*binary_vec_fn)(Vec3, Vec3);
__device__ binary_vec_fn g_vec_op = cross;

__device__ __noinline__ float apply(unary_fn f, float x) { return f(x); }

__global__ void indirect_calls(const float *in, float *out, int sel) {
  int t = threadIdx.x;
  unary_fn f = g_ops[(sel + t) % 3];
  float r = f(in[t]) + apply(g_ops[sel % 3], in[t]);
  Vec3 a{in[t], 1.0f, 2.0f}, b{3.0f, in[t], 4.0f};
  Vec3 c = g_vec_op(a, b);
  out[t] = r + c.x + c.y + c.z;
}

// Virtual functions (objects built in device code).
struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual int sides() const { return 0; }
  __device__ virtual ~Shape() {}
};
struct Square : Shape {
  float s;
  __device__ explicit Square(float v) : s(v) {}
  __device__ float area() const override { return s * s; }
  __device__ int sides() const override { return 4; }
};
struct Circle : Shape {
  float r;
  __device__ explicit Circle(float v) : r(v) {}
  __device__ float area() const override { return 3.14159265f * r * r; }
};

__global__ void virtual_calls(const float *in, float *out) {
  int t = threadIdx.x;
  Square sq(in[t]);
  Circle ci(in[t] + 1.0f);
  Shape *s = (t & 1) ? static_cast<Shape *>(&sq) : static_cast<Shape *>(&ci);
  out[t] = s->area() + s->sides();
}

// Templates and namespaces.
namespace ptxray {
namespace detail {
template <typename T, int Unroll>
__device__ __noinline__ T dot(const T *a, const T *b, int n) {
  T acc = T(0);
#pragma unroll
  for (int k = 0; k < Unroll; ++k)
    if (k < n) acc += a[k] * b[k];
  return acc;
}
}  // namespace detail

template <typename T>
__global__ void __launch_bounds__(256, 2) dot_kernel(const T *a, const T *b, T *out, int n) {
  out[threadIdx.x] = detail::dot<T, 4>(a + threadIdx.x * n, b + threadIdx.x * n, n);
}

template __global__ void dot_kernel<float>(const float *, const float *, float *, int);
template __global__ void dot_kernel<double>(const double *, const double *, double *, int);
template __global__ void dot_kernel<int>(const int *, const int *, int *, int);

__global__ void __launch_bounds__(128) namespaced_kernel(int *out) {
  out[threadIdx.x] = detail::dot<int, 2>(out, out + 2, 2);
}

class Accumulator {
 public:
  __device__ explicit Accumulator(int base) : base_(base) {}
  __device__ __noinline__ int add(int v) const { return base_ + v; }
  __device__ static int twice(int v) { return 2 * v; }

 private:
  int base_;
};

__global__ void method_calls(int *out) {
  Accumulator acc(out[0]);
  out[threadIdx.x + 1] = acc.add((int)threadIdx.x) + Accumulator::twice(threadIdx.x);
}
}  // namespace ptxray

// Exact block size / register / cluster hints.
__global__ void __launch_bounds__(64, 4) bounded(float *p) { p[threadIdx.x] *= 2.0f; }

__global__ void __maxnreg__(40) max_regs(float *p) { p[threadIdx.x] += 1.0f; }

// C linkage: unmangled names.
extern "C" __global__ void c_linkage_kernel(int *p, int v) { p[threadIdx.x] = v; }
extern "C" __device__ __noinline__ int c_linkage_helper(int v) { return v * 3 + 1; }
extern "C" __global__ void c_linkage_caller(int *p) { p[threadIdx.x] = c_linkage_helper(p[0]); }
