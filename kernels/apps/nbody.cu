// kernels/apps: all-pairs n-body, 600 bodies, two time steps. Positions are staged through an
// `extern __shared__` tile whose size is the block size (dynamic shared memory given at launch:
// 128 threads in the first step, 96 in the second); the last CTA is partial. Compared with a
// host reference in double precision, with a tolerance (the device uses rsqrtf and float sums).
#include "app_check.h"

#include <vector>

constexpr float kSoftening2 = 0.01f;
constexpr float kStep = 0.01f;

__global__ void bodyForces(const float4 *pos, float4 *acc, int n) {
  extern __shared__ float4 tile[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 me = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base < n; base += blockDim.x) {
    const int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
    const int inTile = min(static_cast<int>(blockDim.x), n - base);
    for (int k = 0; k < inTile; ++k) {
      const float4 other = tile[k];
      const float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
      const float inv = rsqrtf(dx * dx + dy * dy + dz * dz + kSoftening2);
      const float s = other.w * inv * inv * inv; // w is the mass
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = make_float4(ax, ay, az, 0.0f);
}

__global__ void integrate(float4 *pos, float4 *vel, const float4 *acc, int n, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = vel[i], p = pos[i];
  v.x += acc[i].x * dt;
  v.y += acc[i].y * dt;
  v.z += acc[i].z * dt;
  p.x += v.x * dt;
  p.y += v.y * dt;
  p.z += v.z * dt;
  vel[i] = v;
  pos[i] = p;
}

struct Body {
  double x, y, z, mass, vx, vy, vz;
};

void hostStep(std::vector<Body> &bodies) {
  const size_t n = bodies.size();
  std::vector<double> ax(n, 0.0), ay(n, 0.0), az(n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      const double dx = bodies[j].x - bodies[i].x, dy = bodies[j].y - bodies[i].y,
                   dz = bodies[j].z - bodies[i].z;
      const double inv = 1.0 / std::sqrt(dx * dx + dy * dy + dz * dz + kSoftening2);
      const double s = bodies[j].mass * inv * inv * inv;
      ax[i] += dx * s;
      ay[i] += dy * s;
      az[i] += dz * s;
    }
  for (size_t i = 0; i < n; ++i) {
    Body &b = bodies[i];
    b.vx += ax[i] * kStep;
    b.vy += ay[i] * kStep;
    b.vz += az[i] * kStep;
    b.x += b.vx * kStep;
    b.y += b.vy * kStep;
    b.z += b.vz * kStep;
  }
}

int main() {
  const int n = 600;
  Random random(8);
  std::vector<float4> pos(n), vel(n);
  std::vector<Body> bodies(n);
  for (int i = 0; i < n; ++i) {
    pos[i] = make_float4(random.uniform(-10, 10), random.uniform(-10, 10), random.uniform(-10, 10),
                         random.uniform(0.5f, 2.0f));
    vel[i] = make_float4(random.uniform(-1, 1), random.uniform(-1, 1), random.uniform(-1, 1), 0.0f);
    bodies[i] = {pos[i].x, pos[i].y, pos[i].z, pos[i].w, vel[i].x, vel[i].y, vel[i].z};
  }

  float4 *dPos, *dVel, *dAcc;
  CHECK(cudaMalloc(&dPos, n * sizeof(float4)));
  CHECK(cudaMalloc(&dVel, n * sizeof(float4)));
  CHECK(cudaMalloc(&dAcc, n * sizeof(float4)));
  CHECK(cudaMemcpy(dPos, pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dVel, vel.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  for (int block : {128, 96}) {
    const int grid = (n + block - 1) / block;
    bodyForces<<<grid, block, block * sizeof(float4)>>>(dPos, dAcc, n);
    CHECK_LAUNCH();
    integrate<<<grid, block>>>(dPos, dVel, dAcc, n, kStep);
    CHECK_LAUNCH();
    hostStep(bodies);
  }
  CHECK(cudaMemcpy(pos.data(), dPos, n * sizeof(float4), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(vel.data(), dVel, n * sizeof(float4), cudaMemcpyDeviceToHost));

  Verdict verdict;
  for (int i = 0; i < n; ++i) {
    const Body &b = bodies[i];
    verdict.expectNear(pos[i].x, b.x, 1e-5, 1e-5, "x", i);
    verdict.expectNear(pos[i].y, b.y, 1e-5, 1e-5, "y", i);
    verdict.expectNear(pos[i].z, b.z, 1e-5, 1e-5, "z", i);
    verdict.expectNear(vel[i].x, b.vx, 1e-4, 1e-4, "vx", i);
    verdict.expectNear(vel[i].y, b.vy, 1e-4, 1e-4, "vy", i);
    verdict.expectNear(vel[i].z, b.vz, 1e-4, 1e-4, "vz", i);
    verdict.expect(pos[i].w == static_cast<float>(b.mass), "mass[%d] changed to %.9g", i, pos[i].w);
  }
  CHECK(cudaFree(dPos));
  CHECK(cudaFree(dVel));
  CHECK(cudaFree(dAcc));
  return verdict.finish();
}
