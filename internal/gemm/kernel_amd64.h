// Macros shared by the amd64 micro-kernels (kernel*_amd64.s).

// PREFETCH2ROWS prefetches the cache lines of floats 0 and 15 of two rows
// at stride DX from SI and advances SI by two rows. The kernels prefetch
// the C tile of the next call this way: a K block after the first loads
// its tile first, and a load from DRAM would stall every chain.
#define PREFETCH2ROWS \
	PREFETCHT0 (SI)          \
	PREFETCHT0 60(SI)        \
	PREFETCHT0 (SI)(DX*1)    \
	PREFETCHT0 60(SI)(DX*1)  \
	LEAQ       (SI)(DX*2), SI

// LOAD6ROWS8 and STORE6ROWS8 load and store 8 floats of six C rows from
// DI at stride DX (R9, R10: rows 2, 4) into and from y0..y5.
#define LOAD6ROWS8(y0, y1, y2, y3, y4, y5) \
	VMOVUPS (DI), y0        \
	VMOVUPS (DI)(DX*1), y1  \
	VMOVUPS (R9), y2        \
	VMOVUPS (R9)(DX*1), y3  \
	VMOVUPS (R10), y4       \
	VMOVUPS (R10)(DX*1), y5

#define STORE6ROWS8(y0, y1, y2, y3, y4, y5) \
	VMOVUPS y0, (DI)        \
	VMOVUPS y1, (DI)(DX*1)  \
	VMOVUPS y2, (R9)        \
	VMOVUPS y3, (R9)(DX*1)  \
	VMOVUPS y4, (R10)       \
	VMOVUPS y5, (R10)(DX*1)

// NEXT6ROWS moves DI, R9, R10 six C rows on.
#define NEXT6ROWS \
	LEAQ (R10)(DX*2), DI \
	LEAQ (DI)(DX*2), R9  \
	LEAQ (R9)(DX*2), R10

// The AVX-512 kernels' C tiles (kernel_amd64.s, kernel_avx512_direct_amd64.s):
// eight rows from DI at stride DX, rows 2 and 4 at R9 and R10, row 6 at
// the register r6.

// LOAD8ROWS32 and STORE8ROWS32 load and store the 32 floats of each of the
// eight rows, row r in Z2r (columns 0-15) and Z2r+1 (16-31).
#define LOAD8ROWS32(r6) \
	VMOVUPS (DI), Z0           \
	VMOVUPS 64(DI), Z1         \
	VMOVUPS (DI)(DX*1), Z2     \
	VMOVUPS 64(DI)(DX*1), Z3   \
	VMOVUPS (R9), Z4           \
	VMOVUPS 64(R9), Z5         \
	VMOVUPS (R9)(DX*1), Z6     \
	VMOVUPS 64(R9)(DX*1), Z7   \
	VMOVUPS (R10), Z8          \
	VMOVUPS 64(R10), Z9        \
	VMOVUPS (R10)(DX*1), Z10   \
	VMOVUPS 64(R10)(DX*1), Z11 \
	VMOVUPS (r6), Z12          \
	VMOVUPS 64(r6), Z13        \
	VMOVUPS (r6)(DX*1), Z14    \
	VMOVUPS 64(r6)(DX*1), Z15

#define STORE8ROWS32(r6) \
	VMOVUPS Z0, (DI)           \
	VMOVUPS Z1, 64(DI)         \
	VMOVUPS Z2, (DI)(DX*1)     \
	VMOVUPS Z3, 64(DI)(DX*1)   \
	VMOVUPS Z4, (R9)           \
	VMOVUPS Z5, 64(R9)         \
	VMOVUPS Z6, (R9)(DX*1)     \
	VMOVUPS Z7, 64(R9)(DX*1)   \
	VMOVUPS Z8, (R10)          \
	VMOVUPS Z9, 64(R10)        \
	VMOVUPS Z10, (R10)(DX*1)   \
	VMOVUPS Z11, 64(R10)(DX*1) \
	VMOVUPS Z12, (r6)          \
	VMOVUPS Z13, 64(r6)        \
	VMOVUPS Z14, (r6)(DX*1)    \
	VMOVUPS Z15, 64(r6)(DX*1)

// ZEROY0TO7 and ZEROY0TO11 clear the AVX2 kernels' accumulators Y0-Y7
// and Y0-Y11.
#define ZEROY0TO7 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7

#define ZEROY0TO11 \
	ZEROY0TO7 \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11

// ZEROZ0TO7 and ZEROZ8TO15 clear the accumulators Z0-Z7 and Z8-Z15.
#define ZEROZ0TO7 \
	VPXORD Z0, Z0, Z0 \
	VPXORD Z1, Z1, Z1 \
	VPXORD Z2, Z2, Z2 \
	VPXORD Z3, Z3, Z3 \
	VPXORD Z4, Z4, Z4 \
	VPXORD Z5, Z5, Z5 \
	VPXORD Z6, Z6, Z6 \
	VPXORD Z7, Z7, Z7

#define ZEROZ8TO15 \
	VPXORD Z8, Z8, Z8    \
	VPXORD Z9, Z9, Z9    \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11 \
	VPXORD Z12, Z12, Z12 \
	VPXORD Z13, Z13, Z13 \
	VPXORD Z14, Z14, Z14 \
	VPXORD Z15, Z15, Z15

// PREFETCH8ROWS16 prefetches eight rows of 64 bytes at stride DX from SI
// (floats 0 and 15 of each) and advances SI by eight rows;
// PREFETCH8ROWS32 prefetches eight rows of 128 bytes from next (an
// argument in memory), their first and last 64 bytes.
#define PREFETCH8ROWS16 \
	PREFETCH2ROWS \
	PREFETCH2ROWS \
	PREFETCH2ROWS \
	PREFETCH2ROWS

#define PREFETCH8ROWS32(next) \
	MOVQ next, SI   \
	PREFETCH8ROWS16 \
	MOVQ next, SI   \
	ADDQ $64, SI    \
	PREFETCH8ROWS16
