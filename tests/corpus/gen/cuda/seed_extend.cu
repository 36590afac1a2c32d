// Seed semantics of ld/st widths (PTX ISA, ld/st "Notes"):
//  - a destination register wider than the instruction type is sign-extended for signed types
//    (.s8/.s16/.s32) and zero-extended for unsigned and bit types (.u8/.b8/.u16/.b16/.u32);
//  - a source register wider than the instruction type stores only its low n bits.
#include "ptx_helpers.cuh"

// Thread i loads byte/halfword i (and word i) several ways; outputs per element:
//  out32[8*i + 0..7] = ld.global.s8->32, u8->32, b8->32, s16->32, u16->32, b16->32,
//                      ld.global.nc.s8->32, ld.shared.s16->32
//  out64[6*i + 0..5] = ld.global.s8->64, u8->64, s16->64, s32->64, u32->64, ld.global.nc.s16->64
extern "C" __global__ void sign_extend_loads(const signed char* __restrict__ b8, const short* __restrict__ b16,
                                             const int* __restrict__ b32, int* __restrict__ out32,
                                             long long* __restrict__ out64, int n)
{
    __shared__ short sh16[64];
    const int i = threadIdx.x;  // one block, n <= 64
    if (i >= n) return;
    sh16[i] = b16[i];
    __syncthreads();
    const unsigned long long p8 = gaddr(b8 + i), p16 = gaddr(b16 + i), p32 = gaddr(b32 + i);
    int r[8];
    asm volatile("ld.global.s8 %0, [%1];" : "=r"(r[0]) : "l"(p8));
    asm volatile("ld.global.u8 %0, [%1];" : "=r"(r[1]) : "l"(p8));
    asm volatile("ld.global.b8 %0, [%1];" : "=r"(r[2]) : "l"(p8));
    asm volatile("ld.global.s16 %0, [%1];" : "=r"(r[3]) : "l"(p16));
    asm volatile("ld.global.u16 %0, [%1];" : "=r"(r[4]) : "l"(p16));
    asm volatile("ld.global.b16 %0, [%1];" : "=r"(r[5]) : "l"(p16));
    asm volatile("ld.global.nc.s8 %0, [%1];" : "=r"(r[6]) : "l"(p8));
    asm volatile("ld.shared.s16 %0, [%1];" : "=r"(r[7]) : "r"(saddr(sh16 + (n - 1 - i))) : "memory");
    for (int k = 0; k < 8; ++k) out32[8 * i + k] = r[k];
    long long q[6];
    asm volatile("ld.global.s8 %0, [%1];" : "=l"(q[0]) : "l"(p8));
    asm volatile("ld.global.u8 %0, [%1];" : "=l"(q[1]) : "l"(p8));
    asm volatile("ld.global.s16 %0, [%1];" : "=l"(q[2]) : "l"(p16));
    asm volatile("ld.global.s32 %0, [%1];" : "=l"(q[3]) : "l"(p32));
    asm volatile("ld.global.u32 %0, [%1];" : "=l"(q[4]) : "l"(p32));
    asm volatile("ld.global.nc.s16 %0, [%1];" : "=l"(q[5]) : "l"(p16));
    for (int k = 0; k < 6; ++k) out64[6 * i + k] = q[k];
}

// Stores from wider registers keep the low bits: o8[i] = low byte of w32[i] (st.u8 from a 32-bit
// register) and o8[n+i] = low byte of w64[i] (st.b8 from a 64-bit register); o16[i] = low half of
// w32[i]; o32[i] = low word of w64[i] (st.u32 from a 64-bit register); o16[n+i] from st.shared.b16
// of a 32-bit register read back.
extern "C" __global__ void narrow_stores(const unsigned* __restrict__ w32, const unsigned long long* __restrict__ w64,
                                         unsigned char* __restrict__ o8, unsigned short* __restrict__ o16,
                                         unsigned* __restrict__ o32, int n)
{
    __shared__ unsigned short sh[64];
    const int i = threadIdx.x;
    if (i >= n) return;
    const unsigned a = w32[i];
    const unsigned long long b = w64[i];
    asm volatile("st.global.u8 [%0], %1;" :: "l"(gaddr(o8 + i)), "r"(a) : "memory");
    asm volatile("st.global.b8 [%0], %1;" :: "l"(gaddr(o8 + n + i)), "l"(b) : "memory");
    asm volatile("st.global.u16 [%0], %1;" :: "l"(gaddr(o16 + i)), "r"(a) : "memory");
    asm volatile("st.global.u32 [%0], %1;" :: "l"(gaddr(o32 + i)), "l"(b) : "memory");
    asm volatile("st.shared.b16 [%0], %1;" :: "r"(saddr(sh + i)), "r"(a ^ 0xFFFF0000u) : "memory");
    __syncthreads();
    o16[n + i] = sh[n - 1 - i];
}
