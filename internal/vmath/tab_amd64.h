// Byte offsets of the constants in avx2Tab (kernel_amd64.go), each
// constant 8 times (32 bytes a row), shared by the AVX2 loops
// (kernel_amd64.s) and the AVX-512 ones (kernel_avx512_amd64.s, which
// broadcast each row's first copy).
#define T_LOG2E  0
#define T_MAGIC  32
#define T_NLN2HI 64
#define T_NLN2LO 96
#define T_C6     128
#define T_C5     160
#define T_C4     192
#define T_C3     224
#define T_C2     256
#define T_ONE    288
#define T_MIN    320
#define T_BIAS   352
#define T_HI     384
#define T_INF    416
#define T_SIGN   448
