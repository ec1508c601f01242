// TenSafe CUDA kernels: batched negacyclic NTT and the fused hosted HE-LoRA product. Every kernel
// computes exactly the residues of kernels-core's Java reference
// (io.tensafe.kernels.ring.NegacyclicNtt, Modulus, CoefficientExtractor, ProductDecryption): all
// outputs are fully reduced into [0, q), so "bit for bit" equals "correct modulo q".
//
// Conventions (shared with Kernels.java, whose constants KernelConstantsTest checks against the
// #defines below):
// - A batch is `limbs` polynomials of degree n stored one after another (limb k at data + k*n),
//   all under one prime q < 2^60, so 4q < 2^62 and lazy values never overflow.
// - Twiddle tables are the Java tables verbatim: index k in [1, n) holds psi^bitrev(k) (forward)
//   or its inverse, and a Shoup companion floor(w * 2^64 / q) beside each.
// - Forward: Cooley-Tukey, natural order in, bit-reversed out. Inverse: Gentleman-Sande,
//   bit-reversed in, natural out, times n^-1.
// - Stages whose butterfly span t is at least TILE run in "column" kernels: thread c holds the
//   R = n / TILE values c, c + TILE, ... in registers. Stages with t < TILE run in one "tile"
//   kernel per TILE contiguous values in shared memory. Every kernel is one launch for the batch.

#include <stdint.h>

typedef unsigned long long u64;

#define TILE 2048
#define TILE_THREADS 1024

// ---------------------------------------------------------------------------------------------
// Modular arithmetic. Range comments follow the Java sources.

// a * w mod q, lazily: any a, reduced w, wShoup = floor(w * 2^64 / q). Range: [0, 2q).
__device__ __forceinline__ u64 mul_shoup_lazy(u64 a, u64 w, u64 w_shoup, u64 q) {
  return a * w - __umul64hi(a, w_shoup) * q;
}

__device__ __forceinline__ u64 reduce_2q(u64 x, u64 q) { return x >= q ? x - q : x; }

__device__ __forceinline__ u64 mul_shoup(u64 a, u64 w, u64 w_shoup, u64 q) {
  return reduce_2q(mul_shoup_lazy(a, w, w_shoup, q), q);
}

__device__ __forceinline__ u64 add_mod(u64 a, u64 b, u64 q) {
  u64 s = a + b;
  return s >= q ? s - q : s;
}

__device__ __forceinline__ u64 sub_mod(u64 a, u64 b, u64 q) { return a >= b ? a - b : a + q - b; }

// ---------------------------------------------------------------------------------------------
// Where a thread or block works.

// Column kernels: this thread's first value, data + limb*n + c for column c < TILE of its limb, or
// nullptr for threads past the batch.
template <int R>
__device__ __forceinline__ u64* column_start(u64* data, int limbs) {
  long long gid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= (long long)limbs * TILE) return nullptr;
  return data + (gid / TILE) * (long long)(R * TILE) + gid % TILE;
}

// Tile kernels: copies this block's tile of min(n, TILE) values into shared memory `s` and returns
// its place in global memory (and its index within the limb), or nullptr past the batch. The whole
// block either returns nullptr or reaches the barrier.
__device__ __forceinline__ u64* load_tile(u64* data, int n, int limbs, u64* s, int* tile_index) {
  const int tile = n < TILE ? n : TILE;
  const int tiles_per_limb = n / tile;
  int limb = blockIdx.x / tiles_per_limb;
  *tile_index = blockIdx.x % tiles_per_limb;
  if (limb >= limbs) return nullptr;
  u64* a = data + (long long)limb * n + (long long)*tile_index * tile;
  for (int j = threadIdx.x; j < tile; j += blockDim.x) s[j] = a[j];
  __syncthreads();
  return a;
}

// ---------------------------------------------------------------------------------------------
// Forward NTT.

// Stages with t >= TILE for degree n = R * TILE: thread c of a limb holds x[c + k*TILE], k < R.
// Input [0, q) (or [0, 4q)); output [0, 4q).
template <int R>
__device__ void forward_columns(u64* data, const u64* roots, const u64* roots_shoup, u64 q,
                                int limbs) {
  u64* a = column_start<R>(data, limbs);
  if (a == nullptr) return;
  u64 v[R];
#pragma unroll
  for (int k = 0; k < R; k++) v[k] = a[(long long)k * TILE];
  const u64 two_q = 2 * q;
#pragma unroll
  for (int m = 1, tt = R / 2; tt >= 1; m <<= 1, tt >>= 1) {
#pragma unroll
    for (int i = 0; i < m; i++) {
      u64 w = roots[m + i];
      u64 ws = roots_shoup[m + i];
#pragma unroll
      for (int kk = 0; kk < tt; kk++) {
        int k = 2 * i * tt + kk;
        u64 x = v[k];
        x = x >= two_q ? x - two_q : x;
        u64 p = mul_shoup_lazy(v[k + tt], w, ws, q);
        v[k] = x + p;
        v[k + tt] = x - p + two_q;
      }
    }
  }
#pragma unroll
  for (int k = 0; k < R; k++) a[(long long)k * TILE] = v[k];
}

// Stages with t < TILE (all stages when n <= TILE) on one tile of min(n, TILE) values in shared
// memory, then the final reduction to [0, q). Input [0, 4q); output [0, q).
__device__ void forward_tile(u64* data, const u64* roots, const u64* roots_shoup, u64 q, int n,
                             int limbs) {
  __shared__ u64 s[TILE];
  const int tile = n < TILE ? n : TILE;
  int tile_index;
  u64* a = load_tile(data, n, limbs, s, &tile_index);
  if (a == nullptr) return;
  const u64 two_q = 2 * q;
  const int half = tile / 2;
  // Global stage: t = tile/2 ... 1, with m = n / (2t) groups over the whole limb.
  for (int t = half; t >= 1; t >>= 1) {
    int m = n / (2 * t);
    for (int b = threadIdx.x; b < half; b += blockDim.x) {
      int group_in_tile = b / t;
      int j = 2 * group_in_tile * t + (b % t);
      int group = tile_index * (tile / (2 * t)) + group_in_tile;
      u64 w = roots[m + group];
      u64 ws = roots_shoup[m + group];
      u64 x = s[j];
      x = x >= two_q ? x - two_q : x;
      u64 p = mul_shoup_lazy(s[j + t], w, ws, q);
      s[j] = x + p;
      s[j + t] = x - p + two_q;
    }
    __syncthreads();
  }
  for (int j = threadIdx.x; j < tile; j += blockDim.x) {
    u64 x = s[j];
    x = x >= two_q ? x - two_q : x;
    a[j] = x >= q ? x - q : x;
  }
}

// ---------------------------------------------------------------------------------------------
// Inverse NTT.

// Stages with t < TILE on one tile (all stages and n^-1 when n <= TILE).
// Input [0, q); output [0, 2q) when more stages follow, else [0, q).
__device__ void inverse_tile(u64* data, const u64* inv_roots, const u64* inv_roots_shoup, u64 q,
                             int n, int limbs, u64 n_inv, u64 n_inv_shoup) {
  __shared__ u64 s[TILE];
  const int tile = n < TILE ? n : TILE;
  int tile_index;
  u64* a = load_tile(data, n, limbs, s, &tile_index);
  if (a == nullptr) return;
  const u64 two_q = 2 * q;
  const int half = tile / 2;
  for (int t = 1; t <= half; t <<= 1) {
    int m = n / (2 * t);
    for (int b = threadIdx.x; b < half; b += blockDim.x) {
      int group_in_tile = b / t;
      int j = 2 * group_in_tile * t + (b % t);
      int group = tile_index * (tile / (2 * t)) + group_in_tile;
      u64 w = inv_roots[m + group];
      u64 ws = inv_roots_shoup[m + group];
      u64 x = s[j];
      u64 y = s[j + t];
      u64 sum = x + y;
      s[j] = sum >= two_q ? sum - two_q : sum;
      s[j + t] = mul_shoup_lazy(x - y + two_q, w, ws, q);
    }
    __syncthreads();
  }
  bool last = n <= TILE;
  for (int j = threadIdx.x; j < tile; j += blockDim.x) {
    u64 x = s[j];
    if (last) {
      a[j] = mul_shoup(x, n_inv, n_inv_shoup, q);
    } else {
      a[j] = x;
    }
  }
}

// Stages with t >= TILE, then n^-1 and the final reduction. Input [0, 2q); output [0, q).
template <int R>
__device__ void inverse_columns(u64* data, const u64* inv_roots, const u64* inv_roots_shoup, u64 q,
                                int limbs, u64 n_inv, u64 n_inv_shoup) {
  u64* a = column_start<R>(data, limbs);
  if (a == nullptr) return;
  u64 v[R];
#pragma unroll
  for (int k = 0; k < R; k++) v[k] = a[(long long)k * TILE];
  const u64 two_q = 2 * q;
#pragma unroll
  for (int tt = 1, m = R / 2; tt < R; tt <<= 1, m >>= 1) {
#pragma unroll
    for (int i = 0; i < m; i++) {
      u64 w = inv_roots[m + i];
      u64 ws = inv_roots_shoup[m + i];
#pragma unroll
      for (int kk = 0; kk < tt; kk++) {
        int k = 2 * i * tt + kk;
        u64 x = v[k];
        u64 y = v[k + tt];
        u64 sum = x + y;
        v[k] = sum >= two_q ? sum - two_q : sum;
        v[k + tt] = mul_shoup_lazy(x - y + two_q, w, ws, q);
      }
    }
  }
#pragma unroll
  for (int k = 0; k < R; k++) a[(long long)k * TILE] = mul_shoup(v[k], n_inv, n_inv_shoup, q);
}

extern "C" {

__global__ void __launch_bounds__(TILE_THREADS) ntt_forward_tile(u64* data, const u64* roots,
                                                                 const u64* roots_shoup, u64 q,
                                                                 int n, int limbs) {
  forward_tile(data, roots, roots_shoup, q, n, limbs);
}

__global__ void __launch_bounds__(TILE_THREADS) ntt_inverse_tile(u64* data, const u64* inv_roots,
                                                                 const u64* inv_roots_shoup, u64 q,
                                                                 int n, int limbs, u64 n_inv,
                                                                 u64 n_inv_shoup) {
  inverse_tile(data, inv_roots, inv_roots_shoup, q, n, limbs, n_inv, n_inv_shoup);
}

#define COLUMN_KERNELS(R)                                                                       \
  __global__ void ntt_forward_columns_##R(u64* data, const u64* roots, const u64* roots_shoup, \
                                          u64 q, int limbs) {                                  \
    forward_columns<R>(data, roots, roots_shoup, q, limbs);                                    \
  }                                                                                             \
  __global__ void ntt_inverse_columns_##R(u64* data, const u64* inv_roots,                     \
                                          const u64* inv_roots_shoup, u64 q, int limbs,        \
                                          u64 n_inv, u64 n_inv_shoup) {                        \
    inverse_columns<R>(data, inv_roots, inv_roots_shoup, q, limbs, n_inv, n_inv_shoup);        \
  }

COLUMN_KERNELS(2)
COLUMN_KERNELS(4)
COLUMN_KERNELS(8)
COLUMN_KERNELS(16)
COLUMN_KERNELS(32)

// ---------------------------------------------------------------------------------------------
// Hosted HE-LoRA (kernels-core HostedCoefficientOperator): T tokens, P prepared plaintexts.

// Secret-key encryption in NTT form: c0[t] = NTT(m_t + e_t) - c1[t] * s, in place over the
// transformed messages. Inputs and output [0, q).
__global__ void helora_encrypt(u64* message_ntt, const u64* c1, const u64* s, const u64* s_shoup,
                               int n, int tokens, u64 q) {
  long long total = (long long)tokens * n;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total;
       g += (long long)gridDim.x * blockDim.x) {
    int i = (int)(g % n);
    message_ntt[g] = sub_mod(message_ntt[g], mul_shoup(c1[g], s[i], s_shoup[i], q), q);
  }
}

// The decrypted product of token t and plaintext p at slot i, as ProductDecryption computes it:
// c0*p + (c1*p)*s, the plaintext applied before the key. Range: [0, q).
__device__ __forceinline__ u64 product_decrypt(u64 c0, u64 c1, u64 p, u64 ps, u64 s, u64 ss,
                                               u64 q) {
  u64 product0 = mul_shoup(c0, p, ps, q);
  u64 product1 = mul_shoup(c1, p, ps, q);
  return reduce_2q(product0 + mul_shoup(product1, s, ss, q), q);
}

// Equal to HostedLoraWeights.MAX_EXTRACTED_OUTPUTS (Kernels.java; KernelConstantsTest checks).
#define MAX_FUSED_OUTPUTS 6
#define FUSED_THREADS 256

// One block per (token, plaintext): ct x pt, decryption and the extraction of `outputs`
// (<= MAX_FUSED_OUTPUTS) coefficients by inner products with precomputed weights
// (CoefficientExtractor), without writing the product anywhere. out[t][p*outputs + b].
__global__ void __launch_bounds__(FUSED_THREADS)
    helora_product_extract(const u64* c0, const u64* c1, const u64* pt, const u64* pt_shoup,
                           const u64* s, const u64* s_shoup, const u64* weights,
                           const u64* weights_shoup, u64* out, int n, int plaintexts,
                           int outputs, u64 q) {
  int t = blockIdx.x / plaintexts;
  int p = blockIdx.x % plaintexts;
  const u64* c0t = c0 + (long long)t * n;
  const u64* c1t = c1 + (long long)t * n;
  const u64* ptp = pt + (long long)p * n;
  const u64* pts = pt_shoup + (long long)p * n;
  u64 acc[MAX_FUSED_OUTPUTS];
#pragma unroll
  for (int b = 0; b < MAX_FUSED_OUTPUTS; b++) acc[b] = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    u64 v = product_decrypt(c0t[i], c1t[i], ptp[i], pts[i], s[i], s_shoup[i], q);
#pragma unroll
    for (int b = 0; b < MAX_FUSED_OUTPUTS; b++) {
      if (b < outputs) {
        u64 term = mul_shoup(v, weights[(long long)b * n + i], weights_shoup[(long long)b * n + i],
                             q);
        acc[b] = add_mod(acc[b], term, q);
      }
    }
  }
  __shared__ u64 partial[FUSED_THREADS / 32][MAX_FUSED_OUTPUTS];
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
#pragma unroll
  for (int b = 0; b < MAX_FUSED_OUTPUTS; b++) {
    u64 x = acc[b];
    for (int offset = 16; offset > 0; offset >>= 1) {
      x = add_mod(x, __shfl_down_sync(0xffffffffu, x, offset), q);
    }
    if (lane == 0) partial[warp][b] = x;
  }
  __syncthreads();
  if (threadIdx.x < outputs) {
    u64 x = 0;
    for (int w = 0; w < FUSED_THREADS / 32; w++) x = add_mod(x, partial[w][threadIdx.x], q);
    out[(long long)t * plaintexts * outputs + (long long)p * outputs + threadIdx.x] = x;
  }
}

// The decrypted products of every (token, plaintext), written out for an inverse NTT when more
// coefficients are needed than extraction handles: products[(t*P + p)*n + i].
__global__ void helora_product(const u64* c0, const u64* c1, const u64* pt, const u64* pt_shoup,
                               const u64* s, const u64* s_shoup, u64* products, int n,
                               int plaintexts, int tokens, u64 q) {
  long long total = (long long)tokens * plaintexts * n;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total;
       g += (long long)gridDim.x * blockDim.x) {
    int i = (int)(g % n);
    long long tp = g / n;
    int p = (int)(tp % plaintexts);
    long long t = tp / plaintexts;
    long long tn = t * n + i;
    long long pn = (long long)p * n + i;
    products[g] = product_decrypt(c0[tn], c1[tn], pt[pn], pt_shoup[pn], s[i], s_shoup[i], q);
  }
}

// After the inverse NTT of the products: out[t][p*outputs + b] = products[t*P + p][positions[b]].
__global__ void helora_gather(const u64* products, const int* positions, u64* out, int n,
                              int plaintexts, int outputs, int tokens) {
  long long total = (long long)tokens * plaintexts * outputs;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total;
       g += (long long)gridDim.x * blockDim.x) {
    int b = (int)(g % outputs);
    long long tp = g / outputs;
    out[g] = products[tp * n + positions[b]];
  }
}

}  // extern "C"

// ---------------------------------------------------------------------------------------------
// Counter-based sampling (kernels-core io.tensafe.kernels.ring.CounterSampler): the ChaCha20
// block function of RFC 8439 keyed by a 32-byte session key (8 little-endian words), nonce
// (domain, token, limb), block counter from 0; the keystream read as little-endian 64-bit words.
// Every output depends only on its own position, so these equal the Java reference word for word.

#define COUNTER_UNIFORM_DOMAIN 0x66696e75u
#define COUNTER_ERROR_DOMAIN 0x73727265u
#define COUNTER_ERROR_TABLE 20

__device__ __forceinline__ unsigned rotl32(unsigned x, int n) { return (x << n) | (x >> (32 - n)); }

#define CHACHA_QR(a, b, c, d)                     \
  a += b; d = rotl32(d ^ a, 16);                  \
  c += d; b = rotl32(b ^ c, 12);                  \
  a += b; d = rotl32(d ^ a, 8);                   \
  c += d; b = rotl32(b ^ c, 7);

// Block `counter` of the stream (key, n0, n1, n2) as 8 little-endian 64-bit words.
__device__ __forceinline__ void chacha20_words(const unsigned* key, unsigned counter, unsigned n0,
                                               unsigned n1, unsigned n2, u64* words) {
  unsigned s[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u, key[0], key[1], key[2],
                    key[3], key[4], key[5], key[6], key[7], counter, n0, n1, n2};
  unsigned x[16];
#pragma unroll
  for (int i = 0; i < 16; i++) x[i] = s[i];
#pragma unroll
  for (int round = 0; round < 10; round++) {
    CHACHA_QR(x[0], x[4], x[8], x[12]);
    CHACHA_QR(x[1], x[5], x[9], x[13]);
    CHACHA_QR(x[2], x[6], x[10], x[14]);
    CHACHA_QR(x[3], x[7], x[11], x[15]);
    CHACHA_QR(x[0], x[5], x[10], x[15]);
    CHACHA_QR(x[1], x[6], x[11], x[12]);
    CHACHA_QR(x[2], x[7], x[8], x[13]);
    CHACHA_QR(x[3], x[4], x[9], x[14]);
  }
#pragma unroll
  for (int i = 0; i < 8; i++) {
    words[i] = (u64)(x[2 * i] + s[2 * i]) | ((u64)(x[2 * i + 1] + s[2 * i + 1]) << 32);
  }
}

// (high * 2^64 + low) mod q for high < q, Barrett with ratio = floor(2^128 / q), exactly as
// Modulus.reduce128. Range: [0, q).
__device__ __forceinline__ u64 reduce128(u64 high, u64 low, u64 q, u64 ratio_high,
                                         u64 ratio_low) {
  u64 low_ratio_low_high = __umul64hi(low, ratio_low);
  u64 cross_a = low * ratio_high;
  u64 cross_a_high = __umul64hi(low, ratio_high);
  u64 sum1 = cross_a + low_ratio_low_high;
  u64 middle_high = cross_a_high + (sum1 < cross_a ? 1 : 0);
  u64 cross_b = high * ratio_low;
  u64 cross_b_high = __umul64hi(high, ratio_low);
  u64 sum2 = sum1 + cross_b;
  u64 quotient = high * ratio_high + middle_high + cross_b_high + (sum2 < sum1 ? 1 : 0);
  u64 remainder = low - quotient * q;
  return remainder >= q ? remainder - q : remainder;
}

extern "C" {

// Uniform residues of `tokens` tokens from `first_token` on, `limbs` limbs each:
// out[(t * limbs + l) * n + i]. moduli holds (q, ratio_high, ratio_low) per limb. One thread per
// 8 coefficients: 24 words, exactly 3 blocks. n must be a multiple of 8.
__global__ void counter_uniform(const unsigned* key, int first_token, int tokens, int limbs, int n,
                                const u64* moduli, u64* out) {
  long long groups = (long long)tokens * limbs * (n / 8);
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    int group = (int)(g % (n / 8));
    int l = (int)((g / (n / 8)) % limbs);
    int t = (int)(g / ((long long)(n / 8) * limbs));
    u64 q = moduli[3 * l], ratio_high = moduli[3 * l + 1], ratio_low = moduli[3 * l + 2];
    u64 w[24];
#pragma unroll
    for (int b = 0; b < 3; b++) {
      chacha20_words(key, (unsigned)(3 * group + b), COUNTER_UNIFORM_DOMAIN,
                     (unsigned)(first_token + t), (unsigned)l, w + 8 * b);
    }
    u64* o = out + ((long long)t * limbs + l) * n + 8LL * group;
#pragma unroll
    for (int c = 0; c < 8; c++) {
      u64 x = reduce128(0, w[3 * c], q, ratio_high, ratio_low);
      x = reduce128(x, w[3 * c + 1], q, ratio_high, ratio_low);
      o[c] = reduce128(x, w[3 * c + 2], q, ratio_high, ratio_low);
    }
  }
}

// Signed errors of `tokens` tokens from `first_token` on: out[t * n + i] in [-20, 20], one word per
// coefficient (bit 0 the sign, bits 1..63 against every entry of the cumulative table). One thread
// per block of 8 coefficients. n must be a multiple of 8.
__global__ void counter_errors(const unsigned* key, int first_token, int tokens, int n,
                               const u64* table, long long* out) {
  long long blocks = (long long)tokens * (n / 8);
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < blocks;
       g += (long long)gridDim.x * blockDim.x) {
    int block = (int)(g % (n / 8));
    int t = (int)(g / (n / 8));
    u64 w[8];
    chacha20_words(key, (unsigned)block, COUNTER_ERROR_DOMAIN, (unsigned)(first_token + t), 0u, w);
    long long* o = out + (long long)t * n + 8LL * block;
#pragma unroll
    for (int c = 0; c < 8; c++) {
      u64 u = w[c] >> 1;
      long long magnitude = 0;
#pragma unroll
      for (int k = 0; k < COUNTER_ERROR_TABLE; k++) magnitude += table[k] <= u ? 1 : 0;
      o[c] = (w[c] & 1) ? -magnitude : magnitude;
    }
  }
}

}  // extern "C"
