// CUDA C++ twins of the HSAIL benchmark kernels (benchmarks/kernels/), the
// same algorithms written as a CUDA programmer writes them. Built on the
// GPU machine with
// `nvcc -O3 -arch=sm_90 --fmad=false --ftz=true -ptx twins.cu -o twins.ptx`;
// openhsa-bench-gpu loads the PTX (OPENHSA_BENCH_CUDA_TWINS) and times
// both in one run. extern "C": the names stay as written. --fmad=false: no
// contraction the HSAIL does not ask for (fmaf where HSAIL has mad);
// --ftz=true: the base profile's flushing, which the HSAIL runs with on a
// GPU agent without pageable memory access.
extern "C" __global__ void empty_kernel() {}

extern "C" __global__ void vector_add(const float *a, const float *b,
                                      float *c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" __global__ void sgemm_naive(const float *a, const float *b,
                                       float *c, unsigned n) {
  unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
  float sum = 0.0f;
  for (unsigned k = 0; k < n; ++k)
    sum = fmaf(a[row * n + k], b[k * n + col], sum);
  c[row * n + col] = sum;
}

extern "C" __global__ void sgemm_tiled(const float *a, const float *b,
                                       float *c, unsigned n) {
  __shared__ float as[16][16], bs[16][16];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  unsigned col = blockIdx.x * 16 + tx, row = blockIdx.y * 16 + ty;
  float sum = 0.0f;
  for (unsigned t = 0; t < n; t += 16) {
    as[ty][tx] = a[row * n + t + tx];
    bs[ty][tx] = b[(t + ty) * n + col];
    __syncthreads();
    for (unsigned k = 0; k < 16; ++k)
      sum = fmaf(as[ty][k], bs[k][tx], sum);
    __syncthreads();
  }
  c[row * n + col] = sum;
}

extern "C" __global__ void reduce(const float *in, float *partial,
                                  unsigned n) {
  __shared__ float scratch[256];
  unsigned lid = threadIdx.x, gid = blockIdx.x * blockDim.x + lid;
  scratch[lid] = gid < n ? in[gid] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (lid < s)
      scratch[lid] += scratch[lid + s];
    __syncthreads();
  }
  if (lid == 0)
    partial[blockIdx.x] = scratch[0];
}

extern "C" __global__ void mandelbrot(unsigned *out, unsigned width,
                                      unsigned height, unsigned max_iter,
                                      float x0, float y0, float step) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  float cx = fmaf(float(x), step, x0), cy = fmaf(float(y), step, y0);
  float zx = 0.0f, zy = 0.0f;
  unsigned i = 0;
  for (; i < max_iter; ++i) {
    float zx2 = zx * zx, zy2 = zy * zy;
    if (zx2 + zy2 > 4.0f)
      break;
    float t = zx * zy;
    zy = (t + t) + cy;
    zx = (zx2 - zy2) + cx;
  }
  out[y * width + x] = i;
}

extern "C" __global__ void nbody(const float4 *pos, const float4 *vel,
                                 float4 *pos_out, float4 *vel_out, unsigned n,
                                 float dt, float eps2) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float4 p = pos[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (unsigned j = 0; j < n; ++j) {
    float4 q = pos[j];
    float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
    float r2 = fmaf(dz, dz, fmaf(dy, dy, dx * dx)) + eps2;
    float s = q.w / (sqrtf(r2) * r2);
    ax = fmaf(dx, s, ax);
    ay = fmaf(dy, s, ay);
    az = fmaf(dz, s, az);
  }
  float4 v = vel[i];
  v.x = fmaf(ax, dt, v.x);
  v.y = fmaf(ay, dt, v.y);
  v.z = fmaf(az, dt, v.z);
  p.x = fmaf(v.x, dt, p.x);
  p.y = fmaf(v.y, dt, p.y);
  p.z = fmaf(v.z, dt, p.z);
  pos_out[i] = p;
  vel_out[i] = v;
}

extern "C" __global__ void stencil(const float *in, float *out,
                                   unsigned width) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x + 1;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (x >= width - 1 || y >= width - 1)
    return;
  unsigned c = y * width + x;
  float s = ((in[c - 1] + in[c + 1]) + in[c - width]) + in[c + width];
  out[c] = fmaf(in[c], 0.5f, s * 0.125f);
}

// A prototype of issue 11's second queue design, a persistent GPU-side
// packet processor ("hardware rings"): one long-running grid reads AQL
// kernel dispatch packets from a ring in mapped host memory, runs their
// work-groups itself (blocks take work-groups in turn) and decrements the
// completion signal: no host thread between the packet and its completion.
// CUDA lets a kernel launch another only through dynamic parallelism, whose
// device runtime ships with the toolkit, not the driver, so the grid runs
// the kernels' work-groups as device functions it was compiled with: here
// kernel object 0 is an empty kernel and 1 vector add. Block 0's thread 0
// polls the ring and hands each packet to all blocks through a generation
// counter in device memory; the last block to finish a packet completes it.
namespace persistent {
struct Packet { // hsa_kernel_dispatch_packet_t
  unsigned short header, setup, wg_x, wg_y, wg_z, reserved0;
  unsigned grid_x, grid_y, grid_z, private_size, group_size;
  unsigned long long kernel_object;
  void *kernarg;
  unsigned long long reserved2, completion_signal;
};
struct VaddArgs {
  const float *a, *b;
  float *c;
  unsigned n;
};
// In device memory, zeroed before each launch.
struct State {
  Packet current;
  unsigned generation, finished;
  int stopping;
};

__device__ void runGroup(const Packet &p, const VaddArgs &args,
                         unsigned group) {
  if (p.kernel_object == 1 && threadIdx.x < p.wg_x) {
    unsigned i = group * p.wg_x + threadIdx.x;
    if (i < args.n)
      args.c[i] = args.a[i] + args.b[i];
  }
}
} // namespace persistent

// ring: the packets (mask + 1 of them); read_index: advanced as packets
// complete; stop: set by the host to end the grid; state: zeroed device
// memory. 1-D dispatches of at most blockDim.x work-items a group.
extern "C" __global__ void persistent_processor(persistent::Packet *ring,
                                                unsigned mask,
                                                unsigned long long *read_index,
                                                volatile int *stop,
                                                persistent::State *state) {
  using namespace persistent;
  __shared__ Packet p;
  __shared__ VaddArgs args;
  __shared__ int quit;
  __shared__ unsigned long long words[8];
  unsigned seen = 0;
  for (unsigned long long index = 0;; ++index) {
    Packet *slot = &ring[index & mask];
    if (blockIdx.x == 0 && threadIdx.x < 32) {
      // One warp polls and reads: its 8 loads of the packet cross the bus
      // at once, not one after the other.
      if (threadIdx.x == 0) {
        volatile unsigned short *h = &slot->header;
        while ((*h & 0xff) != 2 /* KERNEL_DISPATCH */ && !*stop)
          ;
        // Every block is done with the previous packet.
        while (atomicAdd(&state->finished, 0) != (index ? gridDim.x : 0))
          ;
        __threadfence_system();
      }
      __syncwarp();
      if (threadIdx.x < 8)
        words[threadIdx.x] =
            reinterpret_cast<const volatile unsigned long long *>(
                slot)[threadIdx.x];
      __syncwarp();
      if (threadIdx.x < 8)
        reinterpret_cast<unsigned long long *>(&state->current)[threadIdx.x] =
            words[threadIdx.x];
      __syncwarp();
      if (threadIdx.x == 0) {
        state->stopping = *stop;
        state->finished = 0;
        __threadfence();
        atomicAdd(&state->generation, 1);
      }
    }
    if (threadIdx.x == 0) {
      while (atomicAdd(&state->generation, 0) == seen)
        ;
      __threadfence();
      const volatile unsigned long long *from =
          reinterpret_cast<const volatile unsigned long long *>(
              &state->current);
      for (int w = 0; w < 8; ++w)
        reinterpret_cast<unsigned long long *>(&p)[w] = from[w];
      quit = *const_cast<volatile int *>(&state->stopping);
      // The kernel's arguments, read once a block (they are in host memory).
      if (!quit && p.kernel_object == 1)
        args = *static_cast<const VaddArgs *>(p.kernarg);
    }
    ++seen;
    __syncthreads();
    if (quit)
      return;
    const unsigned groups = (p.grid_x + p.wg_x - 1) / p.wg_x;
    for (unsigned g = blockIdx.x; g < groups; g += gridDim.x)
      runGroup(p, args, g);
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      if (atomicAdd(&state->finished, 1) == gridDim.x - 1) { // The last.
        // Stores and a reduction the GPU does not wait for.
        *reinterpret_cast<volatile unsigned short *>(&slot->header) =
            1; // INVALID
        *reinterpret_cast<volatile unsigned long long *>(read_index) =
            index + 1;
        __threadfence_system();
        if (p.completion_signal)
          atomicAdd_system(
              reinterpret_cast<unsigned long long *>(p.completion_signal),
              ~0ull);
      }
    }
  }
}
