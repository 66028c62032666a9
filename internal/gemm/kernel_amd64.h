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
