// ptxvm test corpus: kernels that need many registers, for the register allocator (regalloc/,
// issue 13). Each keeps more values live than a budget that doubles its occupancy allows, and
// each has values of every class of the divergence lattice:
//   rp_chemistry  Singe-like: 96 per-reaction coefficients, the same in every thread (uniform),
//                 live across a loop over cells; per-cell concentrations and rates (divergent).
//   rp_stencil    a 7x7 box stencil: 49 coefficients (uniform) and a sliding 7x7 window of
//                 inputs in registers (divergent), each thread walking down a column.
//   rp_sgemm      a register-blocked SGEMM micro-kernel: 8x8 accumulators per thread, A and B
//                 fragments from shared memory.
//   rp_nbody      an n-body step with 8 bodies per thread: 48 accumulators and positions, the
//                 other bodies read from a shared tile (the same address in every lane).
// kernels/apps/register_pressure.cu runs them against host references.

#define RP_REACTIONS 48
#define RP_SPECIES 16

// coef: A[r], E[r] interleaved; conc and wdot: species-major, `cells` per species.
extern "C" __global__ void rp_chemistry(const float *__restrict__ coef, const float *__restrict__ temp,
                                        const float *__restrict__ conc, float *__restrict__ wdot, int cells)
{
    float A[RP_REACTIONS], E[RP_REACTIONS];
#pragma unroll
    for (int r = 0; r < RP_REACTIONS; ++r) {
        A[r] = coef[2 * r];
        E[r] = coef[2 * r + 1];
    }
    for (int cell = blockIdx.x * blockDim.x + threadIdx.x; cell < cells; cell += gridDim.x * blockDim.x) {
        const float invT = 1.0f / temp[cell];
        float c[RP_SPECIES], w[RP_SPECIES];
#pragma unroll
        for (int s = 0; s < RP_SPECIES; ++s) {
            c[s] = conc[s * cells + cell];
            w[s] = 0.0f;
        }
#pragma unroll
        for (int r = 0; r < RP_REACTIONS; ++r) {
            // Reactants a + b -> 2 p: constants once unrolled.
            const int a = r % RP_SPECIES, b = (r * 7 + 3) % RP_SPECIES, p = (r * 5 + 1) % RP_SPECIES;
            const float rate = A[r] * expf(-E[r] * invT) * c[a] * c[b];
            w[a] -= rate;
            w[b] -= rate;
            w[p] += 2.0f * rate;
        }
#pragma unroll
        for (int s = 0; s < RP_SPECIES; ++s)
            wdot[s * cells + cell] = w[s];
    }
}

#define RP_RADIUS 3
#define RP_WIDTH (2 * RP_RADIUS + 1)

// out[y][x] = sum over i, j < 7 of coef[i][j] * in[y + i][x + j], for x < width - 6 and
// y < height - 6; each thread computes `rows` rows of one column.
extern "C" __global__ void rp_stencil(const float *__restrict__ in, const float *__restrict__ coef,
                                      float *__restrict__ out, int width, int height, int rows)
{
    float k[RP_WIDTH][RP_WIDTH];
#pragma unroll
    for (int i = 0; i < RP_WIDTH; ++i)
#pragma unroll
        for (int j = 0; j < RP_WIDTH; ++j)
            k[i][j] = coef[i * RP_WIDTH + j];
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y0 = blockIdx.y * rows;
    const int outWidth = width - 2 * RP_RADIUS, outHeight = height - 2 * RP_RADIUS;
    if (x >= outWidth || y0 >= outHeight)
        return;
    float win[RP_WIDTH][RP_WIDTH];
#pragma unroll
    for (int i = 0; i < RP_WIDTH - 1; ++i)
#pragma unroll
        for (int j = 0; j < RP_WIDTH; ++j)
            win[i][j] = in[(y0 + i) * width + x + j];
    for (int y = y0; y < y0 + rows && y < outHeight; ++y) {
#pragma unroll
        for (int j = 0; j < RP_WIDTH; ++j)
            win[RP_WIDTH - 1][j] = in[(y + RP_WIDTH - 1) * width + x + j];
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < RP_WIDTH; ++i)
#pragma unroll
            for (int j = 0; j < RP_WIDTH; ++j)
                sum += k[i][j] * win[i][j];
        out[y * outWidth + x] = sum;
#pragma unroll
        for (int i = 0; i < RP_WIDTH - 1; ++i)
#pragma unroll
            for (int j = 0; j < RP_WIDTH; ++j)
                win[i][j] = win[i + 1][j];
    }
}

#define RP_TM 8
#define RP_TN 8
#define RP_BK 8
#define RP_BLOCK 16

// C[M][N] = A[M][K] * B[K][N], row-major; blockDim (16, 16), each thread an 8x8 block of C,
// each CTA a 128x128 tile; M, N multiples of 128 and K of 8.
extern "C" __global__ void rp_sgemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                                    int M, int N, int K)
{
    __shared__ float As[RP_BK][RP_BLOCK * RP_TM];
    __shared__ float Bs[RP_BK][RP_BLOCK * RP_TN];
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * RP_BLOCK + tx;
    const int row0 = blockIdx.y * RP_BLOCK * RP_TM, col0 = blockIdx.x * RP_BLOCK * RP_TN;
    float acc[RP_TM][RP_TN];
#pragma unroll
    for (int i = 0; i < RP_TM; ++i)
#pragma unroll
        for (int j = 0; j < RP_TN; ++j)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += RP_BK) {
        // 256 threads load the 8x128 slices of A (transposed) and B: 4 elements each.
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int idx = t + e * 256;
            const int ar = idx / RP_BK, ak = idx % RP_BK;
            As[ak][ar] = A[(row0 + ar) * K + k0 + ak];
            const int bk = idx / (RP_BLOCK * RP_TN), bc = idx % (RP_BLOCK * RP_TN);
            Bs[bk][bc] = B[(k0 + bk) * N + col0 + bc];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < RP_BK; ++k) {
            float a[RP_TM], b[RP_TN];
#pragma unroll
            for (int i = 0; i < RP_TM; ++i)
                a[i] = As[k][ty * RP_TM + i];
#pragma unroll
            for (int j = 0; j < RP_TN; ++j)
                b[j] = Bs[k][tx * RP_TN + j];
#pragma unroll
            for (int i = 0; i < RP_TM; ++i)
#pragma unroll
                for (int j = 0; j < RP_TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < RP_TM; ++i)
#pragma unroll
        for (int j = 0; j < RP_TN; ++j)
            C[(row0 + ty * RP_TM + i) * N + col0 + tx * RP_TN + j] = acc[i][j];
}

#define RP_BODIES 8
#define RP_TILE 128

// acc[i] = sum over j of m_j (p_j - p_i) / (|p_j - p_i|^2 + eps)^(3/2); pos: x, y, z, mass.
// blockDim.x == 128; thread t of CTA b handles bodies (b * 8 + q) * 128 + t for q < 8;
// n a multiple of 1024.
extern "C" __global__ void rp_nbody(const float4 *__restrict__ pos, float4 *__restrict__ acc, int n)
{
    __shared__ float4 tile[RP_TILE];
    float px[RP_BODIES], py[RP_BODIES], pz[RP_BODIES], ax[RP_BODIES], ay[RP_BODIES], az[RP_BODIES];
#pragma unroll
    for (int q = 0; q < RP_BODIES; ++q) {
        const float4 p = pos[(blockIdx.x * RP_BODIES + q) * RP_TILE + threadIdx.x];
        px[q] = p.x;
        py[q] = p.y;
        pz[q] = p.z;
        ax[q] = ay[q] = az[q] = 0.0f;
    }
    for (int base = 0; base < n; base += RP_TILE) {
        tile[threadIdx.x] = pos[base + threadIdx.x];
        __syncthreads();
        for (int j = 0; j < RP_TILE; ++j) {
            const float4 o = tile[j];
#pragma unroll
            for (int q = 0; q < RP_BODIES; ++q) {
                const float dx = o.x - px[q], dy = o.y - py[q], dz = o.z - pz[q];
                const float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 0.01f);
                const float s = o.w * inv * inv * inv;
                ax[q] += dx * s;
                ay[q] += dy * s;
                az[q] += dz * s;
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int q = 0; q < RP_BODIES; ++q)
        acc[(blockIdx.x * RP_BODIES + q) * RP_TILE + threadIdx.x] = make_float4(ax[q], ay[q], az[q], 0.0f);
}
